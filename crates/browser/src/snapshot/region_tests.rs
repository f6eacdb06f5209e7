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
    for (chromium, page) in every.nodes.iter().zip(&needed.nodes) {
        let same = if page.role == "generic" && chromium.role != "generic" {
            outline::FOLDED.contains(&chromium.role.as_str())
                && chromium.name.is_empty()
                && chromium.states.is_empty()
                && !chromium.focusable
        } else {
            (
                &chromium.role,
                &chromium.name,
                &chromium.states,
                chromium.focusable,
            ) == (&page.role, &page.name, &page.states, page.focusable)
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

#[tokio::test]
async fn a_region_read_asking_only_where_needed_outlines_as_one_asking_about_everything() {
    let server = test_support::FixtureServer::start();
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
    let url = task.check_url(&server.url("docs-like.html")).unwrap();
    tab.navigate(&url, deadline()).await.unwrap();
    for scroll in [0, 2400] {
        tab.session()
            .call_raw(
                "Runtime.evaluate",
                serde_json::json!({ "expression": format!("window.scrollTo(0, {scroll})") }),
                deadline(),
            )
            .await
            .unwrap();
        let (chromium, every, asked_every) = region_read(&tab, Asking::Every).await;
        let (page, needed, asked_needed) = region_read(&tab, Asking::Needed).await;
        assert!(
            every.iter().any(|l| l.contains("listitem")) && every.len() > 40,
            "at {scroll}px the region shows the lists: {every:#?}"
        );
        assert!(
            asked_needed * 2 < asked_every,
            "at {scroll}px the page told most elements itself: asked {asked_needed} of {asked_every}"
        );
        assert!(
            every.iter().any(|l| l.contains("Show 3 methods"))
                && !every
                    .iter()
                    .any(|l| l.contains("folded_away") || l.contains("collapsed text")),
            "at {scroll}px a closed details shows its summary only: {every:#?}"
        );
        let differences = compare_nodes(&chromium, &page);
        assert!(
            differences.is_empty(),
            "at {scroll}px, Chromium vs the page: {differences:#?}"
        );
        assert_eq!(every, needed, "at {scroll}px, the outlines");
    }
    browser.close(deadline()).await;
}
