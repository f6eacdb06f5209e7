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

command! {
    DispatchMouseEvent => "Input.dispatchMouseEvent", Empty;
}
