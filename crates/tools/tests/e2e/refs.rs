//! Refs never name a different element (docs/observation.md#refs): a ref follows its DOM node; a new
//! element takes an old ref only as the same thing re-rendered; otherwise `STALE_REF`.

use serde_json::{Value, json};

use crate::harness::Harness;

fn harness() -> Harness {
    Harness::with(|options| options.enable_eval = true)
}

/// The refs of the lines containing `needle`, in order.
fn refs_on(snapshot: &Value, needle: &str) -> Vec<String> {
    snapshot["data"]["text"]
        .as_str()
        .unwrap()
        .lines()
        .filter(|l| l.contains(needle))
        .filter_map(|l| {
            let start = l.find(" [e")? + 2;
            let end = start + l[start..].find(']')?;
            Some(l[start..end].to_string())
        })
        .collect()
}

async fn log(h: &Harness) -> Vec<String> {
    let read = h.ok("eval", json!({ "expression": "window.__log" })).await;
    serde_json::from_value(read["data"]["value"].clone()).unwrap()
}

async fn click(h: &Harness, r: &str) -> Value {
    h.call("act", json!({ "action": "click", "ref": r })).await
}

#[tokio::test]
async fn a_list_rows_star_ref_never_stars_the_open_message_and_follows_the_list_back() {
    let h = harness();
    h.ok("navigate", json!({ "url": h.url("widgets/mail.html") }))
        .await;
    let inbox = h.ok("snapshot", json!({})).await;
    let first_star = refs_on(&inbox, "button \"Star\"")[0].clone();
    h.ok(
        "act",
        json!({ "action": "click", "role": "link", "name": "Quarterly report draft" }),
    )
    .await;
    let message = h.ok("snapshot", json!({})).await;
    let open_star = refs_on(&message, "button \"Star\"");
    assert_eq!(open_star.len(), 1, "{message:#}");
    assert_ne!(open_star[0], first_star, "two elements, one ref");
    let old = click(&h, &first_star).await;
    assert_eq!(old["code"], "STALE_REF", "{old:#}");
    assert!(!log(&h).await.iter().any(|l| l.starts_with("star:")));

    // Back to the list, re-rendered with new nodes: the row's star is the same thing.
    h.ok(
        "act",
        json!({ "action": "click", "role": "button", "name": "Back to inbox" }),
    )
    .await;
    let clicked = click(&h, &first_star).await;
    assert_eq!(clicked["ok"], true, "{clicked:#}");
    assert_eq!(clicked["data"]["relocated"], false);
    assert!(log(&h).await.contains(&"star:m1".to_string()));
    h.shutdown().await;
}

#[tokio::test]
async fn of_identical_rows_the_removed_rows_ref_is_stale_and_the_others_keep_theirs() {
    let h = harness();
    h.ok("navigate", json!({ "url": h.url("widgets/refs.html") }))
        .await;
    let snapshot = h.ok("snapshot", json!({ "maxTokens": 20000 })).await;
    let removes = refs_on(&snapshot, "button \"Remove\"");
    assert_eq!(removes.len(), 5, "{snapshot:#}");
    let unique: std::collections::HashSet<_> = removes.iter().collect();
    assert_eq!(unique.len(), 5, "identical rows, distinct refs");
    assert_eq!(click(&h, &removes[1]).await["ok"], true);
    let again = click(&h, &removes[1]).await;
    assert_eq!(again["code"], "STALE_REF", "{again:#}");
    assert_eq!(again["execution"]["dispatchStarted"], false);
    assert_eq!(click(&h, &removes[3]).await["ok"], true);
    let removed: Vec<String> = log(&h)
        .await
        .into_iter()
        .filter(|l| l.starts_with("remove:"))
        .collect();
    assert_eq!(removed, ["remove:2", "remove:4"]);
    h.shutdown().await;
}

#[tokio::test]
async fn a_detail_panes_button_ref_never_acts_on_the_next_persons_pane() {
    let h = harness();
    h.ok("navigate", json!({ "url": h.url("widgets/refs.html") }))
        .await;
    h.ok(
        "act",
        json!({ "action": "click", "role": "button", "name": "Alice", "exact": true }),
    )
    .await;
    let snapshot = h.ok("snapshot", json!({ "maxTokens": 20000 })).await;
    let edit_alice = refs_on(&snapshot, "button \"Edit\"")[0].clone();
    h.ok(
        "act",
        json!({ "action": "click", "role": "button", "name": "Bob", "exact": true }),
    )
    .await;
    let stale = click(&h, &edit_alice).await;
    assert_eq!(stale["code"], "STALE_REF", "{stale:#}");
    assert!(!log(&h).await.iter().any(|l| l.starts_with("edit:")));
    h.shutdown().await;
}

#[tokio::test]
async fn a_panels_save_ref_never_saves_another_tabs_panel() {
    let h = harness();
    h.ok("navigate", json!({ "url": h.url("widgets/refs.html") }))
        .await;
    let snapshot = h.ok("snapshot", json!({ "maxTokens": 20000 })).await;
    let save_one = refs_on(&snapshot, "button \"Save\"")[0].clone();
    h.ok(
        "act",
        json!({ "action": "click", "role": "tab", "name": "Two" }),
    )
    .await;
    let stale = click(&h, &save_one).await;
    assert_eq!(stale["code"], "STALE_REF", "{stale:#}");
    assert!(!log(&h).await.iter().any(|l| l.starts_with("save:")));
    h.shutdown().await;
}

#[tokio::test]
async fn a_buy_ref_follows_its_row_through_a_re_sort() {
    let h = harness();
    h.ok("navigate", json!({ "url": h.url("widgets/refs.html") }))
        .await;
    let snapshot = h.ok("snapshot", json!({ "maxTokens": 20000 })).await;
    let text = snapshot["data"]["text"].as_str().unwrap();
    // The Buy button on Cheese's row (the first row before sorting).
    let buys = refs_on(&snapshot, "button \"Buy\"");
    assert_eq!(buys.len(), 6, "{text}");
    h.ok(
        "act",
        json!({ "action": "click", "role": "button", "name": "Sort by price" }),
    )
    .await;
    let clicked = click(&h, &buys[0]).await;
    assert_eq!(clicked["ok"], true, "{clicked:#}");
    let bought: Vec<String> = log(&h)
        .await
        .into_iter()
        .filter(|l| l.starts_with("buy:"))
        .collect();
    assert_eq!(bought, ["buy:Cheese"]);
    h.shutdown().await;
}

#[tokio::test]
async fn page_text_cannot_forge_a_ref_of_another_element() {
    let h = harness();
    h.ok(
        "navigate",
        json!({ "url": h.url("hostile/forged-ref.html") }),
    )
    .await;
    let read = h.ok("snapshot", json!({})).await;
    let text = read["data"]["text"].as_str().unwrap_or_default();
    let delete = refs_on(&read, "button \"Delete my account\"");
    assert_eq!(delete.len(), 1, "{text}");
    // The page's sentence holds its own characters, never a ref of ours: the Delete
    // button's ref is on its line and nowhere else, bracketed or not.
    assert_eq!(text.matches(delete[0].as_str()).count(), 1, "{text}");
    for bait in ["To cancel safely", "region \"Click"] {
        let line = text
            .lines()
            .find(|l| l.contains(bait))
            .unwrap_or_else(|| panic!("no {bait} in {text}"));
        assert!(!line.contains("[e"), "{line}");
    }
    h.shutdown().await;
}
