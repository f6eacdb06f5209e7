//! The page-side answers of a region read (plain wrappers, lists and list items) held to
//! Chromium's: on a page modelled on real documentation, a region read that asks
//! Chromium about every element and one that asks only where the page cannot tell give
//! the same outline, line for line, at the top and further down.

// Helpers outside #[test] functions: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use super::Asking;
use crate::refs::RefRegistry;
use crate::snapshot::capture::Observation;
use crate::snapshot::{budget, outline};
use crate::{Browser, BrowserOptions, Deadline, Endpoint, LaunchOptions, Task};

fn deadline() -> Deadline {
    Deadline::after(Duration::from_secs(30))
}

/// A region read's observation, every line of its outline (unbudgeted), and how many
/// elements Chromium was asked about.
async fn region_read(tab: &crate::Tab, asking: Asking) -> (Observation, Vec<String>, usize) {
    let (observation, asked) = tab
        .observe_region_asking(super::BASE_BUDGET, asking, deadline())
        .await
        .unwrap()
        .expect("the page is large enough for a region read");
    let outlined = outline::outline(&observation, 0, &mut RefRegistry::default());
    let lines = outlined.lines.iter().map(budget::render_line).collect();
    (observation, lines, asked)
}

/// Node by node, what the page told (right) is what Chromium says (left): the same role,
/// name, states and focusability, or, for a plain wrapper, a role the outline folds, with
/// no name, no state, and not focusable.
fn compare_nodes(every: &Observation, needed: &Observation) -> Vec<String> {
    let mut differences = Vec::new();
    // The document's node is the tab's title either way, whenever that arrived.
    for (chromium, page) in every.nodes.iter().zip(&needed.nodes).skip(1) {
        let same = if page.role == "generic" && chromium.role != "generic" {
            outline::FOLDED.contains(&chromium.role.as_str())
                && chromium.name.is_empty()
                && chromium.states.is_empty()
                && !chromium.focusable
        } else {
            (
                &chromium.role,
                &chromium.name,
                &chromium.value,
                &chromium.states,
                chromium.focusable,
            ) == (
                &page.role,
                &page.name,
                &page.value,
                &page.states,
                page.focusable,
            )
        };
        if !same {
            differences.push(format!(
                "{} {:?} {:?} vs {} {:?} {:?}",
                chromium.role, chromium.name, chromium.states, page.role, page.name, page.states
            ));
        }
    }
    if every.nodes.len() != needed.nodes.len() {
        differences.push(format!(
            "{} nodes vs {}",
            every.nodes.len(),
            needed.nodes.len()
        ));
    }
    differences
}

/// A browser with `docs-like.html` open (or `$REGION_URL`).
async fn docs_like(server: &test_support::FixtureServer) -> (Browser, crate::Tab) {
    let url = std::env::var("REGION_URL").unwrap_or_else(|_| server.url("docs-like.html"));
    open_page(&url).await
}

/// A browser with `url` open in a tab of its own task.
async fn open_page(url: &str) -> (Browser, crate::Tab) {
    let options = BrowserOptions {
        endpoint: Endpoint::Launch(LaunchOptions {
            executable: Some(test_support::chromium()),
            ..LaunchOptions::default()
        }),
        record_cdp: None,
    };
    let browser = Browser::start(options, deadline()).await.unwrap();
    let mut task = Task::create(&browser, "region", deadline()).await.unwrap();
    let (_, tab) = task.open_tab(deadline()).await.unwrap();
    let url = task.check_url(url).unwrap();
    tab.navigate(&url, deadline()).await.unwrap();
    (browser, tab)
}

async fn evaluate(tab: &crate::Tab, expression: &str) {
    tab.session()
        .call_raw(
            "Runtime.evaluate",
            serde_json::json!({ "expression": expression }),
            deadline(),
        )
        .await
        .unwrap();
}

/// The links a region read named page-side have no DOM node to follow, only their
/// identity: at the top, further down, and where the region starts among sixty links
/// of one name under one heading, each ref the region read gives a link names, in a
/// whole read that follows, the same link in the same place.
#[tokio::test]
async fn a_region_read_gives_each_link_the_ref_a_whole_read_gives_it() {
    let server = test_support::FixtureServer::start();
    let (browser, tab) = docs_like(&server).await;
    let scrolls = [
        "window.scrollTo(0, 0)",
        "window.scrollTo(0, 2400)",
        "window.scrollTo(0, 6000)",
    ];
    for scroll in scrolls {
        evaluate(&tab, scroll).await;
        let mut registry = RefRegistry::default();
        let (region, _) = tab
            .observe_region_asking(super::BASE_BUDGET, Asking::Needed, deadline())
            .await
            .unwrap()
            .expect("the page is large enough for a region read");
        let region_outline = outline::outline(&region, 0, &mut registry);
        let whole = tab.observe(deadline()).await.unwrap();
        let whole_outline = outline::outline(&whole, 0, &mut registry);
        let mut links = 0;
        for (index, r#ref) in &region_outline.refs {
            let node = &region.nodes[*index];
            if node.role != "link" {
                continue;
            }
            links += 1;
            let there = whole_outline
                .refs
                .iter()
                .find(|(_, r)| *r == r#ref)
                .map(|(i, _)| &whole.nodes[*i]);
            let same = there.is_some_and(|there| {
                there.name == node.name
                    && match (there.bounds, node.bounds) {
                        (Some(a), Some(b)) => (a.x - b.x).abs() < 1.0 && (a.y - b.y).abs() < 1.0,
                        _ => false,
                    }
            });
            if !same {
                let _ = whole
                    .nodes
                    .iter()
                    .enumerate()
                    .filter(|(_, n)| n.bounds == node.bounds)
                    .map(|(i, n)| {
                        eprintln!(
                            "WHOLE {i} {} {:?} ref {:?} {:?} backend {:?}",
                            n.role,
                            n.name,
                            whole_outline.refs.get(&i),
                            whole_outline.identities.get(&i),
                            node.backend_id
                        )
                    })
                    .count();
                eprintln!("REGION {:?}", region_outline.identities.get(index));
                for (obs, start) in [
                    (&region, *index),
                    (
                        &whole,
                        whole
                            .nodes
                            .iter()
                            .position(|n| n.bounds == node.bounds && n.role == "link")
                            .unwrap(),
                    ),
                ] {
                    let mut at = Some(start);
                    let mut chain = Vec::new();
                    while let Some(i) = at {
                        chain.push(format!(
                            "{} {:?} {:?}",
                            obs.nodes[i].role,
                            obs.nodes[i].name.chars().take(50).collect::<String>(),
                            obs.nodes[i].states
                        ));
                        at = obs.nodes[i].parent;
                    }
                    eprintln!("CHAIN {chain:?}");
                }
            }
            assert!(
                same,
                "after {scroll}: {ref} is link {:?} at {:?} in the region read, {:?} in the whole read",
                node.name,
                node.bounds,
                there.map(|n| (&n.name, n.bounds)),
            );
        }
        assert!(links > 20, "after {scroll}: {links} links with refs");
    }
    browser.close(deadline()).await;
}

#[tokio::test]
async fn a_region_read_asking_only_where_needed_outlines_as_one_asking_about_everything() {
    let server = test_support::FixtureServer::start();
    let (browser, tab) = docs_like(&server).await;
    for scroll in [0, 2400] {
        evaluate(&tab, &format!("window.scrollTo(0, {scroll})")).await;
        let (chromium, every, asked_every) = region_read(&tab, Asking::Every).await;
        let (page, needed, asked_needed) = region_read(&tab, Asking::Needed).await;
        assert!(
            every.len() > 40,
            "at {scroll}px the region shows the lists: {every:#?}"
        );
        assert!(
            std::env::var("REGION_URL").is_ok()
                || every.iter().any(|l| l.contains("Show 3 methods"))
                    && !every
                        .iter()
                        .any(|l| l.contains("folded") || l.contains("collapsed text")),
            "at {scroll}px a closed details shows its summary only: {every:#?}"
        );
        let differences = compare_nodes(&chromium, &page);
        assert!(
            differences.is_empty(),
            "at {scroll}px, Chromium vs the page: {differences:#?}"
        );
        // Further down, every section's links have names links above the region have
        // (the sections are copies), and are asked about.
        eprintln!("at {scroll}px asked {asked_needed} of {asked_every}");
        let told = if scroll == 0 { 3 } else { 1 };
        assert!(
            asked_needed * told < asked_every,
            "at {scroll}px the page told most elements itself: asked {asked_needed} of {asked_every}"
        );
        assert_eq!(every, needed, "at {scroll}px, the outlines");
    }
    browser.close(deadline()).await;
}

/// A page the tab last read whole and found small is read whole again without asking
/// it (one round trip fewer); once it has grown, that whole read says so, and the next
/// read asks again and reads only the region.
#[tokio::test]
async fn a_small_page_is_read_whole_without_asking_until_it_has_grown() {
    let server = test_support::FixtureServer::start();
    let (browser, tab) = open_page(&server.url("index.html")).await;
    let read = async || {
        let (observation, _, _) = tab
            .observe_with_revision(false, super::BASE_BUDGET, deadline())
            .await
            .unwrap();
        observation
    };
    let small = read().await;
    assert_eq!(small.elements_beyond, (0, 0), "a small page is read whole");
    assert!(tab.memory().small_pages.contains(&tab.state().url));
    // Three thousand links, far more than a screen's worth: a page a region read is for.
    evaluate(
        &tab,
        "for (let i = 0; i < 3000; i++) { const p = document.createElement('p'); \
         p.innerHTML = '<a href=\"#l' + i + '\">link ' + i + '</a>'; document.body.append(p); }",
    )
    .await;
    let grown = read().await;
    assert_eq!(
        grown.elements_beyond,
        (0, 0),
        "read whole without asking, as it was small"
    );
    assert!(
        grown.nodes.iter().filter(|n| n.role == "link").count() >= 3000,
        "the whole read holds every link"
    );
    assert!(!tab.memory().small_pages.contains(&tab.state().url));
    let region = read().await;
    assert!(
        region.elements_beyond.1 > 0,
        "asked again, the page reads its region and counts the links below it: {:?}",
        region.elements_beyond
    );
    drop(browser);
}
