//! `logs`: what a tab's page logged, threw and fetched (docs/logs.md) — one line per
//! entry under the token budget, newest kept, with a cursor to read only what is newer;
//! one entry in full by `id` (headers redacted, a response body's excerpt); or the
//! task's requests written as HAR into its folder. Reads the log `browser` keeps from
//! events, so it never asks the page and works while the page does not answer.

use browser::{EntryId, Level, UrlPattern};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Annotations, Archived, PageGuard, Policy, ToolSpec};
use crate::ctx::{Ctx, page_origin};
use crate::error::{Code, ToolError};
use crate::logs::{Filter, Kind, StatusFilter, har};
use crate::untrusted::{PageText, PageValue};

/// Lines listed when the call names no limit (the budget may list fewer).
const DEFAULT_LIMIT: usize = 100;

// Described in as few words as a model needs: every tool's schema costs every turn
// (docs/logs.md says the rest).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    // Undescribed in the schema: its values say it (docs/logs.md#reading).
    #[serde(default)]
    kind: KindParam,
    /// Least shown.
    level: Option<LevelParam>,
    /// URL substring or * glob.
    url_matches: Option<String>,
    /// 404, 4xx, 400-499, failed.
    status: Option<String>,
    // Undescribed in the schema: the name says it (SELF_EVIDENT in catalogue/mod.rs).
    method: Option<String>,
    /// Cursor: only newer.
    since: Option<u64>,
    limit: Option<usize>,
    /// c12/x13/n14, in full.
    id: Option<String>,
    /// Write a HAR file.
    #[serde(default)]
    har: bool,
    // No description: `tabId` is every tool's, said once in the MCP instructions.
    tab_id: Option<String>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum KindParam {
    #[default]
    Console,
    Network,
    Errors,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum LevelParam {
    Debug,
    Info,
    Warning,
    Error,
}

impl From<LevelParam> for Level {
    fn from(level: LevelParam) -> Level {
        match level {
            LevelParam::Debug => Level::Debug,
            LevelParam::Info => Level::Info,
            LevelParam::Warning => Level::Warning,
            LevelParam::Error => Level::Error,
        }
    }
}

#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Output {
    /// One line per entry, oldest first.
    #[serde(skip_serializing_if = "Option::is_none")]
    entries: Option<PageText>,
    /// Entries the filters admit; those not listed are older.
    #[serde(skip_serializing_if = "Option::is_none")]
    matched: Option<usize>,
    /// Admitted entries left out, past the limit or the budget.
    #[serde(skip_serializing_if = "crate::schema::is_zero")]
    omitted: usize,
    /// Entries of this kind let go of to keep the log bounded (config logMaxEntries).
    #[serde(skip_serializing_if = "crate::schema::is_zero")]
    dropped: u64,
    /// Pass as `since` to read only what is newer.
    #[serde(skip_serializing_if = "Option::is_none")]
    cursor: Option<u64>,
    /// The entry asked for by `id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    entry: Option<PageValue>,
    /// The HAR written.
    #[serde(skip_serializing_if = "Option::is_none")]
    har: Option<HarWritten>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct HarWritten {
    path: String,
    entries: usize,
    bytes: usize,
}

/// The `logs` tool.
pub struct Logs;

impl ToolSpec for Logs {
    const NAME: &'static str = "logs";
    const POLICY: Policy = Policy {
        archive: Archived::Data,
        ..Policy::PLAIN
    };
    // The log is kept from events: reading it asks nothing of the page, so a page that
    // does not answer can still be read about.
    const PAGE_GUARD: PageGuard = PageGuard::Off;
    const ANNOTATIONS: Annotations = Annotations::reads("Read console and network logs");
    const DESCRIPTION: &'static str = "Console, exceptions, requests: a line each.";
    type Params = Params;
    type Output = Output;

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        let kind = match params.kind {
            KindParam::Console => Kind::Console,
            KindParam::Network => Kind::Network,
            KindParam::Errors => Kind::Errors,
        };
        let filter = filter(&params, kind)?;
        let max_tokens = ctx.options().defaults.snapshot_max_tokens;
        let limit = params.limit.unwrap_or(DEFAULT_LIMIT);
        if limit == 0 {
            return Err(ToolError::invalid_params("limit must be at least 1"));
        }
        let entry = params
            .id
            .as_deref()
            .map(|id| {
                EntryId::parse(id).ok_or_else(|| {
                    ToolError::invalid_params(format!(
                        "id {id:?} is no log entry's: they read c12 (console), x13 (exception), n14 (request)"
                    ))
                })
            })
            .transpose()?;
        if params.har && entry.is_some() {
            return Err(ToolError::invalid_params(
                "har writes every request of the task; leave id out",
            ));
        }
        let read_max_chars = ctx.options().defaults.read_max_chars;
        let deadline = ctx.deadline;
        let task = ctx.task().await?;
        if params.har {
            return write_har(task).map(|har| Output {
                har: Some(har),
                ..Output::default()
            });
        }
        let (tab_id, tab) = task.tab(params.tab_id.as_deref())?;
        let tab = tab.clone();
        let state = tab.state();
        ctx.report_page(tab_id, &state);
        let origin = page_origin(&state.url);
        if let Some(id) = entry {
            let Some((mut detail, request_id)) = tab.read_log(|log| {
                let request = match id {
                    EntryId::Network(seq) => log
                        .request(seq)
                        .filter(|e| e.state() == browser::RequestState::Finished)
                        .map(|e| e.request_id.clone()),
                    _ => None,
                };
                crate::logs::detail(log, id).map(|detail| (detail, request))
            }) else {
                return Err(ToolError::new(
                    Code::LogEntryNotFound,
                    format!(
                        "{tab_id}'s log holds no entry {id}: never given, or let go of to keep the log bounded"
                    ),
                    "call logs without id to list the entries it holds",
                ));
            };
            if let Some(request_id) = request_id {
                body_excerpt(&tab, &request_id, read_max_chars, deadline, &mut detail).await;
            }
            return Ok(Output {
                entry: Some(PageValue(detail)),
                ..Output::default()
            });
        }
        let listing = tab.read_log(|log| {
            crate::logs::list(log, kind, &filter, origin.as_deref(), limit, max_tokens)
        });
        Ok(Output {
            entries: (!listing.lines.is_empty()).then(|| PageText(listing.lines.join("\n"))),
            matched: Some(listing.matched),
            omitted: listing.omitted(),
            dropped: listing.dropped,
            cursor: Some(listing.cursor),
            ..Output::default()
        })
    }
}

/// The filters the params name, refused when they do not apply to `kind`.
fn filter(params: &Params, kind: Kind) -> Result<Filter, ToolError> {
    if kind != Kind::Console && params.level.is_some() {
        return Err(ToolError::invalid_params(
            "level filters console messages: use it with kind console",
        ));
    }
    if kind != Kind::Network && (params.status.is_some() || params.method.is_some()) {
        return Err(ToolError::invalid_params(
            "status and method filter requests: use them with kind network",
        ));
    }
    let level = params.level.map(Level::from);
    let status = params
        .status
        .as_deref()
        .map(StatusFilter::parse)
        .transpose()
        .map_err(ToolError::invalid_params)?;
    if params.url_matches.as_deref().is_some_and(|u| u.is_empty()) {
        return Err(ToolError::invalid_params(
            "urlMatches is empty; leave it out to list every URL",
        ));
    }
    Ok(Filter {
        level,
        url: params.url_matches.clone().map(UrlPattern::new),
        status,
        method: params.method.clone(),
        since: params.since.unwrap_or(0),
    })
}

/// Adds the first `max_chars` characters of request `request_id`'s response body to
/// `detail`, while the browser still keeps it; what could not be read is said.
async fn body_excerpt(
    tab: &browser::Tab,
    request_id: &str,
    max_chars: usize,
    deadline: browser::Deadline,
    detail: &mut serde_json::Value,
) {
    match tab.response_body(request_id, deadline).await {
        Ok((body, true)) => {
            detail["bodyBase64Chars"] = body.len().into();
        }
        Ok((body, false)) => {
            let total = body.chars().count();
            let excerpt: String = body.chars().take(max_chars).collect();
            detail["body"] = excerpt.into();
            if total > max_chars {
                detail["bodyChars"] = total.into();
                detail["bodyTruncated"] = true.into();
            }
        }
        Err(err) => {
            detail["bodyUnavailable"] = err.to_string().into();
        }
    }
}

/// Writes the task's requests, every tab's, as HAR into the task's folder (0600).
fn write_har(task: &browser::Task) -> Result<HarWritten, ToolError> {
    let tabs: Vec<browser::Tab> = task.tabs().map(|(_, tab)| tab.clone()).collect();
    let ids: Vec<String> = task.tabs().map(|(id, _)| id.to_string()).collect();
    let logs: Vec<Vec<browser::NetworkEntry>> = tabs
        .iter()
        .map(|tab| tab.read_log(|log| log.network().iter().cloned().collect()))
        .collect();
    let parts: Vec<har::TabRequests<'_>> = tabs
        .iter()
        .zip(&ids)
        .zip(&logs)
        .map(|((tab, id), requests)| har::TabRequests {
            tab_id: id.clone(),
            title: tab.state().title,
            requests: requests.iter().collect(),
        })
        .collect();
    let har = har::Har::of(&parts);
    let text = serde_json::to_string_pretty(&har)
        .map_err(|e| ToolError::invalid_params(format!("the HAR cannot be encoded: {e}")))?;
    let path = super::write_task_file(task, "network", "har", text.as_bytes())?;
    Ok(HarWritten {
        path: path.display().to_string(),
        entries: har.entries(),
        bytes: text.len(),
    })
}
