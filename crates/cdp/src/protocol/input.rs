//! `Input` domain: trusted input events.

use serde::Serialize;

use super::{Empty, command};

/// `type` is mousePressed, mouseReleased, mouseMoved or mouseWheel.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DispatchMouseEvent {
    pub r#type: String,
    pub x: f64,
    pub y: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub button: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buttons: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub click_count: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modifiers: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_x: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_y: Option<f64>,
}

/// `type` is keyDown, keyUp, rawKeyDown or char.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DispatchKeyEvent {
    pub r#type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modifiers: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unmodified_text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub windows_virtual_key_code: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub native_virtual_key_code: Option<i64>,
    /// The key is held down and this is its repeat.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_repeat: Option<bool>,
}

/// Text inserted as an input method would: one `beforeinput`/`input` pair.
#[derive(Debug, Clone, Default, Serialize)]
pub struct InsertText {
    pub text: String,
}

/// An input method's composition in progress: `text` shown underlined, not yet
/// committed (`InsertText` commits).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImeSetComposition {
    pub text: String,
    pub selection_start: i64,
    pub selection_end: i64,
}

/// `type` is touchStart, touchMove, touchEnd or touchCancel.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DispatchTouchEvent {
    pub r#type: String,
    pub touch_points: Vec<TouchPoint>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct TouchPoint {
    pub x: f64,
    pub y: f64,
}

command! {
    DispatchMouseEvent => "Input.dispatchMouseEvent", Empty;
    DispatchTouchEvent => "Input.dispatchTouchEvent", Empty;
    DispatchKeyEvent => "Input.dispatchKeyEvent", Empty;
    InsertText => "Input.insertText", Empty;
    ImeSetComposition => "Input.imeSetComposition", Empty;
}
