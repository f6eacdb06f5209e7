//! `Performance` domain: the page's run-time metrics, read by the probe for the CPU time
//! of the page's main thread.
//!
//! `getMetrics` is one of the few methods Chromium sends to the renderer on its IO thread
//! and runs at a V8 interrupt: a page whose script never returns still answers it, while
//! `Runtime.evaluate` waits behind that script. It answers only once `enable` was
//! answered (an empty list before), and `enable` itself needs a page that answers.

use serde::{Deserialize, Serialize};

use super::{Empty, command};

#[derive(Debug, Clone, Default, Serialize)]
pub struct Enable {}

#[derive(Debug, Clone, Default, Serialize)]
pub struct GetMetrics {}

#[derive(Debug, Clone, Deserialize)]
pub struct Metrics {
    #[serde(default)]
    pub metrics: Vec<Metric>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Metric {
    pub name: String,
    pub value: f64,
}

impl Metrics {
    /// The value of the metric `name`, if the page sent it.
    pub fn value(&self, name: &str) -> Option<f64> {
        self.metrics
            .iter()
            .find(|m| m.name == name)
            .map(|m| m.value)
    }
}

command! {
    Enable => "Performance.enable", Empty;
    GetMetrics => "Performance.getMetrics", Metrics;
}
