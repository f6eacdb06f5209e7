//! `Page` domain: navigation, history and the lifecycle of frames.

use serde::{Deserialize, Serialize};

use super::{Empty, command, event};

#[derive(Debug, Clone, Default, Serialize)]
pub struct Enable {}

#[derive(Debug, Clone, Default, Serialize)]
pub struct SetLifecycleEventsEnabled {
    pub enabled: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Navigate {
    pub url: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Navigated {
    pub frame_id: String,
    /// Absent for a same-document navigation.
    #[serde(default)]
    pub loader_id: Option<String>,
    /// `net::ERR_*` when the navigation failed at the transport level.
    #[serde(default)]
    pub error_text: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Reload {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignore_cache: Option<bool>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct GetNavigationHistory {}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigationHistory {
    pub current_index: usize,
    pub entries: Vec<NavigationEntry>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigationEntry {
    pub id: i64,
    pub url: String,
    #[serde(default)]
    pub title: String,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigateToHistoryEntry {
    pub entry_id: i64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct GetFrameTree {}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameTreeReply {
    pub frame_tree: FrameTree,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameTree {
    pub frame: Frame,
    #[serde(default)]
    pub child_frames: Vec<FrameTree>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Frame {
    pub id: String,
    #[serde(default)]
    pub parent_id: Option<String>,
    pub loader_id: String,
    pub url: String,
    #[serde(default)]
    pub url_fragment: Option<String>,
    /// Set when this frame shows an error page instead of the URL it tried to load.
    #[serde(default)]
    pub unreachable_url: Option<String>,
}

/// A frame committed a new document.
#[derive(Debug, Clone, Deserialize)]
pub struct FrameNavigated {
    pub frame: Frame,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigatedWithinDocument {
    pub frame_id: String,
    pub url: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameStartedLoading {
    pub frame_id: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameStoppedLoading {
    pub frame_id: String,
}

/// `name` is e.g. `init`, `DOMContentLoaded`, `load`, `networkIdle`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LifecycleEvent {
    pub frame_id: String,
    pub loader_id: String,
    pub name: String,
}

command! {
    Enable => "Page.enable", Empty;
    SetLifecycleEventsEnabled => "Page.setLifecycleEventsEnabled", Empty;
    Navigate => "Page.navigate", Navigated;
    Reload => "Page.reload", Empty;
    GetNavigationHistory => "Page.getNavigationHistory", NavigationHistory;
    NavigateToHistoryEntry => "Page.navigateToHistoryEntry", Empty;
    GetFrameTree => "Page.getFrameTree", FrameTreeReply;
}

event! {
    FrameNavigated => "Page.frameNavigated";
    NavigatedWithinDocument => "Page.navigatedWithinDocument";
    FrameStartedLoading => "Page.frameStartedLoading";
    FrameStoppedLoading => "Page.frameStoppedLoading";
    LifecycleEvent => "Page.lifecycleEvent";
}
