//! `act`: act on an element with trusted input (SPEC §6). This first form clicks by ref;
//! the result says what was dispatched and never claims more: without an expectation a
//! click is "dispatched, not verified".

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ToolSpec;
use crate::engine::Ctx;
use crate::error::ToolError;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    /// click.
    action: Action,
    /// The element's ref from snapshot or find, e.g. e4k2.
    r#ref: String,
    /// Refuse (STALE_SNAPSHOT) if the element changed since this snapshot.
    snapshot_id: Option<String>,
    /// Tab (default: current).
    tab_id: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Action {
    Click,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Output {
    action: &'static str,
    r#ref: String,
    role: String,
    name: String,
    /// The element the ref named was gone; a unique same-role, same-name element in the
    /// same container was clicked instead.
    relocated: bool,
    x: f64,
    y: f64,
    /// No navigation was still under way when the command returned.
    settled: bool,
}

pub(crate) struct Act;

impl ToolSpec for Act {
    const NAME: &'static str = "act";
    const DESCRIPTION: &'static str =
        "Act on an element by ref with trusted input (action: click).";
    type Params = Params;
    type Output = Output;

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        let Action::Click = params.action;
        if !browser::is_ref(&params.r#ref) {
            return Err(ToolError::invalid_params(format!(
                "{:?} is not a ref; refs look like e4k2 and come from browser_snapshot or browser_find",
                params.r#ref
            )));
        }
        let deadline = ctx.deadline;
        let task = ctx.task().await?;
        let (tab_id, tab) = task
            .tab(params.tab_id.as_deref())
            .map(|(id, tab)| (id, tab.clone()))?;
        ctx.stage("locate");
        let clicked = tab
            .click(&params.r#ref, params.snapshot_id.as_deref(), deadline)
            .await;
        // Locating fails before anything is sent; any other failure may have come after
        // some input reached the page.
        let refused = matches!(
            clicked,
            Err(browser::Error::StaleRef { .. }
                | browser::Error::StaleSnapshot { .. }
                | browser::Error::NotClickable { .. })
        );
        if !refused {
            ctx.dispatched();
        }

        ctx.stage("dispatch");
        let state = match tab.refresh_info(deadline).await {
            Ok(state) => state,
            Err(_) => tab.state(),
        };
        ctx.report_page(tab_id, &state);

        let clicked = clicked?;
        ctx.events.navigated = clicked.navigated;
        Ok(Output {
            action: "click",
            r#ref: params.r#ref,
            role: clicked.role,
            name: clicked.name,
            relocated: clicked.relocated,
            x: clicked.x,
            y: clicked.y,
            settled: clicked.settled,
        })
    }
}
