//! The live view of a hand-off (SPEC §13): a page a person opens in their own browser
//! while they have a task. It streams the task's current tab (`Page.startScreencast`
//! frames over a WebSocket), forwards their mouse, wheel and keys as trusted input, and
//! has back, forward, reload, an address field (the task's URL policy applies: the
//! command goes through the engine as the person's), a tab switcher, the open JavaScript
//! dialog with its answers, a page's permission request (deny, allow for this hand-off,
//! always allow for the origin), the reason the agent gave, and one explicit **Done** button —
//! the only thing that ends the hand-off.
//!
//! Both routes need the hand-off's one-time token (`?token=`): without it, or once the
//! hand-off has ended, they answer 401. The daemon mounts [`router`] beside its API; `candor
//! mcp` serves it on a loopback port of its own when the first hand-off starts
//! ([`Lazy`]). The page is plain HTML and JavaScript (`static/live.html`), no build step.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::Router;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use browser::{Deadline, PersonInput};
use serde::Deserialize;
use serde_json::{Value, json};
use tools::Engine;

const PAGE: &str = include_str!("../static/live.html");
/// The deadline of one forwarded input or control.
const STEP: Duration = Duration::from_secs(30);
/// How often the page's state (URL, tabs, dialog) is sent while nothing else happens.
const STATE_EVERY: Duration = Duration::from_millis(500);

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
/// `GET /live/{task}/ws?token=…` (its WebSocket).
pub fn router(lookup: Lookup) -> Router {
    Router::new()
        .route("/live/{task}", get(page))
        .route("/live/{task}/ws", get(socket))
        .with_state(Live { lookup })
}

/// The engine of `task` when `token` opens its live view now.
fn admitted(live: &Live, task: &str, token: &Token) -> Option<Arc<Engine>> {
    let engine = (live.lookup)(task)?;
    let token = token.token.as_deref()?;
    engine.live_view_admits(token).then_some(engine)
}

fn unauthorized() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        "this live view needs the token of a hand-off under way",
    )
        .into_response()
}

async fn page(
    State(live): State<Live>,
    Path(task): Path<String>,
    Query(token): Query<Token>,
) -> Response {
    match admitted(&live, &task, &token) {
        Some(_) => Html(PAGE).into_response(),
        None => unauthorized(),
    }
}

async fn socket(
    State(live): State<Live>,
    Path(task): Path<String>,
    Query(token): Query<Token>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let Some(engine) = admitted(&live, &task, &token) else {
        return unauthorized();
    };
    let token = token.token.unwrap_or_default();
    upgrade.on_upgrade(move |socket| async move {
        if let Err(reason) = serve(socket, engine, token).await {
            tracing::debug!(%reason, "live view closed");
        }
    })
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
    },
    Wheel {
        x: f64,
        y: f64,
        dx: f64,
        dy: f64,
    },
    Key {
        key: String,
    },
    Navigate {
        url: String,
    },
    Back,
    Forward,
    Reload,
    Tab {
        id: String,
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

/// One person's session: frames out, input and controls in, until Done or the page goes.
async fn serve(mut socket: WebSocket, engine: Arc<Engine>, token: String) -> Result<(), String> {
    let mut current = engine.person_tab().await;
    let mut frames = match &current {
        Some((_, tab)) => Some(
            tab.screencast(Deadline::after(STEP))
                .await
                .map_err(|e| e.to_string())?,
        ),
        None => None,
    };
    send(&mut socket, &state(&engine).await).await?;
    let mut tick = tokio::time::interval(STATE_EVERY);
    loop {
        tokio::select! {
            frame = async {
                match frames.as_mut() {
                    Some(frames) => frames.next().await,
                    None => std::future::pending().await,
                }
            } => {
                let Some(frame) = frame else {
                    frames = None;
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
                if !engine.live_view_admits(&token) {
                    return send(&mut socket, &json!({ "type": "ended" })).await;
                }
                send(&mut socket, &state(&engine).await).await?;
            }
            message = socket.recv() => {
                let Some(Ok(message)) = message else { return Ok(()) };
                let Message::Text(text) = message else { continue };
                let Ok(request) = serde_json::from_str::<FromPage>(text.as_str()) else {
                    send(&mut socket, &json!({ "type": "error", "message": "not a live view message" })).await?;
                    continue;
                };
                if !engine.live_view_admits(&token) {
                    return send(&mut socket, &json!({ "type": "ended" })).await;
                }
                match request {
                    FromPage::Done => {
                        drop(frames.take());
                        engine.hand_back().await;
                        return send(&mut socket, &json!({ "type": "ended" })).await;
                    }
                    request => {
                        let answer = act(&engine, current.as_ref(), request).await;
                        if let Some(error) = answer {
                            send(&mut socket, &json!({ "type": "error", "message": error })).await?;
                        }
                        // A control may have changed the tab shown (a switch, a new tab).
                        let now = engine.person_tab().await;
                        if now.as_ref().map(|(id, _)| id) != current.as_ref().map(|(id, _)| id) {
                            drop(frames.take());
                            frames = match &now {
                                Some((_, tab)) => tab.screencast(Deadline::after(STEP)).await.ok(),
                                None => None,
                            };
                            current = now;
                        }
                        send(&mut socket, &state(&engine).await).await?;
                    }
                }
            }
        }
    }
}

/// Carries out one input or control; returns what went wrong, if anything.
async fn act(
    engine: &Engine,
    current: Option<&(String, browser::Tab)>,
    request: FromPage,
) -> Option<String> {
    let input = match request {
        FromPage::Mouse {
            event,
            x,
            y,
            click_count,
        } if matches!(
            event.as_str(),
            "mousePressed" | "mouseReleased" | "mouseMoved"
        ) =>
        {
            PersonInput::Mouse {
                kind: event,
                x,
                y,
                click_count,
            }
        }
        FromPage::Mouse { event, .. } => return Some(format!("no mouse event {event:?}")),
        FromPage::Wheel { x, y, dx, dy } => PersonInput::Wheel { x, y, dx, dy },
        FromPage::Key { key } => PersonInput::Key { key },
        FromPage::Permission { id, choice } => {
            let choice = match choice.as_str() {
                "deny" => browser::PermissionChoice::Deny,
                "once" => browser::PermissionChoice::Once,
                "always" => browser::PermissionChoice::Always,
                other => return Some(format!("no permission choice {other:?}")),
            };
            return engine.person_permission(id, choice).await.err();
        }
        control => {
            let (method, params) = match control {
                FromPage::Navigate { url } => ("navigate", json!({ "url": url })),
                FromPage::Back => ("navigate", json!({ "back": true })),
                FromPage::Forward => ("navigate", json!({ "forward": true })),
                FromPage::Reload => ("navigate", json!({ "reload": true })),
                FromPage::Tab { id } => ("tabs", json!({ "action": "select", "tabId": id })),
                FromPage::Dialog { accept, text } => {
                    ("dialog", json!({ "accept": accept, "promptText": text }))
                }
                _ => return None,
            };
            let envelope = engine.person_call(method, params).await;
            return (!envelope.ok).then(|| {
                format!(
                    "{}: {}",
                    envelope.code.map(|c| c.as_str()).unwrap_or_default(),
                    envelope.message.unwrap_or_default()
                )
            });
        }
    };
    let (_, tab) = current?;
    tab.person_input(&input).err().map(|e| e.to_string())
}

/// The page's state for the view: the reason, the current tab's URL and title, the tabs,
/// and an open dialog.
async fn state(engine: &Engine) -> Value {
    let tabs = engine.person_tabs().await;
    let permission = engine.person_pending_permission().await;
    let current = tabs.iter().find(|t| t.active);
    let listed: Vec<Value> = tabs
        .iter()
        .map(|t| json!({ "id": t.id.to_string(), "title": t.state.title, "url": t.state.url, "active": t.active }))
        .collect();
    json!({
        "type": "state",
        "reason": engine.handoff_reason(),
        "url": current.map(|t| t.state.url.clone()),
        "title": current.map(|t| t.state.title.clone()),
        "tabs": listed,
        "dialog": current
            .and_then(|t| t.state.open_dialog.as_ref())
            .map(|d| json!({ "kind": d.kind, "message": d.message })),
        "permission": permission.map(|p| json!({
            "id": p.id,
            "tab": p.tab,
            "permission": p.permission,
            "origin": p.origin,
        })),
    })
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
