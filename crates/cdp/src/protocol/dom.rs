//! `DOM` domain: the few node operations acting needs, all by backend node id.

use serde::{Deserialize, Serialize};

use super::{Empty, command};

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScrollIntoViewIfNeeded {
    pub backend_node_id: i64,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetContentQuads {
    pub backend_node_id: i64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Quads {
    /// Each quad is 8 numbers: four x, y corners, clockwise from top-left.
    pub quads: Vec<Vec<f64>>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribeNode {
    pub backend_node_id: i64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Described {
    pub node: DescribedNode,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribedNode {
    pub backend_node_id: i64,
    #[serde(default)]
    pub node_name: String,
    #[serde(default)]
    pub frame_id: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetFrameOwner {
    pub frame_id: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameOwner {
    pub backend_node_id: i64,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolveNode {
    pub backend_node_id: i64,
    /// The context (world) to make the node's object in; without it, the main world of
    /// the node's frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution_context_id: Option<i64>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Resolved {
    pub object: super::runtime::RemoteObject,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetBoxModel {
    pub backend_node_id: i64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct BoxModelReply {
    pub model: BoxModel,
}

/// Quads of 8 numbers (x, y of four corners) for each box.
#[derive(Debug, Clone, Deserialize)]
pub struct BoxModel {
    pub content: Vec<f64>,
    pub border: Vec<f64>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct GetDocument {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<i64>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Document {
    pub root: DocumentRoot,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentRoot {
    pub node_id: i64,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuerySelectorAll {
    pub node_id: i64,
    pub selector: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeIds {
    pub node_ids: Vec<i64>,
}

/// `DOM.describeNode` by the DOM agent's node id (rather than backend id).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribeNodeById {
    pub node_id: i64,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetNodeForLocation {
    pub x: i64,
    pub y: i64,
    #[serde(rename = "includeUserAgentShadowDOM")]
    pub include_user_agent_shadow_dom: bool,
    pub ignore_pointer_events_none: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeAtLocation {
    pub backend_node_id: i64,
    #[serde(default)]
    pub frame_id: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Focus {
    pub backend_node_id: i64,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetFileInputFiles {
    pub files: Vec<String>,
    pub backend_node_id: i64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Enable {}

command! {
    ScrollIntoViewIfNeeded => "DOM.scrollIntoViewIfNeeded", Empty;
    GetContentQuads => "DOM.getContentQuads", Quads;
    DescribeNode => "DOM.describeNode", Described;
    GetFrameOwner => "DOM.getFrameOwner", FrameOwner;
    ResolveNode => "DOM.resolveNode", Resolved;
    Enable => "DOM.enable", Empty;
    GetBoxModel => "DOM.getBoxModel", BoxModelReply;
    GetDocument => "DOM.getDocument", Document;
    QuerySelectorAll => "DOM.querySelectorAll", NodeIds;
    DescribeNodeById => "DOM.describeNode", Described;
    GetNodeForLocation => "DOM.getNodeForLocation", NodeAtLocation;
    Focus => "DOM.focus", Empty;
    SetFileInputFiles => "DOM.setFileInputFiles", Empty;

}
