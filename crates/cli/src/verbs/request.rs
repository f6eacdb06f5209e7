//! What a parsed verb asks of the daemon: a catalogue tool with its params spelled as the
//! catalogue spells them (absent arguments left out), a daemon-level request, or a flow
//! bound before anything is sent. Nothing here talks to the daemon.

use std::io::Read;
use std::path::PathBuf;

use serde_json::{Map, Value, json};
use tools::tool;

use super::args::{ActArgs, TabArg, TabsAction, Verb};
use crate::flows::{self, FlowVerb, NotSent};

/// What a verb asks of the daemon.
pub(super) enum Request {
    /// A catalogue tool on the task.
    Tool {
        method: String,
        params: Value,
    },
    /// Start the task (`keepArchive` if its flag was given), from a saved state if named.
    Start(Option<String>),
    Tasks,
    Stop(String),
    Cancel(String),
    Diagnose(Option<usize>),
    /// A bound flow run as a job, and what the record keeps of it.
    Batch {
        body: Value,
        record: Value,
        wait: bool,
    },
    /// `flow export`: the task's flow (the task is not started for it).
    FlowExport,
    /// A flow refused before anything was sent.
    Refused(tools::ToolError),
    Job(String),
    Jobs,
    CancelJob(String),
}

impl Request {
    pub(super) fn method(&self) -> &str {
        match self {
            Request::Tool { method, .. } => method,
            Request::Start(_) => "start",
            Request::Tasks => "tasks",
            Request::Stop(_) => "stop",
            Request::Cancel(_) => "cancel",
            Request::Diagnose(_) => tool::Diagnostics::NAME,
            Request::Batch { wait: false, .. } => "batch",
            Request::Batch { wait: true, .. } => "flow run",
            Request::FlowExport => tool::Flow::NAME,
            Request::Refused(_) => tool::Flow::NAME,
            Request::Job(_) => "job",
            Request::Jobs => "jobs",
            Request::CancelJob(_) => "cancel-job",
        }
    }

    /// What the record keeps of the request (redacted later).
    pub(super) fn params(&self) -> Value {
        match self {
            Request::Tool { params, .. } => params.clone(),
            Request::Stop(id) => json!({ "task": id }),
            Request::Cancel(id) => json!({ "commandId": id }),
            Request::Diagnose(limit) => json!({ "limit": limit }),
            Request::Batch { record, .. } => record.clone(),
            Request::FlowExport | Request::Refused(_) => json!({}),
            Request::Job(id) | Request::CancelJob(id) => json!({ "jobId": id }),
            Request::Start(Some(state)) => json!({ "state": state }),
            Request::Start(None) => json!({}),
            Request::Tasks | Request::Jobs => json!({}),
        }
    }
}

/// The request a verb makes, and the file its answer's output goes to (a screenshot's
/// image, a HAR).
pub(super) fn request(verb: Verb, task: &str) -> Result<(Request, Option<PathBuf>), String> {
    let call = |method: &str, params: Value| Request::Tool {
        method: method.into(),
        params: strip_nulls(params),
    };
    let request = match verb {
        Verb::Open { url, new_tab, tab } => call(
            tool::Navigate::NAME,
            tab.on(json!({ "url": url, "newTab": new_tab.then_some(true) })),
        ),
        Verb::Back { tab } => call(tool::Navigate::NAME, tab.on(json!({ "back": true }))),
        Verb::Forward { tab } => call(tool::Navigate::NAME, tab.on(json!({ "forward": true }))),
        Verb::Reload { ignore_cache, tab } => call(
            tool::Navigate::NAME,
            tab.on(json!({ "reload": true, "ignoreCache": ignore_cache.then_some(true) })),
        ),
        Verb::Tabs { action } => call(
            tool::Tabs::NAME,
            match action.unwrap_or(TabsAction::List) {
                TabsAction::List => json!({ "action": "list" }),
                TabsAction::New { url } => json!({ "action": "new", "url": url }),
                TabsAction::Select { tab } => TabArg::of(tab).on(json!({ "action": "select" })),
                TabsAction::Close { mut tabs } => match tabs.len() {
                    0 => json!({ "action": "close" }),
                    1 => TabArg::of(tabs.remove(0)).on(json!({ "action": "close" })),
                    _ => json!({ "action": "close", "tabIds": tabs }),
                },
            },
        ),
        Verb::Snapshot {
            mode,
            max_tokens,
            max_chars,
            diff,
            tab,
        } => call(
            tool::Snapshot::NAME,
            tab.on(json!({
                "mode": mode,
                "maxTokens": max_tokens,
                "maxChars": max_chars,
                "diff": diff.then_some(true),
            })),
        ),
        Verb::Find {
            text,
            role,
            name,
            limit,
            tab,
        } => call(
            tool::Find::NAME,
            tab.on(json!({ "text": text, "role": role, "name": name, "limit": limit })),
        ),
        Verb::Click { target, act } => call(
            tool::Act::NAME,
            act.params("click", Some(target), json!({}))?,
        ),
        Verb::Fill {
            target,
            text,
            submit,
            act,
        } => call(
            tool::Act::NAME,
            act.params(
                "fill",
                Some(target),
                json!({ "text": text, "submit": submit.then_some(true) }),
            )?,
        ),
        Verb::Type {
            target,
            text,
            submit,
            act,
        } => call(
            tool::Act::NAME,
            act.params(
                "type",
                Some(target),
                json!({ "text": text, "submit": submit.then_some(true) }),
            )?,
        ),
        Verb::Press { keys, target, act } => call(
            tool::Act::NAME,
            act.params("press", target, json!({ "keys": keys }))?,
        ),
        Verb::Select {
            target,
            values,
            act,
        } => call(
            tool::Act::NAME,
            act.params("select", Some(target), json!({ "values": values }))?,
        ),
        Verb::Check { target, act } => call(
            tool::Act::NAME,
            act.params("check", Some(target), json!({}))?,
        ),
        Verb::Uncheck { target, act } => call(
            tool::Act::NAME,
            act.params("uncheck", Some(target), json!({}))?,
        ),
        Verb::Hover { target, act } => call(
            tool::Act::NAME,
            act.params("hover", Some(target), json!({}))?,
        ),
        Verb::Next { target, tab } => call(
            tool::Act::NAME,
            tab.on(json!({ "action": "scroll_next_screen", "ref": target })),
        ),
        Verb::Scroll {
            target,
            dx,
            dy,
            act,
        } => call(
            tool::Act::NAME,
            act.params("scroll", target, json!({ "dx": dx, "dy": dy }))?,
        ),
        Verb::Upload {
            target,
            files,
            response_url,
            act,
        } => call(
            tool::Act::NAME,
            act.params(
                "upload",
                Some(target),
                json!({ "files": files, "responseUrl": response_url }),
            )?,
        ),
        Verb::Wait {
            selector,
            state,
            text,
            url,
            js,
            timeout_ms,
            tab,
        } => call(
            tool::Wait::NAME,
            tab.on(json!({
                "selector": selector,
                "state": state,
                "text": text,
                "url": url,
                "js": js,
                "timeoutMs": timeout_ms,
            })),
        ),
        Verb::Screenshot {
            preset,
            selector,
            format,
            max_width,
            marks,
            output,
            tab,
        } => {
            let params = tab.on(json!({
                "preset": preset,
                "selector": selector,
                "format": format,
                "maxWidth": max_width,
                "marks": marks.then_some(true),
            }));
            return Ok((call(tool::Screenshot::NAME, params), output));
        }
        Verb::Pdf {
            paper,
            landscape,
            background,
            pages,
            output,
            tab,
        } => {
            let params = tab.on(json!({
                "paper": paper,
                "landscape": landscape.then_some(true),
                "background": background.then_some(true),
                "pages": pages,
            }));
            return Ok((call(tool::Pdf::NAME, params), output));
        }
        Verb::Logs {
            kind,
            level,
            url_matches,
            status,
            method,
            since,
            limit,
            entry,
            har,
            tab,
        } => {
            let params = tab.on(json!({
                "kind": kind,
                "level": level,
                "urlMatches": url_matches,
                "status": status,
                "method": method,
                "since": since,
                "limit": limit,
                "id": entry,
                "har": har.is_some().then_some(true),
            }));
            return Ok((call(tool::Logs::NAME, params), har));
        }
        Verb::Viewport {
            preset,
            width,
            height,
            tab,
        } => call(
            tool::Viewport::NAME,
            tab.on(json!({ "preset": preset, "width": width, "height": height })),
        ),
        Verb::Eval {
            expression,
            max_chars,
            tab,
        } => call(
            tool::Eval::NAME,
            tab.on(json!({
                "expression": read_text(&expression, "the expression")?,
                "maxChars": max_chars,
            })),
        ),
        Verb::FormState { scope, tab } => {
            call(tool::FormState::NAME, tab.on(json!({ "scope": scope })))
        }
        Verb::Dialog {
            answer,
            prompt_text,
            tab,
        } => call(
            tool::Dialog::NAME,
            tab.on(json!({ "accept": answer == "accept", "promptText": prompt_text })),
        ),
        Verb::Recall {
            id,
            query,
            offset,
            limit,
        } => call(
            tool::Recall::NAME,
            json!({ "observationId": id, "query": query, "offset": offset, "limit": limit }),
        ),
        Verb::Checkpoint { action, id, tab } => call(
            tool::Checkpoint::NAME,
            tab.on(json!({ "action": action, "stateId": id })),
        ),
        Verb::State { action, name } => {
            call(tool::State::NAME, json!({ "action": action, "name": name }))
        }
        Verb::Handoff {
            reason,
            status,
            wait,
            timeout_ms,
        } => {
            let action = if status {
                "status"
            } else if wait {
                tool::Wait::NAME
            } else {
                "start"
            };
            call(
                tool::Handoff::NAME,
                json!({ "action": action, "reason": reason, "timeoutMs": timeout_ms }),
            )
        }
        Verb::Watch { .. } => call(tool::Handoff::NAME, json!({ "action": "watch" })),
        Verb::Diagnose { limit } => Request::Diagnose(limit),
        Verb::Run {
            tool: name,
            params,
            param,
            expect,
            readback,
        } => {
            let params = match params {
                Some(source) => read_json(&source)?,
                None => json!({}),
            };
            let Value::Object(mut map) = params else {
                return Err("--params must be a JSON object".into());
            };
            for pair in &param {
                let (key, value) = typed_param(&name, pair)?;
                map.insert(key, value);
            }
            if let Some(source) = expect {
                map.insert("expect".into(), read_json(&source)?);
            }
            if let Some(source) = readback {
                map.insert(
                    "readback".into(),
                    json!(read_text(&source, "the readback")?),
                );
            }
            // The command's deadline is the call's, not a param of the tool: said where
            // it belongs instead of refused as an unknown param.
            if map.contains_key("commandTimeoutMs") {
                return Err(format!(
                    "commandTimeoutMs is the command's deadline, not a param of {name}: give --command-timeout-ms MS"
                ));
            }
            Request::Tool {
                method: name,
                params: Value::Object(map),
            }
        }
        Verb::Start { state } => Request::Start(state),
        Verb::Tasks => Request::Tasks,
        Verb::Stop { task: id } => Request::Stop(id.unwrap_or_else(|| task.to_string())),
        Verb::Cancel { command } => Request::Cancel(command),
        Verb::Batch { steps, vars } => batch(&steps, &vars, false)?,
        Verb::Flow { action } => match action {
            FlowVerb::Export { .. } => Request::FlowExport,
            FlowVerb::Run { file, vars } => batch(&file, &vars, true)?,
        },
        Verb::Job { job } => Request::Job(job),
        Verb::Jobs => Request::Jobs,
        Verb::CancelJob { job } => Request::CancelJob(job),
    };
    Ok((request, None))
}

/// `KEY=VALUE` as the param `KEY` of tool `tool`, its value typed by the tool's schema:
/// a number for a number, true or false for a boolean, JSON for a list or an object, and
/// text for the rest (a param the tool does not take is left for the tool to refuse).
fn typed_param(tool: &str, pair: &str) -> Result<(String, Value), String> {
    let (key, text) = pair
        .split_once('=')
        .ok_or_else(|| format!("-p {pair:?}: write KEY=VALUE"))?;
    let key = key.trim();
    if key.is_empty() {
        return Err(format!("-p {pair:?}: the KEY is empty"));
    }
    let kind = tools::find(tool)
        .and_then(|t| t.input_schema["properties"][key]["type"].as_str())
        .unwrap_or("string")
        .to_string();
    let value = match kind.as_str() {
        "integer" | "number" => text
            .trim()
            .parse::<serde_json::Number>()
            .map(Value::Number)
            .map_err(|_| format!("-p {key}: {text:?} is not a number"))?,
        "boolean" => match text.trim() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => return Err(format!("-p {key}: {text:?} is not true or false")),
        },
        "array" | "object" => serde_json::from_str(text)
            .map_err(|e| format!("-p {key}: {text:?} is not JSON ({e})"))?,
        _ => Value::String(text.to_string()),
    };
    Ok((key.to_string(), value))
}

impl TabArg {
    fn of(tab: String) -> TabArg {
        TabArg { tab: Some(tab) }
    }

    /// `params` with this tab as the tool's `tabId`.
    fn on(&self, mut params: Value) -> Value {
        if let (Some(tab), Value::Object(map)) = (&self.tab, &mut params) {
            map.insert("tabId".into(), json!(tab));
        }
        params
    }
}

impl ActArgs {
    /// The `act` params: the action, the ref, what the verb adds, and the expectation.
    pub(super) fn params(
        &self,
        action: &str,
        target: Option<String>,
        extra: Value,
    ) -> Result<Value, String> {
        let mut params = self.tab.on(json!({
            "action": action,
            "ref": target,
            "snapshotId": self.snapshot_id,
            "readback": self
                .readback
                .as_deref()
                .map(|source| read_text(source, "the readback"))
                .transpose()?,
            "expectPopup": self.expect_popup.then_some(true),
        }));
        if let (Value::Object(params), Value::Object(extra)) = (&mut params, extra) {
            params.extend(extra);
        }
        let mut expect = match &self.expect {
            Some(source) => match read_json(source)? {
                Value::Object(map) => map,
                other => return Err(format!("--expect must be a JSON object, not {other}")),
            },
            None => Map::new(),
        };
        for (key, value) in [
            ("text", self.expect_text.as_ref().map(|t| json!(t))),
            ("url", self.expect_url.as_ref().map(|u| json!(u))),
            ("timeoutMs", self.expect_timeout_ms.map(|ms| json!(ms))),
        ] {
            if let Some(value) = value {
                expect.insert(key.into(), value);
            }
        }
        if !expect.is_empty() {
            params["expect"] = Value::Object(expect);
        }
        Ok(strip_nulls(params))
    }
}

/// Drops absent fields, so the daemon sees only what was given.
fn strip_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, strip_nulls(v)))
                .collect::<Map<String, Value>>(),
        ),
        other => other,
    }
}

/// The job a flow file makes, bound with `vars`; refused whole before anything is sent.
fn batch(source: &str, vars: &[String], wait: bool) -> Result<Request, String> {
    match flows::bind(source, vars, read_json) {
        Ok(bound) => Ok(Request::Batch {
            body: bound.body,
            record: bound.record,
            wait,
        }),
        Err(NotSent::Usage(usage)) => Err(usage),
        Err(NotSent::Refused(error)) => Ok(Request::Refused(error)),
    }
}

/// JSON from text, `@FILE`, or `-` (stdin): UTF-8, a leading BOM tolerated.
pub(super) fn read_json(source: &str) -> Result<Value, String> {
    let text = read_text(source, "the params")?;
    serde_json::from_str(&text).map_err(|e| format!("the params are not valid JSON: {e}"))
}

/// Text from `@FILE`, `-` (stdin), or the argument itself: UTF-8, a leading BOM
/// tolerated. `what` names it in messages.
pub(super) fn read_text(source: &str, what: &str) -> Result<String, String> {
    let text = if source == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read {what} from stdin: {e}"))?;
        String::from_utf8(bytes).map_err(|_| "stdin is not UTF-8".to_string())?
    } else if let Some(path) = source.strip_prefix('@') {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        String::from_utf8(bytes).map_err(|_| format!("{path} is not UTF-8"))?
    } else {
        source.to_string()
    };
    Ok(text.strip_prefix('\u{feff}').unwrap_or(&text).to_string())
}
