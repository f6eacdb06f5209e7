//! The tab's event reducer (`apply`) on synthetic event sequences: each fact of
//! `PageState` is changed by the events that mean it, and by nothing else.

use serde_json::{Value, json};

use super::*;

fn event(method: &str, params: Value) -> RawEvent {
    RawEvent {
        session: None,
        method: method.into(),
        params,
    }
}

fn navigated(frame: &str, loader: &str, url: &str) -> RawEvent {
    event(
        "Page.frameNavigated",
        json!({"frame": {"id": frame, "loaderId": loader, "url": url}}),
    )
}

fn load(frame: &str, loader: &str) -> RawEvent {
    event(
        "Page.lifecycleEvent",
        json!({"frameId": frame, "loaderId": loader, "name": "load"}),
    )
}

fn context(id: i64, frame: &str, default: bool) -> RawEvent {
    event(
        "Runtime.executionContextCreated",
        json!({"context": {"id": id, "auxData": {"frameId": frame, "isDefault": default}}}),
    )
}

/// A tab on `http://a/` in frame `main`, loaded, with context 1.
fn loaded() -> PageState {
    let mut state = PageState::default();
    for e in [
        navigated("main", "L1", "http://a/"),
        load("main", "L1"),
        context(1, "main", true),
    ] {
        apply(&mut state, &e);
    }
    state
}

#[test]
fn a_navigation_is_pending_then_committed_then_loaded() {
    let mut state = loaded();
    let epoch = state.url_epoch;
    assert!(apply(
        &mut state,
        &event(
            "Page.frameStartedNavigating",
            json!({"frameId": "main", "url": "http://a/next", "navigationType": "differentDocument"}),
        )
    ));
    assert_eq!(state.navigating.as_deref(), Some("http://a/next"));
    assert!(!state.loading, "pending is not loading");

    assert!(apply(&mut state, &navigated("main", "L2", "http://a/next")));
    assert_eq!(state.url, "http://a/next");
    assert_eq!(state.url_epoch, epoch + 1);
    assert!(state.loading && state.navigating.is_none());

    // A late load of the old document does not end the new one's loading.
    apply(&mut state, &load("main", "L1"));
    assert!(state.loading);
    apply(&mut state, &load("main", "L2"));
    assert!(!state.loading);
    assert_eq!(state.loaded_loader.as_deref(), Some("L2"));
}

#[test]
fn same_document_moves_and_fragments_keep_the_epoch() {
    let mut state = loaded();
    let epoch = state.url_epoch;
    assert!(!apply(
        &mut state,
        &event(
            "Page.frameStartedNavigating",
            json!({"frameId": "main", "url": "http://a/#x", "navigationType": "sameDocument"}),
        )
    ));
    assert!(state.navigating.is_none());
    assert!(apply(
        &mut state,
        &event(
            "Page.navigatedWithinDocument",
            json!({"frameId": "main", "url": "http://a/#x"}),
        )
    ));
    assert_eq!(
        (state.url.as_str(), state.url_epoch),
        ("http://a/#x", epoch)
    );
    // pushState to another path is another page for refs.
    apply(
        &mut state,
        &event(
            "Page.navigatedWithinDocument",
            json!({"frameId": "main", "url": "http://a/other"}),
        ),
    );
    assert_eq!(state.url_epoch, epoch + 1);
}

#[test]
fn child_frames_do_not_move_the_tab() {
    let mut state = loaded();
    let before = (state.url.clone(), state.url_epoch, state.loading);
    assert!(!apply(
        &mut state,
        &event(
            "Page.frameNavigated",
            json!({"frame": {"id": "child", "parentId": "main", "loaderId": "C", "url": "http://b/"}}),
        )
    ));
    assert!(!apply(
        &mut state,
        &event("Page.frameStartedLoading", json!({"frameId": "child"}))
    ));
    assert!(!apply(&mut state, &context(7, "child", true)));
    assert_eq!((state.url.clone(), state.url_epoch, state.loading), before);
    assert_eq!(state.main_context, Some(1));
}

#[test]
fn a_failed_document_is_an_error_page_under_the_url_asked_for() {
    let mut state = loaded();
    assert!(!apply(
        &mut state,
        &event(
            "Network.loadingFailed",
            json!({"requestId": "r", "type": "Document", "errorText": "net::ERR_CONNECTION_REFUSED"}),
        )
    ));
    apply(
        &mut state,
        &event(
            "Page.frameNavigated",
            json!({"frame": {"id": "main", "loaderId": "L3", "url": "chrome-error://chromewebdata/",
                             "unreachableUrl": "http://down/"}}),
        ),
    );
    assert_eq!(state.url, "http://down/");
    assert_eq!(state.failed.as_deref(), Some("net::ERR_CONNECTION_REFUSED"));
    // An error page may stop loading without a load event of its own.
    apply(
        &mut state,
        &event("Page.frameStoppedLoading", json!({"frameId": "main"})),
    );
    assert!(!state.loading);
    assert_eq!(state.loaded_loader.as_deref(), Some("L3"));
    // A cancelled document load is no failure.
    let mut fresh = loaded();
    apply(
        &mut fresh,
        &event(
            "Network.loadingFailed",
            json!({"requestId": "r", "type": "Document", "errorText": "net::ERR_ABORTED", "canceled": true}),
        ),
    );
    apply(&mut fresh, &navigated("main", "L4", "http://a/2"));
    assert!(fresh.failed.is_none());
}

#[test]
fn a_crash_clears_what_the_renderer_held_and_a_new_document_clears_the_crash() {
    let mut state = loaded();
    state.unresponsive = true;
    state.navigating = Some("http://a/next".into());
    assert!(apply(
        &mut state,
        &event("Inspector.targetCrashed", json!({}))
    ));
    assert!(state.crashed && !state.unresponsive && !state.loading);
    assert!(state.navigating.is_none() && state.main_context.is_none());
    apply(&mut state, &navigated("main", "L5", "http://a/"));
    assert!(!state.crashed && state.loading);
}

fn world(id: i64, frame: &str, name: &str) -> RawEvent {
    event(
        "Runtime.executionContextCreated",
        json!({"context": {"id": id, "name": name, "uniqueId": format!("u{id}"),
            "auxData": {"frameId": frame, "isDefault": false, "type": "isolated"}}}),
    )
}

fn destroyed(id: i64) -> RawEvent {
    event(
        "Runtime.executionContextDestroyed",
        json!({ "executionContextId": id }),
    )
}

/// The main frame's contexts of the page's world and of candor's are followed; another
/// isolated world, and any context of a child frame, are not.
#[test]
fn execution_contexts_of_the_main_frame_in_the_page_world_and_candors() {
    let mut state = loaded();
    assert!(
        !apply(&mut state, &world(2, "main", "someone-else")),
        "another isolated world"
    );
    assert!(!apply(&mut state, &world(5, "child", "candor")));
    assert!(apply(&mut state, &world(4, "main", "candor")));
    let candor = state.candor_context.clone().map(|c| (c.id, c.unique));
    assert_eq!(candor, Some((4, Some("u4".into()))));
    assert_eq!(state.main_context, Some(1));
    assert!(!apply(&mut state, &destroyed(2)));
    assert!(apply(&mut state, &destroyed(1)));
    assert_eq!(state.main_context, None);
    assert!(state.candor_context.is_some());
    assert!(apply(&mut state, &destroyed(4)));
    assert!(state.candor_context.is_none());
    apply(&mut state, &context(3, "main", true));
    apply(&mut state, &world(6, "main", "candor"));
    assert!(apply(
        &mut state,
        &event("Runtime.executionContextsCleared", json!({}))
    ));
    assert_eq!(state.main_context, None);
    assert!(state.candor_context.is_none());
    apply(&mut state, &world(7, "main", "candor"));
    apply(&mut state, &event("Inspector.targetCrashed", json!({})));
    assert!(state.candor_context.is_none());
}

#[test]
fn a_detached_target_is_closed_and_unknown_events_change_nothing() {
    let mut state = loaded();
    assert!(!apply(
        &mut state,
        &event("Page.somethingNew", json!({"x": 1}))
    ));
    assert!(!state.closed);
    assert!(apply(
        &mut state,
        &event("Inspector.detached", json!({"reason": "target_closed"}))
    ));
    assert!(state.closed);
}
