//! `viewport`: size a tab by device-metrics emulation and report the size the page really
//! lays out at (docs/observation.md#viewports).

use browser::Preset;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Annotations, InFlow, PageGuard, Policy, ToolSpec};
use crate::ctx::Ctx;
use crate::error::ToolError;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    /// Absent: read only. phone and tablet are touch.
    preset: Option<PresetName>,
    /// custom: CSS px.
    width: Option<u32>,
    /// custom: CSS px.
    height: Option<u32>,
    // No description: `tabId` is every tool's, said once in the MCP instructions.
    tab_id: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PresetName {
    Auto,
    Phone,
    Tablet,
    Desktop,
    Custom,
}

/// The preset named by the params of `viewport` and `screenshot`; a size goes with
/// `custom` only, and must be in range.
pub(super) fn preset(
    name: PresetName,
    width: Option<u32>,
    height: Option<u32>,
) -> Result<Preset, ToolError> {
    let preset = match (name, width, height) {
        (PresetName::Custom, Some(width), Some(height)) => {
            return Ok(Preset::custom(width, height)?);
        }
        (PresetName::Custom, _, _) => {
            return Err(ToolError::invalid_params(
                "preset custom needs width and height",
            ));
        }
        (_, None, None) => match name {
            PresetName::Auto => Preset::Auto,
            PresetName::Phone => Preset::Phone,
            PresetName::Tablet => Preset::Tablet,
            _ => Preset::Desktop,
        },
        _ => {
            return Err(ToolError::invalid_params(
                "width and height go with preset custom only",
            ));
        }
    };
    Ok(preset)
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Output {
    tab_id: String,
    preset: &'static str,
    /// The size asked for (absent for auto).
    #[serde(skip_serializing_if = "Option::is_none")]
    width: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    height: Option<u32>,
    /// What the page reports: innerWidth × innerHeight.
    page_width: u32,
    page_height: u32,
    /// The page laid out at the asked size (1 px tolerance).
    confirmed: bool,
    touch: bool,
    device_pixel_ratio: f64,
    /// The user agent string the tab sends.
    user_agent: String,
}

/// The `viewport` tool.
pub struct Viewport;

impl ToolSpec for Viewport {
    const NAME: &'static str = "viewport";
    // Without a preset it reads the size, which no replay needs.
    const POLICY: Policy = Policy {
        flow: InFlow::StepUnless(|params| params.get("preset").is_none_or(|p| p.is_null())),
        ..Policy::STEP
    };
    const PAGE_GUARD: PageGuard = PageGuard::Probe;
    const ANNOTATIONS: Annotations = Annotations {
        title: "Size the viewport",
        read_only: false,
        destructive: false,
        idempotent: true,
        open_world: false,
    };
    const DESCRIPTION: &'static str =
        "Set or read the viewport; says the size the page lays out at.";
    type Params = Params;
    type Output = Output;

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        let asked = match params.preset {
            Some(name) => Some(preset(name, params.width, params.height)?),
            None if params.width.is_some() || params.height.is_some() => {
                return Err(ToolError::invalid_params(
                    "width and height go with preset custom only",
                ));
            }
            None => None,
        };
        let deadline = ctx.deadline;
        let task = ctx.task().await?;
        let (tab_id, tab) = task.tab_or_open(params.tab_id.as_deref(), deadline).await?;
        let report = match asked {
            Some(preset) => {
                ctx.stage("dispatch");
                ctx.dispatched();
                tab.set_viewport(preset, deadline).await
            }
            // What the tab is set to and the size the page lays out at; nothing changes.
            None => {
                ctx.stage("read");
                tab.check_viewport(deadline).await
            }
        };
        ctx.report_page(tab_id, &tab.state());
        let report = report?;
        let preset = report.preset;
        let size = preset.size();
        Ok(Output {
            tab_id: tab_id.to_string(),
            preset: preset.name(),
            width: size.map(|(w, _)| w),
            height: size.map(|(_, h)| h),
            page_width: report.page_width,
            page_height: report.page_height,
            confirmed: report.confirmed,
            touch: preset.touch(),
            device_pixel_ratio: report.device_pixel_ratio,
            user_agent: report.user_agent,
        })
    }
}
