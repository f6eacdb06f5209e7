//! `Fetch` domain: holding a tab's document requests to the origin lists, and answering a
//! proxy's challenge with the task's credentials.

use serde::{Deserialize, Serialize};

use super::network::Request;
use super::{Empty, command, event};

/// Pauses the requests `patterns` match until each is continued or failed.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Enable {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub patterns: Vec<RequestPattern>,
    /// Challenges come as `Fetch.authRequired` (they need a pattern: Chromium refuses an
    /// empty list with this).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handle_auth_requests: Option<bool>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestPattern {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url_pattern: Option<String>,
    /// `Document`, `Script`, … (Network.ResourceType).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_type: Option<String>,
}

/// Lets a paused request go on as it was.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContinueRequest {
    pub request_id: String,
}

/// Fails a paused request; the page sees a network error.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FailRequest {
    pub request_id: String,
    /// Network.ErrorReason, e.g. `BlockedByClient`.
    pub error_reason: String,
}

/// Answers a paused request without the network: the browser takes this as the
/// server's response (a saved state's blank page of an origin).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FulfillRequest {
    pub request_id: String,
    pub response_code: u16,
    pub response_headers: Vec<HeaderEntry>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct HeaderEntry {
    pub name: String,
    pub value: String,
}

/// A request `Enable`'s patterns matched is held.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestPaused {
    pub request_id: String,
    pub request: Request,
    pub resource_type: String,
    pub frame_id: String,
}

/// A server or proxy asked for credentials.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthRequired {
    pub request_id: String,
    pub request: Request,
    pub auth_challenge: AuthChallenge,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthChallenge {
    /// `Server` or `Proxy`.
    #[serde(default)]
    pub source: Option<String>,
    pub origin: String,
    pub scheme: String,
    pub realm: String,
}

/// Answers an `AuthRequired`.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContinueWithAuth {
    pub request_id: String,
    pub auth_challenge_response: AuthChallengeResponse,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthChallengeResponse {
    /// `Default`, `CancelAuth` or `ProvideCredentials`.
    pub response: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
}

command! {
    Enable => "Fetch.enable", Empty;
    ContinueWithAuth => "Fetch.continueWithAuth", Empty;
    ContinueRequest => "Fetch.continueRequest", Empty;
    FailRequest => "Fetch.failRequest", Empty;
    FulfillRequest => "Fetch.fulfillRequest", Empty;
}

event! {
    RequestPaused => "Fetch.requestPaused";
    AuthRequired => "Fetch.authRequired";
}
