//! `Storage` domain: a browser context's cookies, read and written whole (saved states).

use serde::{Deserialize, Serialize};

use super::{Empty, command};

/// The cookies of a browser context (the default one when absent).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetCookies {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Cookies {
    pub cookies: Vec<Cookie>,
}

/// A cookie as the browser reports it (the fields a saved state keeps).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cookie {
    pub name: String,
    pub value: String,
    pub domain: String,
    pub path: String,
    /// Seconds since the epoch; meaningless when `session`.
    #[serde(default)]
    pub expires: f64,
    #[serde(default)]
    pub http_only: bool,
    #[serde(default)]
    pub secure: bool,
    #[serde(default)]
    pub session: bool,
    /// `Strict`, `Lax` or `None`; absent when the cookie set none.
    #[serde(default)]
    pub same_site: Option<String>,
}

/// Sets cookies in a browser context (the default one when absent).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetCookies {
    pub cookies: Vec<CookieParam>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<String>,
}

/// A cookie to set (Network.CookieParam); without `expires`, a session cookie.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CookieParam {
    pub name: String,
    pub value: String,
    pub domain: String,
    pub path: String,
    pub secure: bool,
    pub http_only: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub same_site: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires: Option<f64>,
}

command! {
    GetCookies => "Storage.getCookies", Cookies;
    SetCookies => "Storage.setCookies", Empty;
}
