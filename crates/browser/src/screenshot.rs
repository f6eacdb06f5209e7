//! Screenshots (docs/observation.md#screenshots): the visible viewport or one element, refused on an error page
//! or a page that cannot be asked, and downscaled by Chromium itself.
//!
//! Chromium renders the capture rectangle at `clip.scale` × the device pixel ratio, so
//! asking for the scale that fits `max_side` gives the small image directly: no decoding
//! or resizing here. A tab is captured through its own session, so a background tab is
//! photographed without being brought to the front.

use cdp::Deadline;
use cdp::protocol::page;
use serde_json::{Value, json};

use crate::viewport::{Preset, css_pixels};
use crate::{Error, Tab};

/// What `capture_rect.js` answers: the page's size and pixel ratio, and either the
/// rectangle to capture or the problem with the selector.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Geometry {
    page_width: f64,
    page_height: f64,
    dpr: f64,
    zoom: f64,
    #[serde(flatten)]
    found: Found,
}

#[derive(Debug, serde::Deserialize)]
#[serde(untagged)]
enum Found {
    Rect { rect: CssRect, clipped: bool },
    Problem(Problem),
}

#[derive(Debug, serde::Deserialize)]
#[serde(tag = "problem", rename_all = "lowercase")]
enum Problem {
    Invalid { reason: String },
    None,
    Ambiguous { matched: usize },
    Invisible,
}

/// The default bound of the delivered image's longest side, in pixels.
pub const DEFAULT_MAX_SIDE: u32 = 1568;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ImageFormat {
    #[default]
    Png,
    Jpeg,
    Webp,
}

impl ImageFormat {
    pub fn name(self) -> &'static str {
        match self {
            ImageFormat::Png => "png",
            ImageFormat::Jpeg => "jpeg",
            ImageFormat::Webp => "webp",
        }
    }

    pub fn mime_type(self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
            ImageFormat::Webp => "image/webp",
        }
    }
}

/// What to capture.
#[derive(Debug, Clone, Default)]
pub enum CaptureTarget {
    /// What the visual viewport shows.
    #[default]
    Viewport,
    /// The one element a CSS selector matches (in the main frame), as far as it is inside
    /// the viewport.
    Selector(String),
    /// The element a locator names (ref, role and name, …), in the main frame.
    Element(crate::Locator),
}

#[derive(Debug, Clone)]
pub struct ScreenshotOptions {
    pub target: CaptureTarget,
    pub format: ImageFormat,
    /// 0–100, for jpeg and webp.
    pub quality: Option<u8>,
    /// No side of the delivered image exceeds this many pixels.
    pub max_side: u32,
    /// An image pixel per device pixel (a phone's 3 per CSS pixel) rather than per CSS
    /// pixel (the default): about the square of the pixel ratio times the image tokens.
    pub device_pixels: bool,
}

impl Default for ScreenshotOptions {
    fn default() -> Self {
        Self {
            target: CaptureTarget::Viewport,
            format: ImageFormat::Png,
            quality: None,
            max_side: DEFAULT_MAX_SIDE,
            device_pixels: false,
        }
    }
}

/// A rectangle in document CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize)]
pub struct CssRect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// A captured image and what it shows.
#[derive(Debug, Clone)]
pub struct Screenshot {
    /// The image, base64-encoded as Chromium sent it.
    pub data: String,
    pub format: ImageFormat,
    /// Delivered pixels.
    pub width: u32,
    pub height: u32,
    /// The size the page lays out at (`innerWidth`/`innerHeight`, CSS pixels).
    pub page_width: u32,
    pub page_height: u32,
    /// Image pixels per CSS pixel: divide image coordinates by it for page coordinates.
    pub scale: f64,
    pub device_pixel_ratio: f64,
    pub preset: Preset,
    /// The page lays out at the preset's size (see [`crate::ViewportReport`]).
    pub confirmed: bool,
    /// What was captured, in document CSS pixels.
    pub rect: CssRect,
    /// Only part of the element was inside the viewport; the image shows that part.
    pub clipped: bool,
}

impl Tab {
    /// Captures the viewport or one element. Refused, before anything is captured, when
    /// the tab shows an error page (`PageLoadFailed`) or the page does not answer
    /// (`PageUnverified`).
    pub async fn screenshot(
        &self,
        options: &ScreenshotOptions,
        deadline: Deadline,
    ) -> Result<Screenshot, Error> {
        self.check_usable()?;
        let state = self.state();
        if let Some(error_text) = state.failed {
            return Err(Error::PageLoadFailed {
                tab: self.label().to_string(),
                url: state.url,
                error_text,
            });
        }
        if options.quality.is_some() && options.format == ImageFormat::Png {
            return Err(Error::InvalidParams {
                what: "quality".into(),
                reason: "quality applies to jpeg and webp only".into(),
            });
        }
        let preset = self.viewport();
        let geometry = match &options.target {
            CaptureTarget::Viewport => {
                self.call_script(&CAPTURE_RECT, vec![Value::Null], deadline)
                    .await
            }
            CaptureTarget::Selector(selector) => {
                self.call_script(&CAPTURE_RECT, vec![json!(selector)], deadline)
                    .await
            }
            CaptureTarget::Element(locator) => {
                let located = self.locate(locator, deadline).await?;
                if located.session.id() != self.session().id() {
                    return Err(Error::InvalidParams {
                        what: locator.to_string(),
                        reason:
                            "it is inside an out-of-process frame; capture the viewport instead"
                                .into(),
                    });
                }
                let geometry = self
                    .call_on_node(
                        &located.session,
                        located.backend_id,
                        &CAPTURE_RECT,
                        vec![Value::Null],
                        deadline,
                    )
                    .await?;
                if matches!(geometry.found, Found::Problem(_)) {
                    return Err(Error::ElementNotVisible {
                        locator: locator.to_string(),
                        reason: "it has no size or lies outside the viewport".into(),
                    });
                }
                Ok(geometry)
            }
        };
        let want = self.expected_size(preset, deadline).await;
        let geometry = geometry?;
        let (rect, clipped) = match geometry.found {
            Found::Rect { rect, clipped } => (rect, clipped),
            Found::Problem(problem) => {
                let selector = match &options.target {
                    CaptureTarget::Selector(selector) => selector.as_str(),
                    _ => "",
                };
                return Err(selector_problem(selector, problem));
            }
        };
        let page_width = css_pixels(geometry.page_width);
        let page_height = css_pixels(geometry.page_height);
        let device_pixel_ratio = positive(geometry.dpr);
        let zoom = positive(geometry.zoom);
        let natural = if options.device_pixels {
            device_pixel_ratio * zoom
        } else {
            zoom
        };
        let fit = Fit::new(rect, natural, options.max_side);
        let captured = self
            .session()
            .call(
                &page::CaptureScreenshot {
                    format: Some(options.format.name().into()),
                    quality: options.quality,
                    clip: Some(page::Viewport {
                        x: rect.x,
                        y: rect.y,
                        width: rect.width,
                        height: rect.height,
                        scale: fit.scale / device_pixel_ratio,
                    }),
                    from_surface: Some(true),
                    capture_beyond_viewport: Some(false),
                    optimize_for_speed: Some(true),
                },
                deadline,
            )
            .await?;
        let near =
            |size: u32, want: &Value| want.as_u64().is_none_or(|w| size.abs_diff(w as u32) <= 1);
        let confirmed = want.is_ok_and(|want| {
            !want.is_null()
                && near(page_width, &want["width"])
                && near(page_height, &want["height"])
        });
        // The size told is the delivered image's own, read from its header: Chromium's
        // rounding of the scaled rectangle can differ from ours by a pixel.
        let (width, height) = delivered_size(&captured.data).unwrap_or((fit.width, fit.height));
        Ok(Screenshot {
            data: captured.data,
            format: options.format,
            width,
            height,
            page_width,
            page_height,
            scale: fit.scale,
            device_pixel_ratio,
            preset,
            confirmed,
            rect,
            clipped,
        })
    }
}

/// How a rectangle of CSS pixels becomes an image: at the page's own pixel density
/// (`natural` image pixels per CSS pixel), scaled down only as far as needed for no side
/// to exceed `max_side`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Fit {
    /// Image pixels per CSS pixel.
    scale: f64,
    width: u32,
    height: u32,
}

impl Fit {
    fn new(rect: CssRect, natural: f64, max_side: u32) -> Fit {
        let max_side = f64::from(max_side.max(1));
        let longest = rect.width.max(rect.height).max(1.0);
        let scale = natural.min(max_side / longest);
        // Chromium sizes the image by rounding the scaled rectangle (near enough: the size
        // told is read from the delivered image, `delivered_size`).
        Fit {
            scale,
            width: (rect.width * scale).round().max(1.0) as u32,
            height: (rect.height * scale).round().max(1.0) as u32,
        }
    }
}

/// Width and height of a base64-encoded PNG, JPEG or WebP image, from its header; `None`
/// when the bytes are not an image `imagesize` knows.
fn delivered_size(base64_data: &str) -> Option<(u32, u32)> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(base64_data)
        .ok()?;
    let size = imagesize::blob_size(&bytes).ok()?;
    Some((
        u32::try_from(size.width).ok()?,
        u32::try_from(size.height).ok()?,
    ))
}

/// A ratio from the page, 1 where it is not positive.
fn positive(value: f64) -> f64 {
    if value > 0.0 { value } else { 1.0 }
}

fn selector_problem(selector: &str, problem: Problem) -> Error {
    let selector = selector.to_string();
    match problem {
        Problem::Invalid { reason } => Error::InvalidSelector { selector, reason },
        Problem::None => Error::ElementNotFound {
            locator: format!("selector {selector:?}"),
            reason: "nothing on the page matches".into(),
        },
        Problem::Ambiguous { matched } => Error::AmbiguousLocator {
            locator: format!("selector {selector:?}"),
            matched,
            candidates: Vec::new(),
        },
        Problem::Invisible => Error::ElementNotVisible {
            locator: selector,
            reason: "it has no size or lies outside the viewport".into(),
        },
    }
}

/// `{pageWidth, pageHeight, dpr, zoom}` and the rectangle a screenshot captures, or the
/// problem with its selector.
pub(crate) const CAPTURE_RECT: crate::script::Script<crate::screenshot::Geometry> =
    crate::script::script!("capture_rect" => crate::screenshot::Geometry);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_size_told_is_read_from_the_delivered_image() {
        use base64::Engine as _;
        // A PNG's signature and IHDR chunk: 725 × 1567.
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&725u32.to_be_bytes());
        png.extend_from_slice(&1567u32.to_be_bytes());
        png.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
        let data = base64::engine::general_purpose::STANDARD.encode(&png);
        assert_eq!(delivered_size(&data), Some((725, 1567)));
        assert_eq!(delivered_size("not base64 at all!"), None);
        assert_eq!(delivered_size("aGVsbG8="), None);
    }

    fn rect(width: f64, height: f64) -> CssRect {
        CssRect {
            x: 0.0,
            y: 0.0,
            width,
            height,
        }
    }

    #[test]
    fn an_image_is_the_page_pixels_scaled_down_to_the_bound() {
        // custom 1440×900 at pixel ratio 2: 2880×1800 device pixels, delivered 1568×980.
        let fit = Fit::new(rect(1440.0, 900.0), 2.0, 1568);
        assert_eq!((fit.width, fit.height), (1568, 980));
        assert!((fit.scale - 1568.0 / 1440.0).abs() < 1e-9);
        // Phone 390×844 at 3: the height is the long side.
        let fit = Fit::new(rect(390.0, 844.0), 3.0, 1568);
        assert_eq!(fit.height, 1568);
        assert!(fit.width <= 1568);
        // Small enough already: the page's own pixels, never enlarged.
        let fit = Fit::new(rect(1280.0, 713.0), 1.0, 1568);
        assert_eq!((fit.width, fit.height, fit.scale), (1280, 713, 1.0));
        // A smaller bound.
        let fit = Fit::new(rect(1280.0, 800.0), 2.0, 640);
        assert_eq!((fit.width, fit.height), (640, 400));
    }
}
