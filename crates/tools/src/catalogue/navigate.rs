//! `navigate`: open a URL, or go back, forward, or reload (docs/acting.md#navigation).

use browser::HistoryMove;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Annotations, InFlow, Noted, PageGuard, Policy, Problems, ToolSpec};
use crate::ctx::Ctx;
use crate::error::{Code, ToolError};
use crate::untrusted::PageText;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    /// http(s) or about:blank.
    url: Option<String>,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    #[serde(default)]
    back: bool,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    #[serde(default)]
    forward: bool,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    #[serde(default)]
    reload: bool,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    #[serde(default)]
    ignore_cache: bool,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    #[serde(default)]
    new_tab: bool,
    // No description: `tabId` is every tool's, said once in the MCP instructions.
    tab_id: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Output {
    tab_id: String,
    url: PageText,
    title: PageText,
    /// The load event fired within the deadline.
    loaded: bool,
    same_document: bool,
    waited_ms: u64,
    /// What was done to get an unresponsive tab going first, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    recovered: Option<&'static str>,
    /// Why `loaded` is false, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

/// The `navigate` tool.
pub struct Navigate;

enum Move {
    To(String),
    History(HistoryMove),
    Reload,
}

impl Params {
    fn movement(&self) -> Result<Move, ToolError> {
        let chosen = [self.url.is_some(), self.back, self.forward, self.reload];
        if chosen.iter().filter(|c| **c).count() != 1 {
            return Err(ToolError::invalid_params(
                "navigate takes exactly one of url, back, forward, reload",
            ));
        }
        if self.new_tab && self.url.is_none() {
            return Err(ToolError::invalid_params("newTab needs a url"));
        }
        if self.ignore_cache && !self.reload {
            return Err(ToolError::invalid_params("ignoreCache goes with reload"));
        }
        Ok(match &self.url {
            Some(url) => Move::To(url.clone()),
            None if self.back => Move::History(HistoryMove::Back),
            None if self.forward => Move::History(HistoryMove::Forward),
            None => Move::Reload,
        })
    }
}

impl ToolSpec for Navigate {
    const NAME: &'static str = "navigate";
    const POLICY: Policy = Policy {
        flow: InFlow::Navigation,
        noted: Noted::Navigation,
        problems: Problems::Said,
        ..Policy::STEP
    };
    const DESCRIPTION: &'static str = "Open a URL, or go back/forward/reload; waits for the load.";
    const PAGE_GUARD: PageGuard = PageGuard::Own;
    const ANNOTATIONS: Annotations = Annotations {
        title: "Navigate",
        read_only: false,
        destructive: false,
        idempotent: true,
        open_world: true,
    };
    type Params = Params;
    type Output = Output;

    /// The load; the page (tab, URL, title) is the envelope's, said when it changed.
    fn brief(data: &mut serde_json::Map<String, serde_json::Value>) {
        super::omit(data, &["tabId", "url", "title"], &[]);
    }

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        let movement = params.movement()?;
        let deadline = ctx.deadline;
        let task = ctx.task().await?;
        let url = match &movement {
            Move::To(url) => Some(task.check_url(url)?),
            _ => None,
        };
        let (tab_id, tab) = if params.new_tab {
            task.open_tab(deadline).await?
        } else {
            task.tab_or_open(params.tab_id.as_deref(), deadline).await?
        };
        let recovered = if params.new_tab {
            None
        } else {
            recover(ctx, &tab, deadline).await?
        };
        ctx.stage("dispatch");
        ctx.dispatched();
        let target = match (&movement, &url) {
            (_, Some(url)) => url.to_string(),
            _ => tab.state().url,
        };
        let outcome = match (movement, url) {
            (Move::To(_), Some(url)) => tab.navigate(&url, deadline).await,
            (Move::History(step), _) => tab.go(step, deadline).await,
            _ => tab.reload(params.ignore_cache, deadline).await,
        };
        ctx.stage("load");
        ctx.events.navigated = outcome.is_ok();
        let state = match tab.refresh_info(deadline).await {
            Ok(state) => state,
            Err(_) => tab.state(),
        };
        ctx.report_page(tab_id, &state);
        let outcome = outcome?;
        let reason = report_unfinished(ctx, &target, &outcome);
        Ok(Output {
            tab_id: tab_id.to_string(),
            url: PageText(state.url),
            title: PageText(state.title),
            loaded: outcome.loaded,
            same_document: outcome.same_document,
            waited_ms: outcome.waited.as_millis() as u64,
            recovered: recovered.map(browser::Recovery::describe),
            reason,
        })
    }
}

/// Gets the tab going first when its page does not answer (found so before, or by a
/// probe now): its hung renderer is stopped, so the navigation runs in a fresh one.
/// Returns what was done; a tab that cannot be recovered is `PAGE_UNRESPONSIVE`.
pub(super) async fn recover(
    ctx: &mut Ctx<'_>,
    tab: &browser::Tab,
    deadline: browser::Deadline,
) -> Result<Option<browser::Recovery>, ToolError> {
    let state = tab.state();
    if state.crashed || state.closed {
        return Ok(None);
    }
    let unresponsive = state.unresponsive
        || matches!(
            tab.probe(ctx.options().unresponsive, deadline).await,
            Err(browser::Error::PageUnresponsive { .. })
        );
    if !unresponsive {
        return Ok(None);
    }
    ctx.stage("recover");
    ctx.dispatched();
    Ok(Some(tab.recover(deadline).await?))
}

/// A navigation that committed but did not finish loading makes the command `partial`
/// (code and reason); returns the reason for the output.
pub(super) fn report_unfinished(
    ctx: &mut Ctx<'_>,
    url: &str,
    outcome: &browser::LoadOutcome,
) -> Option<String> {
    let waited = outcome.waited.as_millis();
    let (code, reason, hint) = match outcome.unfinished? {
        browser::Unfinished::Deadline => (
            Code::NavigationTimeout,
            format!("its load event did not fire within {waited} ms; the page is still loading"),
            "read what has loaded (browser_snapshot), or browser_wait for what you need",
        ),
        browser::Unfinished::Unresponsive => (
            Code::PageUnresponsive,
            format!(
                "the page stopped answering while it loaded ({waited} ms): its script never returns"
            ),
            "navigate elsewhere or reload: either recovers the tab",
        ),
    };
    ctx.partial(ToolError::new(
        code,
        format!("the navigation to {url} committed, but {reason}"),
        hint,
    ));
    Some(reason)
}
