//! `bench --only many-tasks`: one warm daemon (`candor serve`, found as for `--only
//! daemon`) serving 1, 5, 10 and 20 tasks at once over HTTP (no process per call). Each
//! task loops navigate → snapshot → click with a verified `expect.text` on two fixture
//! pages (`page-a.html`, `page-b.html`, each a Submit button that writes its page's
//! name) for a fixed time; per level it prints p50/p95 per call kind, throughput, errors,
//! memory (the daemon's RSS; Chromium's PSS summed over the browser's process tree, per
//! task), and where the CPU went (the daemon, and Chromium by process type, in CPU
//! milliseconds per call).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::{Value, json};
use static_site::{Files, StaticSite};
use tools::tool;

use crate::warm_daemon::{
    candor_command, candor_executable, resident_kb, terminate, wait_for_daemon,
};

/// How many tasks run at once, level by level, unless `--tasks` says.
pub const LEVELS: [usize; 4] = [1, 5, 10, 20];

/// How long each level is measured (after one unmeasured round per task).
const MEASURE_FOR: Duration = Duration::from_secs(10);

/// The deadline of one call: long enough that a slow call is a latency, not an error.
pub(crate) const CALL_TIMEOUT_MS: u64 = 30_000;

/// The call kinds of one round, in order.
const KINDS: [&str; 3] = [tool::Navigate::NAME, tool::Snapshot::NAME, "click+expect"];

/// Measures with `candor` (else the one beside this executable), like `--only daemon`.
/// Tasks start with the browser `browser_args` asks for (headless or not, an executable,
/// extra switches), so a switch can be measured here.
pub async fn run(
    candor: Option<PathBuf>,
    required: bool,
    browser_args: &crate::BrowserArgs,
    levels: Vec<usize>,
) -> anyhow::Result<()> {
    let Some(executable) = candor_executable(candor, required, "many-tasks")? else {
        return Ok(());
    };
    let fixtures = StaticSite::start(Files::Dir(crate::fixtures_dir()))
        .context("cannot serve the fixtures")?;
    let pages = [
        (fixtures.url("page-a.html"), "Submitted on A"),
        (fixtures.url("page-b.html"), "Submitted on B"),
    ];
    let browser = task_browser(browser_args);
    tokio::task::spawn_blocking(move || measure(&executable, &pages, &browser, &levels))
        .await
        .context("the many-tasks benchmark stopped")?
}

/// The `browser` of a task's start (`POST /v1/tasks`): the one `browser_args` asks for
/// (headless or not, an executable, extra switches).
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

/// One fixture page and the text its Submit button writes.
pub(crate) type Page = (String, &'static str);

fn measure(
    executable: &Path,
    pages: &[Page; 2],
    browser: &Value,
    levels: &[usize],
) -> anyhow::Result<()> {
    let state = tempfile::Builder::new()
        .prefix("candor-bench-state-")
        .tempdir()
        .context("cannot create a state directory")?;
    let mut daemon = candor_command(executable, state.path(), &["serve"])
        .spawn()
        .context("cannot start candor serve")?;
    let measured = wait_for_daemon(state.path()).and_then(|client| {
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
            "click+expect",
            "daemon RSS",
            "Chromium PSS/t",
            "procs"
        );
        for &tasks in levels {
            level(&client, daemon.id(), tasks, pages, browser)?;
        }
        Ok(())
    });
    let _ = terminate(&mut daemon);
    measured
}

/// What one task saw: per call kind, the durations of the calls that succeeded, and the
/// failures.
#[derive(Default)]
struct Seen {
    took: BTreeMap<&'static str, Vec<Duration>>,
    errors: BTreeMap<&'static str, usize>,
    first_error: Option<String>,
}

fn level(
    client: &daemon::Client,
    daemon_pid: u32,
    tasks: usize,
    pages: &[Page; 2],
    browser: &Value,
) -> anyhow::Result<()> {
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
    let browser_pid = browser_pid(client);
    let cpu_before = cpu_ms(daemon_pid, browser_pid);
    let started = Instant::now();
    let mut all = Seen::default();
    for worker in workers {
        let seen = worker
            .join()
            .map_err(|_| anyhow::anyhow!("a task's worker panicked"))?;
        for (kind, took) in seen.took {
            all.took.entry(kind).or_default().extend(took);
        }
        for (kind, n) in seen.errors {
            *all.errors.entry(kind).or_default() += n;
        }
        all.first_error = all.first_error.or(seen.first_error);
    }
    let elapsed = started.elapsed();
    let cpu_after = cpu_ms(daemon_pid, browser_pid);
    let memory = browser_pid.map(tree_pss_kb);
    let calls: usize = all.took.values().map(Vec::len).sum();
    let errors: usize = all.errors.values().sum();
    let total = calls + errors;
    let cell = |kind: &str| {
        let mut ms: Vec<f64> = all
            .took
            .get(kind)
            .into_iter()
            .flatten()
            .map(|d| d.as_secs_f64() * 1000.0)
            .collect();
        ms.sort_by(f64::total_cmp);
        format!("{:.0}/{:.0}", percentile(&ms, 0.50), percentile(&ms, 0.95))
    };
    let rss_mb = resident_kb(daemon_pid).unwrap_or_default() as f64 / 1024.0;
    let (pss, procs) = memory.unwrap_or_default();
    let per_call = |ms: u64| ms as f64 / total.max(1) as f64;
    let spent = CpuSplit::spent(&cpu_before, &cpu_after);
    println!(
        "{:>5} {:>8.1} {:>6} {:>15} {:>15} {:>15} {:>7.0} MB {:>11.0} MB {:>5}  {:.1} | {:.1} {:.1} {:.1} {:.1}",
        tasks,
        calls as f64 / elapsed.as_secs_f64(),
        errors,
        cell(KINDS[0]),
        cell(KINDS[1]),
        cell(KINDS[2]),
        rss_mb,
        pss as f64 / 1024.0 / tasks as f64,
        procs,
        per_call(spent.daemon),
        per_call(spent.browser),
        per_call(spent.gpu),
        per_call(spent.renderer),
        per_call(spent.other),
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
    Ok(())
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

/// One round of a task: navigate to `page`, snapshot it, click its Submit button with a
/// verified `expect.text`.
fn round(client: &daemon::Client, task: &str, (url, written): &Page, seen: &mut Seen) {
    let calls = [
        json!({ "url": url }),
        json!({ "mode": "text" }),
        json!({ "action": "click", "role": "button", "name": "Submit",
                "expect": { "text": written } }),
    ];
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
            None => seen.took.entry(kind).or_default().push(took),
            Some(why) => {
                *seen.errors.entry(kind).or_default() += 1;
                seen.first_error
                    .get_or_insert_with(|| format!("{task} {kind}: {why}"));
            }
        }
    }
}

/// Why an answer is not a success (a click must also be verified).
pub(crate) fn failure(kind: &str, body: &Value) -> Option<String> {
    let verified = kind != "click+expect" || body["verification"]["verified"] == true;
    if body["ok"] == true && verified {
        return None;
    }
    Some(format!(
        "{} {}",
        body["code"].as_str().unwrap_or("not verified"),
        body["message"].as_str().unwrap_or_default()
    ))
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

/// The pid of the daemon's browser, from its task list.
pub(crate) fn browser_pid(client: &daemon::Client) -> Option<u32> {
    let listed = client.tasks().ok()?;
    listed.body["data"]["browser"]["pid"]
        .as_u64()
        .map(|pid| pid as u32)
}

/// Processes by parent pid, from `/proc/*/stat`.
fn children() -> BTreeMap<u32, Vec<u32>> {
    let mut tree: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for pid in all_pids() {
        if let Some(parent) = stat_fields(pid).and_then(|f| f.get(1)?.parse().ok()) {
            tree.entry(parent).or_default().push(pid);
        }
    }
    tree
}

pub(crate) fn all_pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .collect()
}

/// The fields of `/proc/PID/stat` after the command name: state (0), ppid (1), process
/// group (2), …, utime (11), stime (12), …, start time (19).
pub(crate) fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    Some(after_name.split_whitespace().map(str::to_string).collect())
}

/// `root` and every process below it.
pub(crate) fn tree(root: u32) -> Vec<u32> {
    let children = children();
    let mut found = vec![root];
    let mut next = 0;
    while next < found.len() {
        found.extend(children.get(&found[next]).into_iter().flatten());
        next += 1;
    }
    found
}

/// The summed `Pss` of `root`'s process tree in kB, and how many processes it has.
pub(crate) fn tree_pss_kb(root: u32) -> (u64, usize) {
    let pids = tree(root);
    let pss = pids
        .iter()
        .filter_map(|pid| {
            let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
            rollup
                .lines()
                .find_map(|line| line.strip_prefix("Pss:"))?
                .split_whitespace()
                .next()?
                .parse::<u64>()
                .ok()
        })
        .sum();
    (pss, pids.len())
}

/// CPU time (user + system) in ms: the daemon's, and Chromium's by process type.
#[derive(Debug, Default)]
struct CpuSplit {
    daemon: u64,
    browser: u64,
    gpu: u64,
    renderer: u64,
    other: u64,
    /// Per Chromium process, to subtract what a process had spent before the level.
    by_pid: BTreeMap<u32, u64>,
}

impl CpuSplit {
    /// What was spent between `before` and `after`; a process that began during the level
    /// counts whole, one that ended is lost (its time went with it).
    fn spent(before: &CpuSplit, after: &CpuSplit) -> CpuSplit {
        let mut spent = CpuSplit {
            daemon: after.daemon.saturating_sub(before.daemon),
            ..CpuSplit::default()
        };
        for (pid, ms) in &after.by_pid {
            let ms = ms.saturating_sub(before.by_pid.get(pid).copied().unwrap_or(0));
            *spent.bucket(*pid) += ms;
        }
        spent
    }

    fn bucket(&mut self, pid: u32) -> &mut u64 {
        // A zygote's children rewrite their command line as one string, so switches are
        // separated by spaces or by NULs.
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline);
        match cmdline
            .split(['\0', ' '])
            .find_map(|arg| arg.strip_prefix("--type="))
        {
            None => &mut self.browser,
            Some("gpu-process") => &mut self.gpu,
            Some("renderer") => &mut self.renderer,
            Some(_) => &mut self.other,
        }
    }
}

fn cpu_ms(daemon: u32, browser: Option<u32>) -> CpuSplit {
    // SAFETY: sysconf has no preconditions.
    let ticks = (unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).max(1) as u64;
    let ms = |pid: u32| {
        let fields = stat_fields(pid)?;
        let utime: u64 = fields.get(11)?.parse().ok()?;
        let stime: u64 = fields.get(12)?.parse().ok()?;
        Some((utime + stime) * 1000 / ticks)
    };
    CpuSplit {
        daemon: ms(daemon).unwrap_or(0),
        by_pid: browser
            .map(tree)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|pid| Some((pid, ms(pid)?)))
            .collect(),
        ..CpuSplit::default()
    }
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
        assert_eq!(failure("click+expect", &ok), None);
        assert!(failure("click+expect", &unverified).is_some());
        assert_eq!(failure("snapshot", &unverified), None);
        assert!(failure("navigate", &json!({ "ok": false, "code": "X" })).is_some());
    }

    #[test]
    fn this_process_is_in_its_own_tree() {
        let me = std::process::id();
        let (pss, procs) = tree_pss_kb(me);
        assert!(procs >= 1);
        assert!(pss > 0);
    }
}
