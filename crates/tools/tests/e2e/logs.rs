//! `logs` (docs/logs.md): what a page logged, threw and fetched, read one line per entry
//! with filters and cursors, one entry in full with its secrets redacted, a HAR of the
//! task's requests; and an action's answer saying what went wrong during it.

use serde_json::{Value, json};

use crate::harness::Harness;

/// Opens `logs.html` and waits until every fetch it makes on load has ended.
async fn loaded(h: &Harness) {
    h.ok("navigate", json!({ "url": h.url("logs.html") })).await;
    h.ok("wait", json!({ "text": "Loaded.", "timeoutMs": 10_000 }))
        .await;
}

fn lines(envelope: &Value) -> Vec<String> {
    envelope["data"]["entries"]
        .as_str()
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn has(lines: &[String], needle: &str) -> bool {
    lines.iter().any(|line| line.contains(needle))
}

#[tokio::test]
async fn console_messages_and_exceptions_are_listed_one_line_each_and_filtered() {
    let h = Harness::new();
    loaded(&h).await;
    let all = h.ok("logs", json!({})).await;
    let listed = lines(&all);
    for needle in [
        "[debug] logs.html:",
        "debug detail",
        "[info] logs.html:",
        "info: ready",
        "plain log of 2",
        "[warning] logs-app.js:2 from the app script",
        "[warning] logs.html:",
        "[error] logs.html:",
        "failed to render widget",
        "[exception]",
        "Uncaught Error: boom",
        "Uncaught (in promise) Error: rejected on purpose",
    ] {
        assert!(has(&listed, needle), "{needle}: {listed:#?}");
    }
    // Oldest first, as the page logged them.
    let at = |needle: &str| listed.iter().position(|l| l.contains(needle)).unwrap();
    assert!(at("from the app script") < at("debug detail"));
    assert!(at("debug detail") < at("careful"));
    // Page content, fenced in the text form.
    assert!(
        all["untrusted"]
            .as_array()
            .unwrap()
            .contains(&json!("/data/entries"))
    );

    let errors = h.ok("logs", json!({ "level": "error" })).await;
    let errors = lines(&errors);
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(
        errors
            .iter()
            .all(|l| l.contains("[error]") || l.contains("[exception]"))
    );

    let warnings = h.ok("logs", json!({ "level": "warning" })).await;
    assert_eq!(lines(&warnings).len(), 5, "{warnings:#}");

    let from_script = h.ok("logs", json!({ "urlMatches": "logs-app.js" })).await;
    assert_eq!(lines(&from_script).len(), 1, "{from_script:#}");

    // A cursor reads only what is newer: nothing, then the click's exception alone.
    let cursor = all["data"]["cursor"].as_u64().unwrap();
    let none = h.ok("logs", json!({ "since": cursor })).await;
    assert_eq!(none["data"]["matched"], 0, "{none:#}");
    assert!(none["data"].get("entries").is_none());
    h.call("act", json!({ "action": "click", "selector": "#throw" }))
        .await;
    let newer = h.ok("logs", json!({ "since": cursor })).await;
    let newer = lines(&newer);
    assert_eq!(newer.len(), 1, "{newer:#?}");
    assert!(newer[0].contains("TypeError"), "{newer:#?}");

    // A log read is an observation of the task's archive: recall finds it.
    let found = h
        .ok("recall", json!({ "query": "rejected on purpose" }))
        .await;
    let observations = found["data"]["observations"].as_array().unwrap();
    assert!(
        observations
            .iter()
            .any(|o| o["id"] == all["execution"]["commandId"]),
        "{found:#}"
    );

    h.fails("logs", json!({ "level": "loud" }), "INVALID_PARAMS")
        .await;
    h.fails(
        "logs",
        json!({ "kind": "console", "status": "500" }),
        "INVALID_PARAMS",
    )
    .await;
    h.shutdown().await;
}

#[tokio::test]
async fn requests_are_listed_with_status_size_and_time_and_filtered() {
    let h = Harness::new();
    loaded(&h).await;
    let all = h.ok("logs", json!({ "kind": "network" })).await;
    let listed = lines(&all);
    for needle in [
        "GET 200 /logs.html",
        "GET 200 /logs-app.js",
        "GET 200 /status/200?token=abc123&page=2",
        "GET 404 /status/404",
        "GET 500 /status/500",
        "GET failed net::ERR_CONNECTION_REFUSED http://127.0.0.1:1/refused",
        "GET 200 /slow?ms=400",
    ] {
        assert!(has(&listed, needle), "{needle}: {listed:#?}");
    }
    let slow = listed.iter().find(|l| l.contains("/slow")).unwrap();
    let ms: u64 = slow
        .split(" ms")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|ms| ms.parse().ok())
        .unwrap_or_else(|| panic!("no time in {slow}"));
    assert!(ms >= 400, "{slow}");
    assert!(slow.ends_with(" fetch"), "{slow}");
    assert!(listed[0].contains("/logs.html"), "{listed:#?}");
    assert!(
        listed[0].contains(" B ") || listed[0].contains(" KB "),
        "{listed:#?}"
    );

    let client_errors = h
        .ok("logs", json!({ "kind": "network", "status": "4xx" }))
        .await;
    let client_errors = lines(&client_errors);
    // The page's 404, and the browser's own request for the site's icon (listed, never
    // counted as something that went wrong: see the errors below).
    assert!(client_errors.len() <= 2, "{client_errors:#?}");
    assert!(
        has(&client_errors, "GET 404 /status/404"),
        "{client_errors:#?}"
    );
    assert!(
        client_errors
            .iter()
            .all(|l| l.contains("/status/404") || l.contains("/favicon.ico")),
        "{client_errors:#?}"
    );
    let failed = h
        .ok("logs", json!({ "kind": "network", "status": "failed,500" }))
        .await;
    assert_eq!(lines(&failed).len(), 2, "{failed:#}");
    let posts = h
        .ok("logs", json!({ "kind": "network", "method": "post" }))
        .await;
    assert_eq!(posts["data"]["matched"], 0, "{posts:#}");
    let status = h
        .ok(
            "logs",
            json!({ "kind": "network", "urlMatches": "*/status/*" }),
        )
        .await;
    assert_eq!(lines(&status).len(), 3, "{status:#}");

    // What went wrong, in the order it did: no request that succeeded, nothing logged
    // below an error.
    let errors = h.ok("logs", json!({ "kind": "errors" })).await;
    let errors = lines(&errors);
    for needle in [
        "404 /status/404",
        "500 /status/500",
        "ERR_CONNECTION_REFUSED",
        "failed to render widget",
        "Uncaught Error: boom",
        "rejected on purpose",
    ] {
        assert!(has(&errors, needle), "{needle}: {errors:#?}");
    }
    assert_eq!(errors.len(), 6, "{errors:#?}");
    h.shutdown().await;
}

#[tokio::test]
async fn an_entry_in_full_has_its_headers_redacted_and_a_body_excerpt() {
    let h = Harness::new();
    loaded(&h).await;
    let all = h.ok("logs", json!({ "kind": "network" })).await;
    let line = lines(&all)
        .into_iter()
        .find(|l| l.contains("token="))
        .unwrap();
    let id = line.split(' ').next().unwrap().to_string();
    let entry = h.ok("logs", json!({ "id": id })).await;
    let detail = &entry["data"]["entry"];
    assert_eq!(detail["status"], 200, "{detail:#}");
    assert_eq!(detail["method"], "GET");
    assert_eq!(detail["type"], "fetch");
    assert_eq!(detail["state"], "finished");
    let url = detail["url"].as_str().unwrap();
    assert!(url.contains("page=2") && !url.contains("abc123"), "{url}");
    let authorization = detail["requestHeaders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| {
            h["name"]
                .as_str()
                .unwrap()
                .eq_ignore_ascii_case("authorization")
        })
        .unwrap();
    assert_eq!(authorization["value"], "[redacted]", "{detail:#}");
    assert!(!entry.to_string().contains("sekret-token"), "{entry:#}");
    assert!(
        detail["body"]
            .as_str()
            .unwrap()
            .contains("<title>Status 200</title>"),
        "{detail:#}"
    );
    assert!(
        entry["untrusted"]
            .as_array()
            .unwrap()
            .contains(&json!("/data/entry"))
    );

    let console = h.ok("logs", json!({ "level": "error" })).await;
    let exception = lines(&console)
        .into_iter()
        .find(|l| l.contains("boom"))
        .unwrap();
    let id = exception.split(' ').next().unwrap().to_string();
    assert!(id.starts_with('x'), "{exception}");
    let entry = h.ok("logs", json!({ "id": id })).await;
    let detail = &entry["data"]["entry"];
    assert_eq!(detail["exception"], true, "{detail:#}");
    assert_eq!(detail["level"], "error");
    assert!(detail["text"].as_str().unwrap().contains("Error: boom"));
    assert!(
        !detail["stack"].as_array().unwrap().is_empty(),
        "{detail:#}"
    );

    h.fails("logs", json!({ "id": "n99999" }), "LOG_ENTRY_NOT_FOUND")
        .await;
    h.fails("logs", json!({ "id": "z1" }), "INVALID_PARAMS")
        .await;
    h.shutdown().await;
}

/// A click whose request answers 500 says so in the one answer the agent reads; a clean
/// click says nothing of logs.
#[tokio::test]
async fn an_action_names_what_went_wrong_during_it_and_a_clean_one_nothing() {
    let h = Harness::new();
    loaded(&h).await;
    let saved = h
        .ok("act", json!({ "action": "click", "selector": "#save" }))
        .await;
    let logs = &saved["events"]["logs"];
    assert_eq!(logs.as_array().map(Vec::len), Some(1), "{saved:#}");
    let report = &logs[0];
    assert_eq!(report["tabId"], "tab0", "{report:#}");
    assert_eq!(report["failedRequests"], 1, "{report:#}");
    assert_eq!(report["errors"], 0, "{report:#}");
    let said = report["lines"][0].as_str().unwrap();
    assert!(said.contains("POST 500 /upload/500"), "{said}");
    assert!(
        saved["untrusted"]
            .as_array()
            .unwrap()
            .contains(&json!("/events/logs/0/lines"))
    );
    // The cursor it gives reads the failure in full.
    let since = report["since"].as_u64().unwrap();
    let errors = h
        .ok("logs", json!({ "kind": "errors", "since": since }))
        .await;
    assert_eq!(lines(&errors).len(), 1, "{errors:#}");
    let text = tools::render_json("act", &saved);
    assert!(text.contains("POST 500 /upload/500"), "{text}");

    let clean = h
        .ok("act", json!({ "action": "click", "selector": "#clean" }))
        .await;
    assert!(clean["events"].get("logs").is_none(), "{clean:#}");
    let listed = h
        .ok("logs", json!({ "kind": "network", "since": since }))
        .await;
    assert!(has(&lines(&listed), "GET 200 /status/200"), "{listed:#}");

    let broke = h
        .ok("act", json!({ "action": "click", "selector": "#throw" }))
        .await;
    assert_eq!(broke["events"]["logs"][0]["errors"], 1, "{broke:#}");
    assert!(
        broke["events"]["logs"][0]["lines"][0]
            .as_str()
            .unwrap()
            .contains("TypeError"),
        "{broke:#}"
    );
    h.shutdown().await;
}

/// `expect` holds an action to what its page logged and fetched.
#[tokio::test]
async fn an_expectation_on_logs_is_checked_after_the_action() {
    let h = Harness::new();
    loaded(&h).await;
    let failed = h
        .fails(
            "act",
            json!({ "action": "click", "selector": "#save",
                    "expect": { "requestSucceeded": "/upload/" } }),
            "EXPECTATION_FAILED",
        )
        .await;
    assert_eq!(failed["verification"]["verified"], false, "{failed:#}");
    let actual = failed["verification"]["expect"]["actual"].to_string();
    assert!(actual.contains("POST 500"), "{failed:#}");

    let passed = h
        .ok(
            "act",
            json!({ "action": "click", "selector": "#clean",
                    "expect": { "requestSucceeded": "*/status/200", "noConsoleErrors": true } }),
        )
        .await;
    assert_eq!(passed["verification"]["verified"], true, "{passed:#}");

    let broke = h
        .fails(
            "act",
            json!({ "action": "click", "selector": "#throw",
                    "expect": { "noConsoleErrors": true } }),
            "EXPECTATION_FAILED",
        )
        .await;
    assert!(
        broke["verification"]["expect"]["actual"]
            .to_string()
            .contains("TypeError"),
        "{broke:#}"
    );
    h.fails(
        "act",
        json!({ "action": "click", "selector": "#clean",
                "expect": { "noConsoleErrors": false } }),
        "INVALID_PARAMS",
    )
    .await;
    h.fails(
        "act",
        json!({ "action": "click", "selector": "#clean",
                "expect": { "requestSucceeded": "*" } }),
        "EMPTY_CONDITION",
    )
    .await;
    h.shutdown().await;
}

/// 10,000 messages in a loop: the rings stay within their bound and say what they let go
/// of, repeats fold into one line, and the answer keeps to its budget.
#[tokio::test]
async fn a_page_that_floods_the_console_keeps_the_log_bounded_and_the_answer_in_budget() {
    let h = Harness::with(|options| options.log_max_entries = 200);
    loaded(&h).await;
    h.ok("act", json!({ "action": "click", "selector": "#flood" }))
        .await;
    h.ok("wait", json!({ "text": "Flooded." })).await;
    let read = h.ok("logs", json!({ "limit": 50 })).await;
    let data = &read["data"];
    let listed = lines(&read);
    assert!(data["dropped"].as_u64().unwrap() >= 4_800, "{data:#}");
    // Two rings of 200: console messages, and the two exceptions the page threw.
    assert_eq!(data["matched"], 202, "{data:#}");
    assert_eq!(
        listed
            .last()
            .map(String::as_str)
            .map(|l| l.ends_with("same again ×5000")),
        Some(true),
        "{listed:#?}"
    );
    // The newest kept, within the limit.
    assert_eq!(listed.len(), 50, "{data:#}");
    assert_eq!(data["omitted"], 152, "{data:#}");
    // All of them fit in the default budget.
    let all = h.ok("logs", json!({ "limit": 1000 })).await;
    assert_eq!(lines(&all).len(), 202, "{all:#}");
    let text = all["data"]["entries"].as_str().unwrap();
    assert!(browser::estimate_tokens(text) <= 4_096, "{text}");
    h.shutdown().await;
}

/// The task's requests written as HAR 1.2: every request, secrets redacted.
#[tokio::test]
async fn the_tasks_requests_are_written_as_har_with_secrets_redacted() {
    let h = Harness::new();
    loaded(&h).await;
    let written = h.ok("logs", json!({ "har": true })).await;
    let har = &written["data"]["har"];
    let path = std::path::Path::new(har["path"].as_str().unwrap());
    let text = std::fs::read_to_string(path).unwrap();
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(text.len() as u64, har["bytes"].as_u64().unwrap());
    let parsed: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(parsed["log"]["version"], "1.2");
    let entries = parsed["log"]["entries"].as_array().unwrap();
    assert_eq!(entries.len() as u64, har["entries"].as_u64().unwrap());
    assert!(entries.len() >= 7, "{}", entries.len());
    assert_eq!(parsed["log"]["pages"][0]["id"], "tab0");
    let refused = entries
        .iter()
        .find(|e| e["request"]["url"] == "http://127.0.0.1:1/refused")
        .unwrap();
    assert_eq!(refused["response"]["status"], 0);
    assert_eq!(refused["_error"], "net::ERR_CONNECTION_REFUSED");
    let not_found = entries
        .iter()
        .find(|e| {
            e["request"]["url"]
                .as_str()
                .unwrap()
                .ends_with("/status/404")
        })
        .unwrap();
    assert_eq!(not_found["response"]["status"], 404);
    assert!(
        !text.contains("sekret-token") && !text.contains("abc123"),
        "{text}"
    );
    assert!(text.contains("[redacted]"));
    h.shutdown().await;
}

/// A flow step keeps its expectation on logs, and a replay checks it again: green as
/// recorded, stopped at the step when the request it names is not the one made.
#[tokio::test]
async fn a_flow_step_expecting_on_logs_is_verified_on_replay() {
    use tools::flow::{self, Flow};
    let h = Harness::new();
    loaded(&h).await;
    h.ok(
        "act",
        json!({ "action": "click", "selector": "#clean",
                "expect": { "requestSucceeded": "/status/200", "noConsoleErrors": true } }),
    )
    .await;
    let exported = h.ok("flow", json!({ "action": "export" })).await;
    let recorded = exported["data"]["flow"].clone();
    let step = &recorded["steps"][2];
    assert_eq!(step["method"], "act", "{recorded:#}");
    assert_eq!(
        step["params"]["expect"]["requestSucceeded"], "/status/200",
        "{recorded:#}"
    );

    let bound = Flow::parse(&recorded)
        .unwrap()
        .bind(&Default::default())
        .unwrap();
    let report = flow::run(&h.engine, &bound).await;
    assert!(report.ok(), "{:#?}", report.failure);
    assert_eq!(
        report.steps[2]["verification"]["verified"], true,
        "{:#}",
        report.steps[2]
    );

    let mut changed = recorded.clone();
    changed["steps"][2]["params"]["expect"]["requestSucceeded"] = json!("/status/404");
    let bound = Flow::parse(&changed)
        .unwrap()
        .bind(&Default::default())
        .unwrap();
    let report = flow::run(&h.engine, &bound).await;
    let failure = report.failure.expect("the replay must stop");
    assert_eq!(failure["step"], 3, "{failure:#}");
    assert_eq!(failure["code"], "EXPECTATION_FAILED", "{failure:#}");
    h.shutdown().await;
}
