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
    // The panel grows for 400 ms, clipping what it does not yet show: the settle waited
    // for it (not for the clock, which never stops).
    let diff = data["diff"].as_str().unwrap();
    assert!(diff.contains("ZEBRA-PANEL-END"), "{diff}");
    let after = h.ok("snapshot", json!({})).await;
    assert!(text(&after).contains("ZEBRA-PANEL-END"), "{after:#}");
    assert!(after["data"].get("settling").is_none(), "{after:#}");
    h.shutdown().await;
}

#[tokio::test]
async fn a_panel_opened_by_an_interval_timer_is_waited_for_too() {
    let h = Harness::new();
    h.ok(
        "navigate",
        json!({ "url": h.url("untuned/script-accordion.html") }),
    )
    .await;
    h.ok("snapshot", json!({})).await;
    let clicked = h
        .ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Can I return an item?" }),
        )
        .await;
    let data = &clicked["data"];
    assert_eq!(data["settled"], true, "{clicked:#}");
    // The panel clips what it has not yet grown to show: its last line is there only
    // once the timer's animation has run to its end.
    assert!(
        data["diff"].as_str().unwrap().contains("OTTER-PANEL-END"),
        "{clicked:#}"
    );
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

#[tokio::test]
async fn scrolled_out_options_and_rows_are_listed_when_they_fit_and_counted_as_listed_of_total_when_not()
 {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("widgets/listbox.html") }))
        .await;
    let snapshot = h.ok("snapshot", json!({ "maxTokens": 20000 })).await;
    let shown = text(&snapshot);
    // Every option of the native multi-select and of the ARIA listbox, each with a ref.
    for n in 1..=40 {
        for label in [format!("Option {n}"), format!("Color {n}")] {
            let line = shown
                .lines()
                .find(|l| l.contains(&format!("option \"{label}\"")))
                .unwrap_or_else(|| panic!("{label} missing from\n{shown}"));
            assert!(line.contains(" [e"), "{line}");
        }
    }
    // The scrolled message list fits the budget: every message is listed, with its
    // button's ref, though most are scrolled out of view — and nothing is counted.
    for n in [1, 30, 60] {
        assert!(
            shown.contains(&format!("Message {n}\n")),
            "Message {n} missing from\n{shown}"
        );
    }
    assert!(shown.contains("# out of view from here"), "{shown}");
    assert!(!shown.contains("more item"), "{shown}");
    assert!(snapshot["data"].get("lists").is_none(), "{snapshot:#}");
    // A budget too small for it counts what did not fit where it was cut, with the
    // container's ref, how many are listed and of how many; the data says the same.
    let small = h.ok("snapshot", json!({ "maxTokens": 1500 })).await;
    let cut = text(&small);
    let summary = cut
        .lines()
        .find(|l| l.contains("more items below (scrolled out of view;"))
        .unwrap_or_else(|| panic!("no count of scrolled-out rows in\n{cut}"));
    assert!(summary.contains(" of 60 listed) — scroll [e"), "{summary}");
    let lists = small["data"]["lists"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let messages = lists
        .iter()
        .find(|l| l["total"] == 60)
        .unwrap_or_else(|| panic!("{small:#}"));
    let listed = messages["listed"].as_u64().unwrap_or_default();
    assert!(listed > 0 && listed < 60, "{small:#}");
    assert!(
        summary.contains(&format!("; {listed} of 60 listed)")),
        "{summary}"
    );
    // find reaches them, and acting scrolls them into view inside their container.
    let found = h.ok("find", json!({ "text": "Message 60" })).await;
    assert!(found["data"]["matches"][0]["ref"].is_string(), "{found:#}");
    let color = shown
        .lines()
        .find(|l| l.contains("option \"Color 33\""))
        .unwrap();
    let r = &color[color.find("[e").unwrap() + 1..color.find(']').unwrap()];
    h.ok(
        "act",
        json!({ "action": "click", "ref": r, "expect": { "text": "picked: Color 33" } }),
    )
    .await;
    let picked = h
        .ok(
            "act",
            json!({ "action": "select", "role": "listbox", "name": "Options",
                    "values": ["Option 2", "Option 33"] }),
        )
        .await;
    assert!(
        picked["data"]["selected"].to_string().contains("Option 33"),
        "{picked:#}"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn typed_inputs_are_one_element_with_their_value_and_a_textarea_is_multiline() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("widgets/native.html") }))
        .await;
    let snapshot = h.ok("snapshot", json!({ "maxTokens": 20000 })).await;
    let shown = text(&snapshot);
    for internal in [
        "spinbutton \"Month\"",
        "spinbutton \"Day\"",
        "spinbutton \"Year\"",
        "\"Hours\"",
    ] {
        assert!(!shown.contains(internal), "{internal} in\n{shown}");
    }
    let line = |start: &str| {
        shown
            .lines()
            .map(str::trim_start)
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no line starting {start} in\n{shown}"))
            .to_string()
    };
    assert!(line("- date ").contains(" [e"), "{shown}");
    assert!(line("- time ").contains(" [e"), "{shown}");
    assert!(line("- datetime-local ").contains(" [e"), "{shown}");
    assert!(line("- color ").contains("value=\"#000000\""), "{shown}");
    assert!(line("- slider ").contains("value=\"50\""), "{shown}");
    assert!(line("- textbox \"Notes\"").contains("multiline"), "{shown}");
    h.shutdown().await;
}

#[tokio::test]
async fn a_clickable_terminal_keeps_its_output_lines_in_the_snapshot() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("widgets/terminal.html") }))
        .await;
    h.ok(
        "act",
        json!({ "action": "click", "role": "textbox", "name": "Command" }),
    )
    .await;
    for key in ["l", "s", "Enter"] {
        h.ok("act", json!({ "action": "press", "keys": key })).await;
    }
    let snapshot = h.ok("snapshot", json!({})).await;
    let shown = text(&snapshot);
    for output in ["total 3", "file-a.txt", "file-b.txt"] {
        assert!(
            shown.lines().any(|l| l.trim() == output),
            "{output} not a line of its own in\n{shown}"
        );
    }
    assert!(
        !shown.contains('…'),
        "a cut name stands in for content:\n{shown}"
    );
    h.shutdown().await;
}
