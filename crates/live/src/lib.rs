//! The live view of a hand-off (docs/faces.md#live-view): a page a person opens in their own browser
//! while they have a task. It streams the task's current tab (`Page.startScreencast`
//! frames over a WebSocket), forwards their mouse, wheel and keys as trusted input, and
//! has back, forward, reload, an address field (the task's URL policy applies: the
//! command goes through the engine as the person's), a tab switcher, the open JavaScript
//! dialog with its answers, a page's permission request (deny, allow for this hand-off,
//! always allow for the origin), the reason the agent gave, and one explicit **Done** button —
//! the only thing that ends the hand-off.
//!
//! The door has one key, for one person. The hand-off's one-time token (`?token=`) opens
//! the page once: that first load spends it for a session, a cookie (`HttpOnly`,
//! `SameSite=Strict`, the view's path only) that alone opens the page again (a reload)
//! and its socket — one socket at a time — until Done. A request must name the address
//! the view was served on (`Host`; a DNS-rebinding page names its own), and the socket
//! must come from that origin (`Origin`: every page on 127.0.0.1 is the same *site*, so
//! the cookie alone would not tell a hostile page on another port from the view). Every
//! answer is `Cache-Control: no-store`, `Referrer-Policy: no-referrer` and
//! `frame-ancestors 'none'`. Otherwise 401 (no key), 403 (wrong address or origin), 409
//! (a second socket). Secrets are compared in constant time (`tools::same_secret`).
//!
//! The daemon mounts [`router`] beside its API; `candor mcp` serves it on a loopback port
//! of its own when the first hand-off starts ([`Lazy`]). The page is plain HTML and
//! JavaScript (`static/live.html`), no build step.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::Router;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use browser::{Deadline, PersonInput};
use serde::Deserialize;
use serde_json::{Value, json};
use tools::handoff::{LiveEntry, PersonInputKind};
use tools::{Engine, tool};

const PAGE: &str = include_str!("../static/live.html");
/// The deadline of one forwarded input or control.
const STEP: Duration = Duration::from_secs(30);
/// How often the page's state (URL, tabs, dialog) is sent while nothing else happens.
const STATE_EVERY: Duration = Duration::from_millis(500);

/// The name of the person's session cookie.
const COOKIE: &str = "candor_live";

/// Finds the engine of a task by its id.
pub type Lookup = Arc<dyn Fn(&str) -> Option<Arc<Engine>> + Send + Sync>;

#[derive(Clone)]
struct Live {
    lookup: Lookup,
}

#[derive(Debug, Deserialize)]
struct Token {
    token: Option<String>,
}

/// The live view's routes: `GET /live/{task}?token=…` (the page) and
/// `GET /live/{task}/ws` (its WebSocket, opened with the session's cookie).
pub fn router(lookup: Lookup) -> Router {
    Router::new()
        .route("/live/{task}", get(page))
        .route("/live/{task}/ws", get(socket))
        .with_state(Live { lookup })
        .layer(axum::middleware::map_response(private))
}

/// What every answer of the live view carries: not stored by any cache, its URL (with the
/// token) never sent on as a referrer, never shown inside another page's frame.
async fn private(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("frame-ancestors 'none'"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

/// Why a request does not get in.
#[derive(Debug, Clone, Copy)]
enum Refusal {
    /// No key: no hand-off under way, the token spent or wrong, no session.
    Unauthorized,
    /// Another address than the view's (`Host`).
    ElsewhereHost,
    /// The socket asked from another page than the view's (`Origin`).
    ElsewhereOrigin,
    /// The person's socket is open already.
    SecondSocket,
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let (status, why) = match self {
            Refusal::Unauthorized => (
                StatusCode::UNAUTHORIZED,
                "this live view needs the token of a hand-off under way, once, or the session it opened",
            ),
            Refusal::ElsewhereHost => (
                StatusCode::FORBIDDEN,
                "this live view answers only at the address it was given on",
            ),
            Refusal::ElsewhereOrigin => (
                StatusCode::FORBIDDEN,
                "this live view's socket opens only from its own page",
            ),
            Refusal::SecondSocket => (
                StatusCode::CONFLICT,
                "this live view's socket is open already: one person, one view",
            ),
        };
        (status, why).into_response()
    }
}

/// The engine of `task` while a hand-off of it is under way, when the request names the
/// address its view was served on — and, where `origin` is required (the socket), comes
/// from a page of it.
fn at_home(
    live: &Live,
    task: &str,
    headers: &HeaderMap,
    origin: bool,
) -> Result<Arc<Engine>, Refusal> {
    let engine = (live.lookup)(task).ok_or(Refusal::Unauthorized)?;
    let url = engine.live_view_url().ok_or(Refusal::Unauthorized)?;
    let (scheme, rest) = url.split_once("://").ok_or(Refusal::Unauthorized)?;
    let authority = rest.split('/').next().unwrap_or_default();
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    if !host.eq_ignore_ascii_case(authority) {
        return Err(Refusal::ElsewhereHost);
    }
    let from = headers.get(header::ORIGIN).and_then(|h| h.to_str().ok());
    let home = format!("{scheme}://{authority}");
    let same_origin = from.is_some_and(|o| o.eq_ignore_ascii_case(&home));
    if (origin || from.is_some()) && !same_origin {
        return Err(Refusal::ElsewhereOrigin);
    }
    Ok(engine)
}

/// The value of the session cookie the request carries, if any.
fn session_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|h| h.to_str().ok())
        .flat_map(|h| h.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.to_string())
}

async fn page(
    State(live): State<Live>,
    Path(task): Path<String>,
    Query(token): Query<Token>,
    headers: HeaderMap,
) -> Response {
    let engine = match at_home(&live, &task, &headers, false) {
        Ok(engine) => engine,
        Err(refused) => return refused.into_response(),
    };
    let session = session_of(&headers);
    match engine.live_view_enter(token.token.as_deref(), session.as_deref()) {
        Some(LiveEntry::Returning) => Html(PAGE).into_response(),
        Some(LiveEntry::Opened { session }) => {
            let cookie = format!(
                "{COOKIE}={session}; Path=/live/{}; HttpOnly; SameSite=Strict",
                path_segment(&task)
            );
            let mut response = Html(PAGE).into_response();
            match HeaderValue::from_str(&cookie) {
                Ok(value) => {
                    response.headers_mut().insert(header::SET_COOKIE, value);
                    response
                }
                Err(_) => Refusal::Unauthorized.into_response(),
            }
        }
        None => Refusal::Unauthorized.into_response(),
    }
}

async fn socket(
    State(live): State<Live>,
    Path(task): Path<String>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    let engine = match at_home(&live, &task, &headers, true) {
        Ok(engine) => engine,
        Err(refused) => return refused.into_response(),
    };
    let Some(session) = session_of(&headers).filter(|s| engine.live_view_session(s)) else {
        return Refusal::Unauthorized.into_response();
    };
    if !engine.live_view_claim_socket(&session) {
        return Refusal::SecondSocket.into_response();
    }
    // Held by the socket's task; dropped with it however it ends (or if the upgrade
    // never completes), which gives the socket back.
    let claim = SocketClaim {
        engine: engine.clone(),
        session: session.clone(),
    };
    upgrade.on_upgrade(move |socket| async move {
        let _claim = claim;
        if let Err(reason) = serve(socket, engine, session).await {
            tracing::debug!(%reason, "live view closed");
        }
    })
}

/// The live view's one socket, taken; given back when dropped.
struct SocketClaim {
    engine: Arc<Engine>,
    session: String,
}

impl Drop for SocketClaim {
    fn drop(&mut self) {
        self.engine.live_view_release_socket(&self.session);
    }
}

/// `task` as one path segment: letters, digits and `-._~` kept, the rest escaped, so a
/// cookie's `Path` never carries a `;` of its own.
fn path_segment(task: &str) -> String {
    task.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// What the page sends.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum FromPage {
    Mouse {
        event: String,
        x: f64,
        y: f64,
        #[serde(default = "one")]
        click_count: i64,
        /// The button is down (a move drags).
        #[serde(default)]
        pressed: bool,
    },
    Wheel {
        x: f64,
        y: f64,
        dx: f64,
        dy: f64,
    },
    Key {
        key: String,
        #[serde(default)]
        repeat: bool,
    },
    /// Pasted text, or a composition the person's input method committed.
    Text {
        text: String,
    },
    /// A composition under way.
    Compose {
        text: String,
    },
    Navigate {
        url: String,
    },
    Back,
    Forward,
    Reload,
    Stop,
    Tab {
        id: String,
    },
    NewTab,
    CloseTab,
    Reopen,
    Find {
        text: String,
        #[serde(default)]
        backwards: bool,
    },
    Viewport {
        preset: String,
    },
    Dialog {
        accept: bool,
        text: Option<String>,
    },
    Permission {
        id: u64,
        choice: String,
    },
    Done,
}

fn one() -> i64 {
    1
}

/// How long starting a tab's screencast may take before the view says the page does not
/// answer and tries again later.
const CAST_START: Duration = Duration::from_secs(3);
/// How often a tab whose screencast could not start is tried again.
const CAST_RETRY: Duration = Duration::from_secs(2);
/// How often the page shown is asked whether it answers (a cheap round trip), and how
/// long it has to: a page that does not is shown as not answering, with Reload and Stop.
const PROBE_EVERY: Duration = Duration::from_secs(2);
const PROBE_BUDGET: Duration = Duration::from_secs(2);

/// What the person sees now: the tab and its frames.
struct Shown {
    tab: Option<(String, browser::Tab)>,
    frames: Option<browser::Screencast>,
    /// When the screencast was last tried, if it could not start.
    cast_tried: Option<tokio::time::Instant>,
}

impl Shown {
    /// Follows the task's current tab (a switch, a new tab, a popup); starts its frames.
    async fn follow(&mut self, engine: &Engine) {
        let Some(now) = engine.person_tab().await else {
            // A command holds the task: what is shown stays until it is done.
            return;
        };
        if self.tab.as_ref().map(|(id, _)| id) != Some(&now.0) {
            drop(self.frames.take());
            self.tab = Some(now);
            self.cast_tried = None;
        }
        let retry = self.cast_tried.is_none_or(|at| at.elapsed() >= CAST_RETRY);
        if self.frames.is_none() && retry {
            if let Some((_, tab)) = &self.tab {
                self.frames = tab.screencast(Deadline::after(CAST_START)).await.ok();
            }
            self.cast_tried = Some(tokio::time::Instant::now());
        }
    }
}

/// One person's session: frames out, input and controls in, until Done or the page goes.
/// Controls that go through the engine (a navigation that may take its time, a tab
/// opened) run beside the session, so Stop, the page's state and the frames never wait
/// for them.
async fn serve(mut socket: WebSocket, engine: Arc<Engine>, session: String) -> Result<(), String> {
    let mut shown = Shown {
        tab: None,
        frames: None,
        cast_tried: None,
    };
    shown.follow(&engine).await;
    let mut view = View::default();
    send(&mut socket, &view.state(&engine, &shown).await).await?;
    let (done, mut finished) = tokio::sync::mpsc::unbounded_channel::<Option<String>>();
    let mut tick = tokio::time::interval(STATE_EVERY);
    let mut probe: Option<tokio::task::JoinHandle<()>> = None;
    let mut probed = tokio::time::Instant::now();
    loop {
        tokio::select! {
            frame = async {
                match shown.frames.as_mut() {
                    Some(frames) => frames.next().await,
                    None => std::future::pending().await,
                }
            } => {
                let Some(frame) = frame else {
                    shown.frames = None;
                    continue;
                };
                send(&mut socket, &json!({
                    "type": "frame",
                    "data": frame.data,
                    "width": frame.width,
                    "height": frame.height,
                })).await?;
            }
            _ = tick.tick() => {
                if !engine.live_view_session(&session) {
                    return send(&mut socket, &json!({ "type": "ended" })).await;
                }
                shown.follow(&engine).await;
                if probed.elapsed() >= PROBE_EVERY
                    && probe.as_ref().is_none_or(|p| p.is_finished())
                    && let Some((_, tab)) = shown.tab.clone()
                {
                    probed = tokio::time::Instant::now();
                    // The verdict lands in the tab's state (`unresponsive`), which the
                    // next state shows.
                    probe = Some(tokio::spawn(async move {
                        let _ = tab.probe(PROBE_BUDGET, Deadline::after(PROBE_BUDGET * 2)).await;
                    }));
                }
                send(&mut socket, &view.state(&engine, &shown).await).await?;
            }
            answer = finished.recv() => {
                if let Some(Some(error)) = answer {
                    send(&mut socket, &json!({ "type": "error", "message": error })).await?;
                }
                shown.follow(&engine).await;
                send(&mut socket, &view.state(&engine, &shown).await).await?;
            }
            message = socket.recv() => {
                let Some(Ok(message)) = message else { return Ok(()) };
                let Message::Text(text) = message else { continue };
                let Ok(request) = serde_json::from_str::<FromPage>(text.as_str()) else {
                    send(&mut socket, &json!({ "type": "error", "message": "not a live view message" })).await?;
                    continue;
                };
                if !engine.live_view_session(&session) {
                    return send(&mut socket, &json!({ "type": "ended" })).await;
                }
                match request {
                    FromPage::Done => {
                        drop(shown.frames.take());
                        engine.hand_back().await;
                        return send(&mut socket, &json!({ "type": "ended" })).await;
                    }
                    FromPage::Find { text, backwards } => {
                        let Some((_, tab)) = shown.tab.clone() else { continue };
                        engine.person_input_noted(PersonInputKind::Find);
                        let message = match tab.find_text(&text, backwards, Deadline::after(STEP)).await {
                            Ok(found) => json!({ "type": "found", "count": found.count, "found": found.found }),
                            Err(err) => json!({ "type": "error", "message": err.to_string() }),
                        };
                        send(&mut socket, &message).await?;
                    }
                    request => match at_once(&engine, shown.tab.as_ref(), request) {
                        Ok(Some(error)) => {
                            send(&mut socket, &json!({ "type": "error", "message": error })).await?;
                        }
                        Ok(None) => {}
                        Err(control) => {
                            let engine = engine.clone();
                            let done = done.clone();
                            tokio::spawn(async move {
                                let _ = done.send(through_engine(&engine, control).await);
                            });
                        }
                    },
                }
            }
        }
    }
}

/// Input and Stop, sent to the tab shown at once (a person's input is a stream); the
/// controls that go through the engine are handed back (`Err`). `Ok(Some)` is what went
/// wrong.
fn at_once(
    engine: &Engine,
    current: Option<&(String, browser::Tab)>,
    request: FromPage,
) -> Result<Option<String>, FromPage> {
    let input = match request {
        FromPage::Mouse {
            event,
            x,
            y,
            click_count,
            pressed,
        } if matches!(
            event.as_str(),
            "mousePressed" | "mouseReleased" | "mouseMoved"
        ) =>
        {
            if event == "mousePressed" {
                engine.person_input_noted(PersonInputKind::Pointer);
            }
            PersonInput::Mouse {
                kind: event,
                x,
                y,
                click_count,
                pressed,
            }
        }
        FromPage::Mouse { event, .. } => return Ok(Some(format!("no mouse event {event:?}"))),
        FromPage::Wheel { x, y, dx, dy } => PersonInput::Wheel { x, y, dx, dy },
        FromPage::Key { key, repeat } => {
            engine.person_input_noted(PersonInputKind::Key);
            PersonInput::Key { key, repeat }
        }
        FromPage::Text { text } => {
            engine.person_input_noted(PersonInputKind::Text);
            PersonInput::Text { text }
        }
        FromPage::Compose { text } => PersonInput::Compose { text },
        FromPage::Stop => {
            let Some((_, tab)) = current else {
                return Ok(None);
            };
            return Ok(tab.person_stop().err().map(|e| e.to_string()));
        }
        control => return Err(control),
    };
    let Some((_, tab)) = current else {
        return Ok(None);
    };
    Ok(tab.person_input(&input).err().map(|e| e.to_string()))
}

/// Carries out a control through the engine, as the person; returns what went wrong.
async fn through_engine(engine: &Engine, control: FromPage) -> Option<String> {
    let (method, params) = match control {
        FromPage::Permission { id, choice } => {
            let choice = match choice.as_str() {
                "deny" => browser::PermissionChoice::Deny,
                "once" => browser::PermissionChoice::Once,
                "always" => browser::PermissionChoice::Always,
                other => return Some(format!("no permission choice {other:?}")),
            };
            return engine.person_permission(id, choice).await.err();
        }
        FromPage::Reopen => return engine.person_reopen().await.err(),
        FromPage::Navigate { url } => (tool::Navigate::NAME, json!({ "url": url })),
        FromPage::Back => (tool::Navigate::NAME, json!({ "back": true })),
        FromPage::Forward => (tool::Navigate::NAME, json!({ "forward": true })),
        FromPage::Reload => (tool::Navigate::NAME, json!({ "reload": true })),
        FromPage::Tab { id } => (tool::Tabs::NAME, json!({ "action": "select", "tabId": id })),
        FromPage::NewTab => (tool::Tabs::NAME, json!({ "action": "new" })),
        FromPage::CloseTab => (tool::Tabs::NAME, json!({ "action": "close" })),
        FromPage::Viewport { preset } => (tool::Viewport::NAME, json!({ "preset": preset })),
        FromPage::Dialog { accept, text } => (
            tool::Dialog::NAME,
            json!({ "accept": accept, "promptText": text }),
        ),
        _ => return None,
    };
    let envelope = engine.person_call(method, params).await;
    (!envelope.ok).then(|| {
        format!(
            "{}: {}",
            envelope.code.map(|c| c.as_str()).unwrap_or_default(),
            envelope.message.unwrap_or_default()
        )
    })
}

/// What the view last knew of the task, kept for the beats when a command holds it.
#[derive(Default)]
struct View {
    tabs: Vec<browser::TabSummary>,
    downloads: Vec<Value>,
}

impl View {
    /// The page's state for the view: the reason, the tab shown (URL, title, loading or
    /// failed, answering, its viewport), the tabs, an open dialog, a permission request,
    /// the downloads of this hand-off, and whether a closed tab can be reopened.
    async fn state(&mut self, engine: &Engine, shown: &Shown) -> Value {
        if let Some(tabs) = engine.person_tabs_now().await {
            self.tabs = tabs;
        }
        if let Some(downloads) = engine.person_downloads().await {
            self.downloads = downloads;
        }
        let permission = engine.person_pending_permission().await;
        let listed: Vec<Value> = self
            .tabs
            .iter()
            .map(|t| json!({ "id": t.id.to_string(), "title": t.state.title, "url": t.state.url, "active": t.active }))
            .collect();
        // The tab shown reads its own state: it is current even while a command holds
        // the task.
        let current = shown
            .tab
            .as_ref()
            .map(|(_, tab)| (tab.state(), tab.viewport()));
        json!({
            "type": "state",
            "reason": engine.handoff_reason(),
            "url": current.as_ref().map(|(s, _)| s.url.clone()),
            "title": current.as_ref().map(|(s, _)| s.title.clone()),
            "loading": current.as_ref().is_some_and(|(s, _)| s.loading || s.navigating.is_some()),
            "failed": current.as_ref().and_then(|(s, _)| s.failed.clone()),
            "answering": current.as_ref().is_none_or(|(s, _)| !s.unresponsive),
            "viewport": current.as_ref().map(|(_, preset)| preset.name()),
            "tabs": listed,
            "canReopen": engine.person_can_reopen(),
            "downloads": self.downloads,
            "dialog": current
                .as_ref()
                .and_then(|(s, _)| s.open_dialog.as_ref())
                .map(|d| json!({ "kind": d.kind, "message": d.message })),
            "permission": permission.map(|p| json!({
                "id": p.id,
                "tab": p.tab,
                "permission": p.permission,
                "origin": p.origin,
            })),
        })
    }
}

async fn send(socket: &mut WebSocket, value: &Value) -> Result<(), String> {
    socket
        .send(Message::Text(value.to_string().into()))
        .await
        .map_err(|e| e.to_string())
}

/// Live views at `base` (`http://127.0.0.1:PORT`): the daemon's own server.
#[derive(Debug, Clone)]
pub struct At {
    base: Arc<OnceLock<String>>,
}

impl At {
    /// `base` is set once the server is bound.
    pub fn new(base: Arc<OnceLock<String>>) -> Self {
        Self { base }
    }
}

impl tools::handoff::LiveViews for At {
    fn url(&self, task: &str, token: &str) -> Result<String, String> {
        let base = self
            .base
            .get()
            .ok_or_else(|| "the server is not listening yet".to_string())?;
        Ok(format!("{base}/live/{task}?token={token}"))
    }
}

/// Live views on a loopback port of their own, started when the first hand-off asks
/// (`candor mcp`, which serves nothing else over HTTP).
pub struct Lazy {
    lookup: Lookup,
    base: OnceLock<String>,
}

impl std::fmt::Debug for Lazy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lazy")
            .field("base", &self.base.get())
            .finish()
    }
}

impl Lazy {
    pub fn new(lookup: Lookup) -> Self {
        Self {
            lookup,
            base: OnceLock::new(),
        }
    }

    fn start(&self) -> Result<String, String> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).map_err(|e| e.to_string())?;
        listener.set_nonblocking(true).map_err(|e| e.to_string())?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let runtime = tokio::runtime::Handle::try_current().map_err(|e| e.to_string())?;
        let app = router(self.lookup.clone());
        runtime.spawn(async move {
            match tokio::net::TcpListener::from_std(listener) {
                Ok(listener) => {
                    if let Err(err) = axum::serve(listener, app).await {
                        tracing::warn!(%err, "the live view server stopped");
                    }
                }
                Err(err) => tracing::warn!(%err, "the live view server could not listen"),
            }
        });
        Ok(format!("http://127.0.0.1:{port}"))
    }
}

impl tools::handoff::LiveViews for Lazy {
    fn url(&self, task: &str, token: &str) -> Result<String, String> {
        let base = match self.base.get() {
            Some(base) => base.clone(),
            None => {
                let base = self.start()?;
                let _ = self.base.set(base.clone());
                base
            }
        };
        Ok(format!("{base}/live/{task}?token={token}"))
    }
}
