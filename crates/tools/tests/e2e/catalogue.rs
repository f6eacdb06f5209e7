//! Invariants of the whole catalogue, checked tool by tool: what one tool promises, every
//! tool keeps — a new tool joins these tables or the tests fail.

use serde_json::{Value, json};
use tools::PageGuard;

use crate::harness::Harness;

/// The smallest valid params of each tool that reads the page.
fn minimal(tool: &str) -> Value {
    match tool {
        "snapshot" | "screenshot" | "pdf" | "form_state" => json!({}),
        "find" => json!({ "text": "anything" }),
        "act" => json!({ "action": "click", "selector": "body" }),
        "wait" => json!({ "text": "anything", "timeoutMs": 100 }),
        "eval" => json!({ "expression": "1" }),
        other => panic!("{other} reads the page: give it minimal params here"),
    }
}

#[tokio::test]
async fn every_tool_refuses_an_unknown_parameter_before_anything_runs() {
    let h = Harness::new();
    for tool in tools::catalogue() {
        let refused = h
            .refused(tool.name, json!({ "noSuchParameter": 1 }), "INVALID_PARAMS")
            .await
            .to_json();
        assert!(
            refused["message"]
                .as_str()
                .unwrap()
                .contains("noSuchParameter"),
            "{}: {refused:#}",
            tool.name
        );
        assert_eq!(
            refused["execution"]["dispatchStarted"], false,
            "{}",
            tool.name
        );
    }
    h.shutdown().await;
}

#[tokio::test]
async fn every_tool_that_reads_the_page_refuses_an_error_page_before_it_runs() {
    let h = Harness::with(|options| options.enable_eval = true);
    h.fails(
        "navigate",
        json!({ "url": "http://127.0.0.1:1/" }),
        "NAVIGATION_FAILED",
    )
    .await;
    let readers: Vec<&str> = tools::catalogue()
        .iter()
        .filter(|tool| matches!(tool.page_guard, PageGuard::Reads))
        .map(|tool| tool.name)
        .collect();
    // `find` was the one that read Chromium's error page as if it were the site.
    assert!(
        readers.contains(&"find") && readers.contains(&"act"),
        "{readers:?}"
    );
    for tool in readers {
        let refused = h
            .refused(tool, minimal(tool), "PAGE_LOAD_FAILED")
            .await
            .to_json();
        assert_eq!(
            refused["page"]["url"], "http://127.0.0.1:1/",
            "{tool}: {refused:#}"
        );
        assert!(
            refused["data"].get("errorText").is_some(),
            "{tool}: {refused:#}"
        );
    }
    h.shutdown().await;
}

/// The text form split at its fence: (outside, inside).
fn fenced(text: &str) -> (String, String) {
    match text.split_once(tools::FENCE_OPEN) {
        Some((outside, inside)) => (outside.to_string(), inside.to_string()),
        None => (text.to_string(), String::new()),
    }
}

#[tokio::test]
async fn page_text_is_fenced_in_every_tools_text_form_wherever_it_sits() {
    let h = Harness::with(|options| options.enable_eval = true);
    h.ok("navigate", json!({ "url": h.url("act-form.html") }))
        .await;
    let again = h.url("act-form.html?again");
    let cases = [
        // navigate's page: its title.
        ("navigate", json!({ "url": again }), "Act form"),
        // find's match text and name were printed inline.
        ("find", json!({ "text": "Not submitted" }), "Not submitted"),
        // act's diff, and the element's name.
        (
            "act",
            json!({ "action": "click", "role": "button", "name": "Send" }),
            "Submitted",
        ),
        // wait's evidence, in a failure's data.
        (
            "wait",
            json!({ "js": "document.title", "equals": "x", "timeoutMs": 100 }),
            "Act form",
        ),
        (
            "eval",
            json!({ "expression": "document.querySelector('#out').textContent" }),
            "Submitted",
        ),
        ("snapshot", json!({ "mode": "text" }), "Submitted"),
        // tabs' list: each tab's title.
        ("tabs", json!({}), "Act form"),
        // form_state's values and option labels.
        ("form_state", json!({}), "Red"),
        // recall's excerpts of what was archived.
        ("recall", json!({ "query": "Submitted" }), "Submitted"),
    ];
    for (tool, params, page_text) in cases {
        let envelope = h.envelope(tool, params).await;
        let text = tools::render_text(tool, &envelope);
        let (outside, inside) = fenced(&text);
        assert!(
            inside.contains(page_text),
            "{tool}: {page_text} not fenced:\n{text}"
        );
        assert!(
            !outside.contains(page_text),
            "{tool}: {page_text} outside the fence:\n{text}"
        );
        // The page's title is the page's too.
        assert!(
            !outside.contains("Act form"),
            "{tool}: the title outside the fence:\n{text}"
        );
        // structuredContent keeps the plain values.
        let json = envelope.to_json();
        assert!(
            json["untrusted"].as_array().is_some_and(|p| !p.is_empty()),
            "{json:#}"
        );
    }
    h.shutdown().await;
}
