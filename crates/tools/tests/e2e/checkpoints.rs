//! Checkpoints (docs/faces.md#checkpoints): every element snapshot is a restorable state; a
//! restore reaches the page (history, else the URL, never a page that moved elsewhere),
//! finds each field again by identity, sets it so the page's listeners run, restores
//! scroll positions and reports exactly what came back.

use serde_json::{Value, json};

use crate::harness::{Harness, assert_not_started};

async fn eval(h: &Harness, expression: &str) -> Value {
    h.ok("eval", json!({ "expression": expression })).await["data"]["value"].clone()
}

async fn act(h: &Harness, params: Value) {
    let mut params = params;
    params["snapshot"] = json!(false);
    h.ok("act", params).await;
}

/// What the form holds, read by the page itself.
const FORM_STATE: &str = r#"(() => {
  const $ = (id) => document.getElementById(id);
  const shadow = document.querySelector("order-extra").shadowRoot;
  const frame = $("pay").contentDocument;
  return {
    name: $("name").value,
    password: $("password").value,
    notes: $("notes").value,
    toppings: Array.from($("toppings").selectedOptions, (o) => o.value),
    country: $("country").value,
    size: (document.querySelector("input[name=size]:checked") || {}).value || null,
    gift: $("gift").checked,
    news: $("news").checked,
    more: $("more").open,
    delivery: $("delivery").value,
    bio: $("bio").innerText,
    coupon: shadow.getElementById("coupon").value,
    card: frame.getElementById("number").value,
    panel: Math.round($("panel").scrollTop),
    page: Math.round(window.scrollY),
  };
})()"#;

#[tokio::test]
async fn a_long_form_comes_back_after_navigating_away_except_its_password() {
    let h = Harness::with_eval();
    h.ok("navigate", json!({ "url": h.url("checkpoint-form.html") }))
        .await;
    act(
        &h,
        json!({ "action": "fill", "selector": "#name", "text": "Ada Lovelace" }),
    )
    .await;
    act(
        &h,
        json!({ "action": "fill", "selector": "#password", "text": "hunter2" }),
    )
    .await;
    act(
        &h,
        json!({ "action": "fill", "selector": "#notes", "text": "Ring twice" }),
    )
    .await;
    act(
        &h,
        json!({ "action": "select", "selector": "#toppings", "values": ["cheese", "basil"] }),
    )
    .await;
    act(
        &h,
        json!({ "action": "select", "selector": "#country", "values": ["Japan"] }),
    )
    .await;
    act(
        &h,
        json!({ "action": "click", "selector": "input[value=m]" }),
    )
    .await;
    act(&h, json!({ "action": "click", "selector": "#gift" })).await;
    act(&h, json!({ "action": "click", "selector": "#news" })).await;
    act(
        &h,
        json!({ "action": "click", "selector": "#more summary" }),
    )
    .await;
    act(
        &h,
        json!({ "action": "fill", "selector": "#delivery", "text": "Leave at the door" }),
    )
    .await;
    act(
        &h,
        json!({ "action": "type", "selector": "#bio", "text": "Likes engines" }),
    )
    .await;
    act(
        &h,
        json!({ "action": "fill", "role": "textbox", "name": "Coupon", "text": "SPRING" }),
    )
    .await;
    act(&h, json!({ "action": "fill", "role": "textbox", "name": "Card number", "frame": "pay", "text": "4000" })).await;
    // Scroll the panel and the page as an agent would: one screen of the container (its
    // ref from the coverage), then the page.
    let read = h.ok("snapshot", json!({})).await;
    let panel = read["data"]["coverage"]["containers"][0]["ref"]
        .as_str()
        .unwrap()
        .to_string();
    eval(&h, "document.getElementById('panel').scrollTop = 0; 1").await;
    act(&h, json!({ "action": "scroll_next_screen", "ref": panel })).await;
    act(&h, json!({ "action": "scroll_next_screen" })).await;
    let filled = eval(&h, FORM_STATE).await;
    assert_eq!(filled["bio"], "Likes engines", "{filled:#}");
    assert!(filled["panel"].as_u64().unwrap() > 100, "{filled:#}");
    assert!(filled["page"].as_u64().unwrap() > 100, "{filled:#}");

    let snapshot = h.ok("snapshot", json!({})).await;
    let id = snapshot["data"]["snapshotId"].as_str().unwrap().to_string();
    let listed = h.ok("checkpoint", json!({ "action": "list" })).await;
    let entry = &listed["data"]["checkpoints"][0];
    assert_eq!(entry["id"], id.as_str(), "{listed:#}");
    // 14 fields (3 radios), none of them the password; the page, the panel and the frame.
    assert_eq!(entry["fields"], 14, "{listed:#}");
    assert_eq!(entry["scrolls"], 3, "{listed:#}");

    h.ok("navigate", json!({ "url": h.url("page-a.html") }))
        .await;
    let restored = h
        .ok("checkpoint", json!({ "action": "restore", "stateId": id }))
        .await;
    let data = &restored["data"];
    assert_eq!(restored["status"], "success", "{restored:#}");
    assert_eq!(data["reached"], "history", "{restored:#}");
    assert_eq!(restored["verification"]["verified"], true, "{restored:#}");
    assert_eq!(data["restoration"]["failed"], json!([]), "{restored:#}");
    assert_eq!(data["restoration"]["verified"], 17, "{restored:#}");
    assert!(
        data["restoration"]["restored"].as_u64().unwrap() >= 4,
        "{restored:#}"
    );
    let omitted = data["restoration"]["omitted"].as_array().unwrap();
    assert_eq!(omitted.len(), 1, "{restored:#}");
    assert_eq!(omitted[0]["field"], "password \"Password\"", "{restored:#}");
    assert!(
        restored["untrusted"]
            .as_array()
            .unwrap()
            .contains(&json!("/data/restoration/omitted/0/field")),
        "{restored:#}"
    );

    let back = eval(&h, FORM_STATE).await;
    let mut expected = filled.clone();
    expected["password"] = json!("");
    assert_eq!(back, expected);
    // The page's listeners heard the restore: its preview shows the restored bio.
    let preview = eval(&h, "document.getElementById('preview').textContent").await;
    assert_eq!(preview, "Bio: Likes engines");
    // Nothing typed into the password is anywhere in the answer.
    assert!(!restored.to_string().contains("hunter2"));
}

#[tokio::test]
async fn snapshot_ids_of_one_revision_get_a_suffix_and_an_unknown_id_navigates_nothing() {
    let h = Harness::with_eval();
    h.ok(
        "navigate",
        json!({ "url": h.url("checkpoint-rerender.html") }),
    )
    .await;
    let id = |v: &Value| v["data"]["snapshotId"].as_str().unwrap().to_string();
    let first = id(&h.ok("snapshot", json!({})).await);
    let second = id(&h.ok("snapshot", json!({})).await);
    let third = id(&h.ok("snapshot", json!({})).await);
    assert_eq!(second, format!("{first}.1"));
    assert_eq!(third, format!("{first}.2"));
    // A field's value is not a DOM revision, but a checkpoint of its own all the same.
    act(
        &h,
        json!({ "action": "fill", "role": "textbox", "name": "City", "text": "Lyon" }),
    )
    .await;
    assert_eq!(id(&h.ok("snapshot", json!({})).await), format!("{first}.3"));
    act(&h, json!({ "action": "click", "selector": "#again" })).await;
    let next = id(&h.ok("snapshot", json!({})).await);
    assert!(
        !next.starts_with(&format!("{first}.")) && next != first,
        "{first} then {next}"
    );

    // The base id of a suffixed one is a checkpoint too; a cut-off id is not.
    h.ok(
        "checkpoint",
        json!({ "action": "restore", "stateId": first }),
    )
    .await;
    let url = eval(&h, "location.href").await;
    let refused = h
        .refused(
            "checkpoint",
            json!({ "action": "restore", "stateId": "tab0-s99" }),
            "CHECKPOINT_NOT_FOUND",
        )
        .await;
    assert_not_started(&refused.to_json());
    assert_eq!(eval(&h, "location.href").await, url);
    let diagnostics = h.ok("diagnostics", json!({})).await;
    // Five snapshots and the one the restore answered with; the actions took none
    // (snapshot:false).
    assert_eq!(
        diagnostics["data"]["checkpoints"]["held"], 6,
        "{diagnostics:#}"
    );
}

/// A field the page has made read-only or disabled since the checkpoint is reported as
/// not restored — `partial` — and left as the page has it, never written over.
#[tokio::test]
async fn a_field_made_read_only_or_disabled_since_is_not_restored_and_not_overwritten() {
    let h = Harness::with_eval();
    h.ok(
        "navigate",
        json!({ "url": h.url("checkpoint-rerender.html") }),
    )
    .await;
    for (name, text) in [("City", "Lyon"), ("Street", "Rue Mercière")] {
        act(
            &h,
            json!({ "action": "fill", "role": "textbox", "name": name, "text": text }),
        )
        .await;
    }
    let id = h.ok("snapshot", json!({})).await["data"]["snapshotId"]
        .as_str()
        .unwrap()
        .to_string();
    for (name, text) in [("City", "Paris"), ("Street", "Quai")] {
        act(
            &h,
            json!({ "action": "fill", "role": "textbox", "name": name, "text": text }),
        )
        .await;
    }
    eval(
        &h,
        "(() => { const inputs = document.querySelectorAll('#form input'); \
           const by = (l) => Array.from(inputs).find((i) => i.labels[0].textContent === l); \
           by('City').readOnly = true; by('Street').disabled = true; return true; })()",
    )
    .await;
    let envelope = h
        .envelope("checkpoint", json!({ "action": "restore", "stateId": id }))
        .await;
    let partial = envelope.to_json();
    assert_eq!(partial["status"], "partial", "{partial:#}");
    let failed = partial["data"]["restoration"]["failed"].as_array().unwrap();
    let reason = |field: &str| {
        failed
            .iter()
            .find(|f| f["field"] == field)
            .and_then(|f| f["reason"].as_str())
            .unwrap_or_else(|| panic!("{field} not among {failed:#?}"))
            .to_string()
    };
    assert!(
        reason("textbox \"City\"").contains("read-only"),
        "{partial:#}"
    );
    assert!(
        reason("textbox \"Street\"").contains("disabled"),
        "{partial:#}"
    );
    let values = eval(
        &h,
        "Array.from(document.querySelectorAll('#form input'), (e) => e.value).join('|')",
    )
    .await;
    assert_eq!(values, "Paris|Quai");
}

#[tokio::test]
async fn a_re_rendered_form_restores_by_label_and_a_new_required_field_is_named() {
    let h = Harness::with_eval();
    h.ok(
        "navigate",
        json!({ "url": h.url("checkpoint-rerender.html") }),
    )
    .await;
    act(
        &h,
        json!({ "action": "fill", "role": "textbox", "name": "City", "text": "Lyon" }),
    )
    .await;
    act(
        &h,
        json!({ "action": "fill", "role": "textbox", "name": "Street", "text": "Rue Mercière" }),
    )
    .await;
    act(
        &h,
        json!({ "action": "select", "role": "combobox", "name": "Pronouns", "values": ["they"] }),
    )
    .await;
    let id = h.ok("snapshot", json!({})).await["data"]["snapshotId"]
        .as_str()
        .unwrap()
        .to_string();
    // New ids, another order, empty: only the labels stay.
    act(&h, json!({ "action": "click", "selector": "#again" })).await;
    let ids = eval(
        &h,
        "Array.from(document.querySelectorAll('input,select'), (e) => e.id).join()",
    )
    .await;
    assert_eq!(ids, "g2-c,g2-b,g2-a");
    let restored = h
        .ok("checkpoint", json!({ "action": "restore", "stateId": id }))
        .await;
    let data = &restored["data"];
    assert_eq!(data["reached"], "in-place", "{restored:#}");
    assert_eq!(data["restoration"]["failed"], json!([]), "{restored:#}");
    assert_eq!(data["restoration"]["restored"], 3, "{restored:#}");
    // The answer shows the page as restored, under a snapshot id of its own: no need to
    // take another.
    let diff = data["diff"].as_str().unwrap();
    assert!(diff.contains("Lyon"), "{restored:#}");
    let after = restored["page"]["snapshotId"].as_str().unwrap();
    assert_ne!(after, id, "{restored:#}");
    let values = eval(
        &h,
        "Array.from(document.querySelectorAll('input,select'), (e) => e.value).join('|')",
    )
    .await;
    assert_eq!(values, "they|Rue Mercière|Lyon");

    // The form gained a required field since: partial, naming it.
    act(&h, json!({ "action": "click", "selector": "#phone" })).await;
    let envelope = h
        .envelope("checkpoint", json!({ "action": "restore", "stateId": id }))
        .await;
    let partial = envelope.to_json();
    assert_eq!(partial["status"], "partial", "{partial:#}");
    assert_eq!(partial["verification"]["verified"], false, "{partial:#}");
    let failed = partial["data"]["restoration"]["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{partial:#}");
    assert_eq!(failed[0]["field"], "textbox \"Phone\"", "{partial:#}");
    assert!(
        failed[0]["reason"].as_str().unwrap().contains("required"),
        "{partial:#}"
    );
    assert_eq!(partial["data"]["restoration"]["verified"], 4, "{partial:#}");
}

#[tokio::test]
async fn another_tab_loads_the_url_and_a_page_that_moved_stops_the_restore() {
    let h = Harness::with_eval();
    h.ok(
        "navigate",
        json!({ "url": h.url("checkpoint-rerender.html") }),
    )
    .await;
    act(
        &h,
        json!({ "action": "fill", "role": "textbox", "name": "City", "text": "Lyon" }),
    )
    .await;
    let id = h.ok("snapshot", json!({})).await["data"]["snapshotId"]
        .as_str()
        .unwrap()
        .to_string();
    // A tab whose history never held the page: the URL is loaded.
    let opened = h
        .ok(
            "navigate",
            json!({ "url": h.url("page-a.html"), "newTab": true }),
        )
        .await;
    let tab = opened["data"]["tabId"].as_str().unwrap().to_string();
    let restored = h
        .ok(
            "checkpoint",
            json!({ "action": "restore", "stateId": id, "tabId": tab }),
        )
        .await;
    assert_eq!(restored["data"]["reached"], "url", "{restored:#}");
    assert_eq!(restored["data"]["tabId"], tab.as_str(), "{restored:#}");
    assert_eq!(
        restored["data"]["restoration"]["restored"], 1,
        "{restored:#}"
    );

    // A session that expired: the page now redirects to a login.
    h.ok("navigate", json!({ "url": h.url("expires") })).await;
    act(
        &h,
        json!({ "action": "fill", "role": "textbox", "name": "Display name", "text": "Ada" }),
    )
    .await;
    let id = h.ok("snapshot", json!({})).await["data"]["snapshotId"]
        .as_str()
        .unwrap()
        .to_string();
    h.ok("navigate", json!({ "url": h.url("page-a.html") }))
        .await;
    let moved = h
        .fails(
            "checkpoint",
            json!({ "action": "restore", "stateId": id }),
            "CHECKPOINT_URL_CHANGED",
        )
        .await;
    assert!(
        moved["data"]["reached"]
            .as_str()
            .unwrap()
            .ends_with("/login.html"),
        "{moved:#}"
    );
    assert_eq!(moved["execution"]["dispatchStarted"], true, "{moved:#}");
}
