//! `bench`: the per-call figures (docs/faces.md#benchmarks) on the demo site, as medians. Figures, not
//! assertions: machines are noisy, so nothing here passes or fails. `--only FIGURE`
//! measures one of them. Not part of the shipped binary: run it from the repository with
//! `cargo run --release -p bench -- [--only FIGURE] [--runs N]`.
//!
//! The pages come from the repository (the demo site's `crates/cli/site/`, `fixtures/`),
//! found from this crate's folder, so the working directory does not matter; they are
//! served by the one static server (`static-site`).

mod acting;
mod archive;
mod faults;
mod many_tasks;
mod snapshot_peers;
mod snapshots;
mod soak;
mod warm_daemon;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use browser::{Browser, BrowserOptions, Deadline, Endpoint, LaunchOptions, Task};
use clap::{Args, Parser};
use serde_json::json;
use static_site::{Files, StaticSite};
use tools::{Engine, EngineOptions, tool};

/// Measure cold start, navigate, snapshot, screenshot, CDP round trip, acting, hung pages,
/// element snapshots, the CLI through a warm daemon, many tasks on one daemon, idle tabs,
/// and tools/list size; or, with `--only soak`, a daemon's memory, descriptors and
/// processes minute by minute over a long run.
#[derive(Debug, Parser)]
#[command(name = "bench", about)]
struct BenchArgs {
    /// Runs per figure (at least 20 for a stable median).
    #[arg(long, default_value_t = 20)]
    runs: usize,
    /// Measure only this figure.
    #[arg(long, value_enum)]
    only: Option<Figure>,
    /// The `candor` executable the daemon figure runs (default: `candor` beside this
    /// executable, which `cargo build --release -p cli` puts there).
    #[arg(long, value_name = "PATH")]
    candor: Option<PathBuf>,
    /// How many tasks run at once in the many-tasks figure (repeatable, or a list:
    /// `--tasks 1,5`; default 1, 5, 10 and 20), how many tabs idle-tabs leaves alone
    /// (default 20), and how many tasks the soak runs (once; default 10).
    #[arg(
        long = "tasks",
        value_name = "N",
        value_delimiter = ',',
        value_parser = clap::value_parser!(u16).range(1..=200)
    )]
    tasks: Vec<u16>,
    /// Also measure the peers, Playwright MCP and Chrome DevTools MCP (one MCP server and
    /// one Chromium per session), in the many-tasks, idle-tabs and snapshots figures;
    /// install them first with `scripts/bench-peers`.
    #[arg(long)]
    peers: bool,
    /// How long the soak runs, in minutes.
    #[arg(long, value_name = "M", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    minutes: u64,
    #[command(flatten)]
    browser: BrowserArgs,
}

/// How to get a browser: the flags `candor` takes for it.
#[derive(Debug, Args)]
struct BrowserArgs {
    /// Attach to a running Chromium (`ws://…` or `http://host:port`) instead of launching one.
    #[arg(long, value_name = "URL")]
    cdp: Option<String>,
    /// The Chromium executable (default: the one `candor chromium` prints).
    #[arg(long, value_name = "PATH")]
    chromium: Option<PathBuf>,
    /// Show the browser window (needs a display).
    #[arg(long)]
    headed: bool,
    /// Write every CDP message of the run as JSONL (redacted), one file per engine:
    /// `FILE` with the engine's task id before its extension (`cdp.bench-acting.jsonl`).
    #[arg(long, value_name = "FILE")]
    record_cdp: Option<PathBuf>,
    /// The deadline of one command, in milliseconds (default 30000).
    #[arg(long, value_name = "MS")]
    command_timeout_ms: Option<u64>,
    /// An extra Chromium switch, after candor's own (repeatable; `--chromium-arg=--foo`),
    /// to measure what it changes.
    #[arg(
        long = "chromium-arg",
        value_name = "SWITCH",
        allow_hyphen_values = true
    )]
    chromium_args: Vec<String>,
}

impl BrowserArgs {
    fn engine_options(&self, task_id: &str) -> EngineOptions {
        let endpoint = match &self.cdp {
            Some(url) => Endpoint::Attach(url.clone()),
            None => Endpoint::Launch(LaunchOptions {
                executable: self.chromium.clone(),
                headless: !self.headed,
                args: self.chromium_args.clone(),
                user_data_dir: None,
            }),
        };
        let defaults = EngineOptions::default();
        EngineOptions {
            browser: BrowserOptions {
                endpoint,
                // One file per engine, so a figure that opens several keeps each.
                record_cdp: self
                    .record_cdp
                    .as_ref()
                    .map(|path| path.with_extension(format!("{task_id}.jsonl"))),
            },
            task_id: task_id.to_string(),
            command_timeout: self
                .command_timeout_ms
                .map_or(defaults.command_timeout, Duration::from_millis),
            ..defaults
        }
    }
}

/// The figures `bench` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Figure {
    /// Launch Chromium → first page loaded.
    Cold,
    /// navigate, and snapshot mode:text.
    Calls,
    /// screenshot of the catalog page at the desktop preset (PNG): at CSS pixels (1280×800),
    /// and in device pixels (1568×980).
    Screenshot,
    /// One CDP round trip.
    RoundTrip,
    /// The size of MCP tools/list.
    ToolsList,
    /// The CLI through a warm daemon (snapshot text per call) and the daemon's memory.
    Daemon,
    /// Element snapshots of the Rust docs and the fixtures; find "fold".
    Snapshots,
    /// act click with a verified expect.text, and fill with read-back.
    Acting,
    /// A click that never returns: time to PAGE_UNRESPONSIVE, and to recovery.
    Faults,
    /// Snapshot median with the task's archive on and off; recall of a 12,000-char window.
    Archive,
    /// 1, 5, 10 and 20 tasks at once on one daemon: latency, throughput, memory, CPU
    /// (with `--peers`, beside Playwright MCP and Chrome DevTools MCP).
    ManyTasks,
    /// 20 tabs left alone for 20 s: CPU by process kind, per tool and per tab.
    IdleTabs,
    /// Ten tasks on one daemon for 30 minutes (`--tasks`, `--minutes`), a row a minute
    /// (memory, descriptors, processes), then what the daemon leaves behind. Only with
    /// `--only soak`.
    Soak,
}

/// The demo site's pages in the repository (`candor demo` serves the same files, compiled
/// into its binary).
fn demo_site_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../cli/site")
}

/// The repository's `fixtures/` folder.
fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn main() -> ExitCode {
    let args = BenchArgs::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("CANDOR_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let measured = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
        .and_then(|runtime| runtime.block_on(run(args)));
    match measured {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("bench: {err:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: BenchArgs) -> anyhow::Result<()> {
    let runs = args.runs.max(1);
    // The soak takes half an hour: it runs only when asked for.
    let measure = |figure| {
        args.only
            .map_or(figure != Figure::Soak, |only| only == figure)
    };
    let browser_args = &args.browser;
    let site =
        StaticSite::start(Files::Dir(demo_site_dir())).context("cannot serve the demo site")?;
    let page = site.url("catalog.html");
    let other = site.url("about.html");
    if args.only != Some(Figure::Soak) {
        println!("candor bench: {runs} runs per figure, medians (min–max)\n");
    }

    if measure(Figure::Cold) {
        cold_start(browser_args, &page, runs).await?;
    }
    if measure(Figure::Calls) {
        calls(browser_args, &page, &other, runs).await?;
    }
    if measure(Figure::Screenshot) {
        screenshot(browser_args, &page, runs).await?;
    }
    if measure(Figure::RoundTrip) {
        round_trip(browser_args, runs).await?;
    }
    if measure(Figure::Acting) {
        acting::run(browser_args, &site, runs).await?;
    }
    if measure(Figure::Faults) {
        faults::run(browser_args, &site, runs).await?;
    }
    if measure(Figure::Archive) {
        archive::run(browser_args, runs).await?;
    }
    if measure(Figure::Snapshots) {
        snapshots::run(browser_args, runs, args.peers, args.candor.clone()).await?;
    }
    if measure(Figure::Daemon) {
        warm_daemon::run(args.candor.clone(), args.only.is_some(), &site, runs).await?;
    }
    let levels = |default: &[usize]| {
        if args.tasks.is_empty() {
            default.to_vec()
        } else {
            args.tasks.iter().map(|&n| usize::from(n)).collect()
        }
    };
    if measure(Figure::ManyTasks) {
        many_tasks::run(
            args.candor.clone(),
            args.only.is_some(),
            browser_args,
            levels(&many_tasks::LEVELS),
            args.peers,
        )
        .await?;
    }
    if measure(Figure::IdleTabs) {
        many_tasks::idle::run(
            args.candor.clone(),
            args.only.is_some(),
            browser_args,
            levels(&[many_tasks::idle::SESSIONS]),
            args.peers,
        )
        .await?;
    }
    if measure(Figure::Soak) {
        let tasks = match args.tasks[..] {
            [] => soak::TASKS,
            [n] => usize::from(n),
            _ => anyhow::bail!("the soak runs one number of tasks: give --tasks once"),
        };
        soak::run(args.candor.clone(), browser_args, tasks, args.minutes).await?;
    }
    if measure(Figure::ToolsList) {
        // In cl100k_base tokens, as models count them.
        let cl100k = tiktoken_rs::cl100k_base()?;
        let tokens = |text: &str| cl100k.encode_ordinary(text).len();
        let list = mcp::tools_list_json();
        println!(
            "{:<52} {} cl100k tokens, {} chars ({} tools)",
            "MCP tools/list size",
            tokens(&list),
            list.len(),
            tools::catalogue().len()
        );
        // What model APIs take of a tool (name, description, input schema); the output
        // schemas and annotations ride in the protocol only.
        let seen = mcp::model_visible_json();
        println!(
            "{:<52} {} cl100k tokens, {} chars",
            "  of which a model sees (name, description, input)",
            tokens(&seen),
            seen.len()
        );
    }
    Ok(())
}

async fn cold_start(browser_args: &BrowserArgs, page: &str, runs: usize) -> anyhow::Result<()> {
    let mut cold = Vec::new();
    for _ in 0..runs {
        let engine = Engine::new(browser_args.engine_options("bench"));
        let started = Instant::now();
        let envelope = engine
            .call(tool::Navigate::NAME, json!({ "url": page }), None)
            .await;
        cold.push(started.elapsed());
        anyhow::ensure!(
            envelope.ok,
            "cold start navigate failed: {:?}",
            envelope.message
        );
        engine.shutdown().await;
    }
    report("cold start: launch Chromium → first page loaded", &cold);
    Ok(())
}

async fn calls(
    browser_args: &BrowserArgs,
    page: &str,
    other: &str,
    runs: usize,
) -> anyhow::Result<()> {
    let engine = Engine::new(browser_args.engine_options("bench"));
    let first = engine
        .call(tool::Navigate::NAME, json!({ "url": page }), None)
        .await;
    anyhow::ensure!(first.ok, "navigate failed: {:?}", first.message);
    let mut navigate = Vec::new();
    for i in 0..runs {
        let url = if i % 2 == 0 { other } else { page };
        let started = Instant::now();
        let envelope = engine
            .call(tool::Navigate::NAME, json!({ "url": url }), None)
            .await;
        navigate.push(started.elapsed());
        anyhow::ensure!(envelope.ok, "navigate failed: {:?}", envelope.message);
    }
    report("navigate (small page, load event)", &navigate);

    let mut snapshot = Vec::new();
    for _ in 0..runs {
        let started = Instant::now();
        let envelope = engine
            .call(tool::Snapshot::NAME, json!({ "mode": "text" }), None)
            .await;
        snapshot.push(started.elapsed());
        anyhow::ensure!(envelope.ok, "snapshot failed: {:?}", envelope.message);
    }
    report("snapshot mode:text (small page)", &snapshot);
    engine.shutdown().await;
    Ok(())
}

/// Screenshot latency as an agent sees it: the whole `screenshot` command (page-side
/// geometry read, capture, PNG encode in Chromium) on the catalog page at the desktop
/// preset, at CSS pixels (the default, 1280×800) and in device pixels (2560×1600
/// delivered as 1568×980).
async fn screenshot(browser_args: &BrowserArgs, page: &str, runs: usize) -> anyhow::Result<()> {
    let engine = Engine::new(browser_args.engine_options("bench"));
    let first = engine
        .call(tool::Navigate::NAME, json!({ "url": page }), None)
        .await;
    anyhow::ensure!(first.ok, "navigate failed: {:?}", first.message);
    let preset = engine
        .call(tool::Viewport::NAME, json!({ "preset": "desktop" }), None)
        .await;
    anyhow::ensure!(preset.ok, "viewport failed: {:?}", preset.message);
    for (scale, params) in [("css", json!({})), ("device", json!({ "scale": "device" }))] {
        let mut shots = Vec::new();
        let mut delivered = String::new();
        for _ in 0..runs {
            let started = Instant::now();
            let envelope = engine
                .call(tool::Screenshot::NAME, params.clone(), None)
                .await;
            shots.push(started.elapsed());
            anyhow::ensure!(envelope.ok, "screenshot failed: {:?}", envelope.message);
            delivered = format!(
                "{}×{}, {} KB",
                envelope.data["width"],
                envelope.data["height"],
                envelope
                    .image
                    .map_or(0, |image| image.data.len() * 3 / 4 / 1024)
            );
        }
        report(
            &format!("screenshot desktop preset, png, {scale} pixels ({delivered})"),
            &shots,
        );
    }
    engine.shutdown().await;
    Ok(())
}

async fn round_trip(browser_args: &BrowserArgs, runs: usize) -> anyhow::Result<()> {
    let deadline = Deadline::after(Duration::from_secs(30));
    let browser = Browser::start(browser_args.engine_options("bench").browser, deadline).await?;
    let mut task = Task::create(&browser, "bench", deadline).await?;
    let (_, tab) = task.open_tab(deadline).await?;
    let mut round_trips = Vec::new();
    for _ in 0..runs.max(100) {
        let started = Instant::now();
        tab.evaluate_one(deadline).await?;
        round_trips.push(started.elapsed());
    }
    report("CDP round trip (Runtime.evaluate 1)", &round_trips);
    browser.close(deadline).await;
    Ok(())
}

/// Prints one figure: the median of `samples` in milliseconds, with the range.
fn report(label: &str, samples: &[Duration]) {
    let mut sorted: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    sorted.sort_by(f64::total_cmp);
    println!(
        "{label:<52} median {:>8.3} ms  ({:.3}–{:.3}, n={})",
        median(&sorted),
        sorted.first().copied().unwrap_or_default(),
        sorted.last().copied().unwrap_or_default(),
        sorted.len()
    );
}

/// The median of sorted samples (0 for none).
fn median(sorted: &[f64]) -> f64 {
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn median_of_odd_even_and_no_samples() {
        assert_eq!(median(&[1.0, 2.0, 9.0]), 2.0);
        assert_eq!(median(&[1.0, 2.0, 4.0, 9.0]), 3.0);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn takes_the_flags_candor_bench_took() {
        BenchArgs::command().debug_assert();
        let args = BenchArgs::try_parse_from([
            "bench",
            "--only",
            "round-trip",
            "--runs",
            "30",
            "--chromium",
            "/opt/chromium",
            "--headed",
            "--command-timeout-ms",
            "1234",
            "--chromium-arg=--disable-gpu",
        ])
        .expect("parse");
        assert_eq!(args.only, Some(Figure::RoundTrip));
        assert_eq!(args.runs, 30);
        let options = args.browser.engine_options("bench");
        assert_eq!(options.command_timeout, Duration::from_millis(1234));
        assert_eq!(options.task_id, "bench");
        let Endpoint::Launch(launch) = options.browser.endpoint else {
            panic!("launches");
        };
        assert_eq!(launch.args, ["--disable-gpu"]);
    }

    #[test]
    fn tasks_are_a_list_or_repeated_and_peers_a_switch() {
        let listed =
            BenchArgs::try_parse_from(["bench", "--tasks", "1,5", "--peers"]).expect("parse");
        assert_eq!(listed.tasks, [1, 5]);
        assert!(listed.peers);
        let repeated =
            BenchArgs::try_parse_from(["bench", "--tasks", "1", "--tasks", "5"]).expect("parse");
        assert_eq!(repeated.tasks, [1, 5]);
        assert!(!repeated.peers);
        assert!(BenchArgs::try_parse_from(["bench", "--tasks", "0"]).is_err());
        let idle = BenchArgs::try_parse_from(["bench", "--only", "idle-tabs"]).expect("parse");
        assert_eq!(idle.only, Some(Figure::IdleTabs));
    }

    #[test]
    fn the_soak_takes_its_length_and_its_tasks() {
        let args = BenchArgs::try_parse_from([
            "bench",
            "--only",
            "soak",
            "--minutes",
            "3",
            "--tasks",
            "4",
        ])
        .expect("parse");
        assert_eq!(args.only, Some(Figure::Soak));
        assert_eq!((args.minutes, args.tasks.as_slice()), (3, &[4][..]));
        let defaults = BenchArgs::try_parse_from(["bench"]).expect("parse");
        assert_eq!((defaults.minutes, defaults.tasks.len()), (30, 0));
        assert!(BenchArgs::try_parse_from(["bench", "--minutes", "0"]).is_err());
    }

    #[test]
    fn the_pages_it_serves_are_in_the_repository() {
        for page in ["catalog.html", "about.html", "stuck.html"] {
            assert!(demo_site_dir().join(page).is_file(), "{page}");
        }
        for page in [
            "index.html",
            "page-a.html",
            "page-b.html",
            "download.html",
            "dialogs.html",
        ] {
            assert!(fixtures_dir().join(page).is_file(), "{page}");
        }
    }
}
