//! The tab's event reducer: CDP events of its session folded into its `PageState`, so
//! the load state is kept current without asking the page.

use cdp::RawEvent;
use cdp::protocol::{inspector, network, page, runtime, target};

use super::{PageState, TabShared};

/// Keeps a tab's [`PageState`] current; runs on the connection's reader, so the state
/// is never behind a reply. Returns false (unsubscribe) once the tab is gone.
pub(super) fn follow_event(tab: &std::sync::Weak<TabShared>, event: &RawEvent) -> bool {
    let Some(tab) = tab.upgrade() else {
        return false;
    };
    if let Some(dialog) = event.parse::<page::JavascriptDialogOpening>() {
        crate::tab::dialogs::on_opening(&tab, dialog);
    }
    if crate::logs::LOGGED.contains(&event.method.as_str()) {
        let main_frame = tab.state.borrow().main_frame.clone();
        tab.log
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .apply(event, &main_frame);
    }
    tab.state.send_if_modified(|state| apply(state, event));
    event.method != <inspector::Detached as cdp::protocol::Event>::METHOD
}

/// Applies one event to the state; returns whether anything changed.
pub(super) fn apply(state: &mut PageState, event: &RawEvent) -> bool {
    if let Some(e) = event.parse::<page::FrameNavigated>() {
        if e.frame.parent_id.is_some() {
            return false;
        }
        state.main_frame = e.frame.id;
        let url = e.frame.unreachable_url.clone().unwrap_or(e.frame.url);
        if without_fragment(&url) != without_fragment(&state.url) {
            state.url_epoch += 1;
        }
        state.url = url;
        state.failed = e.frame.unreachable_url.map(|_| {
            state
                .document_error
                .take()
                .unwrap_or_else(|| "net::ERR_FAILED".into())
        });
        state.loader = Some(e.frame.loader_id);
        state.loading = true;
        state.crashed = false;
        state.unresponsive = false;
        state.navigating = None;
        state.navigations += 1;
        return true;
    }
    if let Some(e) = event.parse::<page::FrameStartedNavigating>() {
        let same_document = e
            .navigation_type
            .as_deref()
            .is_some_and(|t| t.to_ascii_lowercase().contains("samedocument"));
        if e.frame_id != state.main_frame || same_document {
            return false;
        }
        state.navigating = Some(e.url);
        return true;
    }
    if let Some(e) = event.parse::<page::NavigatedWithinDocument>() {
        if e.frame_id != state.main_frame {
            return false;
        }
        if without_fragment(&e.url) != without_fragment(&state.url) {
            state.url_epoch += 1;
        }
        state.url = e.url;
        state.navigating = None;
        state.navigations += 1;
        return true;
    }
    if event.parse::<page::JavascriptDialogClosed>().is_some() && state.open_dialog.is_some() {
        state.open_dialog = None;
        return true;
    }
    if let Some(e) = event.parse::<page::FileChooserOpened>() {
        state.file_choosers += 1;
        state.file_chooser_input = e.backend_node_id;
        return true;
    }
    if let Some(e) = event.parse::<target::AttachedToTarget>() {
        if e.target_info.r#type != target::TargetType::Iframe {
            return false;
        }
        state
            .child_frames
            .retain(|(frame, _)| *frame != e.target_info.target_id);
        state
            .child_frames
            .push((e.target_info.target_id, e.session_id));
        return true;
    }
    if let Some(e) = event.parse::<target::DetachedFromTarget>() {
        let before = state.child_frames.len();
        state
            .child_frames
            .retain(|(_, session)| *session != e.session_id);
        return state.child_frames.len() != before;
    }

    if let Some(e) = event.parse::<page::FrameStartedLoading>() {
        if e.frame_id != state.main_frame {
            return false;
        }
        state.loading = true;
        return true;
    }
    if let Some(e) = event.parse::<page::FrameStoppedLoading>() {
        if e.frame_id != state.main_frame {
            return false;
        }
        state.loading = false;
        state.navigating = None;
        // An error page may stop loading without a load event for its loader.
        if state.failed.is_some() {
            state.loaded_loader = state.loader.clone();
        }
        return true;
    }
    if let Some(e) = event.parse::<page::LifecycleEvent>() {
        if e.frame_id != state.main_frame || e.name != "load" {
            return false;
        }
        if state.loader.as_deref() == Some(e.loader_id.as_str()) {
            state.loading = false;
        }
        state.loaded_loader = Some(e.loader_id);
        return true;
    }
    if let Some(e) = event.parse::<network::LoadingFailed>() {
        if e.r#type.as_deref() != Some("Document") || e.canceled == Some(true) {
            return false;
        }
        state.document_error = Some(e.error_text);
        return false;
    }
    if let Some(e) = event.parse::<runtime::ExecutionContextCreated>() {
        let context = e.context;
        return match context.frame() {
            Some((frame, true)) if frame == state.main_frame => {
                state.main_context = Some(context.id);
                true
            }
            Some((frame, false))
                if frame == state.main_frame
                    && context.is_isolated_world(crate::script::World::CANDOR_NAME) =>
            {
                state.candor_context = Some(crate::script::Context {
                    id: context.id,
                    unique: context.unique_id,
                });
                true
            }
            _ => false,
        };
    }
    if let Some(e) = event.parse::<runtime::ExecutionContextDestroyed>() {
        let id = Some(e.execution_context_id);
        let mut changed = false;
        if state.main_context == id {
            state.main_context = None;
            changed = true;
        }
        if state.candor_context.as_ref().map(|c| c.id) == id {
            state.candor_context = None;
            changed = true;
        }
        return changed;
    }
    if event.parse::<runtime::ExecutionContextsCleared>().is_some() {
        state.main_context = None;
        state.candor_context = None;
        return true;
    }
    if event.parse::<inspector::TargetCrashed>().is_some() {
        state.crashed = true;
        state.unresponsive = false;
        state.navigating = None;
        state.loading = false;
        state.main_context = None;
        state.candor_context = None;
        return true;
    }
    if event.parse::<inspector::Detached>().is_some() {
        state.closed = true;
        return true;
    }
    false
}

/// The URL without its `#fragment`: moving within a page is not a new page.
fn without_fragment(url: &str) -> &str {
    url.split_once('#').map_or(url, |(base, _)| base)
}

#[cfg(test)]
#[path = "events_tests.rs"]
mod tests;
