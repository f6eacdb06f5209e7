//! Screenshots, viewport presets, downloads and permissions (docs/observation.md#screenshots, docs/acting.md#downloads), with the
//! delivered images decoded here — sizes read from the PNG itself, colours from its pixels.

use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

use crate::harness::{Harness, page_text};

/// A screenshot that must succeed: its envelope (JSON) and the decoded image.
async fn screenshot(h: &Harness, params: Value) -> (Value, Picture) {
    let envelope = h.envelope("screenshot", params.clone()).await;
    let json = envelope.to_json();
    assert_eq!(json["ok"], true, "screenshot {params}: {json:#}");
    let image = envelope.image.expect("a screenshot delivers an image");
    assert_eq!(image.mime_type, "image/png");
    // The image travels beside the envelope, never inside it.
    assert!(json.to_string().len() < 2_000, "{json}");
    let picture = Picture::decode(&image.data);
    assert_eq!(json["data"]["width"], picture.width, "{json:#}");
    assert_eq!(json["data"]["height"], picture.height, "{json:#}");
    (json, picture)
}

/// A decoded PNG: its size from the IHDR chunk, its pixels as RGBA.
struct Picture {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
}

impl Picture {
    fn decode(base64: &str) -> Picture {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(base64)
            .unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
        assert_eq!(&bytes[12..16], b"IHDR");
        let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
        let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
        let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
        let mut reader = decoder.read_info().unwrap();
        let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
        let frame = reader.next_frame(&mut buffer).unwrap();
        assert_eq!((frame.width, frame.height), (width, height));
        assert_eq!(frame.color_type, png::ColorType::Rgba);
        buffer.truncate(frame.buffer_size());
        Picture {
            width,
            height,
            rgba: buffer,
        }
    }

    fn pixel(&self, x: u32, y: u32) -> [u8; 3] {
        let at = ((y * self.width + x) * 4) as usize;
        [self.rgba[at], self.rgba[at + 1], self.rgba[at + 2]]
    }
}

/// Colours of `fixtures/media-query.html`.
const WIDE_BLUE: [u8; 3] = [0x1f, 0x4f, 0xb4];
const MOBILE_ORANGE: [u8; 3] = [0xf0, 0x8c, 0x00];
const TARGET_GREEN: [u8; 3] = [0x18, 0xa0, 0x50];

/// Polls `check` with fresh calls until it returns `Some`, for at most `within`.
async fn poll<T, F, Fut>(within: Duration, what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let until = Instant::now() + within;
    loop {
        if let Some(found) = check().await {
            return found;
        }
        assert!(Instant::now() < until, "gave up waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn phone_preset_lays_out_the_mobile_layout_and_the_screenshot_shows_it() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("media-query.html") }))
        .await;
    let viewport = h.ok("viewport", json!({ "preset": "phone" })).await;
    let data = &viewport["data"];
    assert_eq!(data["preset"], "phone");
    assert_eq!(data["pageWidth"], 390, "{viewport:#}");
    assert_eq!(data["pageHeight"], 844, "{viewport:#}");
    assert_eq!(data["confirmed"], true);
    assert_eq!(data["touch"], true);
    assert_eq!(data["devicePixelRatio"], 3.0);
    assert_eq!(viewport["execution"]["actionStatus"], "completed");
    // Without a preset, the viewport is read: the preset in force and the size the page
    // lays out at, nothing dispatched.
    let read = h.ok("viewport", json!({})).await;
    assert_eq!(read["data"]["preset"], "phone", "{read:#}");
    assert_eq!(read["data"]["pageWidth"], 390, "{read:#}");
    assert_eq!(read["data"]["confirmed"], true, "{read:#}");
    assert_eq!(read["execution"]["actionStatus"], "not-started", "{read:#}");
    h.fails("viewport", json!({ "width": 300 }), "INVALID_PARAMS")
        .await;

    let (shot, picture) = screenshot(&h, json!({})).await;
    let data = &shot["data"];
    assert_eq!(data["preset"], "phone");
    assert_eq!(data["confirmed"], true);
    assert_eq!(
        (data["pageWidth"].clone(), data["pageHeight"].clone()),
        (json!(390), json!(844))
    );
    // At CSS pixels by default: 390×844, not the 1170×2532 device pixels (about a ninth
    // of the image tokens).
    assert_eq!((picture.width, picture.height), (390, 844));
    assert_eq!(data["scale"], 1.0, "{shot:#}");
    // A screenshot without a preset is a read: nothing was dispatched.
    assert_eq!(shot["execution"]["actionStatus"], "not-started");
    // Only the mobile layout paints the page orange.
    let (x, y) = (picture.width - 10, picture.height / 2);
    assert_eq!(picture.pixel(x, y), MOBILE_ORANGE);
    // Device pixels when asked: 1170×2532, the long side bounded to 1568.
    let (shot, picture) = screenshot(&h, json!({ "scale": "device" })).await;
    assert_eq!(picture.height, 1568);
    assert_eq!(picture.width, (390.0_f64 * 1568.0 / 844.0).round() as u32);
    assert!((shot["data"]["scale"].as_f64().unwrap() - 1568.0 / 844.0).abs() < 0.01);
    let (x, y) = (picture.width - 10, picture.height / 2);
    assert_eq!(picture.pixel(x, y), MOBILE_ORANGE);

    // The same spot in the desktop layout is blue.
    let (shot, picture) = screenshot(&h, json!({ "preset": "desktop" })).await;
    assert_eq!(shot["data"]["pageWidth"], 1280);
    assert_eq!(shot["data"]["confirmed"], true);
    assert_eq!(shot["execution"]["actionStatus"], "completed");
    assert_eq!(
        picture.pixel(picture.width - 10, picture.height / 2),
        WIDE_BLUE
    );
    h.shutdown().await;
}

#[tokio::test]
async fn custom_1440x900_is_delivered_as_1440x900_or_in_device_pixels_as_1568x980() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("media-query.html") }))
        .await;
    let (shot, picture) = screenshot(
        &h,
        json!({ "preset": "custom", "width": 1440, "height": 900 }),
    )
    .await;
    assert_eq!((picture.width, picture.height), (1440, 900), "{shot:#}");
    assert_eq!(shot["data"]["scale"], 1.0, "{shot:#}");
    let (shot, picture) = screenshot(&h, json!({ "scale": "device" })).await;
    let data = &shot["data"];
    assert_eq!((picture.width, picture.height), (1568, 980));
    assert_eq!(data["pageWidth"], 1440);
    assert_eq!(data["pageHeight"], 900);
    assert_eq!(data["preset"], "custom");
    assert_eq!(data["confirmed"], true);
    assert_eq!(data["scale"], 1.0889, "{shot:#}");
    assert_eq!(picture.pixel(700, 490), WIDE_BLUE);

    // A smaller bound is honoured on both sides.
    let (_, picture) = screenshot(&h, json!({ "maxWidth": 800 })).await;
    assert_eq!((picture.width, picture.height), (800, 500));
    h.shutdown().await;
}

#[tokio::test]
async fn every_preset_reports_the_size_it_delivers() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("media-query.html") }))
        .await;
    for (preset, page) in [
        (json!({ "preset": "phone" }), (390, 844)),
        (json!({ "preset": "tablet" }), (834, 1112)),
        (json!({ "preset": "desktop" }), (1280, 800)),
        (
            json!({ "preset": "custom", "width": 240, "height": 320 }),
            (240, 320),
        ),
        (
            json!({ "preset": "custom", "width": 3840, "height": 2160 }),
            (3840, 2160),
        ),
        (
            json!({ "preset": "custom", "width": 1001, "height": 777 }),
            (1001, 777),
        ),
    ] {
        let (shot, picture) = screenshot(&h, preset.clone()).await;
        let data = &shot["data"];
        assert_eq!(
            (data["pageWidth"].clone(), data["pageHeight"].clone()),
            (json!(page.0), json!(page.1)),
            "{preset}"
        );
        assert_eq!(data["confirmed"], true, "{preset}");
        assert!(picture.width.max(picture.height) <= 1568, "{preset}");
    }
    // auto clears the emulation: the browser's own window (1280 wide), pixel ratio 1.
    let auto = h.ok("viewport", json!({ "preset": "auto" })).await;
    assert_eq!(auto["data"]["pageWidth"], 1280, "{auto:#}");
    assert_eq!(auto["data"]["confirmed"], true, "{auto:#}");
    assert_eq!(auto["data"]["touch"], false);
    let (shot, picture) = screenshot(&h, json!({})).await;
    assert_eq!(shot["data"]["scale"], 1.0);
    assert_eq!(picture.width, 1280);
    h.shutdown().await;
}

#[tokio::test]
async fn the_preset_persists_on_its_tab_across_navigations() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("second.html") }))
        .await;
    h.ok("viewport", json!({ "preset": "phone" })).await;
    h.ok("navigate", json!({ "url": h.url("media-query.html") }))
        .await;
    let (shot, picture) = screenshot(&h, json!({})).await;
    assert_eq!(shot["data"]["preset"], "phone");
    assert_eq!(shot["data"]["pageWidth"], 390);
    assert_eq!(
        picture.pixel(picture.width - 10, picture.height / 2),
        MOBILE_ORANGE
    );
    // Another tab has its own viewport.
    h.ok(
        "tabs",
        json!({ "action": "new", "url": h.url("media-query.html") }),
    )
    .await;
    let (shot, _) = screenshot(&h, json!({})).await;
    assert_eq!(shot["data"]["preset"], "auto");
    assert_eq!(shot["data"]["pageWidth"], 1280);
    h.shutdown().await;
}

#[tokio::test]
async fn a_page_without_a_mobile_viewport_is_not_confirmed_at_phone_size() {
    let h = Harness::new();
    // second.html has no <meta name=viewport>: a phone lays it out 980 px wide.
    h.ok("navigate", json!({ "url": h.url("second.html") }))
        .await;
    let viewport = h.ok("viewport", json!({ "preset": "phone" })).await;
    assert_eq!(viewport["data"]["confirmed"], false, "{viewport:#}");
    assert_eq!(viewport["data"]["pageWidth"], 980, "{viewport:#}");
    let (shot, _) = screenshot(&h, json!({})).await;
    assert_eq!(shot["data"]["confirmed"], false);
    assert_eq!(shot["data"]["pageWidth"], 980);
    h.shutdown().await;
}

#[tokio::test]
async fn screenshot_of_a_failed_navigation_is_page_load_failed_without_an_image() {
    let h = Harness::new();
    let failed = h
        .envelope("navigate", json!({ "url": "http://127.0.0.1:1/" }))
        .await
        .to_json();
    assert_eq!(failed["code"], "NAVIGATION_FAILED");
    let refused = h
        .refused("screenshot", json!({}), "PAGE_LOAD_FAILED")
        .await
        .to_json();
    assert_eq!(refused["data"]["errorText"], "net::ERR_CONNECTION_REFUSED");
    assert_eq!(refused["page"]["url"], "http://127.0.0.1:1/");
    // With a preset too: refused before the viewport is touched.
    let refused = h
        .refused(
            "screenshot",
            json!({ "preset": "phone" }),
            "PAGE_LOAD_FAILED",
        )
        .await
        .to_json();
    assert_eq!(refused["execution"]["dispatchStarted"], false);
    h.shutdown().await;
}

#[tokio::test]
async fn screenshot_of_a_page_that_does_not_answer_is_page_unresponsive() {
    let h = Harness::new();
    // The browser is started first, so the deadline below bounds the navigation only.
    h.ok("tabs", json!({ "action": "new" })).await;
    // The page never finishes loading: its script runs forever.
    let _ = h
        .engine
        .call(
            "navigate",
            json!({ "url": h.url("hang.html") }),
            Some(Duration::from_millis(1500)),
        )
        .await;
    let envelope = h
        .engine
        .call("screenshot", json!({}), Some(Duration::from_secs(3)))
        .await;
    let json = envelope.to_json();
    assert_eq!(json["code"], "PAGE_UNRESPONSIVE", "{json:#}");
    assert_eq!(json["execution"]["actionStatus"], "not-started");
    assert!(envelope.image.is_none());
    h.shutdown().await;
}

#[tokio::test]
async fn a_background_tab_is_captured_without_becoming_current() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("media-query.html") }))
        .await;
    h.ok("viewport", json!({ "preset": "phone" })).await;
    h.ok(
        "tabs",
        json!({ "action": "new", "url": h.url("second.html") }),
    )
    .await;
    let (shot, picture) = screenshot(&h, json!({ "tabId": "tab0" })).await;
    assert_eq!(shot["page"]["tabId"], "tab0");
    assert_eq!(shot["data"]["tabId"], "tab0");
    assert_eq!(
        picture.pixel(picture.width - 10, picture.height / 2),
        MOBILE_ORANGE
    );
    let tabs = h.ok("tabs", json!({})).await;
    let active: Vec<_> = tabs["data"]["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["active"] == true)
        .map(|t| t["id"].clone())
        .collect();
    assert_eq!(active, [json!("tab1")]);
    h.shutdown().await;
}

#[tokio::test]
async fn an_element_is_captured_by_selector_and_bad_selectors_are_refused() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("media-query.html") }))
        .await;
    // #target is 120×80 CSS pixels; desktop draws it at pixel ratio 2.
    let (shot, picture) =
        screenshot(&h, json!({ "preset": "desktop", "selector": "#target" })).await;
    assert_eq!((picture.width, picture.height), (120, 80));
    assert_eq!(shot["data"]["selector"], "#target");
    assert!(shot["data"].get("clipped").is_none());
    assert_eq!(picture.pixel(60, 40), TARGET_GREEN);
    // The same element by its ref, in device pixels.
    let found = h
        .ok("find", json!({ "role": "img", "name": "Green box" }))
        .await;
    let r = found["data"]["matches"][0]["ref"].clone();
    let (_, by_ref) = screenshot(&h, json!({ "ref": r, "scale": "device" })).await;
    assert_eq!((by_ref.width, by_ref.height), (240, 160));
    assert_eq!(by_ref.pixel(120, 80), TARGET_GREEN);

    h.refused(
        "screenshot",
        json!({ "selector": "#nothing" }),
        "ELEMENT_NOT_FOUND",
    )
    .await;
    h.refused(
        "screenshot",
        json!({ "selector": "p[" }),
        "INVALID_SELECTOR",
    )
    .await;
    let ambiguous = h
        .refused(
            "screenshot",
            json!({ "selector": "p, div" }),
            "AMBIGUOUS_LOCATOR",
        )
        .await
        .to_json();
    assert_eq!(ambiguous["data"]["matched"], 2);
    h.shutdown().await;
}

#[tokio::test]
async fn jpeg_and_webp_are_delivered_with_their_quality() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("media-query.html") }))
        .await;
    for (format, mime, magic) in [
        ("jpeg", "image/jpeg", &b"\xff\xd8\xff"[..]),
        ("webp", "image/webp", &b"RIFF"[..]),
    ] {
        let envelope = h
            .envelope("screenshot", json!({ "format": format, "quality": 50 }))
            .await;
        assert!(envelope.ok, "{:#}", envelope.to_json());
        assert_eq!(envelope.data["format"], format);
        let image = envelope.image.unwrap();
        assert_eq!(image.mime_type, mime);
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&image.data)
            .unwrap();
        assert!(bytes.starts_with(magic), "{format}");
    }
    h.shutdown().await;
}

#[tokio::test]
async fn viewport_and_screenshot_params_are_checked_before_anything_runs() {
    let h = Harness::new();
    for (method, params) in [
        (
            "viewport",
            json!({ "preset": "custom", "width": 239, "height": 900 }),
        ),
        (
            "viewport",
            json!({ "preset": "custom", "width": 3841, "height": 900 }),
        ),
        (
            "viewport",
            json!({ "preset": "custom", "width": 1440, "height": 319 }),
        ),
        (
            "viewport",
            json!({ "preset": "custom", "width": 1440, "height": 2161 }),
        ),
        ("viewport", json!({ "preset": "custom", "width": 1440 })),
        (
            "viewport",
            json!({ "preset": "phone", "width": 400, "height": 800 }),
        ),
        ("viewport", json!({ "preset": "watch" })),
        ("viewport", json!({ "width": 800 })),
        ("screenshot", json!({ "quality": 50 })),
        ("screenshot", json!({ "format": "jpeg", "quality": 101 })),
        ("screenshot", json!({ "maxWidth": 10 })),
        ("screenshot", json!({ "width": 500 })),
        ("screenshot", json!({ "format": "gif" })),
    ] {
        let refused = h.refused(method, params.clone(), "INVALID_PARAMS").await;
        assert!(!refused.execution.dispatch_started, "{params}");
    }
    // Nothing was opened by the refusals.
    let tabs = h.ok("tabs", json!({})).await;
    assert_eq!(tabs["data"]["tabs"], json!([]));
    h.shutdown().await;
}

#[tokio::test]
async fn a_download_link_saves_into_the_task_folder_and_is_reported() {
    let h = Harness::new();
    let navigate = h
        .ok("navigate", json!({ "url": h.url("download.html?auto") }))
        .await;
    // The download may finish during the navigation or after it: then the next command
    // reports it.
    let mut reports = vec![navigate["events"]["download"].clone()];
    let completed = poll(Duration::from_secs(10), "the download to complete", || {
        let last = reports.last().cloned().unwrap_or(Value::Null);
        let h = &h;
        async move {
            let completed = last
                .as_array()
                .and_then(|list| list.iter().find(|d| d["state"] == "completed").cloned());
            if completed.is_some() {
                return completed;
            }
            let tabs = h.ok("tabs", json!({})).await;
            tabs["events"]["download"]
                .as_array()
                .and_then(|list| list.iter().find(|d| d["state"] == "completed").cloned())
        }
    })
    .await;
    reports.clear();
    assert_eq!(completed["name"], "report.csv", "{completed:#}");
    assert_eq!(completed["url"], h.url("downloads/report.csv"));
    let expected =
        std::fs::read(test_support::fixtures_dir().join("downloads/report.csv")).unwrap();
    assert_eq!(completed["size"], expected.len());
    let path = std::path::PathBuf::from(completed["path"].as_str().unwrap());
    assert_eq!(std::fs::read(&path).unwrap(), expected);
    let folder = path.parent().unwrap().to_path_buf();
    assert!(
        folder
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("candor-downloads-"),
        "{}",
        folder.display()
    );
    // Reported once: the next command has nothing new.
    let quiet = h.ok("tabs", json!({})).await;
    assert_eq!(quiet["events"]["download"], Value::Null);
    // The folder belongs to the task and goes with it.
    h.shutdown().await;
    assert!(!folder.exists(), "{} survived the task", folder.display());
}

#[tokio::test]
async fn permission_requests_are_denied_and_reported() {
    let h = Harness::new();
    let first = h
        .ok("navigate", json!({ "url": h.url("permissions.html") }))
        .await;
    let mut denials: Vec<Value> = first["events"]["permission"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    // The page shows what it was answered, without waiting for any prompt.
    let text = poll(Duration::from_secs(5), "the page's answers", || {
        let h = &h;
        async move {
            let snap = h.ok("snapshot", json!({ "mode": "text" })).await;
            let denied = snap["events"]["permission"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let text = snap["data"]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            (!text.contains("asking")).then_some((text, denied))
        }
    })
    .await;
    denials.extend(text.1);
    assert!(text.0.contains("Geolocation: denied"), "{}", text.0);
    assert!(text.0.contains("Notifications: denied"), "{}", text.0);
    let mut asked: Vec<_> = denials
        .iter()
        .map(|d| {
            assert_eq!(d["decision"], "denied", "{d}");
            assert_eq!(d["tabId"], "tab0", "{d}");
            assert_eq!(d["origin"], h.url("").trim_end_matches('/'), "{d}");
            d["permission"].as_str().unwrap().to_string()
        })
        .collect();
    asked.sort();
    assert_eq!(asked, ["geolocation", "notifications"], "{denials:#?}");
    h.shutdown().await;
}

/// Phone and tablet send a mobile agent and client hints, desktop a desktop one, auto the
/// browser's own: what a site that sniffs the agent reads, and what the answer says.
#[tokio::test]
async fn each_preset_sends_the_agent_of_its_device_and_the_answer_names_it() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("agent.html") }))
        .await;
    let phone = h.ok("viewport", json!({ "preset": "phone" })).await;
    let said = phone["data"]["userAgent"].as_str().unwrap().to_string();
    assert!(
        said.contains("Android") && said.contains("Mobile Safari"),
        "{said}"
    );
    let text = seen_after_reload(&h).await;
    assert!(text.contains(&format!("agent: {said}")), "{text}");
    assert!(text.contains("mobile: true"), "{text}");
    assert!(text.contains("platform: Android"), "{text}");
    assert!(text.contains("touch points: 5"), "{text}");

    let tablet = h.ok("viewport", json!({ "preset": "tablet" })).await;
    let said = tablet["data"]["userAgent"].as_str().unwrap().to_string();
    assert!(
        said.contains("Android") && !said.contains("Mobile"),
        "{said}"
    );
    assert!(seen_after_reload(&h).await.contains("mobile: false"));

    let desktop = h.ok("viewport", json!({ "preset": "desktop" })).await;
    let said = desktop["data"]["userAgent"].as_str().unwrap().to_string();
    assert!(
        said.contains("X11; Linux x86_64") && !said.contains("Headless"),
        "{said}"
    );
    let text = seen_after_reload(&h).await;
    assert!(text.contains(&format!("agent: {said}")), "{text}");
    assert!(
        text.contains("mobile: false") && text.contains("platform: Linux"),
        "{text}"
    );
    assert!(text.contains("touch points: 0"), "{text}");

    let auto = h.ok("viewport", json!({ "preset": "auto" })).await;
    let own = h.engine.browser().await.unwrap().user_agent().to_string();
    assert_eq!(auto["data"]["userAgent"], own.as_str());
    assert!(
        seen_after_reload(&h)
            .await
            .contains(&format!("agent: {own}"))
    );
    h.shutdown().await;
}

/// The page's text after a reload: what it sees of the agent in force.
async fn seen_after_reload(h: &Harness) -> String {
    h.ok("navigate", json!({ "reload": true })).await;
    page_text(h).await
}

/// With `defaultViewport`, every new tab opens at that preset, and its page loads at its
/// size.
#[tokio::test]
async fn new_tabs_open_at_the_configured_default_viewport() {
    let h = Harness::with(|options| options.default_viewport = browser::Preset::Phone);
    h.ok("navigate", json!({ "url": h.url("media-query.html") }))
        .await;
    let read = h.ok("viewport", json!({})).await;
    assert_eq!(read["data"]["preset"], "phone", "{read:#}");
    assert_eq!(read["data"]["pageWidth"], 390, "{read:#}");
    assert_eq!(read["data"]["confirmed"], true, "{read:#}");
    h.ok(
        "tabs",
        json!({ "action": "new", "url": h.url("media-query.html") }),
    )
    .await;
    let second = h.ok("viewport", json!({ "tabId": "tab1" })).await;
    assert_eq!(second["data"]["preset"], "phone", "{second:#}");
    assert_eq!(second["data"]["pageWidth"], 390, "{second:#}");
    h.shutdown().await;
}

/// `pdf` prints the page into the task's folder: a PDF of as many pages as asked, on the
/// paper asked; a range past the end or not a range is refused by name, and an error page
/// is not printed at all.
#[tokio::test]
async fn a_pdf_of_the_page_lies_in_the_tasks_folder_with_its_pages_counted() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("article.html") }))
        .await;
    let all = h.ok("pdf", json!({ "paper": "a4" })).await;
    let path = all["data"]["path"].as_str().unwrap().to_string();
    let bytes = std::fs::read(&path).unwrap();
    assert!(bytes.starts_with(b"%PDF-"), "{all:#}");
    assert_eq!(all["data"]["bytes"], bytes.len(), "{all:#}");
    let pages = all["data"]["pages"].as_u64().unwrap();
    assert!(pages >= 2, "the article takes more than a page: {all:#}");
    let first = h
        .ok("pdf", json!({ "pages": "1", "landscape": true }))
        .await;
    assert_eq!(first["data"]["pages"], 1, "{first:#}");
    assert_ne!(first["data"]["path"], all["data"]["path"]);
    let two = h
        .ok("pdf", json!({ "pages": "1-2", "background": true }))
        .await;
    assert_eq!(two["data"]["pages"], 2, "{two:#}");
    let past = h
        .fails(
            "pdf",
            json!({ "pages": format!("{}", pages + 5) }),
            "INVALID_PARAMS",
        )
        .await;
    assert!(
        past["message"].as_str().unwrap().contains("Page range"),
        "{past:#}"
    );
    h.fails("pdf", json!({ "pages": "0-2" }), "INVALID_PARAMS")
        .await;
    let failed = h
        .envelope("navigate", json!({ "url": "http://127.0.0.1:1/" }))
        .await
        .to_json();
    assert_eq!(failed["code"], "NAVIGATION_FAILED");
    h.refused("pdf", json!({}), "PAGE_LOAD_FAILED").await;
    h.shutdown().await;
}

/// `screenshot {marks:true}` labels the viewport's refs on the image: the table's refs are
/// the ones `find` gives for the same elements, an agent acts by them, the image is not
/// the unmarked one, and the overlay is gone from the page once the capture is taken.
#[tokio::test]
async fn marks_on_a_screenshot_are_the_refs_find_gives() {
    let h = Harness::with_eval();
    h.ok("navigate", json!({ "url": h.url("form.html") })).await;
    let plain = h.envelope("screenshot", json!({})).await;
    let marked = h.envelope("screenshot", json!({ "marks": true })).await;
    let marked_json = marked.to_json();
    assert_eq!(marked_json["ok"], true, "{marked_json:#}");
    let marks = marked_json["data"]["marks"].as_array().unwrap().clone();
    assert!(marks.len() >= 5, "{marked_json:#}");
    for (i, mark) in marks.iter().enumerate() {
        assert_eq!(mark["label"], (i + 1).to_string(), "{mark}");
    }
    assert_ne!(
        plain.image.as_ref().unwrap().data,
        marked.image.as_ref().unwrap().data,
        "the labels are drawn on the image"
    );
    let agree = marks
        .iter()
        .find(|m| m["role"] == "checkbox" && m["name"] == "I agree")
        .unwrap_or_else(|| panic!("the checkbox is marked: {marked_json:#}"))
        .clone();
    let found = h
        .ok("find", json!({ "role": "checkbox", "name": "I agree" }))
        .await;
    assert_eq!(
        found["data"]["matches"][0]["ref"], agree["ref"],
        "{found:#}"
    );
    for mark in &marks {
        let role = mark["role"].as_str().unwrap();
        let name = mark["name"].as_str().unwrap();
        if name.is_empty() {
            continue;
        }
        let found = h
            .ok("find", json!({ "role": role, "name": name, "limit": 20 }))
            .await;
        let refs: Vec<&Value> = found["data"]["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| &m["ref"])
            .collect();
        assert!(refs.contains(&&mark["ref"]), "{mark} among {found:#}");
    }
    h.ok("act", json!({ "action": "uncheck", "ref": agree["ref"] }))
        .await;
    let gone = h
        .ok(
            "eval",
            json!({ "expression": "document.querySelector('candor-marks') === null" }),
        )
        .await;
    assert_eq!(gone["data"]["value"], true, "{gone:#}");
    h.fails(
        "screenshot",
        json!({ "marks": true, "selector": "form" }),
        "INVALID_PARAMS",
    )
    .await;
    h.shutdown().await;
}
