//! Running the caller's JavaScript in a page (docs/observation.md#eval, `browser_eval`): an expression
//! gives its value; code that is not an expression runs as a function body; a promise is
//! awaited. The code goes to the page as data (`js/eval.js` compiles it there), runs at
//! most once, and what it did — a value, an exception, a promise still pending — is an
//! outcome for the caller to report. Whether eval is allowed at all is the caller's
//! decision, not this module's.

use std::time::{Duration, Instant};

use cdp::Deadline;
use serde_json::{Value, json};

use crate::script::Thrown;
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

/// What `eval.js` answers.
#[derive(Debug, serde::Deserialize)]
#[serde(untagged)]
pub(crate) enum EvalReply {
    /// The code did not compile (`ran: false`) or threw.
    Threw { ran: bool, threw: Thrown },
    /// It had not settled within its time.
    Pending {
        // Read only to tell this shape from the others.
        #[allow(dead_code)]
        pending: bool,
    },
    Value {
        mode: String,
        #[serde(rename = "type")]
        js_type: String,
        value: Value,
        truncated: bool,
        chars: usize,
    },
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
        Ok(match reply {
            EvalReply::Threw { ran: false, threw } => Evaluated::Invalid {
                class: threw.class,
                message: threw.message,
            },
            EvalReply::Threw { threw, .. } => Evaluated::Threw {
                class: threw.class,
                message: threw.message,
            },
            EvalReply::Pending { .. } => Evaluated::Pending {
                after: started.elapsed(),
            },
            EvalReply::Value {
                mode,
                js_type,
                value,
                truncated,
                chars,
            } => Evaluated::Value(EvalValue {
                value,
                js_type,
                as_body: mode == "body",
                truncated,
                chars,
            }),
        })
    }
}

/// Runs the caller's code (browser_eval) in the page's world: `{ran, mode, type, value}` or
/// `{threw}` or `{pending}`.
pub(crate) const EVAL: crate::script::Script<crate::eval::EvalReply> =
    crate::script::script!("eval" => crate::eval::EvalReply, in Page);
