//! `flow`: the task's flow (docs/faces.md#flows) — its successful commands with the identities and
//! postconditions they verified, secrets as variables — read from the engine's flow log
//! without touching the page. Running a flow is the batch runner's (`flow.rs`), not a
//! tool's: a tool runs inside one command.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Annotations, PageGuard, Policy, ToolSpec};
use crate::ctx::Ctx;
use crate::error::ToolError;
use crate::untrusted::PageValue;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    action: FlowAction,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum FlowAction {
    Export,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Output {
    /// The flow file (flow.schema.json); names and URLs in it are the page's.
    flow: PageValue,
    steps: usize,
    /// Variables a run must be given (--var NAME=…).
    variables: Vec<String>,
}

/// The `flow` tool.
pub struct Flow;

impl ToolSpec for Flow {
    const NAME: &'static str = "flow";
    const POLICY: Policy = Policy::PLAIN;
    const PAGE_GUARD: PageGuard = PageGuard::Off;
    const ANNOTATIONS: Annotations = Annotations {
        open_world: false,
        ..Annotations::reads("Export the flow")
    };
    const DESCRIPTION: &'static str = "Export this task's successful steps as a replayable flow.";
    const USES_TASK: bool = false;
    type Params = Params;
    type Output = Output;

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        let FlowAction::Export = params.action;
        let flow = ctx.export_flow();
        Ok(Output {
            steps: flow.steps.len(),
            variables: flow.variables.keys().cloned().collect(),
            flow: PageValue(serde_json::to_value(&flow).map_err(|e| {
                ToolError::invalid_params(format!("the flow cannot be encoded: {e}"))
            })?),
        })
    }
}
