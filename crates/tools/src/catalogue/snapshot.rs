//! `snapshot`: read the page. This modes: `text` (visible text) and `html`,
//! each under a character budget (SPEC §8).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ToolSpec;
use crate::engine::Ctx;
use crate::error::{Code, ToolError};

const DEFAULT_MAX_CHARS: usize = 20_000;
const MAX_MAX_CHARS: usize = 2_000_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    /// text (visible text, default) or html.
    #[serde(default)]
    mode: Mode,
    /// Character budget (default 20000).
    #[schemars(range(min = 1, max = 2000000))]
    max_chars: Option<usize>,
    /// Tab to read (default: current).
    tab_id: Option<String>,
}

#[derive(Debug, Default, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Mode {
    #[default]
    Text,
    Html,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Output {
    mode: Mode,
    text: String,
    truncated: bool,
    /// Characters shown, and in the whole page.
    chars: usize,
    total_chars: usize,
}

pub(crate) struct Snapshot;

impl ToolSpec for Snapshot {
    const NAME: &'static str = "snapshot";
    const DESCRIPTION: &'static str =
        "Read the current page as visible text (mode text) or HTML (mode html), within maxChars.";
    type Params = Params;
    type Output = Output;

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        let max_chars = params.max_chars.unwrap_or(DEFAULT_MAX_CHARS);
        if max_chars == 0 || max_chars > MAX_MAX_CHARS {
            return Err(ToolError::invalid_params(format!(
                "maxChars must be between 1 and {MAX_MAX_CHARS}, not {max_chars}"
            )));
        }
        let deadline = ctx.deadline;
        let task = ctx.task().await?;
        let (tab_id, tab) = task.tab_or_open(params.tab_id.as_deref(), deadline).await?;
        let state = tab.state();
        if let Some(error_text) = &state.failed {
            ctx.report_page(tab_id, &state);
            return Err(ToolError::new(
                Code::PageLoadFailed,
                format!(
                    "{tab_id} shows an error page: loading {} failed with {error_text}",
                    state.url
                ),
                "navigate to a working URL, or reload once the server is up",
            )
            .with_data(serde_json::json!({ "url": state.url, "errorText": error_text })));
        }
        ctx.stage("read");
        let read = match params.mode {
            Mode::Text => tab.read_text(max_chars, deadline).await,
            Mode::Html => tab.read_html(max_chars, deadline).await,
        };
        let mut state = tab.state();
        if let Ok(read) = &read {
            state.url.clone_from(&read.url);
            state.title.clone_from(&read.title);
        }
        ctx.report_page(tab_id, &state);
        let read = read?;
        Ok(Output {
            mode: params.mode,
            chars: read.total_chars.min(max_chars),
            text: read.text,
            truncated: read.truncated,
            total_chars: read.total_chars,
        })
    }
}
