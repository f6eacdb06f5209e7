//! `candor`: the binary. Parses the command line, sets up logging on stderr, and hands
//! over to one face (`mcp`, `serve`, the CLI verbs) or one job (`demo`, `bench`).

mod bench;
mod bench_acting;
mod bench_daemon;
mod bench_snapshots;
mod client;
mod demo;
mod lifecycle;
mod output;
mod records;
mod serve;
mod site;
mod verbs;

use std::path::PathBuf;
use std::process::ExitCode;
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
    #[command(flatten)]
    call: verbs::CallArgs,
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
    /// The deadline of one command, in milliseconds (default 30000).
    #[arg(long, global = true, value_name = "MS")]
    command_timeout_ms: Option<u64>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the tools over MCP on stdin/stdout.
    Mcp,
    /// Drive the built-in demo site through the tools and print each step.
    Demo,
    /// Measure cold start, navigate, snapshot, screenshot, CDP round trip and tools/list size.
    Bench(bench::BenchArgs),
    /// Serve the HTTP daemon on 127.0.0.1: tasks, commands, cancel, diagnostics, jobs.
    Serve(serve::ServeArgs),
    #[command(flatten)]
    Verb(verbs::Verb),
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
            command_timeout: Duration::from_millis(self.command_timeout_ms.unwrap_or(30_000)),
            enable_eval: eval_enabled(std::env::var("CANDOR_ENABLE_EVAL").ok().as_deref()),
            ..EngineOptions::default()
        }
    }
}

/// `CANDOR_ENABLE_EVAL` (SPEC §8): `true`/`1`/`yes`/`on` enable `eval`; anything else
/// leaves it off, and a value that is not a recognisable "off" is logged.
fn eval_enabled(value: Option<&str>) -> bool {
    let Some(value) = value.map(str::trim) else {
        return false;
    };
    match value.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => true,
        "false" | "0" | "no" | "off" | "" => false,
        _ => {
            tracing::warn!(
                value,
                "CANDOR_ENABLE_EVAL is not true or false; eval stays disabled"
            );
            false
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // Help and version go to stdout and succeed; a usage error exits 64.
            let usage = err.use_stderr();
            let _ = err.print();
            return if usage {
                ExitCode::from(verbs::EXIT_USAGE)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("CANDOR_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    // A verb is one blocking call to the daemon: no runtime to start.
    let Cli {
        browser,
        call,
        command,
    } = cli;
    let command = match command {
        Command::Verb(verb) => return verbs::run(verb, &call, &browser),
        command => command,
    };
    match start(Cli {
        browser,
        call,
        command,
    }) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("Error: {err:?}");
            ExitCode::FAILURE
        }
    }
}

fn start(cli: Cli) -> anyhow::Result<()> {
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
        Command::Serve(args) => serve::run(&cli.browser, args).await,
        Command::Verb(_) => anyhow::bail!("a CLI verb is run without the async runtime"),
    }
}

#[cfg(test)]
mod tests {
    use super::eval_enabled;

    #[test]
    fn candor_enable_eval_turns_eval_on_only_when_it_says_so() {
        for on in ["true", "TRUE", "1", "yes", " on "] {
            assert!(eval_enabled(Some(on)), "{on}");
        }
        for off in ["false", "0", "no", "off", "", "ture", "enabled"] {
            assert!(!eval_enabled(Some(off)), "{off}");
        }
        assert!(!eval_enabled(None));
    }
}
