//! Invariants of the whole catalogue, checked tool by tool: what one tool promises, every
//! tool keeps — a new tool joins these tables or the tests fail.

use serde_json::{Value, json};
use tools::PageGuard;

use crate::harness::Harness;

/// The smallest valid params of each tool that reads the page.
fn minimal(tool: &str) -> Value {
    match tool {
        "snapshot" | "screenshot" | "form_state" => json!({}),
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
