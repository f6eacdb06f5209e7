//! The catalogue: one file per tool, each the same shape (params struct → handler →
//! output), registered in [`catalogue()`]. Adding a tool touches its file and one line.

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::ctx::Ctx;
use crate::defaults::CallDefaults;
use crate::error::ToolError;
pub(crate) use crate::policy::{Archived, InFlow, Noted, Policy, Problems};

mod act;
mod checkpoint;
mod condition;
mod diagnostics;
mod dialog;
mod eval;
mod expect;
mod find;
mod flow;
mod form_state;
mod handoff;
mod logs;
mod navigate;
mod pdf;
mod recall;
mod screenshot;
mod snapshot;
mod state;
mod tabs;
mod viewport;
mod wait;

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
type Handler = for<'a, 'b> fn(&'a mut Ctx<'b>, Value) -> BoxFuture<'a, Result<Value, ToolError>>;

/// A tool: name (`navigate`; MCP adds `browser_`), a short description, the JSON Schema
/// of its params, and its handler.
pub struct ToolDef {
    pub name: &'static str,
    pub description: &'static str,
    /// The JSON Schema of its params, its descriptions citing the built-in defaults
    /// (a running engine lists [`ToolDef::input_schema_for`] its own).
    pub input_schema: Value,
    /// The same, its descriptions citing defaults by configuration key
    /// (`{snapshotMaxTokens}`).
    schema_template: Value,
    /// The JSON Schema of the envelope this tool returns, `data` held to its output.
    pub output_schema: Value,
    /// How the tool stands to the world (MCP's tool annotations).
    pub annotations: Annotations,
    /// What the text form leaves out of a result's data ([`ToolSpec::brief`]).
    pub(crate) brief: fn(&mut Map<String, Value>),
    /// Whether the handler works on the task (and so waits for the running command).
    pub(crate) uses_task: bool,
    /// What the engine does about a tab that does not answer.
    pub page_guard: PageGuard,
    /// How the engine, records, flows, the archive and hand-offs treat it.
    pub policy: Policy,
    pub(crate) call: Handler,
}

impl std::fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolDef").field("name", &self.name).finish()
    }
}

/// What the engine does about a tab whose page does not answer (`browser::Tab::probe`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageGuard {
    /// The tool reads the page (or acts on it): the engine refuses a tab showing an error
    /// page (`PAGE_LOAD_FAILED`) before the handler runs, probes the tab first (refusing
    /// at once with `PAGE_UNRESPONSIVE` when it does not answer), and keeps probing it
    /// while the handler runs, so a page that hangs mid-command ends it at the probe point.
    Reads,
    /// Probed like `Reads`, but an error page is no reason to refuse (sizing the tab).
    Probe,
    /// The tool deals with an unresponsive tab itself (navigate recovers it, tabs lists
    /// and closes it).
    Own,
    /// Never probe: the tool works while the page is held (an open dialog), or never
    /// touches it (diagnostics).
    Off,
}

/// What a tool does to the world, as MCP's tool annotations say it. Every tool declares
/// its own (no default), so a new tool cannot be listed as harmless by omission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Annotations {
    /// A human-readable name.
    pub title: &'static str,
    /// Changes nothing: reads the page or the task.
    pub read_only: bool,
    /// May destroy state the agent or the person cannot get back (submitting, closing,
    /// running script). Meaningful only when not read-only.
    pub destructive: bool,
    /// Calling it again with the same arguments does nothing more.
    pub idempotent: bool,
    /// Reaches beyond candor: web pages.
    pub open_world: bool,
}

impl Annotations {
    /// A tool that only reads pages.
    pub(crate) const fn reads(title: &'static str) -> Annotations {
        Annotations {
            title,
            read_only: true,
            destructive: false,
            idempotent: true,
            open_world: true,
        }
    }
}

/// What each tool file implements.
pub(crate) trait ToolSpec {
    const NAME: &'static str;
    const DESCRIPTION: &'static str;
    const USES_TASK: bool = true;
    /// How the tool stands to the page; every tool says so (no default), so a new tool
    /// cannot skip the engine's page checks by forgetting them.
    const PAGE_GUARD: PageGuard;
    /// What the tool does to the world; every tool says so (no default).
    const ANNOTATIONS: Annotations;
    /// How everything around the tool treats it; every tool says so (no default).
    const POLICY: Policy;
    type Params: DeserializeOwned + JsonSchema + Send;
    type Output: Serialize + JsonSchema;
    /// Takes out of a result's data (its output as JSON, success or partial) what the
    /// text form need not say: what the agent sent or read already, and values that only
    /// say "as usual". `structuredContent` keeps everything; errors, warnings, counts of
    /// what was cut and news (a new ref, a value other than the one meant) stay.
    fn brief(_data: &mut Map<String, Value>) {}
    fn run<'a, 'b>(
        ctx: &'a mut Ctx<'b>,
        params: Self::Params,
    ) -> impl Future<Output = Result<Self::Output, ToolError>> + Send + 'a;
}

impl ToolDef {
    /// The JSON Schema of its params as an engine with `defaults` runs them: each default
    /// a description cites is the one configured.
    pub fn input_schema_for(&self, defaults: &CallDefaults) -> Value {
        let mut schema = self.schema_template.clone();
        fill_descriptions(&mut schema, defaults);
        schema
    }
}

/// Every `description` in `schema` with the defaults it cites filled in.
fn fill_descriptions(schema: &mut Value, defaults: &CallDefaults) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match value {
                    Value::String(text) if key == "description" => *text = defaults.fill(text),
                    _ => fill_descriptions(value, defaults),
                }
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| fill_descriptions(item, defaults)),
        _ => {}
    }
}

fn define<T: ToolSpec + 'static>() -> ToolDef {
    let schema_template = crate::schema::params_schema::<T::Params>();
    let mut input_schema = schema_template.clone();
    fill_descriptions(&mut input_schema, &CallDefaults::default());
    ToolDef {
        name: T::NAME,
        description: T::DESCRIPTION,
        input_schema,
        schema_template,
        output_schema: crate::schema::output_schema::<T::Output>(),
        annotations: T::ANNOTATIONS,
        brief: T::brief,
        uses_task: T::USES_TASK,
        page_guard: T::PAGE_GUARD,
        policy: T::POLICY,
        call: |ctx, params| Box::pin(invoke::<T>(ctx, params)),
    }
}

async fn invoke<T: ToolSpec>(ctx: &mut Ctx<'_>, params: Value) -> Result<Value, ToolError> {
    // An absent params object means "all defaults".
    let params = if params.is_null() {
        Value::Object(Default::default())
    } else {
        params
    };
    let params: T::Params = serde_json::from_value(params)
        .map_err(|e| ToolError::invalid_params(format!("{} params: {e}", T::NAME)))?;
    let output = T::run(ctx, params).await?;
    let (value, untrusted) = crate::untrusted::to_value_marked(&output).map_err(|e| {
        ToolError::invalid_params(format!("{} output cannot be encoded: {e}", T::NAME))
    })?;
    ctx.untrusted
        .extend(untrusted.into_iter().map(|p| format!("/data{p}")));
    Ok(value)
}

pub(crate) use expect::{Postcondition, verify};

/// The postcondition an `expect` object states (act's, or a flow step's), checked by
/// the one set of rules before anything runs.
pub(crate) fn postcondition(
    expect: &Value,
    eval_enabled: bool,
) -> Result<Postcondition, ToolError> {
    let parsed: expect::Expect = serde_json::from_value(expect.clone())
        .map_err(|e| ToolError::invalid_params(format!("expect: {e}")))?;
    parsed.check(eval_enabled)
}

/// A copy of a `method` command's params fit for a record: secret-looking fields
/// replaced, and the text its tool types into the page never kept (the params its policy
/// names `typed_params`; docs/security.md#redaction).
pub fn redact_command(method: &str, params: &Value) -> Value {
    let typed = find(method).map_or(&[][..], |tool| tool.policy.typed_params);
    crate::journal::redact_typed(params, typed)
}

/// Takes `keys` out of `data`, and each of `usual` while it holds that value.
pub(crate) fn omit(data: &mut Map<String, Value>, keys: &[&str], usual: &[(&str, Value)]) {
    data.retain(|key, value| {
        !keys.contains(&key.as_str()) && !usual.iter().any(|(k, v)| k == key && v == value)
    });
}

/// Registers the tools: the catalogue in the order faces list them, and each tool's type
/// public in [`tool`] with its name as an inherent constant (`tool::Navigate::NAME`), the
/// one way code outside a tool's own file names it.
macro_rules! register {
    ($($module:ident::$tool:ident),* $(,)?) => {
        /// Every tool's type, for its name: `tools::tool::Navigate::NAME`.
        pub mod tool {
            $(pub use super::$module::$tool;)*
        }

        $(impl $module::$tool {
            /// The tool's name (without any face's prefix).
            pub const NAME: &'static str = <Self as ToolSpec>::NAME;
        })*

        /// Every tool, in the order faces list them.
        pub fn catalogue() -> &'static [ToolDef] {
            static CATALOGUE: OnceLock<Vec<ToolDef>> = OnceLock::new();
            CATALOGUE.get_or_init(|| vec![$(define::<$module::$tool>()),*])
        }
    };
}

register! {
    navigate::Navigate,
    tabs::Tabs,
    snapshot::Snapshot,
    find::Find,
    act::Act,
    wait::Wait,
    screenshot::Screenshot,
    pdf::Pdf,
    viewport::Viewport,
    eval::Eval,
    form_state::FormState,
    logs::Logs,
    dialog::Dialog,
    diagnostics::Diagnostics,
    recall::Recall,
    checkpoint::Checkpoint,
    handoff::Handoff,
    flow::Flow,
    state::State,
}

/// Writes `bytes` as a new file of the task's folder (0600), named `{stem}-{time}.{ext}`;
/// its path. What a tool hands over as a file (a HAR, a PDF) lies there, and goes with
/// the task.
pub(crate) fn write_task_file(
    task: &browser::Task,
    stem: &str,
    ext: &str,
    bytes: &[u8],
) -> Result<std::path::PathBuf, crate::error::ToolError> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ");
    let path = task.download_folder().join(format!("{stem}-{stamp}.{ext}"));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
        .and_then(|mut file| file.write_all(bytes));
    match written {
        Ok(()) => Ok(path),
        Err(err) => Err(crate::error::ToolError::new(
            crate::error::Code::WriteFailed,
            format!("{} could not be written: {err}", path.display()),
            "check the task's folder has room, then call again",
        )),
    }
}

/// The tool named `name` (without any face's prefix).
pub fn find(name: &str) -> Option<&'static ToolDef> {
    catalogue().iter().find(|tool| tool.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Params a model calls right by name and type alone, so their schemas go without a
    /// description (each costs every turn): `tabId` means the same in every tool (the MCP
    /// instructions say its default once); the rest are said by their tool's description
    /// or their enum. Any other param is described.
    const SELF_EVIDENT: &[&str] = &[
        "tabId",
        "tabIds",
        "back",
        "forward",
        "reload",
        "ignoreCache",
        "newTab",
        "role",
        "limit",
        "selector",
        "ref",
        "url",
        "format",
        "quality",
        "promptText",
        "action",
        "method",
        "scale",
        "kind",
        "paper",
        "landscape",
        "background",
        "y",
        "name",
    ];

    #[test]
    fn every_tool_has_an_object_schema_with_described_properties() {
        for tool in catalogue() {
            let schema = &tool.input_schema;
            assert_eq!(schema["type"], "object", "{}", tool.name);
            assert!(schema.get("$schema").is_none(), "{}", tool.name);
            for (key, property) in schema["properties"].as_object().into_iter().flatten() {
                assert!(
                    SELF_EVIDENT.contains(&key.as_str()) || property.get("description").is_some(),
                    "{}.{key} has no description",
                    tool.name
                );
            }
            assert!(
                tool.description.len() <= 200,
                "{} description is long",
                tool.name
            );
        }
    }

    /// The declared output schema holds the data to its tool's shape on success, and
    /// leaves an error's data alone.
    #[test]
    fn output_schemas_hold_data_to_the_tool_output() {
        let navigate = find("navigate").expect("navigate");
        let schema = &navigate.output_schema;
        assert_eq!(schema["type"], "object");
        let required = schema["required"].as_array().expect("required");
        for key in ["ok", "status", "execution", "data", "events"] {
            assert!(required.contains(&Value::from(key)), "{key}: {schema}");
        }
        let valid = |envelope: &Value| {
            jsonschema::validator_for(schema)
                .expect("a schema")
                .is_valid(envelope)
        };
        let envelope = |status: &str, data: Value| {
            serde_json::json!({
                "ok": status == "success", "status": status, "code": null, "message": null,
                "hint": null, "execution": {}, "verification": {}, "task": "not_evaluated",
                "page": null, "data": data, "events": {}
            })
        };
        let good = serde_json::json!({
            "tabId": "tab0", "url": "http://a/", "title": "", "loaded": true,
            "sameDocument": false, "waitedMs": 3, "recovered": null, "reason": null
        });
        assert!(valid(&envelope("success", good.clone())));
        let mut bad = good;
        bad["tabId"] = Value::from(0);
        assert!(!valid(&envelope("success", bad.clone())));
        assert!(!valid(&envelope("partial", serde_json::json!({}))));
        assert!(valid(&envelope(
            "error",
            serde_json::json!({"anything": 1})
        )));
        assert!(!valid(&envelope("done", Value::Null)));
        for tool in catalogue() {
            assert!(
                jsonschema::validator_for(&tool.output_schema).is_ok(),
                "{}",
                tool.name
            );
        }
    }

    /// A typed param the policy names is one the tool takes, so a record cannot keep
    /// typed text under a name the policy misspells.
    #[test]
    fn typed_params_are_params_of_their_tool() {
        let mut typed = 0;
        for tool in catalogue() {
            for key in tool.policy.typed_params {
                assert!(
                    tool.input_schema["properties"].get(*key).is_some(),
                    "{}.{key} is no param",
                    tool.name
                );
                typed += 1;
            }
        }
        assert!(typed > 0);
    }

    /// A description cites only defaults the configuration has, and a configured one is
    /// what it reads.
    #[test]
    fn descriptions_cite_the_configured_defaults() {
        let configured = CallDefaults {
            snapshot_max_tokens: 8_000,
            read_max_chars: 50_001,
            screenshot_max_width: 801,
            settle: std::time::Duration::from_millis(2_502),
        };
        for tool in catalogue() {
            for schema in [&tool.input_schema, &tool.input_schema_for(&configured)] {
                let text = schema.to_string();
                assert!(!text.contains("(default {"), "{}: {text}", tool.name);
            }
        }
        let snapshot = find(tool::Snapshot::NAME).expect("snapshot");
        let described = |schema: &Value, key: &str| {
            schema["properties"][key]["description"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        let listed = snapshot.input_schema_for(&configured);
        assert!(described(&listed, "maxTokens").contains("(default 8000)"));
        assert!(described(&listed, "maxChars").contains("(default 50001)"));
        assert!(described(&listed, "settleMs").contains("(default 2502)"));
        assert!(described(&snapshot.input_schema, "maxTokens").contains("(default 4096)"));
        let screenshot = find(tool::Screenshot::NAME).expect("screenshot");
        let listed = screenshot.input_schema_for(&configured);
        assert!(described(&listed, "maxWidth").contains("(default 801)"));
    }

    #[test]
    fn names_are_unique_and_lowercase() {
        let mut names: Vec<_> = catalogue().iter().map(|t| t.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), catalogue().len());
        assert!(
            names
                .iter()
                .all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        );
    }
}
