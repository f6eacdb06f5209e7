//! What candor reads back, verifies and reports comes from its own JavaScript world: a
//! page that redefines the functions of its own world (`fixtures/hostile/poisoned.html`)
//! cannot make a failed fill read back as done, an expectation hold that does not, a box
//! read as checked that is not, or a permission report name another origin.

use serde_json::{Value, json};

use crate::harness::{Harness, page_text};

async fn checkout() -> Harness {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("hostile/poisoned.html") }))
        .await;
    h
}

#[tokio::test]
async fn a_field_the_page_empties_never_reads_back_as_filled_whatever_its_value_getter_says() {
    let h = checkout().await;
    let filled = h
        .fails(
            "act",
            json!({ "action": "fill", "role": "textbox", "name": "Card number",
                "text": "4242 4242 4242 4242" }),
            "INPUT_MISMATCH",
        )
        .await;
    assert_eq!(
        filled["execution"]["actionStatus"], "completed",
        "{filled:#}"
    );
    // What the field holds, read in candor's world: nothing.
    assert_eq!(filled["data"]["actual"], "", "{filled:#}");
    h.shutdown().await;
}

#[tokio::test]
async fn an_expectation_the_page_does_not_show_fails_whatever_its_text_getters_say() {
    let h = checkout().await;
    let paid = h
        .fails(
            "act",
            json!({ "action": "click", "role": "button", "name": "Pay",
                "expect": { "text": "Payment complete", "timeoutMs": 300 } }),
            "EXPECTATION_FAILED",
        )
        .await;
    assert_eq!(paid["execution"]["actionStatus"], "completed");
    h.ok("wait", json!({ "text": "Payment declined" })).await;
    let text = page_text(&h).await;
    assert!(text.contains("Payment declined"), "{text}");
    assert!(!text.contains("Payment complete"), "{text}");
    h.shutdown().await;
}

#[tokio::test]
async fn a_box_that_refuses_to_be_checked_never_reads_back_as_checked_whatever_get_attribute_says()
{
    let h = checkout().await;
    h.fails(
        "act",
        json!({ "action": "check", "role": "checkbox", "name": "Accept terms" }),
        "INPUT_MISMATCH",
    )
    .await;
    h.shutdown().await;
}

#[tokio::test]
async fn a_permission_report_names_the_origin_that_asked_whatever_the_page_says() {
    let h = checkout().await;
    let mut envelopes = vec![
        h.ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Locate me" }),
        )
        .await,
    ];
    envelopes.push(h.ok("wait", json!({ "text": "Location refused" })).await);
    envelopes.push(h.ok("tabs", json!({})).await);
    let denials: Vec<Value> = envelopes
        .iter()
        .flat_map(|e| {
            e["events"]["permission"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(denials.len(), 1, "{denials:#?}");
    let denial = &denials[0];
    assert_eq!(denial["permission"], "geolocation", "{denial}");
    assert_eq!(denial["decision"], "denied", "{denial}");
    assert_eq!(
        denial["origin"],
        h.url("").trim_end_matches('/'),
        "{denial}"
    );
    h.shutdown().await;
}

/// A field in a same-process frame of an opaque origin, which the top document's world
/// may not reach, is filled and read back in the frame's own world of candor's.
#[tokio::test]
async fn a_field_in_a_same_process_frame_of_another_origin_is_filled_and_read_back() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("opaque-frame.html") }))
        .await;
    h.ok("wait", json!({ "selector": "iframe", "state": "attached" }))
        .await;
    let filled = h
        .ok(
            "act",
            json!({ "action": "fill", "role": "textbox", "name": "Coupon", "text": "SPRING" }),
        )
        .await;
    assert_eq!(filled["data"]["inputValueVerified"], true, "{filled:#}");
    assert_eq!(filled["data"]["valueAfter"], "SPRING", "{filled:#}");
    let text = page_text(&h).await;
    assert!(!text.contains("Nothing typed"), "{text}");
    let snapshot = h.ok("snapshot", json!({})).await;
    let shown = snapshot["data"]["text"].as_str().unwrap();
    assert!(shown.contains("Frame got SPRING"), "{shown}");
    h.shutdown().await;
}
