//! `bench --only many-tasks`: one warm daemon (`candor serve`, found as for `--only
//! daemon`) serving 1, 5, 10 and 20 tasks at once over HTTP (no process per call). Each
//! task loops navigate → snapshot → click with a verified `expect.text` on two fixture
//! pages (`page-a.html`, `page-b.html`, each a Submit button that writes its page's
//! name) for a fixed time; per level it prints p50/p95 per call kind, throughput, errors,
//! memory (the daemon's RSS; Chromium's PSS summed over the browser's process tree, per
//! task), and where the CPU went (the daemon, and Chromium by process type, in CPU
//! milliseconds per call).
//!
//! With `--peers`, each level also runs the same loop through two other MCP servers an
//! operator would run instead (`peers.rs`: one server and one Chromium per session), and
//! a table sets the three side by side: calls per second and per CPU-second of the whole
//! tool (server and browser processes), latency per call kind, memory per session,
//! errors. `idle.rs` is the idle-tabs figure: what a tab left alone costs each tool.

pub mod idle;
pub(crate) mod peers;
pub(crate) mod procs;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::{Value, json};
use static_site::{Files, StaticSite};
use tools::tool;

use crate::warm_daemon::{
    candor_command, candor_executable, resident_kb, terminate, wait_for_daemon,
};
use procs::{Cpu, Kind, Sample};

/// How many tasks run at once, level by level, unless `--tasks` says.
pub const LEVELS: [usize; 4] = [1, 5, 10, 20];

/// How long each level is measured (after one unmeasured round per task).
const MEASURE_FOR: Duration = Duration::from_secs(10);

/// The deadline of one call: long enough that a slow call is a latency, not an error.
pub(crate) const CALL_TIMEOUT_MS: u64 = 30_000;

/// The call kinds of one round, in order.
const KINDS: [&str; 3] = [tool::Navigate::NAME, tool::Snapshot::NAME, CLICK_EXPECT];

/// Candor's click: one call that clicks and verifies the text it writes.
const CLICK_EXPECT: &str = "click+expect";

/// Measures with `candor` (else the one beside this executable), like `--only daemon`.
/// Tasks start with the browser `browser_args` asks for (headless or not, an executable,
/// extra switches), so a switch can be measured here. With `peers`, the peers run each
/// level too (when `scripts/bench-peers` installed them; else one line says so).
pub async fn run(
    candor: Option<PathBuf>,
    required: bool,
    browser_args: &crate::BrowserArgs,
    levels: Vec<usize>,
    peers: bool,
) -> anyhow::Result<()> {
    let Some(executable) = candor_executable(candor, required, "many-tasks")? else {
        return Ok(());
    };
    let fixtures = StaticSite::start(Files::Dir(crate::fixtures_dir()))
        .context("cannot serve the fixtures")?;
    let pages = fixture_pages(&fixtures);
    let peers = if peers {
        peers::Installed::find(browser_args)?
    } else {
        None
    };
    let browser = task_browser(browser_args);
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        measure(
            &executable,
            &pages,
            &browser,
            &levels,
            peers.as_ref(),
            &runtime,
        )
    })
    .await
    .context("the many-tasks benchmark stopped")?
}

/// One fixture page and the text its Submit button writes.
pub(crate) type Page = (String, &'static str);

/// The two pages every session alternates between.
fn fixture_pages(fixtures: &StaticSite) -> [Page; 2] {
    [
        (fixtures.url("page-a.html"), "Submitted on A"),
        (fixtures.url("page-b.html"), "Submitted on B"),
    ]
}

/// The `browser` of a task the daemon starts: what `browser_args` asks for.
pub(crate) fn task_browser(browser_args: &crate::BrowserArgs) -> Value {
    let mut browser = json!({ "headless": !browser_args.headed });
    if let Some(chromium) = &browser_args.chromium {
        browser["executable"] = json!(chromium);
    }
    if !browser_args.chromium_args.is_empty() {
        browser["args"] = json!(browser_args.chromium_args);
    }
    browser
}

fn measure(
    executable: &Path,
    pages: &[Page; 2],
    browser: &Value,
    levels: &[usize],
    peers: Option<&peers::Installed>,
    runtime: &tokio::runtime::Handle,
) -> anyhow::Result<()> {
    let daemon = Daemon::start(executable)?;
    println!(
        "many tasks on one daemon: each task loops navigate → snapshot → click+expect on \
         fixtures page-a/page-b, {} s per level (p50/p95 in ms; CPU in ms per call)",
        MEASURE_FOR.as_secs()
    );
    println!(
        "{:>5} {:>8} {:>6} {:>15} {:>15} {:>15} {:>10} {:>14} {:>5}  CPU/call: daemon | chromium browser gpu renderer other",
        "tasks",
        "calls/s",
        "errors",
        tool::Navigate::NAME,
        tool::Snapshot::NAME,
        CLICK_EXPECT,
        "daemon RSS",
        "Chromium PSS/t",
        "procs"
    );
    let mut rows = Vec::new();
    for &tasks in levels {
        rows.push(level(&daemon, tasks, pages, browser)?);
        if let Some(peers) = peers {
            for ready in &peers.peers {
                rows.push(runtime.block_on(peers::level(peers, ready, tasks, pages))?);
            }
        }
    }
    drop(daemon);
    if peers.is_some() {
        compare(&rows);
    }
    Ok(())
}

/// A `candor serve` of the figure's own, on a state directory of its own, answering;
/// stopped (SIGTERM, and waited for) when dropped.
struct Daemon {
    process: Child,
    client: daemon::Client,
    _state: tempfile::TempDir,
}

impl Daemon {
    fn start(executable: &Path) -> anyhow::Result<Daemon> {
        let state = tempfile::Builder::new()
            .prefix("candor-bench-state-")
            .tempdir()
            .context("cannot create a state directory")?;
        let mut process = candor_command(executable, state.path(), &["serve"])
            .spawn()
            .context("cannot start candor serve")?;
        match wait_for_daemon(state.path()) {
            Ok(client) => Ok(Daemon {
                process,
                client,
                _state: state,
            }),
            Err(err) => {
                let _ = terminate(&mut process);
                Err(err)
            }
        }
    }

    fn pid(&self) -> u32 {
        self.process.id()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = terminate(&mut self.process);
    }
}

/// What one task saw: per call kind, the durations of the calls that succeeded, and the
/// failures; how many rounds went through without one.
#[derive(Default)]
struct Seen {
    took: BTreeMap<&'static str, Vec<Duration>>,
    errors: BTreeMap<&'static str, usize>,
    first_error: Option<String>,
    rounds: usize,
}

impl Seen {
    fn ok(&mut self, kind: &'static str, took: Duration) {
        self.took.entry(kind).or_default().push(took);
    }

    fn failed(&mut self, session: &str, kind: &'static str, why: impl std::fmt::Display) {
        *self.errors.entry(kind).or_default() += 1;
        self.first_error
            .get_or_insert_with(|| format!("{session} {kind}: {why}"));
    }

    fn add(&mut self, other: Seen) {
        for (kind, took) in other.took {
            self.took.entry(kind).or_default().extend(took);
        }
        for (kind, n) in other.errors {
            *self.errors.entry(kind).or_default() += n;
        }
        self.first_error = self.first_error.take().or(other.first_error);
        self.rounds += other.rounds;
    }

    fn calls(&self) -> usize {
        self.took.values().map(Vec::len).sum()
    }

    fn errors(&self) -> usize {
        self.errors.values().sum()
    }

    /// `p50/p95` of a call kind, in ms.
    fn cell(&self, kind: &str) -> String {
        let mut ms: Vec<f64> = self
            .took
            .get(kind)
            .into_iter()
            .flatten()
            .map(|d| d.as_secs_f64() * 1000.0)
            .collect();
        ms.sort_by(f64::total_cmp);
        format!("{:.0}/{:.0}", percentile(&ms, 0.50), percentile(&ms, 0.95))
    }
}

/// One tool at one level, for the comparison: what its sessions saw, and what its
/// processes spent.
struct Row {
    tool: &'static str,
    sessions: usize,
    elapsed: Duration,
    seen: Seen,
    /// Its call kinds as the comparison's columns: navigate, snapshot, click.
    kinds: [&'static str; 3],
    cpu: Cpu,
    pss_kb: u64,
}

fn level(daemon: &Daemon, tasks: usize, pages: &[Page; 2], browser: &Value) -> anyhow::Result<Row> {
    let client = &daemon.client;
    let ids: Vec<String> = (0..tasks).map(|i| format!("many-{tasks}-{i}")).collect();
    start_tasks(client, &ids, browser)?;
    let barrier = Arc::new(Barrier::new(tasks + 1));
    let workers: Vec<_> = ids
        .iter()
        .map(|id| {
            let (client, id, pages, barrier) =
                (client.clone(), id.clone(), pages.clone(), barrier.clone());
            std::thread::spawn(move || {
                let mut unmeasured = Seen::default();
                round(&client, &id, &pages[0], &mut unmeasured);
                barrier.wait();
                let until = Instant::now() + MEASURE_FOR;
                let mut seen = Seen::default();
                let mut n = 1;
                while Instant::now() < until {
                    round(&client, &id, &pages[n % 2], &mut seen);
                    n += 1;
                }
                seen
            })
        })
        .collect();
    barrier.wait();
    // The daemon's tree: the daemon, and its browser below it.
    let roots = [daemon.pid()];
    let before = Sample::read(&roots);
    let started = Instant::now();
    let mut all = Seen::default();
    for worker in workers {
        all.add(
            worker
                .join()
                .map_err(|_| anyhow::anyhow!("a task's worker panicked"))?,
        );
    }
    let elapsed = started.elapsed();
    let after = Sample::read(&roots);
    let memory = after.memory();
    let spent = after.since(&before);
    let total = all.calls() + all.errors();
    let rss_mb = resident_kb(daemon.pid()).unwrap_or_default() as f64 / 1024.0;
    let per_call = |kind: Kind| spent.of(kind) as f64 / total.max(1) as f64;
    println!(
        "{:>5} {:>8.1} {:>6} {:>15} {:>15} {:>15} {:>7.0} MB {:>11.0} MB {:>5}  {:.1} | {:.1} {:.1} {:.1} {:.1}",
        tasks,
        all.calls() as f64 / elapsed.as_secs_f64(),
        all.errors(),
        all.cell(KINDS[0]),
        all.cell(KINDS[1]),
        all.cell(KINDS[2]),
        rss_mb,
        memory.chromium_kb as f64 / 1024.0 / tasks as f64,
        memory.chromium_procs,
        per_call(Kind::Server),
        per_call(Kind::Browser),
        per_call(Kind::Gpu),
        per_call(Kind::Renderer),
        per_call(Kind::Other),
    );
    println!(
        "      machine load (1 min) {}; the machine may be shared: compare runs back to back",
        load_average().unwrap_or_else(|| "unknown".into())
    );
    if let Some(error) = &all.first_error {
        println!("      first error: {error}");
    }
    for id in &ids {
        client.stop_task(id)?;
    }
    Ok(Row {
        tool: "candor",
        sessions: tasks,
        elapsed,
        seen: all,
        kinds: KINDS,
        cpu: spent,
        pss_kb: memory.total_kb(),
    })
}

/// Starts a task of each id on `browser` (a task start's `browser`).
pub(crate) fn start_tasks(
    client: &daemon::Client,
    ids: &[String],
    browser: &Value,
) -> anyhow::Result<()> {
    for id in ids {
        let started = client.start_task(&json!({ "id": id, "browser": browser }))?;
        anyhow::ensure!(
            started.body["ok"] == true,
            "task {id} did not start: {}",
            started.body
        );
    }
    Ok(())
}

/// The pid of the daemon's browser, from its task list.
pub(crate) fn browser_pid(client: &daemon::Client) -> Option<u32> {
    let listed = client.tasks().ok()?;
    listed.body["data"]["browser"]["pid"]
        .as_u64()
        .and_then(|pid| u32::try_from(pid).ok())
}

/// One round of a task: navigate to `page`, snapshot it, click its Submit button with a
/// verified `expect.text`.
fn round(client: &daemon::Client, task: &str, (url, written): &Page, seen: &mut Seen) {
    let calls = [
        json!({ "url": url }),
        json!({ "mode": "text" }),
        json!({ "action": "click", "role": "button", "name": "Submit",
                "expect": { "text": written } }),
    ];
    let mut failed = false;
    for ((kind, method), params) in KINDS
        .iter()
        .zip([tool::Navigate::NAME, tool::Snapshot::NAME, tool::Act::NAME])
        .zip(calls)
    {
        let started = Instant::now();
        let answer = client.command(task, method, &params, Some(CALL_TIMEOUT_MS), false);
        let took = started.elapsed();
        let failure = match answer {
            Ok(answer) => failure(kind, &answer.body),
            Err(err) => Some(err.to_string()),
        };
        match failure {
            None => seen.ok(kind, took),
            Some(why) => {
                seen.failed(task, kind, why);
                failed = true;
            }
        }
    }
    if !failed {
        seen.rounds += 1;
    }
}

/// Why an answer is not a success (a click must also be verified).
pub(crate) fn failure(kind: &str, body: &Value) -> Option<String> {
    let verified = kind != CLICK_EXPECT || body["verification"]["verified"] == true;
    if body["ok"] == true && verified {
        return None;
    }
    Some(format!(
        "{} {}",
        body["code"].as_str().unwrap_or("not verified"),
        body["message"].as_str().unwrap_or_default()
    ))
}

/// The comparison of candor with its peers, level by level.
fn compare(rows: &[Row]) {
    println!(
        "\ncandor beside its peers: the same loop per session on the same pages, {} s per \
         level (p50/p95 in ms). candor: one daemon, one Chromium, a task per session; a \
         peer: one MCP server and one Chromium per session. CPU and PSS are the whole \
         tool's: server process(es) and browser tree. candor's click is click+expect \
         (verified in the call); a peer's is a click by ref, verified by the snapshot after \
         it (counted under snapshot). A round: every call of one loop succeeded — the same \
         work for every tool, in 3 calls for candor and 4 for a peer, so rounds/CPU-s \
         compares the work a CPU-second buys and calls/CPU-s the cost of one call.",
        MEASURE_FOR.as_secs()
    );
    println!(
        "{:>5} {:<11} {:>8} {:>8} {:>11} {:>12} {:>13} {:>13} {:>13} {:>11} {:>6}  CPU ms/call: server | browser gpu renderer other",
        "sess.",
        "tool",
        "calls/s",
        "rounds/s",
        "calls/CPU-s",
        "rounds/CPU-s",
        tool::Navigate::NAME,
        tool::Snapshot::NAME,
        "click",
        "PSS/session",
        "errors",
    );
    for row in rows {
        let seconds = row.elapsed.as_secs_f64();
        let total = (row.seen.calls() + row.seen.errors()).max(1) as f64;
        let per_call = |kind: Kind| row.cpu.of(kind) as f64 / total;
        let cpu_seconds = (row.cpu.total() as f64 / 1000.0).max(0.001);
        println!(
            "{:>5} {:<11} {:>8.1} {:>8.1} {:>11.1} {:>12.1} {:>13} {:>13} {:>13} {:>8.0} MB {:>6}  {:.1} | {:.1} {:.1} {:.1} {:.1}",
            row.sessions,
            row.tool,
            row.seen.calls() as f64 / seconds,
            row.seen.rounds as f64 / seconds,
            row.seen.calls() as f64 / cpu_seconds,
            row.seen.rounds as f64 / cpu_seconds,
            row.seen.cell(row.kinds[0]),
            row.seen.cell(row.kinds[1]),
            row.seen.cell(row.kinds[2]),
            row.pss_kb as f64 / 1024.0 / row.sessions.max(1) as f64,
            row.seen.errors(),
            per_call(Kind::Server),
            per_call(Kind::Browser),
            per_call(Kind::Gpu),
            per_call(Kind::Renderer),
            per_call(Kind::Other),
        );
        if row.tool != "candor"
            && let Some(error) = &row.seen.first_error
        {
            println!("      first error: {error}");
        }
    }
    println!(
        "      machine load (1 min) {}; the machine may be shared: compare runs back to back",
        load_average().unwrap_or_else(|| "unknown".into())
    );
}

/// The 1-minute load average of the machine (`/proc/loadavg`), with its core count.
pub(crate) fn load_average() -> Option<String> {
    let loadavg = std::fs::read_to_string("/proc/loadavg").ok()?;
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    Some(format!(
        "{} on {cores} cores",
        loadavg.split_whitespace().next()?
    ))
}

/// The `p` quantile of sorted samples, nearest rank (0 for none).
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let samples: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(percentile(&samples, 0.50), 10.0);
        assert_eq!(percentile(&samples, 0.95), 19.0);
        assert_eq!(percentile(&[7.0], 0.95), 7.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }

    #[test]
    fn a_click_counts_only_when_verified() {
        let ok = json!({ "ok": true, "verification": { "verified": true } });
        let unverified = json!({ "ok": true, "verification": { "verified": false } });
        assert_eq!(failure(CLICK_EXPECT, &ok), None);
        assert!(failure(CLICK_EXPECT, &unverified).is_some());
        assert_eq!(failure("snapshot", &unverified), None);
        assert!(failure("navigate", &json!({ "ok": false, "code": "X" })).is_some());
    }

    #[test]
    fn what_sessions_saw_adds_up() {
        let mut all = Seen::default();
        let mut one = Seen::default();
        one.ok("navigate", Duration::from_millis(10));
        one.failed("s0", "click", "not seen");
        one.rounds = 1;
        let mut two = Seen::default();
        two.ok("navigate", Duration::from_millis(30));
        two.failed("s1", "click", "later");
        two.rounds = 2;
        all.add(one);
        all.add(two);
        assert_eq!(all.calls(), 2);
        assert_eq!(all.errors(), 2);
        assert_eq!(all.rounds, 3);
        assert_eq!(all.cell("navigate"), "10/30");
        assert_eq!(all.first_error.as_deref(), Some("s0 click: not seen"));
    }
}
