//! `tabs`: list, open, select and close the task's tabs (docs/acting.md#tabs).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Annotations, InFlow, PageGuard, Policy, ToolSpec};
use crate::ctx::Ctx;
use crate::error::ToolError;
use crate::untrusted::PageText;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    /// Default list; wait_new: a late popup.
    #[serde(default)]
    action: Action,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    tab_id: Option<String>,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    tab_ids: Option<Vec<String>>,
    /// new: URL to open.
    url: Option<String>,
    /// wait_new: tab count before.
    baseline: Option<usize>,
    /// wait_new: default 5000.
    timeout_ms: Option<u64>,
}

#[derive(Debug, Default, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Action {
    #[default]
    List,
    New,
    Select,
    Close,
    #[serde(rename = "wait_new")]
    WaitNew,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TabLine {
    id: String,
    title: PageText,
    url: PageText,
    loading: bool,
    failed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error_text: Option<String>,
    unverified: bool,
    crashed: bool,
    /// The page did not answer its last probe.
    unresponsive: bool,
    active: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Output {
    #[serde(skip_serializing_if = "Option::is_none")]
    tab_id: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    closed: Vec<String>,
    /// Of the closed tabs, those whose page was not answering when they were closed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    closed_unresponsive: Vec<String>,
    /// close: the tabs that could not be closed, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    not_closed: Vec<NotClosed>,
    /// Why the new tab's page is not loaded, when it is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    tabs: Vec<TabLine>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NotClosed {
    tab_id: String,
    code: crate::error::Code,
    reason: String,
}

/// The `tabs` tool.
pub struct Tabs;

impl ToolSpec for Tabs {
    const NAME: &'static str = "tabs";
    // A tab list is a read.
    const POLICY: Policy = Policy {
        flow: InFlow::StepUnless(|params| params["action"].as_str().is_none_or(|a| a == "list")),
        ..Policy::STEP
    };
    const DESCRIPTION: &'static str = "List, open, select or close tabs.";
    const PAGE_GUARD: PageGuard = PageGuard::Own;
    const ANNOTATIONS: Annotations = Annotations {
        title: "Tabs",
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
        let mut output = Output {
            tab_id: None,
            closed: Vec::new(),
            closed_unresponsive: Vec::new(),
            not_closed: Vec::new(),
            reason: None,
            tabs: Vec::new(),
        };
        let mut report = None;
        let mut unfinished = None;
        let mut not_closed = Vec::new();
        match params.action {
            Action::List => {}
            Action::New => {
                let url = params
                    .url
                    .as_deref()
                    .map(|u| task.check_url(u))
                    .transpose()?;
                let (id, tab) = task.open_tab(deadline).await?;
                if let Some(url) = url {
                    let outcome = tab.navigate(&url, deadline).await?;
                    unfinished = Some((url.to_string(), outcome));
                }
                output.tab_id = Some(id.to_string());
                report = Some((id, tab.refresh_info(deadline).await?));
            }
            Action::Select => {
                let id = params
                    .tab_id
                    .as_deref()
                    .ok_or_else(|| ToolError::invalid_params("select needs tabId"))?;
                let (id, tab) = task.select(id)?;
                output.tab_id = Some(id.to_string());
                report = Some((id, tab.state()));
            }
            Action::WaitNew => {
                let baseline = params.baseline.ok_or_else(|| {
                    ToolError::invalid_params("wait_new needs baseline: the tab count before")
                })?;
                let timeout = std::time::Duration::from_millis(
                    params.timeout_ms.unwrap_or(5000).clamp(1, 120_000),
                );
                let limit = deadline.within(timeout);
                // Pages opened meanwhile become tabs; wait until there are more than
                // `baseline`, or the time is up.
                while task.list().len() <= baseline {
                    let adopted = task.adopt_new_tabs(true, limit).await?;
                    if adopted.is_empty() && limit.expired() {
                        break;
                    }
                }
                let count = task.list().len();
                if count <= baseline {
                    return Err(ToolError::new(
                        crate::error::Code::PopupNotOpened,
                        format!(
                            "no new tab opened within {} ms (still {count} tabs)",
                            timeout.as_millis()
                        ),
                        "check browser_tabs; the action that should open it may need doing again only if it never ran",
                    ));
                }
                let (id, tab) = task.tab(None).map(|(id, tab)| (id, tab.clone()))?;
                let newest = task.list().last().map(|t| t.id).unwrap_or(id);
                output.tab_id = Some(newest.to_string());
                report = Some((id, tab.state()));
            }
            Action::Close => {
                let ids = match (params.tab_ids, params.tab_id) {
                    (Some(ids), None) => ids,
                    (None, Some(id)) => vec![id],
                    (None, None) => {
                        let (id, _) = task.tab(None)?;
                        vec![id.to_string()]
                    }
                    (Some(_), Some(_)) => {
                        return Err(ToolError::invalid_params("give tabId or tabIds, not both"));
                    }
                };
                // A tab whose page does not answer closes all the same (the browser
                // ends its renderer); the output says it was not answering.
                for id in &ids {
                    if let Ok((id, tab)) = task.tab(Some(id))
                        && tab.state().unresponsive
                    {
                        output.closed_unresponsive.push(id.to_string());
                    }
                }
                let done = task.close_tabs(&ids, deadline).await?;
                output.closed = done.closed.iter().map(ToString::to_string).collect();
                not_closed = done.failed;
            }
        }
        output.tabs = task
            .list()
            .into_iter()
            .map(|summary| TabLine {
                id: summary.id.to_string(),
                title: PageText(summary.state.title.clone()),
                url: PageText(summary.state.url.clone()),
                loading: summary.state.loading,
                failed: summary.state.failed.is_some(),
                error_text: summary.state.failed.clone(),
                unverified: summary.state.unverified,
                crashed: summary.state.crashed,
                unresponsive: summary.state.unresponsive,
                active: summary.active,
            })
            .collect();
        if report.is_none()
            && let Ok((id, tab)) = task.tab(None)
        {
            report = Some((id, tab.state()));
        }
        if let Some((id, state)) = report {
            ctx.report_page(id, &state);
        }
        if let Some((url, outcome)) = unfinished {
            output.reason = super::navigate::report_unfinished(ctx, &url, &outcome);
        }
        // Some closed, some not: partial, naming each that stays open and why.
        if let Some((first, _)) = not_closed.first() {
            let first = first.to_string();
            let reasons: Vec<(String, ToolError)> = not_closed
                .into_iter()
                .map(|(id, err)| (id.to_string(), ToolError::from(err)))
                .collect();
            output.not_closed = reasons
                .iter()
                .map(|(id, err)| NotClosed {
                    tab_id: id.clone(),
                    code: err.code,
                    reason: err.message.clone(),
                })
                .collect();
            let (_, err) = &reasons[0];
            ctx.partial(ToolError::new(
                err.code,
                format!(
                    "closed {}; {first} and {} more stayed open: {}",
                    output.closed.join(", "),
                    reasons.len() - 1,
                    err.message
                ),
                "browser_tabs {action:\"list\"} shows what is open; close those again",
            ));
        }
        Ok(output)
    }
}
