//! The peers beside candor in the many-tasks and idle-tabs figures (`--peers`): the MCP
//! servers an operator would run instead — Playwright MCP and Chrome DevTools MCP, Node
//! programs installed from npm under `target/peers/` by `scripts/bench-peers`. Each
//! session is one server (one per session, as an operator runs them), spoken to over its
//! stdin/stdout by rmcp's client, with a Chromium of its own that it launches: the same
//! executable candor uses, headless, on a fresh profile, with the same quiet switches.
//!
//! Everything a session's server and browser leave on disk is in a folder of the level's
//! (its working directory and its `TMPDIR`, where both put their profiles), so a Chromium
//! left behind is found by that folder on its command line and killed by pid.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::process::{Child, Command};

use tools::tool;

use super::procs::{self, Sample};
use super::{CALL_TIMEOUT_MS, MEASURE_FOR, Page, Row, Seen};

/// A peer's call kinds, named as candor's tools that do the same, so the table's columns line up.
const NAVIGATE: &str = tool::Navigate::NAME;
const SNAPSHOT: &str = tool::Snapshot::NAME;

/// The peers, one row each: how to start one and speak to it.
pub static PEERS: [Peer; 2] = [
    Peer {
        name: "cdt",
        package: "chrome-devtools-mcp",
        navigate: "navigate_page",
        snapshot: "take_snapshot",
        click: "click",
        click_target: "uid",
        // `uid=1_2 button "Submit"`
        ref_before: "uid=",
        ref_after: ' ',
        flags: devtools_flags,
        env: &[("CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS", "1")],
    },
    Peer {
        name: "playwright",
        package: "@playwright/mcp",
        navigate: "browser_navigate",
        snapshot: "browser_snapshot",
        click: "browser_click",
        click_target: "target",
        // `- button "Submit" [ref=e3]`
        ref_before: "[ref=",
        ref_after: ']',
        flags: playwright_flags,
        env: &[],
    },
];

/// Switches every peer's Chromium gets, all of which candor's own launch passes too
/// (`QUIET_ARGS` in the browser crate, and `--no-sandbox` when it runs as root): no
/// first-run work, no background requests, component updates, sync or QUIC mid-figure.
const SWITCHES: [&str; 6] = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
];

/// The button every round clicks, by the name a snapshot gives it.
const SUBMIT: &str = "button \"Submit\"";

/// How long a server may take to start and answer `initialize`, and to quit when its
/// stdin closes.
const START_TIMEOUT: Duration = Duration::from_secs(60);
const QUIT_TIMEOUT: Duration = Duration::from_secs(10);

/// The deadline of the first call of a session, which launches its Chromium: 20 at
/// once on a small machine take a while.
const FIRST_CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// One peer: its npm package, its tools, how its snapshots write a ref.
pub struct Peer {
    /// Its name in the figures.
    pub name: &'static str,
    package: &'static str,
    navigate: &'static str,
    snapshot: &'static str,
    click: &'static str,
    /// The click's argument that takes a ref.
    click_target: &'static str,
    /// A ref in a snapshot's line: what comes just before it, and the character after.
    ref_before: &'static str,
    ref_after: char,
    /// The server's flags: Chromium's path, headless, a fresh profile, the switches.
    /// `dir` is the session's own folder, for a file the flags name.
    flags: fn(launch: &Launch, dir: &Path) -> std::io::Result<Vec<String>>,
    env: &'static [(&'static str, &'static str)],
}

/// Chrome DevTools MCP (`chrome-devtools-mcp --help`): `--isolated` is a temporary
/// profile; `--no-page-id-routing`, because one session is one page; no usage statistics
/// or CrUX lookups (no network here).
fn devtools_flags(launch: &Launch, _dir: &Path) -> std::io::Result<Vec<String>> {
    let mut flags = vec![
        format!("--executablePath={}", launch.chromium.display()),
        "--isolated".into(),
        "--no-page-id-routing".into(),
        "--no-usage-statistics".into(),
        "--no-performance-crux".into(),
    ];
    if launch.headless {
        flags.push("--headless".into());
    }
    flags.extend(launch.switches.iter().map(|s| format!("--chromeArg={s}")));
    Ok(flags)
}

/// Playwright MCP (`npx @playwright/mcp --help`): `--isolated` keeps the profile in
/// memory; Chromium's switches go in a configuration file (`browser.launchOptions.args`),
/// the one way it takes them.
fn playwright_flags(launch: &Launch, dir: &Path) -> std::io::Result<Vec<String>> {
    let config = dir.join("playwright-mcp.json");
    let launch_options = json!({ "browser": { "launchOptions": { "args": launch.switches } } });
    std::fs::write(&config, launch_options.to_string())?;
    let mut flags = vec![
        format!("--executable-path={}", launch.chromium.display()),
        "--isolated".into(),
        "--no-sandbox".into(),
        format!("--config={}", config.display()),
    ];
    if launch.headless {
        flags.push("--headless".into());
    }
    Ok(flags)
}

/// The browser every peer session launches.
pub struct Launch {
    chromium: PathBuf,
    headless: bool,
    /// [`SWITCHES`], then `--chromium-arg`'s.
    switches: Vec<String>,
}

/// The peers as installed: each one's entry point and version.
pub struct Installed {
    pub peers: Vec<Ready>,
    pub launch: Launch,
}

/// One peer, installed.
pub struct Ready {
    pub peer: &'static Peer,
    /// The package's executable, a Node script.
    entry: PathBuf,
    pub version: String,
}

impl Installed {
    /// The peers under `target/peers/`, with the browser `browser_args` asks for; `None`
    /// after one line saying what to run when they (or Node) are missing.
    pub fn find(browser_args: &crate::BrowserArgs) -> anyhow::Result<Option<Installed>> {
        let root = peers_dir();
        let found: Result<Vec<Ready>, String> = PEERS
            .iter()
            .map(|peer| {
                let package = root.join("node_modules").join(peer.package);
                entry_point(&package)
                    .map(|(entry, version)| Ready {
                        peer,
                        entry,
                        version,
                    })
                    .ok_or_else(|| format!("{} is not installed", peer.package))
            })
            .collect();
        let node = std::process::Command::new("node")
            .arg("--version")
            .stdout(Stdio::null())
            .status();
        let missing = match (&found, node) {
            (Err(why), _) => Some(why.clone()),
            (_, Err(_)) => Some("node is not on PATH".into()),
            _ => None,
        };
        if let Some(why) = missing {
            println!("(--peers: {why}: run scripts/bench-peers; the peers' figures were skipped)");
            return Ok(None);
        }
        let chromium = match &browser_args.chromium {
            Some(path) => path.clone(),
            None => browser::find_chromium().context("no Chromium for the peers")?,
        };
        let switches = SWITCHES
            .iter()
            .map(|s| s.to_string())
            .chain(browser_args.chromium_args.iter().cloned())
            .collect();
        let installed = Installed {
            peers: found.unwrap_or_default(),
            launch: Launch {
                chromium,
                headless: !browser_args.headed,
                switches,
            },
        };
        let versions: Vec<String> = installed
            .peers
            .iter()
            .map(|ready| {
                format!(
                    "{} = {} {}",
                    ready.peer.name, ready.peer.package, ready.version
                )
            })
            .collect();
        println!("peers: {}", versions.join(", "));
        Ok(Some(installed))
    }
}

/// Where `scripts/bench-peers` installs the peers.
fn peers_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/peers")
}

/// An installed package's executable (`bin`: a path, or names to paths — the first) and
/// version, from its `package.json`.
fn entry_point(package: &Path) -> Option<(PathBuf, String)> {
    let manifest = std::fs::read_to_string(package.join("package.json")).ok()?;
    let manifest: Value = serde_json::from_str(&manifest).ok()?;
    let bin = match &manifest["bin"] {
        Value::String(path) => path.clone(),
        Value::Object(bins) => bins.values().next()?.as_str()?.to_string(),
        _ => return None,
    };
    let entry = package.join(bin);
    let version = manifest["version"].as_str()?.to_string();
    entry.is_file().then_some((entry, version))
}

/// The sessions of one peer at one level, each server started with its own folder
/// under `dir`, a folder of the figure's own.
pub struct Sessions {
    pub sessions: Vec<Session>,
    dir: tempfile::TempDir,
    peer: &'static Peer,
}

impl Sessions {
    /// Starts `n` servers of `ready` (not yet spoken to).
    pub fn spawn(installed: &Installed, ready: &Ready, n: usize) -> anyhow::Result<Sessions> {
        let dir = tempfile::Builder::new()
            .prefix("candor-bench-peers-")
            .tempdir()
            .context("cannot create the peers' folder")?;
        let mut sessions = Sessions {
            sessions: Vec::new(),
            dir,
            peer: ready.peer,
        };
        for i in 0..n {
            let name = format!("{}-{n}-{i}", ready.peer.name);
            let own = sessions.dir.path().join(&name);
            std::fs::create_dir(&own)
                .with_context(|| format!("cannot create {}", own.display()))?;
            let flags = (ready.peer.flags)(&installed.launch, &own)
                .with_context(|| format!("cannot write {name}'s flags"))?;
            let mut command = Command::new("node");
            command
                .arg(&ready.entry)
                .args(flags)
                .envs(ready.peer.env.iter().copied())
                .env("TMPDIR", &own)
                .current_dir(&own);
            sessions.sessions.push(Session::start(name, command)?);
        }
        Ok(sessions)
    }

    /// The servers' pids: the roots of the peer's process trees.
    pub fn roots(&self) -> Vec<u32> {
        self.sessions
            .iter()
            .filter_map(|session| session.process.id())
            .collect()
    }

    /// Closes every session (each server quits, closing its browser), waits for the
    /// servers, and kills any Chromium of this level's still running; says so when one
    /// was.
    pub async fn close(self) {
        let closing: Vec<_> = self
            .sessions
            .into_iter()
            .map(|session| tokio::spawn(session.close()))
            .collect();
        for closed in closing {
            let _ = closed.await;
        }
        let profiles = format!("user-data-dir={}", self.dir.path().display());
        let left = procs::with_in_cmdline(&profiles);
        if !left.is_empty() {
            println!(
                "      {} process(es) of {}'s Chromium left behind; killed",
                left.len(),
                self.peer.name
            );
        }
        for pid in &left {
            // SAFETY: kill sends SIGKILL to a Chromium process launched for this level,
            // found by the level's own profile folder on its command line.
            unsafe {
                libc::kill(*pid as libc::pid_t, libc::SIGKILL);
            }
        }
        let deadline = Instant::now() + QUIT_TIMEOUT;
        while !procs::with_in_cmdline(&profiles).is_empty() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// One session: a peer's server, and the client speaking to it once connected.
pub struct Session {
    pub name: String,
    process: Child,
    client: Option<RunningService<RoleClient, ()>>,
}

impl Session {
    /// Starts the MCP server `command` runs, its stdin and stdout piped to this process
    /// (not yet spoken to); it is killed if the session is dropped unclosed.
    pub(crate) fn start(name: String, mut command: Command) -> anyhow::Result<Session> {
        let process = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("cannot start {name}"))?;
        Ok(Session {
            name,
            process,
            client: None,
        })
    }

    /// `initialize` and `notifications/initialized` over the server's stdin/stdout.
    pub async fn connect(&mut self) -> anyhow::Result<()> {
        let stdout = self.process.stdout.take().context("the server's stdout")?;
        let stdin = self.process.stdin.take().context("the server's stdin")?;
        let client = tokio::time::timeout(START_TIMEOUT, ().serve((stdout, stdin)))
            .await
            .context("no answer to initialize")?
            .context("initialize failed")?;
        self.client = Some(client);
        Ok(())
    }

    /// Calls `tool`; the text of its answer, or why it failed.
    pub(crate) async fn call(
        &self,
        tool: &str,
        arguments: Value,
        within: Duration,
    ) -> Result<String, String> {
        let client = self.client.as_ref().ok_or("not connected")?;
        let Value::Object(arguments) = arguments else {
            return Err(format!("arguments are not an object: {arguments}"));
        };
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
        let result = tokio::time::timeout(within, client.call_tool(params))
            .await
            .map_err(|_| format!("no answer within {} ms", within.as_millis()))?
            .map_err(|err| err.to_string())?;
        let text: Vec<&str> = result
            .content
            .iter()
            .filter_map(|block| Some(block.as_text()?.text.as_str()))
            .collect();
        let text = text.join("\n");
        if result.is_error == Some(true) {
            return Err(text.lines().take(3).collect::<Vec<_>>().join(" "));
        }
        Ok(text)
    }

    /// Opens `url` (the first call launches the session's Chromium).
    pub async fn open(&self, peer: &Peer, url: &str) -> Result<String, String> {
        self.call(peer.navigate, json!({ "url": url }), FIRST_CALL_TIMEOUT)
            .await
    }

    /// Closes the client (the server's stdin: it quits and closes its browser) and waits
    /// for the server; kills it, by pid, if it does not quit in time.
    pub(crate) async fn close(mut self) {
        if let Some(client) = self.client.take() {
            let _ = tokio::time::timeout(QUIT_TIMEOUT, client.cancel()).await;
        }
        // Without a client (it never connected), the pipes go here.
        drop(self.process.stdin.take());
        drop(self.process.stdout.take());
        if tokio::time::timeout(QUIT_TIMEOUT, self.process.wait())
            .await
            .is_err()
        {
            let _ = self.process.start_kill();
            let _ = self.process.wait().await;
        }
    }
}

/// One round of a session: navigate to `page`, snapshot it, click its Submit button by
/// the ref the snapshot gave it, and snapshot again, which must show the text the click
/// writes (else the click failed: not verified).
async fn round(session: &Session, peer: &Peer, (url, written): &Page, seen: &mut Seen) {
    let within = Duration::from_millis(CALL_TIMEOUT_MS);
    let timed = async |tool: &str, arguments: Value| {
        let started = Instant::now();
        let answer = session.call(tool, arguments, within).await;
        (answer, started.elapsed())
    };
    let mut failed = false;
    match timed(peer.navigate, json!({ "url": url })).await {
        (Ok(_), took) => seen.ok(NAVIGATE, took),
        (Err(why), _) => {
            seen.failed(&session.name, NAVIGATE, why);
            failed = true;
        }
    }
    let target = match timed(peer.snapshot, json!({})).await {
        (Ok(text), took) => match peer.ref_of(&text, SUBMIT) {
            Some(target) => {
                seen.ok(SNAPSHOT, took);
                target
            }
            None => {
                seen.failed(&session.name, SNAPSHOT, format!("no {SUBMIT} in {text:?}"));
                return;
            }
        },
        (Err(why), _) => {
            seen.failed(&session.name, SNAPSHOT, why);
            return;
        }
    };
    let clicked = match timed(peer.click, json!({ peer.click_target: target })).await {
        (Ok(_), took) => took,
        (Err(why), _) => {
            seen.failed(&session.name, "click", why);
            return;
        }
    };
    match timed(peer.snapshot, json!({})).await {
        (Ok(text), took) => {
            seen.ok(SNAPSHOT, took);
            if text.contains(written) {
                seen.ok("click", clicked);
                if !failed {
                    seen.rounds += 1;
                }
            } else {
                let why = format!("not verified: the snapshot after it lacks {written:?}");
                seen.failed(&session.name, "click", why);
            }
        }
        (Err(why), _) => seen.failed(&session.name, SNAPSHOT, why),
    }
}

impl Peer {
    /// The tool that navigates, and the one that snapshots.
    pub(crate) fn navigate_and_snapshot(&self) -> (&'static str, &'static str) {
        (self.navigate, self.snapshot)
    }

    /// The ref on the first line of `snapshot` that holds `what`.
    fn ref_of(&self, snapshot: &str, what: &str) -> Option<String> {
        let line = snapshot.lines().find(|line| line.contains(what))?;
        let from = line.find(self.ref_before)? + self.ref_before.len();
        let rest = &line[from..];
        let to = rest.find(self.ref_after).unwrap_or(rest.len());
        (to > 0).then(|| rest[..to].to_string())
    }
}

/// `ready`'s share of one many-tasks level: `n` sessions, each its own server and
/// browser, looping a round for [`MEASURE_FOR`] after one unmeasured round; then all
/// closed.
pub(super) async fn level(
    installed: &Installed,
    ready: &Ready,
    n: usize,
    pages: &[Page; 2],
) -> anyhow::Result<Row> {
    let mut sessions = Sessions::spawn(installed, ready, n)?;
    let roots = sessions.roots();
    let barrier = Arc::new(tokio::sync::Barrier::new(n + 1));
    let peer = ready.peer;
    let workers: Vec<_> = sessions
        .sessions
        .drain(..)
        .map(|mut session| {
            let (pages, barrier) = (pages.clone(), barrier.clone());
            tokio::spawn(async move {
                let mut seen = Seen::default();
                let connected = match session.connect().await {
                    Ok(()) => session.open(peer, &pages[0].0).await,
                    Err(err) => Err(format!("{err:#}")),
                };
                if let Err(why) = &connected {
                    seen.failed(&session.name, "start", why);
                }
                let connected = connected.is_ok();
                if connected {
                    let mut unmeasured = Seen::default();
                    round(&session, peer, &pages[0], &mut unmeasured).await;
                }
                barrier.wait().await;
                let until = Instant::now() + MEASURE_FOR;
                let mut n = 1;
                while connected && Instant::now() < until {
                    round(&session, peer, &pages[n % 2], &mut seen).await;
                    n += 1;
                }
                (session, seen)
            })
        })
        .collect();
    barrier.wait().await;
    let before = Sample::read(&roots);
    let started = Instant::now();
    let mut all = Seen::default();
    for worker in workers {
        let (session, seen) = worker.await.context("a session's worker panicked")?;
        sessions.sessions.push(session);
        all.add(seen);
    }
    let elapsed = started.elapsed();
    let after = Sample::read(&roots);
    let memory = after.memory();
    sessions.close().await;
    Ok(Row {
        tool: peer.name,
        sessions: n,
        elapsed,
        seen: all,
        kinds: [NAVIGATE, SNAPSHOT, "click"],
        cpu: after.since(&before),
        pss_kb: memory.total_kb(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer(name: &str) -> &'static Peer {
        PEERS
            .iter()
            .find(|peer| peer.name == name)
            .unwrap_or_else(|| panic!("no peer {name}"))
    }

    #[test]
    fn the_submit_buttons_ref_is_read_from_each_peers_snapshot() {
        // As each peer's version in scripts/bench-peers writes page-a.html.
        let devtools = "## Latest page snapshot\nuid=1_0 RootWebArea \"Page A\" url=\"http://127.0.0.1:8765/page-a.html\"\n  uid=1_1 heading \"Form\" level=\"1\"\n  uid=1_2 button \"Submit\"\n  uid=1_3 \"Not submitted\"\n";
        assert_eq!(peer("cdt").ref_of(devtools, SUBMIT).as_deref(), Some("1_2"));
        let playwright = "### Snapshot\n```yaml\n- generic [active] [ref=f1e1]:\n  - heading \"Form\" [level=1] [ref=f1e2]\n  - button \"Submit\" [ref=f1e3]\n  - paragraph [ref=f1e4]: Not submitted\n```";
        assert_eq!(
            peer("playwright").ref_of(playwright, SUBMIT).as_deref(),
            Some("f1e3")
        );
        assert_eq!(peer("playwright").ref_of(devtools, SUBMIT), None);
        assert_eq!(peer("cdt").ref_of("button \"Submit\" uid=", SUBMIT), None);
    }

    #[test]
    fn every_peer_gets_chromium_headless_a_fresh_profile_and_the_switches() {
        let dir = tempfile::tempdir().expect("a folder");
        let launch = Launch {
            chromium: PathBuf::from("/usr/bin/chromium"),
            headless: true,
            switches: SWITCHES.iter().map(|s| s.to_string()).collect(),
        };
        for peer in &PEERS {
            let flags = (peer.flags)(&launch, dir.path()).expect("flags");
            let line = flags.join(" ");
            assert!(line.contains("/usr/bin/chromium"), "{}: {line}", peer.name);
            assert!(
                flags.contains(&"--headless".to_string()),
                "{}: {line}",
                peer.name
            );
            assert!(
                flags.contains(&"--isolated".to_string()),
                "{}: {line}",
                peer.name
            );
            let config = flags
                .iter()
                .find_map(|flag| flag.strip_prefix("--config="))
                .map(|path| std::fs::read_to_string(path).expect("the configuration"));
            for switch in SWITCHES {
                let passed = line.contains(&format!("--chromeArg={switch}"))
                    || config.as_deref().is_some_and(|c| c.contains(switch));
                assert!(passed, "{} does not pass {switch}: {line}", peer.name);
            }
        }
    }

    #[test]
    fn an_installed_package_is_found_by_its_manifest() {
        let dir = tempfile::tempdir().expect("a folder");
        std::fs::create_dir_all(dir.path().join("bin")).expect("bin");
        std::fs::write(dir.path().join("bin/main.js"), "").expect("entry");
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"version": "1.2.3", "bin": {"tool": "./bin/main.js"}}"#,
        )
        .expect("manifest");
        let (entry, version) = entry_point(dir.path()).expect("found");
        assert_eq!(version, "1.2.3");
        assert!(entry.is_file());
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"version": "1.2.3", "bin": "./bin/gone.js"}"#,
        )
        .expect("manifest");
        assert_eq!(entry_point(dir.path()), None);
    }
}
