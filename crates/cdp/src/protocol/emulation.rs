//! `Emulation` domain: the device metrics, touch support and user agent a viewport preset
//! sets.

use serde::Serialize;

use super::{Empty, command};

/// Lays the page out at `width`×`height` CSS pixels with `device_scale_factor` device
/// pixels each; `mobile` turns on the mobile viewport (meta viewport, overlay scrollbars).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetDeviceMetricsOverride {
    pub width: u32,
    pub height: u32,
    pub device_scale_factor: f64,
    pub mobile: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screen_width: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screen_height: Option<u32>,
}

/// Back to the browser's own window size and scale.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ClearDeviceMetricsOverride {}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetTouchEmulationEnabled {
    pub enabled: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_touch_points: Option<u32>,
}

/// The user agent string, and the client hints, the tab sends and its pages read.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetUserAgentOverride {
    pub user_agent: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_agent_metadata: Option<UserAgentMetadata>,
}

/// What `Sec-CH-UA-*` and `navigator.userAgentData` say.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UserAgentMetadata {
    pub brands: Vec<UserAgentBrand>,
    pub full_version_list: Vec<UserAgentBrand>,
    pub platform: String,
    pub platform_version: String,
    pub architecture: String,
    pub model: String,
    pub mobile: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct UserAgentBrand {
    pub brand: String,
    pub version: String,
}

command! {
    SetUserAgentOverride => "Emulation.setUserAgentOverride", Empty;
    SetDeviceMetricsOverride => "Emulation.setDeviceMetricsOverride", Empty;
    ClearDeviceMetricsOverride => "Emulation.clearDeviceMetricsOverride", Empty;
    SetTouchEmulationEnabled => "Emulation.setTouchEmulationEnabled", Empty;
}
