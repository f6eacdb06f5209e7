//! Viewport presets (docs/observation.md#viewports): device-metrics emulation per tab (not zoom), confirmed by
//! reading the size the page actually lays out at.
//!
//! Each preset is a device: its CSS size, its device pixel ratio, and whether it is a
//! mobile, touch device. The ratio matters to screenshots: an image is the page's device
//! pixels, scaled down by Chromium to the size asked for (see `screenshot.rs`).

use std::time::Duration;

use cdp::Deadline;
use cdp::protocol::{browser as cdp_browser, emulation};
use serde_json::{Value, json};

use crate::{Error, Tab};

/// Custom sizes allowed, in CSS pixels.
pub const CUSTOM_WIDTHS: std::ops::RangeInclusive<u32> = 240..=3840;
pub const CUSTOM_HEIGHTS: std::ops::RangeInclusive<u32> = 320..=2160;

/// The longest a viewport change waits for the page to lay out at the new size; a page
/// whose size has stopped changing for `SETTLE` is not waited for any longer.
const CONFIRM_BUDGET: Duration = Duration::from_secs(2);
const SETTLE: Duration = Duration::from_millis(250);

/// What `viewport_size.js` answers: the size the page lays out at, in CSS pixels.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct LaidOut {
    width: f64,
    height: f64,
    dpr: f64,
    confirmed: bool,
}

/// A tab's viewport.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Preset {
    /// The browser's own window size and pixel ratio: no emulation.
    #[default]
    Auto,
    /// 390×844, pixel ratio 3, mobile, touch.
    Phone,
    /// 834×1112, pixel ratio 2, touch (a tablet browser lays pages out as desktop ones).
    Tablet,
    /// 1280×800, pixel ratio 2.
    Desktop,
    /// Any size within [`CUSTOM_WIDTHS`] × [`CUSTOM_HEIGHTS`], pixel ratio 2.
    Custom { width: u32, height: u32 },
}

impl Preset {
    /// A custom size, refused outside the allowed ranges.
    pub fn custom(width: u32, height: u32) -> Result<Preset, Error> {
        if !CUSTOM_WIDTHS.contains(&width) || !CUSTOM_HEIGHTS.contains(&height) {
            return Err(Error::InvalidParams {
                what: format!("custom viewport {width}×{height}"),
                reason: format!(
                    "width must be {}–{} and height {}–{} CSS pixels",
                    CUSTOM_WIDTHS.start(),
                    CUSTOM_WIDTHS.end(),
                    CUSTOM_HEIGHTS.start(),
                    CUSTOM_HEIGHTS.end()
                ),
            });
        }
        Ok(Preset::Custom { width, height })
    }

    pub fn name(self) -> &'static str {
        match self {
            Preset::Auto => "auto",
            Preset::Phone => "phone",
            Preset::Tablet => "tablet",
            Preset::Desktop => "desktop",
            Preset::Custom { .. } => "custom",
        }
    }

    /// The CSS size the page should lay out at; `None` for `auto`.
    pub fn size(self) -> Option<(u32, u32)> {
        match self {
            Preset::Auto => None,
            Preset::Phone => Some((390, 844)),
            Preset::Tablet => Some((834, 1112)),
            Preset::Desktop => Some((1280, 800)),
            Preset::Custom { width, height } => Some((width, height)),
        }
    }

    /// Device pixels per CSS pixel; `None` for `auto` (the browser's own).
    pub fn device_scale_factor(self) -> Option<f64> {
        match self {
            Preset::Auto => None,
            Preset::Phone => Some(3.0),
            Preset::Tablet | Preset::Desktop | Preset::Custom { .. } => Some(2.0),
        }
    }

    /// A mobile viewport: the page's `<meta name=viewport>` applies.
    pub fn mobile(self) -> bool {
        matches!(self, Preset::Phone)
    }

    /// Touch input: `act` dispatches touch events instead of mouse events.
    pub fn touch(self) -> bool {
        matches!(self, Preset::Phone | Preset::Tablet)
    }

    /// The user agent the preset sends, made from the browser's `product`
    /// (`HeadlessChrome/156.0.8078.108`) and own `user_agent`: a phone's is Chrome on
    /// Android with `Mobile` (client hints say mobile), a tablet's Chrome on Android
    /// without it, desktop and custom Chrome on Linux — each in the reduced form Chrome
    /// sends itself, so a site that sniffs the agent serves the page for that device. At
    /// `auto`, the browser's own.
    pub fn user_agent(self, product: &str, user_agent: &str) -> emulation::SetUserAgentOverride {
        let full = product.split_once('/').map_or("", |(_, version)| version);
        let major = full
            .split('.')
            .next()
            .filter(|m| !m.is_empty())
            .unwrap_or("0");
        let (agent, platform, platform_version, mobile) = match self {
            Preset::Auto => {
                return emulation::SetUserAgentOverride {
                    user_agent: user_agent.to_string(),
                    ..Default::default()
                };
            }
            Preset::Phone => (
                format!(
                    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{major}.0.0.0 Mobile Safari/537.36"
                ),
                "Android",
                "10.0.0",
                true,
            ),
            Preset::Tablet => (
                format!(
                    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{major}.0.0.0 Safari/537.36"
                ),
                "Android",
                "10.0.0",
                false,
            ),
            Preset::Desktop | Preset::Custom { .. } => (
                format!(
                    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{major}.0.0.0 Safari/537.36"
                ),
                "Linux",
                "",
                false,
            ),
        };
        let brands = |version: &str| {
            vec![
                emulation::UserAgentBrand {
                    brand: "Chromium".into(),
                    version: version.to_string(),
                },
                emulation::UserAgentBrand {
                    brand: "Not.A/Brand".into(),
                    version: "99".into(),
                },
            ]
        };
        emulation::SetUserAgentOverride {
            user_agent: agent,
            platform: Some(if platform == "Android" {
                "Linux armv8l".into()
            } else {
                "Linux x86_64".into()
            }),
            user_agent_metadata: Some(emulation::UserAgentMetadata {
                brands: brands(major),
                full_version_list: brands(full),
                platform: platform.into(),
                platform_version: platform_version.into(),
                architecture: if platform == "Android" { "" } else { "x86" }.into(),
                model: if mobile { "K" } else { "" }.into(),
                mobile,
            }),
        }
    }
}

/// The size a page lays out at, read from the page, against what its preset asks.
#[derive(Debug, Clone)]
pub struct ViewportReport {
    pub preset: Preset,
    /// The user agent string the tab sends.
    pub user_agent: String,
    /// `innerWidth`/`innerHeight` in CSS pixels, as the page reports them.
    pub page_width: u32,
    pub page_height: u32,
    pub device_pixel_ratio: f64,
    /// The page laid out at the preset's size (1 px tolerance); for `auto`, at the width
    /// of the browser window.
    pub confirmed: bool,
}

impl Tab {
    /// The tab's preset; it persists until changed.
    pub fn viewport(&self) -> Preset {
        *self
            .viewport_cell()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Whether input to this tab should be touch events (the preset is a touch device).
    pub fn touch(&self) -> bool {
        self.viewport().touch()
    }

    /// Applies `preset` by device-metrics emulation and waits, within the deadline and a
    /// short budget, until the page lays out at its size. A page that settles at another
    /// size (a mobile page without `<meta name=viewport>` lays out at 980 px) is reported
    /// with `confirmed:false` and the size it uses.
    pub async fn set_viewport(
        &self,
        preset: Preset,
        deadline: Deadline,
    ) -> Result<ViewportReport, Error> {
        self.check_usable()?;
        let session = self.session();
        let touch = emulation::SetTouchEmulationEnabled {
            enabled: preset.touch(),
            max_touch_points: preset.touch().then_some(5),
        };
        let (product, own) = &self.shared.browser_agent;
        let agent = preset.user_agent(product, own);
        match (preset.size(), preset.device_scale_factor()) {
            (Some((width, height)), Some(device_scale_factor)) => {
                let metrics = emulation::SetDeviceMetricsOverride {
                    width,
                    height,
                    device_scale_factor,
                    mobile: preset.mobile(),
                    screen_width: Some(width),
                    screen_height: Some(height),
                };
                tokio::try_join!(
                    session.call(&metrics, deadline),
                    session.call(&touch, deadline),
                    session.call(&agent, deadline)
                )?;
            }
            _ => {
                tokio::try_join!(
                    session.call(&emulation::ClearDeviceMetricsOverride {}, deadline),
                    session.call(&touch, deadline),
                    session.call(&agent, deadline)
                )?;
            }
        }
        *self
            .viewport_cell()
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = preset;
        let budget = CONFIRM_BUDGET.min(deadline.remaining() / 2);
        self.read_viewport(preset, budget, deadline).await
    }

    /// The size the page lays out at now, against the tab's preset; no waiting.
    pub async fn check_viewport(&self, deadline: Deadline) -> Result<ViewportReport, Error> {
        self.read_viewport(self.viewport(), Duration::ZERO, deadline)
            .await
    }

    async fn read_viewport(
        &self,
        preset: Preset,
        budget: Duration,
        deadline: Deadline,
    ) -> Result<ViewportReport, Error> {
        let want = self.expected_size(preset, deadline).await?;
        let laid_out = self
            .call_script(
                &VIEWPORT_SIZE,
                vec![
                    want,
                    json!(budget.as_millis() as u64),
                    json!(SETTLE.as_millis() as u64),
                ],
                deadline,
            )
            .await?;
        let (product, own) = &self.shared.browser_agent;
        Ok(ViewportReport {
            preset,
            user_agent: preset.user_agent(product, own).user_agent,
            page_width: css_pixels(laid_out.width),
            page_height: css_pixels(laid_out.height),
            device_pixel_ratio: laid_out.dpr,
            confirmed: laid_out.confirmed,
        })
    }

    /// `{width, height}` the page should lay out at: the preset's size, or for `auto` the
    /// width of the tab's window (its height includes the browser's own bars).
    pub(crate) async fn expected_size(
        &self,
        preset: Preset,
        deadline: Deadline,
    ) -> Result<Value, Error> {
        if let Some((width, height)) = preset.size() {
            return Ok(json!({ "width": width, "height": height }));
        }
        let window = self
            .session()
            .connection()
            .browser_session()
            .call(
                &cdp_browser::GetWindowForTarget {
                    target_id: Some(self.target_id().to_string()),
                },
                deadline,
            )
            .await?;
        Ok(match window.bounds.width {
            Some(width) => json!({ "width": width, "height": null }),
            None => Value::Null,
        })
    }
}

/// A CSS pixel count from the page (never negative or fractional for innerWidth).
pub(crate) fn css_pixels(value: f64) -> u32 {
    value.max(0.0).round() as u32
}

/// `{width, height, dpr, confirmed}`: the size the page lays out at, once it matches.
pub(crate) const VIEWPORT_SIZE: crate::script::Script<crate::viewport::LaidOut> =
    crate::script::script!("viewport_size" => crate::viewport::LaidOut);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_the_devices_of_the_spec() {
        assert_eq!(Preset::Phone.size(), Some((390, 844)));
        assert!(Preset::Phone.mobile() && Preset::Phone.touch());
        assert_eq!(Preset::Tablet.size(), Some((834, 1112)));
        assert!(Preset::Tablet.touch() && !Preset::Tablet.mobile());
        assert_eq!(Preset::Desktop.size(), Some((1280, 800)));
        assert!(!Preset::Desktop.touch());
        assert_eq!(Preset::Auto.size(), None);
        assert_eq!(Preset::Auto.device_scale_factor(), None);
        assert_eq!(Preset::default(), Preset::Auto);
    }

    #[test]
    fn custom_sizes_are_bounded() {
        for (w, h) in [(240, 320), (3840, 2160), (1440, 900)] {
            assert_eq!(Preset::custom(w, h).expect("in range").size(), Some((w, h)));
        }
        for (w, h) in [(239, 900), (3841, 900), (1440, 319), (1440, 2161), (0, 0)] {
            let err = Preset::custom(w, h).expect_err("out of range");
            assert!(matches!(err, Error::InvalidParams { .. }), "{err:?}");
            assert!(err.to_string().contains("240–3840"), "{err}");
        }
    }
}

#[cfg(test)]
mod agent_tests {
    use super::Preset;

    const PRODUCT: &str = "HeadlessChrome/156.0.8078.108";
    const OWN: &str = "Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/156.0.8078.108";

    #[test]
    fn each_preset_sends_the_reduced_agent_of_its_device() {
        let phone = Preset::Phone.user_agent(PRODUCT, OWN);
        assert!(
            phone.user_agent.contains("Android 10; K"),
            "{}",
            phone.user_agent
        );
        assert!(
            phone
                .user_agent
                .contains("Chrome/156.0.0.0 Mobile Safari/537.36")
        );
        let hints = phone.user_agent_metadata.expect("hints");
        assert!(hints.mobile);
        assert_eq!(hints.platform, "Android");
        assert_eq!(hints.full_version_list[0].version, "156.0.8078.108");
        let tablet = Preset::Tablet.user_agent(PRODUCT, OWN);
        assert!(!tablet.user_agent.contains("Mobile"));
        assert!(!tablet.user_agent_metadata.expect("hints").mobile);
        let desktop = Preset::Desktop.user_agent(PRODUCT, OWN);
        assert!(desktop.user_agent.contains("X11; Linux x86_64"));
        assert!(!desktop.user_agent.contains("Headless"));
        let auto = Preset::Auto.user_agent(PRODUCT, OWN);
        assert_eq!(auto.user_agent, OWN);
        assert!(auto.user_agent_metadata.is_none());
    }
}
