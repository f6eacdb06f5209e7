//! `bench --only soak`: what a daemon keeps over a long run, and what it leaves when it
//! stops. One warm daemon (`candor serve`, found as for `--only daemon`) and `--tasks`
//! tasks (default 10) working over HTTP for `--minutes` (default 30). Each task loops
//! navigate → snapshot → click with a verified `expect.text` on the fixture pages
//! `page-a.html` and `page-b.html`, and every fourth round also opens a tab and closes it,
//! downloads `download.html`'s report, and clicks `dialogs.html`'s button that opens an
//! `alert()` (answered by the default dialog policy; the click's `expect.text` is what the
//! page writes once the alert has returned). Every minute one row: the calls that ended
//! in it and how many failed, the daemon's RSS, its heap as the allocator counts it (in
//! use, held) and what its bounded buffers hold (the daemon's memory report, `memory.rs`),
//! its open descriptors, the PSS summed over the browser's process tree and the number of
//! its processes. Then every task stops, the daemon gets SIGTERM, and what it left is
//! checked: no process seen in the browser's tree (or in its process group) alive,
//! nothing left in the daemon's temporary folder (a folder of the run's own, passed as
//! `TMPDIR`, so no other process on the machine writes there); what is new in the
//! machine's temporary folder is listed beside it. Last, each buffer minute by minute.
//!
//! Open tabs are not a column of the first table: a tab left open by a close is counted as
//! that call's error (its answer lists the task's tabs). The buffers' table says how many
//! tabs' buffers the daemon counted.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::{Value, json};
use static_site::{Files, StaticSite};
use tools::tool;

use crate::many_tasks::procs::{all_pids, stat_fields, tree, tree_pss_kb};
use crate::many_tasks::{
    CALL_TIMEOUT_MS, Page, browser_pid, failure, load_average, start_tasks, task_browser,
};
use crate::warm_daemon::{
    candor_command, candor_executable, resident_kb, terminate, wait_for_daemon,
};

mod memory;

use memory::Memory;

/// How many tasks work at once unless `--tasks` says.
pub const TASKS: usize = 10;

/// Every this many rounds a task also opens and closes a tab, downloads, and meets an alert.
const EXTRAS_EVERY: usize = 4;

/// How often the browser's process tree is read between rows, to know every process it
/// had (renderers come and go within a minute).
const SAMPLE_EVERY: Duration = Duration::from_secs(5);

const MINUTE: Duration = Duration::from_secs(60);

/// How long the browser's processes may take to go once the daemon has exited: the browser
/// is killed as the daemon ends, and its renderers and zygote exit when its pipes close.
const LEFTOVER_GRACE: Duration = Duration::from_secs(10);

/// The minute whose figures are compared with the last one's, the first minutes being the
/// warm-up (caches, the browser's first renderers).
const WARM_FROM_MINUTE: usize = 3;

/// Runs the soak with `candor` (else the one beside this executable), its tasks' browser
/// as `browser_args` asks, for `minutes`.
pub async fn run(
    candor: Option<PathBuf>,
    browser_args: &crate::BrowserArgs,
    tasks: usize,
    minutes: u64,
) -> anyhow::Result<()> {
    let Some(executable) = candor_executable(candor, true, "soak")? else {
        return Ok(());
    };
    let fixtures = StaticSite::start(Files::Dir(crate::fixtures_dir()))
        .context("cannot serve the fixtures")?;
    let site = Site {
        pages: [
            (fixtures.url("page-a.html"), "Submitted on A"),
            (fixtures.url("page-b.html"), "Submitted on B"),
        ],
        download: fixtures.url("download.html"),
        dialogs: fixtures.url("dialogs.html"),
    };
    let browser = task_browser(browser_args);
    let minutes = usize::try_from(minutes).context("too many minutes")?;
    tokio::task::spawn_blocking(move || soak(&executable, &site, &browser, tasks, minutes))
        .await
        .context("the soak stopped")?
}

/// The fixture pages a task works on.
#[derive(Clone)]
struct Site {
    /// Pages with a Submit button, and what it writes.
    pages: [Page; 2],
    /// A link that downloads a small CSV file.
    download: String,
    /// A button (Greet) that opens an alert and then writes "Alerted".
    dialogs: String,
}

fn soak(
    executable: &Path,
    site: &Site,
    browser: &Value,
    tasks: usize,
    minutes: usize,
) -> anyhow::Result<()> {
    let state = tempfile::Builder::new()
        .prefix("candor-bench-state-")
        .tempdir()
        .context("cannot create a state directory")?;
    let daemon_tmp = tempfile::Builder::new()
        .prefix("candor-soak-tmp-")
        .tempdir()
        .context("cannot create the daemon's temporary folder")?;
    let machine_tmp = std::env::temp_dir();
    let before = entries(&machine_tmp);
    let mut daemon = candor_command(executable, state.path(), &["serve"])
        .env("TMPDIR", daemon_tmp.path())
        // Each task downloads for as long as the soak runs; the default limit would cancel
        // its downloads after the first hundred.
        .env(
            "CANDOR_DOWNLOAD_MAX_COUNT",
            tools::defaults::DOWNLOAD_MAX_COUNT.end().to_string(),
        )
        .spawn()
        .context("cannot start candor serve")?;
    println!(
        "soak: {tasks} tasks on one daemon for {minutes} min; each loops navigate → snapshot → \
         click+expect on fixtures page-a/page-b, and every {EXTRAS_EVERY} rounds also opens and \
         closes a tab, downloads a file and clicks through an alert (dialog policy auto)"
    );
    let mut seen = Seen::default();
    let ran = wait_for_daemon(state.path()).and_then(|client| {
        drive(
            &client,
            &mut daemon,
            site,
            browser,
            tasks,
            minutes,
            &mut seen,
        )
    });
    let stopped = terminate(&mut daemon);
    println!();
    match &stopped {
        Ok(status) => println!("daemon stopped with SIGTERM: {status}"),
        Err(err) => println!("daemon stopped with SIGTERM, but waiting for it failed: {err}"),
    }
    check_processes(&seen);
    check_folders(daemon_tmp.path(), &machine_tmp, &before);
    if let Some(summary) = &seen.summary {
        summary.print(&seen.rows);
    }
    let minutes: Vec<(usize, Option<&Memory>)> = seen
        .rows
        .iter()
        .map(|row| (row.minute, row.memory.as_ref()))
        .collect();
    memory::print_table(&minutes);
    ran
}

/// What the run saw: the rows, every process of the browser's tree (with its start time, so
/// a pid reused later is not taken for it), the browsers, and the totals.
#[derive(Default)]
struct Seen {
    rows: Vec<Row>,
    processes: BTreeMap<u32, u64>,
    browsers: BTreeSet<u32>,
    summary: Option<Totals>,
}

impl Seen {
    /// Reads the browser's process tree (the browser the daemon's task list names now).
    fn sample(&mut self, client: &daemon::Client) -> Option<u32> {
        let browser = browser_pid(client)?;
        self.browsers.insert(browser);
        for pid in tree(browser) {
            if let Some(started) = start_time(pid) {
                self.processes.insert(pid, started);
            }
        }
        Some(browser)
    }
}

/// One minute's row.
struct Row {
    minute: usize,
    calls: usize,
    errors: usize,
    rss_kb: Option<u64>,
    /// The daemon's memory report at the minute's end.
    memory: Option<Memory>,
    pss_kb: Option<u64>,
    fds: Option<usize>,
    procs: Option<usize>,
}

/// The whole run's counts.
#[derive(Default)]
struct Totals {
    calls: usize,
    /// Of the calls, those that ended after the last minute (the tasks' last calls).
    late: usize,
    errors: BTreeMap<&'static str, usize>,
    first_error: Option<String>,
    downloads_clicked: usize,
    downloads_completed: usize,
}

/// One call a task made.
struct Done {
    kind: &'static str,
    /// Why it failed: the task, the kind and the reason.
    failure: Option<String>,
    /// Downloads its answer reported completed (`events.download`).
    downloads_completed: usize,
}

/// Starts the tasks, lets them work `minutes`, printing a row a minute, then stops them.
fn drive(
    client: &daemon::Client,
    daemon: &mut Child,
    site: &Site,
    browser: &Value,
    tasks: usize,
    minutes: usize,
    seen: &mut Seen,
) -> anyhow::Result<()> {
    let ids: Vec<String> = (0..tasks).map(|i| format!("soak-{i}")).collect();
    start_tasks(client, &ids, browser)?;
    let stop = Arc::new(AtomicBool::new(false));
    let (done, calls) = mpsc::channel();
    let workers: Vec<_> = ids
        .iter()
        .map(|id| {
            let worker = Worker {
                client: client.clone(),
                task: id.clone(),
                stop: stop.clone(),
                done: done.clone(),
            };
            let site = site.clone();
            std::thread::spawn(move || worker.work(&site))
        })
        .collect();
    drop(done);
    println!(
        "{:>6} {:>6} {:>6} {:>11} {:>10} {:>10} {:>10} {:>13} {:>10} {:>6} {:>6}",
        "minute",
        "calls",
        "errors",
        "daemon RSS",
        "heap used",
        "heap held",
        "buffers",
        "Chromium PSS",
        "daemon fds",
        "procs",
        "load"
    );
    let mut totals = Totals::default();
    let started = Instant::now();
    let mut watched = Ok(());
    for minute in 1..=minutes {
        let ends = started + MINUTE * u32::try_from(minute).unwrap_or(u32::MAX);
        let mut row = Row {
            minute,
            calls: 0,
            errors: 0,
            rss_kb: None,
            memory: None,
            pss_kb: None,
            fds: None,
            procs: None,
        };
        watched = watch_until(ends, client, daemon, &calls, seen, &mut row, &mut totals);
        let browser = seen.sample(client);
        row.rss_kb = resident_kb(daemon.id());
        row.memory = Memory::read(client);
        row.fds = open_descriptors(daemon.id());
        if let Some((pss, procs)) = browser.map(tree_pss_kb) {
            row.pss_kb = Some(pss);
            row.procs = Some(procs);
        }
        row.print();
        seen.rows.push(row);
        if watched.is_err() {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    for worker in workers {
        if worker.join().is_err() {
            totals
                .first_error
                .get_or_insert_with(|| "a task's worker panicked".into());
        }
    }
    // Calls that ended after the last minute are in no row, but they count.
    for late in calls.try_iter() {
        totals.tally(&late);
        totals.late += 1;
    }
    seen.summary = Some(totals);
    watched?;
    for id in &ids {
        let stopped = client.stop_task(id)?;
        anyhow::ensure!(
            stopped.body["ok"] == true,
            "task {id} did not stop: {}",
            stopped.body
        );
    }
    Ok(())
}

/// Counts the calls that end until `ends`, reading the browser's tree every
/// [`SAMPLE_EVERY`]; an error when the daemon has exited meanwhile or no task works any
/// more.
fn watch_until(
    ends: Instant,
    client: &daemon::Client,
    daemon: &mut Child,
    calls: &mpsc::Receiver<Done>,
    seen: &mut Seen,
    row: &mut Row,
    totals: &mut Totals,
) -> anyhow::Result<()> {
    let mut next_sample = Instant::now();
    loop {
        let now = Instant::now();
        if now >= ends {
            return Ok(());
        }
        if now >= next_sample {
            if let Some(status) = daemon.try_wait()? {
                anyhow::bail!("the daemon exited during minute {}: {status}", row.minute);
            }
            seen.sample(client);
            next_sample = now + SAMPLE_EVERY;
        }
        match calls.recv_timeout(ends.min(next_sample).saturating_duration_since(now)) {
            Ok(done) => {
                row.calls += 1;
                row.errors += usize::from(done.failure.is_some());
                totals.tally(&done);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                anyhow::bail!("every task's worker ended during minute {}", row.minute)
            }
        }
    }
}

impl Totals {
    fn tally(&mut self, done: &Done) {
        self.calls += 1;
        self.downloads_clicked += usize::from(done.kind == DOWNLOAD_CLICK);
        self.downloads_completed += done.downloads_completed;
        if let Some(why) = &done.failure {
            *self.errors.entry(done.kind).or_default() += 1;
            self.first_error.get_or_insert_with(|| why.clone());
        }
    }
}

const DOWNLOAD_CLICK: &str = "download click";

/// One task's loop, on a thread of its own (the daemon's client blocks).
struct Worker {
    client: daemon::Client,
    task: String,
    stop: Arc<AtomicBool>,
    done: mpsc::Sender<Done>,
}

impl Worker {
    fn work(&self, site: &Site) {
        let mut round = 0;
        while !self.stop.load(Ordering::Relaxed) {
            let (url, written) = &site.pages[round % 2];
            self.call(tool::Navigate::NAME, json!({ "url": url }), no_check);
            self.call(tool::Snapshot::NAME, json!({ "mode": "text" }), no_check);
            self.call(
                "click+expect",
                json!({ "action": "click", "role": "button", "name": "Submit",
                        "expect": { "text": written } }),
                no_check,
            );
            round += 1;
            if round % EXTRAS_EVERY == 0 {
                self.extras(site);
            }
        }
    }

    /// A tab opened and closed, a download, an alert.
    fn extras(&self, site: &Site) {
        let (url, _) = &site.pages[0];
        let opened = self.call("tabs new", json!({ "action": "new", "url": url }), no_check);
        if let Some(tab) = opened
            .as_ref()
            .and_then(|body| body["data"]["tabId"].as_str())
        {
            self.call(
                "tabs close",
                json!({ "action": "close", "tabId": tab }),
                tab_left_open,
            );
        }
        self.call(
            tool::Navigate::NAME,
            json!({ "url": site.download }),
            no_check,
        );
        self.call(
            DOWNLOAD_CLICK,
            json!({ "action": "click", "role": "link", "name": "Download the report" }),
            no_check,
        );
        self.call(
            tool::Navigate::NAME,
            json!({ "url": site.dialogs }),
            no_check,
        );
        self.call(
            "alert click+expect",
            json!({ "action": "click", "role": "button", "name": "Greet",
                    "expect": { "text": "Alerted" } }),
            unverified,
        );
    }

    /// Sends one call of `kind` (the tool named by it, or `act` for a click, or `tabs`),
    /// reports it, and answers its body when it succeeded. Nothing is sent once the soak
    /// is stopping.
    fn call(
        &self,
        kind: &'static str,
        params: Value,
        check: fn(&Value) -> Option<String>,
    ) -> Option<Value> {
        if self.stop.load(Ordering::Relaxed) {
            return None;
        }
        let method = match kind {
            "tabs new" | "tabs close" => tool::Tabs::NAME,
            tool::Navigate::NAME | tool::Snapshot::NAME => kind,
            _ => tool::Act::NAME,
        };
        let (body, why) =
            match self
                .client
                .command(&self.task, method, &params, Some(CALL_TIMEOUT_MS), false)
            {
                Ok(answer) => {
                    let why = failure(kind, &answer.body).or_else(|| check(&answer.body));
                    (Some(answer.body), why)
                }
                Err(err) => (None, Some(err.to_string())),
            };
        let _ = self.done.send(Done {
            kind,
            failure: why
                .as_ref()
                .map(|why| format!("{} {kind}: {why}", self.task)),
            downloads_completed: body.as_ref().map_or(0, completed_downloads),
        });
        body.filter(|_| why.is_none())
    }
}

fn no_check(_: &Value) -> Option<String> {
    None
}

/// A click whose `expect` did not hold.
fn unverified(body: &Value) -> Option<String> {
    (body["verification"]["verified"] != true).then(|| "not verified".to_string())
}

/// A close after which the task has more than its first tab.
fn tab_left_open(body: &Value) -> Option<String> {
    let open = body["data"]["tabs"].as_array().map_or(0, Vec::len);
    (open > 1).then(|| format!("{open} tabs open after the new one was closed"))
}

/// The downloads an answer reports completed.
fn completed_downloads(body: &Value) -> usize {
    body["events"]["download"].as_array().map_or(0, |list| {
        list.iter().filter(|d| d["state"] == "completed").count()
    })
}

impl Row {
    fn print(&self) {
        let heap = |bytes: fn(&Memory) -> Option<u64>| {
            megabytes(self.memory.as_ref().and_then(bytes).map(|b| b / 1024))
        };
        println!(
            "{:>6} {:>6} {:>6} {:>11} {:>10} {:>10} {:>10} {:>13} {:>10} {:>6} {:>6}",
            self.minute,
            self.calls,
            self.errors,
            megabytes(self.rss_kb),
            heap(|m| m.heap_in_use),
            heap(|m| m.heap_held),
            heap(|m| Some(m.buffers)),
            megabytes(self.pss_kb),
            count(self.fds),
            count(self.procs),
            load_average()
                .and_then(|load| load.split_whitespace().next().map(str::to_string))
                .unwrap_or_else(|| "?".into()),
        );
    }
}

fn megabytes(kb: Option<u64>) -> String {
    mb(kb).map_or_else(|| "–".into(), |mb| format!("{mb:.1} MB"))
}

fn mb(kb: Option<u64>) -> Option<f64> {
    kb.map(|kb| kb as f64 / 1024.0)
}

fn count(n: Option<usize>) -> String {
    n.map_or_else(|| "–".into(), |n| n.to_string())
}

/// How many descriptors a process has open (`/proc/PID/fd`).
fn open_descriptors(pid: u32) -> Option<usize> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count())
}

/// When a process started (clock ticks since boot): with its pid, it names one process.
fn start_time(pid: u32) -> Option<u64> {
    stat_fields(pid)?.get(19)?.parse().ok()
}

/// The processes still running (zombies are dead: only their parent's wait is missing)
/// that were seen in the browser's tree, or that are in a browser's process group (the
/// browser leads its own).
fn still_running(seen: &Seen) -> Vec<u32> {
    all_pids()
        .into_iter()
        .filter(|&pid| {
            let Some(fields) = stat_fields(pid) else {
                return false;
            };
            let field = |i: usize| fields.get(i).map(String::as_str);
            let seen_before = seen
                .processes
                .get(&pid)
                .is_some_and(|&started| field(19).and_then(|s| s.parse().ok()) == Some(started));
            let in_group = field(2)
                .and_then(|group| group.parse().ok())
                .is_some_and(|group: u32| seen.browsers.contains(&group));
            field(0) != Some("Z") && (seen_before || in_group)
        })
        .collect()
}

/// PASS when no process of the browser's is left within [`LEFTOVER_GRACE`].
fn check_processes(seen: &Seen) {
    let began = Instant::now();
    let mut left = still_running(seen);
    while !left.is_empty() && began.elapsed() < LEFTOVER_GRACE {
        std::thread::sleep(Duration::from_millis(50));
        left = still_running(seen);
    }
    let n = seen.processes.len();
    if left.is_empty() {
        println!(
            "PASS browser processes: none of the {n} seen during the run is left ({} ms after the daemon exited)",
            began.elapsed().as_millis()
        );
        return;
    }
    println!(
        "FAIL browser processes: {} left {} s after the daemon exited (of {n} seen):",
        left.len(),
        LEFTOVER_GRACE.as_secs()
    );
    for pid in left {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        println!("  {pid} {}", cmdline.chars().take(120).collect::<String>());
    }
}

/// PASS when the daemon's temporary folder is empty: candor and Chromium make their
/// folders in `TMPDIR`, which was the run's own. What is new in the machine's folder is
/// listed beside it, not judged: other processes write there too.
fn check_folders(daemon_tmp: &Path, machine_tmp: &Path, before: &BTreeSet<String>) {
    let left = entries(daemon_tmp);
    if left.is_empty() {
        println!(
            "PASS temporary folders: nothing left in the daemon's TMPDIR ({})",
            daemon_tmp.display()
        );
    } else {
        println!(
            "FAIL temporary folders: {} left in the daemon's TMPDIR ({}): {}",
            left.len(),
            daemon_tmp.display(),
            left.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    let new: Vec<String> = entries(machine_tmp).difference(before).cloned().collect();
    let (named, others): (Vec<String>, Vec<String>) = new.into_iter().partition(|name| {
        let name = name.to_lowercase();
        name.contains("candor") || name.contains("chrom")
    });
    println!(
        "     new in {} since the start, named like candor's or Chromium's: {} (and {} other \
         new entries; the folder is shared, so these may be other processes')",
        machine_tmp.display(),
        if named.is_empty() {
            "none".to_string()
        } else {
            named.join(", ")
        },
        others.len()
    );
}

/// The names in a folder.
fn entries(folder: &Path) -> BTreeSet<String> {
    std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .filter_map(|entry| Some(entry.ok()?.file_name().to_string_lossy().into_owned()))
        .collect()
}

impl Totals {
    /// The first and last minutes, and the growth from the end of the warm-up to the last.
    fn print(&self, rows: &[Row]) {
        let errors: usize = self.errors.values().sum();
        println!(
            "\ncalls: {} ({} of them ended after the last minute), errors: {errors}{}; \
             downloads: {} clicked, {} reported completed",
            self.calls,
            self.late,
            if self.errors.is_empty() {
                String::new()
            } else {
                let by_kind: Vec<String> = self
                    .errors
                    .iter()
                    .map(|(kind, n)| format!("{kind} {n}"))
                    .collect();
                format!(" ({})", by_kind.join(", "))
            },
            self.downloads_clicked,
            self.downloads_completed
        );
        if let Some(error) = &self.first_error {
            println!("first error: {error}");
        }
        let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
            return;
        };
        let warm = rows
            .iter()
            .find(|row| row.minute == WARM_FROM_MINUTE)
            .filter(|row| row.minute < last.minute);
        let warm_label = warm.map_or_else(
            || format!("growth from minute {WARM_FROM_MINUTE}: the run is too short"),
            |warm| format!("growth, minute {} → {}", warm.minute, last.minute),
        );
        println!(
            "{:<14} {:>10} {:>10} {:>10}  {warm_label}",
            "",
            format!("minute {}", first.minute),
            warm.map_or_else(String::new, |w| format!("minute {}", w.minute)),
            format!("minute {}", last.minute),
        );
        let (first, warm, last) = (first.figures(), warm.map(Row::figures), last.figures());
        for (i, (label, unit)) in FIGURES.into_iter().enumerate() {
            // Counts are whole; megabytes to a tenth.
            let places = if unit.is_empty() { 0 } else { 1 };
            let cell = |figures: Option<&[Option<f64>; FIGURE_COUNT]>| {
                figures
                    .and_then(|figures| figures[i])
                    .map_or_else(String::new, |v| format!("{v:.places$}{unit}"))
            };
            let growth = match (warm.and_then(|warm| warm[i]), last[i]) {
                (Some(from), Some(to)) if from > 0.0 => format!(
                    "{:+.places$}{unit} ({:+.1}%)",
                    to - from,
                    (to - from) / from * 100.0
                ),
                (Some(from), Some(to)) => format!("{:+.places$}{unit}", to - from),
                _ => String::new(),
            };
            println!(
                "{label:<14} {:>10} {:>10} {:>10}  {growth}",
                cell(Some(&first)),
                cell(warm.as_ref()),
                cell(Some(&last)),
            );
        }
    }
}

/// The figures the summary compares, with their units.
const FIGURES: [(&str, &str); FIGURE_COUNT] = [
    ("daemon RSS", " MB"),
    ("heap in use", " MB"),
    ("heap held", " MB"),
    ("buffers", " MB"),
    ("SQLite", " MB"),
    ("other heap", " MB"),
    ("Chromium PSS", " MB"),
    ("daemon fds", ""),
    ("procs", ""),
];

const FIGURE_COUNT: usize = 9;

impl Row {
    /// This row's [`FIGURES`].
    fn figures(&self) -> [Option<f64>; FIGURE_COUNT] {
        let memory = |bytes: fn(&Memory) -> Option<u64>| {
            mb(self.memory.as_ref().and_then(bytes).map(|b| b / 1024))
        };
        [
            mb(self.rss_kb),
            memory(|m| m.heap_in_use),
            memory(|m| m.heap_held),
            memory(|m| Some(m.buffers)),
            memory(|m| Some(m.sqlite)),
            memory(Memory::other),
            mb(self.pss_kb),
            self.fds.map(|n| n as f64),
            self.procs.map(|n| n as f64),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_close_that_leaves_a_second_tab_is_an_error() {
        let one = json!({ "ok": true, "data": { "tabs": [{ "id": "tab0" }] } });
        let two = json!({ "ok": true, "data": { "tabs": [{ "id": "tab0" }, { "id": "tab1" }] } });
        assert_eq!(tab_left_open(&one), None);
        assert!(tab_left_open(&two).is_some_and(|why| why.starts_with("2 tabs")));
    }

    #[test]
    fn only_completed_downloads_are_counted() {
        let body = json!({ "events": { "download": [
            { "state": "inProgress" }, { "state": "completed" }, { "state": "canceled" }
        ] } });
        assert_eq!(completed_downloads(&body), 1);
        assert_eq!(completed_downloads(&json!({ "ok": true })), 0);
    }

    #[test]
    fn this_process_has_a_start_time_and_open_descriptors() {
        let me = std::process::id();
        assert!(start_time(me).is_some());
        assert!(open_descriptors(me).is_some_and(|n| n >= 3));
    }
}
