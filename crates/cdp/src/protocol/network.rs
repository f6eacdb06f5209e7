//! `Network` domain: only what load-state tracking needs.

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
    #[serde(default)]
    pub r#type: Option<String>,
    pub error_text: String,
    #[serde(default)]
    pub canceled: Option<bool>,
}

command! {
    Enable => "Network.enable", Empty;
}

event! {
    LoadingFailed => "Network.loadingFailed";
}
