//! One tab: its flattened session, its load state kept current from CDP events, and
//! the operations on it (navigation, history, page-side scripts).
//!
//! Load state is three separate facts (docs/faults.md#load-state): `loading`, `failed` (a transport error
//! page, with its `net::ERR_*`) and `unverified` (the page could not be asked). None is
//! inferred from another. A crashed renderer is a fourth fact, reported on next use.

mod events;
mod navigation;
mod world;

pub(crate) mod control;
pub(crate) mod dialogs;
pub(crate) mod probe;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use cdp::protocol::{network, page, performance, runtime, target};
use cdp::{Deadline, Session};
use tokio::sync::watch;

use crate::Error;
use crate::tab::dialogs::DialogRecord;

/// What is known about a tab's page, updated from events in the order they came.
#[derive(Debug, Clone, Default)]
pub struct PageState {
    pub url: String,
    pub title: String,
    /// A document is loading and its load event has not fired.
    pub loading: bool,
    /// The last navigation ended on a transport error page: the `net::ERR_*` text.
    pub failed: Option<String>,
    /// The last page-side read could not get an answer.
    pub unverified: bool,
    /// The renderer crashed; a reload recovers.
    pub crashed: bool,
    /// The last probe got no answer within its budget (the page runs script that never
    /// returns); cleared by the next answer, a new document, or a crash.
    pub unresponsive: bool,
    /// A main-frame navigation to this URL started and has not committed, failed or
    /// stopped. Meanwhile Chromium holds every message meant for the page, so a probe
    /// that goes unanswered says nothing about the page.
    pub navigating: Option<String>,
    /// The target is gone.
    pub closed: bool,
    /// Counts changes of the page's URL (fragment aside); refs carry the epoch they were
    /// taken in and are refused in any other.
    pub url_epoch: u64,
    /// Out-of-process iframes: their frame (target) id and flattened session.
    pub(crate) child_frames: Vec<(String, cdp::SessionId)>,
    /// A dialog waiting for an answer (policy `ask`); the page is blocked meanwhile.
    pub open_dialog: Option<DialogRecord>,
    /// How many JavaScript dialogs this tab has had; they are in its dialog log
    /// ([`Tab::dialogs_since`]).
    pub dialogs_seen: u64,
    /// When the page last answered a probe (`probe.rs`).
    pub(crate) probe_answered_at: Option<Instant>,
    /// File choosers intercepted so far, and the input of the last one.
    pub(crate) file_choosers: u64,
    pub(crate) file_chooser_input: Option<i64>,
    pub(crate) main_frame: String,
    pub(crate) loader: Option<String>,
    pub(crate) loaded_loader: Option<String>,
    pub(crate) main_context: Option<i64>,
    /// The main frame's context of candor's isolated world (see `world.rs`).
    pub(crate) candor_context: Option<crate::script::Context>,
    /// Counts main-frame commits and same-document navigations.
    pub(crate) navigations: u64,
    document_error: Option<String>,
}

/// How a navigation ended.
#[derive(Debug, Clone)]
pub struct LoadOutcome {
    /// The load event fired before the deadline.
    pub loaded: bool,
    /// It was a same-document navigation (fragment or history API).
    pub same_document: bool,
    pub waited: Duration,
    /// Why `loaded` is false: the navigation committed, and its load did not finish.
    pub unfinished: Option<Unfinished>,
}

/// Why a committed navigation's load did not finish.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unfinished {
    /// The load event had not fired by the deadline (a slow or endless body).
    Deadline,
    /// The page stopped answering probes while it loaded (script that never returns).
    Unresponsive,
}

/// What a dispatched navigation is known by until it commits.
enum Pending {
    /// `Page.navigate` named its loader.
    Loader { loader: String, was_crashed: bool },
    /// Reload and history moves: the next main-frame commit after `before`.
    Since { before: u64, was_crashed: bool },
}

pub(crate) struct TabShared {
    pub(crate) label: String,
    target_id: String,
    pub(crate) session: Session,
    pub(crate) state: watch::Sender<PageState>,
    snapshots: std::sync::Mutex<crate::snapshot::SnapshotMemory>,
    /// What the last settled read showed (`settle.rs`).
    pub(crate) reads: std::sync::Mutex<crate::settle::ReadHistory>,
    /// The viewport preset; it persists until changed (`viewport.rs`).
    viewport: std::sync::Mutex<crate::viewport::Preset>,
    /// Dialogs wait for `answer_dialog` instead of being answered at once.
    pub(crate) ask_dialogs: std::sync::atomic::AtomicBool,
    /// Every dialog of the tab (the last thousand kept), for `Tab::dialogs_since`.
    pub(crate) dialog_log: std::sync::Mutex<crate::tab::dialogs::DialogLog>,
    /// The probe budget in milliseconds (`probe.rs`).
    unresponsive_ms: AtomicU64,
    /// The browser's control renderer, against which an unanswered probe is judged.
    pub(crate) control: Arc<crate::tab::control::Control>,
    /// candor's world in each out-of-process frame, made on first use (`world.rs`).
    pub(crate) frame_worlds: world::FrameWorlds,
    /// What the page logged, threw and fetched (`logs/`).
    pub(crate) log: std::sync::Mutex<crate::logs::TabLog>,
    /// The browser's product (`HeadlessChrome/156.0.…`) and own user agent, which the
    /// presets' user agents are made from (`viewport.rs`).
    pub(crate) browser_agent: (String, String),
    /// The task's proxy, when it has one: its navigations' errors name it (`proxy.rs`).
    pub(crate) proxy: std::sync::OnceLock<Arc<crate::proxy::Route>>,
}

/// A tab of a task. Cheap to clone.
#[derive(Clone)]
pub struct Tab {
    pub(crate) shared: Arc<TabShared>,
}

impl std::fmt::Debug for Tab {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tab")
            .field("label", &self.shared.label)
            .field("target", &self.shared.target_id)
            .finish()
    }
}

impl Tab {
    /// Attaches to `target_id`, starts following its events and enables the domains
    /// load-state tracking needs (in parallel: one round trip of latency, not five).
    pub(crate) async fn attach(
        browser: &crate::Browser,
        label: String,
        target_id: String,
        deadline: Deadline,
    ) -> Result<Tab, Error> {
        let browser_session = browser.connection().browser_session();
        let attached = browser_session
            .call(
                &target::AttachToTarget {
                    target_id: target_id.clone(),
                    flatten: true,
                },
                deadline,
            )
            .await?;
        let session = browser_session.connection().session(attached.session_id);
        let (state, _) = watch::channel(PageState {
            url: "about:blank".into(),
            main_frame: target_id.clone(),
            ..PageState::default()
        });
        let shared = Arc::new(TabShared {
            label,
            target_id,
            session: session.clone(),
            state,
            snapshots: std::sync::Mutex::default(),
            reads: std::sync::Mutex::default(),
            ask_dialogs: std::sync::atomic::AtomicBool::new(false),
            dialog_log: std::sync::Mutex::default(),
            unresponsive_ms: AtomicU64::new(
                crate::tab::probe::DEFAULT_UNRESPONSIVE.as_millis() as u64
            ),
            viewport: std::sync::Mutex::default(),
            control: browser.control(),
            frame_worlds: world::FrameWorlds::default(),
            log: std::sync::Mutex::default(),
            browser_agent: (
                browser.product().to_string(),
                browser.user_agent().to_string(),
            ),
            proxy: std::sync::OnceLock::new(),
        });
        let followed = Arc::downgrade(&shared);
        session.connection().on_events(
            session.id().cloned(),
            Arc::new(move |event| events::follow_event(&followed, event)),
        );
        let tab = Tab { shared };
        browser.register(&tab, Arc::downgrade(&tab.shared));
        let network = network::Enable::default();
        let enabled = async {
            tokio::try_join!(
                session.call(&page::Enable {}, deadline),
                session.call(&page::SetLifecycleEventsEnabled { enabled: true }, deadline),
                session.call(&runtime::Enable {}, deadline),
                session.call(&network, deadline),
                session.call(
                    &target::SetAutoAttach {
                        auto_attach: true,
                        wait_for_debugger_on_start: false,
                        flatten: true,
                    },
                    deadline
                ),
            )
        };
        // The page's CPU time, which the probe reads when the page stops answering
        // (`probe.rs`); it must be enabled while the page still answers. A browser
        // without it (a tape recorded before) only costs the probe that evidence.
        let (enabled, metrics) =
            tokio::join!(enabled, session.call(&performance::Enable {}, deadline));
        enabled?;
        if let Err(err) = metrics {
            tracing::debug!(%err, tab = tab.label(), "no CPU time for the probe");
        }
        Ok(tab)
    }

    pub(crate) fn from_shared(shared: Arc<TabShared>) -> Tab {
        Tab { shared }
    }

    pub(crate) fn viewport_cell(&self) -> &std::sync::Mutex<crate::viewport::Preset> {
        &self.shared.viewport
    }

    /// The task-local id, e.g. `tab0`.
    pub fn label(&self) -> &str {
        &self.shared.label
    }

    pub fn target_id(&self) -> &str {
        &self.shared.target_id
    }

    pub(crate) fn snapshot_memory(&self) -> &std::sync::Mutex<crate::snapshot::SnapshotMemory> {
        &self.shared.snapshots
    }

    /// The tab's CDP session: the raw escape hatch for methods the engine does not wrap.
    pub fn session(&self) -> &Session {
        &self.shared.session
    }

    /// The page state as of the last event processed.
    pub fn state(&self) -> PageState {
        self.shared.state.borrow().clone()
    }

    pub(crate) fn update(&self, change: impl FnOnce(&mut PageState)) {
        self.shared.state.send_modify(change);
    }

    /// Refuses work on a tab that is gone or crashed.
    pub(crate) fn check_usable(&self) -> Result<(), Error> {
        let state = self.shared.state.borrow();
        if state.closed {
            return Err(Error::TabNotFound {
                tab: self.shared.label.clone(),
            });
        }
        if state.crashed {
            return Err(Error::TargetCrashed {
                tab: self.shared.label.clone(),
            });
        }
        if self.shared.session.connection().is_closed() {
            return Err(Error::Disconnected);
        }
        if let Some(dialog) = &state.open_dialog {
            return Err(Error::DialogOpen {
                tab: self.shared.label.clone(),
                kind: dialog.kind.clone(),
                message: dialog.message.clone(),
            });
        }
        Ok(())
    }

    /// Refuses to read a tab that shows a transport error page (docs/faults.md#load-state): it is not the
    /// site, and must never be read or photographed as if it were.
    pub fn check_loaded(&self) -> Result<(), Error> {
        let state = self.state();
        match state.failed {
            Some(error_text) => Err(Error::PageLoadFailed {
                tab: self.label().to_string(),
                url: state.url,
                error_text,
            }),
            None => Ok(()),
        }
    }

    /// The probe budget of this tab's task (see `probe.rs`).
    pub fn unresponsive_budget(&self) -> Duration {
        Duration::from_millis(self.shared.unresponsive_ms.load(Ordering::Relaxed))
    }

    pub(crate) fn set_unresponsive_budget(&self, budget: Duration) {
        let ms = budget.as_millis().clamp(1, u64::MAX as u128) as u64;
        self.shared.unresponsive_ms.store(ms, Ordering::Relaxed);
    }

    /// For a page that was already running when we attached (a popup): reads its URL,
    /// document and load state now, since the events that told them came before us.
    pub(crate) async fn sync_attached(&self, deadline: Deadline) {
        let Ok(tree) = self
            .shared
            .session
            .call(&page::GetFrameTree {}, deadline)
            .await
        else {
            return;
        };
        // Read in candor's world, where the page cannot redefine `readyState`; the
        // document predates the init script that gives new ones that world, so it is
        // made here. No world, no answer: as when the page does not answer.
        let world = self.candor_context_now(deadline).await.ok().flatten();
        let ready = match world {
            Some(world) => self
                .shared
                .session
                .call(
                    &runtime::Evaluate {
                        expression: "document.readyState".into(),
                        context_id: Some(world.id),
                        return_by_value: Some(true),
                        ..Default::default()
                    },
                    deadline,
                )
                .await
                .ok()
                .and_then(|r| r.result.value)
                .and_then(|v| v.as_str().map(str::to_string)),
            None => None,
        };
        // The URL the opener asked for; while the frame still shows the initial blank
        // document, that navigation is yet to commit.
        let wanted = self
            .shared
            .session
            .connection()
            .browser_session()
            .call(
                &target::GetTargetInfo {
                    target_id: self.shared.target_id.clone(),
                },
                deadline,
            )
            .await
            .map(|info| info.target_info.url)
            .unwrap_or_default();
        let frame = tree.frame_tree.frame;
        let pending = frame.url == "about:blank" && !wanted.is_empty() && wanted != "about:blank";
        self.update(|s| {
            if s.navigations == 0 {
                s.main_frame = frame.id;
                s.url = frame.unreachable_url.clone().unwrap_or(frame.url);
                s.loader = Some(frame.loader_id.clone());
                if ready.as_deref() == Some("complete") && !pending {
                    s.loaded_loader = Some(frame.loader_id);
                    s.loading = false;
                } else {
                    s.loading = true;
                }
            }
        });
        let _ = self.refresh_info(deadline).await;
    }

    /// Title and URL as the browser reports them now.
    pub async fn refresh_info(&self, deadline: Deadline) -> Result<PageState, Error> {
        let browser = self.shared.session.connection().browser_session();
        let info = browser
            .call(
                &target::GetTargetInfo {
                    target_id: self.shared.target_id.clone(),
                },
                deadline,
            )
            .await?;
        self.update(|s| {
            // Between a failed navigation and its error page the target has no URL;
            // what was asked for stays the page's URL.
            if !info.target_info.url.is_empty() && s.failed.is_none() {
                s.url = info.target_info.url;
                s.title = info.target_info.title;
            }
        });
        Ok(self.state())
    }
}
