//! CLI records: every CLI call appends one line to `records.jsonl` in the state directory
//! (time, task, method, redacted params, outcome, code, stage, duration). Secret-looking
//! fields and typed text are never written; `--sensitive` keeps only the step, method,
//! ok, code and stage; `--no-record` writes nothing (docs/faces.md#records).

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

/// One call, as recorded.
#[derive(Debug)]
pub struct Record {
    time_ms: u64,
    task: String,
    method: String,
    params: Value,
    /// The command id the daemon gave the call, when it got that far.
    step: Option<String>,
    ok: bool,
    code: Option<String>,
    stage: Option<String>,
    duration_ms: u64,
}

impl Record {
    /// A call the daemon answered with `envelope`.
    pub fn answered(
        task: &str,
        method: &str,
        params: &Value,
        envelope: &Value,
        elapsed: Duration,
    ) -> Record {
        Record {
            time_ms: now_ms(),
            task: task.to_string(),
            method: method.to_string(),
            params: redact(method, params),
            step: envelope["execution"]["commandId"]
                .as_str()
                .map(str::to_string),
            ok: envelope["ok"] == true,
            code: envelope["code"].as_str().map(str::to_string),
            stage: envelope["execution"]["stage"].as_str().map(str::to_string),
            duration_ms: elapsed.as_millis() as u64,
        }
    }

    /// A call that never got an answer (no daemon, a transport failure).
    pub fn failed(task: &str, method: &str, params: &Value, elapsed: Duration) -> Record {
        Record {
            time_ms: now_ms(),
            task: task.to_string(),
            method: method.to_string(),
            params: redact(method, params),
            step: None,
            ok: false,
            code: None,
            stage: Some("connect".into()),
            duration_ms: elapsed.as_millis() as u64,
        }
    }

    fn to_json(&self, sensitive: bool) -> Value {
        if sensitive {
            return json!({
                "step": self.step,
                "method": self.method,
                "ok": self.ok,
                "code": self.code,
                "stage": self.stage,
            });
        }
        json!({
            "time": self.time_ms,
            "step": self.step,
            "task": self.task,
            "method": self.method,
            "params": self.params,
            "ok": self.ok,
            "code": self.code,
            "stage": self.stage,
            "durationMs": self.duration_ms,
        })
    }
}

/// The file records go to.
pub fn path(state_dir: &Path) -> std::path::PathBuf {
    state_dir.join("records.jsonl")
}

/// Appends `record` (one line, owner-only file). A record that cannot be written is
/// reported on stderr; it never fails the call it records.
pub fn append(state_dir: &Path, record: &Record, sensitive: bool) {
    let path = path(state_dir);
    let line = format!("{}\n", record.to_json(sensitive));
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&path)
        .and_then(|mut file| file.write_all(line.as_bytes()));
    if let Err(err) = written {
        eprintln!(
            "candor: cannot write the record to {}: {err}",
            path.display()
        );
    }
}

/// The params fit for a record: each step of a batch redacted as its own command.
fn redact(method: &str, params: &Value) -> Value {
    if method == "batch" {
        let mut redacted = tools::redact_command(method, params);
        if let Some(steps) = redacted["steps"].as_array_mut() {
            for (step, original) in steps.iter_mut().zip(
                params["steps"]
                    .as_array()
                    .map(Vec::as_slice)
                    .unwrap_or_default(),
            ) {
                let step_method = original["method"].as_str().unwrap_or_default();
                step["params"] = tools::redact_command(step_method, &original["params"]);
            }
        }
        return redacted;
    }
    tools::redact_command(method, params)
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_text_and_secrets_never_reach_a_record_even_inside_a_batch() {
        let batch = json!({ "steps": [
            { "method": "act", "params": { "action": "fill", "ref": "e1", "text": "hunter2" } },
            { "method": "navigate", "params": { "url": "http://x/", "token": "t0ken" } },
        ]});
        let record = Record::answered("t", "batch", &batch, &json!({ "ok": true }), Duration::ZERO);
        let line = record.to_json(false).to_string();
        assert!(
            !line.contains("hunter2") && !line.contains("t0ken"),
            "{line}"
        );
        assert!(line.contains("http://x/"), "{line}");
    }

    #[test]
    fn a_sensitive_record_keeps_step_method_ok_code_and_stage_only() {
        let envelope = json!({
            "ok": false, "code": "EXPECTATION_FAILED",
            "execution": { "commandId": "c-9", "stage": "verify" },
        });
        let record = Record::answered(
            "t",
            "act",
            &json!({ "action": "click", "ref": "e1" }),
            &envelope,
            Duration::from_millis(5),
        );
        assert_eq!(
            record.to_json(true),
            json!({ "step": "c-9", "method": "act", "ok": false, "code": "EXPECTATION_FAILED", "stage": "verify" })
        );
    }
}
