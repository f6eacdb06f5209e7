//! Navigation, tabs, text/html reads and diagnostics.

use std::time::Duration;

use serde_json::{Value, json};
use test_support::FixtureServer;

use crate::harness::Harness;

fn tab_line<'a>(tabs: &'a Value, id: &str) -> &'a Value {
    tabs["data"]["tabs"]
        .as_array()
        .and_then(|tabs| tabs.iter().find(|t| t["id"] == id))
        .unwrap_or_else(|| panic!("no {id} in {tabs:#}"))
}

#[tokio::test]
async fn navigate_loads_the_page_and_reports_it() {
    let h = Harness::new();
    let envelope = h
        .ok("navigate", json!({ "url": h.url("second.html") }))
        .await;
    assert_eq!(envelope["data"]["loaded"], true);
    assert_eq!(envelope["data"]["sameDocument"], false);
    assert_eq!(envelope["page"]["tabId"], "tab0");
    assert_eq!(envelope["page"]["title"], "Second page");
    assert_eq!(envelope["page"]["url"], h.url("second.html"));
    assert_eq!(envelope["events"]["navigated"], true);
    assert_eq!(envelope["execution"]["dispatchStarted"], true);
    assert_eq!(envelope["execution"]["actionStatus"], "completed");
    assert_eq!(envelope["execution"]["retrySafe"], false);
    assert!(
        envelope["execution"]["commandId"]
            .as_str()
            .is_some_and(|id| id.starts_with("c-"))
    );
    h.shutdown().await;
}

#[tokio::test]
async fn connection_refused_is_navigation_failed_and_the_tab_shows_failed() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("index.html") }))
        .await;
    let envelope = h
        .fails(
            "navigate",
            json!({ "url": "http://127.0.0.1:1/" }),
            "NAVIGATION_FAILED",
        )
        .await;
    assert_eq!(envelope["data"]["errorText"], "net::ERR_CONNECTION_REFUSED");
    assert!(
        envelope["message"]
            .as_str()
            .unwrap()
            .contains("net::ERR_CONNECTION_REFUSED")
    );
    assert_eq!(envelope["execution"]["dispatchStarted"], true);
    assert_eq!(envelope["execution"]["retrySafe"], false);
    assert_eq!(envelope["page"]["url"], "http://127.0.0.1:1/");

    let tabs = h.ok("tabs", json!({ "action": "list" })).await;
    let tab0 = tab_line(&tabs, "tab0");
    assert_eq!(tab0["failed"], true);
    assert_eq!(tab0["errorText"], "net::ERR_CONNECTION_REFUSED");
    assert_eq!(tab0["unverified"], false);
    assert_eq!(tab0["crashed"], false);

    // A failed page is refused rather than read as if it were the site.
    h.fails("snapshot", json!({ "mode": "text" }), "PAGE_LOAD_FAILED")
        .await;

    // A working navigation clears the failure.
    h.ok("navigate", json!({ "url": h.url("second.html") }))
        .await;
    let tabs = h.ok("tabs", json!({})).await;
    assert_eq!(tab_line(&tabs, "tab0")["failed"], false);
    h.shutdown().await;
}

#[tokio::test]
async fn blocked_urls_are_refused_before_anything_runs() {
    let h = Harness::new();
    for url in [
        "file:///etc/passwd",
        "http://user:pw@127.0.0.1/",
        "javascript:alert(1)",
        "chrome://settings",
        "view-source:http://127.0.0.1/",
        "data:text/html,<p>hi</p>",
    ] {
        let envelope = h
            .fails("navigate", json!({ "url": url }), "URL_BLOCKED")
            .await;
        assert_eq!(
            envelope["execution"]["actionStatus"], "not-started",
            "{url}"
        );
        assert_eq!(envelope["execution"]["dispatchStarted"], false, "{url}");
        assert_eq!(envelope["execution"]["retrySafe"], true, "{url}");
        assert!(
            !envelope["message"].as_str().unwrap().contains(":pw@"),
            "{url}"
        );
    }
    // The refusals opened nothing, not even a first tab.
    let tabs = h.ok("tabs", json!({})).await;
    assert_eq!(tabs["data"]["tabs"], json!([]));
    h.shutdown().await;
}

#[tokio::test]
async fn invalid_params_are_refused_with_the_reason() {
    let h = Harness::new();
    h.fails("navigate", json!({}), "INVALID_PARAMS").await;
    h.fails(
        "navigate",
        json!({ "url": "http://x/", "back": true }),
        "INVALID_PARAMS",
    )
    .await;
    h.fails("navigate", json!({ "urll": "http://x/" }), "INVALID_PARAMS")
        .await;
    h.fails("snapshot", json!({ "mode": "pdf" }), "INVALID_PARAMS")
        .await;
    h.fails("snapshot", json!({ "maxChars": 0 }), "INVALID_PARAMS")
        .await;
    h.fails(
        "tabs",
        json!({ "action": "select", "tabId": "seven" }),
        "INVALID_PARAMS",
    )
    .await;
    h.fails("diagnostics", json!({ "limit": 0 }), "INVALID_PARAMS")
        .await;
    let unknown = h.fails("no_such_tool", json!({}), "INVALID_PARAMS").await;
    assert!(unknown["message"].as_str().unwrap().contains("navigate"));
    h.shutdown().await;
}

#[tokio::test]
async fn tabs_open_select_and_close_with_every_id_form() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("index.html") }))
        .await;
    let opened = h
        .ok(
            "tabs",
            json!({ "action": "new", "url": h.url("second.html") }),
        )
        .await;
    assert_eq!(opened["data"]["tabId"], "tab1");
    assert_eq!(opened["page"]["title"], "Second page");
    assert_eq!(tab_line(&opened, "tab1")["active"], true);
    assert_eq!(tab_line(&opened, "tab0")["active"], false);

    for form in ["tab0", "tab:tab0", "[tab:tab0]"] {
        let selected = h
            .ok("tabs", json!({ "action": "select", "tabId": form }))
            .await;
        assert_eq!(selected["data"]["tabId"], "tab0", "{form}");
        assert_eq!(selected["page"]["title"], "Fixture home", "{form}");
    }
    // Reading a background tab by id does not change the current tab.
    let second = h
        .ok("snapshot", json!({ "mode": "text", "tabId": "[tab:tab1]" }))
        .await;
    assert!(
        second["data"]["text"]
            .as_str()
            .unwrap()
            .contains("This is the second page.")
    );
    assert_eq!(
        tab_line(&h.ok("tabs", json!({})).await, "tab0")["active"],
        true
    );

    // Closing checks every id first: one unknown id closes nothing.
    h.fails(
        "tabs",
        json!({ "action": "close", "tabIds": ["tab1", "tab9"] }),
        "TAB_NOT_FOUND",
    )
    .await;
    assert_eq!(
        h.ok("tabs", json!({})).await["data"]["tabs"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    let closed = h
        .ok("tabs", json!({ "action": "close", "tabId": "tab1" }))
        .await;
    assert_eq!(closed["data"]["closed"], json!(["tab1"]));
    assert_eq!(closed["data"]["tabs"].as_array().unwrap().len(), 1);

    // Ids are never reused.
    let opened = h.ok("tabs", json!({ "action": "new" })).await;
    assert_eq!(opened["data"]["tabId"], "tab2");
    h.fails(
        "tabs",
        json!({ "action": "select", "tabId": "tab1" }),
        "TAB_NOT_FOUND",
    )
    .await;
    h.shutdown().await;
}

#[tokio::test]
async fn back_forward_reload_and_same_document_navigation() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("index.html") }))
        .await;
    h.ok("navigate", json!({ "url": h.url("second.html") }))
        .await;
    let back = h.ok("navigate", json!({ "back": true })).await;
    assert_eq!(back["page"]["title"], "Fixture home");
    assert_eq!(back["data"]["loaded"], true);
    let forward = h.ok("navigate", json!({ "forward": true })).await;
    assert_eq!(forward["page"]["title"], "Second page");
    h.fails("navigate", json!({ "forward": true }), "INVALID_PARAMS")
        .await;

    let reload = h
        .ok("navigate", json!({ "reload": true, "ignoreCache": true }))
        .await;
    assert_eq!(reload["page"]["title"], "Second page");
    assert_eq!(reload["data"]["loaded"], true);

    h.ok("navigate", json!({ "url": h.url("spa.html") })).await;
    let fragment = h
        .ok("navigate", json!({ "url": h.url("spa.html#details") }))
        .await;
    assert_eq!(fragment["data"]["sameDocument"], true);
    assert_eq!(fragment["page"]["url"], h.url("spa.html#details"));
    h.shutdown().await;
}

#[tokio::test]
async fn reload_of_a_page_whose_server_went_away_is_navigation_failed() {
    let h = Harness::new();
    let server = FixtureServer::start();
    h.ok("navigate", json!({ "url": server.url("second.html") }))
        .await;
    drop(server);
    let envelope = h
        .fails("navigate", json!({ "reload": true }), "NAVIGATION_FAILED")
        .await;
    assert_eq!(envelope["data"]["errorText"], "net::ERR_CONNECTION_REFUSED");
    let tabs = h.ok("tabs", json!({})).await;
    assert_eq!(tab_line(&tabs, "tab0")["failed"], true);
    h.shutdown().await;
}

#[tokio::test]
async fn a_slow_page_that_never_commits_by_the_deadline_is_navigation_timeout_naming_it() {
    let h = Harness::new();
    // The browser is started first, so the deadline below bounds the navigation only
    // (a launch on a loaded machine can take most of it).
    h.ok("tabs", json!({ "action": "new" })).await;
    let url = h.url("slow?ms=5000");
    let envelope = h
        .engine
        .call(
            "navigate",
            json!({ "url": url }),
            Some(Duration::from_millis(1500)),
        )
        .await
        .to_json();
    assert_eq!(envelope["code"], "NAVIGATION_TIMEOUT", "{envelope:#}");
    let message = envelope["message"].as_str().unwrap();
    assert!(message.contains(&url), "{message}");
    assert!(message.contains("stopped"), "{message}");
    assert_eq!(envelope["execution"]["actionStatus"], "unknown");
    assert_eq!(envelope["execution"]["retrySafe"], false);
    let took = envelope["execution"]["durationMs"].as_u64().unwrap();
    assert!(took < 5000, "the deadline bounds the call: {took} ms");
    h.shutdown().await;
}

#[tokio::test]
async fn snapshot_text_shows_visible_text_only_within_the_budget() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("hidden-text.html") }))
        .await;
    let snap = h.ok("snapshot", json!({ "mode": "text" })).await;
    let text = snap["data"]["text"].as_str().unwrap();
    assert!(text.contains("Visible words"), "{text}");
    assert!(!text.contains("Secret words"), "{text}");
    assert!(!text.contains("Invisible words"), "{text}");
    assert_eq!(snap["data"]["truncated"], false);
    assert_eq!(snap["page"]["title"], "Hidden text");

    h.ok("navigate", json!({ "url": h.url("article.html") }))
        .await;
    let clipped = h.ok("snapshot", json!({ "mode": "text" })).await;
    assert_eq!(clipped["data"]["truncated"], true);
    assert_eq!(clipped["data"]["chars"], 20_000);
    assert_eq!(
        clipped["data"]["text"].as_str().unwrap().chars().count(),
        20_000
    );
    let total = clipped["data"]["totalChars"].as_u64().unwrap();
    assert!(total > 20_000);
    let whole = h
        .ok("snapshot", json!({ "mode": "text", "maxChars": 200_000 }))
        .await;
    assert_eq!(whole["data"]["truncated"], false);
    assert_eq!(whole["data"]["totalChars"].as_u64().unwrap(), total);
    assert!(
        whole["data"]["text"]
            .as_str()
            .unwrap()
            .starts_with(clipped["data"]["text"].as_str().unwrap())
    );
    h.shutdown().await;
}

#[tokio::test]
async fn snapshot_budgets_never_split_a_character() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("unicode.html") }))
        .await;
    let whole = h
        .ok("snapshot", json!({ "mode": "text", "maxChars": 100_000 }))
        .await;
    let full: Vec<char> = whole["data"]["text"].as_str().unwrap().chars().collect();
    assert!(full.iter().any(|c| !c.is_ascii()));
    for budget in [1, 7, 33, 101] {
        let clipped = h
            .ok("snapshot", json!({ "mode": "text", "maxChars": budget }))
            .await;
        let text: Vec<char> = clipped["data"]["text"].as_str().unwrap().chars().collect();
        assert_eq!(text.len(), budget.min(full.len()));
        assert_eq!(&full[..text.len()], &text[..]);
    }
    assert_eq!(whole["page"]["title"], "Ünïcödé 漢字");
    h.shutdown().await;
}

#[tokio::test]
async fn snapshot_html_is_the_live_document_within_the_budget() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("hidden-text.html") }))
        .await;
    let whole = h.ok("snapshot", json!({ "mode": "html" })).await;
    let html = whole["data"]["text"].as_str().unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    assert!(html.contains("<title>Hidden text</title>"), "{html}");
    // Unlike text mode, html keeps what is hidden.
    assert!(html.contains("Secret words"), "{html}");
    assert_eq!(whole["data"]["truncated"], false);

    let clipped = h
        .ok("snapshot", json!({ "mode": "html", "maxChars": 50 }))
        .await;
    assert_eq!(clipped["data"]["truncated"], true);
    assert_eq!(
        clipped["data"]["text"].as_str().unwrap().chars().count(),
        50
    );
    h.shutdown().await;
}

#[tokio::test]
async fn diagnostics_returns_the_last_commands_with_code_and_duration() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("index.html") }))
        .await;
    h.fails(
        "navigate",
        json!({ "url": "file:///etc/passwd" }),
        "URL_BLOCKED",
    )
    .await;
    h.ok("snapshot", json!({ "mode": "text" })).await;
    let diagnostics = h.ok("diagnostics", json!({ "limit": 3 })).await;
    let last = diagnostics["data"]["last"].as_array().unwrap();
    let methods: Vec<_> = last.iter().map(|r| r["method"].as_str().unwrap()).collect();
    assert_eq!(methods, ["navigate", "navigate", "snapshot"]);
    assert_eq!(last[0]["ok"], true);
    assert_eq!(last[0]["url"], h.url("index.html"));
    assert_eq!(last[1]["ok"], false);
    assert_eq!(last[1]["code"], "URL_BLOCKED");
    assert_eq!(last[1]["stage"], "validate");
    assert!(last.iter().all(|r| r["durationMs"].is_u64()));
    let ids: Vec<_> = last
        .iter()
        .map(|r| r["commandId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["c-1", "c-2", "c-3"]);
    // Diagnostics itself does not start a browser and is answered from memory.
    let fresh = Harness::new();
    let empty = fresh.ok("diagnostics", json!({})).await;
    assert_eq!(empty["data"]["last"], json!([]));
    assert!(fresh.engine.browser().await.is_none());
    h.shutdown().await;
}

#[tokio::test]
async fn a_dead_browser_is_reported_once_then_replaced() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("second.html") }))
        .await;
    let browser = h.engine.browser().await.expect("running");
    let pid = browser.pid().expect("launched");
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    browser.connection().closed().await;

    let envelope = h
        .fails(
            "navigate",
            json!({ "url": h.url("index.html") }),
            "BROWSER_DISCONNECTED",
        )
        .await;
    assert!(envelope["hint"].as_str().unwrap().contains("new browser"));
    let again = h
        .ok("navigate", json!({ "url": h.url("index.html") }))
        .await;
    assert_eq!(again["page"]["title"], "Fixture home");
    let replacement = h.engine.browser().await.expect("replaced");
    assert_ne!(replacement.pid(), Some(pid));
    h.shutdown().await;
}

/// The origin lists hold the page's own navigations too: a link to a block-listed origin
/// is not followed (its document request fails in Chromium, so no byte of the origin
/// loads), while a navigation the agent asks for is refused before it is sent, naming
/// the rule. The allowed origin loads as ever.
#[tokio::test]
async fn a_block_listed_origin_is_refused_by_name_and_a_link_to_it_is_not_followed() {
    let h = Harness::with(|options| {
        options.url_policy.block_origins = vec![browser::OriginRule::parse("localhost").unwrap()];
    });
    let blocked = h.server.cross_origin_url("second.html");
    let refused = h
        .fails("navigate", json!({ "url": blocked }), "URL_BLOCKED")
        .await;
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("blocked by the blockOrigins rule \"localhost\""),
        "{refused:#}"
    );
    let refused = h
        .fails(
            "tabs",
            json!({ "action": "new", "url": blocked }),
            "URL_BLOCKED",
        )
        .await;
    assert_eq!(refused["execution"]["actionStatus"], "not-started");

    h.ok(
        "navigate",
        json!({ "url": h.url("leave-for-localhost.html") }),
    )
    .await;
    h.call(
        "act",
        json!({ "action": "click", "role": "link", "name": "Away" }),
    )
    .await;
    let read = h.call("snapshot", json!({ "mode": "text" })).await;
    assert_eq!(read["code"], "PAGE_LOAD_FAILED", "{read:#}");
    assert!(
        read["message"]
            .as_str()
            .unwrap()
            .contains("ERR_BLOCKED_BY_CLIENT"),
        "{read:#}"
    );
    let tabs = h.ok("tabs", json!({ "action": "list" })).await;
    assert_eq!(
        tabs["data"]["tabs"].as_array().unwrap().len(),
        1,
        "{tabs:#}"
    );

    // Back on the allowed origin, pages load as ever.
    h.ok("navigate", json!({ "url": h.url("second.html") }))
        .await;
    let text = h.ok("snapshot", json!({ "mode": "text" })).await;
    assert!(
        text["data"]["text"]
            .as_str()
            .unwrap()
            .contains("This is the second page."),
        "{text:#}"
    );
    h.shutdown().await;
}

/// A block-listed host written another way is the same host: `localhost.` (the DNS
/// root's trailing dot, in any case), `127.0.0.1` as an IPv4-mapped or -compatible IPv6
/// address or as one number, are refused by the rule that names the host, both when the
/// agent navigates there and when the page's link goes there.
#[tokio::test]
async fn a_block_listed_host_written_another_way_is_refused_all_the_same() {
    let other = FixtureServer::start();
    let port = other.port();
    let h = Harness::with(move |options| {
        options.url_policy.block_origins = vec![
            browser::OriginRule::parse("localhost").unwrap(),
            browser::OriginRule::parse(&format!("127.0.0.1:{port}")).unwrap(),
        ];
    });
    let here = h.server.port();
    for url in [
        format!("http://localhost.:{here}/second.html"),
        format!("http://LocalHost.:{here}/second.html"),
        format!("http://[::ffff:127.0.0.1]:{port}/second.html"),
        format!("http://[::ffff:7f00:1]:{port}/second.html"),
        format!("http://[::127.0.0.1]:{port}/second.html"),
        format!("http://2130706433:{port}/second.html"),
    ] {
        let refused = h
            .fails("navigate", json!({ "url": url }), "URL_BLOCKED")
            .await;
        assert!(
            refused["message"]
                .as_str()
                .unwrap()
                .contains("blocked by the blockOrigins rule"),
            "{url}: {refused:#}"
        );
    }
    for link in ["Dot", "Mapped"] {
        h.ok(
            "navigate",
            json!({ "url": h.url(&format!("leave-for-variants.html?port={port}")) }),
        )
        .await;
        h.call(
            "act",
            json!({ "action": "click", "role": "link", "name": link }),
        )
        .await;
        let read = h.call("snapshot", json!({ "mode": "text" })).await;
        assert_eq!(read["code"], "PAGE_LOAD_FAILED", "{link}: {read:#}");
        assert!(
            read["message"]
                .as_str()
                .unwrap()
                .contains("ERR_BLOCKED_BY_CLIENT"),
            "{link}: {read:#}"
        );
    }
    h.shutdown().await;
}

/// The engine's call defaults (config `readMaxChars`, `snapshotMaxTokens`,
/// `screenshotMaxWidth`, `settleMs`) shape every call that names no budget of its own;
/// a call that names one still gets it.
#[tokio::test]
async fn calls_that_name_no_budget_take_the_configured_defaults() {
    let h = Harness::with(|options| {
        options.defaults = tools::defaults::CallDefaults {
            snapshot_max_tokens: 150,
            read_max_chars: 40,
            screenshot_max_width: 320,
            settle: Duration::ZERO,
        };
    });
    h.ok("navigate", json!({ "url": h.url("large.html") }))
        .await;
    let text = h.ok("snapshot", json!({ "mode": "text" })).await;
    assert_eq!(text["data"]["text"].as_str().unwrap().chars().count(), 40);
    assert_eq!(text["data"]["truncated"], true);
    let asked = h
        .ok("snapshot", json!({ "mode": "text", "maxChars": 60 }))
        .await;
    assert_eq!(asked["data"]["text"].as_str().unwrap().chars().count(), 60);
    let elements = h.ok("snapshot", json!({})).await;
    assert!(
        elements["data"]["tokens"].as_u64().unwrap() <= 150,
        "{elements:#}"
    );
    assert_eq!(elements["data"]["truncated"], true, "{elements:#}");
    let shot = h.ok("screenshot", json!({})).await;
    assert!(
        shot["data"]["width"].as_u64().unwrap() <= 320
            && shot["data"]["height"].as_u64().unwrap() <= 320,
        "{shot:#}"
    );
    h.shutdown().await;
}
