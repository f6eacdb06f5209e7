//! Waiting for a condition inside the page (docs/waiting.md#waits): polled page-side with `setTimeout`
//! (so it works in background tabs), bounded by a timeout and the command's deadline.
//! Shared by the `wait` tool and by `expect` on acting commands.
//!
//! The page does the polling (`js/wait_for.js`, woken by a timer and by DOM mutations);
//! the engine calls it in slices, each well inside the page-read budget, so a long wait
//! is never mistaken for a hung page, and a navigation only ends the current slice: the
//! next one runs in the new document with the time that is left. Not meeting the
//! condition is an outcome, not an error.

use std::time::{Duration, Instant};

use cdp::Deadline;
use serde_json::{Value, json};

use crate::script::Thrown;
use crate::{Error, Tab};

/// The longest one page-side poll runs before the engine asks again.
const MAX_SLICE: Duration = Duration::from_secs(5);
/// The least a wait leaves of its command's deadline, so the caller can still report.
/// The margin is also the page's slack on the last slice (it must answer within three
/// quarters of what is left, or count as hung), so it is not cut thin.
const MIN_REPORT_MARGIN: Duration = Duration::from_millis(100);
/// The most a wait leaves of its command's deadline.
const MAX_REPORT_MARGIN: Duration = Duration::from_secs(1);
/// The most a check still running at the end of its slice is given to finish.
const MAX_GRACE: Duration = Duration::from_secs(1);
/// How many times a wait whose time is up still tries a document that replaced the one
/// it was polling (a navigation in the middle of a check-once).
const LATE_RETRIES: u32 = 2;

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
    /// How many main-frame navigations (new documents and same-document moves) this tab
    /// has seen: two readings around a wait or an eval tell whether the page navigated.
    pub fn navigations(&self) -> u64 {
        self.state().navigations
    }

    /// Polls `condition` in the page until it holds, `timeout` passes (zero: check
    /// once), or the deadline. An invalid selector is `InvalidSelector` at once.
    ///
    /// A js expression that does not compile is `Script` at once. One that throws
    /// counts as not met while there is time to wait (the evidence is `{threw}`); a
    /// check-once that throws is `Script`, since there is no later.
    ///
    /// The wait ends a little before `deadline` (a fifth of what is left, between 100
    /// ms and 1 s) so that its caller can still report; `waited` says how long it took.
    pub async fn wait_for(
        &self,
        condition: &Condition,
        timeout: Duration,
        deadline: Deadline,
    ) -> Result<WaitOutcome, Error> {
        let started = Instant::now();
        let page_condition = condition.to_page()?;
        // Text, elements and the URL are read in candor's world, where the page cannot
        // change what a read returns; a js condition is the caller's code about the page's
        // own state, so it runs in the page's world (see ARCHITECTURE.md, "Worlds").
        let script = match condition {
            Condition::Js { .. } => &WAIT_FOR_IN_PAGE,
            _ => &WAIT_FOR,
        };
        let margin = (deadline.remaining() / 5).clamp(MIN_REPORT_MARGIN, MAX_REPORT_MARGIN);
        let end = (started + timeout).min(deadline.at().checked_sub(margin).unwrap_or(started));
        let mut actual = Value::Null;
        let mut observed = false;
        let mut late_retries = 0;
        loop {
            let now = Instant::now();
            // Half of what is left of the command: the page-read budget is three quarters,
            // so the rest is room for the round trip and a late timer.
            let slice = end
                .saturating_duration_since(now)
                .min(MAX_SLICE)
                .min(deadline.remaining() / 2);
            // A check that is still running (a slow promise) when its slice ends gets this
            // much more; slice and grace stay under the page-read budget.
            let grace = MAX_GRACE.min(deadline.remaining() / 8);
            let arguments = vec![
                page_condition.clone(),
                json!(slice.as_micros().div_ceil(1000) as u64),
                json!(grace.as_millis() as u64),
            ];
            match self.call_script(script, arguments, deadline).await {
                Ok(WaitReply::InvalidSelector { invalid_selector }) => {
                    let selector = match condition {
                        Condition::Selector { selector, .. } => selector.clone(),
                        _ => String::new(),
                    };
                    return Err(Error::InvalidSelector {
                        selector,
                        reason: invalid_selector,
                    });
                }
                Ok(WaitReply::InvalidExpression { invalid_expression }) => {
                    return Err(invalid_expression.into());
                }
                Ok(WaitReply::Checked {
                    met,
                    actual: seen,
                    threw,
                }) => {
                    if !met
                        && timeout.is_zero()
                        && let Some(threw) = threw
                    {
                        return Err(threw.into());
                    }
                    actual = seen;
                    observed = true;
                    if met || Instant::now() >= end {
                        return Ok(WaitOutcome {
                            met,
                            actual,
                            waited: started.elapsed(),
                        });
                    }
                }
                Err(err) if document_replaced(&err) => {
                    tracing::debug!(tab = self.label(), %err, "the document changed during a wait; going on in the new one");
                    if Instant::now() >= end {
                        late_retries += 1;
                        if observed || late_retries > LATE_RETRIES || deadline.remaining() <= margin
                        {
                            return Ok(WaitOutcome {
                                met: false,
                                actual,
                                waited: started.elapsed(),
                            });
                        }
                    }
                }
                Err(err) => return Err(err),
            }
        }
    }
}

/// What `wait_for.js` answers: a refusal, or the last check of the slice.
#[derive(Debug, serde::Deserialize)]
#[serde(untagged)]
pub(crate) enum WaitReply {
    #[serde(rename_all = "camelCase")]
    InvalidSelector { invalid_selector: String },
    #[serde(rename_all = "camelCase")]
    InvalidExpression { invalid_expression: Thrown },
    Checked {
        met: bool,
        /// The evidence; absent where the page's value was `undefined`.
        #[serde(default)]
        actual: Value,
        /// The `js` condition threw (its evidence says so too).
        #[serde(default)]
        threw: Option<Thrown>,
    },
}

/// Whether a page-side call failed because its document went away (a navigation or a
/// reload): a wait goes on in the next one.
pub(crate) fn document_replaced(err: &Error) -> bool {
    matches!(err, Error::Protocol { message, .. }
        if message.contains("Execution context was destroyed")
            || message.contains("Cannot find context")
            || message.contains("Inspected target navigated or closed"))
}

impl Condition {
    /// The condition as data for `js/wait_for.js`.
    fn to_page(&self) -> Result<Value, Error> {
        Ok(match self {
            Condition::Selector { selector, state } => json!({
                "kind": "selector",
                "selector": selector,
                "state": state.name(),
            }),
            Condition::Text(text) => json!({ "kind": "text", "text": text }),
            Condition::Url(url) => json!({ "kind": "url", "url": url }),
            Condition::UrlMatches(glob) => {
                json!({ "kind": "urlMatches", "regex": glob_to_regex(glob) })
            }
            Condition::Js {
                expression,
                matcher,
            } => {
                let (kind, value) = match matcher {
                    Matcher::Truthy => ("truthy", Value::Null),
                    Matcher::Equals(value) => ("equals", value.clone()),
                    Matcher::NotEquals(value) => ("notEquals", value.clone()),
                    Matcher::Contains(value) => ("contains", value.clone()),
                    Matcher::Min(bound) | Matcher::Max(bound) if !bound.is_finite() => {
                        return Err(Error::InvalidParams {
                            what: "the js condition's bound".into(),
                            reason: format!("{bound} is not a finite number"),
                        });
                    }
                    Matcher::Min(bound) => ("min", json!(bound)),
                    Matcher::Max(bound) => ("max", json!(bound)),
                };
                json!({
                    "kind": "js",
                    "expression": expression,
                    "matcher": { "kind": kind, "value": value },
                })
            }
        })
    }
}

impl ElementState {
    pub fn name(self) -> &'static str {
        match self {
            ElementState::Visible => "visible",
            ElementState::Attached => "attached",
            ElementState::Hidden => "hidden",
        }
    }
}

/// Says what is waited for, for messages: `selector "#late" to be visible`.
impl std::fmt::Display for Condition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Condition::Selector { selector, state } => {
                write!(f, "selector {selector:?} to be {}", state.name())
            }
            Condition::Text(text) => write!(f, "text {text:?}"),
            Condition::Url(url) => write!(f, "url {url:?}"),
            Condition::UrlMatches(glob) => write!(f, "url matching {glob:?}"),
            Condition::Js {
                expression,
                matcher,
            } => {
                write!(f, "js {expression:?} ")?;
                match matcher {
                    Matcher::Truthy => write!(f, "to be truthy"),
                    Matcher::Equals(value) => write!(f, "to equal {value}"),
                    Matcher::NotEquals(value) => write!(f, "not to equal {value}"),
                    Matcher::Contains(value) => write!(f, "to contain {value}"),
                    Matcher::Min(bound) => write!(f, "to be at least {bound}"),
                    Matcher::Max(bound) => write!(f, "to be at most {bound}"),
                }
            }
        }
    }
}

/// A URL glob as a JavaScript regular expression matching the whole URL: `*` is any run
/// of characters, `?` one character, everything else itself.
fn glob_to_regex(glob: &str) -> String {
    let mut regex = String::with_capacity(glob.len() + 8);
    regex.push('^');
    for c in glob.chars() {
        match c {
            '*' => regex.push_str("[\\s\\S]*"),
            '?' => regex.push_str("[\\s\\S]"),
            '\\' | '^' | '$' | '.' | '|' | '+' | '(' | ')' | '[' | ']' | '{' | '}' | '/' => {
                regex.push('\\');
                regex.push(c);
            }
            c => regex.push(c),
        }
    }
    regex.push('$');
    regex
}

/// `{met, actual}` or `{invalidSelector}`: polls one wait condition for a slice of time.
pub(crate) const WAIT_FOR: crate::script::Script<crate::wait::WaitReply> =
    crate::script::script!("wait_for" => crate::wait::WaitReply);
/// The same, for a `js` condition: the caller's expression reads the page's own globals.
pub(crate) const WAIT_FOR_IN_PAGE: crate::script::Script<crate::wait::WaitReply> =
    crate::script::script!("wait_for" => crate::wait::WaitReply, in Page);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_become_anchored_regexes_with_everything_else_literal() {
        assert_eq!(
            glob_to_regex("https://a.test/*"),
            "^https:\\/\\/a\\.test\\/[\\s\\S]*$"
        );
        assert_eq!(glob_to_regex("x?y"), "^x[\\s\\S]y$");
        assert_eq!(
            glob_to_regex("a+(b)[c]{d}|e^$\\"),
            "^a\\+\\(b\\)\\[c\\]\\{d\\}\\|e\\^\\$\\\\$"
        );
        assert_eq!(glob_to_regex(""), "^$");
    }

    #[test]
    fn conditions_say_what_they_wait_for() {
        let selector = Condition::Selector {
            selector: "#late".into(),
            state: ElementState::Hidden,
        };
        assert_eq!(selector.to_string(), "selector \"#late\" to be hidden");
        let js = Condition::Js {
            expression: "items.length".into(),
            matcher: Matcher::Min(3.0),
        };
        assert_eq!(js.to_string(), "js \"items.length\" to be at least 3");
        let equals = Condition::Js {
            expression: "state".into(),
            matcher: Matcher::Equals(json!({"a": [1, "x"]})),
        };
        assert_eq!(
            equals.to_string(),
            "js \"state\" to equal {\"a\":[1,\"x\"]}"
        );
        assert_eq!(
            Condition::UrlMatches("*/done".into()).to_string(),
            "url matching \"*/done\""
        );
    }

    #[test]
    fn an_infinite_bound_is_refused_before_the_page_is_asked() {
        let condition = Condition::Js {
            expression: "1".into(),
            matcher: Matcher::Max(f64::INFINITY),
        };
        assert!(matches!(
            condition.to_page(),
            Err(Error::InvalidParams { .. })
        ));
    }
}
