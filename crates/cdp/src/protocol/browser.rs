//! `Browser` domain: the browser itself, downloads and permissions of a context.

use serde::{Deserialize, Serialize};

use super::{Empty, command, event};

#[derive(Debug, Clone, Default, Serialize)]
pub struct GetVersion {}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Version {
    pub protocol_version: String,
    pub product: String,
    pub user_agent: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Close {}

/// Where downloads of a browser context go. `behavior` is `deny`, `allow` (into
/// `download_path`, under the suggested name), `allowAndName` (named by guid) or
/// `default`; with `events_enabled` the browser session gets `downloadWillBegin` and
/// `downloadProgress`.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetDownloadBehavior {
    pub behavior: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub download_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events_enabled: Option<bool>,
}

/// Cancels a download under way (one that finished already stays).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelDownload {
    pub guid: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<String>,
}

/// Grants `permissions` (to `origin`, or every origin) and denies all others.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GrantPermissions {
    pub permissions: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetWindowForTarget {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_id: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WindowForTarget {
    pub window_id: i64,
    pub bounds: Bounds,
}

/// A window's position and size in screen pixels; absent when it is not `normal`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Bounds {
    #[serde(default)]
    pub width: Option<u32>,
    #[serde(default)]
    pub height: Option<u32>,
}

/// A download started; `frame_id` is the frame whose page started it (for a tab's main
/// frame, the tab's target id).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DownloadWillBegin {
    pub frame_id: String,
    pub guid: String,
    pub url: String,
    pub suggested_filename: String,
}

/// `state`: `inProgress`, `completed` or `canceled`; `file_path` is set once completed.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DownloadProgress {
    pub guid: String,
    pub total_bytes: f64,
    pub received_bytes: f64,
    pub state: String,
    #[serde(default)]
    pub file_path: Option<String>,
}

command! {
    GetVersion => "Browser.getVersion", Version;
    Close => "Browser.close", Empty;
    SetDownloadBehavior => "Browser.setDownloadBehavior", Empty;
    CancelDownload => "Browser.cancelDownload", Empty;
    GrantPermissions => "Browser.grantPermissions", Empty;
    GetWindowForTarget => "Browser.getWindowForTarget", WindowForTarget;
}

event! {
    DownloadWillBegin => "Browser.downloadWillBegin";
    DownloadProgress => "Browser.downloadProgress";
}
