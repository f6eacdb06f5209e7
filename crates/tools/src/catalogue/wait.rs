//! `wait`: wait until a condition holds in a tab (SPEC §7) — an element reaching a state,
//! text on the page, the URL, or a JavaScript condition. Nothing is dispatched, so every
//! failure is retry-safe; a condition that never held is `WAIT_TIMEOUT`, naming the
//! condition, the time waited and the evidence, never a success with `matched:false`.

use std::time::Duration;

use browser::{Condition, ElementState, Matcher};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Value, json};

use super::ToolSpec;
use crate::engine::Ctx;
use crate::envelope::ActionStatus;
use crate::error::{Code, ToolError};

/// A wait's timeout when none is given.
const DEFAULT_TIMEOUT: Duration = Duration::from_millis(5_000);
/// The longest a wait may ask for (SPEC §7).
const MAX_TIMEOUT_MS: u64 = 900_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    /// CSS selector to wait for (with state).
    selector: Option<String>,
    /// visible (default), attached, or hidden (absent or not visible).
    state: Option<State>,
    /// Text the page must show.
    text: Option<String>,
    /// URL to wait for.
    url: Option<String>,
    /// URL glob (* and ?).
    url_matches: Option<String>,
    /// Read-only JS expression, polled (needs eval); one matcher, default truthy.
    js: Option<String>,
    /// js value equals this.
    #[serde(default, deserialize_with = "present")]
    #[schemars(transform = no_default)]
    equals: Option<Value>,
    /// js value differs from this.
    #[serde(default, deserialize_with = "present")]
    #[schemars(transform = no_default)]
    not_equals: Option<Value>,
    /// js string/array contains this.
    #[serde(default, deserialize_with = "present")]
    #[schemars(transform = no_default)]
    contains: Option<Value>,
    /// js number at least this.
    min: Option<f64>,
    /// js number at most this.
    max: Option<f64>,
    /// js value truthy.
    truthy: Option<bool>,
    /// Timeout in ms (default 5000).
    #[schemars(range(min = 1, max = 900000))]
    timeout_ms: Option<u64>,
    /// Timeout in seconds (must agree with timeoutMs).
    timeout_seconds: Option<f64>,
    /// Tab to watch (default: current).
    tab_id: Option<String>,
}

/// A present JSON `null` is a value to match, not an absent parameter.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// A matcher's value has no default (`null` is a value to match).
fn no_default(schema: &mut schemars::Schema) {
    schema.remove("default");
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum State {
    Visible,
    Attached,
    Hidden,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Output {
    /// What was waited for.
    condition: String,
    /// The evidence: the text excerpt, the URL, the value, or the element counts.
    actual: Value,
    waited_ms: u64,
}

pub(crate) struct Wait;

impl ToolSpec for Wait {
    const NAME: &'static str = "wait";
    const DESCRIPTION: &'static str = "Wait until an element is visible/attached/hidden, text appears, the URL matches, or a js condition holds. Fails naming the condition and time.";
    type Params = Params;
    type Output = Output;

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        let condition = params.condition()?;
        if matches!(condition, Condition::Js { .. }) && !ctx.options().enable_eval {
            return Err(super::eval::disabled("a js wait condition"));
        }
        let timeout = params.timeout()?;
        let deadline = ctx.deadline;
        let task = ctx.task().await?;
        let (tab_id, tab) = task.tab_or_open(params.tab_id.as_deref(), deadline).await?;
        if let Err(refused) = tab.check_loaded() {
            ctx.report_page(tab_id, &tab.state());
            return Err(refused.into());
        }
        ctx.stage("wait");
        let navigations = tab.navigations();
        let started = std::time::Instant::now();
        let outcome = tab.wait_for(&condition, timeout, deadline).await;
        // Not asked for, so reported: the page moved on while we watched it.
        ctx.events.navigated = tab.navigations() > navigations;
        let state = match tab.refresh_info(deadline).await {
            Ok(state) => state,
            Err(_) => tab.state(),
        };
        ctx.report_page(tab_id, &state);
        let outcome = match outcome {
            Ok(outcome) => outcome,
            // With time to wait, a js condition fails this way only if it does not compile.
            Err(browser::Error::Script { class, message })
                if matches!(condition, Condition::Js { .. }) =>
            {
                return Err(ToolError::new(
                    Code::ScriptError,
                    format!(
                        "the js condition is valid JavaScript neither as an expression nor as a function body ({class}: {message}); nothing was waited for"
                    ),
                    "fix the expression and call again",
                )
                .with_data(json!({ "class": class, "message": message })));
            }
            Err(other) => return Err(other.into()),
        };
        // A condition met on an error page is not the site's (a spinner is "hidden" there).
        tab.check_loaded()?;
        let mut outcome = outcome;
        let cut_short = !outcome.met && outcome.waited + Duration::from_millis(1) < timeout;
        if cut_short {
            // The command's deadline, not the wait's timeout, is what ends this wait: the
            // poll stopped early to leave room to report, so look once more at the last
            // moment, then report the deadline for what it is (SPEC §7).
            tokio::time::sleep_until((deadline.at() - Duration::from_millis(40)).into()).await;
            if let Ok(last) = tab.wait_for(&condition, Duration::ZERO, deadline).await
                && last.met
            {
                outcome = last;
            } else {
                // A timeout is reported when the deadline has passed, not before it.
                tokio::time::sleep_until(deadline.at().into()).await;
                let mut error = ToolError::new(
                    Code::CommandTimeout,
                    format!(
                        "the command's deadline passed after {} ms while waiting for {condition} in {tab_id}; the wait dispatched nothing",
                        started.elapsed().as_millis()
                    ),
                    "give the command a longer deadline (commandTimeoutMs), or wait for something that comes sooner",
                )
                .with_data(json!({ "condition": condition.to_string(), "actual": outcome.actual }));
                error.action_status = Some(ActionStatus::NotStarted);
                return Err(error);
            }
        }
        let waited_ms = outcome.waited.as_millis() as u64;
        if !outcome.met {
            let mut message = format!(
                "waited {waited_ms} ms (timeout {} ms) for {condition} in {tab_id}; it did not happen",
                timeout.as_millis(),
            );
            // Page text and script values stay in `data.actual`, out of the message: the
            // message is read as candor's words, and page content is untrusted (§16).
            match &condition {
                Condition::Selector { .. } | Condition::Url(_) | Condition::UrlMatches(_) => {
                    message.push_str(&format!(" (last seen: {})", evidence(&outcome.actual)));
                }
                Condition::Text(_) | Condition::Js { .. } => {
                    message.push_str(" (what was last seen is in data.actual)");
                }
            }
            if cut_short {
                message.push_str("; the command's deadline ended the wait before its timeout");
            }
            let hint = if cut_short {
                "give the command a longer deadline (commandTimeoutMs), or wait for something that comes sooner"
            } else {
                "take a browser_snapshot to see the page; wait again with a longer timeoutMs if it is still on its way"
            };
            let mut error = ToolError::new(Code::WaitTimeout, message, hint).with_data(json!({
                "condition": condition.to_string(),
                "actual": outcome.actual,
                "waitedMs": waited_ms,
                "timeoutMs": timeout.as_millis() as u64,
            }));
            error.action_status = Some(ActionStatus::NotStarted);
            return Err(error);
        }
        Ok(Output {
            condition: condition.to_string(),
            actual: outcome.actual,
            waited_ms,
        })
    }
}

impl Params {
    /// The one condition asked for: none is `EMPTY_CONDITION`, several `INVALID_PARAMS`.
    fn condition(&self) -> Result<Condition, ToolError> {
        let given = [
            ("selector", &self.selector),
            ("text", &self.text),
            ("url", &self.url),
            ("urlMatches", &self.url_matches),
            ("js", &self.js),
        ];
        let named: Vec<&str> = given
            .iter()
            .filter(|(_, value)| value.is_some())
            .map(|(name, _)| *name)
            .collect();
        let matchers = self.matchers();
        match named.as_slice() {
            [] => {
                return Err(ToolError::new(
                    Code::EmptyCondition,
                    "wait needs a condition: selector (with state), text, url, urlMatches or js",
                    "call browser_wait {selector:\"#result\"} or {text:\"Saved\"}",
                ));
            }
            [_] => {}
            several => {
                return Err(ToolError::invalid_params(format!(
                    "wait takes exactly one condition, not {}; call it once per condition",
                    several.join(" and ")
                )));
            }
        }
        if self.state.is_some() && self.selector.is_none() {
            return Err(ToolError::invalid_params("state goes with selector"));
        }
        if !matchers.is_empty() && self.js.is_none() {
            return Err(ToolError::invalid_params(format!(
                "{} goes with js",
                matchers.join(", ")
            )));
        }
        if let Some((name, value)) = given
            .iter()
            .find_map(|(name, value)| value.as_deref().map(|v| (name, v)))
            && value.trim().is_empty()
        {
            return Err(ToolError::new(
                Code::EmptyCondition,
                format!("wait's {name} is empty"),
                "give the selector, text, URL or expression to wait for",
            ));
        }
        Ok(if let Some(selector) = &self.selector {
            Condition::Selector {
                selector: selector.clone(),
                state: match self.state.unwrap_or(State::Visible) {
                    State::Visible => ElementState::Visible,
                    State::Attached => ElementState::Attached,
                    State::Hidden => ElementState::Hidden,
                },
            }
        } else if let Some(text) = &self.text {
            Condition::Text(text.clone())
        } else if let Some(url) = &self.url {
            Condition::Url(url.clone())
        } else if let Some(glob) = &self.url_matches {
            Condition::UrlMatches(glob.clone())
        } else {
            Condition::Js {
                expression: self.js.clone().unwrap_or_default(),
                matcher: self.matcher(&matchers)?,
            }
        })
    }

    /// The names of the js matchers given.
    fn matchers(&self) -> Vec<&'static str> {
        [
            ("equals", self.equals.is_some()),
            ("notEquals", self.not_equals.is_some()),
            ("contains", self.contains.is_some()),
            ("min", self.min.is_some()),
            ("max", self.max.is_some()),
            ("truthy", self.truthy.is_some()),
        ]
        .into_iter()
        .filter(|(_, given)| *given)
        .map(|(name, _)| name)
        .collect()
    }

    fn matcher(&self, given: &[&str]) -> Result<Matcher, ToolError> {
        if given.len() > 1 {
            return Err(ToolError::invalid_params(format!(
                "js takes one matcher, not {}",
                given.join(" and ")
            )));
        }
        if self.truthy == Some(false) {
            return Err(ToolError::invalid_params(
                "truthy:false is not a matcher; use equals or notEquals",
            ));
        }
        for (name, bound) in [("min", self.min), ("max", self.max)] {
            if bound.is_some_and(|b| !b.is_finite()) {
                return Err(ToolError::invalid_params(format!(
                    "{name} must be a finite number"
                )));
            }
        }
        Ok(if let Some(value) = &self.equals {
            Matcher::Equals(value.clone())
        } else if let Some(value) = &self.not_equals {
            Matcher::NotEquals(value.clone())
        } else if let Some(value) = &self.contains {
            Matcher::Contains(value.clone())
        } else if let Some(bound) = self.min {
            Matcher::Min(bound)
        } else if let Some(bound) = self.max {
            Matcher::Max(bound)
        } else {
            Matcher::Truthy
        })
    }

    /// `timeoutMs` or `timeoutSeconds` (which must agree when both are given), > 0 and
    /// at most 900000 ms.
    fn timeout(&self) -> Result<Duration, ToolError> {
        let from_seconds = match self.timeout_seconds {
            None => None,
            Some(seconds) if seconds > 0.0 && seconds * 1000.0 <= MAX_TIMEOUT_MS as f64 => {
                Some((seconds * 1000.0).round() as u64)
            }
            Some(seconds) => {
                return Err(ToolError::invalid_params(format!(
                    "timeoutSeconds must be more than 0 and at most {}, not {seconds}",
                    MAX_TIMEOUT_MS / 1000
                )));
            }
        };
        let ms = match (self.timeout_ms, from_seconds) {
            (Some(ms), Some(from_seconds)) if ms != from_seconds => {
                return Err(ToolError::invalid_params(format!(
                    "timeoutMs ({ms}) and timeoutSeconds ({}) disagree; give one of them",
                    self.timeout_seconds.unwrap_or_default()
                )));
            }
            (Some(ms), _) => ms,
            (None, Some(ms)) => ms,
            (None, None) => return Ok(DEFAULT_TIMEOUT),
        };
        if ms == 0 || ms > MAX_TIMEOUT_MS {
            return Err(ToolError::invalid_params(format!(
                "timeoutMs must be more than 0 and at most {MAX_TIMEOUT_MS}, not {ms}"
            )));
        }
        Ok(Duration::from_millis(ms))
    }
}

/// The evidence, short enough for a message.
fn evidence(actual: &Value) -> String {
    let text = match actual {
        Value::String(text) => format!("{text:?}"),
        Value::Object(map) if map.contains_key("matched") => format!(
            "{} matching, {} visible",
            map.get("matched").unwrap_or(&Value::Null),
            map.get("visible").unwrap_or(&Value::Null)
        ),
        other => other.to_string(),
    };
    let mut chars = text.chars();
    let clipped: String = chars.by_ref().take(200).collect();
    if chars.next().is_some() {
        format!("{clipped}…")
    } else {
        clipped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(json: Value) -> Result<Params, serde_json::Error> {
        serde_json::from_value(json)
    }

    fn code(result: Result<impl std::fmt::Debug, ToolError>) -> Code {
        match result {
            Ok(ok) => panic!("expected a refusal, got {ok:?}"),
            Err(error) => error.code,
        }
    }

    #[test]
    fn exactly_one_condition() {
        let none = params(json!({ "timeoutMs": 10 })).unwrap();
        assert_eq!(code(none.condition()), Code::EmptyCondition);
        let blank = params(json!({ "text": "  " })).unwrap();
        assert_eq!(code(blank.condition()), Code::EmptyCondition);
        let two = params(json!({ "text": "a", "url": "http://x/" })).unwrap();
        assert_eq!(code(two.condition()), Code::InvalidParams);
        let state_alone = params(json!({ "text": "a", "state": "hidden" })).unwrap();
        assert_eq!(code(state_alone.condition()), Code::InvalidParams);
        let matcher_alone = params(json!({ "text": "a", "equals": 1 })).unwrap();
        assert_eq!(code(matcher_alone.condition()), Code::InvalidParams);
        let two_matchers = params(json!({ "js": "1", "min": 1, "max": 2 })).unwrap();
        assert_eq!(code(two_matchers.condition()), Code::InvalidParams);
        let falsy = params(json!({ "js": "1", "truthy": false })).unwrap();
        assert_eq!(code(falsy.condition()), Code::InvalidParams);
    }

    #[test]
    fn conditions_and_matchers_are_built_from_params() {
        let selector = params(json!({ "selector": "#x" }))
            .unwrap()
            .condition()
            .unwrap();
        assert_eq!(selector.to_string(), "selector \"#x\" to be visible");
        let hidden = params(json!({ "selector": "#x", "state": "hidden" }))
            .unwrap()
            .condition()
            .unwrap();
        assert_eq!(hidden.to_string(), "selector \"#x\" to be hidden");
        let null = params(json!({ "js": "window.x", "equals": null }))
            .unwrap()
            .condition()
            .unwrap();
        assert_eq!(null.to_string(), "js \"window.x\" to equal null");
        let truthy = params(json!({ "js": "window.x" }))
            .unwrap()
            .condition()
            .unwrap();
        assert_eq!(truthy.to_string(), "js \"window.x\" to be truthy");
    }

    #[test]
    fn timeouts_in_ms_or_seconds_must_agree_and_stay_in_range() {
        let timeout = |json: Value| params(json).unwrap().timeout();
        assert_eq!(timeout(json!({})).unwrap(), DEFAULT_TIMEOUT);
        assert_eq!(
            timeout(json!({ "timeoutMs": 1500 })).unwrap(),
            Duration::from_millis(1500)
        );
        assert_eq!(
            timeout(json!({ "timeoutSeconds": 1.5 })).unwrap(),
            Duration::from_millis(1500)
        );
        assert_eq!(
            timeout(json!({ "timeoutMs": 2000, "timeoutSeconds": 2 })).unwrap(),
            Duration::from_millis(2000)
        );
        assert_eq!(
            timeout(json!({ "timeoutMs": 900000 })).unwrap(),
            Duration::from_millis(900_000)
        );
        for bad in [
            json!({ "timeoutMs": 0 }),
            json!({ "timeoutMs": 900001 }),
            json!({ "timeoutSeconds": 0 }),
            json!({ "timeoutSeconds": -1 }),
            json!({ "timeoutSeconds": 901 }),
            json!({ "timeoutMs": 2000, "timeoutSeconds": 3 }),
        ] {
            assert_eq!(code(timeout(bad.clone())), Code::InvalidParams, "{bad}");
        }
    }
}
