//! Element snapshots, refs, find, diff, markdown, frames and shadow roots (docs/observation.md).

use serde_json::{Value, json};

use crate::harness::Harness;

/// The ref on the snapshot line that starts with `line` (e.g. `button "Delete Bob"`).
fn ref_on(snapshot: &Value, line: &str) -> String {
    let text = snapshot["data"]["text"].as_str().unwrap();
    let found = text
        .lines()
        .map(str::trim_start)
        .find_map(|l| {
            l.strip_prefix("- ")?
                .strip_prefix(line)?
                .trim_start()
                .strip_prefix('[')
        })
        .unwrap_or_else(|| panic!("no ref on a line {line:?} in:\n{text}"));
    let r = &found[..found.find(']').unwrap()];
    assert!(
        r.len() >= 2
            && r.len() <= 7
            && r.starts_with('e')
            && r[1..]
                .bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase()),
        "{r:?} is not a ref"
    );
    r.to_string()
}

async fn text_of_page(h: &Harness) -> String {
    let read = h.ok("snapshot", json!({ "mode": "text" })).await;
    read["data"]["text"].as_str().unwrap().to_string()
}

async fn click(h: &Harness, r: &str) -> Value {
    h.ok("act", json!({ "action": "click", "ref": r })).await
}

#[tokio::test]
async fn a_re_rendered_list_keeps_the_ref_and_clicking_it_deletes_the_right_item() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("rerender-list.html") }))
        .await;
    let first = h.ok("snapshot", json!({})).await;
    assert_eq!(first["page"]["snapshotId"], first["data"]["snapshotId"]);
    let bob = ref_on(&first, "button \"Delete Bob\"");
    let shuffle = ref_on(&first, "button \"Shuffle\"");

    // Every node is replaced and the order rotated: Carol now sits where Bob was.
    click(&h, &shuffle).await;
    let second = h.ok("snapshot", json!({})).await;
    assert_eq!(
        ref_on(&second, "button \"Delete Bob\""),
        bob,
        "the same element keeps its ref"
    );
    let order: Vec<&str> = second["data"]["text"]
        .as_str()
        .unwrap()
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- button \"Delete "))
        .collect();
    assert!(order[0].starts_with("Bob"), "{order:?}");

    // The old ref, used after the re-render, deletes Bob — not the item at his old place.
    let clicked = click(&h, &bob).await;
    assert_eq!(clicked["data"]["name"], "Delete Bob");
    assert_eq!(clicked["data"]["relocated"], false);
    assert_eq!(clicked["execution"]["dispatchStarted"], true);
    assert_eq!(clicked["verification"]["requested"], false);
    let page = text_of_page(&h).await;
    assert!(page.contains("Deleted Bob"), "{page}");
    for other in ["Delete Alice", "Delete Carol", "Delete Dave"] {
        assert!(page.contains(other), "{other} must survive: {page}");
    }
    assert!(!page.contains("Delete Bob"));

    // With Bob gone the ref names nothing: refused, nothing dispatched.
    let stale = h
        .fails("act", json!({ "action": "click", "ref": bob }), "STALE_REF")
        .await;
    assert_eq!(stale["execution"]["actionStatus"], "not-started");
    assert_eq!(stale["execution"]["retrySafe"], true);
    // The element it named is the page's text: in the data, fenced, not in the message.
    assert!(!stale["message"].as_str().unwrap().contains("Delete Bob"));
    assert_eq!(stale["data"]["element"], "button \"Delete Bob\"");
    assert!(
        stale["untrusted"]
            .as_array()
            .unwrap()
            .contains(&json!("/data/element"))
    );
    h.shutdown().await;
}

#[tokio::test]
async fn a_ref_from_one_page_is_refused_on_the_next_even_if_it_looks_the_same() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("page-a.html") }))
        .await;
    let a = h.ok("snapshot", json!({})).await;
    let submit = ref_on(&a, "button \"Submit\"");
    h.ok("navigate", json!({ "url": h.url("page-b.html") }))
        .await;
    let b = h.ok("snapshot", json!({})).await;
    assert_ne!(ref_on(&b, "button \"Submit\""), submit);
    let stale = h
        .fails(
            "act",
            json!({ "action": "click", "ref": submit }),
            "STALE_REF",
        )
        .await;
    assert!(
        stale["message"].as_str().unwrap().contains("page-b.html"),
        "{stale:#}"
    );
    assert!(text_of_page(&h).await.contains("Not submitted"));
    // Unknown refs are refused the same way.
    h.fails(
        "act",
        json!({ "action": "click", "ref": "ezzzz" }),
        "STALE_REF",
    )
    .await;
    h.shutdown().await;
}

#[tokio::test]
async fn iframes_of_both_origins_and_shadow_roots_are_inlined_and_clickable() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("frame-host.html") }))
        .await;
    let snapshot = h.ok("snapshot", json!({})).await;
    let text = snapshot["data"]["text"].as_str().unwrap();
    assert!(text.contains("- iframe \"Cross origin frame\""), "{text}");
    assert!(text.contains("This is the cross frame"), "{text}");
    for frame in ["same", "cross"] {
        let button = ref_on(&snapshot, &format!("button \"Press in {frame} frame\""));
        click(&h, &button).await;
        let found = h
            .ok(
                "find",
                json!({ "text": format!("Pressed in {frame} frame") }),
            )
            .await;
        assert_eq!(found["data"]["total"], 1, "{frame}: {found:#}");
    }

    h.ok("navigate", json!({ "url": h.url("shadow.html") }))
        .await;
    let snapshot = h.ok("snapshot", json!({})).await;
    assert!(
        snapshot["data"]["text"]
            .as_str()
            .unwrap()
            .contains("Inside the shadow root")
    );
    click(&h, &ref_on(&snapshot, "button \"Shadow button\"")).await;
    let found = h.ok("find", json!({ "text": "Shadow clicked" })).await;
    assert_eq!(found["data"]["total"], 1, "{found:#}");
    h.shutdown().await;
}

#[tokio::test]
async fn elements_that_take_clicks_without_a_role_get_refs() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("clickable.html") }))
        .await;
    let snapshot = h.ok("snapshot", json!({})).await;
    let two = ref_on(&snapshot, "clickable \"Two\"");
    ref_on(&snapshot, "clickable \"One\"");
    let div = ref_on(&snapshot, "clickable \"A div with onclick\"");
    click(&h, &two).await;
    assert!(text_of_page(&h).await.contains("Tab Two clicked"));
    click(&h, &div).await;
    assert!(text_of_page(&h).await.contains("Div clicked"));
    h.shutdown().await;
}

#[tokio::test]
async fn hidden_things_are_left_out_and_wrappers_folded() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("pruning.html") }))
        .await;
    let snapshot = h.ok("snapshot", json!({ "maxTokens": 20000 })).await;
    let text = snapshot["data"]["text"].as_str().unwrap();
    assert!(text.contains("button \"Kept button\""), "{text}");
    for hidden in [
        "Display none",
        "Visibility hidden",
        "Aria hidden",
        "Inert",
        "Zero size",
        "Offscreen",
    ] {
        assert!(!text.contains(hidden), "{hidden} must be pruned:\n{text}");
    }
    // Four wrappers around the link fold away: it sits at the top level.
    assert!(
        text.lines()
            .any(|l| l.starts_with("- link \"Deeply wrapped link\" [")),
        "{text}"
    );
    assert_eq!(snapshot["data"]["truncated"], false);
    // Pruned elements are not counted as left out.
    let found = h.ok("find", json!({ "text": "Display none button" })).await;
    assert_eq!(found["data"]["total"], 0);
    h.shutdown().await;
}

#[tokio::test]
async fn the_budget_is_kept_and_what_did_not_fit_is_summarised() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("article.html") }))
        .await;
    let small = h.ok("snapshot", json!({ "maxTokens": 300 })).await;
    let tokens = small["data"]["tokens"].as_u64().unwrap();
    assert!(tokens <= 300, "{tokens} tokens over a 300 budget");
    let text = small["data"]["text"].as_str().unwrap();
    assert!(text.contains("below the viewport"), "{text}");
    assert!(small["data"]["elementsOmitted"].as_u64().unwrap() > 0);
    assert!(
        text.contains("heading \"Keepers of the Light"),
        "the top of the page comes first: {text}"
    );
    let default = h.ok("snapshot", json!({})).await;
    assert!(default["data"]["tokens"].as_u64().unwrap() <= 4096);
    h.shutdown().await;
}

#[tokio::test]
async fn find_searches_the_whole_page_and_its_refs_work() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("pruning.html") }))
        .await;
    let small = h.ok("snapshot", json!({ "maxTokens": 150 })).await;
    assert!(!small["data"]["text"].as_str().unwrap().contains("Item 40"));
    let found = h
        .ok("find", json!({ "role": "link", "name": "Item 40" }))
        .await;
    assert_eq!(found["data"]["total"], 1, "{found:#}");
    let item = &found["data"]["matches"][0];
    assert_eq!(item["role"], "link");
    assert_eq!(item["name"], "Item 40");
    assert_eq!(item["inViewport"], false);
    let clicked = click(&h, item["ref"].as_str().unwrap()).await;
    assert!(
        clicked["page"]["url"]
            .as_str()
            .unwrap()
            .ends_with("#item-40"),
        "{clicked:#}"
    );
    h.fails("find", json!({}), "EMPTY_CONDITION").await;
    h.shutdown().await;
}

#[tokio::test]
async fn a_snapshot_id_refuses_an_element_replaced_since() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("rerender-list.html") }))
        .await;
    let before = h.ok("snapshot", json!({})).await;
    let id = before["data"]["snapshotId"].as_str().unwrap().to_string();
    assert!(id.starts_with("tab0-s"), "{id}");
    let alice = ref_on(&before, "button \"Delete Alice\"");
    click(&h, &ref_on(&before, "button \"Shuffle\"")).await;
    let refused = h
        .fails(
            "act",
            json!({ "action": "click", "ref": alice, "snapshotId": id }),
            "STALE_SNAPSHOT",
        )
        .await;
    assert_eq!(refused["execution"]["actionStatus"], "not-started");
    assert!(text_of_page(&h).await.contains("Nothing deleted yet"));
    let after = h.ok("snapshot", json!({})).await;
    let id = after["data"]["snapshotId"].as_str().unwrap();
    h.ok(
        "act",
        json!({ "action": "click", "ref": alice, "snapshotId": id }),
    )
    .await;
    assert!(text_of_page(&h).await.contains("Deleted Alice"));
    h.shutdown().await;
}

/// On a page large enough to be read around the viewport, a link named page-side (no DOM
/// node id in the snapshot) is acted on by its ref with the snapshot's id: the same link,
/// not refused as replaced.
#[tokio::test]
async fn a_link_a_region_read_named_is_clicked_by_ref_and_snapshot_id() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("docs-like.html") }))
        .await;
    let before = h.ok("snapshot", json!({})).await;
    let id = before["data"]["snapshotId"].as_str().unwrap().to_string();
    assert!(
        before["data"]["text"]
            .as_str()
            .unwrap()
            .contains("# below the viewport"),
        "a region read: {before:#}"
    );
    let titled = ref_on(&before, "link \"titled\"");
    let clicked = h
        .ok(
            "act",
            json!({ "action": "click", "ref": titled, "snapshotId": id }),
        )
        .await;
    assert!(
        clicked["page"]["url"].as_str().unwrap().ends_with("#l3"),
        "{clicked:#}"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn diff_returns_only_what_changed() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("spa.html") })).await;
    let full = h.ok("snapshot", json!({})).await;
    let show = ref_on(&full, "button \"Show details\"");
    h.ok(
        "act",
        json!({ "action": "click", "ref": show, "snapshot": false }),
    )
    .await;
    let diff = h.ok("snapshot", json!({ "diff": true })).await;
    assert_eq!(diff["data"]["diffAgainst"], full["data"]["snapshotId"]);
    let text = diff["data"]["text"].as_str().unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with("- ") && l.contains("Home view")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("+ ") && l.contains("Details view 1")),
        "{text}"
    );
    assert!(
        !text.contains("Show details"),
        "unchanged lines stay out: {text}"
    );
    assert!(text.len() < full["data"]["text"].as_str().unwrap().len());
    let unchanged = h.ok("snapshot", json!({ "diff": true })).await;
    assert!(
        unchanged["data"]["text"]
            .as_str()
            .unwrap()
            .contains("no change")
    );
    h.shutdown().await;
}

#[tokio::test]
async fn markdown_mode_reads_the_page_with_links_and_refs() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("index.html") }))
        .await;
    let md = h.ok("snapshot", json!({ "mode": "markdown" })).await;
    let text = md["data"]["text"].as_str().unwrap();
    assert!(text.starts_with("# Fixture home"), "{text}");
    assert!(text.contains("[Second page](second.html) [e"), "{text}");
    assert!(md["page"]["snapshotId"].as_str().is_some());
    let clipped = h
        .ok("snapshot", json!({ "mode": "markdown", "maxChars": 20 }))
        .await;
    assert_eq!(clipped["data"]["truncated"], true);
    h.shutdown().await;
}

/// An element's identity includes the heading before it in the document, which on this
/// page lies far down the sidebar, outside the region a snapshot reads: the region read
/// still names the element as a whole read (find) does, so both give it the same ref.
#[tokio::test]
async fn a_region_read_and_a_whole_read_give_an_element_the_same_ref() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("large-sidebar.html") }))
        .await;
    let snapshot = h.ok("snapshot", json!({})).await;
    assert!(
        snapshot["data"]["elementsOmitted"].as_u64().unwrap() > 1000,
        "a region read: {snapshot:#}"
    );
    let three = ref_on(&snapshot, "button \"Choose 3\"");
    let found = h
        .ok("find", json!({ "role": "button", "name": "Choose 3" }))
        .await;
    assert_eq!(
        found["data"]["matches"][0]["ref"],
        three.as_str(),
        "{found:#}"
    );
    let path = found["data"]["matches"][0]["path"].to_string();
    assert!(path.contains("Group 40"), "{path}");
    let again = h.ok("snapshot", json!({})).await;
    assert_eq!(ref_on(&again, "button \"Choose 3\""), three);
    h.ok(
        "act",
        json!({ "action": "click", "ref": three, "expect": { "text": "Chose 3" } }),
    )
    .await;
    h.shutdown().await;
}

#[tokio::test]
async fn a_large_page_is_read_around_the_viewport_and_its_refs_act() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("large.html") }))
        .await;
    let snapshot = h.ok("snapshot", json!({})).await;
    let text = snapshot["data"]["text"].as_str().unwrap();
    assert!(text.contains("heading \"Large page\""), "{text}");
    assert!(text.contains("below the viewport"), "{text}");
    assert!(
        !text.contains("Choose 2000"),
        "far below the viewport: {text}"
    );
    assert!(
        snapshot["data"]["elementsOmitted"].as_u64().unwrap() > 1000,
        "{snapshot:#}"
    );
    assert_eq!(snapshot["data"]["truncated"], false);
    // A ref from the region read resolves in the whole page.
    let three = ref_on(&snapshot, "button \"Choose 3\"");
    h.ok(
        "act",
        json!({ "action": "click", "ref": three, "expect": { "text": "Chose 3" } }),
    )
    .await;
    // find still searches everything.
    let found = h
        .ok("find", json!({ "role": "button", "name": "Choose 2000" }))
        .await;
    assert_eq!(found["data"]["total"], 1, "{found:#}");
    h.shutdown().await;
}
