//! The flow file (docs/faces.md#flows) and how a task's commands are recorded into one. A
//! flow *is* a batch (docs/faces.md#batches): one file format ([`Flow`], published as
//! `flow.schema.json`), whether it was exported or written by hand. Running one is
//! `flow.rs`'s, which also checks a file against the catalogue ([`Flow::parse`]).
//!
//! **Recording.** The engine keeps, beside its journal, the steps a flow would hold
//! ([`Log`], each step made by `Recorded::of` from the command's tool policy): every
//! command that succeeded and changed something (a tool not marked read-only), plus
//! `wait`s. Other reads are left out (a tab list and `scroll_next_screen` count as reads;
//! checkpoints, which belong to their task, and hand-offs, which a replay without a person
//! cannot make, are left out too): a later step can depend on a read only through a ref it
//! returned, and each step carries the identity behind its ref itself ([`Target`]); a
//! `wait` is kept because the steps after it relied on the condition it waited for.
//! Failed and refused commands are left out.
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

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::envelope::Envelope;
use crate::error::{Code, ToolError};
use crate::policy::InFlow;

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
    #[serde(default, skip_serializing_if = "crate::schema::is_zero")]
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
    #[serde(default, skip_serializing_if = "crate::schema::is_zero")]
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
    /// The step `method` with `params` makes in a flow, given its `envelope` and what its
    /// tool's policy makes of it (`in_flow`); `None` for what a flow leaves out (failures,
    /// reads other than `wait`, a tab list).
    pub(crate) fn of(
        method: &str,
        in_flow: InFlow,
        params: &Value,
        envelope: &Envelope,
        acted: Option<&Acted>,
        sensitive: bool,
        url_before: Option<String>,
    ) -> Option<Recorded> {
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

browser::footprint!(Recorded { step, variables });
browser::footprint!(Variable {
    sensitive,
    description,
});
browser::footprint!(Step {
    method,
    params,
    command_timeout_ms,
    sensitive,
    target,
    expect,
    url,
});
browser::footprint!(Target {
    r#ref,
    role,
    name,
    containers,
    heading,
    ordinal,
});
browser::footprint!(Container { role, name });

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

/// What the engine keeps for `flow export`: the recorded steps (the last
/// [`MAX_STEPS`]), how many fell out, and the page's URL after the last command.
#[derive(Debug, Default)]
pub(crate) struct Log {
    steps: VecDeque<Recorded>,
    dropped: u64,
    url: Option<String>,
}

impl Log {
    /// The page's URL after the last command: the URL the next one runs on.
    pub fn url(&self) -> Option<String> {
        self.url.clone()
    }

    /// Keeps a command's step, if it made one (the oldest falls out past
    /// [`MAX_STEPS`]), and the page's URL after it, if it reported one.
    pub fn push(&mut self, recorded: Option<Recorded>, url: Option<String>) {
        if url.is_some() {
            self.url = url;
        }
        if let Some(recorded) = recorded {
            if self.steps.len() == MAX_STEPS {
                self.steps.pop_front();
                self.dropped += 1;
            }
            self.steps.push_back(recorded);
        }
    }

    /// What the log holds (`browser::Footprint`): its steps, the URL aside.
    pub fn footprint(&self) -> browser::Held {
        browser::Held::ring(&self.steps)
    }

    /// The flow of `task` from the steps recorded so far.
    pub fn export(&self, task: &str, now_ms: u64) -> Flow {
        let mut variables = BTreeMap::new();
        for record in &self.steps {
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
                steps_dropped: self.dropped,
            }),
            variables,
            steps: self.steps.iter().map(|r| r.step.clone()).collect(),
            continue_on_error: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_are_bound_and_a_missing_or_unknown_one_is_refused() {
        let parsed = Flow::parse(&json!({
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
