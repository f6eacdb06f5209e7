//! `recall`: page back through the task's archive (docs/faces.md#archive) — list its observations,
//! read one by characters, or search them (FTS5). Never touches the browser, so it
//! answers while the browser is down or being replaced.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Annotations, PageGuard, Policy, ToolSpec};
use crate::archive::{self, ArchiveError, Bundle};
use crate::ctx::Ctx;
use crate::error::{Code, ToolError};
use crate::untrusted::PageText;

const DEFAULT_CHARS: usize = 4_000;
const MAX_CHARS: usize = 12_000;
const DEFAULT_LISTED: usize = 20;
const MAX_LISTED: usize = 100;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    /// The one mode, and the default: the list, newest first (not in the schema: a
    /// choice of one says nothing).
    #[schemars(skip)]
    mode: Option<RecallMode>,
    /// Read one (snapshot or command id).
    observation_id: Option<String>,
    /// Search: all words.
    query: Option<String>,
    /// Chars or items to skip.
    offset: Option<usize>,
    /// Chars (default 4000) or items (default 20).
    limit: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum RecallMode {
    Bundles,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum Output {
    Window(Window),
    List(List),
}

/// One observation's text, `offset` to `offset + chars`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Window {
    #[serde(flatten)]
    observation: Listed,
    offset: usize,
    text: PageText,
    /// Where the next window starts; null at the end.
    next_offset: Option<usize>,
}

/// Observations listed (newest first) or found (best first).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct List {
    observations: Vec<Listed>,
    /// bundles: observations in the archive.
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<usize>,
    /// bundles: the offset of the next page; null at the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_offset: Option<Option<usize>>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Listed {
    id: String,
    command_id: String,
    tab_id: String,
    url: PageText,
    title: PageText,
    /// Milliseconds since the Unix epoch.
    time: u64,
    mode: String,
    /// Characters of the observation's text.
    chars: usize,
    /// search: the passage that matched, hits in [ ].
    #[serde(skip_serializing_if = "Option::is_none")]
    excerpt: Option<PageText>,
}

impl From<Bundle> for Listed {
    fn from(bundle: Bundle) -> Self {
        Listed {
            id: bundle.id,
            command_id: bundle.command_id,
            tab_id: bundle.tab,
            url: PageText(bundle.url),
            title: PageText(bundle.title),
            time: bundle.time,
            mode: bundle.mode,
            chars: bundle.chars,
            excerpt: bundle.excerpt.map(PageText),
        }
    }
}

/// The `recall` tool.
pub struct Recall;

impl ToolSpec for Recall {
    const NAME: &'static str = "recall";
    const POLICY: Policy = Policy::PLAIN;
    const PAGE_GUARD: PageGuard = PageGuard::Off;
    const ANNOTATIONS: Annotations = Annotations {
        open_world: false,
        ..Annotations::reads("Recall observations")
    };
    const DESCRIPTION: &'static str =
        "This task's earlier observations: list, read one, or search.";
    const USES_TASK: bool = false;
    type Params = Params;
    type Output = Output;

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        let asked = [
            params.mode.is_some(),
            params.observation_id.is_some(),
            params.query.is_some(),
        ];
        if asked.iter().filter(|a| **a).count() > 1 {
            return Err(ToolError::invalid_params(
                "recall takes one of mode, observationId or query",
            ));
        }
        let offset = params.offset.unwrap_or(0);
        let Some(archive) = ctx.archive() else {
            return Err(ToolError::new(
                Code::ObservationNotFound,
                "this task keeps no archive",
                "archiving is off for this engine; take a snapshot instead",
            ));
        };
        if let Some(id) = params.observation_id {
            let limit = params.limit.unwrap_or(DEFAULT_CHARS);
            check_limit(limit, MAX_CHARS)?;
            let wanted = id.clone();
            let found = archive
                .read(move |c| archive::get(c, &wanted))
                .await
                .map_err(unreadable)?;
            let Some((bundle, text)) = found else {
                return Err(ToolError::new(
                    Code::ObservationNotFound,
                    format!("the archive holds no observation {id:?}"),
                    "list the observations with recall {mode:\"bundles\"}, or search them with query",
                ));
            };
            let total = bundle.chars;
            let text: String = text.chars().skip(offset).take(limit).collect();
            let end = offset.saturating_add(limit);
            return Ok(Output::Window(Window {
                observation: bundle.into(),
                offset,
                text: PageText(text),
                next_offset: (end < total).then_some(end),
            }));
        }
        if let Some(query) = params.query {
            let limit = params.limit.unwrap_or(DEFAULT_LISTED);
            check_limit(limit, MAX_LISTED)?;
            if query.split_whitespace().next().is_none() {
                return Err(ToolError::invalid_params("query has no words"));
            }
            let found = archive
                .read(move |c| archive::search(c, &query, limit))
                .await
                .map_err(unreadable)?;
            return Ok(Output::List(List {
                observations: found.into_iter().map(Listed::from).collect(),
                total: None,
                next_offset: None,
            }));
        }
        let limit = params.limit.unwrap_or(DEFAULT_LISTED);
        check_limit(limit, MAX_LISTED)?;
        let (listed, total) = archive
            .read(move |c| archive::list(c, offset, limit))
            .await
            .map_err(unreadable)?;
        let end = offset.saturating_add(listed.len());
        Ok(Output::List(List {
            observations: listed.into_iter().map(Listed::from).collect(),
            total: Some(total),
            next_offset: Some((end < total).then_some(end)),
        }))
    }
}

fn check_limit(limit: usize, max: usize) -> Result<(), ToolError> {
    if (1..=max).contains(&limit) {
        Ok(())
    } else {
        Err(ToolError::invalid_params(format!(
            "limit must be between 1 and {max} here, not {limit}"
        )))
    }
}

fn unreadable(error: ArchiveError) -> ToolError {
    ToolError::new(
        Code::ObservationNotFound,
        error.to_string(),
        "browser_diagnostics shows the archive's health",
    )
}
