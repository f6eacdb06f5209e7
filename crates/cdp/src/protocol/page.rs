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
pub struct GetLayoutMetrics {}

/// Sizes in CSS pixels.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutMetrics {
    pub css_visual_viewport: VisualViewport,
    pub css_content_size: Rect,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VisualViewport {
    pub page_x: f64,
    pub page_y: f64,
    pub client_width: f64,
    pub client_height: f64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
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

/// A frame began a navigation; until it commits (or fails, or stops) Chromium holds
/// the messages meant for the page's renderer.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameStartedNavigating {
    pub frame_id: String,
    pub url: String,
    #[serde(default)]
    pub navigation_type: Option<String>,
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

/// Stops the pending navigation and loading of the page (handled by the browser, so it
/// works while a navigation holds the renderer's messages).
#[derive(Debug, Clone, Default, Serialize)]
pub struct StopLoading {}

/// Crashes the page's renderer (answered only if it survives, so callers wait for the
/// crash event instead of the reply).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Crash {}

/// `name` is e.g. `init`, `DOMContentLoaded`, `load`, `networkIdle`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LifecycleEvent {
    pub frame_id: String,
    pub loader_id: String,
    pub name: String,
}

/// Captures the page as an image. With `clip` (document CSS pixels) Chromium renders that
/// rectangle at `clip.scale` times the device pixel ratio, so a downscaled image costs no
/// resizing on our side.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureScreenshot {
    /// `png` (default), `jpeg` or `webp`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// 0–100, jpeg and webp only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quality: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clip: Option<Viewport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_surface: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capture_beyond_viewport: Option<bool>,
    /// Encode fast rather than small.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optimize_for_speed: Option<bool>,
}

/// A capture rectangle in document CSS pixels, rendered at `scale`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Viewport {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub scale: f64,
}

/// The image, base64-encoded.
#[derive(Debug, Clone, Deserialize)]
pub struct Screenshot {
    pub data: String,
}

/// The page printed to PDF, as print media lays it out. Sizes in inches.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrintToPdf {
    pub landscape: bool,
    pub print_background: bool,
    pub paper_width: f64,
    pub paper_height: f64,
    /// `1-5, 8`; empty: every page.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub page_ranges: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PrintedPdf {
    /// Base64.
    pub data: String,
}

/// Runs `source` in every new document of the page (and its same-process frames) before
/// the page's own scripts: in the page's own world when `world_name` is empty, else in the
/// isolated world of that name, which the new document then has from its start.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AddScriptToEvaluateOnNewDocument {
    pub source: String,
    pub world_name: String,
}

/// Makes (or finds: one per name and document) an isolated world in `frame_id`'s current
/// document: same DOM as the page, JavaScript globals and prototypes of its own.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateIsolatedWorld {
    pub frame_id: String,
    pub world_name: String,
    /// Spelled as the protocol spells it.
    pub grant_univeral_access: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IsolatedWorld {
    pub execution_context_id: i64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ScriptAdded {
    pub identifier: String,
}

command! {
    CaptureScreenshot => "Page.captureScreenshot", Screenshot;
    PrintToPdf => "Page.printToPDF", PrintedPdf;
    AddScriptToEvaluateOnNewDocument => "Page.addScriptToEvaluateOnNewDocument", ScriptAdded;
    CreateIsolatedWorld => "Page.createIsolatedWorld", IsolatedWorld;
    Enable => "Page.enable", Empty;
    SetLifecycleEventsEnabled => "Page.setLifecycleEventsEnabled", Empty;
    Navigate => "Page.navigate", Navigated;
    Reload => "Page.reload", Empty;
    GetNavigationHistory => "Page.getNavigationHistory", NavigationHistory;
    NavigateToHistoryEntry => "Page.navigateToHistoryEntry", Empty;
    GetFrameTree => "Page.getFrameTree", FrameTreeReply;
    GetLayoutMetrics => "Page.getLayoutMetrics", LayoutMetrics;
    SetInterceptFileChooserDialog => "Page.setInterceptFileChooserDialog", Empty;
    HandleJavaScriptDialog => "Page.handleJavaScriptDialog", Empty;
    BringToFront => "Page.bringToFront", Empty;
    StopLoading => "Page.stopLoading", Empty;
    Crash => "Page.crash", Empty;
    StartScreencast => "Page.startScreencast", Empty;
    StopScreencast => "Page.stopScreencast", Empty;
    ScreencastFrameAck => "Page.screencastFrameAck", Empty;

}

event! {
    FrameNavigated => "Page.frameNavigated";
    NavigatedWithinDocument => "Page.navigatedWithinDocument";
    FrameStartedNavigating => "Page.frameStartedNavigating";
    FrameStartedLoading => "Page.frameStartedLoading";
    FrameStoppedLoading => "Page.frameStoppedLoading";
    LifecycleEvent => "Page.lifecycleEvent";
    FileChooserOpened => "Page.fileChooserOpened";
    JavascriptDialogOpening => "Page.javascriptDialogOpening";
    JavascriptDialogClosed => "Page.javascriptDialogClosed";
    ScreencastFrame => "Page.screencastFrame";
}

/// Frames of the page as it paints (the live view of a hand-off).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StartScreencast {
    pub format: String,
    pub quality: Option<i64>,
    pub every_nth_frame: Option<i64>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct StopScreencast {}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScreencastFrameAck {
    pub session_id: i64,
}

/// One frame: base64 image data, its metadata, and the id to acknowledge it by.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScreencastFrame {
    pub data: String,
    pub metadata: ScreencastFrameMetadata,
    pub session_id: i64,
}

/// Sizes in CSS pixels of the page the frame shows.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScreencastFrameMetadata {
    pub device_width: f64,
    pub device_height: f64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct SetInterceptFileChooserDialog {
    pub enabled: bool,
}

/// A file chooser was intercepted; `backend_node_id` is its `<input type=file>`, even one
/// never attached to the document.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileChooserOpened {
    pub frame_id: String,
    #[serde(default)]
    pub mode: String,
    #[serde(default)]
    pub backend_node_id: Option<i64>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HandleJavaScriptDialog {
    pub accept: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
}

/// `type` is alert, confirm, prompt or beforeunload.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JavascriptDialogOpening {
    pub url: String,
    pub message: String,
    pub r#type: String,
    #[serde(default)]
    pub default_prompt: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JavascriptDialogClosed {
    pub result: bool,
    #[serde(default)]
    pub user_input: String,
}

/// Makes the page the one shown (and so the one that gets frames and input at once).
#[derive(Debug, Clone, Default, Serialize)]
pub struct BringToFront {}
