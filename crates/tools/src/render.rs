//! The text form of an envelope: one summary line, the data, and page content fenced as
//! untrusted (SPEC §16) — for the MCP text block and the CLI.

use serde_json::Value;

use crate::envelope::Envelope;

/// Fields of `data` that carry page content, shown fenced rather than inline.
const CONTENT_FIELDS: &[&str] = &["text", "html", "diff"];

pub fn render_text(method: &str, envelope: &Envelope) -> String {
    let mut out = String::new();
    let status = match (&envelope.code, envelope.ok) {
        (Some(code), _) => code.as_str(),
        (None, true) => "ok".into(),
        (None, false) => "error".into(),
    };
    out.push_str(&format!(
        "{status} {method} ({} ms)",
        envelope.execution.duration_ms
    ));
    if let Some(page) = &envelope.page {
        out.push_str(&format!(" · {} {} {:?}", page.tab_id, page.url, page.title));
    }
    out.push('\n');
    if let Some(message) = &envelope.message {
        out.push_str(&format!("message: {message}\n"));
    }
    if let Some(hint) = &envelope.hint {
        out.push_str(&format!("hint: {hint}\n"));
    }
    if !envelope.ok {
        let execution = &envelope.execution;
        out.push_str(&format!(
            "execution: stage={} actionStatus={} retrySafe={}\n",
            execution.stage,
            serde_json::to_value(execution.action_status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            execution.retry_safe
        ));
    }
    // What was verified, said plainly: a tool never claims more than it saw.
    let verification = &envelope.verification;
    if verification.requested {
        out.push_str(&format!(
            "verification: verified={} expect={}\n",
            verification
                .verified
                .map_or("unknown".into(), |v| v.to_string()),
            verification.expect.clone().unwrap_or(Value::Null)
        ));
    } else if envelope.ok && envelope.execution.dispatch_started {
        out.push_str("verification: dispatched, not verified (no expect given)\n");
    }
    // A page that had not stopped changing is said plainly: what follows may be half drawn.
    let data = &envelope.data;
    if data["settled"] == Value::Bool(false) || data["settling"] == Value::Bool(true) {
        out.push_str(&format!(
            "settle: the page was still changing after {} ms ({}); what is shown may be mid-transition — snapshot again or browser_wait\n",
            data["settleMs"].as_u64().unwrap_or(0),
            data["stillChanging"].as_str().unwrap_or("region unknown"),
        ));
    }
    let events = serde_json::to_value(&envelope.events).unwrap_or(Value::Null);
    if let Value::Object(map) = &events {
        let happened: serde_json::Map<String, Value> = map
            .iter()
            .filter(|(_, v)| !v.is_null() && **v != Value::Bool(false))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !happened.is_empty() {
            out.push_str(&format!("events: {}\n", Value::Object(happened)));
        }
    }
    let mut data = envelope.data.clone();
    let mut fenced = Vec::new();
    if let Value::Object(map) = &mut data {
        for field in CONTENT_FIELDS {
            if let Some(Value::String(content)) = map.remove(*field) {
                fenced.push(content);
            }
        }
    }
    if data.as_object().is_some_and(|m| !m.is_empty()) {
        out.push_str(&data.to_string());
        out.push('\n');
    }
    for content in fenced {
        out.push_str("<untrusted-page-content>\n");
        // The fence cannot be closed from inside the page.
        out.push_str(&content.replace(
            "</untrusted-page-content>",
            "</untrusted-page-content\u{200b}>",
        ));
        out.push_str("\n</untrusted-page-content>\n");
    }
    out
}
