//! `DOMSnapshot` domain: the whole DOM of every same-process document in one call, with
//! layout boxes, chosen computed styles, live form values and click listeners.

use serde::{Deserialize, Serialize};

use super::command;

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureSnapshot {
    pub computed_styles: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "includeDOMRects")]
    pub include_dom_rects: Option<bool>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Snapshot {
    pub documents: Vec<DocumentSnapshot>,
    pub strings: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentSnapshot {
    #[serde(rename = "documentURL")]
    pub document_url: i64,
    pub frame_id: i64,
    pub nodes: NodeTreeSnapshot,
    pub layout: LayoutTreeSnapshot,
    #[serde(default)]
    pub scroll_offset_x: f64,
    #[serde(default)]
    pub scroll_offset_y: f64,
    #[serde(default)]
    pub content_width: f64,
    #[serde(default)]
    pub content_height: f64,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeTreeSnapshot {
    #[serde(default)]
    pub parent_index: Vec<i64>,
    #[serde(default)]
    pub node_type: Vec<i64>,
    #[serde(default)]
    pub node_name: Vec<i64>,
    #[serde(default)]
    pub node_value: Vec<i64>,
    #[serde(default)]
    pub backend_node_id: Vec<i64>,
    /// Per node: alternating name and value string indexes.
    #[serde(default)]
    pub attributes: Vec<Vec<i64>>,
    #[serde(default)]
    pub input_value: Option<RareStringData>,
    #[serde(default)]
    pub input_checked: Option<RareBooleanData>,
    #[serde(default)]
    pub option_selected: Option<RareBooleanData>,
    #[serde(default)]
    pub content_document_index: Option<RareIntegerData>,
    #[serde(default)]
    pub pseudo_type: Option<RareStringData>,
    #[serde(default)]
    pub is_clickable: Option<RareBooleanData>,
    #[serde(default)]
    pub shadow_root_type: Option<RareStringData>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutTreeSnapshot {
    #[serde(default)]
    pub node_index: Vec<i64>,
    /// Per layout node: the requested computed styles, as string indexes.
    #[serde(default)]
    pub styles: Vec<Vec<i64>>,
    /// Per layout node: x, y, width, height in the document's coordinates.
    #[serde(default)]
    pub bounds: Vec<Vec<f64>>,
    #[serde(default)]
    pub text: Vec<i64>,
    #[serde(default)]
    pub client_rects: Vec<Vec<f64>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct RareStringData {
    pub index: Vec<i64>,
    pub value: Vec<i64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct RareBooleanData {
    pub index: Vec<i64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct RareIntegerData {
    pub index: Vec<i64>,
    pub value: Vec<i64>,
}

command! {
    CaptureSnapshot => "DOMSnapshot.captureSnapshot", Snapshot;
}
