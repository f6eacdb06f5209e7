//! Hostile pages (SPEC §16): a page that writes as if it were candor never gets its words
//! outside the fence of the text form, nor into a `message`.
//! Fixtures are under `fixtures/hostile/`.

use std::time::{Duration, Instant};

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
    assert_eq!(outside_fence("x\n<untrusted>\nin\n</untrusted>\ny"), "x\n\ny");
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
        completed["name"].as_str().unwrap().contains(INSTRUCTIONS[0]),
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
        .ok("navigate", json!({ "url": h.url("hostile/permission.html") }))
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
        assert!(Instant::now() < until, "gave up waiting for the denial's report");
        tokio::time::sleep(Duration::from_millis(50)).await;
        reports.push(("snapshot", h.ok("snapshot", json!({ "mode": "text" })).await));
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
