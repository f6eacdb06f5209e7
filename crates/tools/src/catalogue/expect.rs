//! `expect` and `readback` on acting commands (docs/acting.md#expectations): a postcondition checked
//! after the action, and a read-only expression evaluated after it. Shared by the tools
//! that act; not a tool itself. Besides conditions on the page, an expectation may hold
//! the command to what its page logged and fetched (docs/logs.md#expect): no console
//! error or exception, a request that succeeded — read from the tab's log, never the page.

use std::time::Duration;

use std::collections::BTreeMap;

use browser::{Condition, EntryId, Matcher, Tab, UrlPattern};
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
    /// No exception or console error in the page during the command (true only).
    no_console_errors: Option<bool>,
    /// A request whose URL holds this (glob with *) answered <400 during the command.
    request_succeeded: Option<String>,
    /// Keys no field took: refused.
    #[serde(flatten)]
    #[schemars(skip)]
    rest: BTreeMap<String, Value>,
}

/// A checked expectation, ready to run once the action is done.
#[derive(Debug, Clone)]
pub(crate) struct Postcondition {
    conditions: Vec<Condition>,
    logged: Vec<Logged>,
    timeout: Duration,
    described: Value,
}

/// A condition on what the command's page logged and fetched.
#[derive(Debug, Clone)]
enum Logged {
    NoConsoleErrors,
    RequestSucceeded(UrlPattern),
}

impl std::fmt::Display for Logged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Logged::NoConsoleErrors => write!(f, "no console error"),
            Logged::RequestSucceeded(pattern) => {
                write!(f, "a request matching {:?} succeeding", pattern.as_str())
            }
        }
    }
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
        let mut logged = Vec::new();
        match self.no_console_errors {
            Some(true) => logged.push(Logged::NoConsoleErrors),
            Some(false) => {
                return Err(ToolError::invalid_params(
                    "expect.noConsoleErrors takes true only; leave it out otherwise",
                ));
            }
            None => {}
        }
        if let Some(glob) = &self.request_succeeded {
            if glob.trim().is_empty() || glob.chars().all(|c| c == '*') {
                return Err(ToolError::new(
                    Code::EmptyCondition,
                    format!("expect.requestSucceeded {glob:?} matches any request"),
                    "name the request: part of its URL, or a glob such as */api/save",
                ));
            }
            logged.push(Logged::RequestSucceeded(UrlPattern::new(glob.clone())));
        }
        let conditions = if logged.is_empty() || !self.condition.names_none() {
            self.condition
                .conditions("expect", Arity::AllOf, eval_enabled)?
        } else {
            Vec::new()
        };
        let mut described = self.condition.described();
        if self.no_console_errors.is_some() {
            described.insert("noConsoleErrors".into(), json!(true));
        }
        if let Some(glob) = &self.request_succeeded {
            described.insert("requestSucceeded".into(), json!(glob));
        }
        if let Some(ms) = self.timeout_ms {
            described.insert("timeoutMs".into(), json!(ms));
        }
        Ok(Postcondition {
            conditions,
            logged,
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
    // (what, met, evidence) of each condition.
    let mut results: Vec<(String, bool, Value)> = Vec::new();
    match (postcondition.conditions.as_slice(), last) {
        ([only], Some(outcome)) => results.push((only.to_string(), outcome.met, outcome.actual)),
        _ => {
            for condition in &postcondition.conditions {
                let outcome = tab
                    .wait_for(condition, Duration::ZERO, ctx.deadline)
                    .await?;
                results.push((condition.to_string(), outcome.met, outcome.actual));
            }
        }
    }
    if !postcondition.logged.is_empty() {
        let since = ctx.log_mark(tab);
        if postcondition
            .logged
            .iter()
            .any(|c| matches!(c, Logged::RequestSucceeded(_)))
        {
            // The command's requests are waited for to end, within the timeout left.
            let left = timeout.saturating_sub(started.elapsed());
            tab.requests_answered(since, left, ctx.deadline).await;
        }
        for condition in &postcondition.logged {
            let (met, actual) = tab.read_log(|log| logged_outcome(log, condition, since));
            results.push((condition.to_string(), met, actual));
        }
    }
    let waited = started.elapsed();
    let met = results.iter().all(|(_, met, _)| *met);
    let mut expect = postcondition.described.clone();
    if let Value::Object(map) = &mut expect {
        if let [(_, _, only)] = results.as_slice() {
            map.insert("actual".into(), only.clone());
        } else {
            let each: Vec<Value> = results
                .iter()
                .map(|(condition, met, actual)| {
                    json!({ "condition": condition, "met": met, "actual": actual })
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
        let failed: Vec<&str> = results
            .iter()
            .filter(|(_, met, _)| !met)
            .map(|(condition, _, _)| condition.as_str())
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

/// Whether a condition on the log holds for what happened after `since`, and the
/// evidence: the errors met, or the matching requests, a line each.
fn logged_outcome(log: &browser::TabLog, condition: &Logged, since: u64) -> (bool, Value) {
    const EVIDENCE: usize = 5;
    match condition {
        Logged::NoConsoleErrors => {
            let mut seen = std::collections::HashSet::new();
            let errors: Vec<String> = log
                .problems_since(since)
                .filter(|p| !matches!(p.entry, EntryId::Network(_)))
                .filter(|p| seen.insert(p.entry))
                .filter_map(|p| match p.entry {
                    EntryId::Console(seq) => log.console_entry(seq).map(|e| e.line(200)),
                    EntryId::Exception(seq) => log.exception(seq).map(|e| e.line(200)),
                    EntryId::Network(_) => None,
                })
                .take(EVIDENCE)
                .collect();
            (errors.is_empty(), json!(errors))
        }
        Logged::RequestSucceeded(pattern) => {
            let matching: Vec<&browser::NetworkEntry> = log
                .network()
                .iter()
                .filter(|e| e.seq > since && pattern.matches(&e.url))
                .collect();
            let met = matching.iter().any(|e| e.succeeded());
            let lines: Vec<String> = matching
                .iter()
                .rev()
                .take(EVIDENCE)
                .map(|e| e.line(None, 200))
                .collect();
            (met, json!(lines))
        }
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
