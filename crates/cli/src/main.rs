//! `candor`: the binary. Parses the command line, sets up logging on stderr, and hands
//! over to one face (`mcp`) or one job (`demo`, `bench`).

mod bench;
mod bench_acting;
mod bench_snapshots;
mod demo;
mod lifecycle;
mod site;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use browser::{BrowserOptions, Endpoint, LaunchOptions};
use clap::{Args, Parser, Subcommand};
use tools::{Engine, EngineOptions};

/// A browser that AI agents can trust.
#[derive(Debug, Parser)]
#[command(name = "candor", version, about)]
struct Cli {
    #[command(flatten)]
    browser: BrowserArgs,
    #[command(subcommand)]
    command: Command,
}

/// How to get a browser; shared by every subcommand.
#[derive(Debug, Args)]
struct BrowserArgs {
    /// Attach to a running Chromium (`ws://…` or `http://host:port`) instead of launching one.
    #[arg(long, global = true, value_name = "URL")]
    cdp: Option<String>,
    /// The Chromium executable (default: $CANDOR_CHROMIUM, /usr/bin/chromium, PATH).
    #[arg(long, global = true, value_name = "PATH")]
    chromium: Option<PathBuf>,
    /// Show the browser window (needs a display).
    #[arg(long, global = true)]
    headed: bool,
    /// Write every CDP message of the run to this JSONL file.
    #[arg(long, global = true, value_name = "FILE")]
    record_cdp: Option<PathBuf>,
    /// The default deadline of one command, in milliseconds.
    #[arg(long, global = true, default_value_t = 30_000, value_name = "MS")]
    command_timeout_ms: u64,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the tools over MCP on stdin/stdout.
    Mcp,
    /// Drive the built-in demo site through the tools and print each step.
    Demo,
    /// Measure cold start, navigate, snapshot, screenshot, CDP round trip and tools/list size.
    Bench(bench::BenchArgs),
}

impl BrowserArgs {
    fn engine_options(&self, task_id: &str) -> EngineOptions {
        let endpoint = match &self.cdp {
            Some(url) => Endpoint::Attach(url.clone()),
            None => Endpoint::Launch(LaunchOptions {
                executable: self.chromium.clone(),
                headless: !self.headed,
                args: Vec::new(),
            }),
        };
        EngineOptions {
            browser: BrowserOptions {
                endpoint,
                record_cdp: self.record_cdp.clone(),
            },
            task_id: task_id.to_string(),
            command_timeout: Duration::from_millis(self.command_timeout_ms),
            ..EngineOptions::default()
        }
    }
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("CANDOR_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let result = runtime.block_on(run(cli));
    // A blocking read of stdin (a terminal, a file) cannot be cancelled; do not wait for it.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    result
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Mcp => {
            lifecycle::exit_with_parent();
            let engine = Arc::new(Engine::new(cli.browser.engine_options("mcp")));
            let served = lifecycle::until_terminated(mcp::serve_stdio(engine.clone())).await;
            engine.shutdown().await;
            served.map_err(|e| anyhow::anyhow!(e))
        }
        Command::Demo => {
            let engine = Engine::new(cli.browser.engine_options("demo"));
            let result = lifecycle::until_terminated(demo::run(&engine)).await;
            engine.shutdown().await;
            result
        }
        Command::Bench(args) => bench::run(&cli.browser, args).await,
    }
}
