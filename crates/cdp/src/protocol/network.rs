//! `Network` domain: what load-state tracking, an upload's response and a tab's network
//! log need.

use serde::{Deserialize, Serialize};

use super::{Empty, command, event};

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Enable {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_post_data_size: Option<u64>,
}

/// A request failed at the transport level; for a document request its id is the
/// navigation's loader id.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadingFailed {
    pub request_id: String,
    /// Seconds, on the browser's monotonic clock.
    #[serde(default)]
    pub timestamp: f64,
    #[serde(default)]
    pub r#type: Option<String>,
    pub error_text: String,
    #[serde(default)]
    pub canceled: Option<bool>,
    #[serde(default)]
    pub blocked_reason: Option<String>,
}

/// A request's response has been read to its end.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadingFinished {
    pub request_id: String,
    /// Seconds, on the browser's monotonic clock.
    #[serde(default)]
    pub timestamp: f64,
    /// Bytes received, headers included.
    #[serde(default)]
    pub encoded_data_length: f64,
}

/// A request was answered from the memory cache.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestServedFromCache {
    pub request_id: String,
}

/// A request is about to be sent (again, after a redirect, with the same id).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestWillBeSent {
    pub request_id: String,
    pub request: Request,
    /// Seconds, on the browser's monotonic clock.
    #[serde(default)]
    pub timestamp: f64,
    /// Seconds since the epoch.
    #[serde(default)]
    pub wall_time: f64,
    /// `Document`, `Script`, `XHR`, `Fetch`, … (absent for some).
    #[serde(default)]
    pub r#type: Option<String>,
    #[serde(default)]
    pub frame_id: Option<String>,
    /// The response that redirected to this request (same id), if one did.
    #[serde(default)]
    pub redirect_response: Option<Response>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    pub url: String,
    pub method: String,
    /// Name → value.
    #[serde(default)]
    pub headers: serde_json::Map<String, serde_json::Value>,
    #[serde(default)]
    pub has_post_data: Option<bool>,
}

/// A response's headers arrived.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseReceived {
    pub request_id: String,
    pub response: Response,
    /// Seconds, on the browser's monotonic clock.
    #[serde(default)]
    pub timestamp: f64,
    #[serde(default)]
    pub r#type: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Response {
    pub url: String,
    pub status: i64,
    #[serde(default)]
    pub status_text: String,
    /// Name → value.
    #[serde(default)]
    pub headers: serde_json::Map<String, serde_json::Value>,
    #[serde(default)]
    pub mime_type: String,
    #[serde(default)]
    pub protocol: Option<String>,
    #[serde(default)]
    pub from_disk_cache: Option<bool>,
    #[serde(default)]
    pub encoded_data_length: f64,
}

/// Reads a finished response's body while the browser still keeps it.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetResponseBody {
    pub request_id: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseBody {
    pub body: String,
    pub base64_encoded: bool,
}

command! {
    Enable => "Network.enable", Empty;
    GetResponseBody => "Network.getResponseBody", ResponseBody;
}

event! {
    LoadingFailed => "Network.loadingFailed";
    LoadingFinished => "Network.loadingFinished";
    RequestServedFromCache => "Network.requestServedFromCache";
    RequestWillBeSent => "Network.requestWillBeSent";
    ResponseReceived => "Network.responseReceived";
}
