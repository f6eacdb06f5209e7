//! `candor bench`: the per-call figures of SPEC §17 on the built-in site, as medians.
//! Figures, not assertions: machines are noisy, so nothing here passes or fails.
//! `--only FIGURE` measures one of them.

use std::time::{Duration, Instant};

use browser::{Browser, Deadline, Task};
use clap::Args;
use serde_json::json;
use tools::Engine;

use crate::BrowserArgs;
use crate::site::Site;

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Runs per figure (at least 20 for a stable median).
    #[arg(long, default_value_t = 20)]
    runs: usize,
    /// Measure only this figure.
    #[arg(long, value_enum)]
    only: Option<Figure>,
}

/// The figures `bench` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Figure {
    /// Launch Chromium → first page loaded.
    Cold,
    /// navigate, and snapshot mode:text.
    Calls,
    /// screenshot of the catalog page at the desktop preset (PNG, 1568×980).
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
}

pub async fn run(browser_args: &BrowserArgs, args: BenchArgs) -> anyhow::Result<()> {
    let runs = args.runs.max(1);
    let measure = |figure| args.only.is_none_or(|only| only == figure);
    let site = Site::start().await?;
    let page = site.url("catalog.html");
    let other = site.url("about.html");
    println!("candor bench: {runs} runs per figure, medians (min–max)\n");

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
        crate::bench_acting::run(browser_args, &site, runs).await?;
    }
    if measure(Figure::Faults) {
        crate::bench_faults::run(browser_args, &site, runs).await?;
    }
    if measure(Figure::Snapshots) {
        crate::bench_snapshots::run(browser_args, runs).await?;
    }
    if measure(Figure::Daemon) {
        crate::bench_daemon::run(&site, runs).await?;
    }
    if measure(Figure::ToolsList) {
        let list = mcp::tools_list_json();
        println!(
            "{:<52} {} chars ≈ {} tokens ({} tools)",
            "MCP tools/list size",
            list.len(),
            list.len() / 4,
            tools::catalogue().len()
        );
    }
    Ok(())
}

async fn cold_start(browser_args: &BrowserArgs, page: &str, runs: usize) -> anyhow::Result<()> {
    let mut cold = Vec::new();
    for _ in 0..runs {
        let engine = Engine::new(browser_args.engine_options("bench"));
        let started = Instant::now();
        let envelope = engine.call("navigate", json!({ "url": page }), None).await;
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
    let first = engine.call("navigate", json!({ "url": page }), None).await;
    anyhow::ensure!(first.ok, "navigate failed: {:?}", first.message);
    let mut navigate = Vec::new();
    for i in 0..runs {
        let url = if i % 2 == 0 { other } else { page };
        let started = Instant::now();
        let envelope = engine.call("navigate", json!({ "url": url }), None).await;
        navigate.push(started.elapsed());
        anyhow::ensure!(envelope.ok, "navigate failed: {:?}", envelope.message);
    }
    report("navigate (small page, load event)", &navigate);

    let mut snapshot = Vec::new();
    for _ in 0..runs {
        let started = Instant::now();
        let envelope = engine
            .call("snapshot", json!({ "mode": "text" }), None)
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
/// preset, so each image is 2560×1600 device pixels delivered as 1568×980.
async fn screenshot(browser_args: &BrowserArgs, page: &str, runs: usize) -> anyhow::Result<()> {
    let engine = Engine::new(browser_args.engine_options("bench"));
    let first = engine.call("navigate", json!({ "url": page }), None).await;
    anyhow::ensure!(first.ok, "navigate failed: {:?}", first.message);
    let preset = engine
        .call("viewport", json!({ "preset": "desktop" }), None)
        .await;
    anyhow::ensure!(preset.ok, "viewport failed: {:?}", preset.message);
    let mut shots = Vec::new();
    let mut delivered = String::new();
    for _ in 0..runs {
        let started = Instant::now();
        let envelope = engine.call("screenshot", json!({}), None).await;
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
        &format!("screenshot desktop preset, png ({delivered})"),
        &shots,
    );
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

pub(crate) fn report(label: &str, samples: &[Duration]) {
    let mut sorted: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    sorted.sort_by(f64::total_cmp);
    let median = match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    };
    println!(
        "{label:<52} median {median:>8.3} ms  ({:.3}–{:.3}, n={})",
        sorted.first().copied().unwrap_or_default(),
        sorted.last().copied().unwrap_or_default(),
        sorted.len()
    );
}
