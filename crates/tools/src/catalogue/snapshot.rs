//! `snapshot`: read the page (docs/observation.md#modes). `elements` (default): the pruned
//! accessibility tree with refs within a token budget; `text`, `html`, `markdown`:
//! within a character budget.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Annotations, Archived, PageGuard, Policy, ToolSpec};
use crate::ctx::Ctx;
use crate::error::ToolError;
use crate::untrusted::{PageText, PageValue};
use serde_json::Value;

const MAX_MAX_CHARS: usize = *crate::defaults::READ_MAX_CHARS.end();
const MAX_MAX_TOKENS: usize = *crate::defaults::SNAPSHOT_MAX_TOKENS.end();
/// A text or html read of a page this long or shorter costs little to make again, so it
/// may go out with the settle check (`Tab::settle_then_read`).
const CHEAP_CHARS: usize = 50_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    /// data: JSON-LD, microdata, meta.
    #[serde(default)]
    mode: Mode,
    /// elements: budget (default {snapshotMaxTokens}).
    max_tokens: Option<usize>,
    /// text/markdown/html: budget (default {readMaxChars}).
    max_chars: Option<usize>,
    /// elements: only lines changed since the last.
    #[serde(default)]
    diff: bool,
    /// Max ms to settle first (default {settleMs}).
    settle_ms: Option<u64>,
    // No description: `tabId` is every tool's, said once in the MCP instructions.
    tab_id: Option<String>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Mode {
    #[default]
    Elements,
    Text,
    Markdown,
    Html,
    // The page's structured data: JSON-LD, microdata, meta (OpenGraph…).
    Data,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Output {
    mode: Mode,
    #[serde(skip_serializing_if = "Option::is_none")]
    snapshot_id: Option<String>,
    text: PageText,
    truncated: bool,
    /// elements: estimated tokens of `text`.
    #[serde(skip_serializing_if = "Option::is_none")]
    tokens: Option<usize>,
    /// text/markdown/html: characters shown, and in the whole page.
    #[serde(skip_serializing_if = "Option::is_none")]
    chars: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_chars: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    viewport: Option<Viewport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scroll: Option<Scroll>,
    #[serde(skip_serializing_if = "Option::is_none")]
    elements_shown: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    elements_omitted: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    refs: Option<usize>,
    /// elements with diff: the snapshot `text` is a diff against.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff_against: Option<String>,
    /// The page was still changing when it was read (an animation, a transition).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    settling: bool,
    /// How long the read waited for the page to stop changing.
    #[serde(skip_serializing_if = "Option::is_none")]
    settle_ms: Option<u64>,
    /// With `settling`: what was still changing.
    #[serde(skip_serializing_if = "Option::is_none")]
    still_changing: Option<String>,
    /// elements: what of the page and its scroll containers has been in view.
    #[serde(skip_serializing_if = "Option::is_none")]
    coverage: Option<CoverageOut>,
    /// elements: each list, table or scroll container whose items were not all listed
    /// (absent when every item was).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    lists: Vec<ListOut>,
    /// data: each item with its source and type, as the page states it.
    #[serde(skip_serializing_if = "Option::is_none")]
    structured: Option<Vec<Structured>>,
    /// elements: why this snapshot could not be kept as a checkpoint.
    #[serde(skip_serializing_if = "Option::is_none")]
    checkpoint_error: Option<String>,
}

/// A list whose items the budget did not all list.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListOut {
    /// Its ref, when it has one (a scroll container always does).
    #[serde(skip_serializing_if = "Option::is_none")]
    r#ref: Option<String>,
    role: String,
    /// Items listed in the text, of `total`.
    listed: usize,
    total: usize,
}

/// One piece of structured data.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Structured {
    /// `json-ld #2`, `microdata`, `meta`.
    source: String,
    /// The schema type (`Product`), the meta key (`og:title`); absent when unstated.
    #[serde(skip_serializing_if = "Option::is_none")]
    r#type: Option<PageText>,
    /// The item: a JSON-LD block's value, a microdata item's properties, a meta content.
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<PageValue>,
    /// Why a JSON-LD block could not be read (the rest are unaffected).
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// Coverage (docs/observation.md#coverage): what of the page, and of each scroll container, has been in view
/// in the current revision of its content.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CoverageOut {
    page: CoverOut,
    containers: Vec<ContainerCover>,
    note: &'static str,
}

/// Seen and unseen vertical ranges `[top, bottom]` in CSS px (a container's in its
/// content's coordinates).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CoverOut {
    seen: Vec<[f64; 2]>,
    unseen: Vec<[f64; 2]>,
    fraction: f64,
    height: f64,
    at_end: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ContainerCover {
    r#ref: String,
    #[serde(flatten)]
    cover: CoverOut,
}

impl CoverOut {
    pub(crate) fn of(cover: &browser::Cover) -> CoverOut {
        let px = |ranges: &[(f64, f64)]| {
            ranges
                .iter()
                .map(|&(a, b)| [a.round(), b.round()])
                .collect()
        };
        CoverOut {
            seen: px(&cover.seen),
            unseen: px(&cover.unseen),
            fraction: (cover.fraction * 1000.0).round() / 1000.0,
            height: cover.height.round(),
            at_end: cover.at_end,
        }
    }
}

impl CoverageOut {
    pub(crate) fn of(coverage: &browser::Coverage) -> CoverageOut {
        CoverageOut {
            page: CoverOut::of(&coverage.page),
            containers: coverage
                .containers
                .iter()
                .map(|(r#ref, cover)| ContainerCover {
                    r#ref: r#ref.clone(),
                    cover: CoverOut::of(cover),
                })
                .collect(),
            note: browser::COVERAGE_NOTE,
        }
    }
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Viewport {
    width: f64,
    height: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Scroll {
    x: f64,
    y: f64,
    page_width: f64,
    page_height: f64,
}

impl Output {
    fn chars(
        mode: Mode,
        text: String,
        truncated: bool,
        total_chars: usize,
        max_chars: usize,
    ) -> Self {
        Output {
            mode,
            snapshot_id: None,
            text: PageText(text),
            truncated,
            tokens: None,
            chars: Some(total_chars.min(max_chars)),
            total_chars: Some(total_chars),
            viewport: None,
            scroll: None,
            elements_shown: None,
            elements_omitted: None,
            refs: None,
            diff_against: None,
            settling: false,
            settle_ms: None,
            still_changing: None,
            coverage: None,
            lists: Vec::new(),
            structured: None,
            checkpoint_error: None,
        }
    }
}

/// The answer of an element snapshot, and the tab's state it shows.
fn elements(
    ctx: &mut Ctx<'_>,
    tab: &browser::Tab,
    mut snap: browser::ElementSnapshot,
) -> (browser::PageState, Option<String>, Output) {
    let checkpoint_error = super::checkpoint::keep(ctx, snap.checkpoint.take());
    let mut state = tab.state();
    state.title = snap.title.clone();
    let id = snap.id.clone();
    let output = Output {
        mode: Mode::Elements,
        snapshot_id: Some(snap.id),
        text: PageText(snap.text),
        truncated: snap.truncated,
        tokens: Some(snap.tokens),
        chars: None,
        total_chars: None,
        viewport: Some(Viewport {
            width: snap.viewport.width,
            height: snap.viewport.height,
        }),
        scroll: Some(Scroll {
            x: snap.viewport.scroll_x,
            y: snap.viewport.scroll_y,
            page_width: snap.viewport.page_width,
            page_height: snap.viewport.page_height,
        }),
        elements_shown: Some(snap.elements_shown),
        elements_omitted: Some(snap.elements_omitted),
        refs: Some(snap.refs_shown),
        diff_against: snap.diff_against,
        settling: false,
        settle_ms: None,
        still_changing: None,
        coverage: Some(CoverageOut::of(&snap.coverage)),
        lists: snap
            .lists
            .into_iter()
            .map(|l| ListOut {
                r#ref: l.r#ref,
                role: l.role,
                listed: l.listed,
                total: l.total,
            })
            .collect(),
        structured: None,
        checkpoint_error,
    };
    (state, Some(id), output)
}

/// The page's structured data as items, JSON-LD first.
fn structured(data: browser::StructuredData) -> Vec<Structured> {
    let mut items = Vec::new();
    for block in data.json_ld {
        let kind = block.kind();
        let (value, error) = match block.result {
            Ok(value) => (Some(PageValue(value)), None),
            Err(reason) => (None, Some(format!("not valid JSON: {reason}"))),
        };
        items.push(Structured {
            source: format!("json-ld #{}", block.index),
            r#type: kind.map(PageText),
            value,
            error,
        });
    }
    for item in data.microdata {
        items.push(Structured {
            source: "microdata".into(),
            r#type: item
                .get("type")
                .and_then(Value::as_str)
                .map(|t| PageText(t.to_string())),
            value: Some(PageValue(
                item.get("properties").cloned().unwrap_or_default(),
            )),
            error: None,
        });
    }
    for meta in data.meta {
        items.push(Structured {
            source: "meta".into(),
            r#type: Some(PageText(meta.key)),
            value: Some(PageValue(Value::String(meta.content))),
            error: None,
        });
    }
    items
}

/// `2 JSON-LD blocks (1 not valid), 1 microdata item, 7 meta`: the data itself is in
/// `structured`.
fn summarise(items: &[Structured]) -> String {
    let count = |source: &str| {
        items
            .iter()
            .filter(|i| i.source.starts_with(source))
            .count()
    };
    let broken = items.iter().filter(|i| i.error.is_some()).count();
    format!(
        "{} JSON-LD blocks{}, {} microdata items, {} meta (in structured)",
        count("json-ld"),
        if broken > 0 {
            format!(" ({broken} not valid)")
        } else {
            String::new()
        },
        count("microdata"),
        count("meta"),
    )
}

/// The `snapshot` tool.
pub struct Snapshot;

impl ToolSpec for Snapshot {
    const NAME: &'static str = "snapshot";
    const POLICY: Policy = Policy {
        archive: Archived::Read,
        ..Policy::PLAIN
    };
    const PAGE_GUARD: PageGuard = PageGuard::Reads;
    const ANNOTATIONS: Annotations = Annotations::reads("Read the page");
    const DESCRIPTION: &'static str = "Read the page as elements (a tree with [refs], viewport first), text, markdown, html or data.";
    type Params = Params;
    type Output = Output;

    /// The text and its id, and what was cut; the sizes, the geometry and the coverage
    /// are said by the text's own `# coverage` line, or only in `structuredContent`.
    fn brief(data: &mut serde_json::Map<String, serde_json::Value>) {
        use serde_json::Value;
        super::omit(
            data,
            &[
                "mode",
                "tokens",
                "chars",
                "viewport", // not a tool name
                "scroll",
                "elementsShown",
                "refs",
                "settleMs",
                "coverage",
            ],
            &[
                ("truncated", Value::Bool(false)),
                ("elementsOmitted", Value::from(0)),
            ],
        );
        if !data.contains_key("truncated") {
            data.remove("totalChars");
        }
    }

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        let max_chars = params
            .max_chars
            .unwrap_or(ctx.options().defaults.read_max_chars);
        if max_chars == 0 || max_chars > MAX_MAX_CHARS {
            return Err(ToolError::invalid_params(format!(
                "maxChars must be between 1 and {MAX_MAX_CHARS}, not {max_chars}"
            )));
        }
        let max_tokens = params
            .max_tokens
            .unwrap_or(ctx.options().defaults.snapshot_max_tokens);
        if !crate::defaults::SNAPSHOT_MAX_TOKENS.contains(&max_tokens) {
            return Err(ToolError::invalid_params(format!(
                "maxTokens must be between 100 and {MAX_MAX_TOKENS}, not {max_tokens}"
            )));
        }
        if params.diff && params.mode != Mode::Elements {
            return Err(ToolError::invalid_params("diff goes with mode elements"));
        }
        let deadline = ctx.deadline;
        let default_settle = ctx.options().defaults.settle;
        let task = ctx.task().await?;
        let (tab_id, tab) = task.tab_or_open(params.tab_id.as_deref(), deadline).await?;
        if let Err(refused) = tab.check_loaded() {
            ctx.report_page(tab_id, &tab.state());
            return Err(refused.into());
        }
        // A page mid-transition is waited out (within its budget) rather than shown half
        // drawn; if it does not stop, the result says so.
        ctx.stage("settle");
        let budget = params
            .settle_ms
            .map_or(default_settle, std::time::Duration::from_millis);
        // Text, html and elements are pure reads, which may go out with the settle check
        // (`Tab::settle_then_read`); markdown and data are read after it.
        let speculative = matches!(params.mode, Mode::Text | Mode::Html | Mode::Elements);
        let settled = if budget.is_zero() || speculative {
            None
        } else {
            tab.wait_settled(budget, deadline).await.ok()
        };
        ctx.stage("read");
        // The reminder that the archive holds what this tab showed before (not on a diff,
        // which is only the change), when it tells something (`Archive::reminder`).
        let url_before = tab.state().url;
        let earlier = ctx
            .archive()
            .filter(|_| params.mode == Mode::Elements && !params.diff)
            .and_then(|archive| archive.reminder(&tab_id.to_string(), &url_before));
        let reminder = match earlier {
            Some(1) => "# earlier: 1 observation — browser_recall\n".to_string(),
            Some(earlier) => format!("# earlier: {earlier} observations — browser_recall\n"),
            None => String::new(),
        };
        let options = browser::SnapshotOptions {
            // The reminder line comes out of the same budget.
            max_tokens: max_tokens.saturating_sub(browser::estimate_tokens(&reminder)),
            diff: params.diff,
            checkpoint: true,
        };
        let (settled, result) = match params.mode {
            Mode::Text | Mode::Html => {
                let (settled, read) = tab
                    .settle_then_read(
                        budget,
                        deadline,
                        || async {
                            if params.mode == Mode::Text {
                                tab.read_text(max_chars, deadline).await
                            } else {
                                tab.read_html(max_chars, deadline).await
                            }
                        },
                        |read| read.total_chars <= CHEAP_CHARS,
                    )
                    .await;
                let read = read.map(|read| {
                    let mut state = tab.state();
                    state.url.clone_from(&read.url);
                    state.title.clone_from(&read.title);
                    let output = Output::chars(
                        params.mode,
                        read.text,
                        read.truncated,
                        read.total_chars,
                        max_chars,
                    );
                    (state, None, output)
                });
                (settled, read)
            }
            Mode::Markdown => (
                settled,
                tab.markdown(max_chars, deadline).await.map(|md| {
                    let mut state = tab.state();
                    state.title = md.title;
                    let id = md.id.clone();
                    let mut output = Output::chars(
                        Mode::Markdown,
                        md.text,
                        md.truncated,
                        md.total_chars,
                        max_chars,
                    );
                    output.snapshot_id = Some(md.id);
                    (state, Some(id), output)
                }),
            ),
            Mode::Data => (
                settled,
                tab.structured_data(deadline).await.map(|data| {
                    let items = structured(data);
                    let summary = summarise(&items);
                    let mut output = Output::chars(Mode::Data, summary, false, 0, max_chars);
                    output.chars = None;
                    output.total_chars = None;
                    output.structured = Some(items);
                    (tab.state(), None, output)
                }),
            ),
            Mode::Elements => {
                let (settled, reading) = tab
                    .settle_then_read(
                        budget,
                        deadline,
                        || tab.read_for_snapshot(&options, deadline),
                        browser::SnapshotReading::is_small,
                    )
                    .await;
                let snapshot = reading.map(|reading| tab.snapshot_of(reading, &options));
                (settled, snapshot.map(|snap| elements(ctx, &tab, snap)))
            }
        };
        match result {
            Ok((state, snapshot_id, mut output)) => {
                if let Some(settled) = settled {
                    output.settling = !settled.quiet;
                    output.settle_ms = Some(settled.waited.as_millis() as u64).filter(|ms| *ms > 0);
                    output.still_changing = settled.region;
                }
                if output.mode == Mode::Elements && !reminder.is_empty() {
                    if let Some(archive) = ctx.archive() {
                        archive.reminded(&tab_id.to_string(), &url_before);
                    }
                    output.text.0.push_str(&reminder);
                    output.tokens = output
                        .tokens
                        .map(|t| t + browser::estimate_tokens(&reminder));
                }
                ctx.report_page(tab_id, &state);
                if let Some(page) = ctx.page.as_mut() {
                    page.snapshot_id = snapshot_id;
                }
                Ok(output)
            }
            Err(err) => {
                ctx.report_page(tab_id, &tab.state());
                Err(err.into())
            }
        }
    }
}
