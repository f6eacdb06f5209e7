//! Tests of the tab log (`logs/`): events in, entries, folds, bounds and problems out.
use serde_json::json;

use super::*;

fn event(method: &str, params: serde_json::Value) -> RawEvent {
    RawEvent {
        session: None,
        method: method.into(),
        params,
    }
}

fn console(log: &mut TabLog, kind: &str, args: serde_json::Value) {
    log.apply(
        &event(
            "Runtime.consoleAPICalled",
            json!({ "type": kind, "args": args, "timestamp": 1.0,
                    "stackTrace": { "callFrames": [
                        { "functionName": "save", "url": "http://h/app.js", "lineNumber": 11, "columnNumber": 4 }
                    ] } }),
        ),
        "main",
    );
}

fn string(text: &str) -> serde_json::Value {
    json!({ "type": "string", "value": text })
}

#[test]
fn a_repeat_folds_into_the_entry_it_repeats_and_rings_stay_bounded() {
    let mut log = TabLog::new(3);
    for _ in 0..10_000 {
        console(&mut log, "log", json!([string("tick")]));
    }
    assert_eq!(log.console().len(), 1);
    assert_eq!(log.console()[0].count, 10_000);
    assert_eq!(
        log.console()[0].line(200),
        "c1 [info] app.js:12 tick ×10000"
    );
    assert_eq!(log.console()[0].last, 10_000);
    for n in 0..5 {
        console(&mut log, "log", json!([string(&format!("n{n}"))]));
    }
    assert_eq!(log.console().len(), 3);
    assert_eq!(log.dropped().console, 3);
    assert_eq!(log.console()[0].text, "n2");
    assert_eq!(log.problems_since(0).count(), 0);
}

#[test]
fn console_text_follows_format_specifiers() {
    let mut log = TabLog::new(10);
    console(
        &mut log,
        "error",
        json!([string("%s failed %d times%c!"), string("save"), {"type": "number", "value": 3},
               string("color: red"), {"type": "object", "subtype": "null"},
               {"type": "object", "className": "Object", "description": "Object"}]),
    );
    let entry = &log.console()[0];
    assert_eq!(entry.text, "save failed 3 times! null Object");
    assert_eq!(entry.level, Level::Error);
    assert_eq!(entry.stack, ["save (http://h/app.js:12:5)"]);
    let problems: Vec<_> = log.problems_since(0).collect();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].entry, EntryId::Console(1));
}

#[test]
fn an_exception_keeps_its_text_and_first_frames() {
    let mut log = TabLog::new(10);
    log.apply(
        &event(
            "Runtime.exceptionThrown",
            json!({ "timestamp": 5.0, "exceptionDetails": {
                "exceptionId": 1, "text": "Uncaught", "lineNumber": 3, "columnNumber": 1,
                "url": "http://h/page.html",
                "exception": { "type": "object", "subtype": "error",
                    "description": "TypeError: x is undefined\n    at go (http://h/page.html:4:2)" }
            } }),
        ),
        "main",
    );
    let entry = &log.exceptions()[0];
    assert_eq!(
        entry.line(200),
        "x1 [exception] page.html:4 Uncaught TypeError: x is undefined"
    );
    assert_eq!(entry.stack, ["go (http://h/page.html:4:2)"]);
    assert_eq!(log.problems_since(0).count(), 1);
    assert_eq!(log.problems_since(1).count(), 0);
}

fn request(log: &mut TabLog, id: &str, url: &str, kind: &str) {
    log.apply(
        &event(
            "Network.requestWillBeSent",
            json!({ "requestId": id, "timestamp": 10.0, "wallTime": 1700000000.0, "type": kind,
                    "frameId": "main",
                    "request": { "url": url, "method": "POST", "headers": { "Authorization": "Bearer s" } } }),
        ),
        "main",
    );
}

#[test]
fn a_request_answered_500_is_a_problem_when_its_status_arrives() {
    let mut log = TabLog::new(10);
    request(&mut log, "r1", "http://h/api/save", "XHR");
    let sent = log.cursor();
    assert_eq!(log.unanswered_since(0), 1);
    log.apply(
        &event(
            "Network.responseReceived",
            json!({ "requestId": "r1", "timestamp": 10.05,
                    "response": { "url": "http://h/api/save", "status": 500, "statusText": "Internal",
                                  "headers": {}, "mimeType": "text/html" } }),
        ),
        "main",
    );
    log.apply(
        &event(
            "Network.loadingFinished",
            json!({ "requestId": "r1", "timestamp": 10.084, "encodedDataLength": 1234 }),
        ),
        "main",
    );
    assert_eq!(log.unanswered_since(0), 0);
    let entry = &log.network()[0];
    assert_eq!(
        entry.line(Some("http://h"), 200),
        "n1 POST 500 /api/save 1.2 KB 84 ms xhr"
    );
    assert_eq!(entry.last, 3);
    let problems: Vec<_> = log.problems_since(sent).collect();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].entry, EntryId::Network(1));
}

#[test]
fn a_canceled_request_is_no_problem_and_a_refused_one_is() {
    let mut log = TabLog::new(10);
    request(&mut log, "a", "http://h/a", "Fetch");
    request(&mut log, "b", "http://127.0.0.1:1/b", "Fetch");
    for (id, error, canceled) in [
        ("a", "net::ERR_ABORTED", true),
        ("b", "net::ERR_CONNECTION_REFUSED", false),
    ] {
        log.apply(
            &event(
                "Network.loadingFailed",
                json!({ "requestId": id, "timestamp": 10.003, "errorText": error, "canceled": canceled }),
            ),
            "main",
        );
    }
    let problems: Vec<_> = log.problems_since(0).collect();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].entry, EntryId::Network(2));
    assert_eq!(
        log.request(2)
            .map(|e| e.line(None, 200))
            .unwrap_or_default(),
        "n2 POST failed net::ERR_CONNECTION_REFUSED http://127.0.0.1:1/b 3 ms fetch"
    );
    assert_eq!(
        log.request(1).map(|e| e.state()),
        Some(RequestState::Failed)
    );
}

#[test]
fn a_full_ring_forgets_the_open_requests_it_let_go() {
    let mut log = TabLog::new(2);
    for n in 0..5 {
        request(&mut log, &format!("r{n}"), "http://h/never", "Fetch");
    }
    assert_eq!(log.network().len(), 2);
    assert_eq!(log.dropped().network, 3);
    assert_eq!(log.open.len(), 2);
}

#[test]
fn ids_read_back() {
    for id in ["c1", "x22", "n333"] {
        assert_eq!(
            EntryId::parse(id).map(|e| e.to_string()).as_deref(),
            Some(id)
        );
    }
    assert_eq!(EntryId::parse("q1"), None);
    assert_eq!(EntryId::parse("c"), None);
    assert_eq!(EntryId::parse("n-1"), None);
}

#[test]
fn the_browsers_own_request_for_the_site_icon_is_listed_but_no_problem() {
    let mut log = TabLog::new(10);
    request(&mut log, "icon", "http://h/favicon.ico", "Other");
    log.apply(
        &event(
            "Network.responseReceived",
            json!({ "requestId": "icon", "timestamp": 10.01,
                    "response": { "url": "http://h/favicon.ico", "status": 404, "headers": {} } }),
        ),
        "main",
    );
    assert_eq!(log.network().len(), 1);
    assert_eq!(log.network()[0].status, Some(404));
    assert_eq!(log.problems_since(0).count(), 0);
    // The page's own request for it is one.
    request(&mut log, "fetched", "http://h/favicon.ico", "Fetch");
    log.apply(
        &event(
            "Network.responseReceived",
            json!({ "requestId": "fetched", "timestamp": 10.01,
                    "response": { "url": "http://h/favicon.ico", "status": 404, "headers": {} } }),
        ),
        "main",
    );
    assert_eq!(log.problems_since(0).count(), 1);
}

#[test]
fn a_message_past_its_bound_keeps_its_start_and_counts_the_rest() {
    let mut log = TabLog::new(10);
    let huge = "é".repeat(1_000_000);
    console(&mut log, "log", json!([string(&huge), string("tail")]));
    let entry = &log.console()[0];
    assert_eq!(entry.text.chars().count(), MAX_TEXT);
    assert!(entry.text.chars().all(|c| c == 'é'));
    assert_eq!(entry.clipped, 1_000_000 - MAX_TEXT + " tail".len());
    console(&mut log, "assert", json!([string("x > 0")]));
    assert_eq!(log.console()[1].text, "Assertion failed: x > 0");
    assert_eq!(log.console()[1].level, Level::Error);
}

#[test]
fn a_url_is_shortened_to_its_path_only_on_the_pages_own_origin() {
    let mut log = TabLog::new(10);
    request(&mut log, "a", "http://h/api", "Fetch");
    request(&mut log, "b", "http://h.evil.example/api", "Fetch");
    request(&mut log, "c", "http://h:8080/api", "Fetch");
    let lines: Vec<String> = log
        .network()
        .iter()
        .map(|e| e.line(Some("http://h"), 200))
        .collect();
    assert!(lines[0].contains("POST pending /api"), "{lines:?}");
    assert!(lines[1].contains("http://h.evil.example/api"), "{lines:?}");
    assert!(lines[2].contains("http://h:8080/api"), "{lines:?}");
}

#[test]
fn the_footprint_of_a_full_ring_stays_at_its_bound_and_counts_each_entrys_text() {
    let mut log = TabLog::new(3);
    let text = "x".repeat(5_000);
    for n in 0..10 {
        console(&mut log, "log", json!([string(&format!("{n}{text}"))]));
    }
    let rings = log.footprint();
    assert_eq!(rings.console.entries, 3);
    let entry = &log.console()[0];
    let owned = entry.text.capacity() + entry.url.as_ref().map_or(0, String::capacity);
    let slots = log.console().capacity() * std::mem::size_of::<ConsoleEntry>();
    assert_eq!(rings.console.bytes, slots + 3 * owned);
    assert!(rings.console.bytes > 3 * 5_000, "{}", rings.console.bytes);
    assert_eq!(
        (
            rings.exceptions.entries,
            rings.network.entries,
            rings.problems.entries
        ),
        (0, 0, 0)
    );
}
