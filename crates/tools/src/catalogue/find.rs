//! `find`: search the whole page — not only what fitted a snapshot's budget — for text,
//! a role, or a role and name (docs/observation.md#find). Every match comes with a ref.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Annotations, Archived, PageGuard, Policy, ToolSpec};
use crate::ctx::Ctx;
use crate::error::ToolError;
use crate::untrusted::PageText;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    /// In a name or content, any case.
    text: Option<String>,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    role: Option<String>,
    /// With role: name contains, any case.
    name: Option<String>,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    limit: Option<usize>,
    // No description: `tabId` is every tool's, said once in the MCP instructions.
    tab_id: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Match {
    r#ref: String,
    role: String,
    name: PageText,
    text: PageText,
    path: Vec<PageText>,
    in_viewport: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Output {
    matches: Vec<Match>,
    /// Matches on the page, including those beyond `limit`.
    total: usize,
}

/// The `find` tool.
pub struct Find;

impl ToolSpec for Find {
    const NAME: &'static str = "find";
    const POLICY: Policy = Policy {
        archive: Archived::Data,
        ..Policy::PLAIN
    };
    const PAGE_GUARD: PageGuard = PageGuard::Reads;
    const ANNOTATIONS: Annotations = Annotations::reads("Find on the page");
    const DESCRIPTION: &'static str =
        "Search the whole page by text, role or role+name; matches have refs.";
    type Params = Params;
    type Output = Output;

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        if params.text.is_none() && params.role.is_none() {
            return Err(ToolError::new(
                crate::error::Code::EmptyCondition,
                "find needs text, role, or role and name",
                "call browser_find {text:\"…\"} or {role:\"button\", name:\"…\"}",
            ));
        }
        if params.name.is_some() && params.role.is_none() {
            return Err(ToolError::invalid_params(
                "name goes with role; use text to search names of any role",
            ));
        }
        let limit = params.limit.unwrap_or(20);
        if !(1..=200).contains(&limit) {
            return Err(ToolError::invalid_params(format!(
                "limit must be between 1 and 200, not {limit}"
            )));
        }
        let deadline = ctx.deadline;
        let task = ctx.task().await?;
        let (tab_id, tab) = task.tab_or_open(params.tab_id.as_deref(), deadline).await?;
        ctx.stage("read");
        let query = browser::FindQuery {
            text: params.text,
            role: params.role,
            name: params.name,
            limit,
        };
        let found = tab.find(&query, deadline).await;
        ctx.report_page(tab_id, &tab.state());
        let (found, total) = found?;
        Ok(Output {
            matches: found
                .into_iter()
                .map(|f| Match {
                    r#ref: f.r#ref,
                    role: f.role,
                    name: PageText(f.name),
                    text: PageText(f.text),
                    path: f.path.into_iter().map(PageText).collect(),
                    in_viewport: f.in_viewport,
                })
                .collect(),
            total,
        })
    }
}
