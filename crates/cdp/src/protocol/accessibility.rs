//! `Accessibility` domain: Chromium's own accessibility tree (roles and names as the
//! browser computes them).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::command;

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetFullAxTree {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AxTree {
    pub nodes: Vec<AxNode>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AxNode {
    pub node_id: String,
    #[serde(default)]
    pub ignored: bool,
    #[serde(default)]
    pub role: Option<AxValue>,
    #[serde(default)]
    pub name: Option<AxValue>,
    #[serde(default)]
    pub description: Option<AxValue>,
    #[serde(default)]
    pub value: Option<AxValue>,
    #[serde(default)]
    pub properties: Vec<AxProperty>,
    #[serde(default)]
    pub parent_id: Option<String>,
    #[serde(default)]
    pub child_ids: Vec<String>,
    #[serde(default, rename = "backendDOMNodeId")]
    pub backend_dom_node_id: Option<i64>,
    #[serde(default)]
    pub frame_id: Option<String>,
}

/// A typed value; only `value` is read, whatever its type.
#[derive(Debug, Clone, Deserialize)]
pub struct AxValue {
    #[serde(default)]
    pub value: Option<Value>,
}

impl AxValue {
    /// The value as text (strings as is, numbers and booleans printed).
    pub fn text(&self) -> Option<String> {
        match self.value.as_ref()? {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct AxProperty {
    pub name: String,
    pub value: AxValue,
}

/// One element's node (with `fetch_relatives: false`, only that node).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPartialAxTree {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fetch_relatives: Option<bool>,
}

command! {
    GetFullAxTree => "Accessibility.getFullAXTree", AxTree;
    GetPartialAxTree => "Accessibility.getPartialAXTree", AxTree;
}
