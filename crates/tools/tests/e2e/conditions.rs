//! One condition type for `wait` and `expect`: the same rules on both, several
//! conditions in one `expect`, each reported.

use serde_json::{Value, json};

use crate::harness::Harness;

async fn send(h: &Harness, expect: Value) -> Value {
    h.call(
        "act",
        json!({ "action": "click", "role": "button", "name": "Send", "expect": expect }),
    )
    .await
}

#[tokio::test]
async fn wait_and_expect_refuse_the_same_malformed_conditions_before_anything_runs() {
    let h = Harness::with_eval();
    h.ok("navigate", json!({ "url": h.url("act-form.html") }))
        .await;
    for (condition, code) in [
        // Was a truthy check in expect: the opposite of what was asked.
        (json!({ "js": "1", "truthy": false }), "INVALID_PARAMS"),
        // Passed one and not the other: it holds on any page.
        (json!({ "urlMatches": "*" }), "EMPTY_CONDITION"),
        (json!({ "text": " " }), "EMPTY_CONDITION"),
        (json!({ "text": "a", "equals": 1 }), "INVALID_PARAMS"),
        (json!({ "text": "a", "bogus": 1 }), "INVALID_PARAMS"),
    ] {
        h.refused("wait", condition.clone(), code).await;
        let refused = send(&h, condition.clone()).await;
        assert_eq!(refused["code"], code, "expect {condition}: {refused:#}");
        assert_eq!(refused["execution"]["dispatchStarted"], false);
    }
    let page = h.ok("snapshot", json!({ "mode": "text" })).await;
    assert!(
        page["data"]["text"]
            .as_str()
            .unwrap()
            .contains("Not submitted")
    );
    h.shutdown().await;
}

#[tokio::test]
async fn equals_null_is_a_value_to_match_in_expect_as_in_wait() {
    let h = Harness::with_eval();
    h.ok("navigate", json!({ "url": h.url("act-form.html") }))
        .await;
    h.ok(
        "wait",
        json!({ "js": "window.nothingHere ?? null", "equals": null }),
    )
    .await;
    // Was read as "absent" in expect, and so as truthy: null is not truthy.
    let clicked = send(
        &h,
        json!({ "js": "window.nothingHere ?? null", "equals": null }),
    )
    .await;
    assert_eq!(clicked["ok"], true, "{clicked:#}");
    assert_eq!(clicked["verification"]["verified"], true);
    assert_eq!(clicked["verification"]["expect"]["equals"], Value::Null);
    h.shutdown().await;
}

#[tokio::test]
async fn an_expect_with_several_conditions_verifies_all_and_names_the_one_that_failed() {
    let h = Harness::with_eval();
    let url = h.url("act-form.html");
    h.ok("navigate", json!({ "url": url })).await;
    let both = send(&h, json!({ "text": "Submitted", "url": url })).await;
    assert_eq!(both["verification"]["verified"], true, "{both:#}");
    let each = both["verification"]["expect"]["conditions"]
        .as_array()
        .unwrap();
    assert_eq!(each.len(), 2);
    assert!(each.iter().all(|c| c["met"] == true), "{both:#}");

    let one_fails = send(
        &h,
        json!({ "text": "Submitted", "url": h.url("elsewhere.html"), "timeoutMs": 300 }),
    )
    .await;
    assert_eq!(one_fails["code"], "EXPECTATION_FAILED", "{one_fails:#}");
    assert_eq!(one_fails["execution"]["actionStatus"], "completed");
    let message = one_fails["message"].as_str().unwrap();
    assert!(
        message.contains("elsewhere.html") && !message.contains("Submitted\""),
        "{message}"
    );
    let each = one_fails["verification"]["expect"]["conditions"]
        .as_array()
        .unwrap();
    assert_eq!(each[0]["met"], true);
    assert_eq!(each[1]["met"], false);
    assert!(
        each[1]["actual"]
            .as_str()
            .unwrap()
            .contains("act-form.html")
    );
    h.shutdown().await;
}
