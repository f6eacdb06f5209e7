//! `eval`: run JavaScript in the page (docs/observation.md#eval). Off unless the operator turned it on
//! (`enableEval = true` in the config file, or `CANDOR_ENABLE_EVAL=true` in the
//! environment of `candor mcp` / `candor serve`); always listed, so an agent learns that
//! it exists and how it is enabled. An expression gives its value; code that is not an
//! expression runs as a function body; it runs once, and an exception is `SCRIPT_ERROR`
//! with its class and message.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Annotations, PageGuard, Policy, ToolSpec};
use crate::ctx::Ctx;
use crate::error::{ActionStatus, Code, ToolError};
use crate::untrusted::PageValue;

const DEFAULT_MAX_CHARS: usize = 20_000;
const MAX_MAX_CHARS: usize = 200_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    /// An expression (promises awaited) or a function body (return).
    expression: String,
    /// Of the JSON value (default 20000).
    max_chars: Option<usize>,
    // No description: `tabId` is every tool's, said once in the MCP instructions.
    tab_id: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Output {
    /// The value as JSON; when truncated, the first maxChars characters of its JSON text.
    value: PageValue,
    /// typeof the value (null, array and node told apart).
    r#type: String,
    /// expression, or body when the code was not an expression (unknown if the page navigated first).
    ran_as: &'static str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// The `eval` tool.
pub struct Eval;

/// The refusal when eval is off; `what` is what needed it.
pub(crate) fn disabled(what: &str) -> ToolError {
    ToolError::new(
        Code::EvalDisabled,
        format!(
            "{what} runs JavaScript in the page, and eval is disabled; it is enabled by the operator with `enableEval = true` in the config file, or CANDOR_ENABLE_EVAL=true in the environment of `candor mcp` / `candor serve`"
        ),
        "read the page with browser_snapshot, browser_find or browser_form_state instead, or ask the operator to enable eval",
    )
}

impl ToolSpec for Eval {
    const NAME: &'static str = "eval";
    const POLICY: Policy = Policy::STEP;
    const PAGE_GUARD: PageGuard = PageGuard::Reads;
    const ANNOTATIONS: Annotations = Annotations {
        title: "Run JavaScript",
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: true,
    };
    const DESCRIPTION: &'static str = "Run JavaScript in the page; returns its value.";
    type Params = Params;
    type Output = Output;

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        if !ctx.options().enable_eval {
            return Err(disabled("eval"));
        }
        if params.expression.trim().is_empty() {
            return Err(ToolError::invalid_params("expression is empty"));
        }
        let max_chars = params.max_chars.unwrap_or(DEFAULT_MAX_CHARS);
        if max_chars == 0 || max_chars > MAX_MAX_CHARS {
            return Err(ToolError::invalid_params(format!(
                "maxChars must be between 1 and {MAX_MAX_CHARS}, not {max_chars}"
            )));
        }
        let deadline = ctx.deadline;
        let task = ctx.task().await?;
        let (tab_id, tab) = task.tab_or_open(params.tab_id.as_deref(), deadline).await?;
        if let Err(refused) = tab.check_loaded() {
            ctx.report_page(tab_id, &tab.state());
            return Err(refused.into());
        }
        ctx.stage("dispatch");
        // The code may change the page: from here on, something may have happened.
        ctx.dispatched();
        let navigations = tab.navigations();
        let evaluated = tab.evaluate(&params.expression, max_chars, deadline).await;
        ctx.events.navigated = tab.navigations() > navigations
            || matches!(evaluated, Ok(browser::Evaluated::Navigated));
        ctx.stage("read");
        let state = match tab.refresh_info(deadline).await {
            Ok(state) => state,
            Err(_) => tab.state(),
        };
        ctx.report_page(tab_id, &state);
        match evaluated? {
            browser::Evaluated::Value(value) => {
                let note = if value.js_type == "undefined" && value.as_body {
                    Some("the code is not an expression, so it ran as a function body, which returned nothing (undefined, shown as null); end it with `return …` to get a value".into())
                } else if value.js_type == "undefined" {
                    Some("the value was undefined, shown as null".into())
                } else if value.truncated {
                    Some(format!(
                        "the value's JSON is {} characters; value holds its first {max_chars} as text (raise maxChars or return less)",
                        value.chars
                    ))
                } else {
                    None
                };
                Ok(Output {
                    value: PageValue(value.value),
                    r#type: value.js_type,
                    ran_as: if value.as_body { "body" } else { "expression" },
                    truncated: value.truncated,
                    note,
                })
            }
            browser::Evaluated::Threw { class, message } => {
                Err(ToolError::from(browser::Error::Script { class, message }))
            }
            browser::Evaluated::Invalid { class, message } => {
                let mut error = ToolError::from(browser::Error::Script { class, message });
                error.message = format!(
                    "{}; it is valid JavaScript neither as an expression nor as a function body, so nothing ran",
                    error.message
                );
                error.hint = "fix the JavaScript and call again".into();
                error.action_status = Some(ActionStatus::NotStarted);
                Err(error)
            }
            browser::Evaluated::Navigated => Ok(Output {
                value: PageValue(Value::Null),
                r#type: "none".into(),
                ran_as: "unknown",
                truncated: false,
                note: Some("the code ran, and the page navigated away before it gave a value; events.navigated says so".into()),
            }),
            browser::Evaluated::Pending { after } => {
                let mut error = ToolError::new(
                    Code::CommandTimeout,
                    format!(
                        "the code's promise had not settled after {} ms; it may still be running in the page",
                        after.as_millis()
                    ),
                    "take a snapshot to see the page's state; await less in one call",
                );
                error.action_status = Some(ActionStatus::Unknown);
                Err(error)
            }
        }
    }
}
