//! `dialog`: answer the JavaScript dialog a page is waiting on, under the `ask` dialog
//! policy (docs/acting.md#dialogs). Under the default policy dialogs are answered as they open and
//! recorded in `events.dialog`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Annotations, Noted, PageGuard, Policy, ToolSpec};
use crate::ctx::Ctx;
use crate::error::ToolError;
use crate::untrusted::PageText;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    /// false dismisses.
    accept: bool,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    prompt_text: Option<String>,
    // No description: `tabId` is every tool's, said once in the MCP instructions.
    tab_id: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Output {
    r#type: String,
    /// The page's words.
    message: PageText,
    answer: &'static str,
}

/// The `dialog` tool.
pub struct Dialog;

impl ToolSpec for Dialog {
    const NAME: &'static str = "dialog";
    const POLICY: Policy = Policy {
        noted: Noted::Dialog,
        ..Policy::STEP
    };
    const DESCRIPTION: &'static str = "Accept or dismiss the JavaScript dialog a page waits on.";
    const PAGE_GUARD: PageGuard = PageGuard::Off;
    const ANNOTATIONS: Annotations = Annotations {
        title: "Answer a dialog",
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: true,
    };
    type Params = Params;
    type Output = Output;

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        let deadline = ctx.deadline;
        let task = ctx.task().await?;
        let (tab_id, tab) = task
            .tab(params.tab_id.as_deref())
            .map(|(id, tab)| (id, tab.clone()))?;
        ctx.stage("dispatch");
        let answered = tab
            .answer_dialog(params.accept, params.prompt_text, deadline)
            .await;
        if answered.is_ok() {
            ctx.dispatched();
        }
        ctx.report_page(tab_id, &tab.state());
        let answered = answered?;
        Ok(Output {
            r#type: answered.kind,
            message: PageText(answered.message),
            answer: answered.answer,
        })
    }
}
