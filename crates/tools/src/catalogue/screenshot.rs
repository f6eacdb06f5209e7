//! `screenshot`: the visible viewport or one element, as an image Chromium scales down so
//! no side exceeds `maxWidth` (docs/observation.md#screenshots). Refused, rather than photographed, when the tab
//! shows an error page or the page cannot be asked. The image travels beside the
//! envelope (an MCP image block), never inside `data`.

use browser::{CaptureTarget, ImageFormat, ScreenshotOptions};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::viewport::{PresetName, preset};
use super::{Annotations, PageGuard, Policy, ToolSpec};
use crate::ctx::Ctx;
use crate::envelope::Image;
use crate::error::ToolError;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    /// Set first, as browser_viewport.
    preset: Option<PresetName>,
    /// custom: CSS px.
    width: Option<u32>,
    /// custom: CSS px.
    height: Option<u32>,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    selector: Option<String>,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    r#ref: Option<String>,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    #[serde(default)]
    format: Format,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    quality: Option<u8>,
    /// Max side px (default {screenshotMaxWidth}).
    max_width: Option<u32>,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    #[serde(default)]
    scale: Scale,
    /// Label refs on the image.
    #[serde(default)]
    marks: bool,
    // No description: `tabId` is every tool's, said once in the MCP instructions.
    tab_id: Option<String>,
}

// Image pixels per CSS pixel (the default) or per device pixel.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Scale {
    #[default]
    Css,
    Device,
}

#[derive(Debug, Default, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Format {
    #[default]
    Png,
    Jpeg,
    Webp,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Output {
    tab_id: String,
    format: Format,
    /// Delivered pixels.
    width: u32,
    height: u32,
    /// The size the page lays out at (CSS pixels).
    page_width: u32,
    page_height: u32,
    /// Image pixels per CSS pixel.
    scale: f64,
    preset: &'static str,
    confirmed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    selector: Option<String>,
    /// Only the part of the element inside the viewport is shown.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    clipped: bool,
    /// marks: each label drawn on the image, and its element.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    marks: Vec<MarkLine>,
}

/// One label of a marked screenshot.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct MarkLine {
    label: String,
    r#ref: String,
    role: String,
    name: crate::untrusted::PageText,
}

const MAX_WIDTHS: std::ops::RangeInclusive<u32> = crate::defaults::SCREENSHOT_MAX_WIDTH;

/// The `screenshot` tool.
pub struct Screenshot;

impl ToolSpec for Screenshot {
    const NAME: &'static str = "screenshot";
    const POLICY: Policy = Policy::PLAIN;
    const PAGE_GUARD: PageGuard = PageGuard::Reads;
    const ANNOTATIONS: Annotations = Annotations::reads("Screenshot");
    const DESCRIPTION: &'static str = "Capture the viewport, or one element, as an image.";
    type Params = Params;
    type Output = Output;

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        let preset = params
            .preset
            .map(|name| preset(name, params.width, params.height))
            .transpose()?;
        if preset.is_none() && (params.width.is_some() || params.height.is_some()) {
            return Err(ToolError::invalid_params(
                "width and height go with preset custom",
            ));
        }
        let max_side = params
            .max_width
            .unwrap_or(ctx.options().defaults.screenshot_max_width);
        if !MAX_WIDTHS.contains(&max_side) {
            return Err(ToolError::invalid_params(format!(
                "maxWidth must be {}–{}, not {max_side}",
                MAX_WIDTHS.start(),
                MAX_WIDTHS.end()
            )));
        }
        if params.quality.is_some_and(|q| q > 100) {
            return Err(ToolError::invalid_params("quality must be 0–100"));
        }
        let format = match params.format {
            Format::Png => ImageFormat::Png,
            Format::Jpeg => ImageFormat::Jpeg,
            Format::Webp => ImageFormat::Webp,
        };
        if params.quality.is_some() && format == ImageFormat::Png {
            return Err(ToolError::invalid_params(
                "quality goes with format jpeg or webp",
            ));
        }
        let target = match (&params.selector, &params.r#ref) {
            (Some(_), Some(_)) => {
                return Err(ToolError::invalid_params("give selector or ref, not both"));
            }
            (Some(selector), None) => CaptureTarget::Selector(selector.clone()),
            (None, Some(r)) if browser::is_ref(r) => {
                CaptureTarget::Element(browser::Locator::Ref {
                    r#ref: r.clone(),
                    snapshot_id: None,
                })
            }
            (None, Some(r)) => {
                return Err(ToolError::invalid_params(format!("{r:?} is not a ref")));
            }
            (None, None) => CaptureTarget::Viewport,
        };
        if params.marks && !matches!(target, CaptureTarget::Viewport) {
            return Err(ToolError::invalid_params(
                "marks label the viewport's refs: give no selector or ref",
            ));
        }
        let options = ScreenshotOptions {
            target,
            format,
            quality: params.quality,
            max_side,
            device_pixels: params.scale == Scale::Device,
        };
        let deadline = ctx.deadline;
        let task = ctx.task().await?;
        let (tab_id, tab) = task.tab_or_open(params.tab_id.as_deref(), deadline).await?;
        let state = tab.state();
        ctx.report_page(tab_id, &state);
        // Refused before the viewport changes: nothing is done to an error page.
        tab.check_loaded()?;
        let mut confirmed = None;
        if let Some(preset) = preset {
            ctx.stage("dispatch");
            ctx.dispatched();
            confirmed = Some(tab.set_viewport(preset, deadline).await?.confirmed);
        }
        ctx.stage("capture");
        let mut marks = if params.marks {
            let marks = tab.marks(deadline).await?;
            tab.draw_marks(&marks, deadline).await?;
            marks
        } else {
            Vec::new()
        };
        let shot = tab.screenshot(&options, deadline).await;
        // The overlay goes whatever the capture did. Labels are claimed only when it was
        // still in the page after the capture: one the page took out drew nothing.
        if params.marks {
            match tab.clear_marks(deadline).await {
                Ok(true) => {}
                Ok(false) => {
                    tracing::debug!("the page removed the marks' overlay");
                    marks.clear();
                }
                Err(err) => {
                    tracing::debug!(%err, "the marks' overlay could not be removed");
                    marks.clear();
                }
            }
        }
        ctx.report_page(tab_id, &tab.state());
        let shot = shot?;
        ctx.attach_image(Image {
            data: shot.data,
            mime_type: shot.format.mime_type(),
        });
        Ok(Output {
            tab_id: tab_id.to_string(),
            format: params.format,
            width: shot.width,
            height: shot.height,
            page_width: shot.page_width,
            page_height: shot.page_height,
            scale: (shot.scale * 10_000.0).round() / 10_000.0,
            preset: shot.preset.name(),
            confirmed: confirmed.unwrap_or(true) && shot.confirmed,
            selector: params.selector,
            clipped: shot.clipped,
            marks: marks
                .into_iter()
                .map(|m| MarkLine {
                    label: m.label,
                    r#ref: m.r#ref,
                    role: m.role,
                    name: crate::untrusted::PageText(m.name),
                })
                .collect(),
        })
    }
}
