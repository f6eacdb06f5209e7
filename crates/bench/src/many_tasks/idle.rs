//! `bench --only idle-tabs`: what a tab left alone costs. Per tool, 20 sessions (or each
//! `--tasks` N) open the fixtures' `page-a.html` and are then left alone for 20 s; the
//! figure is the CPU time the tool's processes spent over those 20 s, by kind (renderer,
//! browser, GPU, utility and other, server) and per tab, and its memory per tab. candor's
//! sessions are tasks of one daemon (one Chromium); with `--peers`, each peer session is
//! its own server and Chromium, as in many-tasks.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use serde_json::{Value, json};
use static_site::{Files, StaticSite};
use tools::tool;

use super::procs::{Cpu, Kind, Memory, Sample};
use super::{Daemon, peers, task_browser};
use crate::warm_daemon::candor_executable;

/// How many sessions each tool opens, unless `--tasks` says.
pub const SESSIONS: usize = 20;

/// How long the tabs are left alone, and measured.
const IDLE_FOR: Duration = Duration::from_secs(20);

/// Measures with `candor` (else the one beside this executable), and with `peers` the
/// peers too (when `scripts/bench-peers` installed them; else one line says so).
pub async fn run(
    candor: Option<PathBuf>,
    required: bool,
    browser_args: &crate::BrowserArgs,
    levels: Vec<usize>,
    peers: bool,
) -> anyhow::Result<()> {
    let Some(executable) = candor_executable(candor, required, "idle-tabs")? else {
        return Ok(());
    };
    let fixtures = StaticSite::start(Files::Dir(crate::fixtures_dir()))
        .context("cannot serve the fixtures")?;
    let page = fixtures.url("page-a.html");
    let peers = if peers {
        peers::Installed::find(browser_args)?
    } else {
        None
    };
    let browser = task_browser(browser_args);
    println!(
        "idle tabs: each session opens fixtures page-a, then all are left alone for {} s; \
         CPU seconds over those {} s by process kind (per tab: CPU ms over them), the whole tool's (server process(es) \
         and browser tree); candor: one daemon and one Chromium, a task per session; a peer: \
         one MCP server and one Chromium per session",
        IDLE_FOR.as_secs(),
        IDLE_FOR.as_secs()
    );
    println!(
        "{:>5} {:<11} {:>9} {:>8} {:>6} {:>12} {:>7} {:>7} {:>12} {:>9} {:>6}",
        "open",
        "tool",
        "renderer",
        "browser",
        "gpu",
        "utility/other",
        "server",
        "total",
        "per tab (ms)",
        "PSS/tab",
        "errors"
    );
    for &n in &levels {
        let (executable, url, browser) = (executable.clone(), page.clone(), browser.clone());
        let (daemon, errors) =
            tokio::task::spawn_blocking(move || candor_open(&executable, n, &url, &browser))
                .await
                .context("the idle-tabs benchmark stopped")??;
        let idle = Idle::measure(&[daemon.pid()], n, errors).await;
        // Stopping the daemon closes its browser, and waits for it.
        tokio::task::spawn_blocking(move || drop(daemon))
            .await
            .context("the daemon did not stop")?;
        idle.print("candor");
        for ready in peers.iter().flat_map(|peers| &peers.peers) {
            let installed = peers.as_ref().context("the peers")?;
            peer_idle(installed, ready, n, &page)
                .await?
                .print(ready.peer.name);
        }
        println!(
            "      machine load (1 min) {}; the machine may be shared: compare runs back to back",
            super::load_average().unwrap_or_else(|| "unknown".into())
        );
    }
    Ok(())
}

/// What one tool's idle tabs cost.
struct Idle {
    tabs: usize,
    cpu: Cpu,
    memory: Memory,
    errors: usize,
    first_error: Option<String>,
}

impl Idle {
    /// Reads the trees below `roots` before and after [`IDLE_FOR`] of nothing.
    async fn measure(roots: &[u32], tabs: usize, errors: Vec<String>) -> Idle {
        let before = Sample::read(roots);
        tokio::time::sleep(IDLE_FOR).await;
        let after = Sample::read(roots);
        Idle {
            tabs,
            cpu: after.since(&before),
            memory: after.memory(),
            errors: errors.len(),
            first_error: errors.into_iter().next(),
        }
    }

    fn print(&self, tool: &str) {
        let seconds = |kind: Kind| self.cpu.of(kind) as f64 / 1000.0;
        let tabs = self.tabs.max(1) as f64;
        println!(
            "{:>5} {:<11} {:>9.2} {:>8.2} {:>6.2} {:>12.2} {:>7.2} {:>7.2} {:>12.1} {:>6.0} MB {:>6}",
            self.tabs,
            tool,
            seconds(Kind::Renderer),
            seconds(Kind::Browser),
            seconds(Kind::Gpu),
            seconds(Kind::Other),
            seconds(Kind::Server),
            self.cpu.total() as f64 / 1000.0,
            self.cpu.total() as f64 / tabs,
            self.memory.total_kb() as f64 / 1024.0 / tabs,
            self.errors,
        );
        if let Some(error) = &self.first_error {
            println!("      first error: {error}");
        }
    }
}

/// A daemon of its own with `n` tasks, each with `page` open; what failed to open.
fn candor_open(
    executable: &Path,
    n: usize,
    page: &str,
    browser: &Value,
) -> anyhow::Result<(Daemon, Vec<String>)> {
    let daemon = Daemon::start(executable)?;
    let client = &daemon.client;
    let mut errors = Vec::new();
    for i in 0..n {
        let id = format!("idle-{n}-{i}");
        let started = client.start_task(&json!({ "id": id, "browser": browser }))?;
        anyhow::ensure!(
            started.body["ok"] == true,
            "task {id} did not start: {}",
            started.body
        );
        let opened = client.command(
            &id,
            tool::Navigate::NAME,
            &json!({ "url": page }),
            None,
            false,
        );
        match opened {
            Ok(answer) if answer.body["ok"] == true => {}
            Ok(answer) => errors.push(format!("{id}: {}", answer.body["message"])),
            Err(err) => errors.push(format!("{id}: {err}")),
        }
    }
    Ok((daemon, errors))
}

/// `n` sessions of `ready`, each with `page` open, left alone.
async fn peer_idle(
    installed: &peers::Installed,
    ready: &peers::Ready,
    n: usize,
    page: &str,
) -> anyhow::Result<Idle> {
    let mut sessions = peers::Sessions::spawn(installed, ready, n)?;
    let roots = sessions.roots();
    let peer = ready.peer;
    let opening: Vec<_> = sessions
        .sessions
        .drain(..)
        .map(|mut session| {
            let page = page.to_string();
            tokio::spawn(async move {
                let opened = match session.connect().await {
                    Ok(()) => session.open(peer, &page).await.map(|_| ()),
                    Err(err) => Err(format!("{err:#}")),
                };
                let error = opened.err().map(|why| format!("{}: {why}", session.name));
                (session, error)
            })
        })
        .collect();
    let mut errors = Vec::new();
    for opened in opening {
        let (session, error) = opened.await.context("a session's opening panicked")?;
        sessions.sessions.push(session);
        errors.extend(error);
    }
    let idle = Idle::measure(&roots, n, errors).await;
    sessions.close().await;
    Ok(idle)
}
