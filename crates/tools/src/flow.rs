//! Flows (docs/faces.md#flows): what a task did, exported as a file a replay re-checks step by step,
//! without a model. A flow *is* a batch (docs/faces.md#batches): one file format ([`Flow`], published
//! as `flow.schema.json`), run by the same runner, whether it was exported or written by
//! hand.
//!
//! **Recording.** The engine keeps, beside its journal, the steps a flow would hold
//! (`Recorded::of`): every command that succeeded and changed something (a tool not
//! marked read-only), plus `wait`s. Other reads are left out (a tab list and
//! `scroll_next_screen` count as reads; checkpoints, which belong to their task, and
//! hand-offs, which a replay without a person cannot make, are left out too): a later step can depend on a read only through a
//! ref it returned, and each step carries the identity behind its ref itself
//! ([`Target`]); a `wait` is kept because the steps after it relied on the condition it
//! waited for. Failed and refused commands are left out.
//!
//! **Secrets.** Text typed into a secret field (a password, a card number, a one-time
//! code: the one definition, `cdp::is_secret_field`), and every text a command marked
//! `sensitive` carries beyond its action and locator (what it typed, chose, opened, ran),
//! is replaced when the step is recorded by a named variable (`{{password}}`, named after
//! the field), so the secret never reaches the log or the file; a sensitive command's
//! `expect` and `readback` are dropped, since they may spell the secret.
//!
//! **Postconditions.** A step's explicit `expect` stays in its params and is checked
//! again by its tool. What candor verified on the step's behalf — for a navigation, the
//! URL reached — is the step's own `expect`, checked by the engine after the tool ran
//! ([`crate::CallOptions::expect`]), with the same conditions and the same
//! `EXPECTATION_FAILED`.
//!
//! **Replay.** [`run_step`] calls the step's tool through the engine. A step with a
//! target is located by its identity ([`browser::Locator::Identity`]: the same identity,
//! else a unique same role and name in the same containers, never a position), its
//! recorded locator keys set aside. The first step that fails stops the run;
//! [`failure`] says which, with its code, what was expected and what was seen, and a
//! snapshot of the page.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::catalogue::{InFlow, tool};
use crate::engine::{CallOptions, Engine};
use crate::envelope::Envelope;
use crate::error::{Code, ToolError};

/// The most steps one flow (or batch) may have, and the most the engine records.
pub const MAX_STEPS: usize = 1000;

/// The published schema of a flow file (and of a batch), kept in the repository.
pub const SCHEMA_FILE: &str = "flow.schema.json";

/// A flow, or a batch: steps run in order on one task.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "candor flow (a batch of steps)")]
pub struct Flow {
    /// The schema this file follows (informative).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Where the flow was exported from (informative).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
    /// The variables the steps use as `{{name}}`; each must be given to run the flow.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub variables: BTreeMap<String, Variable>,
    /// The steps, in order (1 to 1000).
    pub steps: Vec<Step>,
    /// Go on after a step that failed (default: stop there).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub continue_on_error: bool,
}

/// The task a flow was exported from.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Origin {
    pub task: String,
    /// Milliseconds since the Unix epoch.
    pub exported_at: u64,
    /// Steps recorded before these that the log no longer held.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub steps_dropped: u64,
}

/// A variable of the flow.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Variable {
    /// A secret: the steps that use it run as sensitive (default true).
    #[serde(default = "yes")]
    pub sensitive: bool,
    /// What it stands for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// One step: a tool and its params, as a batch has it, and what a flow adds.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Step {
    /// The tool (navigate, act, wait, …).
    pub method: String,
    /// The tool's params.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub params: Value,
    /// The step's deadline in ms (default: the task's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_timeout_ms: Option<u64>,
    /// Journals and archives keep nothing of it but its method and outcome.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sensitive: bool,
    /// The element the step acted on; a replay finds it by this, not by its ref.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
    /// Conditions checked after the step, all required, as act's expect (for a
    /// navigation: the URL reached).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Map<String, Value>>,
    /// The URL the page had when the step ran (informative; shown when it fails).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// An element as the step's ref stood for it: role, name, containers, heading.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Target {
    /// The ref it had when recorded (informative: refs belong to their tab).
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub r#ref: Option<String>,
    pub role: String,
    pub name: String,
    /// Landmark and container ancestors, outermost first.
    #[serde(default)]
    pub containers: Vec<Container>,
    /// The heading it sits under.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub heading: String,
    /// Among equal elements (same containers, role and name), in document order.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub ordinal: u32,
}

/// A landmark or container around a target.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Container {
    pub role: String,
    /// Its name (or, unnamed, its text).
    pub name: String,
}

fn yes() -> bool {
    true
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

impl From<&browser::ElementIdentity> for Target {
    fn from(identity: &browser::ElementIdentity) -> Self {
        Target {
            r#ref: None,
            role: identity.role.clone(),
            name: identity.name.clone(),
            containers: identity
                .containers
                .iter()
                .map(|(role, name)| Container {
                    role: role.clone(),
                    name: name.clone(),
                })
                .collect(),
            heading: identity.heading.clone(),
            ordinal: identity.ordinal,
        }
    }
}

impl From<&Target> for browser::ElementIdentity {
    fn from(target: &Target) -> Self {
        browser::ElementIdentity {
            role: target.role.clone(),
            name: target.name.clone(),
            containers: target
                .containers
                .iter()
                .map(|c| (c.role.clone(), c.name.clone()))
                .collect(),
            heading: target.heading.clone(),
            ordinal: target.ordinal,
        }
    }
}

/// The JSON Schema of a flow file, as published in [`SCHEMA_FILE`].
pub fn schema() -> Value {
    let schema = schemars::schema_for!(Flow);
    serde_json::to_value(schema).unwrap_or(Value::Null)
}

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
            if crate::find(&step.method).is_none() {
                return Err(ToolError::invalid_params(format!(
                    "step {number}: there is no tool named {:?}",
                    step.method
                )));
            }
            if let Some(ms) = step.command_timeout_ms
                && !(1..=crate::MAX_COMMAND_TIMEOUT.as_millis() as u64).contains(&ms)
            {
                return Err(ToolError::invalid_params(format!(
                    "step {number}: commandTimeoutMs must be 1 to {}",
                    crate::MAX_COMMAND_TIMEOUT.as_millis()
                )));
            }
            if let Some(expect) = &step.expect {
                crate::catalogue::postcondition(&Value::Object(expect.clone()), true).map_err(
                    |e| ToolError {
                        message: format!("step {number}: {}", e.message),
                        ..e
                    },
                )?;
            }
        }
        Ok(())
    }

    /// The names of the variables the steps use (`{{name}}`), declared or not.
    pub fn used_variables(&self) -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        for step in &self.steps {
            collect_names(&step.params, &mut names);
            if let Some(expect) = &step.expect {
                for value in expect.values() {
                    collect_names(value, &mut names);
                }
            }
        }
        names
    }

    /// The flow with every `{{name}}` replaced by `vars[name]`. A variable used and not
    /// given, or given and not used, is refused (`INVALID_PARAMS`) before anything runs;
    /// a step using a sensitive variable (any undeclared one counts) runs as sensitive.
    pub fn bind(&self, vars: &BTreeMap<String, String>) -> Result<Flow, ToolError> {
        let used = self.used_variables();
        let missing: Vec<&String> = used.iter().filter(|n| !vars.contains_key(*n)).collect();
        if !missing.is_empty() {
            let flags: Vec<String> = missing.iter().map(|n| format!("--var {n}=…")).collect();
            return Err(ToolError::new(
                Code::InvalidParams,
                format!(
                    "the flow needs the variable(s) {}; nothing was run",
                    missing
                        .iter()
                        .map(|n| format!("{n:?}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                format!("give each one: {}", flags.join(" ")),
            )
            .with_data(json!({ "missingVariables": missing })));
        }
        if let Some(unused) = vars.keys().find(|n| !used.contains(*n)) {
            return Err(ToolError::invalid_params(format!(
                "the flow has no variable {unused:?} (it uses: {}); nothing was run",
                used.iter().cloned().collect::<Vec<_>>().join(", ")
            )));
        }
        let mut bound = self.clone();
        for step in &mut bound.steps {
            let mut names = BTreeSet::new();
            collect_names(&step.params, &mut names);
            if let Some(expect) = &step.expect {
                for value in expect.values() {
                    collect_names(value, &mut names);
                }
            }
            if names
                .iter()
                .any(|n| self.variables.get(n).is_none_or(|v| v.sensitive))
            {
                step.sensitive = true;
            }
            substitute(&mut step.params, vars);
            if let Some(expect) = &mut step.expect {
                for value in expect.values_mut() {
                    substitute(value, vars);
                }
            }
        }
        Ok(bound)
    }
}

/// The `{{name}}` variables in the strings of `value`.
fn collect_names(value: &Value, names: &mut BTreeSet<String>) {
    match value {
        Value::String(text) => names.extend(variables_in(text).map(str::to_string)),
        Value::Array(items) => items.iter().for_each(|v| collect_names(v, names)),
        Value::Object(map) => map.values().for_each(|v| collect_names(v, names)),
        _ => {}
    }
}

/// The variable names in `text`: `{{name}}`, a name being letters, digits and `_`.
fn variables_in(text: &str) -> impl Iterator<Item = &str> {
    text.split("{{").skip(1).filter_map(|rest| {
        let (name, _) = rest.split_once("}}")?;
        let valid = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        valid.then_some(name)
    })
}

fn substitute(value: &mut Value, vars: &BTreeMap<String, String>) {
    match value {
        Value::String(text) => {
            for (name, given) in vars {
                let mark = format!("{{{{{name}}}}}");
                if text.contains(&mark) {
                    *text = text.replace(&mark, given);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| substitute(v, vars)),
        Value::Object(map) => map.values_mut().for_each(|v| substitute(v, vars)),
        _ => {}
    }
}

/// A command as a flow keeps it, with the variables it introduced.
#[derive(Debug, Clone)]
pub(crate) struct Recorded {
    pub step: Step,
    pub variables: Vec<(String, Variable)>,
}

/// What `act` tells the engine about the element it acted on.
#[derive(Debug, Clone)]
pub(crate) struct Acted {
    pub target: Option<browser::ElementIdentity>,
    pub r#ref: Option<String>,
    /// The text went into a secret field (`cdp::is_secret_field`).
    pub secret: bool,
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

/// The params of a sensitive command kept as they are: what it does and where (its
/// locator, set aside at replay when it has a target). Every other text in them — what
/// it typed, chose, opened or ran — becomes a variable.
const KEPT_KEYS: &[&str] = &[
    "action",
    "tabId",
    "tabIds",
    "ref",
    "role",
    "name",
    "scope",
    "frame",
    "selector",
    "snapshotId",
];

/// The params a sensitive command may spell its secret in again: dropped.
const ECHO_KEYS: &[&str] = &["expect", "readback"];

impl Recorded {
    /// The step `method` with `params` makes in a flow, given its `envelope`; `None` for
    /// what a flow leaves out (failures, reads other than `wait`, a tab list).
    pub(crate) fn of(
        method: &str,
        params: &Value,
        envelope: &Envelope,
        acted: Option<&Acted>,
        sensitive: bool,
        url_before: Option<String>,
    ) -> Option<Recorded> {
        let in_flow = crate::find(method)?.policy.flow;
        let recorded = match in_flow {
            InFlow::Never => false,
            InFlow::Step | InFlow::Navigation => true,
            InFlow::StepUnless(read) => !read(params),
        };
        if !envelope.ok || !recorded {
            return None;
        }
        let mut params = params.clone();
        let mut variables = Vec::new();
        let field = acted
            .and_then(|a| a.target.as_ref())
            .map(|t| slug(&t.name))
            .filter(|s| !s.is_empty());
        if let Value::Object(map) = &mut params {
            if acted.is_some_and(|a| a.secret) {
                let name = field.clone().unwrap_or_else(|| "password".into());
                if map.get("text").is_some_and(Value::is_string) {
                    map.insert("text".into(), json!(format!("{{{{{name}}}}}")));
                }
                variables.push((name, secret_variable("typed into a secret field")));
            }
            if sensitive {
                let base = field.unwrap_or_else(|| "secret".into());
                for key in ECHO_KEYS {
                    map.remove(*key);
                }
                let keys: Vec<String> = map
                    .keys()
                    .filter(|k| !KEPT_KEYS.contains(&k.as_str()))
                    .cloned()
                    .collect();
                for key in keys {
                    let name = if key == "text" {
                        base.clone()
                    } else {
                        format!("{base}_{}", slug(&key))
                    };
                    let replaced = match map.get(&key) {
                        Some(Value::String(_)) => {
                            variables.push((name.clone(), secret_variable(SENSITIVE)));
                            json!(format!("{{{{{name}}}}}"))
                        }
                        // A list (option values, files): one variable per item.
                        Some(Value::Array(items)) => (1..=items.len())
                            .map(|i| {
                                let item = format!("{name}_{i}");
                                variables.push((item.clone(), secret_variable(SENSITIVE)));
                                json!(format!("{{{{{item}}}}}"))
                            })
                            .collect(),
                        _ => continue,
                    };
                    map.insert(key, replaced);
                }
            }
        }
        let target = acted.and_then(|a| {
            a.target.as_ref().map(|identity| Target {
                r#ref: a.r#ref.clone(),
                ..Target::from(identity)
            })
        });
        // A navigation verified: the URL it reached, unless the step's own expect
        // already names the URL.
        let names_url = params["expect"]
            .as_object()
            .is_some_and(|e| e.contains_key("url") || e.contains_key("urlMatches"));
        let navigated = matches!(in_flow, InFlow::Navigation) || envelope.events.navigated;
        let expect = match (&envelope.page, navigated && !names_url && !sensitive) {
            (Some(page), true) if page.url.starts_with("http") => {
                let mut expect = Map::new();
                expect.insert("url".into(), json!(page.url));
                Some(expect)
            }
            _ => None,
        };
        Some(Recorded {
            step: Step {
                method: method.to_string(),
                params,
                command_timeout_ms: None,
                sensitive,
                target,
                expect,
                url: if sensitive { None } else { url_before },
            },
            variables,
        })
    }
}

/// What a sensitive command's variable stands for.
const SENSITIVE: &str = "a value of a sensitive command";

fn secret_variable(what: &str) -> Variable {
    Variable {
        sensitive: true,
        description: Some(what.to_string()),
    }
}

/// A variable name from a field's name: lowercase letters and digits joined by `_`
/// (`Confirm password` → `confirm_password`).
fn slug(name: &str) -> String {
    let words: Vec<String> = name
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(4)
        .map(|w| {
            w.chars()
                .filter(char::is_ascii_alphanumeric)
                .collect::<String>()
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    let slug = words.join("_");
    if slug.starts_with(|c: char| c.is_ascii_digit()) {
        format!("v_{slug}")
    } else {
        slug
    }
}

/// The flow of `task` from its recorded steps.
pub(crate) fn export(task: &str, recorded: &[Recorded], dropped: u64, now_ms: u64) -> Flow {
    let mut variables = BTreeMap::new();
    for record in recorded {
        for (name, variable) in &record.variables {
            variables
                .entry(name.clone())
                .or_insert_with(|| variable.clone());
        }
    }
    Flow {
        schema: Some(SCHEMA_FILE.to_string()),
        origin: Some(Origin {
            task: task.to_string(),
            exported_at: now_ms,
            steps_dropped: dropped,
        }),
        variables,
        steps: recorded.iter().map(|r| r.step.clone()).collect(),
        continue_on_error: false,
    }
}

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

    #[test]
    fn variables_are_bound_and_a_missing_or_unknown_one_is_refused() {
        let parsed = flow(json!({
            "variables": { "password": { "sensitive": true }, "user": { "sensitive": false } },
            "steps": [
                { "method": "act", "params": { "action": "fill", "text": "{{user}}" } },
                { "method": "act", "params": { "action": "fill", "text": "x{{password}}y" } }
            ]
        }))
        .unwrap();
        assert_eq!(
            parsed.used_variables().into_iter().collect::<Vec<_>>(),
            ["password", "user"]
        );
        let only_user: BTreeMap<String, String> = [("user".to_string(), "ada".to_string())].into();
        let missing = parsed.bind(&only_user).unwrap_err();
        assert_eq!(missing.code, Code::InvalidParams);
        assert!(
            missing.message.contains("\"password\""),
            "{}",
            missing.message
        );
        let mut all = only_user.clone();
        all.insert("password".into(), "hunter2".into());
        let bound = parsed.bind(&all).unwrap();
        assert_eq!(bound.steps[0].params["text"], "ada");
        assert!(!bound.steps[0].sensitive);
        assert_eq!(bound.steps[1].params["text"], "xhunter2y");
        assert!(bound.steps[1].sensitive, "a secret's step runs sensitive");
        all.insert("pasword".into(), "typo".into());
        assert_eq!(parsed.bind(&all).unwrap_err().code, Code::InvalidParams);
    }

    /// `flow.schema.json` at the repository's root is the schema of [`Flow`];
    /// `CANDOR_WRITE_FLOW_SCHEMA=1` writes it again after the type changed.
    #[test]
    fn the_published_schema_file_is_the_flow_types_schema() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(SCHEMA_FILE);
        let mut want = serde_json::to_string_pretty(&schema()).unwrap();
        want.push('\n');
        if std::env::var_os("CANDOR_WRITE_FLOW_SCHEMA").is_some() {
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "{} is not the schema of Flow: run CANDOR_WRITE_FLOW_SCHEMA=1 cargo test -p tools --lib flow",
            path.display()
        );
        let validator = jsonschema::validator_for(&schema()).unwrap();
        assert!(validator.is_valid(&json!({ "steps": [{ "method": "navigate" }] })));
        assert!(!validator.is_valid(&json!({ "steps": [{ "method": "navigate", "x": 1 }] })));
    }

    #[test]
    fn slugs_name_variables_after_fields() {
        assert_eq!(slug("Password"), "password");
        assert_eq!(slug("Confirm password:"), "confirm_password");
        assert_eq!(slug("2FA code"), "v_2fa_code");
        assert_eq!(slug("…"), "");
    }
}
