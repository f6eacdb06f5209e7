//! `bench --only daemon`: what a shell agent pays per step. A warm daemon (`candor serve`,
//! the `candor` executable beside this one unless `--candor` names another) on its own
//! state directory, one task on a small page of the built-in site, then the wall time of
//! whole `candor --id t snapshot --mode text` processes (spawn, parse, HTTP, snapshot,
//! print), the same call over HTTP without the process, and the daemon's own resident
//! memory (Chromium's processes are not counted).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::json;
use static_site::StaticSite;
use tools::tool;

use crate::report;

/// At least this many CLI calls are timed (the issue asks for ≥ 30).
const MIN_RUNS: usize = 30;

/// Measures with `candor` (else the one beside this executable). Without that executable
/// the figures are skipped with a note, or, when they were asked for alone (`required`),
/// it is an error.
pub async fn run(
    candor: Option<PathBuf>,
    required: bool,
    site: &StaticSite,
    runs: usize,
) -> anyhow::Result<()> {
    let Some(executable) = candor_executable(candor, required, "daemon")? else {
        return Ok(());
    };
    let page = site.url("about.html");
    let runs = runs.max(MIN_RUNS);
    tokio::task::spawn_blocking(move || measure(&executable, &page, runs))
        .await
        .context("the daemon benchmark stopped")?
}

/// `candor` in the folder of this executable (`target/release/` under `cargo run --release`).
/// The `candor` executable the daemon figures run: `candor`, else the one beside this
/// executable. Without one, `None` after a note that the `figures` were skipped, or an
/// error when they were asked for alone (`required`).
pub(crate) fn candor_executable(
    candor: Option<PathBuf>,
    required: bool,
    figures: &str,
) -> anyhow::Result<Option<PathBuf>> {
    match candor.or_else(beside_this_executable) {
        Some(path) if path.is_file() => Ok(Some(path)),
        missing => {
            let note = format!(
                "no candor executable at {}: `cargo build --release -p cli` builds it (or pass --candor PATH)",
                missing.map_or_else(|| "(unknown)".into(), |p| p.display().to_string())
            );
            anyhow::ensure!(!required, "{note}");
            println!("({note}; the {figures} figures were skipped)");
            Ok(None)
        }
    }
}

fn beside_this_executable() -> Option<PathBuf> {
    let this = std::env::current_exe().ok()?;
    Some(this.parent()?.join("candor"))
}

fn measure(executable: &Path, page: &str, runs: usize) -> anyhow::Result<()> {
    let state = tempfile::Builder::new()
        .prefix("candor-bench-state-")
        .tempdir()
        .context("cannot create a state directory")?;
    let candor = |args: &[&str]| candor_command(executable, state.path(), args);

    let mut daemon = candor(&["serve"])
        .spawn()
        .context("cannot start candor serve")?;
    let client = wait_for_daemon(state.path())?;
    let measured = (|| {
        let opened = candor(&["--id", "t", "open", page]).status()?;
        anyhow::ensure!(opened.success(), "candor open {page} failed");
        let snapshot = ["--id", "t", tool::Snapshot::NAME, "--mode", "text"];
        for _ in 0..3 {
            candor(&snapshot).status()?;
        }
        let mut cli = Vec::new();
        for _ in 0..runs {
            let started = Instant::now();
            let status = candor(&snapshot).status()?;
            cli.push(started.elapsed());
            anyhow::ensure!(status.success(), "candor snapshot failed");
        }
        report(
            "CLI: candor --id t snapshot --mode text (warm daemon)",
            &cli,
        );
        let mut http = Vec::new();
        for _ in 0..runs {
            let started = Instant::now();
            let answer = client.command(
                "t",
                tool::Snapshot::NAME,
                &json!({ "mode": "text" }),
                None,
                false,
            )?;
            http.push(started.elapsed());
            anyhow::ensure!(
                answer.body["ok"] == true,
                "snapshot failed: {}",
                answer.body
            );
        }
        report("HTTP: POST …/commands snapshot text (no process)", &http);
        let rss = resident_kb(daemon.id()).context("cannot read the daemon's memory")?;
        println!(
            "{:<52} {:>8.1} MB (daemon process only, one task open)",
            "daemon resident memory",
            rss as f64 / 1024.0
        );
        Ok(())
    })();
    let _ = terminate(&mut daemon);
    measured
}

/// `candor ARGS` on the daemon of the state folder `state` (on any free port), with no
/// terminal: `candor_command(executable, state, &["serve"])` is that daemon.
pub(crate) fn candor_command(executable: &Path, state: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(executable);
    command
        .args(args)
        .env("CANDOR_STATE_DIR", state)
        .env("CANDOR_PORT", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

/// Stops a daemon this process started: SIGTERM, then its exit status once it has ended
/// (at once when it had ended already, so no signal goes to a pid reused since).
pub(crate) fn terminate(daemon: &mut Child) -> std::io::Result<ExitStatus> {
    if let Some(status) = daemon.try_wait()? {
        return Ok(status);
    }
    // SAFETY: kill sends SIGTERM to a child of this process that has not been reaped,
    // so its pid is still its own.
    unsafe {
        libc::kill(daemon.id() as libc::pid_t, libc::SIGTERM);
    }
    daemon.wait()
}

/// Waits until the daemon serving `state` answers its health check.
pub(crate) fn wait_for_daemon(state: &Path) -> anyhow::Result<daemon::Client> {
    let state = daemon::StateDir::new(state);
    let started = Instant::now();
    loop {
        if let Ok(client) = daemon::Client::from_state(&state)
            && client.health().is_ok_and(|a| a.status == 200)
        {
            return Ok(client);
        }
        anyhow::ensure!(
            started.elapsed() < Duration::from_secs(20),
            "the daemon did not answer within 20 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `VmRSS` of a process, in kB.
pub(crate) fn resident_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kb| kb.parse().ok())
}
