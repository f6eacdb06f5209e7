//! `expect` and `readback` on acting commands (SPEC §6.3): a postcondition checked
//! after the action, and a read-only expression evaluated after it. Shared by the tools
//! that act; not a tool itself.

use std::time::Duration;

use browser::{Condition, Matcher, Tab};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::engine::Ctx;
use crate::error::{Code, ToolError};

const DEFAULT_TIMEOUT_MS: u64 = 5000;
const MAX_TIMEOUT_MS: u64 = 120_000;

/// A postcondition: exactly one of text, url, urlMatches, js (with one matcher).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Expect {
    /// The page's visible text contains this.
    text: Option<String>,
    /// The URL equals this.
    url: Option<String>,
    /// The URL matches this glob (* and ?).
    url_matches: Option<String>,
    /// A read-only JS expression (needs enableEval), with one matcher below.
    js: Option<String>,
    equals: Option<Value>,
    not_equals: Option<Value>,
    contains: Option<Value>,
    min: Option<f64>,
    max: Option<f64>,
    truthy: Option<bool>,
    /// How long to poll: 0 checks once (default 5000, max 120000).
    #[schemars(range(max = 120000))]
    timeout_ms: Option<u64>,
}

/// A checked expectation, ready to run once the action is done.
#[derive(Debug, Clone)]
pub(crate) struct Postcondition {
    condition: Condition,
    timeout: Duration,
    described: Value,
}

impl Expect {
    /// Refuses an empty or malformed expectation before anything is dispatched.
    pub(crate) fn check(&self, eval_enabled: bool) -> Result<Postcondition, ToolError> {
        let empty = |what: &str| {
            ToolError::new(
                Code::EmptyCondition,
                format!("expect.{what} is empty: it would hold on any page"),
                "give the text, URL or expression the action must lead to",
            )
        };
        let timeout_ms = self.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
        if timeout_ms > MAX_TIMEOUT_MS {
            return Err(ToolError::invalid_params(format!(
                "expect.timeoutMs must be 0..={MAX_TIMEOUT_MS}, not {timeout_ms}"
            )));
        }
        let matchers = [
            self.equals.clone().map(Matcher::Equals),
            self.not_equals.clone().map(Matcher::NotEquals),
            self.contains.clone().map(Matcher::Contains),
            self.min.map(Matcher::Min),
            self.max.map(Matcher::Max),
            self.truthy.filter(|t| *t).map(|_| Matcher::Truthy),
        ];
        let mut matchers: Vec<Matcher> = matchers.into_iter().flatten().collect();
        let conditions = [
            self.text.is_some(),
            self.url.is_some(),
            self.url_matches.is_some(),
            self.js.is_some(),
        ];
        match conditions.iter().filter(|c| **c).count() {
            0 => {
                return Err(ToolError::new(
                    Code::EmptyCondition,
                    "expect names no condition",
                    "give one of text, url, urlMatches, js",
                ));
            }
            1 => {}
            _ => {
                return Err(ToolError::invalid_params(
                    "expect takes one of text, url, urlMatches, js",
                ));
            }
        }
        if self.js.is_none() && !matchers.is_empty() {
            return Err(ToolError::invalid_params(
                "equals/notEquals/contains/min/max/truthy go with expect.js",
            ));
        }
        let condition = if let Some(text) = &self.text {
            if text.trim().is_empty() {
                return Err(empty("text"));
            }
            Condition::Text(text.clone())
        } else if let Some(url) = &self.url {
            if url.trim().is_empty() {
                return Err(empty("url"));
            }
            Condition::Url(url.clone())
        } else if let Some(glob) = &self.url_matches {
            if glob.trim().is_empty() || glob.chars().all(|c| c == '*') {
                return Err(empty("urlMatches"));
            }
            Condition::UrlMatches(glob.clone())
        } else {
            let expression = self.js.clone().unwrap_or_default();
            if expression.trim().is_empty() {
                return Err(empty("js"));
            }
            if !eval_enabled {
                return Err(super::eval::disabled("expect.js"));
            }
            if matchers.len() > 1 {
                return Err(ToolError::invalid_params("expect.js takes one matcher"));
            }
            Condition::Js {
                expression,
                matcher: matchers.pop().unwrap_or(Matcher::Truthy),
            }
        };
        let mut described = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Value::Object(map) = &mut described {
            map.retain(|_, v| !v.is_null());
        }
        Ok(Postcondition {
            condition,
            timeout: Duration::from_millis(timeout_ms),
            described,
        })
    }
}

impl serde::Serialize for Expect {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        json!({
            "text": self.text, "url": self.url, "urlMatches": self.url_matches, "js": self.js,
            "equals": self.equals, "notEquals": self.not_equals, "contains": self.contains,
            "min": self.min, "max": self.max, "truthy": self.truthy, "timeoutMs": self.timeout_ms,
        })
        .serialize(serializer)
    }
}

/// Runs the postcondition after the action and fills `verification`. A condition that
/// did not hold is `EXPECTATION_FAILED`: the action completed and must not be repeated.
pub(crate) async fn verify(
    ctx: &mut Ctx<'_>,
    tab: &Tab,
    postcondition: &Postcondition,
) -> Result<(), ToolError> {
    ctx.stage("verify");
    // Leave room inside the command's deadline to report.
    let room = ctx
        .deadline
        .remaining()
        .saturating_sub(Duration::from_millis(150));
    let timeout = postcondition.timeout.min(room);
    let outcome = tab
        .wait_for(&postcondition.condition, timeout, ctx.deadline)
        .await?;
    let mut expect = postcondition.described.clone();
    if let Value::Object(map) = &mut expect {
        map.insert("actual".into(), outcome.actual.clone());
        map.insert("waitedMs".into(), json!(outcome.waited.as_millis() as u64));
    }
    ctx.verification.requested = true;
    ctx.verification.verified = Some(outcome.met);
    ctx.verification.expect = Some(expect);
    if outcome.met {
        Ok(())
    } else {
        Err(ToolError::new(
            Code::ExpectationFailed,
            format!(
                "the action was done, but the expectation {} did not hold within {} ms",
                postcondition.described,
                outcome.waited.as_millis()
            ),
            "do not repeat the action: take a snapshot to see what happened instead",
        ))
    }
}

/// `readback`: a read-only expression evaluated after the expectation; its value goes
/// in `data.readback`. Failing is `READBACK_FAILED`, the action still completed.
pub(crate) async fn readback(
    ctx: &mut Ctx<'_>,
    tab: &Tab,
    expression: &str,
) -> Result<Value, ToolError> {
    ctx.stage("readback");
    let condition = Condition::Js {
        expression: expression.to_string(),
        matcher: Matcher::Truthy,
    };
    match tab.wait_for(&condition, Duration::ZERO, ctx.deadline).await {
        Ok(outcome) => Ok(outcome.actual),
        Err(err) => Err(ToolError::new(
            Code::ReadbackFailed,
            format!("readback failed after the action completed: {err}"),
            "the action was done; check the page with a snapshot",
        )),
    }
}
