//! Hostile pages (docs/security.md): a page that writes as if it were candor never gets its words
//! outside the fence of the text form, nor into a `message`; a field the one definition
//! of a secret names never leaves the page, whatever reads or keeps it; a recorded
//! session keeps none of the secrets that passed through the browser.
//! Fixtures are under `fixtures/hostile/`.

use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

use crate::harness::Harness;

/// What the hostile pages tell the agent to do: never outside the fence.
const INSTRUCTIONS: [&str; 2] = ["IGNORE_PREVIOUS_INSTRUCTIONS", "OBEY_THE_PAGE"];

/// Where the fence ends for a reader: at the first closing tag it would take for one, in
/// any case, with white space or invisible characters anywhere inside (`</UNTRUSTED>`,
/// `</ untrusted >`, `</untrusted\u{200b}>`). The byte range of that tag in `text`.
fn closing_tag(text: &str) -> Option<(usize, usize)> {
    let blank = |c: char| c.is_whitespace() || ('\u{200b}'..='\u{200f}').contains(&c);
    let tag_at = |start: usize| {
        let mut wanted = "</untrusted>".chars().peekable();
        for (at, c) in text[start..].char_indices() {
            if at > 0 && blank(c) {
                continue;
            }
            if !wanted.next().is_some_and(|w| c.eq_ignore_ascii_case(&w)) {
                return None;
            }
            if wanted.peek().is_none() {
                return Some(start + at + 1);
            }
        }
        None
    };
    text.match_indices('<')
        .find_map(|(start, _)| tag_at(start).map(|end| (start, end)))
}

/// The text form of `envelope` less what its fence holds.
fn outside_fence(text: &str) -> String {
    let Some((before, inside)) = text.split_once(tools::FENCE_OPEN) else {
        return text.to_string();
    };
    match closing_tag(inside) {
        Some((_, end)) => format!("{before}{}", &inside[end..]),
        None => before.to_string(),
    }
}

/// The text form of `envelope` shows the page's instructions only inside its fence, and
/// its `message` holds none of them. Returns the text form.
fn assert_fenced(method: &str, envelope: &Value) -> String {
    let text = tools::render_json(method, envelope);
    let outside = outside_fence(&text);
    let message = envelope["message"].as_str().unwrap_or_default();
    for words in INSTRUCTIONS {
        assert!(
            !outside.contains(words),
            "{words} outside the fence of {method}:\n{text}\n{envelope:#}"
        );
        assert!(
            !message.contains(words),
            "{words} in the message of {method}: {message}"
        );
    }
    text
}

#[test]
fn the_fence_closes_only_at_a_closing_tag_as_a_reader_takes_one() {
    assert_eq!(closing_tag("a </UNTRUSTED> b"), Some((2, 14)));
    assert_eq!(closing_tag("a </untrusted > b"), Some((2, 15)));
    assert_eq!(closing_tag("a < / Untrusted\n> b"), Some((2, 17)));
    assert_eq!(closing_tag("a </untrusted\u{200b}> b"), Some((2, 17)));
    assert_eq!(closing_tag("a &lt;/untrusted&gt; b"), None);
    assert_eq!(closing_tag("a </untrustedx> b"), None);
    assert_eq!(
        outside_fence("x\n<untrusted>\nin\n</untrusted>\ny"),
        "x\n\ny"
    );
}

#[tokio::test]
async fn a_dialogs_message_reaches_the_agent_only_inside_the_fence() {
    let h = Harness::with(|options| options.ask_dialogs = true);
    h.ok("navigate", json!({ "url": h.url("hostile/fence.html") }))
        .await;
    let clicked = h
        .ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Greet" }),
        )
        .await;
    assert_eq!(clicked["data"]["dialogOpen"], true, "{clicked:#}");
    let text = assert_fenced("act", &clicked);
    assert!(text.contains(INSTRUCTIONS[0]), "{text}");
    let answered = h.ok("dialog", json!({ "accept": true })).await;
    let text = assert_fenced("dialog", &answered);
    assert!(text.contains(INSTRUCTIONS[1]), "{text}");
    h.shutdown().await;
}

#[tokio::test]
async fn a_select_refusal_lists_the_options_only_inside_the_fence() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("hostile/fence.html") }))
        .await;
    let refused = h
        .fails(
            "act",
            json!({ "action": "select", "selector": "#colour", "values": ["Mauve"] }),
            "ELEMENT_NOT_FOUND",
        )
        .await;
    let text = assert_fenced("act", &refused);
    // The labels are there for the agent to choose from, as the page's.
    let available = refused["data"]["available"].as_array().unwrap();
    assert_eq!(available.len(), 4, "{refused:#}");
    assert_eq!(available[0], "Red");
    assert!(text.contains(INSTRUCTIONS[0]), "{text}");
    assert!(!refused["message"].as_str().unwrap().contains("Red"));
    assert_eq!(refused["data"]["missing"], json!(["Mauve"]), "{refused:#}");
    h.shutdown().await;
}

#[tokio::test]
async fn a_downloads_name_and_url_reach_the_agent_only_inside_the_fence() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("hostile/fence.html") }))
        .await;
    let clicked = h
        .ok(
            "act",
            json!({ "action": "click", "role": "link", "name": "Download the notes" }),
        )
        .await;
    // The download may be reported by the click or by a later command.
    let completed = |envelope: &Value| {
        envelope["events"]["download"]
            .as_array()
            .and_then(|list| list.iter().find(|d| d["state"] == "completed").cloned())
    };
    let until = Instant::now() + Duration::from_secs(10);
    let mut reports = vec![("act", clicked)];
    let completed = loop {
        if let Some(done) = reports.last().and_then(|(_, e)| completed(e)) {
            break done;
        }
        assert!(Instant::now() < until, "gave up waiting for the download");
        tokio::time::sleep(Duration::from_millis(50)).await;
        reports.push(("tabs", h.ok("tabs", json!({})).await));
    };
    assert!(
        completed["name"]
            .as_str()
            .unwrap()
            .contains(INSTRUCTIONS[0]),
        "{completed:#}"
    );
    assert!(
        completed["url"].as_str().unwrap().contains(INSTRUCTIONS[1]),
        "{completed:#}"
    );
    for (method, envelope) in &reports {
        assert_fenced(method, envelope);
    }
    h.shutdown().await;
}

#[tokio::test]
async fn a_new_tabs_url_and_the_pages_own_url_reach_the_agent_only_inside_the_fence() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("hostile/fence.html") }))
        .await;
    let opened = h
        .ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Open the help" }),
        )
        .await;
    assert!(
        opened["events"]["newTab"]["url"]
            .as_str()
            .is_some_and(|url| url.contains(INSTRUCTIONS[0])),
        "{opened:#}"
    );
    assert_fenced("act", &opened);
    let renamed = h
        .ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Rename the page", "tabId": "tab0" }),
        )
        .await;
    assert!(
        renamed["page"]["url"]
            .as_str()
            .is_some_and(|url| url.contains(INSTRUCTIONS[1])),
        "{renamed:#}"
    );
    let text = assert_fenced("act", &renamed);
    assert!(text.contains(INSTRUCTIONS[1]), "{text}");
    h.shutdown().await;
}

#[tokio::test]
async fn a_permission_request_reports_the_documents_origin_whatever_the_page_did_to_json() {
    let h = Harness::new();
    let first = h
        .ok(
            "navigate",
            json!({ "url": h.url("hostile/permission.html") }),
        )
        .await;
    let until = Instant::now() + Duration::from_secs(10);
    let mut reports = vec![("navigate", first)];
    let denial = loop {
        if let Some(denial) = reports
            .last()
            .and_then(|(_, e)| e["events"]["permission"].get(0).cloned())
        {
            break denial;
        }
        assert!(
            Instant::now() < until,
            "gave up waiting for the denial's report"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
        reports.push((
            "snapshot",
            h.ok("snapshot", json!({ "mode": "text" })).await,
        ));
    };
    assert_eq!(
        denial["origin"],
        h.url("").trim_end_matches('/'),
        "{denial:#}"
    );
    assert_eq!(denial["permission"], "geolocation", "{denial:#}");
    for (method, envelope) in &reports {
        assert_fenced(method, envelope);
    }
    h.shutdown().await;
}

/// A card number and a one-time code, known as secret by their `autocomplete` tokens.
const CARD: &str = "4242424242424242";
const CODE: &str = "918273";

#[tokio::test]
async fn secret_fields_named_by_autocomplete_leave_the_page_nowhere() {
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("archive");
    let folder = archive.clone();
    let h = Harness::with(move |options| {
        options.enable_eval = true;
        options.archive.dir = Some(folder);
    });
    // Every answer, by what asked for it; and every place a secret was found.
    let mut answers: Vec<(&str, Value)> = Vec::new();
    let mut leaks: Vec<String> = Vec::new();
    answers.push((
        "navigate",
        h.ok("navigate", json!({ "url": h.url("hostile/secrets.html") }))
            .await,
    ));
    for (selector, text) in [("#holder", "Ada Lovelace"), ("#card", CARD)] {
        answers.push((
            "fill",
            h.ok(
                "act",
                json!({ "action": "fill", "selector": selector, "text": text }),
            )
            .await,
        ));
    }
    let typed = h
        .ok(
            "act",
            json!({ "action": "type", "selector": "#otp", "text": CODE }),
        )
        .await;
    assert_eq!(typed["data"]["inputValueVerified"], true, "{typed:#}");
    answers.push(("type", typed));
    // The page holds them, in its `value` attributes too.
    assert_eq!(
        read(&h, "document.getElementById('card').getAttribute('value')").await,
        CARD
    );
    for mode in ["elements", "text", "markdown", "html"] {
        answers.push((mode, h.ok("snapshot", json!({ "mode": mode })).await));
    }
    answers.push(("form_state", h.ok("form_state", json!({})).await));
    answers.push(("find", h.ok("find", json!({ "role": "textbox" })).await));
    let snapshot = h.ok("snapshot", json!({})).await;
    let state = snapshot["data"]["snapshotId"].as_str().unwrap().to_string();
    answers.push(("snapshot", snapshot));
    answers.push((
        "checkpoint list",
        h.ok("checkpoint", json!({ "action": "list" })).await,
    ));
    h.ok("navigate", json!({ "url": h.url("page-a.html") }))
        .await;
    let restored = h
        .ok(
            "checkpoint",
            json!({ "action": "restore", "stateId": state }),
        )
        .await;
    let omitted = restored["data"]["restoration"]["omitted"]
        .as_array()
        .unwrap()
        .len();
    answers.push(("checkpoint restore", restored));
    // Only what was not secret came back: the checkpoint never held the others.
    assert_eq!(
        read(&h, "document.getElementById('holder').value").await,
        "Ada Lovelace"
    );
    for field in ["card", "otp"] {
        let value = read(&h, &format!("document.getElementById('{field}').value")).await;
        if value != "" {
            leaks.push(format!("the checkpoint (it restored #{field})"));
        }
    }
    if omitted != 2 {
        leaks.push(format!(
            "the checkpoint (it omitted {omitted} fields, not 2)"
        ));
    }
    let flow = h.ok("flow", json!({ "action": "export" })).await;
    let variables = &flow["data"]["flow"]["variables"];
    for name in ["card_number", "one_time_code"] {
        if variables[name]["sensitive"] != true {
            leaks.push(format!("the flow (no {name} variable: {variables})"));
        }
    }
    answers.push(("flow export", flow));
    answers.push((
        "recall",
        h.ok("recall", json!({ "mode": "bundles", "limit": 100 }))
            .await,
    ));
    answers.push((
        "recall query",
        h.ok("recall", json!({ "query": "Card number" })).await,
    ));
    let diagnostics = h.ok("diagnostics", json!({})).await;
    let path = diagnostics["data"]["archive"]["path"]
        .as_str()
        .unwrap()
        .to_string();
    answers.push(("diagnostics", diagnostics));
    for (what, answer) in &answers {
        let text = answer.to_string();
        for secret in [CARD, CODE] {
            if text.contains(secret) {
                leaks.push(format!("{what} ({secret})"));
            }
        }
    }
    // Nor in the archive's files (the database and its write-ahead log).
    let folder = std::path::Path::new(&path).parent().unwrap();
    assert!(folder.starts_with(&archive), "{path}");
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        for secret in [CARD, CODE] {
            if bytes.windows(secret.len()).any(|w| w == secret.as_bytes()) {
                leaks.push(format!("{} ({secret})", path.display()));
            }
        }
    }
    assert!(leaks.is_empty(), "a secret is in {leaks:#?}");
    h.shutdown().await;
}

const USER: &str = "ada-lovelace-77";
const PASSWORD: &str = "hunter2-Zq8xVw";
/// The API key `fixtures/hostile/sign-in.html` sends in `X-Api-Key`.
const API_KEY: &str = "key-Rk4Wq7Tn2Yp";

#[tokio::test]
async fn a_recorded_sign_in_keeps_no_secret_on_its_tape() {
    let dir = tempfile::tempdir().unwrap();
    let tape = dir.path().join("session.jsonl");
    let recorded = tape.clone();
    let h = Harness::with(move |options| options.browser.record_cdp = Some(recorded));
    h.ok("navigate", json!({ "url": h.url("hostile/sign-in.html") }))
        .await;
    h.ok("wait", json!({ "text": "called 200" })).await;
    h.ok(
        "act",
        json!({ "action": "type", "selector": "#user", "text": USER }),
    )
    .await;
    h.ok(
        "act",
        json!({ "action": "fill", "selector": "#password", "text": PASSWORD }),
    )
    .await;
    let signed = h
        .ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Sign in" }),
        )
        .await;
    assert!(
        signed["page"]["url"]
            .as_str()
            .is_some_and(|url| url.ends_with("/sign-in")),
        "{signed:#}"
    );
    // Back with the cookie, which the page's requests now carry.
    h.ok("navigate", json!({ "url": h.url("hostile/sign-in.html") }))
        .await;
    h.ok("wait", json!({ "text": "called 200" })).await;
    h.shutdown().await;

    let text = std::fs::read_to_string(&tape).unwrap();
    // The session did pass through the browser: the form's request is on the tape, and
    // the headers that carried secrets, their values redacted.
    assert!(text.contains("/sign-in"), "nothing recorded");
    let lower = text.to_ascii_lowercase();
    for header in [
        r#""x-api-key":"[redacted]""#,
        r#""set-cookie":"[redacted]""#,
        "set-cookie: [redacted]",
    ] {
        assert!(lower.contains(header), "no {header} on the tape");
    }
    let mut kept = Vec::new();
    let body = format!("user={USER}&password={PASSWORD}");
    let body64 = base64::engine::general_purpose::STANDARD.encode(&body);
    for (what, secret) in [
        ("the password", PASSWORD),
        ("the form's body", body.as_str()),
        ("the form's body as bytes", body64.as_str()),
        ("the session cookie", test_support::SIGN_IN_COOKIE),
        ("the API key", API_KEY),
    ] {
        if text.contains(secret) {
            kept.push(what);
        }
    }
    // What was typed, key by key.
    let mut keys = String::new();
    for line in text.lines() {
        let entry: Value = serde_json::from_str(line).unwrap();
        let message = &entry["msg"];
        if message["method"] == "Input.dispatchKeyEvent" && message["params"]["type"] == "keyDown" {
            keys.push_str(message["params"]["key"].as_str().unwrap_or_default());
        }
    }
    if keys.contains(USER) {
        kept.push("the typed keys");
    }
    use std::os::unix::fs::PermissionsExt;
    if std::fs::metadata(&tape).unwrap().permissions().mode() & 0o077 != 0 {
        kept.push("nothing, but others may read it");
    }
    assert!(kept.is_empty(), "the tape keeps {kept:?}");
}

/// What `expression` evaluates to in the page.
async fn read(h: &Harness, expression: &str) -> Value {
    h.ok("eval", json!({ "expression": expression })).await["data"]["value"].clone()
}

/// A page that hides what candor draws cannot make a marked screenshot claim labels it
/// does not show: its `!important` style sheet does not hide the overlay (the image is
/// not the unmarked one), and when it takes the overlay out before the capture, no label
/// is claimed at all.
#[tokio::test]
async fn a_page_cannot_hide_the_marks_of_a_screenshot_and_have_them_claimed() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("hostile/marks.html") }))
        .await;
    let plain = h.envelope("screenshot", json!({})).await;
    let marked = h.envelope("screenshot", json!({ "marks": true })).await;
    let answer = marked.to_json();
    assert_eq!(answer["ok"], true, "{answer:#}");
    assert_eq!(
        answer["data"]["marks"].as_array().map(Vec::len),
        Some(3),
        "{answer:#}"
    );
    assert_ne!(
        plain.image.as_ref().unwrap().data,
        marked.image.as_ref().unwrap().data,
        "the page's style sheet does not hide the labels"
    );
    h.ok(
        "navigate",
        json!({ "url": h.url("hostile/marks.html?remove") }),
    )
    .await;
    let removed = h.ok("screenshot", json!({ "marks": true })).await;
    assert!(
        removed["data"].get("marks").is_none(),
        "the page took the overlay out: no label is claimed: {removed:#}"
    );
    h.shutdown().await;
}
