//! Pages nobody tuned for: observations stay true while a page animates, scrolls inside
//! containers, uses typed inputs and lays text out in blocks.

use serde_json::{Value, json};

use crate::harness::Harness;

fn text(envelope: &Value) -> &str {
    envelope["data"]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn a_panel_opened_by_a_script_animation_is_whole_in_the_diff_and_the_next_snapshot() {
    let h = Harness::new();
    h.ok(
        "navigate",
        json!({ "url": h.url("untuned/script-accordion.html") }),
    )
    .await;
    let before = h.ok("snapshot", json!({})).await;
    assert!(
        !text(&before).contains("ZEBRA-PANEL-END"),
        "{}",
        text(&before)
    );
    let clicked = h
        .ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "How long does delivery take?" }),
        )
        .await;
    let data = &clicked["data"];
    assert_eq!(data["settled"], true, "{clicked:#}");
    // The panel grows for 400 ms: the settle waited for it, not for the clock.
    let waited = data["settleMs"].as_u64().unwrap();
    assert!((300..1_000).contains(&waited), "{clicked:#}");
    let diff = data["diff"].as_str().unwrap();
    assert!(diff.contains("ZEBRA-PANEL-END"), "{diff}");
    let after = h.ok("snapshot", json!({})).await;
    assert!(text(&after).contains("ZEBRA-PANEL-END"), "{after:#}");
    assert!(after["data"].get("settling").is_none(), "{after:#}");
    h.shutdown().await;
}

#[tokio::test]
async fn a_page_with_perpetual_animations_settles_at_once_after_a_click() {
    let h = Harness::new();
    h.ok(
        "navigate",
        json!({ "url": h.url("untuned/spinner-forever.html") }),
    )
    .await;
    // As an agent does: read, then act. (The first read of a page that has just begun a
    // script animation may wait for it; what matters is that the action does not.)
    h.ok("snapshot", json!({})).await;
    let clicked = h
        .ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Go",
                    "expect": { "text": "Went" } }),
        )
        .await;
    assert_eq!(clicked["verification"]["verified"], true);
    assert_eq!(clicked["data"]["settled"], true, "{clicked:#}");
    let waited = clicked["data"]["settleMs"].as_u64().unwrap();
    assert!(
        waited < 500,
        "a spinner and a marquee cost the settle: {clicked:#}"
    );
    let snapshot = h.ok("snapshot", json!({})).await;
    assert!(snapshot["data"].get("settling").is_none(), "{snapshot:#}");
    h.shutdown().await;
}

#[tokio::test]
async fn a_page_still_changing_at_the_settle_budget_says_so_and_names_the_region() {
    let h = Harness::new();
    h.ok(
        "navigate",
        json!({ "url": h.url("untuned/script-accordion.html") }),
    )
    .await;
    let clicked = h
        .envelope(
            "act",
            json!({ "action": "click", "role": "button", "name": "How long does delivery take?",
                    "settleMs": 100 }),
        )
        .await;
    let said = tools::render_text("act", &clicked);
    let clicked = clicked.to_json();
    assert_eq!(clicked["ok"], true, "{clicked:#}");
    let data = &clicked["data"];
    assert_eq!(data["settled"], false, "{clicked:#}");
    assert_eq!(data["stillChanging"], "div#p1", "{clicked:#}");
    assert!(
        said.contains("still changing") && said.contains("div#p1"),
        "{said}"
    );
    h.shutdown().await;
}
