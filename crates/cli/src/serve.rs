//! `candor serve`: the HTTP daemon on 127.0.0.1, until SIGTERM/SIGINT/SIGHUP or until it
//! has been idle for `--idle-timeout-ms`; every browser it launched goes with it.

use std::time::Duration;

use anyhow::Context;
use clap::Args;
use tokio::signal::unix::{SignalKind, signal};

use crate::BrowserArgs;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The port on 127.0.0.1 (default 0: any free port; clients read it from daemon.json).
    #[arg(long, default_value_t = default_port(), value_name = "PORT")]
    port: u16,
    /// Shut down after this long without a request or a running command (0: never).
    #[arg(long, default_value_t = default_idle_ms(), value_name = "MS")]
    idle_timeout_ms: u64,
}

/// `$CANDOR_PORT`, else any free port.
fn default_port() -> u16 {
    env_number("CANDOR_PORT").unwrap_or(daemon::DEFAULT_PORT)
}

/// `$CANDOR_IDLE_TIMEOUT_MS`, else 30 minutes.
fn default_idle_ms() -> u64 {
    env_number("CANDOR_IDLE_TIMEOUT_MS").unwrap_or(30 * 60 * 1000)
}

fn env_number<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok()?.trim().parse().ok()
}

pub async fn run(browser: &BrowserArgs, args: ServeArgs) -> anyhow::Result<()> {
    let config = daemon::DaemonConfig {
        state_dir: crate::client::state_dir(),
        port: args.port,
        // One options value, built once from config + environment + flags, passed whole.
        engine: browser.engine_options("serve"),
        idle_timeout: (args.idle_timeout_ms > 0)
            .then(|| Duration::from_millis(args.idle_timeout_ms)),
        ..daemon::DaemonConfig::default()
    };
    let state_dir = config.state_dir.clone();
    let server = daemon::Server::bind(config)
        .await
        .context("cannot start the daemon")?;
    eprintln!(
        "candor: serving on 127.0.0.1:{} (state {}, pid {})",
        server.port(),
        state_dir.display(),
        std::process::id()
    );
    server.run(terminated()).await?;
    eprintln!("candor: the daemon stopped");
    Ok(())
}

/// Completes on SIGTERM, SIGINT or SIGHUP.
async fn terminated() {
    let (Ok(mut term), Ok(mut int), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::hangup()),
    ) else {
        tracing::warn!("cannot listen for signals; the daemon stops when idle");
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => tracing::info!("SIGTERM: shutting down"),
        _ = int.recv() => tracing::info!("SIGINT: shutting down"),
        _ = hup.recv() => tracing::info!("SIGHUP: shutting down"),
    }
}
