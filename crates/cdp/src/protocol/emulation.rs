//! `Emulation` domain: the device metrics and touch support a viewport preset sets.

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

command! {
    SetDeviceMetricsOverride => "Emulation.setDeviceMetricsOverride", Empty;
    ClearDeviceMetricsOverride => "Emulation.clearDeviceMetricsOverride", Empty;
    SetTouchEmulationEnabled => "Emulation.setTouchEmulationEnabled", Empty;
}
