//! `expect` and `readback` on acting commands (docs/acting.md#expectations): a postcondition checked
//! after the action, and a read-only expression evaluated after it. Shared by the tools
//! that act; not a tool itself.

use std::time::Duration;

use std::collections::BTreeMap;

use browser::{Condition, Matcher, Tab};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::condition::{Arity, ConditionParams, refuse_unknown};

use crate::ctx::Ctx;
use crate::error::{Code, ToolError};

const DEFAULT_TIMEOUT_MS: u64 = 5000;
const MAX_TIMEOUT_MS: u64 = 120_000;

/// A postcondition: one or more conditions, all required (text, url, urlMatches,
/// selector, js with one matcher), and how long to poll.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Expect {
    /// The conditions, all required.
    #[serde(flatten)]
    condition: ConditionParams,
    /// How long to poll: 0 checks once (default 5000, max 120000).
    timeout_ms: Option<u64>,
    /// Keys no field took: refused.
    #[serde(flatten)]
    #[schemars(skip)]
    rest: BTreeMap<String, Value>,
}

/// A checked expectation, ready to run once the action is done.
#[derive(Debug, Clone)]
pub(crate) struct Postcondition {
    conditions: Vec<Condition>,
    timeout: Duration,
    described: Value,
}

impl Expect {
    /// Refuses an empty or malformed expectation before anything is dispatched (the
    /// rules are [`ConditionParams::conditions`]').
    pub(crate) fn check(&self, eval_enabled: bool) -> Result<Postcondition, ToolError> {
        refuse_unknown("expect", &self.rest)?;
        let timeout_ms = self.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
        if timeout_ms > MAX_TIMEOUT_MS {
            return Err(ToolError::invalid_params(format!(
                "expect.timeoutMs must be 0..={MAX_TIMEOUT_MS}, not {timeout_ms}"
            )));
        }
        let conditions = self
            .condition
            .conditions("expect", Arity::AllOf, eval_enabled)?;
        let mut described = self.condition.described();
        if let Some(ms) = self.timeout_ms {
            described.insert("timeoutMs".into(), json!(ms));
        }
        Ok(Postcondition {
            conditions,
            timeout: Duration::from_millis(timeout_ms),
            described: Value::Object(described),
        })
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
    // Each condition in turn within the one timeout, then, when there are several, all
    // of them once more at the end: they must hold together. One condition's own wait
    // is its answer.
    let started = std::time::Instant::now();
    let mut last = None;
    for condition in &postcondition.conditions {
        let left = timeout.saturating_sub(started.elapsed());
        let outcome = tab.wait_for(condition, left, ctx.deadline).await?;
        let met = outcome.met;
        last = Some(outcome);
        if !met {
            break;
        }
    }
    let mut results = Vec::new();
    match (postcondition.conditions.as_slice(), last) {
        ([only], Some(outcome)) => results.push((only, outcome)),
        _ => {
            for condition in &postcondition.conditions {
                let outcome = tab
                    .wait_for(condition, Duration::ZERO, ctx.deadline)
                    .await?;
                results.push((condition, outcome));
            }
        }
    }
    let waited = started.elapsed();
    let met = results.iter().all(|(_, outcome)| outcome.met);
    let mut expect = postcondition.described.clone();
    if let Value::Object(map) = &mut expect {
        if let [(_, only)] = results.as_slice() {
            map.insert("actual".into(), only.actual.clone());
        } else {
            let each: Vec<Value> = results
                .iter()
                .map(|(condition, outcome)| {
                    json!({ "condition": condition.to_string(), "met": outcome.met, "actual": outcome.actual })
                })
                .collect();
            map.insert("conditions".into(), Value::Array(each));
        }
        map.insert("waitedMs".into(), json!(waited.as_millis() as u64));
    }
    ctx.verification.requested = true;
    ctx.verification.verified = Some(met);
    ctx.verification.expect = Some(expect);
    if met {
        Ok(())
    } else {
        let failed: Vec<String> = results
            .iter()
            .filter(|(_, outcome)| !outcome.met)
            .map(|(condition, _)| condition.to_string())
            .collect();
        Err(ToolError::new(
            Code::ExpectationFailed,
            format!(
                "the action was done, but {} did not hold within {} ms",
                failed.join(" and "),
                waited.as_millis()
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
        Err(err) => {
            // What the page threw stays in the data (page content, fenced).
            let cause = ToolError::from(err);
            let mut failed = ToolError::new(
                Code::ReadbackFailed,
                format!(
                    "readback failed after the action completed: {}",
                    cause.message
                ),
                "the action was done; check the page with a snapshot",
            );
            failed.data = cause.data;
            failed.untrusted = cause.untrusted;
            Err(failed)
        }
    }
}
