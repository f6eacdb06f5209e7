//! `Target` domain: browser contexts, pages, and flattened sessions.

use serde::{Deserialize, Serialize};

use super::{Empty, command, event};
use crate::SessionId;

/// Kinds of target. Lenient: kinds added by newer Chromium become `Other`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetType {
    Page,
    Iframe,
    Worker,
    SharedWorker,
    ServiceWorker,
    Browser,
    Tab,
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetInfo {
    pub target_id: String,
    pub r#type: TargetType,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub attached: bool,
    #[serde(default)]
    pub opener_id: Option<String>,
    #[serde(default)]
    pub browser_context_id: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateBrowserContext {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispose_on_detach: Option<bool>,
    /// The context's proxy (`http://host:port`, `socks5://…`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxy_server: Option<String>,
    /// Hosts the proxy is not used for (`<-loopback>` sends loopback through it too).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxy_bypass_list: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct GetBrowserContexts {}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BrowserContexts {
    /// The context a browser's own pages live in (a profile's), when it has one.
    #[serde(default)]
    pub default_browser_context_id: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BrowserContextCreated {
    pub browser_context_id: String,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DisposeBrowserContext {
    pub browser_context_id: String,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTarget {
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background: Option<bool>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetCreatedReply {
    pub target_id: String,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CloseTarget {
    pub target_id: String,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachToTarget {
    pub target_id: String,
    pub flatten: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attached {
    pub session_id: SessionId,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetAutoAttach {
    pub auto_attach: bool,
    pub wait_for_debugger_on_start: bool,
    pub flatten: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct SetDiscoverTargets {
    pub discover: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct GetTargets {}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetInfos {
    pub target_infos: Vec<TargetInfo>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTargetInfo {
    pub target_id: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetInfoReply {
    pub target_info: TargetInfo,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActivateTarget {
    pub target_id: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetCreated {
    pub target_info: TargetInfo,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetDestroyed {
    pub target_id: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetInfoChanged {
    pub target_info: TargetInfo,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetCrashed {
    pub target_id: String,
    #[serde(default)]
    pub status: String,
}

/// A session was attached (by us, or automatically for an out-of-process iframe).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachedToTarget {
    pub session_id: SessionId,
    pub target_info: TargetInfo,
    #[serde(default)]
    pub waiting_for_debugger: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetachedFromTarget {
    pub session_id: SessionId,
    #[serde(default)]
    pub target_id: Option<String>,
}

command! {
    CreateBrowserContext => "Target.createBrowserContext", BrowserContextCreated;
    DisposeBrowserContext => "Target.disposeBrowserContext", Empty;
    GetBrowserContexts => "Target.getBrowserContexts", BrowserContexts;
    CreateTarget => "Target.createTarget", TargetCreatedReply;
    CloseTarget => "Target.closeTarget", Empty;
    AttachToTarget => "Target.attachToTarget", Attached;
    SetAutoAttach => "Target.setAutoAttach", Empty;
    SetDiscoverTargets => "Target.setDiscoverTargets", Empty;
    GetTargets => "Target.getTargets", TargetInfos;
    GetTargetInfo => "Target.getTargetInfo", TargetInfoReply;
    ActivateTarget => "Target.activateTarget", Empty;
}

event! {
    TargetCreated => "Target.targetCreated";
    TargetDestroyed => "Target.targetDestroyed";
    TargetInfoChanged => "Target.targetInfoChanged";
    TargetCrashed => "Target.targetCrashed";
    AttachedToTarget => "Target.attachedToTarget";
    DetachedFromTarget => "Target.detachedFromTarget";
}
