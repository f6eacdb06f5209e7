//! Waiting for a condition inside the page (SPEC §7): polled page-side with `setTimeout`
//! (so it works in background tabs), bounded by a timeout and the command's deadline.
//! Shared by the `wait` tool and by `expect` on acting commands.
//!
//! (Interface fixed; the implementation is being written.)

use std::time::Duration;

use cdp::Deadline;
use serde_json::Value;

use crate::{Error, Tab};

/// What to wait for.
#[derive(Debug, Clone)]
pub enum Condition {
    /// An element matching a CSS selector reaches a state.
    Selector {
        selector: String,
        state: ElementState,
    },
    /// The main document's visible text contains this string.
    Text(String),
    /// The full URL equals this string.
    Url(String),
    /// The full URL matches this glob (`*` any run of characters, `?` one character).
    UrlMatches(String),
    /// A caller-supplied read-only expression, compared with a matcher.
    Js {
        expression: String,
        matcher: Matcher,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementState {
    Visible,
    Attached,
    /// Absent, or present but not visible.
    Hidden,
}

#[derive(Debug, Clone)]
pub enum Matcher {
    Truthy,
    Equals(Value),
    NotEquals(Value),
    Contains(Value),
    Min(f64),
    Max(f64),
}

/// How a wait ended. Not meeting the condition in time is an outcome, not an error:
/// the caller decides what it means (`wait` fails, `expect` is `EXPECTATION_FAILED`).
#[derive(Debug, Clone)]
pub struct WaitOutcome {
    pub met: bool,
    /// The evidence: what was last observed (the text excerpt, the URL, the value).
    pub actual: Value,
    pub waited: Duration,
}

impl Tab {
    /// Polls `condition` in the page until it holds, `timeout` passes (zero: check
    /// once), or the deadline. An invalid selector is `InvalidSelector` at once.
    pub async fn wait_for(
        &self,
        condition: &Condition,
        timeout: Duration,
        deadline: Deadline,
    ) -> Result<WaitOutcome, Error> {
        let _ = (condition, timeout, deadline);
        Err(Error::Protocol {
            method: "wait_for".into(),
            message: "not written yet".into(),
        })
    }
}
