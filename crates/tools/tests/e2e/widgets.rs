//! Widgets as real sites ship them (jQuery UI, native controls, a virtual list), acted on
//! through snapshot refs the way an agent does.

use serde_json::{Value, json};

use crate::harness::{Harness, ref_on};

fn harness() -> Harness {
    Harness::with(|options| options.enable_eval = true)
}

fn text(envelope: &Value) -> &str {
    envelope["data"]["text"].as_str().unwrap_or_default()
}

async fn snapshot(h: &Harness) -> String {
    text(&h.ok("snapshot", json!({ "maxTokens": 20000 })).await).to_string()
}

async fn log(h: &Harness) -> Vec<String> {
    let read = h.ok("eval", json!({ "expression": "window.__log" })).await;
    serde_json::from_value(read["data"]["value"].clone()).unwrap()
}

async fn click(h: &Harness, r: &str) -> Value {
    h.ok("act", json!({ "action": "click", "ref": r })).await
}

#[tokio::test]
async fn a_jquery_ui_accordion_section_opened_by_ref_is_whole_in_the_diff() {
    let h = harness();
    h.ok(
        "navigate",
        json!({ "url": h.url("widgets/accordion.html") }),
    )
    .await;
    let page = snapshot(&h).await;
    assert!(!page.contains("END OF SECTION TWO"), "{page}");
    let opened = click(&h, &ref_on(&page, "\"Section 2\"")).await;
    assert_eq!(opened["data"]["settled"], true, "{opened:#}");
    let diff = opened["data"]["diff"].as_str().unwrap();
    assert!(diff.contains("END OF SECTION TWO"), "{diff}");
    assert!(snapshot(&h).await.contains("END OF SECTION TWO"));
    assert!(log(&h).await.contains(&"activate:Section 2".to_string()));
    h.shutdown().await;
}

#[tokio::test]
async fn a_jquery_ui_datepicker_day_is_picked_by_ref_and_the_calendar_leaves_no_lines() {
    let h = harness();
    h.ok(
        "navigate",
        json!({ "url": h.url("widgets/datepicker.html") }),
    )
    .await;
    let page = snapshot(&h).await;
    click(&h, &ref_on(&page, "\"Start date\"")).await;
    let calendar = snapshot(&h).await;
    assert!(calendar.contains("March"), "{calendar}");
    let picked = click(&h, &ref_on(&calendar, "link \"17\"")).await;
    // The calendar fades out over 400 ms: the click settles once it is gone.
    assert_eq!(picked["data"]["settled"], true, "{picked:#}");
    let after = snapshot(&h).await;
    assert!(after.contains("value=\"03/17/2015\""), "{after}");
    assert!(
        !after.contains("link \"18\""),
        "the faded calendar is still shown:\n{after}"
    );
    assert!(!after.contains("- clickable [e"), "{picked:#}\n{after}");
    h.shutdown().await;
}

#[tokio::test]
async fn a_jquery_ui_autocomplete_suggestion_is_chosen_by_ref() {
    let h = harness();
    h.ok(
        "navigate",
        json!({ "url": h.url("widgets/autocomplete.html") }),
    )
    .await;
    let page = snapshot(&h).await;
    let typed = h
        .ok(
            "act",
            json!({ "action": "type", "ref": ref_on(&page, "\"Country\""), "text": "Ku" }),
        )
        .await;
    assert_eq!(typed["data"]["settled"], true, "{typed:#}");
    let suggestions = snapshot(&h).await;
    let kuwait = ref_on(&suggestions, "\"Kuwait\"");
    h.ok(
        "act",
        json!({ "action": "click", "ref": kuwait, "expect": { "text": "chosen: Kuwait" } }),
    )
    .await;
    h.shutdown().await;
}

#[tokio::test]
async fn a_jquery_ui_slider_handle_and_spinner_take_keys_by_ref() {
    let h = harness();
    h.ok(
        "navigate",
        json!({ "url": h.url("widgets/slider-spinner.html") }),
    )
    .await;
    let page = snapshot(&h).await;
    // The handle is a role-less span in the tab order: it still gets a ref.
    let handle = page
        .lines()
        .skip_while(|l| !l.contains("Volume"))
        .find(|l| l.contains(" [e"))
        .map(|l| ref_on(l, " [e"))
        .unwrap_or_else(|| panic!("no slider handle ref in\n{page}"));
    h.ok(
        "act",
        json!({ "action": "press", "ref": handle, "keys": "ArrowRight",
                "expect": { "text": "21" } }),
    )
    .await;
    let spinner = ref_on(&page, "\"Quantity\"");
    h.ok(
        "act",
        json!({ "action": "press", "ref": spinner, "keys": "ArrowUp" }),
    )
    .await;
    let read = h
        .ok(
            "eval",
            json!({ "expression": "document.querySelector('#quantity').value" }),
        )
        .await;
    assert_eq!(read["data"]["value"], "2", "{read:#}");
    h.shutdown().await;
}

#[tokio::test]
async fn native_select_and_details_work_by_ref() {
    let h = harness();
    h.ok("navigate", json!({ "url": h.url("widgets/native.html") }))
        .await;
    let page = snapshot(&h).await;
    let chosen = h
        .ok(
            "act",
            json!({ "action": "select", "ref": ref_on(&page, "\"Fruit\""), "values": ["cherry"] }),
        )
        .await;
    assert!(
        chosen["data"]["selected"].to_string().contains("cherry"),
        "{chosen:#}"
    );
    assert!(
        !page.contains("\"Gift wrap\""),
        "closed details content shown:\n{page}"
    );
    let opened = click(&h, &ref_on(&page, "\"More options\"")).await;
    let diff = opened["data"]["diff"].as_str().unwrap();
    assert!(diff.contains("Gift wrap"), "{diff}");
    let now = snapshot(&h).await;
    let checked = h
        .ok(
            "act",
            json!({ "action": "check", "ref": ref_on(&now, "checkbox \"Gift wrap\"") }),
        )
        .await;
    assert_eq!(checked["data"]["changed"], true);
    assert!(log(&h).await.iter().any(|l| l.starts_with("gift:change")));
    h.shutdown().await;
}

#[tokio::test]
async fn a_virtual_lists_rows_are_listed_and_acted_on_by_ref_and_its_container_is_covered() {
    let h = harness();
    h.ok(
        "navigate",
        json!({ "url": h.url("widgets/virtual-list.html") }),
    )
    .await;
    let page = snapshot(&h).await;
    // The recycled rows below the list's box are listed, marked as out of view; the
    // coverage line names the list by its ref and says how little of it was seen.
    let out = page
        .find("# out of view from here")
        .unwrap_or_else(|| panic!("{page}"));
    assert!(page[out..].contains("Row 25 "), "{page}");
    let coverage = page
        .lines()
        .find(|l| l.starts_with("# coverage:"))
        .unwrap_or_else(|| panic!("{page}"));
    assert!(coverage.contains("; container [e"), "{coverage}");
    click(&h, &ref_on(&page, "Row 3 ")).await;
    assert!(log(&h).await.contains(&"clicked:Row 3".to_string()));
    // find reaches a row scrolled out of the list's box.
    let found = h.ok("find", json!({ "text": "Row 25 " })).await;
    let far = found["data"]["matches"][0]["ref"]
        .as_str()
        .unwrap()
        .to_string();
    // Scrolling it into view recycles its node for another row: the click follows
    // Row 25 to the node that shows it then — never the row that took its node.
    let clicked = h.ok("act", json!({ "action": "click", "ref": far })).await;
    assert_eq!(clicked["data"]["name"], "Row 25 — item 25", "{clicked:#}");
    let clicks: Vec<String> = log(&h)
        .await
        .into_iter()
        .filter(|l| l.starts_with("clicked:"))
        .collect();
    assert_eq!(clicks, ["clicked:Row 3", "clicked:Row 25"], "{clicked:#}");
    h.shutdown().await;
}
