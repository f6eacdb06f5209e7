//! Where a pointer action lands and what it says it did, on pages built the way widget
//! libraries build them: a grid whose row centre is a column's resize handle, a switch
//! component drawn over its own input, a list that re-renders under the press, a hover
//! card that comes over the button as the pointer arrives, a button that does nothing.

use serde_json::{Value, json};

use crate::harness::{Harness, page_text, ref_on};

fn harness() -> Harness {
    Harness::with(|options| options.enable_eval = true)
}

async fn snapshot(h: &Harness) -> String {
    let read = h.ok("snapshot", json!({ "maxTokens": 20000 })).await;
    read["data"]["text"].as_str().unwrap().to_string()
}

async fn log(h: &Harness) -> Vec<String> {
    let read = h.ok("eval", json!({ "expression": "window.__log" })).await;
    serde_json::from_value(read["data"]["value"].clone()).unwrap()
}

/// The note an action's answer carries, if any.
fn note(envelope: &Value) -> Option<&str> {
    envelope["data"]["note"].as_str()
}

#[tokio::test]
async fn a_grid_row_is_clicked_on_its_own_text_not_on_the_resize_handle_at_its_centre() {
    let h = harness();
    h.ok(
        "navigate",
        json!({ "url": h.url("widgets/resizable-grid.html") }),
    )
    .await;
    let page = snapshot(&h).await;
    let row = ref_on(&page, "Bruno");
    let clicked = h.ok("act", json!({ "action": "click", "ref": row })).await;
    assert!(
        page_text(&h).await.contains("Selected: Bruno"),
        "{clicked:#}"
    );
    let log = log(&h).await;
    assert!(!log.iter().any(|l| l.starts_with("resize:")), "{log:?}");
    // The row changed (its selection), so the answer makes no claim that nothing did.
    assert_eq!(note(&clicked), None, "{clicked:#}");
    h.shutdown().await;
}

#[tokio::test]
async fn a_click_that_changes_nothing_says_so_without_failing() {
    let h = harness();
    h.ok(
        "navigate",
        json!({ "url": h.url("widgets/resizable-grid.html") }),
    )
    .await;
    let page = snapshot(&h).await;
    let export = ref_on(&page, "\"Export\"");
    let clicked = h
        .ok("act", json!({ "action": "click", "ref": export }))
        .await;
    assert_eq!(clicked["execution"]["actionStatus"], "completed");
    assert_eq!(clicked["verification"]["verified"], Value::Null);
    let said = note(&clicked).unwrap_or_else(|| panic!("no note: {clicked:#}"));
    assert!(said.contains("nothing on the page changed"), "{said}");
    h.shutdown().await;
}

#[tokio::test]
async fn a_switch_drawn_over_its_own_input_is_toggled_and_one_under_a_page_notice_is_occluded() {
    let h = harness();
    h.ok(
        "navigate",
        json!({ "url": h.url("widgets/switch-component.html") }),
    )
    .await;
    let page = snapshot(&h).await;
    let notify = ref_on(&page, "\"Notifications\"");
    let checked = h
        .ok("act", json!({ "action": "check", "ref": notify }))
        .await;
    assert_eq!(checked["data"]["changed"], true, "{checked:#}");
    assert!(page_text(&h).await.contains("Notifications: on"));
    h.ok("act", json!({ "action": "click", "ref": notify }))
        .await;
    assert!(page_text(&h).await.contains("Notifications: off"));

    // A notice of the page over the other switch is a real cover: refused, named.
    let page = snapshot(&h).await;
    let sync = ref_on(&page, "\"Sync\"");
    let refused = h
        .fails(
            "act",
            json!({ "action": "check", "ref": sync, "actionTimeoutMs": 0 }),
            "ELEMENT_OCCLUDED",
        )
        .await;
    let covering = refused["data"]["coveringElement"].as_str().unwrap();
    assert!(covering.contains("div#toast"), "{covering}");
    assert!(page_text(&h).await.contains("Sync: off"));
    h.shutdown().await;
}

#[tokio::test]
async fn a_press_whose_option_is_re_rendered_before_its_release_is_reported_not_done() {
    let h = harness();
    h.ok(
        "navigate",
        json!({ "url": h.url("widgets/city-picker.html") }),
    )
    .await;
    let page = snapshot(&h).await;
    let lisbon = ref_on(&page, "\"Lisbon\"");
    let pressed = h
        .call("act", json!({ "action": "click", "ref": lisbon }))
        .await;
    assert_eq!(pressed["ok"], false, "{pressed:#}");
    assert_eq!(pressed["status"], "partial", "{pressed:#}");
    assert_eq!(pressed["code"], "TARGET_REPLACED", "{pressed:#}");
    assert_eq!(pressed["execution"]["actionStatus"], "completed");
    assert_eq!(pressed["execution"]["retrySafe"], false);
    assert_eq!(pressed["verification"]["verified"], Value::Null);
    let log = log(&h).await;
    assert!(log.contains(&"down:Lisbon".to_string()), "{log:?}");
    assert!(!log.contains(&"chosen:Lisbon".to_string()), "{log:?}");
    assert!(page_text(&h).await.contains("Chosen: none"));

    // When an expectation says the page did what was meant all the same (here: it saw
    // the press), the split is a note beside a verified outcome.
    let page = snapshot(&h).await;
    let madrid = ref_on(&page, "\"Madrid\"");
    let verified = h
        .ok(
            "act",
            json!({ "action": "click", "ref": madrid,
                "expect": { "js": "window.__log.includes('down:Madrid')", "truthy": true } }),
        )
        .await;
    assert_eq!(verified["verification"]["verified"], true, "{verified:#}");
    let said = note(&verified).unwrap_or_else(|| panic!("no note: {verified:#}"));
    assert!(said.contains("split by a re-render"), "{said}");
    h.shutdown().await;
}

/// A press that lands on something the page put over the element after its click point
/// was checked (a hover card opened by the pointer's arrival) is reported as missed,
/// naming what was pressed, not as a click on the element; a click on a button with no
/// hover card beside it is plain.
#[tokio::test]
async fn a_press_that_lands_on_a_hover_card_over_the_button_is_reported_missed() {
    let h = harness();
    h.ok(
        "navigate",
        json!({ "url": h.url("widgets/hover-card.html") }),
    )
    .await;
    let page = snapshot(&h).await;
    let wish = ref_on(&page, "\"Wish list\"");
    let wished = h.ok("act", json!({ "action": "click", "ref": wish })).await;
    assert_eq!(wished["code"], Value::Null, "{wished:#}");
    assert!(page_text(&h).await.contains("Status: wished"));

    let buy = ref_on(&page, "\"Buy\"");
    let pressed = h
        .call("act", json!({ "action": "click", "ref": buy }))
        .await;
    assert_eq!(pressed["ok"], false, "{pressed:#}");
    assert_eq!(pressed["status"], "partial", "{pressed:#}");
    assert_eq!(pressed["code"], "TARGET_MISSED", "{pressed:#}");
    assert_eq!(pressed["execution"]["actionStatus"], "completed");
    assert_eq!(pressed["execution"]["retrySafe"], false);
    let on = pressed["data"]["pressed"].as_str().unwrap_or_default();
    // The panel, or what is in it where the button was.
    assert!(
        ["div#promo", "p", "button#close"].contains(&on),
        "{pressed:#}"
    );
    let log = log(&h).await;
    assert!(log.contains(&"promo:shown".to_string()), "{log:?}");
    assert!(!log.contains(&"bought".to_string()), "{log:?}");
    assert!(!log.contains(&"down:buy".to_string()), "{log:?}");
    assert!(page_text(&h).await.contains("Status: wished"));
    h.shutdown().await;
}

/// `act` at a point, for what has no node of its own: the canvas is named as what the
/// click landed on, and the page records it at that very point; a double-click and a
/// hover at points too. A point outside the viewport, half a point, or a point beside a
/// locator is refused before anything is dispatched.
#[tokio::test]
async fn a_canvas_is_clicked_at_a_point_and_named_as_what_received_it() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("canvas.html") }))
        .await;
    let hovered = h
        .ok("act", json!({ "action": "hover", "x": 50, "y": 60 }))
        .await;
    // The canvas listens for clicks: candor reads it as `clickable "Board"`, with a ref.
    assert_eq!(hovered["data"]["name"], "Board", "{hovered:#}");
    assert!(hovered["data"]["ref"].is_string(), "{hovered:#}");
    assert!(page_text(&h).await.contains("Hovered at 50,60"));
    let clicked = h
        .ok(
            "act",
            json!({ "action": "click", "x": 120.4, "y": 75.6, "expect": { "text": "Clicked at 120,76" } }),
        )
        .await;
    assert_eq!(clicked["data"]["role"], "clickable", "{clicked:#}");
    assert_eq!(clicked["data"]["name"], "Board", "{clicked:#}");
    assert_eq!(
        clicked["data"]["ref"], hovered["data"]["ref"],
        "{clicked:#}"
    );
    assert_eq!(clicked["verification"]["verified"], true, "{clicked:#}");
    h.ok(
        "act",
        json!({ "action": "dblclick", "x": 300, "y": 200, "expect": { "text": "Double-clicked at 300,200" } }),
    )
    .await;
    for (params, why) in [
        (json!({ "action": "click", "x": 5000, "y": 10 }), "outside"),
        (json!({ "action": "click", "x": 10 }), "together"),
        (
            json!({ "action": "click", "x": 10, "y": 10, "selector": "#board" }),
            "not both",
        ),
        (
            json!({ "action": "fill", "x": 10, "y": 10, "text": "a" }),
            "go with",
        ),
    ] {
        let refused = h.fails("act", params.clone(), "INVALID_PARAMS").await;
        assert!(
            refused["message"].as_str().unwrap().contains(why),
            "{params}: {refused:#}"
        );
        assert_eq!(
            refused["execution"]["dispatchStarted"], false,
            "{refused:#}"
        );
    }
    h.shutdown().await;
}
