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
//! The watch view (`watch.rs`) shares the door's rules, with its own token and cookie.
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
use browser::Deadline;
use serde::Deserialize;
use serde_json::Value;
use tools::Engine;
use tools::handoff::LiveEntry;

mod person;
mod watch;

const PAGE: &str = include_str!("../static/live.html");
/// The deadline of one forwarded input or control.
const STEP: Duration = Duration::from_secs(30);
/// How often the page's state (URL, tabs, dialog) is sent while nothing else happens.
const STATE_EVERY: Duration = Duration::from_millis(500);

/// The name of the person's session cookie.
const COOKIE: &str = "candor_live";
/// The name of the watcher's session cookie.
const WATCH_COOKIE: &str = "candor_watch";
const WATCH_PAGE: &str = include_str!("../static/watch.html");

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
        .route("/live/{task}/watch", get(watch_page))
        .route("/live/{task}/watch/ws", get(watch_socket))
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
    view: ViewKind,
) -> Result<Arc<Engine>, Refusal> {
    let engine = (live.lookup)(task).ok_or(Refusal::Unauthorized)?;
    let url = match view {
        ViewKind::Live => engine.live_view_url(),
        ViewKind::Watch => engine.watch_view_url(),
    }
    .ok_or(Refusal::Unauthorized)?;
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

/// Which view a request is for: the person's during a hand-off, or the watcher's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ViewKind {
    Live,
    Watch,
}

impl ViewKind {
    /// The name of the view's session cookie.
    fn cookie(self) -> &'static str {
        match self {
            ViewKind::Live => COOKIE,
            ViewKind::Watch => WATCH_COOKIE,
        }
    }
}

/// The value of `view`'s session cookie the request carries, if any.
fn session_of(headers: &HeaderMap, view: ViewKind) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|h| h.to_str().ok())
        .flat_map(|h| h.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == view.cookie())
        .map(|(_, value)| value.to_string())
}

async fn page(
    State(live): State<Live>,
    Path(task): Path<String>,
    Query(token): Query<Token>,
    headers: HeaderMap,
) -> Response {
    open_page(&live, &task, token, &headers, ViewKind::Live)
}

async fn watch_page(
    State(live): State<Live>,
    Path(task): Path<String>,
    Query(token): Query<Token>,
    headers: HeaderMap,
) -> Response {
    open_page(&live, &task, token, &headers, ViewKind::Watch)
}

/// A load of `view`'s page: the token spent for a session's cookie, or the cookie.
fn open_page(
    live: &Live,
    task: &str,
    token: Token,
    headers: &HeaderMap,
    view: ViewKind,
) -> Response {
    let engine = match at_home(live, task, headers, false, view) {
        Ok(engine) => engine,
        Err(refused) => return refused.into_response(),
    };
    let session = session_of(headers, view);
    let (token, session) = (token.token.as_deref(), session.as_deref());
    let (entered, html, path) = match view {
        ViewKind::Live => (
            engine.live_view_enter(token, session),
            PAGE,
            format!("/live/{}", path_segment(task)),
        ),
        ViewKind::Watch => (
            engine.watch_view_enter(token, session),
            WATCH_PAGE,
            format!("/live/{}/watch", path_segment(task)),
        ),
    };
    match entered {
        Some(LiveEntry::Returning) => Html(html).into_response(),
        Some(LiveEntry::Opened { session }) => {
            let cookie = format!(
                "{}={session}; Path={path}; HttpOnly; SameSite=Strict",
                view.cookie()
            );
            let mut response = Html(html).into_response();
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
    open_socket(&live, &task, &headers, upgrade, ViewKind::Live)
}

async fn watch_socket(
    State(live): State<Live>,
    Path(task): Path<String>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    open_socket(&live, &task, &headers, upgrade, ViewKind::Watch)
}

/// `view`'s one socket, for the holder of its session's cookie, from its own page.
fn open_socket(
    live: &Live,
    task: &str,
    headers: &HeaderMap,
    upgrade: WebSocketUpgrade,
    view: ViewKind,
) -> Response {
    let engine = match at_home(live, task, headers, true, view) {
        Ok(engine) => engine,
        Err(refused) => return refused.into_response(),
    };
    let holds = |s: &String| match view {
        ViewKind::Live => engine.live_view_session(s),
        ViewKind::Watch => engine.watch_view_session(s),
    };
    let Some(session) = session_of(headers, view).filter(holds) else {
        return Refusal::Unauthorized.into_response();
    };
    let claimed = match view {
        ViewKind::Live => engine.live_view_claim_socket(&session),
        ViewKind::Watch => engine.watch_view_claim_socket(&session),
    };
    if !claimed {
        return Refusal::SecondSocket.into_response();
    }
    // Held by the socket's task; dropped with it however it ends (or if the upgrade
    // never completes), which gives the socket back.
    let claim = SocketClaim {
        engine: engine.clone(),
        session: session.clone(),
        view,
    };
    upgrade.on_upgrade(move |socket| async move {
        let _claim = claim;
        let served = match view {
            ViewKind::Live => person::serve(socket, engine, session).await,
            ViewKind::Watch => watch::serve(socket, engine, session).await,
        };
        if let Err(reason) = served {
            tracing::debug!(%reason, ?view, "view closed");
        }
    })
}

/// The live view's one socket, taken; given back when dropped.
struct SocketClaim {
    engine: Arc<Engine>,
    session: String,
    view: ViewKind,
}

impl Drop for SocketClaim {
    fn drop(&mut self) {
        match self.view {
            ViewKind::Live => self.engine.live_view_release_socket(&self.session),
            ViewKind::Watch => self.engine.watch_view_release_socket(&self.session),
        }
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

/// How long starting a tab's screencast may take before the view says the page does not
/// answer and tries again later.
const CAST_START: Duration = Duration::from_secs(3);
/// How often a tab whose screencast could not start is tried again.
const CAST_RETRY: Duration = Duration::from_secs(2);

/// What the person sees now: the tab and its frames.
#[derive(Default)]
struct Shown {
    tab: Option<(String, browser::Tab)>,
    frames: Option<browser::Screencast>,
    /// When the screencast was last tried, if it could not start.
    cast_tried: Option<tokio::time::Instant>,
}

impl Shown {
    /// The next frame of the tab shown, as the view's message; pending while no
    /// screencast runs, `None` once the tab stopped painting (its screencast is dropped).
    async fn next_frame(&mut self) -> Option<Value> {
        let frame = match self.frames.as_mut() {
            Some(frames) => frames.next().await,
            None => std::future::pending().await,
        };
        let Some(frame) = frame else {
            self.frames = None;
            return None;
        };
        Some(serde_json::json!({
            "type": "frame",
            "data": frame.data,
            "width": frame.width,
            "height": frame.height,
        }))
    }

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
