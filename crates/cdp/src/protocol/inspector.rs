//! `Inspector` domain: what the browser tells a session about its target's health.

use serde::Deserialize;

use super::event;

/// The renderer of this session's target crashed.
#[derive(Debug, Clone, Deserialize)]
pub struct TargetCrashed {}

/// The session was detached (target closed, or replaced).
#[derive(Debug, Clone, Deserialize)]
pub struct Detached {
    #[serde(default)]
    pub reason: String,
}

event! {
    TargetCrashed => "Inspector.targetCrashed";
    Detached => "Inspector.detached";
}
