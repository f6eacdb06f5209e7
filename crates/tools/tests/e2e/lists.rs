//! Complete when it fits: content in scroll panes and below the fold is listed while the
//! budget has room, each item with a ref an agent acts on; what does not fit is counted
//! where it was cut, with how many of how many are listed. And names, values and options
//! as real widget libraries draw them.

use serde_json::{Value, json};

use crate::harness::{Harness, page_text, ref_on};

fn harness() -> Harness {
    Harness::with(|options| options.enable_eval = true)
}

fn text(envelope: &Value) -> String {
    envelope["data"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// A snapshot at the default budget.
async fn snapshot(h: &Harness) -> Value {
    h.ok("snapshot", json!({})).await
}

/// Whether a line of the page's own text (text mode, no script of ours) reads `what`.
async fn page_says(h: &Harness, what: &str) -> bool {
    page_text(h).await.lines().any(|l| l.trim() == what)
}

#[tokio::test]
async fn every_message_of_a_mail_pane_is_listed_and_the_last_one_opens_by_ref() {
    let h = harness();
    h.ok(
        "navigate",
        json!({ "url": h.url("widgets/inbox-pane.html") }),
    )
    .await;
    let read = snapshot(&h).await;
    let shown = text(&read);
    for subject in [
        "Quarterly numbers",
        "Offsite agenda",
        "Design review notes",
        "Weekly newsletter",
        "Contract renewal (signed)",
    ] {
        assert!(
            shown.contains(&format!("link \"{subject}\" [e")),
            "{subject} missing from\n{shown}"
        );
    }
    // What the pane hides is marked as out of view, once, and nothing is counted.
    assert_eq!(
        shown.matches("# out of view from here").count(),
        1,
        "{shown}"
    );
    assert!(!shown.contains("more item"), "{shown}");
    assert!(read["data"].get("lists").is_none(), "{read:#}");
    let r = ref_on(&shown, "Contract renewal (signed)");
    h.ok("act", json!({ "action": "click", "ref": r })).await;
    assert!(
        page_says(&h, "opened: Contract renewal (signed)").await,
        "opened: Contract renewal (signed)"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn a_custom_dropdown_lists_every_option_of_its_scrolled_list_and_one_is_chosen_by_ref() {
    let h = harness();
    h.ok(
        "navigate",
        json!({ "url": h.url("widgets/custom-select.html") }),
    )
    .await;
    let closed = text(&snapshot(&h).await);
    let opened = h
        .ok(
            "act",
            json!({ "action": "click", "ref": ref_on(&closed, "\"Medium\"") }),
        )
        .await;
    assert!(opened["ok"] == true, "{opened:#}");
    let shown = text(&snapshot(&h).await);
    for option in ["Extra small", "Small", "Large", "Extra large", "Huge"] {
        assert!(
            shown.contains(&format!("\"{option}\" [e")),
            "{option} missing from\n{shown}"
        );
    }
    h.ok(
        "act",
        json!({ "action": "click", "ref": ref_on(&shown, "\"Huge\"") }),
    )
    .await;
    assert!(page_says(&h, "size: Huge").await, "size: Huge");
    h.shutdown().await;
}

#[tokio::test]
async fn twelve_priced_results_in_a_pane_are_all_listed_so_the_cheapest_is_booked() {
    let h = harness();
    h.ok(
        "navigate",
        json!({ "url": h.url("widgets/flight-results.html") }),
    )
    .await;
    let shown = text(&snapshot(&h).await);
    // Every result with its price, and a Book button with a ref on each.
    let prices: Vec<(usize, u32)> = shown
        .lines()
        .enumerate()
        .filter_map(|(i, l)| Some((i, l.trim().strip_prefix('$')?.parse().ok()?)))
        .collect();
    assert_eq!(prices.len(), 12, "{shown}");
    let books = shown
        .lines()
        .filter(|l| l.contains("button \"Book\" [e"))
        .count();
    assert_eq!(books, 12, "{shown}");
    // The agent's way: the cheapest price, then the Book button that follows it.
    let (line, cheapest) = prices.iter().min_by_key(|(_, p)| *p).copied().unwrap();
    assert_eq!(cheapest, 189);
    let book = shown
        .lines()
        .skip(line)
        .find(|l| l.contains("button \"Book\""))
        .unwrap();
    h.ok(
        "act",
        json!({ "action": "click", "ref": ref_on(book, "Book") }),
    )
    .await;
    assert!(
        page_says(&h, "booked: QF189 at $189").await,
        "booked: QF189 at $189"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn a_400_row_table_lists_what_fits_and_counts_the_rest_as_listed_of_total() {
    let h = harness();
    h.ok(
        "navigate",
        json!({ "url": h.url("widgets/big-table.html") }),
    )
    .await;
    let read = snapshot(&h).await;
    let shown = text(&read);
    let tokens = read["data"]["tokens"].as_u64().unwrap();
    assert!(tokens <= 4096, "{tokens}");
    // Rows well past the pane's box are listed: the budget is filled outward.
    assert!(shown.contains("Item 40"), "{shown}");
    assert!(!shown.contains("Item 400"), "{shown}");
    let count = shown
        .lines()
        .find(|l| l.contains("more items below (scrolled out of view;"))
        .unwrap_or_else(|| panic!("no count in\n{shown}"));
    assert!(count.contains("— scroll [e"), "{count}");
    let lists = read["data"]["lists"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let rows = lists
        .iter()
        .find(|l| l["total"].as_u64().is_some_and(|t| t >= 400))
        .unwrap_or_else(|| panic!("{read:#}"));
    let listed = rows["listed"].as_u64().unwrap();
    let total = rows["total"].as_u64().unwrap();
    assert!(listed >= 40 && listed < total, "{rows}");
    assert!(
        count.contains(&format!("; {listed} of {total} listed)")),
        "{count}"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn a_small_budget_keeps_a_panes_line_and_its_count_and_the_items_give_way() {
    let h = harness();
    h.ok("navigate", json!({ "url": h.url("coverage/panel.html") }))
        .await;
    let read = h.ok("snapshot", json!({ "maxTokens": 150 })).await;
    let shown = text(&read);
    // The pane's line, and under it the count of its items: the items gave way.
    let lines: Vec<&str> = shown.lines().collect();
    let pane = lines
        .iter()
        .position(|l| l.contains("list \"Notifications\" [e"))
        .unwrap_or_else(|| panic!("no pane in\n{shown}"));
    let count = lines[pane + 1..]
        .iter()
        .find(|l| l.contains(" of 50 listed"))
        .unwrap_or_else(|| panic!("no count in\n{shown}"));
    assert!(count.starts_with("  - … "), "{count}");
    assert!(read["data"]["tokens"].as_u64().unwrap() <= 150, "{read:#}");
    h.shutdown().await;
}

#[tokio::test]
async fn a_jquery_ui_selectmenus_options_each_have_a_ref_and_one_is_chosen_by_it() {
    let h = harness();
    h.ok(
        "navigate",
        json!({ "url": h.url("widgets/selectmenu.html") }),
    )
    .await;
    let closed = text(&snapshot(&h).await);
    h.ok(
        "act",
        json!({ "action": "click", "ref": ref_on(&closed, "value=\"Medium\"") }),
    )
    .await;
    let shown = text(&snapshot(&h).await);
    // Chromium calls an option a wrapper holds (`li > div[role=option]`) what its
    // listener makes it; whatever it is called, it has a ref.
    let listbox = shown
        .find("listbox")
        .unwrap_or_else(|| panic!("no listbox in\n{shown}"));
    for option in ["Slower", "Slow", "Fast", "Faster"] {
        assert!(
            shown[listbox..]
                .lines()
                .any(|l| l.contains(&format!(" \"{option}\" [e"))),
            "{option} has no ref in\n{shown}"
        );
    }
    h.ok(
        "act",
        json!({ "action": "click", "ref": ref_on(&shown[listbox..], "\"Faster\"") }),
    )
    .await;
    assert!(page_says(&h, "speed: Faster").await, "speed: Faster");
    h.shutdown().await;
}

#[tokio::test]
async fn names_and_values_read_as_the_page_has_them() {
    let h = harness();
    h.ok(
        "navigate",
        json!({ "url": h.url("widgets/page-text.html") }),
    )
    .await;
    let shown = text(&snapshot(&h).await);
    // The control character is the page's own, not an escape of it.
    let save = shown
        .lines()
        .find(|l| l.contains("button \"Save\u{8f} draft\" [e"))
        .unwrap_or_else(|| panic!("{shown}"));
    assert!(!shown.contains("\\u{8f}"), "{shown}");
    h.ok(
        "act",
        json!({ "action": "click", "ref": ref_on(save, "Save") }),
    )
    .await;
    assert!(page_says(&h, "saved").await, "saved");
    // The textarea's whole value, to its last word.
    let notes = shown
        .lines()
        .find(|l| l.contains("textbox \"Notes\""))
        .unwrap_or_else(|| panic!("{shown}"));
    assert!(notes.contains(" finale\""), "{notes}");
    assert!(!notes.contains('…'), "{notes}");
    h.shutdown().await;
}
