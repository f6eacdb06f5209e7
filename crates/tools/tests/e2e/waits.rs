//! `wait`, `eval` and `form_state` in real Chromium: conditions that hold later, never,
//! or across a navigation; the parameter rules; eval off by default, the
//! expression-then-body rule and script errors; form controls read with secrets masked.

use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::{Harness, assert_not_started};

fn message(envelope: &Value) -> &str {
    envelope["message"].as_str().unwrap_or_default()
}

async fn open(h: &Harness, path: &str) {
    h.ok("navigate", json!({ "url": h.url(path) })).await;
}

// --- wait ---------------------------------------------------------------------------

#[tokio::test]
async fn wait_visible_succeeds_for_content_that_appears_after_1500_ms() {
    let h = Harness::new();
    open(&h, "late-content.html").await;
    let before = h
        .fails(
            "wait",
            json!({ "selector": "#late", "timeoutMs": 1 }),
            "WAIT_TIMEOUT",
        )
        .await;
    assert_eq!(before["events"]["navigated"], false);
    // Not there yet: the wait below sees it come rather than finding it there.
    assert_eq!(
        before["data"]["actual"],
        json!({ "matched": 0, "visible": 0 })
    );

    let envelope = h
        .ok(
            "wait",
            json!({ "selector": "#late", "state": "visible", "timeoutMs": 10000 }),
        )
        .await;
    assert_eq!(
        envelope["data"]["actual"],
        json!({ "matched": 1, "visible": 1 })
    );
    assert_eq!(
        envelope["data"]["condition"],
        "selector \"#late\" to be visible"
    );
    assert_not_started(&envelope);
    assert_eq!(envelope["page"]["tabId"], "tab0");
    h.shutdown().await;
}

#[tokio::test]
async fn a_wait_that_never_holds_fails_naming_the_selector_state_and_time() {
    let h = Harness::new();
    open(&h, "late-content.html").await;
    let envelope = h
        .fails(
            "wait",
            json!({ "selector": "#never", "state": "visible", "timeoutMs": 400 }),
            "WAIT_TIMEOUT",
        )
        .await;
    let text = message(&envelope);
    let waited = envelope["data"]["waitedMs"].as_u64().unwrap();
    assert!(waited >= 400, "{envelope:#}");
    assert!(text.contains("\"#never\""), "{text}");
    assert!(text.contains("visible"), "{text}");
    assert!(text.contains(&format!("waited {waited} ms")), "{text}");
    assert!(text.contains("400 ms"), "{text}");
    assert!(text.contains("1 matching, 0 visible"), "{text}");
    assert_eq!(envelope["data"]["timeoutMs"], 400);
    assert_eq!(
        envelope["data"]["actual"],
        json!({ "matched": 1, "visible": 0 })
    );
    assert_not_started(&envelope);
    h.shutdown().await;
}

#[tokio::test]
async fn an_invalid_selector_is_refused_at_once() {
    let h = Harness::new();
    open(&h, "late-content.html").await;
    let envelope = h
        .fails(
            "wait",
            json!({ "selector": "div[", "timeoutMs": 20000 }),
            "INVALID_SELECTOR",
        )
        .await;
    assert!(message(&envelope).contains("\"div[\""), "{envelope:#}");
    // Refused at the first look, not after polling until the timeout.
    assert!(envelope["execution"]["durationMs"].as_u64().unwrap() < 10_000);
    assert_not_started(&envelope);
    h.shutdown().await;
}

#[tokio::test]
async fn hidden_means_absent_or_not_visible_and_attached_means_present() {
    let h = Harness::new();
    open(&h, "late-content.html").await;
    // Present but display:none, and present but visibility:hidden: hidden already.
    for selector in ["#never", "#ghost", "#nothing-like-this"] {
        let envelope = h
            .ok(
                "wait",
                json!({ "selector": selector, "state": "hidden", "timeoutMs": 1 }),
            )
            .await;
        assert_eq!(envelope["data"]["actual"]["visible"], 0, "{selector}");
    }
    h.ok(
        "wait",
        json!({ "selector": "#never", "state": "attached", "timeoutMs": 1 }),
    )
    .await;
    h.fails(
        "wait",
        json!({ "selector": "#ghost", "state": "visible", "timeoutMs": 1 }),
        "WAIT_TIMEOUT",
    )
    .await;
    // The spinner is removed when the content arrives.
    h.ok(
        "wait",
        json!({ "selector": "#spinner", "state": "hidden", "timeoutSeconds": 10 }),
    )
    .await;
    let attached = h
        .ok(
            "wait",
            json!({ "selector": "#late", "state": "attached", "timeoutMs": 10000 }),
        )
        .await;
    assert_eq!(attached["data"]["actual"]["matched"], 1);
    h.shutdown().await;
}

#[tokio::test]
async fn text_and_url_conditions_hold_when_the_page_gets_there() {
    let h = Harness::new();
    open(&h, "late-content.html").await;
    let text = h
        .ok(
            "wait",
            json!({ "text": "Content   arrived.", "timeoutMs": 10000 }),
        )
        .await;
    let excerpt = text["data"]["actual"].as_str().unwrap();
    assert!(excerpt.contains("Content arrived."), "{text:#}");

    let arrived = h.url("late-content.html?arrived=1");
    let url = h
        .ok("wait", json!({ "url": arrived, "timeoutMs": 10000 }))
        .await;
    assert_eq!(url["data"]["actual"], arrived);
    assert_eq!(url["page"]["url"], arrived);
    h.ok(
        "wait",
        json!({ "urlMatches": "http://127.0.0.1:*/late-*.html?arrived=?", "timeoutMs": 1 }),
    )
    .await;
    // Glob characters other than * and ? are literal: a dot is not "any character".
    h.fails(
        "wait",
        json!({ "urlMatches": "*late.content.html*", "timeoutMs": 1 }),
        "WAIT_TIMEOUT",
    )
    .await;
    h.fails(
        "wait",
        json!({ "urlMatches": "*late-content.htm", "timeoutMs": 1 }),
        "WAIT_TIMEOUT",
    )
    .await;

    let missing = h
        .fails(
            "wait",
            json!({ "text": "Something else entirely", "timeoutMs": 200 }),
            "WAIT_TIMEOUT",
        )
        .await;
    assert!(message(&missing).contains("\"Something else entirely\""));
    // The evidence is the page's text as it was.
    assert!(
        missing["data"]["actual"]
            .as_str()
            .is_some_and(|t| t.contains("Late content")),
        "{missing:#}"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn a_wait_goes_on_in_the_next_document_after_a_navigation() {
    let h = Harness::new();
    open(&h, "navigates-later.html").await;
    let envelope = h
        .ok(
            "wait",
            json!({ "text": "This is the second page", "timeoutMs": 10000 }),
        )
        .await;
    assert_eq!(envelope["page"]["url"], h.url("second.html"));
    assert_eq!(envelope["page"]["title"], "Second page");
    // Not asked for, so reported.
    assert_eq!(envelope["events"]["navigated"], true);
    h.shutdown().await;
}

#[tokio::test]
async fn a_wait_cut_short_by_its_command_deadline_is_command_timeout() {
    let h = Harness::new();
    open(&h, "late-content.html").await;
    let params = json!({ "selector": "#never", "timeoutMs": 60000 });
    let started = std::time::Instant::now();
    let envelope = h
        .engine
        .call("wait", params, Some(Duration::from_millis(1500)))
        .await
        .to_json();
    let took = started.elapsed();
    // The command's deadline ended it, so that is what is reported (docs/waiting.md#deadlines), at the
    // deadline and not before; the wait dispatched nothing.
    assert_eq!(envelope["code"], "COMMAND_TIMEOUT", "{envelope:#}");
    assert!(message(&envelope).contains("#never"), "{envelope:#}");
    assert!(took >= Duration::from_millis(1450), "{took:?}");
    assert!(took < Duration::from_millis(2500), "{took:?}");
    assert_not_started(&envelope);
    h.shutdown().await;
}

#[tokio::test]
async fn wait_parameters_are_checked_before_anything_runs() {
    let h = Harness::new();
    let none = h
        .fails("wait", json!({ "timeoutMs": 100 }), "EMPTY_CONDITION")
        .await;
    assert_not_started(&none);
    h.fails("wait", json!({ "text": "" }), "EMPTY_CONDITION")
        .await;
    let several = h
        .fails(
            "wait",
            json!({ "text": "a", "selector": "#b" }),
            "INVALID_PARAMS",
        )
        .await;
    assert!(
        message(&several).contains("selector and text"),
        "{several:#}"
    );
    h.fails(
        "wait",
        json!({ "text": "a", "timeoutMs": 0 }),
        "INVALID_PARAMS",
    )
    .await;
    h.fails(
        "wait",
        json!({ "text": "a", "timeoutMs": 900001 }),
        "INVALID_PARAMS",
    )
    .await;
    let disagree = h
        .fails(
            "wait",
            json!({ "text": "a", "timeoutMs": 1000, "timeoutSeconds": 2 }),
            "INVALID_PARAMS",
        )
        .await;
    assert!(message(&disagree).contains("disagree"), "{disagree:#}");
    h.fails(
        "wait",
        json!({ "text": "a", "state": "hidden" }),
        "INVALID_PARAMS",
    )
    .await;
    // None of these needed the browser.
    assert!(h.engine.browser().await.is_none());

    open(&h, "late-content.html").await;
    h.ok(
        "wait",
        json!({ "text": "Late content", "timeoutMs": 1500, "timeoutSeconds": 1.5 }),
    )
    .await;
    h.shutdown().await;
}

#[tokio::test]
async fn a_js_condition_needs_eval_enabled() {
    let h = Harness::new();
    let envelope = h
        .fails(
            "wait",
            json!({ "js": "window.ready", "min": 3 }),
            "EVAL_DISABLED",
        )
        .await;
    assert!(
        message(&envelope).contains("enableEval = true"),
        "{envelope:#}"
    );
    assert!(message(&envelope).contains("CANDOR_ENABLE_EVAL=true"));
    assert_not_started(&envelope);
    h.shutdown().await;
}

#[tokio::test]
async fn js_conditions_with_every_matcher() {
    let h = Harness::with_eval();
    open(&h, "late-content.html").await;
    let min = h
        .ok(
            "wait",
            json!({ "js": "window.ready", "min": 3, "timeoutMs": 10000 }),
        )
        .await;
    assert_eq!(min["data"]["actual"], 3);
    let cases = [
        json!({ "js": "window.state", "equals": { "done": true, "items": ["a", "b"] } }),
        json!({ "js": "window.state.items", "contains": "b" }),
        json!({ "js": "document.title", "contains": "Late" }),
        json!({ "js": "window.state.done", "notEquals": false }),
        json!({ "js": "window.ready", "max": 3 }),
        json!({ "js": "document.getElementById('status').textContent.length", "min": 5 }),
        json!({ "js": "window.nothing", "equals": null }),
        json!({ "js": "Promise.resolve(7)", "equals": 7 }),
        json!({ "js": "document.querySelector('#late')" }),
        json!({ "js": "window.state.done", "truthy": true }),
    ];
    for params in cases {
        let mut params = params;
        params["timeoutMs"] = json!(1);
        h.ok("wait", params).await;
    }
    let failing = h
        .fails(
            "wait",
            json!({ "js": "window.state.items", "contains": "z", "timeoutMs": 100 }),
            "WAIT_TIMEOUT",
        )
        .await;
    assert_eq!(failing["data"]["actual"], json!(["a", "b"]));
    assert!(
        message(&failing).contains("to contain \"z\""),
        "{failing:#}"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn a_js_condition_that_throws_until_its_element_exists_is_waited_for() {
    let h = Harness::with_eval();
    open(&h, "late-content.html").await;
    let early = h
        .fails(
            "wait",
            json!({ "js": "document.querySelector('#late').textContent", "timeoutMs": 1 }),
            "WAIT_TIMEOUT",
        )
        .await;
    assert!(
        early["data"]["actual"]["threw"]
            .as_str()
            .is_some_and(|t| t.starts_with("TypeError")),
        "{early:#}"
    );
    h.ok(
        "wait",
        json!({
            "js": "document.querySelector('#late').textContent",
            "equals": "Late button",
            "timeoutMs": 10000,
        }),
    )
    .await;
    // Not JavaScript at all: refused at once, whatever the timeout.
    let invalid = h
        .fails(
            "wait",
            json!({ "js": "window.ready >", "timeoutMs": 20000 }),
            "SCRIPT_ERROR",
        )
        .await;
    assert_eq!(invalid["data"]["class"], "SyntaxError");
    assert!(
        message(&invalid).contains("nothing was waited for"),
        "{invalid:#}"
    );
    assert!(invalid["execution"]["durationMs"].as_u64().unwrap() < 10_000);
    assert_not_started(&invalid);
    h.shutdown().await;
}

#[tokio::test]
async fn a_check_once_that_throws_is_an_error_not_a_value() {
    // readback checks its expression once, through the same page-side poll: an
    // exception there has no "later" and must not come back as the value.
    let h = Harness::with_eval();
    open(&h, "form.html").await;
    let failed = h
        .fails(
            "act",
            json!({ "action": "fill", "selector": "#name", "text": "Ada", "readback": "null.boom" }),
            "READBACK_FAILED",
        )
        .await;
    assert_eq!(failed["data"]["class"], "TypeError", "{failed:#}");
    assert_eq!(failed["execution"]["actionStatus"], "completed");
    let read = h
        .ok(
            "act",
            json!({ "action": "fill", "selector": "#name", "text": "Ada", "readback": "document.getElementById('name').value" }),
        )
        .await;
    assert_eq!(read["data"]["readback"], "Ada");
    h.shutdown().await;
}

// --- eval ---------------------------------------------------------------------------

#[tokio::test]
async fn eval_is_listed_but_refused_when_disabled_naming_the_setting() {
    assert!(tools::find("eval").is_some());
    let h = Harness::new();
    let envelope = h
        .fails("eval", json!({ "expression": "1 + 1" }), "EVAL_DISABLED")
        .await;
    let text = message(&envelope);
    assert!(text.contains("enableEval = true"), "{text}");
    assert!(text.contains("CANDOR_ENABLE_EVAL=true"), "{text}");
    assert_not_started(&envelope);
    // Refused before a browser was even started.
    assert!(h.engine.browser().await.is_none());
    h.shutdown().await;
}

async fn eval(h: &Harness, code: &str) -> Value {
    h.ok("eval", json!({ "expression": code })).await["data"].clone()
}

#[tokio::test]
async fn eval_runs_an_expression_or_else_a_function_body() {
    let h = Harness::with_eval();
    open(&h, "late-content.html").await;
    let title = eval(&h, "document.title").await;
    assert_eq!(title["value"], "Late content");
    assert_eq!(title["type"], "string");
    assert_eq!(title["ranAs"], "expression");
    // An object literal is an expression, not a block.
    assert_eq!(
        eval(&h, "{ a: 1, b: [2] }").await["value"],
        json!({ "a": 1, "b": [2] })
    );
    // A trailing line comment does not swallow the wrapper.
    assert_eq!(eval(&h, "6 * 7 // the answer").await["value"], 42);
    assert_eq!(eval(&h, "document.title;").await["ranAs"], "expression");
    let body = eval(&h, "const x = 20;\nreturn x + 1; // done").await;
    assert_eq!(body["value"], 21);
    assert_eq!(body["ranAs"], "body");
    let nothing = eval(&h, "let y = 1; y += 1").await;
    assert_eq!(nothing["value"], Value::Null);
    assert_eq!(nothing["type"], "undefined");
    assert!(
        nothing["note"].as_str().unwrap().contains("return"),
        "{nothing:#}"
    );
    let undefined = eval(&h, "undefined").await;
    assert_eq!(undefined["value"], Value::Null);
    assert!(undefined["note"].as_str().unwrap().contains("undefined"));
    // Promises are awaited; await works in both forms.
    let late = eval(&h, "new Promise((r) => setTimeout(() => r('late'), 50))").await;
    assert_eq!(late["value"], "late");
    assert_eq!(eval(&h, "await Promise.resolve(5)").await["value"], 5);
    assert_eq!(
        eval(&h, "const v = await Promise.resolve(6); return v").await["value"],
        6
    );
    // What JSON cannot carry is described.
    let node = eval(&h, "document.querySelector('h1')").await;
    assert_eq!(node["type"], "node");
    assert_eq!(node["value"], "<h1>");
    let envelope = h
        .ok(
            "eval",
            json!({ "expression": "'x'.repeat(100)", "maxChars": 10 }),
        )
        .await;
    assert_eq!(envelope["data"]["truncated"], true);
    assert_eq!(envelope["data"]["value"], "\"xxxxxxxxx");
    // The code may have changed the page: eval counts as dispatched.
    assert_eq!(envelope["execution"]["dispatchStarted"], true);
    assert_eq!(envelope["execution"]["retrySafe"], false);
    h.shutdown().await;
}

#[tokio::test]
async fn eval_whose_page_navigates_away_reports_the_navigation_and_no_value() {
    let h = Harness::with_eval();
    open(&h, "late-content.html").await;
    let envelope = h
        .ok(
            "eval",
            json!({ "expression": "location.href = 'second.html';\nawait new Promise(() => {});" }),
        )
        .await;
    assert_eq!(envelope["events"]["navigated"], true, "{envelope:#}");
    assert_eq!(envelope["data"]["value"], Value::Null);
    assert!(
        envelope["data"]["note"]
            .as_str()
            .unwrap()
            .contains("navigated")
    );
    h.ok(
        "wait",
        json!({ "url": h.url("second.html"), "timeoutMs": 10000 }),
    )
    .await;
    h.shutdown().await;
}

#[tokio::test]
async fn eval_never_reruns_code_after_a_runtime_error() {
    let h = Harness::with_eval();
    open(&h, "late-content.html").await;
    // An expression that counts its runs and then throws.
    let envelope = h
        .fails(
            "eval",
            json!({ "expression": "(window.runs = (window.runs || 0) + 1, null.boom)" }),
            "SCRIPT_ERROR",
        )
        .await;
    assert_eq!(envelope["data"]["class"], "TypeError");
    assert_eq!(eval(&h, "window.runs").await["value"], 1);
    // A body that throws runs once too.
    h.fails(
        "eval",
        json!({ "expression": "window.bodyRuns = (window.bodyRuns || 0) + 1;\nthrow new Error('x');" }),
        "SCRIPT_ERROR",
    )
    .await;
    assert_eq!(eval(&h, "window.bodyRuns").await["value"], 1);
    h.shutdown().await;
}

#[tokio::test]
async fn eval_exceptions_are_script_errors_with_class_and_message() {
    let h = Harness::with_eval();
    open(&h, "late-content.html").await;
    let thrown = h
        .fails(
            "eval",
            json!({ "expression": "throw new RangeError('too far')" }),
            "SCRIPT_ERROR",
        )
        .await;
    assert_eq!(thrown["data"]["class"], "RangeError");
    assert_eq!(thrown["data"]["message"], "too far");
    // The class and message are the page's: fenced data, not the message.
    assert!(!message(&thrown).contains("too far"), "{thrown:#}");
    assert!(
        thrown["untrusted"]
            .as_array()
            .unwrap()
            .contains(&json!("/data/message"))
    );
    assert_eq!(thrown["execution"]["actionStatus"], "completed");
    assert_eq!(thrown["execution"]["retrySafe"], false);

    let rejected = h
        .fails(
            "eval",
            json!({ "expression": "Promise.reject(new TypeError('nope'))" }),
            "SCRIPT_ERROR",
        )
        .await;
    assert_eq!(rejected["data"]["class"], "TypeError");
    assert_eq!(rejected["data"]["message"], "nope");

    let custom = h
        .fails(
            "eval",
            json!({ "expression": "class Oops extends Error {}\nthrow new Oops('mine')" }),
            "SCRIPT_ERROR",
        )
        .await;
    assert_eq!(custom["data"]["class"], "Oops");

    // Not JavaScript either way: nothing ran, so it is safe to retry once fixed.
    let syntax = h
        .fails("eval", json!({ "expression": "1 +" }), "SCRIPT_ERROR")
        .await;
    assert_eq!(syntax["data"]["class"], "SyntaxError");
    assert!(message(&syntax).contains("nothing ran"), "{syntax:#}");
    assert_eq!(syntax["execution"]["actionStatus"], "not-started");
    assert_eq!(syntax["execution"]["retrySafe"], true);
    h.shutdown().await;
}

// --- form_state -----------------------------------------------------------------------

fn control<'a>(envelope: &'a Value, name: &str) -> &'a Value {
    envelope["data"]["controls"]
        .as_array()
        .and_then(|controls| {
            controls
                .iter()
                .find(|c| c["name"] == name || c["label"] == name)
        })
        .unwrap_or_else(|| panic!("no control {name} in {envelope:#}"))
}

#[tokio::test]
async fn form_state_masks_passwords() {
    let h = Harness::new();
    open(&h, "form.html").await;
    let envelope = h.ok("form_state", json!({})).await;
    let password = control(&envelope, "password");
    assert_eq!(password["type"], "password");
    assert_eq!(password["masked"], true);
    assert_eq!(password["domValue"], "[masked]");
    assert_eq!(password["displayValue"], "[masked]");
    // Never echoed anywhere: not in the envelope, not in its text form.
    let all = envelope.to_string();
    assert!(!all.contains("hunter2"), "{all}");
    assert!(!all.contains("hidden-token-value"), "{all}");
    h.shutdown().await;
}

#[tokio::test]
async fn form_state_reads_values_selections_checks_validity_comboboxes_and_shadow_roots() {
    let h = Harness::new();
    open(&h, "form.html").await;
    let envelope = h.ok("form_state", json!({ "scope": "#signup" })).await;

    let name = control(&envelope, "name");
    // The live property, not the attribute.
    assert_eq!(name["domValue"], "typed by the user");
    assert_eq!(name["label"], "Name");
    assert_eq!(name["selector"], "#name");
    assert_eq!(name["invalid"], false);

    let email = control(&envelope, "email");
    assert_eq!(email["invalid"], true);
    assert_eq!(email["required"], true);
    assert!(
        email["validationMessage"]
            .as_str()
            .is_some_and(|m| !m.is_empty())
    );

    let country = control(&envelope, "country");
    assert_eq!(country["domValue"], "de");
    assert_eq!(country["displayValue"], "Germany");
    assert_eq!(
        country["selectedOptions"],
        json!([{ "value": "de", "label": "Germany" }])
    );
    let langs = control(&envelope, "langs");
    assert_eq!(langs["displayValue"], "English, German");

    assert_eq!(control(&envelope, "terms")["checked"], true);
    let plans: Vec<_> = envelope["data"]["controls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["name"] == "plan")
        .map(|c| (c["domValue"].clone(), c["checked"].clone()))
        .collect();
    assert_eq!(
        plans,
        vec![(json!("free"), json!(false)), (json!("pro"), json!(true))]
    );
    assert_eq!(control(&envelope, "bio")["domValue"], "Hello\nthere");
    assert_eq!(control(&envelope, "locked")["disabled"], true);
    assert_eq!(control(&envelope, "Avatar")["type"], "file");
    assert_eq!(control(&envelope, "Newsletter")["checked"], "mixed");

    let size = control(&envelope, "Size");
    assert_eq!(size["type"], "combobox");
    assert_eq!(size["displayValue"], "Medium");
    assert_eq!(
        size["selectedOptions"],
        json!([{ "value": "m", "label": "Medium" }])
    );
    assert_eq!(size["popup"]["id"], "size-list");
    assert_eq!(size["popup"]["role"], "listbox");
    assert_eq!(size["popup"]["options"], 3);
    assert_eq!(size["popup"]["visible"], false);
    // The popup is reported with its combobox, not as a control of its own.
    assert!(
        envelope["data"]["controls"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["type"] != "listbox"),
        "{envelope:#}"
    );

    let nickname = control(&envelope, "nickname");
    assert_eq!(nickname["inShadowRoot"], true);
    assert_eq!(nickname["domValue"], "shadowy");
    assert_eq!(nickname["label"], "Nickname");

    // Only #signup: the search form is out of scope; the hidden input is counted.
    assert!(
        envelope["data"]["controls"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["name"] != "q"),
        "{envelope:#}"
    );
    assert_eq!(envelope["data"]["hiddenInputs"], 1);
    assert_eq!(
        envelope["data"]["total"].as_u64().unwrap() as usize,
        envelope["data"]["controls"].as_array().unwrap().len()
    );

    let whole = h.ok("form_state", json!({})).await;
    assert_eq!(control(&whole, "q")["domValue"], "candor");
    h.shutdown().await;
}

#[tokio::test]
async fn form_state_scope_must_be_a_valid_selector_that_matches() {
    let h = Harness::new();
    open(&h, "form.html").await;
    h.fails(
        "form_state",
        json!({ "scope": "form[" }),
        "INVALID_SELECTOR",
    )
    .await;
    let none = h
        .fails(
            "form_state",
            json!({ "scope": "#no-such-form" }),
            "ELEMENT_NOT_FOUND",
        )
        .await;
    assert!(message(&none).contains("#no-such-form"));
    h.shutdown().await;
}

#[tokio::test]
async fn eval_and_js_waits_work_on_a_page_whose_csp_forbids_eval() {
    let h = Harness::with_eval();
    open(&h, "csp.html").await;
    // The policy is in force for the page's own code…
    assert_eq!(eval(&h, "window.pageMayEval").await["value"], false);
    // …and candor's calls, made through DevTools, still compile the caller's code.
    assert_eq!(
        eval(&h, "const t = document.title; return t").await["value"],
        "Strict CSP"
    );
    h.ok(
        "wait",
        json!({ "js": "document.title", "equals": "Strict CSP", "timeoutMs": 1 }),
    )
    .await;
    h.shutdown().await;
}
