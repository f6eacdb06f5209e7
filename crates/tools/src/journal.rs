//! The tracer ring: the last commands of a task, answered from memory by `diagnostics`.

use std::collections::VecDeque;
use std::time::SystemTime;

use serde::Serialize;
use serde_json::Value;

/// How many commands the ring keeps (docs/faults.md#journal).
pub(crate) const CAPACITY: usize = 100;

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CommandRecord {
    pub command_id: String,
    pub method: String,
    pub params: Value,
    pub ok: bool,
    pub code: Option<String>,
    pub stage: &'static str,
    pub duration_ms: u64,
    pub url: Option<String>,
    /// Milliseconds since the Unix epoch when the command started.
    pub started_at: u64,
    /// The tries that failed with a transient error before the last: code, message,
    /// and the wait before the next try.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub retries: Vec<Value>,
    /// How many JavaScript dialogs the command raised (reported in its `events.dialog`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dialogs: Option<u64>,
}

#[derive(Debug, Default)]
pub(crate) struct Journal {
    records: VecDeque<CommandRecord>,
}

impl Journal {
    pub fn push(&mut self, record: CommandRecord) {
        if self.records.len() == CAPACITY {
            self.records.pop_front();
        }
        self.records.push_back(record);
    }

    /// The last `limit` records, oldest first.
    pub fn last(&self, limit: usize) -> Vec<CommandRecord> {
        let skip = self.records.len().saturating_sub(limit);
        self.records.iter().skip(skip).cloned().collect()
    }

    /// What the ring holds (`browser::Footprint`).
    pub fn footprint(&self) -> browser::Held {
        browser::Held::ring(&self.records)
    }
}

browser::footprint!(CommandRecord {
    command_id,
    method,
    params,
    ok,
    code,
    stage,
    duration_ms,
    url,
    started_at,
    retries,
    dialogs,
});

pub(crate) fn epoch_ms(time: SystemTime) -> u64 {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or_default()
}

/// A copy of a command's params fit for a record: secret-looking fields replaced, and
/// the params its tool's policy names as typed text (`typed`: what an `act` types into a
/// field) never kept, since the field may be a password input and nothing before the call
/// can tell (docs/security.md#redaction). [`crate::redact_command`] finds `typed` by the
/// command's tool.
pub(crate) fn redact_typed(params: &Value, typed: &[&str]) -> Value {
    let mut redacted = redact(params);
    if let Value::Object(map) = &mut redacted {
        for key in typed {
            if let Some(typed) = map.get_mut(*key)
                && !typed.is_null()
            {
                *typed = Value::String("[typed text]".into());
            }
        }
    }
    redacted
}

/// A copy of `params` with its secrets replaced: the one rule of tapes, journals,
/// archives and CLI records (`browser::redact_secrets`: secret names matched within a
/// key, in any case, with the configured `redactKeys`).
pub(crate) fn redact(params: &Value) -> Value {
    let mut redacted = params.clone();
    browser::redact_secrets(&mut redacted);
    redacted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::redact_command;
    use serde_json::json;

    fn record(n: usize) -> CommandRecord {
        CommandRecord {
            command_id: format!("c-{n}"),
            method: "navigate".into(),
            params: Value::Null,
            ok: true,
            code: None,
            stage: "done",
            duration_ms: 1,
            url: None,
            started_at: 0,
            retries: Vec::new(),
            dialogs: None,
        }
    }

    #[test]
    fn the_ring_keeps_the_last_hundred_in_order() {
        let mut journal = Journal::default();
        for n in 0..130 {
            journal.push(record(n));
        }
        let all = journal.last(1000);
        assert_eq!(CAPACITY, 100);
        let ids: Vec<&str> = all.iter().map(|r| r.command_id.as_str()).collect();
        let expected: Vec<String> = (30..130).map(|n| format!("c-{n}")).collect();
        assert_eq!(ids, expected);
        let last = journal.last(2);
        assert_eq!(last[1].command_id, "c-129");
        assert_eq!(last[0].command_id, "c-128");
    }

    #[test]
    fn secrets_are_redacted_at_any_depth() {
        let redacted = redact(&json!({
            "url": "http://x/",
            "Password": "hunter2",
            "nested": [{"apiKey": "k", "keep": 1}],
            "authorizationHeader": "Bearer t"
        }));
        assert_eq!(redacted["url"], "http://x/");
        assert_eq!(redacted["Password"], "[redacted]");
        assert_eq!(redacted["nested"][0]["apiKey"], "[redacted]");
        assert_eq!(redacted["nested"][0]["keep"], 1);
        assert_eq!(redacted["authorizationHeader"], "[redacted]");
    }

    /// Names added by the configuration (`redactKeys`) reach journals and archives: both
    /// redact through this function.
    #[test]
    fn configured_field_names_are_redacted_too() {
        browser::add_secret_keys(&["tenant".to_string()]);
        let redacted = redact(&json!({"tenantRef": "t-42", "nested": [{"TENANT": 1}], "keep": 2}));
        assert_eq!(redacted["tenantRef"], "[redacted]");
        assert_eq!(redacted["nested"][0]["TENANT"], "[redacted]");
        assert_eq!(redacted["keep"], 2);
    }

    #[test]
    fn typed_text_of_act_is_never_kept() {
        let params = json!({"action": "fill", "ref": "e4k2", "text": "hunter2"});
        let redacted = redact_command("act", &params);
        assert_eq!(redacted["text"], "[typed text]");
        assert_eq!(redacted["ref"], "e4k2");
        assert!(!redacted.to_string().contains("hunter2"));
        // Other tools' `text` is what they search for, not what was typed.
        assert_eq!(
            redact_command("find", &json!({"text": "Save"}))["text"],
            "Save"
        );
    }
}
