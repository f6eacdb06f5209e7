//! One tab: its flattened session, its load state kept current from CDP events, and
//! the operations on it (navigation, history, page-side scripts).
//!
//! Load state is three separate facts (docs/faults.md#load-state): `loading`, `failed` (a transport error
//! page, with its `net::ERR_*`) and `unverified` (the page could not be asked). None is
//! inferred from another. A crashed renderer is a fourth fact, reported on next use.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use cdp::protocol::{inspector, network, page, performance, runtime, target};
use cdp::{Deadline, RawEvent, Session};
use tokio::sync::watch;
use url::Url;

use crate::Error;
use crate::dialogs::DialogRecord;

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
    pub(crate) candor_context: Option<crate::world::Context>,
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
    /// The viewport preset; it persists until changed (`viewport.rs`).
    viewport: std::sync::Mutex<crate::viewport::Preset>,
    /// Dialogs wait for `answer_dialog` instead of being answered at once.
    pub(crate) ask_dialogs: std::sync::atomic::AtomicBool,
    /// Every dialog of the tab (the last thousand kept), for `Tab::dialogs_since`.
    pub(crate) dialog_log: std::sync::Mutex<crate::dialogs::DialogLog>,
    /// The probe budget in milliseconds (`probe.rs`).
    unresponsive_ms: AtomicU64,
    /// The browser's control renderer, against which an unanswered probe is judged.
    pub(crate) control: Arc<crate::control::Control>,
    /// candor's world in each out-of-process frame, made on first use (`world.rs`).
    pub(crate) frame_worlds: crate::world::FrameWorlds,
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
            ask_dialogs: std::sync::atomic::AtomicBool::new(false),
            dialog_log: std::sync::Mutex::default(),
            unresponsive_ms: AtomicU64::new(crate::probe::DEFAULT_UNRESPONSIVE.as_millis() as u64),
            viewport: std::sync::Mutex::default(),
            control: browser.control(),
            frame_worlds: crate::world::FrameWorlds::default(),
        });
        let followed = Arc::downgrade(&shared);
        session.connection().on_events(
            session.id().cloned(),
            Arc::new(move |event| follow_event(&followed, event)),
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

    /// Navigates to `url` (already checked against the task's policy) and waits for it
    /// to commit and load (see `Tab::settle_navigation`). A crashed tab may navigate:
    /// that is how it recovers.
    pub async fn navigate(&self, url: &Url, deadline: Deadline) -> Result<LoadOutcome, Error> {
        self.check_navigable()?;
        let started = Instant::now();
        let was_crashed = self.state().crashed;
        let sent = self
            .shared
            .session
            .call(
                &page::Navigate {
                    url: url.to_string(),
                },
                deadline,
            )
            .await;
        let reply = match sent {
            Ok(reply) => reply,
            // No answer from the server yet: the navigation never committed.
            Err(cdp::Error::Timeout { .. }) => {
                return Err(self.navigation_timeout(url.as_str(), started));
            }
            Err(other) => return Err(other.into()),
        };
        if let Some(error_text) = reply.error_text.filter(|t| !t.is_empty()) {
            self.update(|s| {
                s.url = url.to_string();
                s.title = String::new();
                s.failed = Some(error_text.clone());

                s.loading = false;
            });
            return Err(Error::NavigationFailed {
                url: url.to_string(),
                error_text,
            });
        }
        let Some(loader) = reply.loader_id else {
            return Ok(LoadOutcome {
                loaded: true,
                same_document: true,
                waited: started.elapsed(),
                unfinished: None,
            });
        };
        self.settle_navigation(
            Pending::Loader {
                loader,
                was_crashed,
            },
            url.as_str(),
            started,
            deadline,
        )
        .await
    }

    /// Goes one entry back or forward in the tab's history.
    pub async fn go(
        &self,
        step: crate::HistoryMove,
        deadline: Deadline,
    ) -> Result<LoadOutcome, Error> {
        self.check_navigable()?;
        let started = Instant::now();
        let was_crashed = self.state().crashed;
        let history = self
            .shared
            .session
            .call(&page::GetNavigationHistory {}, deadline)
            .await?;
        let index = match step {
            crate::HistoryMove::Back => history.current_index.checked_sub(1),
            crate::HistoryMove::Forward => Some(history.current_index + 1),
        };
        let Some(entry) = index.and_then(|i| history.entries.get(i)) else {
            return Err(Error::InvalidParams {
                what: format!("{:?}", step).to_lowercase(),
                reason: format!("{} has no {} history entry", self.label(), step.adjective()),
            });
        };
        self.history_move(entry.id, &entry.url, was_crashed, started, deadline)
            .await
    }

    /// Goes to the history entry `entry` (whose URL is `url`), as back and forward do.
    pub(crate) async fn go_to_entry(
        &self,
        entry: i64,
        url: &str,
        deadline: Deadline,
    ) -> Result<LoadOutcome, Error> {
        self.check_navigable()?;
        let was_crashed = self.state().crashed;
        self.history_move(entry, url, was_crashed, Instant::now(), deadline)
            .await
    }

    async fn history_move(
        &self,
        entry: i64,
        url: &str,
        was_crashed: bool,
        started: Instant,
        deadline: Deadline,
    ) -> Result<LoadOutcome, Error> {
        let before = self.state().navigations;
        self.shared
            .session
            .call(&page::NavigateToHistoryEntry { entry_id: entry }, deadline)
            .await?;
        let pending = Pending::Since {
            before,
            was_crashed,
        };
        self.settle_navigation(pending, url, started, deadline)
            .await
    }

    /// Reloads the page (bypassing the cache when asked). Also recovers a crashed tab.
    pub async fn reload(
        &self,
        ignore_cache: bool,
        deadline: Deadline,
    ) -> Result<LoadOutcome, Error> {
        self.check_navigable()?;
        let started = Instant::now();
        let before = self.state().navigations;
        let url = self.state().url;
        // A reload is how a crashed tab recovers: the old crash does not end the wait.
        let was_crashed = self.state().crashed;
        self.shared
            .session
            .call(
                &page::Reload {
                    ignore_cache: Some(ignore_cache),
                },
                deadline,
            )
            .await?;
        let pending = Pending::Since {
            before,
            was_crashed,
        };
        self.settle_navigation(pending, &url, started, deadline)
            .await
    }

    /// A dispatched navigation: waits for it to commit (by `deadline`; one that never
    /// does is stopped at once and named: `NavigationTimeout`), then for
    /// its load event until `deadline` (not an error: `loaded:false`, `Unfinished`).
    /// Meanwhile the page is probed: one that stops answering ends the wait at the probe
    /// point — `PageUnresponsive` before the commit, `Unfinished::Unresponsive` after.
    async fn settle_navigation(
        &self,
        pending: Pending,
        url: &str,
        started: Instant,
        deadline: Deadline,
    ) -> Result<LoadOutcome, Error> {
        let committed = |s: &PageState| match &pending {
            Pending::Loader { loader, .. } => s.loader.as_deref() == Some(loader.as_str()),
            Pending::Since { before, .. } => s.navigations > *before,
        };
        let was_crashed = match &pending {
            Pending::Loader { was_crashed, .. } | Pending::Since { was_crashed, .. } => {
                *was_crashed
            }
        };
        let work = async {
            let commit = self
                .wait_state("the navigation to commit", deadline, started, |s| {
                    committed(s) || s.crashed && !was_crashed || s.closed
                })
                .await;
            let state = match commit {
                Ok(state) => state,
                Err(Error::Timeout { .. }) => {
                    return Err(self.navigation_timeout(url, started));
                }
                Err(other) => return Err(other),
            };
            if !committed(&state) {
                self.check_usable()?;
            }
            match state.loader.clone() {
                Some(loader) if state.loaded_loader.as_ref() != Some(&loader) || state.loading => {
                    self.wait_loaded(&loader, url, started, deadline).await
                }
                _ => self.finish(url, started, matches!(pending, Pending::Since { .. })),
            }
        };
        tokio::select! {
            outcome = work => outcome,
            unresponsive = self.watch(self.unresponsive_budget()) => {
                if committed(&self.state()) {
                    Ok(LoadOutcome {
                        loaded: false,
                        same_document: false,
                        waited: started.elapsed(),
                        unfinished: Some(Unfinished::Unresponsive),
                    })
                } else {
                    Err(unresponsive)
                }
            }
        }
    }

    /// The navigation to `url` did not commit in time: sends the stop (so it no longer
    /// holds the tab's messages; the next command's calls reach the browser after it)
    /// without waiting, so the answer comes at the deadline, and names it.
    fn navigation_timeout(&self, url: &str, started: Instant) -> Error {
        let stopped = self.shared.session.send(&page::StopLoading {}).is_ok();
        Error::NavigationTimeout {
            url: url.to_string(),
            after: started.elapsed(),
            stopped,
        }
    }

    /// Waits for the load event of `loader`; a deadline here is not an error, the page
    /// is reported as still loading.
    async fn wait_loaded(
        &self,
        loader: &str,
        url: &str,
        started: Instant,
        deadline: Deadline,
    ) -> Result<LoadOutcome, Error> {
        let loaded = self
            .wait_state("the load event", deadline, started, |s| {
                s.loaded_loader.as_deref() == Some(loader)
                    || s.failed.is_some() && s.loader.as_deref() == Some(loader)
                    || s.crashed
                    || s.closed
            })
            .await;
        match loaded {
            Ok(_) => self.finish(url, started, false),
            Err(Error::Timeout { .. }) => Ok(LoadOutcome {
                loaded: false,
                same_document: false,
                waited: started.elapsed(),
                unfinished: Some(Unfinished::Deadline),
            }),
            Err(other) => Err(other),
        }
    }

    fn finish(
        &self,
        url: &str,
        started: Instant,
        same_document: bool,
    ) -> Result<LoadOutcome, Error> {
        self.check_usable()?;
        if let Some(error_text) = self.state().failed {
            return Err(Error::NavigationFailed {
                url: url.to_string(),
                error_text,
            });
        }
        Ok(LoadOutcome {
            loaded: true,
            same_document,
            waited: started.elapsed(),
            unfinished: None,
        })
    }

    /// Refuses a navigation on a tab that is gone (a crashed one may navigate).
    fn check_navigable(&self) -> Result<(), Error> {
        match self.check_usable() {
            Err(Error::TargetCrashed { .. }) | Ok(()) => Ok(()),
            Err(other) => Err(other),
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

    /// Waits until `condition` holds for the page state, or the deadline; the timeout
    /// error names `waiting_for`.
    pub async fn wait_state(
        &self,
        waiting_for: &str,
        deadline: Deadline,
        started: Instant,
        condition: impl FnMut(&PageState) -> bool,
    ) -> Result<PageState, Error> {
        let mut state = self.shared.state.subscribe();
        match tokio::time::timeout_at(deadline.at().into(), state.wait_for(condition)).await {
            Ok(Ok(state)) => Ok(state.clone()),
            Ok(Err(_)) => Err(Error::Disconnected),
            Err(_) => Err(Error::Timeout {
                waiting_for: format!("{waiting_for} in {}", self.label()),
                after: started.elapsed(),
            }),
        }
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

    /// Waits (within `deadline`, at most ten seconds) until the tab is not loading; says
    /// whether it got there.
    pub async fn wait_until_loaded(&self, deadline: Deadline) -> bool {
        let limit = deadline.within(Duration::from_secs(10));
        self.wait_state("the tab to load", limit, Instant::now(), |s| {
            !s.loading || s.failed.is_some() || s.crashed || s.closed
        })
        .await
        .is_ok()
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

/// Keeps a tab's [`PageState`] current; runs on the connection's reader, so the state
/// is never behind a reply. Returns false (unsubscribe) once the tab is gone.
fn follow_event(tab: &std::sync::Weak<TabShared>, event: &RawEvent) -> bool {
    let Some(tab) = tab.upgrade() else {
        return false;
    };
    if let Some(dialog) = event.parse::<page::JavascriptDialogOpening>() {
        crate::dialogs::on_opening(&tab, dialog);
    }
    tab.state.send_if_modified(|state| apply(state, event));
    event.method != <inspector::Detached as cdp::protocol::Event>::METHOD
}

/// Applies one event to the state; returns whether anything changed.
fn apply(state: &mut PageState, event: &RawEvent) -> bool {
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
                state.candor_context = Some(crate::world::Context {
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
#[path = "tab_tests.rs"]
mod tests;
