//! `Network` domain: only what load-state tracking and an upload's response need.

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

/// A request is about to be sent (again, after a redirect, with the same id).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestWillBeSent {
    pub request_id: String,
    pub request: Request,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    pub url: String,
    pub method: String,
}

/// A response's headers arrived.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseReceived {
    pub request_id: String,
    pub response: Response,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Response {
    pub url: String,
    pub status: i64,
}

command! {
    Enable => "Network.enable", Empty;
}

event! {
    LoadingFailed => "Network.loadingFailed";
    RequestWillBeSent => "Network.requestWillBeSent";
    ResponseReceived => "Network.responseReceived";
}
