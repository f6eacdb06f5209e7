//! `wait`: wait until a condition holds in a tab (docs/waiting.md#waits) — an element reaching a state,
//! text on the page, the URL, or a JavaScript condition. Nothing is dispatched, so every
//! failure is retry-safe; a condition that never held is `WAIT_TIMEOUT`, naming the
//! condition, the time waited and the evidence, never a success with `matched:false`.

use std::time::Duration;

use std::collections::BTreeMap;

use browser::Condition;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::condition::{Arity, ConditionParams, refuse_unknown};
use super::{Annotations, PageGuard, Policy, ToolSpec};
use crate::ctx::Ctx;
use crate::error::{ActionStatus, Code, ToolError};
use crate::untrusted::PageValue;

/// A wait's timeout when none is given.
const DEFAULT_TIMEOUT: Duration = Duration::from_millis(5_000);
/// The longest a wait may ask for (docs/waiting.md#waits).
const MAX_TIMEOUT_MS: u64 = 900_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Params {
    /// Exactly one condition.
    #[serde(flatten)]
    condition: ConditionParams,
    /// Default 5000.
    timeout_ms: Option<u64>,
    /// Or in seconds (not listed: one spelling in the schema is enough for a model).
    #[schemars(skip)]
    timeout_seconds: Option<f64>,
    // No description: `tabId` is every tool's, said once in the MCP instructions.
    tab_id: Option<String>,
    /// Keys no field took: refused.
    #[serde(flatten)]
    #[schemars(skip)]
    rest: BTreeMap<String, Value>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Output {
    /// What was waited for.
    condition: String,
    /// The evidence: the text excerpt, the URL, the value, or the element counts.
    actual: PageValue,
    waited_ms: u64,
}

/// A wait that ended unmet: the condition and the page's evidence.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Unmet {
    condition: String,
    actual: PageValue,
    #[serde(skip_serializing_if = "Option::is_none")]
    waited_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout_ms: Option<u64>,
}

/// The `wait` tool.
pub struct Wait;

impl ToolSpec for Wait {
    const NAME: &'static str = "wait";
    // A read, but a step of a flow: a replay waits where the recording did.
    const POLICY: Policy = Policy::STEP;
    const PAGE_GUARD: PageGuard = PageGuard::Reads;
    const ANNOTATIONS: Annotations = Annotations::reads("Wait for a condition");
    const DESCRIPTION: &'static str = "Wait for one condition (js with one matcher).";
    type Params = Params;
    type Output = Output;

    /// The evidence and the time; the condition is the agent's own.
    fn brief(data: &mut serde_json::Map<String, serde_json::Value>) {
        data.remove("condition");
    }

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        refuse_unknown("wait", &params.rest)?;
        let condition = params
            .condition
            .conditions("wait", Arity::One, ctx.options().enable_eval)?
            .remove(0);
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
            // moment, then report the deadline for what it is (docs/waiting.md#deadlines).
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
                .with_typed_data(&Unmet {
                    condition: condition.to_string(),
                    actual: PageValue(outcome.actual),
                    waited_ms: None,
                    timeout_ms: None,
                });
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
            // message is read as candor's words, and page content is untrusted (docs/security.md#messages).
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
            let mut error =
                ToolError::new(Code::WaitTimeout, message, hint).with_typed_data(&Unmet {
                    condition: condition.to_string(),
                    actual: PageValue(outcome.actual),
                    waited_ms: Some(waited_ms),
                    timeout_ms: Some(timeout.as_millis() as u64),
                });
            error.action_status = Some(ActionStatus::NotStarted);
            return Err(error);
        }
        Ok(Output {
            condition: condition.to_string(),
            actual: PageValue(outcome.actual),
            waited_ms,
        })
    }
}

impl Params {
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
