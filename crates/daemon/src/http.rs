//! The HTTP face: routes under `/v1`, the token check, and the one function that maps an
//! envelope to its HTTP status. Every answer but a 401 and the health check is an envelope
//! (docs/envelope.md).

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tools::{Code, Envelope, ToolError};

use crate::DaemonConfig;
use crate::jobs::Jobs;
use crate::registry::{CommandRequest, Registry, StartRequest};
use crate::reply::{Effect, reply};

/// What every route shares. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    pub(crate) registry: Arc<Registry>,
    pub(crate) jobs: Arc<Jobs>,
    token: Arc<str>,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("tasks", &self.registry.live_count())
            .finish()
    }
}

impl AppState {
    /// The state of a daemon that accepts `token`.
    pub fn new(config: DaemonConfig, token: impl Into<String>) -> Self {
        let token: String = token.into();
        Self {
            registry: Arc::new(Registry::new(config)),
            jobs: Arc::new(Jobs::default()),
            token: token.into(),
        }
    }

    /// Stops every task and closes the browser.
    pub async fn shutdown(&self) {
        self.registry.shutdown().await;
    }

    /// The pid of the shared browser, when one runs (tests and benchmarks look).
    pub fn browser_pid(&self) -> Option<u32> {
        self.registry
            .host
            .browser()
            .filter(|b| b.is_connected())
            .and_then(|b| b.pid())
    }
}

/// The daemon's routes. Every request needs `Authorization: Bearer TOKEN`, but a
/// hand-off's live view (`/live/…`), which a person opens in their browser with the
/// hand-off's own one-time token instead.
pub fn app(state: AppState) -> Router {
    let registry = state.registry.clone();
    let lookup: live::Lookup =
        Arc::new(move |task: &str| registry.get(task).map(|entry| entry.engine.clone()));
    Router::new()
        .route("/v1/health", get(health))
        .route("/v1/tasks", get(list_tasks).post(start_task))
        .route("/v1/tasks/{task}", delete(stop_task))
        .route("/v1/tasks/{task}/commands", post(command))
        .route("/v1/tasks/{task}/diagnostics", get(diagnostics))
        .route("/v1/tasks/{task}/jobs", post(batch))
        .route("/v1/commands/{command}/cancel", post(cancel))
        .route("/v1/jobs", get(list_jobs))
        .route("/v1/jobs/{job}", get(job))
        .route("/v1/jobs/{job}/cancel", post(cancel_job))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(state.clone(), authorize))
        .with_state(state)
        .merge(live::router(lookup))
}

/// Refuses a request without the token (401) before any route sees it, and counts the
/// request as activity, so the daemon is never idle while it answers.
async fn authorize(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if !presented.is_some_and(|t| tools::same_secret(t, &state.token)) {
        let body = json!({
            "ok": false,
            "error": "unauthorized",
            "message": "this daemon needs Authorization: Bearer TOKEN, where TOKEN is the content of the token file in its state directory",
        });
        return json_response(StatusCode::UNAUTHORIZED, &body);
    }
    let _busy = state.registry.activity.begin();
    next.run(request).await
}

/// `GET /v1/health[?memory=true]`: the daemon answers; with `memory=true`, its memory
/// report too (`memory.rs`), which only the asking pays for.
async fn health(State(state): State<AppState>, RawQuery(query): RawQuery) -> Response {
    let mut body = json!({
        "ok": true,
        "version": env!("CARGO_PKG_VERSION"),
        "pid": std::process::id(),
        "tasks": state.registry.live_count(),
    });
    if asks(query.as_deref(), "memory=true") {
        body["memory"] = crate::memory::report(&state.registry);
    }
    json_response(StatusCode::OK, &body)
}

async fn start_task(State(state): State<AppState>, body: Bytes) -> Response {
    let request: StartRequest = match parse(&body, true) {
        Ok(request) => request,
        Err(error) => return refuse(&state, error),
    };
    envelope_response(state.registry.start(request).await)
}

async fn list_tasks(State(state): State<AppState>) -> Response {
    envelope_response(state.registry.list())
}

async fn stop_task(State(state): State<AppState>, Path(task): Path<String>) -> Response {
    envelope_response(
        state
            .registry
            .stop(&task, |job| {
                state.jobs.cancel(job);
            })
            .await,
    )
}

async fn command(State(state): State<AppState>, Path(task): Path<String>, body: Bytes) -> Response {
    let request: CommandRequest = match parse(&body, false) {
        Ok(request) => request,
        Err(error) => return refuse(&state, error),
    };
    envelope_response(state.registry.command(&task, request).await)
}

async fn diagnostics(
    State(state): State<AppState>,
    Path(task): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    let limit = query
        .as_deref()
        .unwrap_or_default()
        .split('&')
        .find_map(|pair| pair.strip_prefix("limit="))
        .and_then(|n| n.parse().ok());
    envelope_response(state.registry.diagnostics(&task, limit).await)
}

async fn cancel(State(state): State<AppState>, Path(command): Path<String>) -> Response {
    envelope_response(state.registry.cancel(&command))
}

/// `POST /v1/tasks/{task}/jobs[?wait=true]`: a flow (or batch), every variable bound.
async fn batch(
    State(state): State<AppState>,
    Path(task): Path<String>,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Response {
    let request = match parse(&body, false).and_then(|json| tools::flow::Flow::parse(&json)) {
        Ok(request) => request,
        Err(error) => return refuse(&state, error),
    };
    let wait = asks(query.as_deref(), "wait=true");
    envelope_response(
        state
            .jobs
            .start(&state.registry, &task, request, wait)
            .await,
    )
}

/// Whether a query string holds `pair` (`wait=true`) as one of its pairs.
fn asks(query: Option<&str>, pair: &str) -> bool {
    query.unwrap_or_default().split('&').any(|p| p == pair)
}

async fn list_jobs(State(state): State<AppState>) -> Response {
    envelope_response(state.jobs.list(&state.registry))
}

async fn job(State(state): State<AppState>, Path(job): Path<String>) -> Response {
    envelope_response(state.jobs.view(&state.registry, &job))
}

async fn cancel_job(State(state): State<AppState>, Path(job): Path<String>) -> Response {
    envelope_response(state.jobs.cancel_reply(&state.registry, &job))
}

async fn not_found(request: Request) -> Response {
    let body = json!({
        "ok": false,
        "error": "not found",
        "message": format!("no route {} {}; the routes are under /v1", request.method(), request.uri().path()),
    });
    json_response(StatusCode::NOT_FOUND, &body)
}

/// A JSON body (an empty one is `{}` where `empty_ok`); a bad one is an `INVALID_PARAMS`
/// envelope with status 400.
fn parse<T: DeserializeOwned>(body: &[u8], empty_ok: bool) -> Result<T, ToolError> {
    let body = if body.iter().all(u8::is_ascii_whitespace) && empty_ok {
        b"{}".as_slice()
    } else {
        body
    };
    serde_json::from_slice(body)
        .map_err(|e| ToolError::invalid_params(format!("the request body is not valid: {e}")))
}

/// The `INVALID_PARAMS` answer to a body that did not parse.
fn refuse(state: &AppState, error: ToolError) -> Response {
    let started = std::time::Instant::now();
    envelope_response(reply(
        &state.registry.host,
        Err(error),
        Effect::Reads,
        started,
    ))
}

/// The HTTP status of an envelope: the daemon's own refusals have theirs; anything a
/// command ran to is 200 with its code in the body.
pub(crate) fn status_of(envelope: &Envelope) -> StatusCode {
    match envelope.code {
        Some(Code::TaskNotFound) => StatusCode::NOT_FOUND,
        Some(
            Code::TaskAlreadyExists
            | Code::TaskBusy
            | Code::BrowserConfigConflict
            | Code::ProfileInUse,
        ) => StatusCode::CONFLICT,
        Some(Code::InvalidParams) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// The envelope as JSON; a screenshot's image rides beside it as `image`.
fn envelope_response(mut envelope: Envelope) -> Response {
    let status = status_of(&envelope);
    let mut body = envelope.to_json();
    if let Some(image) = envelope.image.take() {
        body["image"] = json!({ "mimeType": image.mime_type, "data": image.data });
    }
    json_response(status, &body)
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut response = (status, body.to_string()).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
