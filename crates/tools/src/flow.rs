//! Flows (docs/faces.md#flows): what a task did, exported as a file a replay re-checks step by step,
//! without a model. A flow *is* a batch (docs/faces.md#batches): one file format, run by
//! the same runner, whether it was exported or written by hand. The file and its
//! recording are `flow_file.rs` (re-exported here); this is what needs the catalogue and
//! the engine: [`Flow::parse`] checks a file's tools and postconditions before anything
//! runs, and the runner replays it.
//!
//! **Replay.** [`run_step`] calls the step's tool through the engine. A step with a
//! target is located by its identity ([`browser::Locator::Identity`]: the same identity,
//! else a unique same role and name in the same containers, never a position), its
//! recorded locator keys set aside. The first step that fails stops the run;
//! [`failure`] says which, with its code, what was expected and what was seen, and a
//! snapshot of the page.

use serde_json::{Value, json};

use crate::catalogue::{self, tool};
use crate::engine::Engine;
use crate::envelope::Envelope;
use crate::error::{Code, ToolError};
pub use crate::flow_file::{
    Container, Flow, MAX_STEPS, Origin, SCHEMA_FILE, Step, Target, Variable, schema,
};
use crate::options::{CallOptions, MAX_COMMAND_TIMEOUT};

impl Flow {
    /// A flow from JSON: unknown fields, an unknown tool, a bad deadline or a bad
    /// `expect` are refused (`INVALID_PARAMS`) before anything runs.
    pub fn parse(json: &Value) -> Result<Flow, ToolError> {
        // A bare list of steps is a batch too.
        let json = match json {
            Value::Array(_) => json!({ "steps": json }),
            other => other.clone(),
        };
        let flow: Flow = serde_json::from_value(json)
            .map_err(|e| ToolError::invalid_params(format!("the flow is not valid: {e}")))?;
        flow.check()?;
        Ok(flow)
    }

    fn check(&self) -> Result<(), ToolError> {
        if self.steps.is_empty() || self.steps.len() > MAX_STEPS {
            return Err(ToolError::invalid_params(format!(
                "a flow has 1 to {MAX_STEPS} steps, not {}",
                self.steps.len()
            )));
        }
        for (index, step) in self.steps.iter().enumerate() {
            let number = index + 1;
            if catalogue::find(&step.method).is_none() {
                return Err(ToolError::invalid_params(format!(
                    "step {number}: there is no tool named {:?}",
                    step.method
                )));
            }
            if let Some(ms) = step.command_timeout_ms
                && !(1..=MAX_COMMAND_TIMEOUT.as_millis() as u64).contains(&ms)
            {
                return Err(ToolError::invalid_params(format!(
                    "step {number}: commandTimeoutMs must be 1 to {}",
                    MAX_COMMAND_TIMEOUT.as_millis()
                )));
            }
            if let Some(expect) = &step.expect {
                catalogue::postcondition(&Value::Object(expect.clone()), true).map_err(|e| {
                    ToolError {
                        message: format!("step {number}: {}", e.message),
                        ..e
                    }
                })?;
            }
        }
        Ok(())
    }
}

/// The params of a command that name its element; a replay with a target sets them
/// aside (a ref belongs to the tab that issued it, an `nth` is a position).
const LOCATOR_KEYS: &[&str] = &[
    "ref",
    "role",
    "name",
    "scope",
    "frame",
    "exact",
    "nth",
    "selector",
    "snapshotId",
];

/// Runs one step through `engine`: its tool with its params, its target located by
/// identity (the recorded locator keys set aside), its `expect` checked after.
pub async fn run_step(engine: &Engine, step: &Step) -> Envelope {
    let mut params = step.params.clone();
    if step.target.is_some()
        && let Value::Object(map) = &mut params
    {
        for key in LOCATOR_KEYS {
            map.remove(*key);
        }
    }
    let options = CallOptions {
        timeout: step
            .command_timeout_ms
            .map(std::time::Duration::from_millis),
        sensitive: step.sensitive,
        target: step.target.as_ref().map(browser::ElementIdentity::from),
        expect: step.expect.clone().map(Value::Object),
        person: false,
        cancel: None,
    };
    engine.call_with(&step.method, params, options).await
}

/// The token budget of the snapshot a failure report carries.
const FAILURE_SNAPSHOT_TOKENS: usize = 1500;

/// Why the run stopped at step `index` (0-based): the step number, the code and
/// message, what was expected and what was seen, and a snapshot of the page now. The
/// page's words (what was seen, the snapshot) are listed in the second value, as JSON
/// pointers into the report, for the renderer to fence.
pub async fn failure(
    engine: &Engine,
    index: usize,
    step: &Step,
    envelope: &Envelope,
) -> (Value, Vec<String>) {
    let code = envelope.code.map(Code::as_str);
    let expect = envelope.verification.expect.clone();
    let (expected, seen) = match (envelope.code, &expect) {
        (Some(Code::ExpectationFailed), Some(expect)) => {
            let mut wanted = expect.clone();
            let seen = match &mut wanted {
                Value::Object(map) => {
                    map.remove("waitedMs");
                    match map.remove("actual") {
                        Some(actual) => actual,
                        None => map
                            .remove("conditions")
                            .map(|c| {
                                Value::Array(
                                    c.as_array()
                                        .into_iter()
                                        .flatten()
                                        .map(|c| json!({ "condition": c["condition"], "met": c["met"], "actual": c["actual"] }))
                                        .collect(),
                                )
                            })
                            .unwrap_or(Value::Null),
                    }
                }
                _ => Value::Null,
            };
            (wanted, seen)
        }
        _ => {
            let expected = match &step.target {
                Some(target) => json!(browser::ElementIdentity::from(target).to_string()),
                None => json!("success"),
            };
            let mut seen = json!({ "code": code, "message": envelope.message });
            if let Some(candidates) = envelope.data.get("candidates") {
                seen["candidates"] = candidates.clone();
            }
            (expected, seen)
        }
    };
    let snapshot = engine
        .call(
            tool::Snapshot::NAME,
            json!({ "maxTokens": FAILURE_SNAPSHOT_TOKENS }),
            None,
        )
        .await;
    let report = json!({
        "step": index + 1,
        "method": step.method,
        "code": code,
        "message": envelope.message,
        "hint": envelope.hint,
        "expected": expected,
        "seen": seen,
        "recordedUrl": step.url,
        "pageUrl": envelope.page.as_ref().map(|p| p.url.clone()),
        "snapshot": snapshot.data.get("text").cloned().unwrap_or(Value::Null),
    });
    let untrusted = vec!["/seen".to_string(), "/snapshot".to_string()];
    (report, untrusted)
}

/// What [`run`] did: each step's envelope as JSON, and the failure that stopped it.
#[derive(Debug, Clone)]
pub struct Report {
    pub steps: Vec<Value>,
    pub failure: Option<Value>,
}

impl Report {
    pub fn ok(&self) -> bool {
        self.failure.is_none()
    }
}

/// Runs a bound flow on `engine` until a step fails (or to the end with
/// `continueOnError`).
pub async fn run(engine: &Engine, flow: &Flow) -> Report {
    let mut report = Report {
        steps: Vec::new(),
        failure: None,
    };
    for (index, step) in flow.steps.iter().enumerate() {
        let envelope = run_step(engine, step).await;
        report.steps.push(envelope.to_json());
        if !envelope.ok && report.failure.is_none() {
            report.failure = Some(failure(engine, index, step, &envelope).await.0);
            if !flow.continue_on_error {
                break;
            }
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(json: Value) -> Result<Flow, ToolError> {
        Flow::parse(&json)
    }

    #[test]
    fn unknown_fields_and_tools_are_refused_before_anything_runs() {
        for bad in [
            json!({ "steps": [{ "method": "navigate", "params": {}, "color": 1 }] }),
            json!({ "steps": [{ "method": "teleport" }] }),
            json!({ "steps": [], "extra": true }),
            json!({ "steps": [] }),
            json!({ "steps": [{ "method": "act", "expect": {} }] }),
            json!({ "steps": [{ "method": "act", "commandTimeoutMs": 0 }] }),
        ] {
            let refused = flow(bad.clone()).expect_err(&bad.to_string());
            assert!(
                matches!(refused.code, Code::InvalidParams | Code::EmptyCondition),
                "{bad}: {refused:?}"
            );
        }
        assert!(
            flow(json!([{ "method": "navigate", "params": { "url": "about:blank" } }])).is_ok()
        );
    }
}
