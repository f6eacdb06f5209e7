//! Acting (docs/acting.md): locators, pre-dispatch checks, every action, expect and readback,
//! dialogs, popups and uploads.

use serde_json::{Value, json};

use crate::harness::{Harness, assert_not_started, page_text};

#[tokio::test]
async fn a_button_under_an_overlay_is_occluded_and_a_pseudo_element_icon_is_clicked() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("overlay.html") }))
        .await;
    let refused = h
        .fails(
            "act",
            json!({ "action": "click", "role": "button", "name": "Under overlay" }),
            "ELEMENT_OCCLUDED",
        )
        .await;
    assert_not_started(&refused);
    let covering = refused["data"]["coveringElement"].as_str().unwrap();
    assert!(covering.contains("div#veil.cookie-veil"), "{covering}");
    // The cover is named in the data (fenced as page content), never in the message.
    assert!(!refused["message"].as_str().unwrap().contains("veil"));
    assert!(
        refused["untrusted"]
            .as_array()
            .unwrap()
            .contains(&json!("/data/coveringElement"))
    );
    assert!(page_text(&h).await.contains("Nothing yet"));

    // The icon has no content box of its own to speak of: ::before draws it.
    let clicked = h
        .ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Settings" }),
        )
        .await;
    assert_eq!(clicked["execution"]["actionStatus"], "completed");
    assert!(page_text(&h).await.contains("Settings opened"));

    // Half under another button: clicked on the part that shows, not refused.
    h.ok(
        "act",
        json!({ "action": "click", "role": "button", "name": "Partly covered" }),
    )
    .await;
    assert!(page_text(&h).await.contains("Partly covered clicked"));
    h.shutdown().await;
}

#[tokio::test]
async fn an_ambiguous_locator_lists_the_candidates_and_scope_picks_one() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("saves.html") }))
        .await;
    let refused = h
        .fails(
            "act",
            json!({ "action": "click", "role": "button", "name": "Save" }),
            "AMBIGUOUS_LOCATOR",
        )
        .await;
    assert_not_started(&refused);
    assert_eq!(refused["data"]["matched"], 2);
    let candidates = refused["data"]["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 2);
    assert!(
        candidates
            .iter()
            .all(|c| c["name"] == "Save" && c["ref"].as_str().is_some())
    );
    assert_ne!(candidates[0]["ref"], candidates[1]["ref"]);

    h.ok(
        "act",
        json!({ "action": "click", "role": "button", "name": "Save", "scope": "#billing" }),
    )
    .await;
    assert!(page_text(&h).await.contains("Saved billing"));
    h.ok(
        "act",
        json!({ "action": "click", "role": "button", "name": "Save", "nth": 0 }),
    )
    .await;
    assert!(page_text(&h).await.contains("Saved profile"));
    // A candidate's ref works too.
    h.ok(
        "act",
        json!({ "action": "click", "ref": candidates[1]["ref"] }),
    )
    .await;
    assert!(page_text(&h).await.contains("Saved billing"));

    h.fails(
        "act",
        json!({ "action": "click", "role": "button", "name": "Delete" }),
        "ELEMENT_NOT_FOUND",
    )
    .await;
    h.fails(
        "act",
        json!({ "action": "click", "selector": "button[" }),
        "INVALID_SELECTOR",
    )
    .await;
    h.fails(
        "act",
        json!({ "action": "click", "selector": "#billing button", "role": "button" }),
        "INVALID_PARAMS",
    )
    .await;
    h.shutdown().await;
}

#[tokio::test]
async fn fill_reads_back_and_a_field_that_changes_the_value_is_a_mismatch() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("act-form.html") }))
        .await;
    let filled = h
        .ok(
            "act",
            json!({ "action": "fill", "role": "textbox", "name": "Name", "text": "Ada Lovelace" }),
        )
        .await;
    assert_eq!(filled["data"]["inputValueVerified"], true);
    // fill replaces; type appends.
    h.ok(
        "act",
        json!({ "action": "fill", "role": "textbox", "name": "Name", "text": "Ada" }),
    )
    .await;
    h.ok(
        "act",
        json!({ "action": "type", "role": "textbox", "name": "Name", "text": " B." }),
    )
    .await;

    let mismatch = h
        .fails(
            "act",
            json!({ "action": "fill", "role": "textbox", "name": "Code", "text": "12345678" }),
            "INPUT_MISMATCH",
        )
        .await;
    assert_eq!(mismatch["data"]["expected"], "12345678");
    assert_eq!(mismatch["data"]["actual"], "12345");
    assert_eq!(mismatch["execution"]["actionStatus"], "completed");
    assert_eq!(mismatch["execution"]["retrySafe"], false);

    // A password is never echoed, even in a mismatch.
    let secret = h
        .fails(
            "act",
            json!({ "action": "fill", "selector": "#secret", "text": "hunter22" }),
            "INPUT_MISMATCH",
        )
        .await;
    let shown = secret.to_string();
    assert!(
        !shown.contains("hunter2") && !shown.contains("hunt"),
        "{shown}"
    );

    h.fails(
        "act",
        json!({ "action": "fill", "selector": "#off", "text": "x" }),
        "ELEMENT_DISABLED",
    )
    .await;

    // submit presses Enter once the value reads back right.
    h.ok("act", json!({ "action": "fill", "role": "textbox", "name": "Name", "text": "Grace", "submit": true })).await;
    assert!(page_text(&h).await.contains("Submitted Grace"));
    h.shutdown().await;
}

#[tokio::test]
async fn select_check_press_hover_and_scroll() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("act-form.html") }))
        .await;
    let selected = h
        .ok(
            "act",
            json!({ "action": "select", "selector": "#colour", "values": ["Blue"] }),
        )
        .await;
    assert_eq!(
        selected["data"]["selected"],
        json!([{ "value": "b", "label": "Blue" }])
    );
    let by_value = h
        .ok(
            "act",
            json!({ "action": "select", "selector": "#colour", "values": ["g"] }),
        )
        .await;
    assert_eq!(by_value["data"]["selected"][0]["label"], "Green");
    // The option's label is the page's: fenced like all page content.
    assert!(
        by_value["untrusted"]
            .as_array()
            .unwrap()
            .contains(&json!("/data/selected/0/label"))
    );
    let missing = h
        .fails(
            "act",
            json!({ "action": "select", "selector": "#colour", "values": ["Purple"] }),
            "ELEMENT_NOT_FOUND",
        )
        .await;
    assert_not_started(&missing);

    let checked = h
        .ok(
            "act",
            json!({ "action": "check", "role": "checkbox", "name": "Subscribe" }),
        )
        .await;
    assert_eq!(checked["data"]["changed"], true);
    let again = h
        .ok(
            "act",
            json!({ "action": "check", "role": "checkbox", "name": "Subscribe" }),
        )
        .await;
    assert_eq!(again["data"]["changed"], false);
    h.ok(
        "act",
        json!({ "action": "uncheck", "role": "checkbox", "name": "Subscribe" }),
    )
    .await;
    let form = h.ok("snapshot", json!({})).await;
    assert!(
        form["data"]["text"]
            .as_str()
            .unwrap()
            .contains("checkbox \"Subscribe\" ["),
        "{form:#}"
    );
    assert!(
        !form["data"]["text"]
            .as_str()
            .unwrap()
            .contains("Subscribe\" [e")
            || !form["data"]["text"].as_str().unwrap().contains(" checked")
    );

    h.ok(
        "act",
        json!({ "action": "press", "role": "textbox", "name": "Notes", "keys": "Control+A" }),
    )
    .await;
    assert!(page_text(&h).await.contains("Control+A seen"));
    h.ok(
        "act",
        json!({ "action": "hover", "role": "button", "name": "Send" }),
    )
    .await;
    h.fails(
        "act",
        json!({ "action": "press", "keys": "Hyper+Q" }),
        "INVALID_PARAMS",
    )
    .await;

    h.ok("navigate", json!({ "url": h.url("article.html") }))
        .await;
    let scrolled = h.ok("act", json!({ "action": "scroll", "dy": 600 })).await;
    assert!(
        scrolled["data"]["scroll"]["y"].as_f64().unwrap() > 0.0,
        "{scrolled:#}"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn a_confirm_is_dismissed_recorded_and_does_not_block_the_next_command() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("dialogs.html") }))
        .await;
    let clicked = h
        .ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Delete" }),
        )
        .await;
    assert_eq!(clicked["events"]["dialog"]["type"], "confirm");
    assert_eq!(clicked["events"]["dialog"]["message"], "Really delete?");
    assert_eq!(clicked["events"]["dialog"]["answer"], "dismissed");
    assert!(page_text(&h).await.contains("Kept"));
    let alerted = h
        .ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Greet" }),
        )
        .await;
    assert_eq!(alerted["events"]["dialog"]["answer"], "accepted");
    assert!(page_text(&h).await.contains("Alerted"));
    // The snapshot taken after the action shows it too, at the top of what changed.
    let diff = alerted["data"]["diff"].as_str().unwrap();
    assert!(
        diff.contains("# dialog handled: alert \"Hello there\" → accepted"),
        "{diff}"
    );
    // And a snapshot not yet shown a dialog starts with it.
    h.ok(
        "act",
        json!({ "action": "click", "role": "button", "name": "Delete", "snapshot": false }),
    )
    .await;
    let snapshot = h.ok("snapshot", json!({})).await;
    assert!(
        snapshot["data"]["text"]
            .as_str()
            .unwrap()
            .starts_with("# dialog handled: confirm"),
        "{snapshot:#}"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn a_target_blank_link_with_expect_popup_opens_a_current_tab() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("popup.html") }))
        .await;
    let clicked = h
        .ok("act", json!({ "action": "click", "role": "link", "name": "Open second", "expectPopup": true }))
        .await;
    assert_eq!(clicked["events"]["newTab"]["tabId"], "tab1");
    assert_eq!(clicked["events"]["newTab"]["current"], true);
    assert_eq!(clicked["page"]["tabId"], "tab1");
    let tabs = h.ok("tabs", json!({})).await;
    let current: Vec<_> = tabs["data"]["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["active"] == true)
        .collect();
    assert_eq!(current[0]["id"], "tab1");
    assert!(page_text(&h).await.contains("This is the second page."));

    h.ok("tabs", json!({ "action": "select", "tabId": "tab0" }))
        .await;
    let none = h
        .fails("act", json!({ "action": "click", "role": "button", "name": "Does nothing", "expectPopup": true }), "POPUP_NOT_OPENED")
        .await;
    assert_eq!(none["execution"]["actionStatus"], "completed");
    assert_eq!(none["execution"]["retrySafe"], false);
    h.shutdown().await;
}

/// A page that replaces its file input from the input's `change` handler received the
/// file: the upload is said as selected, with why the input could not be read back —
/// never a failed command inviting a second upload, never a lost browser.
#[tokio::test]
async fn an_upload_whose_input_the_page_replaces_is_selected_with_a_readback_error() {
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join("notes.txt"), b"twelve bytes").unwrap();
    let dir = folder.path().to_path_buf();
    let h = Harness::with(move |options| options.upload_dir = Some(dir));
    h.ok("navigate", json!({ "url": h.url("upload-replaced.html") }))
        .await;
    let uploaded = h
        .ok(
            "act",
            json!({ "action": "upload", "selector": "#attachment", "files": ["notes.txt"] }),
        )
        .await;
    let upload = &uploaded["data"]["upload"];
    assert_eq!(upload["fileSelected"], true, "{uploaded:#}");
    let error = upload["inputReadback"]["error"].as_str().unwrap();
    assert!(error.contains("could not be read back"), "{error}");
    assert_eq!(uploaded["execution"]["actionStatus"], "completed");
    assert!(
        page_text(&h)
            .await
            .contains("Received notes.txt (12 bytes)")
    );
    h.shutdown().await;
}

#[tokio::test]
async fn an_upload_through_a_detached_input_reaches_the_page() {
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join("notes.txt"), b"twelve bytes").unwrap();
    let dir = folder.path().to_path_buf();
    let h = Harness::with(move |options| options.upload_dir = Some(dir));
    h.ok("navigate", json!({ "url": h.url("upload.html") }))
        .await;
    let uploaded = h
        .ok("act", json!({ "action": "upload", "role": "button", "name": "Choose file", "trigger": true, "files": ["notes.txt"] }))
        .await;
    assert_eq!(uploaded["data"]["upload"]["fileSelected"], true);
    assert_eq!(
        uploaded["data"]["upload"]["inputReadback"]["connected"],
        false
    );
    assert_eq!(
        uploaded["data"]["upload"]["inputReadback"]["names"],
        json!(["notes.txt"])
    );
    assert_eq!(uploaded["data"]["upload"]["frameworkAccepted"], "unknown");
    assert!(page_text(&h).await.contains("Got notes.txt (12 bytes)"));

    h.ok(
        "act",
        json!({ "action": "upload", "selector": "#direct", "files": ["notes.txt"] }),
    )
    .await;
    assert!(page_text(&h).await.contains("Direct notes.txt (12 bytes)"));
    // Nothing outside the upload folder.
    let outside = h
        .fails(
            "act",
            json!({ "action": "upload", "selector": "#direct", "files": ["/etc/passwd"] }),
            "INVALID_PARAMS",
        )
        .await;
    assert_not_started(&outside);
    h.fails(
        "act",
        json!({ "action": "upload", "selector": "#direct", "files": ["../notes.txt"] }),
        "INVALID_PARAMS",
    )
    .await;
    h.shutdown().await;
}

#[tokio::test]
async fn expect_text_verifies_or_fails_without_inviting_a_retry() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("delayed.html") }))
        .await;
    let verified = h
        .ok("act", json!({ "action": "click", "role": "button", "name": "Load", "expect": { "text": "Loaded!" } }))
        .await;
    assert_eq!(verified["verification"]["requested"], true);
    assert_eq!(verified["verification"]["verified"], true);
    assert!(
        verified["verification"]["expect"]["actual"]
            .to_string()
            .contains("Loaded!")
    );

    let failed = h
        .fails(
            "act",
            json!({ "action": "click", "role": "button", "name": "Load", "expect": { "text": "Never there", "timeoutMs": 500 } }),
            "EXPECTATION_FAILED",
        )
        .await;
    assert_eq!(failed["execution"]["actionStatus"], "completed");
    assert_eq!(failed["execution"]["retrySafe"], false);
    assert_eq!(failed["verification"]["verified"], false);

    let empty = h
        .fails("act", json!({ "action": "click", "role": "button", "name": "Load", "expect": { "text": "" } }), "EMPTY_CONDITION")
        .await;
    assert_not_started(&empty);
    let no_eval = h
        .fails("act", json!({ "action": "click", "role": "button", "name": "Load", "expect": { "js": "1", "equals": 1 } }), "EVAL_DISABLED")
        .await;
    assert_not_started(&no_eval);

    // Without expect a click says "dispatched, not verified" and nothing more.
    let plain = h
        .ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Load" }),
        )
        .await;
    assert_eq!(plain["verification"]["requested"], false);
    assert_eq!(plain["verification"]["verified"], Value::Null);
    h.shutdown().await;
}

#[tokio::test]
async fn content_that_appears_late_is_waited_for_then_clicked() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("delayed.html") }))
        .await;
    h.fails(
        "act",
        json!({ "action": "click", "selector": "#late-button" }),
        "ELEMENT_NOT_FOUND",
    )
    .await;
    h.ok(
        "wait",
        json!({ "selector": "#late-button", "state": "visible", "timeoutMs": 5000 }),
    )
    .await;
    h.ok("act", json!({ "action": "click", "selector": "#late-button", "expect": { "text": "Late clicked" } })).await;
    h.shutdown().await;
}

#[tokio::test]
async fn readback_returns_a_value_after_the_action() {
    let h = Harness::with(|options| options.enable_eval = true);
    h.ok("navigate", json!({ "url": h.url("act-form.html") }))
        .await;
    let filled = h
        .ok(
            "act",
            json!({ "action": "fill", "role": "textbox", "name": "Name", "text": "Zed", "readback": "document.getElementById('name').value.length" }),
        )
        .await;
    assert_eq!(filled["data"]["readback"], 3);
    h.shutdown().await;
}

#[tokio::test]
async fn a_touch_preset_taps_instead_of_clicking() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("touch.html") }))
        .await;
    h.ok(
        "act",
        json!({ "action": "click", "role": "button", "name": "Tap me" }),
    )
    .await;
    let text = page_text(&h).await;
    assert!(
        text.contains("mousedown click") && !text.contains("touchstart"),
        "{text}"
    );
    h.ok("navigate", json!({ "url": h.url("touch.html") }))
        .await;
    h.ok("viewport", json!({ "preset": "phone" })).await;
    h.ok(
        "act",
        json!({ "action": "click", "role": "button", "name": "Tap me" }),
    )
    .await;
    let text = page_text(&h).await;
    assert!(
        text.starts_with("Tap me") && text.contains("touchstart"),
        "{text}"
    );
    assert!(text.contains("click"), "a tap still clicks: {text}");
    h.shutdown().await;
}

/// Under `auto`, a prompt is cancelled and leaving a guarded page is accepted; under
/// `ask`, the dialog tool answers a prompt with text and keeps a guarded page by
/// dismissing its `beforeunload`.
#[tokio::test]
async fn a_prompt_and_a_beforeunload_are_answered_by_policy_and_by_the_dialog_tool() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("dialogs.html") }))
        .await;
    let asked = h
        .ok("act", json!({ "action": "click", "selector": "#ask" }))
        .await;
    assert_eq!(asked["events"]["dialog"]["type"], "prompt", "{asked:#}");
    assert_eq!(
        asked["events"]["dialog"]["answer"], "dismissed",
        "{asked:#}"
    );
    assert!(page_text(&h).await.contains("No name"));
    h.ok("act", json!({ "action": "click", "selector": "#guard" }))
        .await;
    // The page's own navigation asks first (a navigation candor sends does not).
    let left = h
        .ok("act", json!({ "action": "click", "selector": "#leave" }))
        .await;
    assert_eq!(left["events"]["dialog"]["type"], "beforeunload", "{left:#}");
    assert_eq!(left["events"]["dialog"]["answer"], "accepted", "{left:#}");
    assert!(
        left["page"]["url"]
            .as_str()
            .unwrap()
            .ends_with("/page-a.html"),
        "{left:#}"
    );
    h.shutdown().await;

    let h = Harness::with(|options| options.ask_dialogs = true);
    h.ok("navigate", json!({ "url": h.url("dialogs.html") }))
        .await;
    let asked = h
        .ok("act", json!({ "action": "click", "selector": "#ask" }))
        .await;
    assert_eq!(asked["data"]["dialogOpen"], true, "{asked:#}");
    let answered = h
        .ok("dialog", json!({ "accept": true, "promptText": "Ada" }))
        .await;
    assert_eq!(answered["data"]["answer"], "accepted", "{answered:#}");
    assert!(page_text(&h).await.contains("Name: Ada"));
    // Dismissing the guard's question keeps the page.
    h.ok("act", json!({ "action": "click", "selector": "#guard" }))
        .await;
    let leaving = h
        .ok("act", json!({ "action": "click", "selector": "#leave" }))
        .await;
    assert_eq!(leaving["data"]["dialogOpen"], true, "{leaving:#}");
    assert_eq!(
        leaving["events"]["dialog"]["type"], "beforeunload",
        "{leaving:#}"
    );
    let kept = h.ok("dialog", json!({ "accept": false })).await;
    assert_eq!(kept["data"]["answer"], "dismissed", "{kept:#}");
    assert!(page_text(&h).await.contains("Guarded"));
    assert!(
        h.ok("tabs", json!({})).await["data"]["tabs"][0]["url"]
            .as_str()
            .unwrap()
            .ends_with("/dialogs.html")
    );
    h.shutdown().await;
}

#[tokio::test]
async fn under_the_ask_policy_a_dialog_waits_for_the_dialog_tool() {
    let h = Harness::with(|options| options.ask_dialogs = true);
    h.ok("navigate", json!({ "url": h.url("dialogs.html") }))
        .await;
    let clicked = h
        .ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Delete" }),
        )
        .await;
    assert_eq!(clicked["data"]["dialogOpen"], true);
    assert_eq!(clicked["events"]["dialog"]["answer"], "pending");
    assert_eq!(clicked["events"]["dialog"]["message"], "Really delete?");
    // The page waits: other commands on the tab say why instead of hanging.
    let blocked = h
        .fails("snapshot", json!({ "mode": "text" }), "DIALOG_OPEN")
        .await;
    assert_not_started(&blocked);
    let answered = h.ok("dialog", json!({ "accept": true })).await;
    assert_eq!(answered["data"]["answer"], "accepted");
    assert!(page_text(&h).await.contains("Deleted"));
    h.fails("dialog", json!({ "accept": true }), "INVALID_PARAMS")
        .await;
    h.shutdown().await;
}

#[tokio::test]
async fn a_late_popup_is_waited_for_against_a_baseline() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("popup.html") }))
        .await;
    let clicked = h
        .ok(
            "act",
            // Not settled: a default settle waits for the page's 400 ms timer, and the
            // popup would be reported by the click itself.
            json!({ "action": "click", "role": "button", "name": "Open later", "settleMs": 0 }),
        )
        .await;
    assert_eq!(clicked["events"]["newTab"], Value::Null, "not open yet");
    let waited = h
        .ok(
            "tabs",
            json!({ "action": "wait_new", "baseline": 1, "timeoutMs": 5000 }),
        )
        .await;
    assert_eq!(waited["data"]["tabId"], "tab1");
    assert_eq!(waited["data"]["tabs"].as_array().unwrap().len(), 2);
    h.fails(
        "tabs",
        json!({ "action": "wait_new", "baseline": 2, "timeoutMs": 300 }),
        "POPUP_NOT_OPENED",
    )
    .await;
    h.shutdown().await;
}

#[tokio::test]
async fn an_action_returns_what_it_changed_as_a_snapshot_diff() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("spa.html") })).await;
    let before = h.ok("snapshot", json!({})).await;
    let clicked = h
        .ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Show details" }),
        )
        .await;
    let diff = clicked["data"]["diff"].as_str().unwrap();
    assert!(
        diff.lines()
            .any(|l| l.starts_with("- ") && l.contains("Home view")),
        "{diff}"
    );
    assert!(
        diff.lines()
            .any(|l| l.starts_with("+ ") && l.contains("Details view 1")),
        "{diff}"
    );
    assert!(
        !diff.contains("Show details"),
        "unchanged lines stay out: {diff}"
    );
    assert_ne!(clicked["page"]["snapshotId"], before["data"]["snapshotId"]);
    let quiet = h
        .ok("act", json!({ "action": "click", "role": "button", "name": "Show details", "snapshot": false }))
        .await;
    assert!(quiet["data"].get("diff").is_none());
    h.shutdown().await;
}

/// Double-click, hover and focus reach the page as a person's would: a double-click is
/// two clicks and a `dblclick` with their counts, a hover shows what only shows while
/// hovered, a focus gives the field the focus.
#[tokio::test]
async fn double_click_hover_and_focus_reach_the_page_as_a_persons_would() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("pointer.html") }))
        .await;
    h.ok(
        "act",
        json!({ "action": "dblclick", "role": "button", "name": "Box" }),
    )
    .await;
    let text = page_text(&h).await;
    assert!(
        text.contains("click(1) click(2) dblclick(2)"),
        "a double-click is two clicks and a dblclick: {text}"
    );
    assert!(text.contains("mouseover"), "{text}");

    assert!(!page_text(&h).await.contains("Settings"));
    // A selector matching only what candor does not read says so, never "nothing".
    let bare = h
        .fails(
            "act",
            json!({ "action": "hover", "selector": "#menu span" }),
            "ELEMENT_NOT_FOUND",
        )
        .await;
    assert!(
        bare["message"]
            .as_str()
            .unwrap()
            .contains("1 element(s) match"),
        "{bare:#}"
    );
    let hovered = h
        .ok("act", json!({ "action": "hover", "selector": "#menu" }))
        .await;
    assert!(page_text(&h).await.contains("Settings"), "{hovered:#}");

    let focused = h
        .ok(
            "act",
            json!({ "action": "focus", "role": "textbox", "name": "Search" }),
        )
        .await;
    assert!(
        page_text(&h).await.contains("Search is focused"),
        "{focused:#}"
    );
    h.shutdown().await;
}
