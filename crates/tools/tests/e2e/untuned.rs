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

/// The page's text as the snapshot shows it: text lines as they are, and the name of an
/// element line that stands for its own text (`- listitem "Apples"`).
fn shown_text(snapshot: &str) -> Vec<String> {
    snapshot
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            match line.strip_prefix("- ") {
                Some(element) => {
                    let start = element.find('"')?;
                    let end = element.rfind('"')?;
                    (end > start).then(|| element[start + 1..end].to_string())
                }
                None => Some(line.to_string()),
            }
        })
        .collect()
}

#[tokio::test]
async fn snapshot_text_keeps_the_pages_block_and_inline_boundaries_as_inner_text_does() {
    let h = Harness::with(|options| options.enable_eval = true);
    h.ok(
        "navigate",
        json!({ "url": h.url("widgets/text-blocks.html") }),
    )
    .await;
    let snapshot = h.ok("snapshot", json!({ "maxTokens": 20000 })).await;
    let shown = shown_text(text(&snapshot));
    let cases = h
        .ok(
            "eval",
            json!({ "expression": "[...document.querySelectorAll('section.case')].map(s => s.innerText)" }),
        )
        .await;
    let cases = cases["data"]["value"].as_array().unwrap().clone();
    assert!(cases.len() >= 12);
    for (n, case) in cases.iter().enumerate() {
        if n + 1 == 9 {
            continue; // a link inside the sentence: its own line, checked below
        }
        // innerText's lines, blank ones dropped; table cells (tabs) are lines of their own.
        let want: Vec<String> = case
            .as_str()
            .unwrap()
            .split(['\n', '\t'])
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|l| !l.is_empty())
            .collect();
        let found = shown.windows(want.len()).any(|w| w == want.as_slice());
        assert!(
            found,
            "case {}: innerText lines {want:#?} not shown as such in\n{}",
            n + 1,
            text(&snapshot)
        );
    }
    let sentence = [
        "This sentence has bold and italic words and",
        "a link",
        "in the middle.",
    ];
    assert!(
        shown.windows(3).any(|w| w == sentence),
        "{}",
        text(&snapshot)
    );
    h.shutdown().await;
}
