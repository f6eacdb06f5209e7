//! What a settle waits for and what it names: motion the command started is named while
//! it runs on, motion that ran before it is not; a timer the action scheduled is waited
//! for; what only repaints or turns in place is not, nor the document's own making
//! before its load.

use serde_json::{Value, json};

use crate::harness::{Harness, ref_on};

fn text(envelope: &Value) -> &str {
    envelope["data"]["text"].as_str().unwrap_or_default()
}

/// The names of the options listed in `lines` (`option "Lisbon"`).
fn options(lines: &str) -> Vec<String> {
    lines
        .lines()
        .filter_map(|l| {
            let at = l.find("option \"")? + "option \"".len();
            let end = at + l[at..].find('"')?;
            Some(l[at..end].to_string())
        })
        .collect()
}

#[tokio::test]
async fn a_long_script_animation_the_click_started_is_named_while_it_runs() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("slow-panel.html") }))
        .await;
    // The first read may wait for the marquee that runs from load.
    h.ok("snapshot", json!({})).await;
    // The panel grows for 3 s; the settle budget is shorter, and longer than the second
    // after which motion that ran before the action counts as perpetual.
    let clicked = h
        .ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Show details",
                    "settleMs": 1500 }),
        )
        .await;
    let data = &clicked["data"];
    assert_eq!(data["settled"], false, "{clicked:#}");
    assert_eq!(data["stillChanging"], "div#panel", "{clicked:#}");
    // A read while it still grows says so, and names the panel, not the marquee.
    let read = h.ok("snapshot", json!({ "settleMs": 300 })).await;
    assert_eq!(read["data"]["settling"], true, "{read:#}");
    assert_eq!(read["data"]["stillChanging"], "div#panel", "{read:#}");
    h.shutdown().await;
}

#[tokio::test]
async fn motion_running_from_load_is_named_neither_after_an_action_nor_in_a_read() {
    let h = Harness::new();
    h.ok(
        "navigate",
        json!({ "url": h.url("untuned/spinner-forever.html") }),
    )
    .await;
    h.ok("snapshot", json!({})).await;
    let clicked = h
        .ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Go", "settleMs": 1500 }),
        )
        .await;
    let data = &clicked["data"];
    assert_eq!(data["settled"], true, "{clicked:#}");
    assert!(data.get("stillChanging").is_none(), "{clicked:#}");
    let read = h.ok("snapshot", json!({ "settleMs": 300 })).await;
    assert!(read["data"].get("settling").is_none(), "{read:#}");
    assert!(read["data"].get("stillChanging").is_none(), "{read:#}");
    h.shutdown().await;
}

#[tokio::test]
async fn a_debounced_filter_the_typing_scheduled_is_in_the_answer_and_the_next_snapshot() {
    let h = Harness::new();
    h.ok(
        "navigate",
        json!({ "url": h.url("widgets/debounced-select.html") }),
    )
    .await;
    let page = text(&h.ok("snapshot", json!({})).await).to_string();
    let city = ref_on(&page, "combobox \"City\"");
    let typed = h
        .ok(
            "act",
            json!({ "action": "type", "ref": city, "text": "Lis" }),
        )
        .await;
    assert_eq!(typed["data"]["settled"], true, "{typed:#}");
    let diff = typed["data"]["diff"].as_str().unwrap();
    assert_eq!(options(diff), ["Lisbon"], "{diff}");
    let page = text(&h.ok("snapshot", json!({ "maxTokens": 20000 })).await).to_string();
    assert_eq!(options(&page), ["Lisbon"], "{page}");
    h.ok(
        "act",
        json!({ "action": "click", "ref": ref_on(&page, "option \"Lisbon\""),
                "expect": { "text": "Chosen: Lisbon" } }),
    )
    .await;
    h.shutdown().await;
}

#[tokio::test]
async fn the_first_read_after_load_does_not_wait_for_the_documents_making() {
    let h = Harness::new();
    for page in ["index.html", "article.html", "docs-like.html"] {
        h.ok("navigate", json!({ "url": h.url(page) })).await;
        // The parser's insertions, just before the load event, are over: nothing to wait for.
        let read = h.ok("snapshot", json!({})).await;
        assert!(read["data"].get("settleMs").is_none(), "{page}: {read:#}");
        assert!(read["data"].get("settling").is_none(), "{page}: {read:#}");
    }
    h.shutdown().await;
}

#[tokio::test]
async fn a_read_waits_for_what_moves_and_not_for_what_turns_in_place_or_recolours() {
    let h = Harness::with_eval();
    h.ok("navigate", json!({ "url": h.url("article.html") }))
        .await;
    // An expander's chevron turning and a heading changing colour, each for 3 s: neither
    // changes what a snapshot reads.
    h.ok(
        "eval",
        json!({ "expression": r#"
            const chevron = document.createElement("span");
            chevron.textContent = "❱";
            chevron.style.cssText = "display:inline-block; width:16px; height:16px";
            document.body.prepend(chevron);
            window.__turn = chevron.animate(
                [{ transform: "rotate(90deg)" }, { transform: "none" }], 3000);
            window.__colour = document.body.animate(
                [{ backgroundColor: "white" }, { backgroundColor: "yellow" }], 3000);
            return true;
        "# }),
    )
    .await;
    h.ok("snapshot", json!({ "settleMs": 5000 })).await;
    let running = h
        .ok(
            "eval",
            json!({ "expression": "[window.__turn.playState, window.__colour.playState]" }),
        )
        .await;
    assert_eq!(
        running["data"]["value"],
        json!(["running", "running"]),
        "the read waited for them: {running:#}"
    );
    // A panel sliding in for 1.5 s moves what is read: the read waits for it to end.
    h.ok(
        "eval",
        json!({ "expression": r#"
            const panel = document.createElement("div");
            panel.textContent = "Sliding panel";
            panel.style.cssText = "width:400px; height:200px";
            document.body.prepend(panel);
            window.__slide = panel.animate(
                [{ transform: "translateX(-500px)" }, { transform: "none" }], 1500);
            return true;
        "# }),
    )
    .await;
    let read = h.ok("snapshot", json!({ "settleMs": 5000 })).await;
    assert!(read["data"].get("settling").is_none(), "{read:#}");
    let slid = h
        .ok("eval", json!({ "expression": "window.__slide.playState" }))
        .await;
    assert_eq!(slid["data"]["value"], "finished", "{slid:#} {read:#}");
    h.shutdown().await;
}

/// A quiet page's read goes out with the settle check (one round trip into the page); a
/// page that changed after the check began is read again once it is quiet, so the answer
/// never shows the page the check caught mid-change.
#[tokio::test]
async fn a_read_sent_with_the_settle_check_is_kept_only_when_the_page_stood_still_through_it() {
    let h = Harness::with_eval();
    h.ok("navigate", json!({ "url": h.url("index.html") }))
        .await;
    // Twelve frames of changes, begun just before a read: the check finds the page
    // changing, and what changes after its start lands after the read sent with it was
    // made, so that read is dropped and the page read again once quiet.
    let ticker = r#"
        const out = document.getElementById("ticker") || document.body.appendChild(
            Object.assign(document.createElement("p"), { id: "ticker" }));
        let n = 0;
        const step = () => {
            n += 1;
            out.textContent = n < 12 ? "step " + n : "ticker finished";
            if (n < 12) requestAnimationFrame(step);
        };
        step();
        return true;
    "#;
    for mode in ["text", "elements"] {
        // Two reads of a page that stands still (the second one at once): the next read
        // goes out with the check.
        for _ in 0..2 {
            h.ok("snapshot", json!({ "mode": mode })).await;
        }
        h.ok("eval", json!({ "expression": ticker })).await;
        let read = h.ok("snapshot", json!({ "mode": mode })).await;
        assert!(text(&read).contains("ticker finished"), "{mode}: {read:#}");
        assert!(!text(&read).contains("step "), "{mode}: {read:#}");
        assert!(
            read["data"]["settleMs"].as_u64().is_some_and(|ms| ms > 0),
            "{mode}: the read waited for the page: {read:#}"
        );
    }
    h.shutdown().await;
}
