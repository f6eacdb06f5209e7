//! Running the caller's JavaScript in a page (SPEC §8, `browser_eval`): an expression
//! gives its value; code that is not an expression runs as a function body; a promise is
//! awaited. The code goes to the page as data (`js/eval.js` compiles it there), runs at
//! most once, and what it did — a value, an exception, a promise still pending — is an
//! outcome for the caller to report. Whether eval is allowed at all is the caller's
//! decision, not this module's.

use std::time::{Duration, Instant};

use cdp::Deadline;
use serde_json::{Value, json};

use crate::script::EVAL;
use crate::{Error, Tab};

/// The longest a promise is awaited; the page-read budget is a little longer, so a slow
/// promise is reported as pending, not the page as hung.
const MAX_SETTLE: Duration = Duration::from_secs(8);

/// What running the code did.
#[derive(Debug, Clone)]
pub enum Evaluated {
    /// It ran to a value.
    Value(EvalValue),
    /// It is valid JavaScript neither as an expression nor as a function body; nothing ran.
    Invalid { class: String, message: String },
    /// It ran and threw, or its promise rejected.
    Threw { class: String, message: String },
    /// It ran, and its promise had not settled after `after`: it may still be running.
    Pending { after: Duration },
    /// It ran, and the page navigated away before its promise settled: no value.
    Navigated,
}

/// A value the code gave, as JSON (nodes, functions and cycles described in words).
#[derive(Debug, Clone)]
pub struct EvalValue {
    pub value: Value,
    /// `typeof` the value, with `null`, `array` and `node` told apart.
    pub js_type: String,
    /// The code was not an expression and ran as a function body.
    pub as_body: bool,
    /// The JSON was longer than asked for; `value` is then its first characters, as a string.
    pub truncated: bool,
    /// Characters of the whole JSON.
    pub chars: usize,
}

impl Tab {
    /// Runs `code` in the main frame's main world and reports what it did; its value's
    /// JSON is clipped to `max_chars`.
    pub async fn evaluate(
        &self,
        code: &str,
        max_chars: usize,
        deadline: Deadline,
    ) -> Result<Evaluated, Error> {
        let started = Instant::now();
        let settle = MAX_SETTLE.min(deadline.remaining() / 2);
        let arguments = vec![
            json!(code),
            json!(settle.as_millis() as u64),
            json!(max_chars),
        ];
        let reply = match self.call_script(&EVAL, arguments, deadline).await {
            Ok(reply) => reply,
            Err(err) if crate::wait::document_replaced(&err) => return Ok(Evaluated::Navigated),
            Err(err) => return Err(err),
        };
        let text = |key: &str| {
            reply
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        if let Some(threw) = reply.get("threw") {
            let class = threw
                .get("class")
                .and_then(Value::as_str)
                .unwrap_or("Error")
                .to_string();
            let message = threw
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            return Ok(
                if reply.get("ran").and_then(Value::as_bool) == Some(false) {
                    Evaluated::Invalid { class, message }
                } else {
                    Evaluated::Threw { class, message }
                },
            );
        }
        if reply.get("pending").and_then(Value::as_bool) == Some(true) {
            return Ok(Evaluated::Pending {
                after: started.elapsed(),
            });
        }
        Ok(Evaluated::Value(EvalValue {
            value: reply.get("value").cloned().unwrap_or(Value::Null),
            js_type: text("type"),
            as_body: text("mode") == "body",
            truncated: reply
                .get("truncated")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            chars: reply.get("chars").and_then(Value::as_u64).unwrap_or(0) as usize,
        }))
    }
}
