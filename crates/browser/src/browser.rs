//! One Chromium: launched by us over a pipe, or attached over a WebSocket. Owns the CDP
//! connection and follows browser-level target events (titles, crashes, closes) for
//! every tab of every task.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};

use cdp::protocol::{browser as cdp_browser, target};
use cdp::{
    Connection, Deadline, PipeTransport, RawEvent, Recorder, ReplayTransport, Transport,
    WebSocketTransport,
};

use crate::Error;
use crate::grid::{GridOptions, GridSession};
use crate::launch::{ChromiumProcess, LaunchOptions};
use crate::tab::Tab;
use crate::tab::control::Control;

/// Where the browser comes from.
#[derive(Debug, Clone)]
pub enum Endpoint {
    /// Launch a local Chromium with a fresh profile.
    Launch(LaunchOptions),
    /// Attach to a running one: `ws://…` or `http://host:port` (its `/json/version`
    /// names the WebSocket).
    Attach(String),
    /// A Selenium Grid 4: each browser is a WebDriver session of its own, attached
    /// through the session's `se:cdp` WebSocket and deleted when the browser is closed.
    Grid(GridOptions),
    /// A pool of CDP endpoints (as for `Attach`): each browser attaches to the
    /// least-loaded one that is up ([`crate::EndpointPool`]).
    Pool(Vec<String>),
    /// No browser: play back a tape recorded with `record_cdp` (tests without Chromium).
    Replay(PathBuf),
}

#[derive(Debug, Clone)]
pub struct BrowserOptions {
    pub endpoint: Endpoint,
    /// Write every CDP message to this JSONL file.
    pub record_cdp: Option<PathBuf>,
}

impl Default for BrowserOptions {
    fn default() -> Self {
        Self {
            endpoint: Endpoint::Launch(LaunchOptions::default()),
            record_cdp: None,
        }
    }
}

struct Inner {
    connection: Connection,
    product: String,
    /// The browser's own user agent string.
    user_agent: String,
    tabs: Mutex<HashMap<String, Weak<crate::tab::TabShared>>>,
    /// Pages the browser opened by itself (popups, `target=_blank`), per browser
    /// context, waiting for their task to adopt them as tabs.
    opened: Mutex<HashMap<String, Vec<String>>>,
    opened_signal: tokio::sync::Notify,
    /// The control renderer its tabs' probes are judged against (`control.rs`).
    control: Arc<Control>,
    /// Where the browser was placed, held while it lives: a grid session (deleted when
    /// the browser is closed or dropped) or a pool endpoint's lease (its load).
    lease: Mutex<Option<Lease>>,
    // Declared last: dropped after the connection, then the process group is killed.
    process: Mutex<Option<ChromiumProcess>>,
}

/// What a browser placed on shared infrastructure holds while it lives.
#[derive(Debug)]
pub(crate) enum Lease {
    Grid(GridSession),
    /// Held, never read: the number of its clones is the endpoint's load.
    Pool {
        _load: Arc<()>,
    },
}

/// A connected browser. Cheap to clone; when the last clone is dropped, a browser we
/// launched is killed and its profile removed.
#[derive(Clone)]
pub struct Browser {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser")
            .field("product", &self.inner.product)
            .finish()
    }
}

impl Browser {
    /// Launches or attaches, and waits until the browser answers.
    ///
    /// A launched Chromium dies with the thread that spawned it (`PR_SET_PDEATHSIG`), so
    /// call this from a long-lived thread (a runtime worker or the main thread), never
    /// from `spawn_blocking`.
    pub async fn start(options: BrowserOptions, deadline: Deadline) -> Result<Browser, Error> {
        let recorder = match &options.record_cdp {
            Some(path) => Some(Arc::new(Recorder::create(path).map_err(|e| {
                Error::InvalidParams {
                    what: format!("--record-cdp {}", path.display()),
                    reason: e.to_string(),
                }
            })?)),
            None => None,
        };
        let mut lease = None;
        let (transport, mut process): (Box<dyn Transport>, _) =
            match &options.endpoint {
                Endpoint::Launch(launch) => {
                    let (process, pipes) = ChromiumProcess::spawn(launch)?;
                    let transport = PipeTransport::new(pipes.to_browser, pipes.from_browser)
                        .map_err(|e| Error::Launch {
                            executable: PathBuf::from("chromium"),
                            reason: e.to_string(),
                        })?;
                    (Box::new(transport), Some(process))
                }
                Endpoint::Attach(endpoint) => {
                    let ws = websocket_url(endpoint, deadline).await?;
                    (Box::new(WebSocketTransport::connect(&ws).await?), None)
                }
                Endpoint::Grid(grid) => {
                    // Held from here: any failure below drops it, which deletes the session.
                    let (session, ws) = GridSession::open(grid, deadline).await?;
                    lease = Some(Lease::Grid(session));
                    (Box::new(WebSocketTransport::connect(&ws).await?), None)
                }
                Endpoint::Pool(_) => {
                    // The load of a pool is shared by everything placed on it, so one
                    // `EndpointPool` places (a `tools::BrowserHost` keeps it).
                    return Err(Error::InvalidParams {
                        what: "the endpoint".into(),
                        reason: "a pool of CDP endpoints is attached through EndpointPool::connect"
                            .into(),
                    });
                }
                Endpoint::Replay(tape) => {
                    let replay = ReplayTransport::open(tape).map_err(|e| Error::Launch {
                        executable: tape.clone(),
                        reason: format!("cannot read the tape: {e}"),
                    })?;
                    (Box::new(replay), None)
                }
            };
        let connection = Connection::start(transport, recorder);
        let session = connection.browser_session();
        let ready = async {
            let version = session
                .call(&cdp_browser::GetVersion::default(), deadline)
                .await?;
            session
                .call(&target::SetDiscoverTargets { discover: true }, deadline)
                .await?;
            Ok::<_, cdp::Error>(version)
        };
        let version = match ready.await {
            Ok(version) => version,
            Err(err) => {
                return Err(match process.as_mut() {
                    Some(process) => process.failure(&err.to_string()),
                    None => err.into(),
                });
            }
        };
        tracing::debug!(product = %version.product, pid = ?process.as_ref().map(ChromiumProcess::pid), "browser ready");
        let control = Control::new(connection.clone());
        let inner = Arc::new(Inner {
            connection,
            product: version.product,
            user_agent: version.user_agent,
            tabs: Mutex::new(HashMap::new()),
            opened: Mutex::new(HashMap::new()),
            opened_signal: tokio::sync::Notify::new(),
            control,
            lease: Mutex::new(lease),
            process: Mutex::new(process),
        });
        let followed = Arc::downgrade(&inner);
        inner
            .connection
            .on_events(None, Arc::new(move |event| follow_target(&followed, event)));
        if inner.process.lock().is_ok_and(|process| process.is_some()) {
            let closing = inner.connection.closing();
            tokio::spawn(kill_when_given_up(Arc::downgrade(&inner), closing));
        }
        let grid_session = match &*inner.lease.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(Lease::Grid(session)) => Some(session.address()),
            _ => None,
        };
        if let Some((grid, id)) = grid_session {
            tokio::spawn(watch_grid_session(Arc::downgrade(&inner), grid, id));
        }
        Ok(Browser { inner })
    }

    /// e.g. `HeadlessChrome/156.0.8078.108`.
    pub fn product(&self) -> &str {
        &self.inner.product
    }

    /// The browser's own user agent string (a tab at `auto` sends it).
    pub fn user_agent(&self) -> &str {
        &self.inner.user_agent
    }

    pub fn connection(&self) -> &Connection {
        &self.inner.connection
    }

    pub fn is_connected(&self) -> bool {
        !self.inner.connection.is_closed()
    }

    /// The process id of a browser we launched.
    pub fn pid(&self) -> Option<u32> {
        self.lock_process().as_ref().map(ChromiumProcess::pid)
    }

    /// The profile directory of a browser we launched (a fresh one is removed when it
    /// exits; a persistent profile stays).
    pub fn user_data_dir(&self) -> Option<PathBuf> {
        self.lock_process()
            .as_ref()
            .map(|p| p.user_data_dir().to_path_buf())
    }

    /// Places this browser under `lease` (a pool endpoint's load).
    pub(crate) fn set_lease(&self, lease: Lease) {
        *self.inner.lease.lock().unwrap_or_else(|e| e.into_inner()) = Some(lease);
    }

    /// Whether this browser is a session of a Selenium Grid.
    pub fn on_grid(&self) -> bool {
        matches!(
            *self.inner.lease.lock().unwrap_or_else(|e| e.into_inner()),
            Some(Lease::Grid(_))
        )
    }

    /// Closes the browser: asks it to exit, then kills what is left and removes the
    /// profile. A grid session is deleted on the grid. An attached browser is only
    /// disconnected from.
    pub async fn close(&self, deadline: Deadline) {
        let lease = self
            .inner
            .lease
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(Lease::Grid(session)) = lease {
            session.delete(deadline).await;
        }
        let process = self.lock_process().take();
        if let Some(process) = process {
            let session = self.inner.connection.browser_session();
            let _ = session.call(&cdp_browser::Close {}, deadline).await;
            let _ =
                tokio::time::timeout_at(deadline.at().into(), self.inner.connection.closed()).await;
            drop(process);
        }
    }

    pub(crate) fn control(&self) -> Arc<Control> {
        Arc::clone(&self.inner.control)
    }

    pub(crate) fn register(&self, tab: &Tab, shared: Weak<crate::tab::TabShared>) {
        if let Ok(mut tabs) = self.inner.tabs.lock() {
            tabs.retain(|_, t| t.strong_count() > 0);
            tabs.insert(tab.target_id().to_string(), shared);
        }
    }

    /// Every tab registered in this browser, of any task, copied out of the list's lock
    /// (`buffers.rs` reads each tab's buffers after it is released).
    pub(crate) fn tab_list(&self) -> Vec<Weak<crate::tab::TabShared>> {
        self.inner
            .tabs
            .lock()
            .map(|tabs| tabs.values().cloned().collect())
            .unwrap_or_default()
    }

    /// Pages opened in `context` that no task has adopted yet (targets candor created
    /// itself are registered as tabs and left out). With `wait`, waits until `deadline`
    /// for the first.
    pub(crate) async fn take_opened(
        &self,
        context: &str,
        wait: bool,
        deadline: cdp::Deadline,
    ) -> Vec<String> {
        loop {
            // Register interest before looking, so a page opened in between is not missed.
            let signal = self.inner.opened_signal.notified();
            let found: Vec<String> = {
                let known: Vec<String> = self
                    .inner
                    .tabs
                    .lock()
                    .map(|tabs| tabs.keys().cloned().collect())
                    .unwrap_or_default();
                let mut opened = self.inner.opened.lock().unwrap_or_else(|e| e.into_inner());
                let list = opened.entry(context.to_string()).or_default();
                list.retain(|target| !known.contains(target));
                std::mem::take(list)
            };
            if !found.is_empty() || !wait || deadline.expired() {
                return found;
            }
            if tokio::time::timeout_at(deadline.at().into(), signal)
                .await
                .is_err()
            {
                return Vec::new();
            }
        }
    }

    /// Whether the browser still has the target `target_id` (asked within `deadline`; a
    /// refusal is no such target).
    pub(crate) async fn has_target(&self, target_id: &str, deadline: cdp::Deadline) -> bool {
        self.connection()
            .browser_session()
            .call(
                &target::GetTargetInfo {
                    target_id: target_id.to_string(),
                },
                deadline,
            )
            .await
            .is_ok()
    }

    fn lock_process(&self) -> std::sync::MutexGuard<'_, Option<ChromiumProcess>> {
        self.inner.process.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Kills a browser we launched as soon as its connection closes, however it closed (the
/// transport ended or failed, or it was given up): candor cannot drive it any more, and
/// tasks may hold it for a long while yet (each until its next command), so it must not
/// live on beside the browser that replaces it — with its memory and its profile. `closing`
/// holds nothing of the connection, so a dropped browser is not kept connected by it.
async fn kill_when_given_up(browser: Weak<Inner>, closing: impl Future<Output = ()>) {
    closing.await;
    let process = browser.upgrade().and_then(|inner| {
        inner
            .process
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    });
    if let Some(process) = process {
        tracing::debug!(
            pid = process.pid(),
            "the browser's connection closed: killing it"
        );
        // Dropping it kills the process group and waits for it: off the runtime's threads.
        let _ = tokio::task::spawn_blocking(move || drop(process)).await;
    }
}

/// Watches a grid session while its browser lives, and gives the connection up once the
/// grid says the session is gone (the proxied WebSocket stays open and silent): the
/// browser then reads as disconnected, which is the engine's crash recovery.
async fn watch_grid_session(browser: Weak<Inner>, grid: String, id: String) {
    loop {
        tokio::time::sleep(crate::grid::WATCH_EVERY).await;
        let connection = match browser.upgrade() {
            Some(inner) if !inner.connection.is_closed() => inner.connection.clone(),
            _ => return,
        };
        let (g, i) = (grid.clone(), id.clone());
        let gone = tokio::task::spawn_blocking(move || crate::grid::session_gone(&g, &i)).await;
        if gone.unwrap_or(false) {
            tracing::warn!(
                grid,
                session = id,
                "the grid session ended under its browser"
            );
            connection.abandon();
            return;
        }
    }
}

/// Resolves `http://host:port` to the browser's WebSocket through `/json/version`.
async fn websocket_url(endpoint: &str, deadline: Deadline) -> Result<String, Error> {
    if endpoint.starts_with("ws://") || endpoint.starts_with("wss://") {
        return Ok(endpoint.to_string());
    }
    let url = format!("{}/json/version", endpoint.trim_end_matches('/'));
    let timeout = deadline.remaining();
    let fetched = tokio::task::spawn_blocking(move || -> Result<String, String> {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .build()
            .new_agent();
        let mut response = agent.get(&url).call().map_err(|e| e.to_string())?;
        let version: serde_json::Value =
            response.body_mut().read_json().map_err(|e| e.to_string())?;
        version["webSocketDebuggerUrl"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("{url} names no webSocketDebuggerUrl"))
    })
    .await
    .map_err(|e| e.to_string())
    .and_then(|r| r);
    fetched.map_err(|reason| Error::Launch {
        executable: PathBuf::from(endpoint),
        reason,
    })
}

/// Applies browser-level target events to the tabs they concern. Runs on the
/// connection's reader (see `Connection::on_events`); returns false once the browser is
/// gone.
fn follow_target(browser: &Weak<Inner>, event: &RawEvent) -> bool {
    let Some(browser) = browser.upgrade() else {
        return false;
    };
    if let Some(created) = event.parse::<target::TargetCreated>() {
        let info = created.target_info;
        if info.r#type == target::TargetType::Page
            && let Some(context) = info.browser_context_id
            && !browser.control.owns_context(&context)
            && let Ok(mut opened) = browser.opened.lock()
        {
            opened.entry(context).or_default().push(info.target_id);
            browser.opened_signal.notify_waiters();
        }
        return true;
    }
    // A page gone before any task adopted it (a tab candor opened and closed, a popup
    // that closed itself) is no page to adopt.
    if let Some(destroyed) = event.parse::<target::TargetDestroyed>()
        && let Ok(mut opened) = browser.opened.lock()
    {
        for list in opened.values_mut() {
            list.retain(|target| *target != destroyed.target_id);
        }
        opened.retain(|_, list| !list.is_empty());
    }
    let change = if let Some(e) = event.parse::<target::TargetInfoChanged>() {
        Some((e.target_info.target_id.clone(), Change::Info(e.target_info)))
    } else if let Some(e) = event.parse::<target::TargetCrashed>() {
        Some((e.target_id, Change::Crashed))
    } else {
        event
            .parse::<target::TargetDestroyed>()
            .map(|e| (e.target_id, Change::Destroyed))
    };
    let Some((target_id, change)) = change else {
        return true;
    };
    let shared = browser
        .tabs
        .lock()
        .ok()
        .and_then(|tabs| tabs.get(&target_id).and_then(Weak::upgrade));
    let Some(shared) = shared else {
        return true;
    };
    let tab = Tab::from_shared(shared);
    tab.update(|state| match change {
        Change::Info(info) => {
            // An empty URL is the moment between a failed navigation and its error page.
            if !info.url.is_empty() && state.failed.is_none() {
                state.url = info.url;
                state.title = info.title;
            }
        }
        Change::Crashed => {
            state.crashed = true;
            state.unresponsive = false;
            state.navigating = None;
            state.loading = false;
        }
        Change::Destroyed => state.closed = true,
    });
    if tab.state().closed
        && let Some(session) = tab.session().id()
    {
        browser.connection.unsubscribe(session);
    }
    true
}

enum Change {
    Info(target::TargetInfo),
    Crashed,
    Destroyed,
}
