//! `bench --only snapshots --peers`: a snapshot's time beside the peers', each tool
//! driven the same way — one MCP server over stdio (`candor mcp`, Playwright MCP, Chrome
//! DevTools MCP), one session, its own headless Chromium — on the same pages: the first
//! snapshot after navigating (each run navigates again), then the same page snapshotted
//! again and again. Figures, not assertions; a snapshot that fails or comes back empty
//! stops the figure.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::json;
use tokio::process::Command;
use tools::tool;

use crate::many_tasks::CALL_TIMEOUT_MS;
use crate::many_tasks::peers::{Installed, Session, Sessions};

/// One page of the figure: its label and URL.
pub struct Page {
    pub label: String,
    pub url: String,
}

/// One tool's medians of one page, in milliseconds.
struct Medians {
    /// The first snapshot after navigating.
    first: f64,
    /// The navigation and that snapshot: what a tool's navigate waits for differs (the
    /// load event, or more), and what it does not wait for the snapshot pays.
    loaded_and_read: f64,
    /// The same page snapshotted again.
    again: f64,
}

/// One tool's medians, page by page.
struct Column {
    name: String,
    medians: Vec<Medians>,
}

/// Measures candor (`executable mcp`) and every installed peer on `pages`, `runs` times
/// each, and prints one table.
pub async fn run(
    executable: &Path,
    installed: &Installed,
    pages: &[Page],
    runs: usize,
) -> anyhow::Result<()> {
    let mut columns = Vec::new();
    let state = tempfile::Builder::new()
        .prefix("candor-bench-state-")
        .tempdir()
        .context("cannot create a state directory")?;
    let mut command = Command::new(executable);
    command
        .arg("mcp")
        .env("CANDOR_STATE_DIR", state.path())
        .env("TMPDIR", state.path());
    let candor = Session::start("candor".into(), command)?;
    let tools = (tool::Navigate::NAME, tool::Snapshot::NAME);
    columns.push(measure_session(candor, "candor", tools, pages, runs).await?);
    for ready in &installed.peers {
        let mut sessions = Sessions::spawn(installed, ready, 1)?;
        let session = sessions.sessions.pop().context("one session")?;
        let name = format!("{} {}", ready.peer.name, ready.version);
        let tools = ready.peer.navigate_and_snapshot();
        let measured = measure_session(session, &name, tools, pages, runs).await;
        sessions.close().await;
        columns.push(measured?);
    }
    print(&columns, pages, runs);
    Ok(())
}

/// Connects `session` and measures it on every page; closes it either way.
async fn measure_session(
    mut session: Session,
    name: &str,
    (navigate, snapshot): (&str, &str),
    pages: &[Page],
    runs: usize,
) -> anyhow::Result<Column> {
    let measured = async {
        session.connect().await?;
        let mut medians = Vec::with_capacity(pages.len());
        for page in pages {
            medians.push(measure_page(&session, navigate, snapshot, page, runs).await?);
        }
        anyhow::Ok(medians)
    }
    .await;
    session.close().await;
    Ok(Column {
        name: name.to_string(),
        medians: measured.with_context(|| format!("{name}: snapshots beside the peers"))?,
    })
}

/// `runs` × (navigate, snapshot), then `runs` snapshots of the page as it is. The first
/// navigate (which may launch the browser) and one snapshot are not measured.
async fn measure_page(
    session: &Session,
    navigate: &str,
    snapshot: &str,
    page: &Page,
    runs: usize,
) -> anyhow::Result<Medians> {
    let within = Duration::from_millis(CALL_TIMEOUT_MS);
    let open = async || {
        let started = Instant::now();
        session
            .call(navigate, json!({ "url": page.url }), within)
            .await
            .map_err(|why| anyhow::anyhow!("{}: {navigate} failed: {why}", page.label))?;
        anyhow::Ok(started.elapsed().as_secs_f64() * 1000.0)
    };
    let timed_snapshot = async || {
        let started = Instant::now();
        let text = session
            .call(snapshot, json!({}), within)
            .await
            .map_err(|why| anyhow::anyhow!("{}: {snapshot} failed: {why}", page.label))?;
        let took = started.elapsed().as_secs_f64() * 1000.0;
        anyhow::ensure!(
            !text.trim().is_empty(),
            "{}: {snapshot} answered nothing",
            page.label
        );
        anyhow::Ok(took)
    };
    open().await?;
    timed_snapshot().await?;
    let mut first = Vec::with_capacity(runs);
    let mut loaded_and_read = Vec::with_capacity(runs);
    for _ in 0..runs {
        let opened = open().await?;
        let read = timed_snapshot().await?;
        first.push(read);
        loaded_and_read.push(opened + read);
    }
    let mut again = Vec::with_capacity(runs);
    for _ in 0..runs {
        again.push(timed_snapshot().await?);
    }
    let median = |mut times: Vec<f64>| {
        times.sort_by(f64::total_cmp);
        crate::median(&times)
    };
    Ok(Medians {
        first: median(first),
        loaded_and_read: median(loaded_and_read),
        again: median(again),
    })
}

fn print(columns: &[Column], pages: &[Page], runs: usize) {
    println!(
        "\nsnapshots beside the peers: one MCP session each over stdio, {runs} runs, median ms: \
         the first snapshot after navigating / navigate and that snapshot / the same page again"
    );
    let header: Vec<String> = columns.iter().map(|c| format!("{:>26}", c.name)).collect();
    println!("{:<44} {}", "page", header.join(" "));
    for (i, page) in pages.iter().enumerate() {
        let cells: Vec<String> = columns
            .iter()
            .map(|c| {
                let m = &c.medians[i];
                let cell = format!("{:.1} / {:.1} / {:.1}", m.first, m.loaded_and_read, m.again);
                format!("{cell:>26}")
            })
            .collect();
        println!("{:<44} {}", page.label, cells.join(" "));
    }
}
