//! `candor`: the binary. Parses the command line, sets up logging on stderr, and hands
//! over to one face (`mcp`, `serve`, the CLI verbs) or one job (`demo`). The benchmarks
//! are not here: they are `crates/bench`, run from the repository.

mod client;
mod config;
mod demo;
mod exit;
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
    /// Write every CDP message of the run to this JSONL file (redacted).
    #[arg(long, global = true, value_name = "FILE")]
    record_cdp: Option<PathBuf>,
    /// Launch no browser: play back a tape written with --record-cdp.
    #[arg(long, global = true, value_name = "FILE", conflicts_with_all = ["cdp", "record_cdp"])]
    replay_cdp: Option<PathBuf>,
    /// The configuration file (default: $CANDOR_CONFIG, else ./candor.toml if present).
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// One flag per configuration key (`candor config` lists them).
    #[command(flatten)]
    flags: config::Flags,
    /// The loaded configuration: defaults, file, environment, then the flags.
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
    /// Print the effective configuration and where each value came from.
    Config,
    /// Print the Chromium executable candor launches (the `chromium` key's, else the one
    /// found), or say why there is none: exit 1 when none is found (installing one helps),
    /// 64 when the one named is not an executable.
    Chromium,
    #[command(flatten)]
    Verb(Box<verbs::Verb>),
}

impl BrowserArgs {
    /// These flags as arguments again, for a daemon this process starts: every field is
    /// named here (no `..`), so a new flag cannot be left behind.
    fn daemon_args(&self) -> Vec<std::ffi::OsString> {
        let BrowserArgs {
            cdp,
            record_cdp,
            replay_cdp,
            config,
            flags,
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
        flag("--record-cdp", record_cdp.as_ref().map(Into::into));
        flag("--replay-cdp", replay_cdp.as_ref().map(Into::into));
        flag("--config", config.as_ref().map(Into::into));
        args.extend(flags.to_args());
        args
    }

    fn engine_options(&self, task_id: &str) -> EngineOptions {
        let settings = &self.settings;
        let args: Vec<String> = settings.browser_args.iter().map(|a| a.0.clone()).collect();
        let endpoint = match (&self.cdp, &self.replay_cdp, &settings.grid) {
            (_, Some(tape), _) => Endpoint::Replay(tape.clone()),
            (Some(url), None, _) => Endpoint::Attach(url.clone()),
            (None, None, Some(grid)) => Endpoint::Grid(GridOptions {
                headless: settings.headless,
                args,
                ..GridOptions::new(grid.0.clone())
            }),
            (None, None, None) if !settings.cdp_endpoints.is_empty() => Endpoint::Pool(
                settings
                    .cdp_endpoints
                    .iter()
                    .map(|url| url.0.clone())
                    .collect(),
            ),
            (None, None, None) => Endpoint::Launch(LaunchOptions {
                executable: settings.chromium.clone(),
                headless: settings.headless,
                args,
                user_data_dir: None,
            }),
        };
        EngineOptions {
            browser: BrowserOptions {
                endpoint,
                record_cdp: self.record_cdp.clone(),
            },
            task_id: task_id.to_string(),
            command_timeout: Duration::from_millis(settings.command_timeout_ms),
            url_policy: browser::UrlPolicy {
                allow_data: settings.allow_data,
                allow_origins: settings.allow_origins.clone(),
                block_origins: settings.block_origins.clone(),
            },
            enable_eval: settings.enable_eval,
            upload_dir: settings.upload_dir.clone(),
            ask_dialogs: settings.dialog_policy == config::DialogPolicy::Ask,
            unresponsive: Duration::from_millis(settings.unresponsive_ms),
            circuit_open: tools::DEFAULT_CIRCUIT_OPEN,
            press_pause: settings.press_pause_ms,
            archive: tools::ArchiveOptions {
                keep: settings.keep_archive,
                root: settings.archive_dir.clone(),
                ..tools::ArchiveOptions::default()
            },
            // The bounds were checked when the configuration was read.
            defaults: tools::defaults::CallDefaults {
                snapshot_max_tokens: settings.snapshot_max_tokens as usize,
                read_max_chars: settings.read_max_chars as usize,
                screenshot_max_width: settings.screenshot_max_width as u32,
                settle: Duration::from_millis(settings.settle_ms),
            },
            downloads: browser::DownloadLimits {
                max_count: settings.download_max_count as usize,
                max_bytes: settings.download_max_mb.saturating_mul(1_000_000),
            },
            log_max_entries: settings.log_max_entries as usize,
            default_viewport: settings.default_viewport.0,
            // Saved states live beside the daemon's other files (states/NAME.json).
            saved_states: tools::SavedStates {
                dir: Some(crate::client::state_dir().join("states")),
                key: settings
                    .state_key
                    .as_ref()
                    .map(|key| tools::StateKey(key.0.clone())),
            },
            // A daemon's working folder is not the caller's: the path is made absolute here.
            profile: settings
                .profile
                .as_ref()
                .map(|dir| std::path::absolute(dir).unwrap_or_else(|_| dir.clone())),
            proxy: settings.proxy_setting(),
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
                ExitCode::from(exit::USAGE)
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
    let Cli {
        mut browser,
        call,
        command,
    } = cli;
    browser.settings = match config::Config::load(browser.config.as_deref(), &browser.flags) {
        Ok(settings) => settings,
        Err(err) => {
            eprintln!("candor: {err:#}");
            return ExitCode::from(exit::USAGE);
        }
    };
    // Redaction is applied wherever a record is written; the names it adds hold for the
    // whole process.
    let extra: Vec<String> = browser
        .settings
        .redact_keys
        .iter()
        .map(|k| k.0.clone())
        .collect();
    browser::add_secret_keys(&extra);
    // A verb is one blocking call to the daemon: no runtime to start.
    let command = match command {
        Command::Verb(verb) => return verbs::run(*verb, &call, &browser),
        Command::Config => {
            if call.output.json {
                println!("{:#}", browser.settings.report_json());
            } else {
                print!("{}", browser.settings.report());
            }
            return ExitCode::SUCCESS;
        }
        Command::Chromium => return print_chromium(&browser.settings),
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

/// `candor chromium`: the scripts ask this rather than search for a browser themselves,
/// so the finder ([`browser::find_chromium`]) and its list of names stay one.
fn print_chromium(settings: &config::Config) -> ExitCode {
    let launch = LaunchOptions {
        executable: settings.chromium.clone(),
        ..LaunchOptions::default()
    };
    match launch.chromium() {
        Ok(path) => {
            println!("{}", path.display());
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("candor: {err}");
            match err {
                browser::Error::ChromiumNotFound { .. } => ExitCode::FAILURE,
                _ => ExitCode::from(exit::USAGE),
            }
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
        Command::Serve(args) => serve::run(&cli.browser, args).await,
        Command::Verb(_) | Command::Config | Command::Chromium => {
            anyhow::bail!("a CLI verb is run without the async runtime")
        }
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
                "--cdp-endpoint=http://127.0.0.1:9",
                "--cdp-endpoint=http://127.0.0.1:10"
            ]
        );
        let grid =
            Cli::try_parse_from(["candor", "--grid", "http://127.0.0.1:4444", "tabs"]).unwrap();
        assert_eq!(grid.browser.daemon_args(), ["--grid=http://127.0.0.1:4444"]);
        let attached =
            Cli::try_parse_from(["candor", "--cdp", "ws://127.0.0.1:9/x", "tabs"]).unwrap();
        assert_eq!(
            attached.browser.daemon_args(),
            ["--cdp", "ws://127.0.0.1:9/x"]
        );
    }

    #[test]
    fn every_key_that_shapes_a_task_reaches_its_engine_options() {
        let mut cli = Cli::try_parse_from([
            "candor",
            "--chromium=/opt/chromium",
            "--headed",
            "--browser-arg=--lang=fr",
            "--command-timeout-ms=5000",
            "--unresponsive-ms=1500",
            "--settle-ms=0",
            "--snapshot-max-tokens=8000",
            "--read-max-chars=50000",
            "--screenshot-max-width=800",
            "--press-pause-ms=0",
            "--download-max-count=3",
            "--download-max-mb=20",
            "--enable-eval",
            "--allow-data",
            "--allow-origin=*.example.com",
            "--block-origin=ads.example.com",
            "--dialog-policy=ask",
            "--upload-dir=/srv/up",
            "--archive-dir=/srv/archive",
            "--keep-archive",
            "tabs",
        ])
        .unwrap();
        let flags = cli.browser.flags.clone();
        cli.browser.settings.apply_flags(&flags).unwrap();
        let options = cli.browser.engine_options("t");
        let Endpoint::Launch(launch) = &options.browser.endpoint else {
            panic!("{:?}", options.browser.endpoint);
        };
        assert_eq!(launch.executable, Some(PathBuf::from("/opt/chromium")));
        assert!(!launch.headless);
        assert_eq!(launch.args, ["--lang=fr"]);
        assert_eq!(options.command_timeout, Duration::from_millis(5000));
        assert_eq!(options.unresponsive, Duration::from_millis(1500));
        assert_eq!(
            options.defaults,
            tools::defaults::CallDefaults {
                snapshot_max_tokens: 8000,
                read_max_chars: 50_000,
                screenshot_max_width: 800,
                settle: Duration::ZERO,
            }
        );
        assert_eq!(options.press_pause, browser::PressPause::NONE);
        assert_eq!(
            options.downloads,
            browser::DownloadLimits {
                max_count: 3,
                max_bytes: 20_000_000,
            }
        );
        assert!(options.enable_eval && options.url_policy.allow_data);
        let rules = |rules: &[browser::OriginRule]| -> Vec<String> {
            rules.iter().map(ToString::to_string).collect()
        };
        assert_eq!(rules(&options.url_policy.allow_origins), ["*.example.com"]);
        assert_eq!(
            rules(&options.url_policy.block_origins),
            ["ads.example.com"]
        );
        assert!(options.ask_dialogs);
        assert_eq!(options.upload_dir, Some(PathBuf::from("/srv/up")));
        assert_eq!(options.archive.root, Some(PathBuf::from("/srv/archive")));
        assert!(options.archive.keep);
        assert!(
            options
                .saved_states
                .dir
                .is_some_and(|d| d.ends_with("states"))
        );
    }

    /// A configuration flag is global: no subcommand may take the same name for itself.
    #[test]
    fn every_subcommand_and_flag_is_well_formed() {
        use clap::CommandFactory;
        let mut cli = Cli::command();
        cli.build();
        for sub in cli.get_subcommands() {
            sub.clone().debug_assert();
        }
    }

    #[test]
    fn the_benchmarks_are_not_a_subcommand() {
        use clap::CommandFactory;
        let cli = Cli::command();
        assert!(cli.find_subcommand("bench").is_none());
        assert!(!cli.clone().render_help().to_string().contains("bench"));
    }
}
