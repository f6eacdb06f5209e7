//! `candor`: the binary. Parses the command line, sets up logging on stderr, and hands
//! over to one face (`mcp`, `serve`, the CLI verbs) or one job (`demo`). The benchmarks
//! are not here: they are `crates/bench`, run from the repository.

mod client;
mod config;
mod demo;
mod flows;
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
use browser::{BrowserOptions, Endpoint, GridOptions, LaunchOptions};
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
    /// Run each task on a Selenium Grid 4 at URL: a WebDriver session per task, driven
    /// through the session's CDP endpoint and deleted when the task ends.
    #[arg(long, global = true, value_name = "URL", conflicts_with_all = ["cdp", "replay_cdp", "cdp_endpoint"])]
    grid: Option<String>,
    /// A CDP endpoint of a pool (repeat for more): each task attaches to the least-loaded
    /// endpoint that is up; one that fails is left out for 10 s.
    #[arg(long = "cdp-endpoint", global = true, value_name = "URL", conflicts_with_all = ["cdp", "replay_cdp"])]
    cdp_endpoint: Vec<String>,
    /// The Chromium executable (default: $CANDOR_CHROMIUM, /usr/bin/chromium, PATH).
    #[arg(long, global = true, value_name = "PATH")]
    chromium: Option<PathBuf>,
    /// Show the browser window (needs a display).
    #[arg(long, global = true)]
    headed: bool,
    /// Write every CDP message of the run to this JSONL file (redacted).
    #[arg(long, global = true, value_name = "FILE")]
    record_cdp: Option<PathBuf>,
    /// Launch no browser: play back a tape written with --record-cdp.
    #[arg(long, global = true, value_name = "FILE", conflicts_with_all = ["cdp", "record_cdp"])]
    replay_cdp: Option<PathBuf>,
    /// The deadline of one command, in milliseconds (default 30000).
    #[arg(long, global = true, value_name = "MS")]
    command_timeout_ms: Option<u64>,
    /// The configuration file (default: $CANDOR_CONFIG, else ./candor.toml if present).
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The loaded configuration (file, then environment); flags above override it.
    #[arg(skip)]
    settings: config::Config,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the tools over MCP on stdin/stdout.
    Mcp,
    /// Drive the built-in demo site through the tools and print each step.
    Demo,
    /// Serve the HTTP daemon on 127.0.0.1: tasks, commands, cancel, diagnostics, jobs.
    Serve(serve::ServeArgs),
    #[command(flatten)]
    Verb(Box<verbs::Verb>),
}

impl BrowserArgs {
    /// These flags as arguments again, for a daemon this process starts: every field is
    /// named here (no `..`), so a new flag cannot be left behind.
    fn daemon_args(&self) -> Vec<std::ffi::OsString> {
        let BrowserArgs {
            cdp,
            grid,
            cdp_endpoint,
            chromium,
            headed,
            record_cdp,
            replay_cdp,
            command_timeout_ms,
            config,
            settings: _,
        } = self;
        let mut args: Vec<std::ffi::OsString> = Vec::new();
        let mut flag = |name: &str, value: Option<std::ffi::OsString>| {
            if let Some(value) = value {
                args.push(name.into());
                args.push(value);
            }
        };
        flag("--cdp", cdp.as_ref().map(Into::into));
        flag("--grid", grid.as_ref().map(Into::into));
        for endpoint in cdp_endpoint {
            flag("--cdp-endpoint", Some(endpoint.into()));
        }
        flag("--chromium", chromium.as_ref().map(Into::into));
        flag("--record-cdp", record_cdp.as_ref().map(Into::into));
        flag("--replay-cdp", replay_cdp.as_ref().map(Into::into));
        flag(
            "--command-timeout-ms",
            command_timeout_ms.map(|ms| ms.to_string().into()),
        );
        flag("--config", config.as_ref().map(Into::into));
        if *headed {
            args.push("--headed".into());
        }
        args
    }

    fn engine_options(&self, task_id: &str) -> EngineOptions {
        let settings = &self.settings;
        let headless = !self.headed && settings.headless.unwrap_or(true);
        let endpoint = match (&self.cdp, &self.replay_cdp, &self.grid) {
            (_, Some(tape), _) => Endpoint::Replay(tape.clone()),
            (Some(url), None, _) => Endpoint::Attach(url.clone()),
            (None, None, Some(grid)) => Endpoint::Grid(GridOptions {
                headless,
                ..GridOptions::new(grid.clone())
            }),
            (None, None, None) if !self.cdp_endpoint.is_empty() => {
                Endpoint::Pool(self.cdp_endpoint.clone())
            }
            (None, None, None) => Endpoint::Launch(LaunchOptions {
                executable: self.chromium.clone().or_else(|| settings.chromium.clone()),
                headless,
                args: Vec::new(),
            }),
        };
        EngineOptions {
            browser: BrowserOptions {
                endpoint,
                record_cdp: self.record_cdp.clone(),
            },
            task_id: task_id.to_string(),
            command_timeout: Duration::from_millis(
                self.command_timeout_ms
                    .or(settings.command_timeout_ms)
                    .unwrap_or(30_000),
            ),
            url_policy: browser::UrlPolicy {
                allow_data: settings.allow_data.unwrap_or(false),
            },
            enable_eval: settings.enable_eval.unwrap_or(false),
            upload_dir: settings.upload_dir.clone(),
            ask_dialogs: settings.dialog_policy == Some(config::DialogPolicy::Ask),
            unresponsive: Duration::from_millis(
                settings.unresponsive_ms.unwrap_or(2000).clamp(100, 60_000),
            ),
            circuit_open: tools::DEFAULT_CIRCUIT_OPEN,
            press_pause: settings.press_pause_ms.unwrap_or_default(),
            archive: tools::ArchiveOptions {
                keep: settings.keep_archive.unwrap_or(false),
                ..tools::ArchiveOptions::default()
            },
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
        Command::Verb(verb) => return verbs::run(*verb, &call, &browser),
        command => command,
    };
    match start(Cli {
        browser,
        call,
        command,
    }) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // The cause chain on one line; a backtrace is for bugs, not bad input.
            eprintln!("candor: {err:#}");
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

async fn run(mut cli: Cli) -> anyhow::Result<()> {
    cli.browser.settings = config::Config::load(cli.browser.config.as_deref())?;
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
        Command::Serve(args) => serve::run(&cli.browser, args).await,
        Command::Verb(_) => anyhow::bail!("a CLI verb is run without the async runtime"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_daemon_started_for_a_verb_gets_every_browser_flag_the_verb_was_given() {
        let verb = Cli::try_parse_from([
            "candor",
            "--chromium",
            "/opt/chromium",
            "--headed",
            "--record-cdp",
            "/tmp/tape.jsonl",
            "--command-timeout-ms",
            "1234",
            "--config",
            "/etc/candor.toml",
            "tabs",
        ])
        .unwrap();
        let mut argv: Vec<std::ffi::OsString> = vec!["candor".into(), "serve".into()];
        argv.extend(verb.browser.daemon_args());
        let daemon = Cli::try_parse_from(argv).unwrap();
        assert_eq!(
            format!("{:?}", daemon.browser),
            format!("{:?}", verb.browser)
        );
        let pooled = Cli::try_parse_from([
            "candor",
            "--cdp-endpoint",
            "http://127.0.0.1:9",
            "--cdp-endpoint",
            "http://127.0.0.1:10",
            "tabs",
        ])
        .unwrap();
        assert_eq!(
            pooled.browser.daemon_args(),
            [
                "--cdp-endpoint",
                "http://127.0.0.1:9",
                "--cdp-endpoint",
                "http://127.0.0.1:10"
            ]
        );
        let grid =
            Cli::try_parse_from(["candor", "--grid", "http://127.0.0.1:4444", "tabs"]).unwrap();
        assert_eq!(
            grid.browser.daemon_args(),
            ["--grid", "http://127.0.0.1:4444"]
        );
        let attached =
            Cli::try_parse_from(["candor", "--cdp", "ws://127.0.0.1:9/x", "tabs"]).unwrap();
        assert_eq!(
            attached.browser.daemon_args(),
            ["--cdp", "ws://127.0.0.1:9/x"]
        );
    }

    #[test]
    fn the_benchmarks_are_not_a_subcommand() {
        use clap::CommandFactory;
        let cli = Cli::command();
        assert!(cli.find_subcommand("bench").is_none());
        assert!(!cli.clone().render_help().to_string().contains("bench"));
    }
}
