//! Promises that were kept without a test of their own: an upload's response, human-paced pointer
//! input, and promises that had code but no test — a ref relocated to its unique stand-in,
//! `fill` read back inside a cross-origin frame. (A storm of dialogs is in `faults.rs`;
//! `TARGET_CRASHED` then `reload` too.)

use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::{Harness, assert_not_started, page_text};

/// A harness whose upload folder holds `notes.txt` (12 bytes); the folder lives as long
/// as the returned guard.
fn with_upload_folder(
    configure: impl FnOnce(&mut tools::EngineOptions),
) -> (tempfile::TempDir, Harness) {
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join("notes.txt"), b"twelve bytes").unwrap();
    let dir = folder.path().to_path_buf();
    let h = Harness::with(move |options| {
        options.upload_dir = Some(dir);
        configure(options);
    });
    (folder, h)
}

/// Polls the page's text (at most ten seconds) until it contains `needle`.
async fn until_text(h: &Harness, needle: &str) -> String {
    until(h, needle, |h| Box::pin(page_text(h))).await
}

/// Polls the page's snapshot, frames included (at most ten seconds), until it contains
/// `needle`.
async fn until_in_snapshot(h: &Harness, needle: &str) -> String {
    until(h, needle, |h| {
        Box::pin(async move {
            let read = h.ok("snapshot", json!({})).await;
            read["data"]["text"].as_str().unwrap().to_string()
        })
    })
    .await
}

type Reading<'a> = std::pin::Pin<Box<dyn std::future::Future<Output = String> + 'a>>;

async fn until<'a>(
    h: &'a Harness,
    needle: &str,
    read: impl Fn(&'a Harness) -> Reading<'a>,
) -> String {
    let started = std::time::Instant::now();
    loop {
        let text = read(h).await;
        if text.contains(needle) || started.elapsed() > Duration::from_secs(10) {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn an_upload_answered_200_is_completed_with_the_responses_status() {
    let (_folder, h) = with_upload_folder(|_| {});
    h.ok("navigate", json!({ "url": h.url("upload-post.html") }))
        .await;
    let uploaded = h
        .ok(
            "act",
            json!({ "action": "upload", "selector": "#file", "files": ["notes.txt"],
                    "responseUrl": "/upload/" }),
        )
        .await;
    let upload = &uploaded["data"]["upload"];
    assert_eq!(upload["fileSelected"], true, "{uploaded:#}");
    assert_eq!(upload["uploadCompleted"], true, "{uploaded:#}");
    assert_eq!(upload["response"]["status"], 200, "{uploaded:#}");
    assert_eq!(upload["response"]["ok"], true);
    assert_eq!(upload["response"]["url"], h.url("upload/200"));
    assert_eq!(upload["frameworkAccepted"], "unknown");
    assert!(upload["note"].is_null(), "{uploaded:#}");
    assert!(until_text(&h, "Uploaded").await.contains("Uploaded"));

    // An expectation the page met is what says the page took the file.
    h.ok("navigate", json!({ "url": h.url("upload-post.html") }))
        .await;
    let accepted = h
        .ok(
            "act",
            json!({ "action": "upload", "selector": "#file", "files": ["notes.txt"],
                    "responseUrl": "*/upload/*", "expect": { "text": "Uploaded" } }),
        )
        .await;
    assert_eq!(accepted["verification"]["verified"], true, "{accepted:#}");
    assert_eq!(accepted["data"]["upload"]["uploadCompleted"], true);
    assert_eq!(accepted["data"]["upload"]["frameworkAccepted"], true);
    h.shutdown().await;
}

#[tokio::test]
async fn an_upload_answered_500_is_not_completed_and_names_the_status() {
    let (_folder, h) = with_upload_folder(|_| {});
    h.ok(
        "navigate",
        json!({ "url": h.url("upload-post.html?status=500") }),
    )
    .await;
    let uploaded = h
        .ok(
            "act",
            json!({ "action": "upload", "selector": "#file", "files": ["notes.txt"],
                    "responseUrl": "http://127.0.0.1:*/upload/*" }),
        )
        .await;
    let upload = &uploaded["data"]["upload"];
    assert_eq!(upload["fileSelected"], true, "{uploaded:#}");
    assert_eq!(upload["uploadCompleted"], false, "{uploaded:#}");
    assert_eq!(upload["response"]["status"], 500, "{uploaded:#}");
    assert_eq!(upload["response"]["ok"], false);
    assert_eq!(upload["frameworkAccepted"], "unknown");
    assert!(
        until_text(&h, "Upload failed with 500")
            .await
            .contains("Upload failed with 500")
    );
    h.shutdown().await;
}

#[tokio::test]
async fn without_a_matching_response_an_upload_is_unknown_and_the_text_says_how_to_know() {
    let (_folder, h) = with_upload_folder(|_| {});
    h.ok("navigate", json!({ "url": h.url("upload-post.html") }))
        .await;
    // No responseUrl: unknown, and the text form says what would tell.
    let params = json!({ "action": "upload", "selector": "#file", "files": ["notes.txt"] });
    let envelope = h.envelope("act", params).await;
    let uploaded = envelope.to_json();
    assert_eq!(uploaded["ok"], true, "{uploaded:#}");
    assert_eq!(uploaded["data"]["upload"]["uploadCompleted"], "unknown");
    assert!(uploaded["data"]["upload"]["response"].is_null());
    let text = tools::render_text("act", &envelope);
    assert!(text.contains("responseUrl"), "{text}");

    // A pattern no request matches: unknown once the budget (half the command's time
    // left, here under three seconds) has passed, and the note says so.
    h.ok("navigate", json!({ "url": h.url("upload-post.html") }))
        .await;
    let unmatched = h
        .engine
        .call(
            "act",
            json!({ "action": "upload", "selector": "#file", "files": ["notes.txt"],
                    "responseUrl": "/api/attachments" }),
            Some(Duration::from_secs(5)),
        )
        .await
        .to_json();
    assert_eq!(unmatched["ok"], true, "{unmatched:#}");
    let upload = &unmatched["data"]["upload"];
    assert_eq!(upload["uploadCompleted"], "unknown", "{unmatched:#}");
    assert!(
        upload["note"]
            .as_str()
            .is_some_and(|n| n.contains("no response") && n.contains("/api/attachments")),
        "{unmatched:#}"
    );

    // responseUrl belongs to upload only: refused before anything is sent.
    let refused = h
        .fails(
            "act",
            json!({ "action": "click", "selector": "#file", "responseUrl": "/upload/" }),
            "INVALID_PARAMS",
        )
        .await;
    assert_not_started(&refused);
    h.shutdown().await;
}

/// The events the press-timing page logged since the last call, then cleared.
async fn logged_events(h: &Harness) -> Vec<Value> {
    let read = h
        .ok(
            "eval",
            json!({ "expression": "window.__events.splice(0, window.__events.length)" }),
        )
        .await;
    read["data"]["value"].as_array().unwrap().clone()
}

/// The time (ms) of the first event of `kind` on `target`.
fn first_at(events: &[Value], target: &str, kind: &str) -> f64 {
    events
        .iter()
        .find(|e| e["target"] == target && e["kind"] == kind)
        .and_then(|e| e["at"].as_f64())
        .unwrap_or_else(|| panic!("no {kind} on {target}: {events:#?}"))
}

fn position(events: &[Value], target: &str, kind: &str) -> usize {
    events
        .iter()
        .position(|e| e["target"] == target && e["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} on {target}: {events:#?}"))
}

/// The page's timestamps are coarsened a little; a busy machine may add to a pause, never
/// take from it.
const CLOCK_SLACK_MS: f64 = 1.0;
const BUSY_SLACK_MS: f64 = 400.0;

#[tokio::test]
async fn a_click_moves_to_the_target_then_holds_the_press_30_to_80_ms() {
    let h = Harness::with(|options| options.enable_eval = true);
    h.ok("navigate", json!({ "url": h.url("press-timing.html") }))
        .await;
    let mut gaps = Vec::new();
    for _ in 0..5 {
        h.ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Press me", "snapshot": false }),
        )
        .await;
        let events = logged_events(&h).await;
        assert!(
            position(&events, "press", "pointermove") < position(&events, "press", "pointerdown"),
            "the pointer came to the target before it pressed: {events:#?}"
        );
        let gap =
            first_at(&events, "press", "pointerup") - first_at(&events, "press", "pointerdown");
        gaps.push(gap);
    }
    eprintln!("press-release gaps: {gaps:?} ms");
    for gap in &gaps {
        assert!(
            (30.0 - CLOCK_SLACK_MS..=80.0 + BUSY_SLACK_MS).contains(gap),
            "{gaps:?}"
        );
    }
    h.shutdown().await;
}

#[tokio::test]
async fn a_configured_press_pause_is_held_and_zero_still_clicks() {
    let slow = browser::PressPause::parse("150,160").unwrap();
    let h = Harness::with(move |options| {
        options.enable_eval = true;
        options.press_pause = slow;
    });
    h.ok("navigate", json!({ "url": h.url("press-timing.html") }))
        .await;
    h.ok(
        "act",
        json!({ "action": "click", "role": "button", "name": "Press me", "snapshot": false }),
    )
    .await;
    let events = logged_events(&h).await;
    let gap = first_at(&events, "press", "pointerup") - first_at(&events, "press", "pointerdown");
    assert!(gap >= 150.0 - CLOCK_SLACK_MS, "{gap} ms");
    h.shutdown().await;

    let h = Harness::with(|options| {
        options.enable_eval = true;
        options.press_pause = browser::PressPause::NONE;
    });
    h.ok("navigate", json!({ "url": h.url("press-timing.html") }))
        .await;
    h.ok(
        "act",
        json!({ "action": "click", "role": "button", "name": "Press me", "snapshot": false }),
    )
    .await;
    let events = logged_events(&h).await;
    assert!(position(&events, "press", "pointerup") < position(&events, "press", "click"));
    h.shutdown().await;
}

#[tokio::test]
async fn under_a_touch_preset_a_tap_is_held_and_a_drag_moves_the_finger() {
    let h = Harness::with(|options| options.enable_eval = true);
    h.ok("navigate", json!({ "url": h.url("press-timing.html") }))
        .await;
    h.ok("viewport", json!({ "preset": "phone" })).await;
    h.ok(
        "act",
        json!({ "action": "click", "role": "button", "name": "Press me", "snapshot": false }),
    )
    .await;
    let events = logged_events(&h).await;
    let held = first_at(&events, "press", "touchend") - first_at(&events, "press", "touchstart");
    assert!(
        (30.0 - CLOCK_SLACK_MS..=80.0 + BUSY_SLACK_MS).contains(&held),
        "{held} ms: {events:#?}"
    );
    assert!(events.iter().any(|e| e["kind"] == "click"), "{events:#?}");

    h.ok(
        "act",
        json!({ "action": "drag", "role": "region", "name": "Drag pad",
                "to": { "role": "region", "name": "Drop zone" }, "snapshot": false }),
    )
    .await;
    let events = logged_events(&h).await;
    let moves = events
        .iter()
        .filter(|e| e["target"] == "pad" && e["kind"] == "touchmove")
        .count();
    assert!(moves >= 2, "{events:#?}");
    assert!(
        position(&events, "pad", "touchstart") < position(&events, "pad", "touchmove")
            && position(&events, "pad", "touchmove") < position(&events, "pad", "touchend"),
        "{events:#?}"
    );
    let pointer = events
        .iter()
        .find(|e| e["kind"] == "pointerdown")
        .unwrap_or_else(|| panic!("{events:#?}"));
    assert_eq!(pointer["pointerType"], "touch", "{events:#?}");
    assert!(
        !events.iter().any(|e| e["kind"] == "mousedown"),
        "a touch drag sends no mouse press: {events:#?}"
    );
    h.shutdown().await;
}

/// The refs of the lines containing `needle`, in order.
fn refs_on(snapshot: &Value, needle: &str) -> Vec<String> {
    snapshot["data"]["text"]
        .as_str()
        .unwrap()
        .lines()
        .filter(|l| l.contains(needle))
        .filter_map(|l| {
            let start = l.find(" [e")? + 2;
            let end = start + l[start..].find(']')?;
            Some(l[start..end].to_string())
        })
        .collect()
}

#[tokio::test]
async fn a_ref_whose_element_was_replaced_acts_on_its_unique_stand_in_as_relocated() {
    let h = Harness::with(|options| options.enable_eval = true);
    h.ok("navigate", json!({ "url": h.url("rerender-form.html") }))
        .await;
    let before = h.ok("snapshot", json!({})).await;
    let submits = refs_on(&before, "button \"Submit\"");
    assert_eq!(submits.len(), 2, "{before:#}");
    let bottom = submits[1].clone();
    // The form is rendered again with one Submit: new nodes, the bottom one gone.
    h.ok(
        "act",
        json!({ "action": "click", "role": "button", "name": "Compact view" }),
    )
    .await;
    let clicked = h
        .ok("act", json!({ "action": "click", "ref": bottom }))
        .await;
    assert_eq!(clicked["data"]["relocated"], true, "{clicked:#}");
    assert_eq!(clicked["data"]["name"], "Submit");
    let log = h.ok("eval", json!({ "expression": "window.__log" })).await;
    assert_eq!(log["data"]["value"], json!(["submit:compact"]), "{log:#}");
    h.shutdown().await;
}

#[tokio::test]
async fn fill_inside_a_cross_origin_frame_is_read_back_and_reaches_the_frame() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("frame-field-host.html") }))
        .await;
    let text = until_in_snapshot(&h, "Nothing typed").await;
    assert!(text.contains("Nothing typed"), "{text}");
    let filled = h
        .ok(
            "act",
            json!({ "action": "fill", "role": "textbox", "name": "Card number",
                    "text": "4242 4242 4242 4242" }),
        )
        .await;
    assert_eq!(filled["data"]["inputValueVerified"], true, "{filled:#}");
    assert_eq!(filled["data"]["valueAfter"], "4242 4242 4242 4242");
    let text = until_in_snapshot(&h, "Frame got 4242 4242 4242 4242").await;
    assert!(text.contains("Frame got 4242 4242 4242 4242"), "{text}");
    h.shutdown().await;
}
