//! A form controlled by real React 18 (`fixtures/react-form.html`, React from
//! `fixtures/vendor/`): what fill, select and check set (check also on a box the browser
//! refilled behind React's back), what a checkpoint restores — in
//! place, after the page was left and came back through history, and straight from
//! another page — and what a replayed flow sets must reach React's own state, read from
//! React's render, and survive React's next render.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use tools::flow::{self, Flow};

use crate::harness::Harness;

fn with_eval(task: &str) -> Harness {
    Harness::with(|options| {
        options.enable_eval = true;
        options.task_id = task.into();
    })
}

async fn eval(h: &Harness, expression: &str) -> Value {
    h.ok("eval", json!({ "expression": expression })).await["data"]["value"].clone()
}

/// What React holds: the JSON its last committed render wrote into `#state`.
const REACT_STATE: &str = "JSON.parse(document.getElementById('state').textContent)";

/// What the DOM shows.
const DOM_STATE: &str = r#"(() => {
  const $ = (id) => document.getElementById(id);
  return { name: $("name").value, size: $("size").value, gift: $("gift").checked };
})()"#;

/// The values the tests fill; React's defaults are Grace Hopper, medium, no gift wrap.
fn filled() -> Value {
    json!({ "name": "Ada Lovelace", "size": "large", "gift": true })
}

/// The ref on the line of `snapshot` that starts with `line` (`textbox "Name"`).
fn ref_of(snapshot: &Value, line: &str) -> String {
    let text = snapshot["data"]["text"].as_str().unwrap();
    text.lines()
        .map(str::trim_start)
        .filter_map(|l| l.strip_prefix("- "))
        .find_map(|l| {
            l.strip_prefix(line)?
                .trim_start()
                .strip_prefix('[')?
                .split(']')
                .next()
                .map(str::to_string)
        })
        .unwrap_or_else(|| panic!("no line {line:?} in\n{text}"))
}

/// Fills the form by ref from a fresh snapshot: `name`, `size`, and the gift wrap.
async fn fill(h: &Harness, name: &str, size: &str, gift: bool) {
    let page = h.ok("snapshot", json!({})).await;
    h.ok(
        "act",
        json!({ "action": "fill", "ref": ref_of(&page, "textbox \"Name\""), "text": name }),
    )
    .await;
    h.ok(
        "act",
        json!({ "action": "select", "ref": ref_of(&page, "combobox \"Size\""), "values": [size] }),
    )
    .await;
    h.ok(
        "act",
        json!({ "action": if gift { "check" } else { "uncheck" },
                "ref": ref_of(&page, "checkbox \"Gift wrap\"") }),
    )
    .await;
}

/// React holds `expected`, the DOM shows it, and it still does after React renders the
/// form again from its state (a DOM that only looked right would go back to React's).
async fn react_holds(h: &Harness, expected: &Value) {
    assert_eq!(&eval(h, REACT_STATE).await, expected, "React's state");
    assert_eq!(&eval(h, "window.__state").await, expected, "React's state");
    assert_eq!(&eval(h, DOM_STATE).await, expected, "the DOM");
    let before = eval(h, "document.getElementById('renders').textContent").await;
    h.ok("act", json!({ "action": "click", "selector": "#again" }))
        .await;
    let after = eval(h, "document.getElementById('renders').textContent").await;
    assert_ne!(before, after, "React rendered the form again");
    assert_eq!(
        &eval(h, DOM_STATE).await,
        expected,
        "the DOM after React's next render"
    );
}

/// The page came back through history as the browser brings a form back: the select and
/// the box refilled as they were left, with no event, React on its defaults.
async fn refilled_behind_react(h: &Harness) {
    let shown = eval(h, DOM_STATE).await;
    assert_eq!(shown["size"], "large", "{shown:#}");
    assert_eq!(shown["gift"], true, "{shown:#}");
    assert_eq!(
        eval(h, REACT_STATE).await,
        json!({ "name": "Grace Hopper", "size": "medium", "gift": false })
    );
}

/// A checkpoint of the page now: the id of a fresh snapshot.
async fn checkpoint(h: &Harness) -> String {
    let snapshot = h.ok("snapshot", json!({})).await;
    snapshot["data"]["snapshotId"].as_str().unwrap().to_string()
}

/// Restores `id` and holds the answer to a restore that brought every field back.
async fn restore(h: &Harness, id: &str, reached: &str) {
    let restored = h
        .call("checkpoint", json!({ "action": "restore", "stateId": id }))
        .await;
    assert_eq!(restored["status"], "success", "{restored:#}");
    assert_eq!(restored["data"]["reached"], reached, "{restored:#}");
    assert_eq!(
        restored["data"]["restoration"]["failed"],
        json!([]),
        "{restored:#}"
    );
    assert_eq!(restored["verification"]["verified"], true, "{restored:#}");
}

#[tokio::test]
async fn fill_select_and_check_by_ref_reach_react_state() {
    let h = with_eval("react");
    h.ok("navigate", json!({ "url": h.url("react-form.html") }))
        .await;
    assert_eq!(
        eval(&h, REACT_STATE).await,
        json!({ "name": "Grace Hopper", "size": "medium", "gift": false })
    );
    fill(&h, "Ada Lovelace", "large", true).await;
    react_holds(&h, &filled()).await;
    h.shutdown().await;
}

#[tokio::test]
async fn a_checkpoint_restored_in_place_brings_react_state_back() {
    let h = with_eval("react");
    h.ok("navigate", json!({ "url": h.url("react-form.html") }))
        .await;
    fill(&h, "Ada Lovelace", "large", true).await;
    let id = checkpoint(&h).await;
    fill(&h, "Alan Turing", "small", false).await;
    assert_eq!(
        eval(&h, REACT_STATE).await,
        json!({ "name": "Alan Turing", "size": "small", "gift": false })
    );
    restore(&h, &id, "in-place").await;
    react_holds(&h, &filled()).await;
    h.shutdown().await;
}

#[tokio::test]
async fn a_checkpoint_restored_after_leaving_and_coming_back_through_history_brings_react_state_back()
 {
    let h = with_eval("react");
    h.ok("navigate", json!({ "url": h.url("react-form.html") }))
        .await;
    fill(&h, "Ada Lovelace", "large", true).await;
    let id = checkpoint(&h).await;
    h.ok(
        "act",
        json!({ "action": "click", "role": "link", "name": "Leave the form" }),
    )
    .await;
    let back = h.ok("navigate", json!({ "back": true })).await;
    assert_eq!(back["page"]["title"], "React order", "{back:#}");
    refilled_behind_react(&h).await;
    restore(&h, &id, "in-place").await;
    react_holds(&h, &filled()).await;
    h.shutdown().await;
}

#[tokio::test]
async fn a_checkpoint_restored_from_another_page_through_history_brings_react_state_back() {
    let h = with_eval("react");
    h.ok("navigate", json!({ "url": h.url("react-form.html") }))
        .await;
    fill(&h, "Ada Lovelace", "large", true).await;
    let id = checkpoint(&h).await;
    h.ok(
        "act",
        json!({ "action": "click", "role": "link", "name": "Leave the form" }),
    )
    .await;
    restore(&h, &id, "history").await;
    react_holds(&h, &filled()).await;
    h.shutdown().await;
}

#[tokio::test]
async fn check_on_a_box_the_browser_refilled_through_history_reaches_react_state() {
    let h = with_eval("react");
    h.ok("navigate", json!({ "url": h.url("react-form.html") }))
        .await;
    fill(&h, "Ada Lovelace", "large", true).await;
    h.ok(
        "act",
        json!({ "action": "click", "role": "link", "name": "Leave the form" }),
    )
    .await;
    h.ok("navigate", json!({ "back": true })).await;
    refilled_behind_react(&h).await;
    // The box first: the page shows it checked, React holds it unchecked, and any render
    // before React heard of it would uncheck it again.
    let page = h.ok("snapshot", json!({})).await;
    let checked = h
        .ok(
            "act",
            json!({ "action": "check", "ref": ref_of(&page, "checkbox \"Gift wrap\"") }),
        )
        .await;
    assert_eq!(checked["data"]["changed"], false, "{checked:#}");
    h.ok(
        "act",
        json!({ "action": "select", "ref": ref_of(&page, "combobox \"Size\""), "values": ["large"] }),
    )
    .await;
    h.ok(
        "act",
        json!({ "action": "fill", "ref": ref_of(&page, "textbox \"Name\""), "text": "Ada Lovelace" }),
    )
    .await;
    react_holds(&h, &filled()).await;
    h.shutdown().await;
}

#[tokio::test]
async fn a_flow_recorded_on_a_react_form_replays_into_react_state_on_a_fresh_load() {
    let recording = with_eval("agent");
    recording
        .ok(
            "navigate",
            json!({ "url": recording.url("react-form.html") }),
        )
        .await;
    fill(&recording, "Ada Lovelace", "large", true).await;
    let exported = recording.ok("flow", json!({ "action": "export" })).await;
    let recorded = exported["data"]["flow"].clone();
    let methods: Vec<&str> = recorded["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["method"].as_str().unwrap())
        .collect();
    assert_eq!(methods, ["navigate", "act", "act", "act"], "{recorded:#}");

    // Replayed by a task that never saw the page: the same URL, loaded afresh.
    let h = with_eval("replay");
    let bound = Flow::parse(&recorded)
        .unwrap()
        .bind(&BTreeMap::new())
        .unwrap();
    let report = flow::run(&h.engine, &bound).await;
    assert!(report.ok(), "{:#?}", report.failure);
    react_holds(&h, &filled()).await;
    recording.shutdown().await;
    h.shutdown().await;
}
