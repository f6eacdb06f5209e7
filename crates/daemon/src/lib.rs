//! The HTTP daemon (`candor serve`): tasks that share one browser, each in its own
//! browser context; every catalogue tool as `POST /v1/tasks/{id}/commands`; command ids,
//! one deadline per command, one command at a time per task, cancel by id, diagnostics
//! from memory, async batches; and a typed blocking client for the CLI.
//!
//! It listens on 127.0.0.1 only and refuses every request without the token it writes to
//! a 0600 file in its state directory. [`app`] is the whole HTTP surface as a `Router`,
//! so routes are tested without a socket; [`Server`] binds it and runs until shut down or
//! idle. It knows HTTP and the registry, nothing of pages: commands run in `tools`.

mod client;
mod clock;
mod error;
mod http;
mod jobs;
mod memory;
mod mutex;
mod registry;
mod reply;
mod state;

use std::future::Future;
use std::time::Duration;

use tools::EngineOptions;

pub use client::{Answer, Client};
pub use error::Error;
pub use http::{AppState, app};
pub use registry::BrowserRequest;
pub use state::{DaemonInfo, StateDir, default_state_dir};

/// The port `candor serve` listens on unless told otherwise (`--port`, `CANDOR_PORT`):
/// any free one, published in `daemon.json`, so daemons of two state directories (two
/// users, two `CANDOR_STATE_DIR`s) never collide.
pub const DEFAULT_PORT: u16 = 0;

/// How a daemon runs.
#[derive(Debug, Clone)]
pub struct DaemonConfig {
    /// Where the token, `daemon.json` and the lock live.
    pub state_dir: std::path::PathBuf,
    /// 0 for any free port; the port is published in `daemon.json`.
    pub port: u16,
    /// Every task's engine options, passed whole (built once from the configuration
    /// file, the environment and the flags): each task takes them with its own id, on
    /// the browser every task shares (`engine.browser`, until a task asks for another
    /// while none runs). `engine.command_timeout` is the deadline of a command that names
    /// none.
    pub engine: EngineOptions,
    /// Shut down after this long with no request and nothing running.
    pub idle_timeout: Option<Duration>,
    /// Whether a headed browser could be shown (DISPLAY is set).
    pub display_available: bool,
}

impl Default for DaemonConfig {
    fn default() -> Self {
        Self {
            state_dir: default_state_dir(),
            port: DEFAULT_PORT,
            engine: EngineOptions::default(),
            idle_timeout: Some(Duration::from_secs(30 * 60)),
            display_available: std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty()),
        }
    }
}

/// A daemon bound to its port, with its token written, not yet serving.
pub struct Server {
    listener: tokio::net::TcpListener,
    state: AppState,
    state_dir: StateDir,
    port: u16,
    token: String,
    idle_timeout: Option<Duration>,
    // Held while serving: one daemon per state directory.
    _lock: std::fs::File,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("port", &self.port).finish()
    }
}

impl Server {
    /// Takes the state directory, binds `127.0.0.1:port`, writes a new token (0600) and
    /// `daemon.json`.
    pub async fn bind(config: DaemonConfig) -> Result<Server, Error> {
        let state_dir = StateDir::new(config.state_dir.clone());
        state_dir.create()?;
        let lock = state_dir.lock()?;
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", config.port))
            .await
            .map_err(|source| Error::Bind {
                port: config.port,
                source,
            })?;
        let port = listener
            .local_addr()
            .map_err(|source| Error::Bind {
                port: config.port,
                source,
            })?
            .port();
        let token = state_dir.write_token()?;
        state_dir.write_info(&DaemonInfo {
            pid: std::process::id(),
            port,
            version: env!("CARGO_PKG_VERSION").to_string(),
        })?;
        let idle_timeout = config.idle_timeout;
        let state = AppState::new(config, token.clone());
        // Hand-offs' live views are served here, beside the API.
        let _ = state
            .registry
            .live_base
            .set(format!("http://127.0.0.1:{port}"));
        Ok(Server {
            listener,
            state,
            state_dir,
            port,
            token,
            idle_timeout,
            _lock: lock,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    pub fn state(&self) -> AppState {
        self.state.clone()
    }

    /// Serves until `shutdown` completes or the daemon has been idle for its idle
    /// timeout; then cancels what runs, closes every task and the browser, and removes
    /// its token and `daemon.json`.
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send) -> Result<(), Error> {
        let Server {
            listener,
            state,
            state_dir,
            idle_timeout,
            ..
        } = self;
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let mut stopped_rx = stopped.clone();
        let server = axum::serve(listener, app(state.clone())).with_graceful_shutdown(async move {
            let _ = stopped_rx.wait_for(|s| *s).await;
        });
        let mut server = tokio::spawn(async move { server.await });
        let activity = state.registry.activity.clone();
        let idle = async {
            let Some(limit) = idle_timeout else {
                return std::future::pending().await;
            };
            let tick = (limit / 4).clamp(Duration::from_millis(50), Duration::from_secs(5));
            loop {
                tokio::time::sleep(tick).await;
                if activity.idle_for() >= limit {
                    tracing::info!(after = ?limit, "idle: shutting down");
                    return;
                }
            }
        };
        let early = tokio::select! {
            () = shutdown => None,
            () = idle => None,
            result = &mut server => Some(result),
        };
        let _ = stop.send(true);
        state.shutdown().await;
        let result = match early {
            Some(result) => result,
            // In-flight requests end once their commands were cancelled; do not wait on
            // a client that keeps its connection open.
            None => match tokio::time::timeout(Duration::from_secs(5), server).await {
                Ok(result) => result,
                Err(_) => Ok(Ok(())),
            },
        };
        state_dir.remove_own();
        match result {
            Ok(Ok(())) => Ok(()),
            Ok(Err(err)) => Err(Error::Serve(err)),
            Err(err) => Err(Error::Serve(std::io::Error::other(err.to_string()))),
        }
    }
}
