//! `pdf`: the page printed to PDF (docs/observation.md#pdf) into the task's folder —
//! paper, orientation, backgrounds and which pages as asked — answering the file's path,
//! its pages and bytes. Refused, rather than printed, when the tab shows an error page.

use browser::{Paper, PdfOptions};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Annotations, PageGuard, Policy, ToolSpec};
use crate::ctx::Ctx;
use crate::error::ToolError;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    #[serde(default)]
    paper: PaperName,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    #[serde(default)]
    landscape: bool,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    #[serde(default)]
    background: bool,
    /// e.g. 1-3,5
    pages: Option<String>,
    // No description: `tabId` is every tool's, said once in the MCP instructions.
    tab_id: Option<String>,
}

#[derive(Debug, Default, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum PaperName {
    #[default]
    Letter,
    A4,
    Legal,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Output {
    tab_id: String,
    /// The PDF, in the task's folder.
    path: String,
    pages: usize,
    bytes: usize,
}

/// The `pdf` tool.
pub struct Pdf;

impl ToolSpec for Pdf {
    const NAME: &'static str = "pdf";
    const POLICY: Policy = Policy::PLAIN;
    const PAGE_GUARD: PageGuard = PageGuard::Reads;
    const ANNOTATIONS: Annotations = Annotations::reads("Print to PDF");
    const DESCRIPTION: &'static str = "Print the page to a PDF file.";
    type Params = Params;
    type Output = Output;

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        if let Some(pages) = &params.pages
            && !browser::valid_page_ranges(pages)
        {
            return Err(ToolError::invalid_params(format!(
                "pages {pages:?} is not a list of pages and ranges from 1, such as 1-3,5"
            )));
        }
        let options = PdfOptions {
            paper: match params.paper {
                PaperName::Letter => Paper::Letter,
                PaperName::A4 => Paper::A4,
                PaperName::Legal => Paper::Legal,
            },
            landscape: params.landscape,
            background: params.background,
            pages: params.pages,
        };
        let deadline = ctx.deadline;
        let task = ctx.task().await?;
        let (tab_id, tab) = task.tab_or_open(params.tab_id.as_deref(), deadline).await?;
        ctx.report_page(tab_id, &tab.state());
        ctx.stage("capture");
        let pages = options.pages.clone();
        let pdf = tab.pdf(&options, deadline).await.map_err(|err| match err {
            // The browser's own word for a range past the document's last page.
            browser::Error::Protocol { ref message, .. } if message.contains("Page range") => {
                ToolError::invalid_params(format!(
                    "pages {:?}: {message}",
                    pages.unwrap_or_default()
                ))
            }
            err => ToolError::from(err),
        })?;
        let task = ctx.task().await?;
        let path = super::write_task_file(task, "page", "pdf", &pdf.data)?;
        Ok(Output {
            tab_id: tab_id.to_string(),
            path: path.display().to_string(),
            pages: pdf.pages,
            bytes: pdf.data.len(),
        })
    }
}
