//! `diagnostics`: the last commands of this task and the browser's health, answered
//! from memory without touching the page (docs/waiting.md#diagnostics).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Annotations, PageGuard, Policy, ToolSpec};
use crate::command::ActiveCommand;
use crate::ctx::Ctx;
use crate::error::ToolError;
use crate::journal::CommandRecord;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    limit: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Output {
    task: String,
    /// The command that holds the task now, if another one does.
    active: Option<ActiveCommand>,
    /// Oldest first.
    last: Vec<CommandRecord>,
    /// The task's archive of observations, when it keeps one.
    #[serde(skip_serializing_if = "Option::is_none")]
    archive: Option<ArchiveOut>,
    /// Checkpoints held in memory, and older ones dropped past the limit.
    checkpoints: CheckpointsOut,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CheckpointsOut {
    held: usize,
    dropped: usize,
}

/// The archive's writer: observations queued, writes that failed (never the command's
/// failure), and the last reason.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ArchiveOut {
    /// Absent when no folder could be named or made for it (`lastFailure` says why).
    path: Option<String>,
    queued: u64,
    write_failures: u64,
    last_failure: Option<String>,
}

/// The `diagnostics` tool.
pub struct Diagnostics;

impl ToolSpec for Diagnostics {
    const NAME: &'static str = "diagnostics";
    const POLICY: Policy = Policy {
        during_handoff: true,
        ..Policy::PLAIN
    };
    const PAGE_GUARD: PageGuard = PageGuard::Off;
    const ANNOTATIONS: Annotations = Annotations {
        open_world: false,
        ..Annotations::reads("Diagnostics")
    };
    const DESCRIPTION: &'static str = "The running and recent commands of this task.";
    const USES_TASK: bool = false;
    type Params = Params;
    type Output = Output;

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        let limit = params.limit.unwrap_or(20);
        if !(1..=100).contains(&limit) {
            return Err(ToolError::invalid_params(format!(
                "limit must be between 1 and 100, not {limit}"
            )));
        }
        let all = ctx.journal();
        let skip = all.len().saturating_sub(limit);
        let checkpoints = {
            let held = ctx.checkpoints();
            CheckpointsOut {
                held: held.held(),
                dropped: held.dropped(),
            }
        };
        Ok(Output {
            checkpoints,
            task: ctx.options().task_id.clone(),
            active: ctx.active(),
            last: all.into_iter().skip(skip).collect(),
            archive: ctx.archive().map(|archive| {
                let health = archive.health();
                ArchiveOut {
                    path: health.path.map(|p| p.display().to_string()),
                    queued: health.queued,
                    write_failures: health.write_failures,
                    last_failure: health.last_failure,
                }
            }),
        })
    }
}
