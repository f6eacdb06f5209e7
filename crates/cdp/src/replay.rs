//! Tapes: what the recorder keeps out of them, and playing one back as a transport, so a
//! recorded session runs again with no browser (docs/faults.md#tapes).
//!
//! A tape is the recorder's JSONL: `{"ms","dir":"send"|"recv","msg"}` in the order the
//! messages passed. [`ReplayTransport`] answers each request the engine sends with the
//! recorded reply of the same request (same method, session and params, compared after
//! redaction and with per-run values such as download folders left out), and lets the
//! recorded events through in their recorded place: a received message is delivered once
//! every request recorded before it has been sent again. A request the tape does not hold
//! is answered with an error naming it. Probes (`Runtime.evaluate("0")`, sent on a timer)
//! are answered at once and their recorded copies skipped, since their number depends on
//! timing.

use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};

use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::secrets::{REDACTED, is_secret_field, redact_secrets};
use crate::transport::{MessageSink, MessageStream, Received, Transport};

/// Keys that differ from one run to the next by design: left out when requests are
/// compared (so are measured times passed to page-side scripts; see `request_key`).
const PER_RUN_KEYS: &[&str] = &["downloadPath"];

/// The probe `browser` sends on a timer.
fn is_probe(message: &Value) -> bool {
    message["method"] == "Runtime.evaluate" && message["params"]["expression"] == "0"
}

/// Removes what a tape must not hold from one CDP message: every secret by key
/// ([`redact_secrets`]: cookies, `Authorization`, API keys, passwords, request bodies,
/// `Set-Cookie` in raw header text), the values of secret fields in DOM replies
/// ([`is_secret_field`]), and the whole of every typing command — its text, and its keys
/// (`key`, `code`), which spell it too; it may go into a password field, or be what a
/// person types during a hand-off.
pub fn redact(message: &mut Value) {
    redact_secrets(message);
    redact_secret_fields(message);
    let typing = matches!(
        message["method"].as_str(),
        Some("Input.insertText" | "Input.dispatchKeyEvent" | "Input.imeSetComposition")
    );
    if typing && let Some(params) = message.get_mut("params") {
        *params = Value::String(REDACTED.into());
    }
}

/// The values of secret fields as the page set them: in flat attribute lists
/// (`[name, value, …]`, e.g. `DOM.describeNode`) and in `DOMSnapshot` string tables.
fn redact_secret_fields(value: &mut Value) {
    if let Some(result) = value.get_mut("result")
        && result.get("documents").is_some()
        && result.get("strings").is_some()
    {
        redact_snapshot_secrets(result);
    }
    redact_attribute_lists(value);
}

/// Whether a flat attribute list (`[name, value, …]`) of an element named `tag` is a
/// secret field's.
fn secret_attributes(tag: &str, attributes: &[String]) -> bool {
    is_secret_field(tag, |name| {
        attributes
            .chunks(2)
            .find(|pair| pair.len() == 2 && pair[0].eq_ignore_ascii_case(name))
            .map(|pair| pair[1].clone())
    })
}

fn redact_attribute_lists(value: &mut Value) {
    match value {
        Value::Object(map) => {
            // A node without its name is taken for an input: a tape may hold too little,
            // never a secret.
            let tag = ["localName", "nodeName"]
                .iter()
                .find_map(|key| map.get(*key).and_then(Value::as_str))
                .filter(|tag| !tag.is_empty())
                .unwrap_or("input")
                .to_string();
            if let Some(Value::Array(attributes)) = map.get_mut("attributes")
                && attributes.iter().all(Value::is_string)
            {
                let texts: Vec<String> = attributes
                    .iter()
                    .filter_map(|a| a.as_str().map(str::to_string))
                    .collect();
                if secret_attributes(&tag, &texts) {
                    for pair in attributes.chunks_mut(2) {
                        if pair.len() == 2 && pair[0] == "value" {
                            pair[1] = Value::String(REDACTED.into());
                        }
                    }
                }
            }
            map.values_mut().for_each(redact_attribute_lists);
        }
        Value::Array(items) => items.iter_mut().for_each(redact_attribute_lists),
        _ => {}
    }
}

/// `DOMSnapshot.captureSnapshot`: strings are shared in one table and nodes refer to
/// them by index; the `value` attribute and the live value of secret fields are
/// replaced in the table.
fn redact_snapshot_secrets(result: &mut Value) {
    let mut secret = Vec::new();
    {
        let strings = result["strings"].as_array().cloned().unwrap_or_default();
        let text = |index: &Value| {
            index
                .as_u64()
                .and_then(|i| strings.get(i as usize))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        for document in result["documents"].as_array().into_iter().flatten() {
            let nodes = &document["nodes"];
            let names = nodes["nodeName"].as_array();
            let mut secret_nodes = Vec::new();
            for (node, attributes) in nodes["attributes"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
            {
                let pairs: Vec<&[Value]> = attributes
                    .as_array()
                    .map(|a| a.chunks(2).collect())
                    .unwrap_or_default();
                let texts: Vec<String> = pairs.iter().flat_map(|p| p.iter().map(&text)).collect();
                let tag = names
                    .and_then(|n| n.get(node))
                    .map(&text)
                    .filter(|t| !t.is_empty())
                    .unwrap_or_else(|| "input".into());
                if secret_attributes(&tag, &texts) {
                    secret_nodes.push(node as u64);
                    secret.extend(
                        pairs
                            .iter()
                            .filter(|p| p.len() == 2 && text(&p[0]) == "value")
                            .filter_map(|p| p[1].as_u64()),
                    );
                }
            }
            // Live values: an input's, a textarea's.
            for live in [&nodes["inputValue"], &nodes["textValue"]] {
                let indexes = live["index"].as_array().cloned().unwrap_or_default();
                let values = live["value"].as_array().cloned().unwrap_or_default();
                for (node, value) in indexes.iter().zip(values.iter()) {
                    if node.as_u64().is_some_and(|n| secret_nodes.contains(&n)) {
                        secret.extend(value.as_u64());
                    }
                }
            }
        }
    }
    if let Some(strings) = result["strings"].as_array_mut() {
        for index in secret {
            if let Some(string) = strings.get_mut(index as usize) {
                *string = Value::String(REDACTED.into());
            }
        }
    }
}

/// What identifies a request on the tape: method, session and params as compared.
fn request_key(message: &Value) -> String {
    let mut message = message.clone();
    redact(&mut message);
    let mut params = message.get("params").cloned().unwrap_or(Value::Null);
    if let Value::Object(map) = &mut params {
        for key in PER_RUN_KEYS {
            map.remove(*key);
        }
        // Fractional numbers passed to page-side scripts are measured times (ms since
        // an action began), different in every run; whole numbers (budgets, indexes)
        // and everything else must match.
        // A page-side script is known by its function's name, not its text: a tape
        // tests the engine against the browser's recorded replies, and stays usable
        // when a script's body is edited (real Chromium tests cover the script itself).
        if message["method"] == "Runtime.callFunctionOn"
            && let Some(Value::String(source)) = map.get_mut("functionDeclaration")
        {
            *source = function_name(source);
        }
        if message["method"] == "Runtime.callFunctionOn"
            && let Some(Value::Array(arguments)) = map.get_mut("arguments")
        {
            for argument in arguments {
                if argument["value"].as_number().is_some_and(|n| n.is_f64()) {
                    argument["value"] = Value::String("[measured]".into());
                }
            }
        }
    }
    json!([message["method"], message["sessionId"], params]).to_string()
}

/// `settleQuiet` of `async function settleQuiet(budgetMs, …) {…}`; the whole text when it
/// declares no named function.
fn function_name(source: &str) -> String {
    source
        .split_once("function")
        .map(|(_, rest)| rest.trim_start())
        .and_then(|rest| rest.split_once('('))
        .map(|(name, _)| name.trim().to_string())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| source.to_string())
}

struct Line {
    send: bool,
    message: Value,
}

/// The playback state: the tape, which of its requests were sent again, and how far
/// delivery has got.
struct Playback {
    lines: Vec<Line>,
    consumed: Vec<bool>,
    next: usize,
    /// Recorded request id → the id the engine used this time.
    ids: HashMap<(Option<String>, u64), u64>,
    incoming: mpsc::UnboundedSender<String>,
}

impl Playback {
    fn handle(&mut self, text: &str) {
        let Ok(message) = serde_json::from_str::<Value>(text) else {
            return;
        };
        let id = message["id"].as_u64().unwrap_or_default();
        let session = message["sessionId"].as_str().map(str::to_string);
        if is_probe(&message) {
            self.deliver(with_session(
                json!({ "id": id, "result": { "result": { "type": "number", "value": 0, "description": "0" } } }),
                session.as_deref(),
            ));
            return;
        }
        let key = request_key(&message);
        let found = (self.next..self.lines.len()).find(|&at| {
            self.lines[at].send && !self.consumed[at] && request_key(&self.lines[at].message) == key
        });
        let Some(at) = found else {
            let method = message["method"].as_str().unwrap_or_default();
            let error = format!(
                "not on the tape: {method} {}",
                message.get("params").cloned().unwrap_or(Value::Null)
            );
            self.deliver(with_session(
                json!({ "id": id, "error": { "code": -32000, "message": error } }),
                session.as_deref(),
            ));
            return;
        };
        self.consumed[at] = true;
        if let Some(recorded) = self.lines[at].message["id"].as_u64() {
            self.ids.insert((session, recorded), id);
        }
        self.advance();
    }

    /// Delivers every received message whose preceding requests have all been sent again.
    fn advance(&mut self) {
        while self.next < self.lines.len() {
            let at = self.next;
            if self.lines[at].send {
                if !self.consumed[at] {
                    return;
                }
            } else {
                let mut message = self.lines[at].message.clone();
                if let Some(recorded) = message["id"].as_u64() {
                    let session = message["sessionId"].as_str().map(str::to_string);
                    match self.ids.get(&(session, recorded)) {
                        Some(live) => message["id"] = (*live).into(),
                        // The reply to a request of the recording we never sent (a probe).
                        None => {
                            self.next += 1;
                            continue;
                        }
                    }
                }
                self.deliver(message);
            }
            self.next += 1;
        }
    }

    fn deliver(&self, message: Value) {
        let _ = self.incoming.send(message.to_string());
    }
}

fn with_session(mut message: Value, session: Option<&str>) -> Value {
    if let Some(session) = session {
        message["sessionId"] = session.into();
    }
    message
}

/// A tape played back as a transport: the engine talks to it as to a browser.
pub struct ReplayTransport {
    lines: Vec<Line>,
}

impl ReplayTransport {
    /// Reads a tape the recorder wrote.
    pub fn open(path: &Path) -> io::Result<Self> {
        let text = std::fs::read_to_string(path)?;
        let mut lines = Vec::new();
        let mut probes = Vec::new();
        for (number, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let entry: Value = serde_json::from_str(line).map_err(|err| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{} line {}: {err}", path.display(), number + 1),
                )
            })?;
            let send = entry["dir"] == "send";
            let message = entry["msg"].clone();
            if send && is_probe(&message) {
                probes.push((message["sessionId"].clone(), message["id"].clone()));
                continue;
            }
            lines.push(Line { send, message });
        }
        // The replies to recorded probes go too: live probes are answered at once.
        lines.retain(|line| {
            line.send
                || line.message["id"].is_null()
                || !probes.contains(&(
                    line.message["sessionId"].clone(),
                    line.message["id"].clone(),
                ))
        });
        Ok(Self { lines })
    }
}

impl Transport for ReplayTransport {
    fn split(self: Box<Self>) -> (MessageSink, MessageStream) {
        let (incoming, received) = mpsc::unbounded_channel::<String>();
        let consumed = vec![false; self.lines.len()];
        let mut playback = Playback {
            lines: self.lines,
            consumed,
            next: 0,
            ids: HashMap::new(),
            incoming,
        };
        playback.advance();
        let playback = Arc::new(Mutex::new(playback));
        let sink = futures::sink::unfold(playback, |playback, text: String| async move {
            if let Ok(mut state) = playback.lock() {
                state.handle(&text);
            }
            Ok::<_, io::Error>(playback)
        });
        let stream = futures::stream::unfold(received, |mut received| async move {
            received
                .recv()
                .await
                .map(|text| (Ok(Received::Message(text)), received))
        });
        (Box::pin(sink), stream.boxed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secrets::add_secret_keys;

    #[test]
    fn secrets_and_typed_text_never_reach_a_tape() {
        let mut message = json!({
            "method": "Network.requestWillBeSent",
            "params": { "request": {
                "headers": { "Cookie": "sid=1", "Authorization": "Bearer x", "Accept": "*/*" },
                "postData": "password=hunter2",
            }},
        });
        redact(&mut message);
        let headers = &message["params"]["request"]["headers"];
        assert_eq!(headers["Cookie"], REDACTED);
        assert_eq!(headers["Authorization"], REDACTED);
        assert_eq!(headers["Accept"], "*/*");
        assert_eq!(message["params"]["request"]["postData"], REDACTED);

        let mut typed = json!({ "method": "Input.insertText", "params": { "text": "hunter2" } });
        redact(&mut typed);
        assert_eq!(typed["params"], REDACTED);
        // A key spells what is typed as well as its text does.
        let mut key = json!({ "method": "Input.dispatchKeyEvent",
            "params": { "type": "keyDown", "key": "h", "code": "KeyH", "text": "h" } });
        redact(&mut key);
        assert_eq!(key["params"], REDACTED);
        let mut described = json!({ "result": { "node": {
            "attributes": ["type", "password", "value", "hunter2"] } } });
        redact(&mut described);
        assert_eq!(described["result"]["node"]["attributes"][3], REDACTED);
        // Any secret field, by the one definition: here a card number.
        let mut card = json!({ "result": { "node": { "localName": "input",
            "attributes": ["autocomplete", "billing cc-number", "value", "4242"] } } });
        redact(&mut card);
        assert_eq!(card["result"]["node"]["attributes"][3], REDACTED);
        let mut plain = json!({ "result": { "node": { "localName": "input",
            "attributes": ["autocomplete", "billing cc-name", "value", "Ada"] } } });
        redact(&mut plain);
        assert_eq!(plain["result"]["node"]["attributes"][3], "Ada");
        let mut captured = json!({ "id": 3, "result": {
            "strings": ["type", "password", "value", "hunter2", "text", "visible"],
            "documents": [{ "nodes": {
                "attributes": [[0, 1, 2, 3], [0, 4, 2, 5]],
                "inputValue": { "index": [0, 1], "value": [3, 5] },
            }}],
        }});
        redact(&mut captured);
        let strings = &captured["result"]["strings"];
        assert_eq!(strings[3], REDACTED);
        assert_eq!(strings[5], "visible");
        let mut pairs = json!({ "headers": [{ "name": "set-cookie", "value": "a=b" }] });
        redact(&mut pairs);
        assert_eq!(pairs["headers"][0]["value"], REDACTED);
    }

    #[test]
    fn configured_key_names_are_redacted_too_in_fields_and_headers() {
        assert!(add_secret_keys(&["X-Tenant-Key".to_string()]));
        let mut message = json!({
            "method": "Network.requestWillBeSent",
            "params": {
                "request": { "headers": { "x-tenant-key": "t-123", "Accept": "*/*" } },
                "extraInfo": [{ "name": "X-Tenant-Key-2", "value": "t-456" }],
                "tenant": "kept"
            }
        });
        redact(&mut message);
        let text = message.to_string();
        assert!(!text.contains("t-123") && !text.contains("t-456"), "{text}");
        assert!(text.contains("*/*") && text.contains("kept"), "{text}");
    }

    #[test]
    fn scripts_compare_by_their_function_name() {
        assert_eq!(
            function_name("async function settleQuiet(a, b) { x }"),
            "settleQuiet"
        );
        assert_eq!(
            function_name("// comment\nfunction ping() { return 1; }"),
            "ping"
        );
        assert_eq!(function_name("() => 1"), "() => 1");
    }

    #[test]
    fn requests_compare_without_their_per_run_values() {
        let a = json!({ "id": 1, "method": "Browser.setDownloadBehavior", "params": { "behavior": "allow", "downloadPath": "/tmp/a" } });
        let b = json!({ "id": 9, "method": "Browser.setDownloadBehavior", "params": { "behavior": "allow", "downloadPath": "/tmp/b" } });
        assert_eq!(request_key(&a), request_key(&b));
        let c = json!({ "id": 9, "method": "Browser.setDownloadBehavior", "params": { "behavior": "deny" } });
        assert_ne!(request_key(&a), request_key(&c));
        let call = |since: Value, budget: u64| {
            json!({ "method": "Runtime.callFunctionOn", "params": {
                "functionDeclaration": "f", "arguments": [{ "value": budget }, { "value": since }] } })
        };
        assert_eq!(
            request_key(&call(json!(12.5), 1000)),
            request_key(&call(json!(3.25), 1000))
        );
        assert_ne!(
            request_key(&call(json!(12.5), 1000)),
            request_key(&call(json!(12.5), 999))
        );
    }
}
