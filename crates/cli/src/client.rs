//! The CLI's way to its daemon: find the one serving the state directory, or start one
//! (and say so on stderr); start the task on its first use.

use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;
use daemon::{Client, StateDir};
use serde_json::{Value, json};

use crate::BrowserArgs;

/// How long a daemon the CLI started may take to answer.
const DAEMON_START: Duration = Duration::from_secs(20);

/// The state directory (`$CANDOR_STATE_DIR`, else the user's state directory).
pub fn state_dir() -> PathBuf {
    daemon::default_state_dir()
}

/// A daemon that answers, and where its state lives.
pub struct Session {
    client: Client,
    state: StateDir,
}

/// How starting a task went.
pub enum Started {
    /// The task runs now (started here, or by someone else meanwhile).
    Running,
    /// The daemon refused: its envelope says why.
    Refused(Value),
}

impl Session {
    /// The daemon serving the state directory; one is started when none answers.
    pub fn open(browser: &BrowserArgs, task: &str) -> anyhow::Result<Session> {
        let state = StateDir::new(state_dir());
        if let Some(client) = answering(&state) {
            return Ok(Session { client, state });
        }
        let pid = spawn_daemon(browser, &state)?;
        eprintln!(
            "candor: no daemon answered; started one (pid {pid}, state {}) for task {task}",
            state.root().display()
        );
        let started = Instant::now();
        loop {
            if let Some(client) = answering(&state) {
                return Ok(Session { client, state });
            }
            if started.elapsed() > DAEMON_START {
                anyhow::bail!(
                    "the daemon did not answer within {} s; its log is {}",
                    DAEMON_START.as_secs(),
                    state.log_path().display()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    pub fn state_dir(&self) -> &Path {
        self.state.root()
    }

    /// The body of `start`: the task id, only the browser options given explicitly,
    /// `keepArchive`, `profile` and `proxy` if their flags were given (the proxy with its
    /// credentials from the configuration), and the saved state it begins from.
    pub fn start_body(&self, task: &str, browser: &BrowserArgs, state: Option<&str>) -> Value {
        let mut wanted = serde_json::Map::new();
        let settings = &browser.settings;
        if settings.sources.headless.is_flag() {
            wanted.insert("headless".into(), settings.headless.into());
        }
        if settings.sources.chromium.is_flag()
            && let Some(path) = &settings.chromium
        {
            wanted.insert("executable".into(), path.display().to_string().into());
        }
        let mut body = json!({ "id": task });
        if settings.sources.keep_archive.is_flag() {
            body["keepArchive"] = settings.keep_archive.into();
        }
        // A profile or a proxy given by flag is this task's, whatever the daemon's.
        if settings.sources.profile.is_flag()
            && let Some(dir) = &settings.profile
        {
            let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
            body["profile"] = dir.display().to_string().into();
        }
        if settings.sources.proxy.is_flag()
            && let Some(proxy) = settings.proxy_setting()
        {
            let credentials = proxy.credentials.as_ref();
            body["proxy"] = json!({
                "server": proxy.server,
                "bypass": proxy.bypass,
                "username": credentials.map(|c| c.username.clone()),
                "password": credentials.map(|c| c.password.clone()),
            });
        }
        if !wanted.is_empty() {
            body["browser"] = Value::Object(wanted);
        }
        if let Some(state) = state {
            body["state"] = state.into();
        }
        body
    }

    /// Starts `task` for a command that found it missing, and says so on stderr.
    pub fn start_task(&self, task: &str, browser: &BrowserArgs) -> anyhow::Result<Started> {
        let answer = self
            .client
            .start_task(&self.start_body(task, browser, None))?;
        if answer.body["ok"] == true {
            eprintln!("candor: started task {task}");
            return Ok(Started::Running);
        }
        if answer.body["code"] == "TASK_ALREADY_EXISTS" {
            return Ok(Started::Running);
        }
        Ok(Started::Refused(answer.body))
    }
}

/// A client for the daemon `state` names, if it answers with our token.
fn answering(state: &StateDir) -> Option<Client> {
    let client = Client::from_state(state).ok()?;
    let health = client.health().ok()?;
    (health.status == 200).then_some(client)
}

/// Starts `candor serve` detached from this process (own session, no terminal), its
/// output going to the state directory's log. Returns its pid.
fn spawn_daemon(browser: &BrowserArgs, state: &StateDir) -> anyhow::Result<u32> {
    state.create()?;
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(state.log_path())
        .with_context(|| format!("cannot open {}", state.log_path().display()))?;
    let executable = std::env::current_exe().context("cannot find the candor executable")?;
    let mut command = Command::new(executable);
    command
        .arg("serve")
        .env("CANDOR_STATE_DIR", state.root())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log);
    command.args(browser.daemon_args());
    // The state key, however it was given, reaches the daemon by environment only.
    if let Some(key) = &browser.settings.state_key {
        command.env("CANDOR_STATE_KEY", &key.0);
    }
    // SAFETY: setsid is async-signal-safe and only detaches the child from our session,
    // so a terminal's hangup or the shell's job control does not reach the daemon.
    unsafe {
        command.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let child = command.spawn().context("cannot start candor serve")?;
    Ok(child.id())
}
