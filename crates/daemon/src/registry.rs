//! The task registry and the command runner: tasks (each an [`Engine`] with its own
//! browser context in the one shared browser), one command at a time per task (a second
//! is refused with `TASK_BUSY` at once), each command run by its own worker so it ends on
//! its own deadline whatever the client does, cancel by command id, and diagnostics kept
//! for the last 100 tasks.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use browser::{BrowserOptions, Endpoint, LaunchOptions};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::OwnedMutexGuard;
use tools::{BrowserHost, CallOptions, Code, Engine, EngineOptions, Envelope, ToolError, tool};

use crate::DaemonConfig;
use crate::clock::epoch_ms;
use crate::mutex::lock;
use crate::reply::{Effect, reply, task_not_found};

/// How many tasks' diagnostics are kept, stopped ones included (docs/faces.md#tasks).
pub(crate) const RECENT_TASKS: usize = 100;

/// One live task.
pub(crate) struct TaskEntry {
    pub(crate) engine: Arc<Engine>,
    /// Held by the running command or job: one at a time per task.
    pub(crate) lease: Arc<tokio::sync::Mutex<()>>,
    pub(crate) created_at: SystemTime,
    /// The job holding the task, if one does.
    pub(crate) job: Mutex<Option<String>>,
}

/// What `start` may ask of the browser; absent fields take the running configuration.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BrowserRequest {
    pub headless: Option<bool>,
    pub executable: Option<std::path::PathBuf>,
    pub args: Option<Vec<String>>,
}

/// The body of `POST /v1/tasks`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StartRequest {
    pub id: Option<String>,
    pub browser: Option<BrowserRequest>,
    /// How long starting the browser and the task's context may take.
    pub timeout_ms: Option<u64>,
    /// Keep the task's archive (`tasks/<id>/archive.sqlite3`) after it stops; default
    /// from the configuration.
    pub keep_archive: Option<bool>,
    /// A saved state the task begins from (`state {action:"load"}` before anything else).
    pub state: Option<String>,
    /// The task's persistent profile, an absolute path; default from the configuration.
    pub profile: Option<std::path::PathBuf>,
    /// The task's proxy; default from the configuration.
    pub proxy: Option<ProxyRequest>,
}

/// A task's proxy, as `POST /v1/tasks` names it.
#[derive(Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProxyRequest {
    pub server: String,
    pub bypass: Option<String>,
    pub username: Option<String>,
    pub password: Option<String>,
}

impl std::fmt::Debug for ProxyRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProxyRequest")
            .field("server", &self.server)
            .field("bypass", &self.bypass)
            .field("username", &self.username)
            .field(
                "password",
                &self.password.as_ref().map(|_| browser::REDACTED),
            )
            .finish()
    }
}

impl ProxyRequest {
    /// The proxy, checked: a server as Chromium takes it, and a password only with a user
    /// name.
    fn proxy(self) -> Result<browser::Proxy, ToolError> {
        browser::Proxy::check_server(&self.server)
            .map_err(|reason| ToolError::invalid_params(format!("proxy.server: {reason}")))?;
        let credentials = match (self.username, self.password) {
            (Some(username), password) => Some(browser::Credentials {
                username,
                password: password.unwrap_or_default(),
            }),
            (None, Some(_)) => {
                return Err(ToolError::invalid_params(
                    "proxy.password: a password needs its username",
                ));
            }
            (None, None) => None,
        };
        Ok(browser::Proxy {
            server: self.server,
            bypass: self.bypass,
            credentials,
        })
    }
}

/// The body of `POST /v1/tasks/{id}/commands`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct CommandRequest {
    pub method: String,
    #[serde(default)]
    pub params: Value,
    pub command_timeout_ms: Option<u64>,
    #[serde(default)]
    pub sensitive: bool,
}

/// Counts what keeps the daemon from being idle: requests being answered and workers
/// still running.
#[derive(Default)]
pub(crate) struct Activity {
    busy: AtomicUsize,
    /// Milliseconds since the daemon started, when the last busy spell ended.
    last_ms: AtomicU64,
    epoch: Option<Instant>,
}

impl Activity {
    pub(crate) fn new() -> Self {
        Self {
            epoch: Some(Instant::now()),
            ..Self::default()
        }
    }

    pub(crate) fn begin(self: &Arc<Self>) -> Busy {
        self.busy.fetch_add(1, Ordering::SeqCst);
        Busy {
            activity: self.clone(),
        }
    }

    /// How long nothing has been going on; zero while something is.
    pub(crate) fn idle_for(&self) -> Duration {
        if self.busy.load(Ordering::SeqCst) > 0 {
            return Duration::ZERO;
        }
        let now = self.epoch.map_or(0, |e| e.elapsed().as_millis() as u64);
        Duration::from_millis(now.saturating_sub(self.last_ms.load(Ordering::SeqCst)))
    }
}

/// Something going on; dropping it ends it.
pub(crate) struct Busy {
    activity: Arc<Activity>,
}

impl Drop for Busy {
    fn drop(&mut self) {
        let now = self
            .activity
            .epoch
            .map_or(0, |e| e.elapsed().as_millis() as u64);
        self.activity.last_ms.fetch_max(now, Ordering::SeqCst);
        self.activity.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

pub(crate) struct Registry {
    pub(crate) host: Arc<BrowserHost>,
    pub(crate) config: DaemonConfig,
    pub(crate) activity: Arc<Activity>,
    live: Mutex<BTreeMap<String, Arc<TaskEntry>>>,
    /// Ids being started (their context is being created), so a second start of the same
    /// id is refused while the first is under way.
    starting: Mutex<BTreeSet<String>>,
    /// The last tasks' engines, newest last, for diagnostics after a task stopped.
    recent: Mutex<VecDeque<(String, Arc<Engine>)>>,
    next_task: AtomicU64,
    /// `http://127.0.0.1:PORT` once the daemon listens: where live views are served.
    pub(crate) live_base: Arc<std::sync::OnceLock<String>>,
}

impl Registry {
    pub(crate) fn new(config: DaemonConfig) -> Self {
        Self {
            host: Arc::new(BrowserHost::new(config.engine.browser.clone())),
            config,
            activity: Arc::new(Activity::new()),
            live: Mutex::new(BTreeMap::new()),
            starting: Mutex::new(BTreeSet::new()),
            recent: Mutex::new(VecDeque::new()),
            next_task: AtomicU64::new(1),
            live_base: Arc::default(),
        }
    }

    pub(crate) fn get(&self, task: &str) -> Option<Arc<TaskEntry>> {
        lock(&self.live).get(task).cloned()
    }

    pub(crate) fn live_count(&self) -> usize {
        lock(&self.live).len()
    }

    /// Every engine the daemon holds: the live tasks', then the stopped ones kept for
    /// their diagnostics, whose journals, flow logs and checkpoints stay with them.
    pub(crate) fn engines(&self) -> Vec<Arc<Engine>> {
        let mut engines: Vec<Arc<Engine>> = lock(&self.live)
            .values()
            .map(|entry| entry.engine.clone())
            .collect();
        for (_, engine) in lock(&self.recent).iter() {
            if !engines.iter().any(|held| Arc::ptr_eq(held, engine)) {
                engines.push(engine.clone());
            }
        }
        engines
    }

    /// `start`: a new task with its own browser context, created now so that a browser
    /// that cannot start is reported here and not on the task's first command.
    pub(crate) async fn start(&self, request: StartRequest) -> Envelope {
        let started = Instant::now();
        let result = self.start_task(request).await;
        reply(&self.host, result, Effect::Changes, started)
    }

    async fn start_task(&self, request: StartRequest) -> Result<Value, ToolError> {
        let id = match request.id {
            Some(id) => {
                check_task_id(&id)?;
                id
            }
            None => loop {
                let id = format!("task-{}", self.next_task.fetch_add(1, Ordering::Relaxed));
                if self.get(&id).is_none() {
                    break id;
                }
            },
        };
        let timeout = match request.timeout_ms {
            Some(ms) => command_timeout(ms)?,
            None => self.config.engine.command_timeout,
        };
        let profile = match request.profile {
            Some(dir) if dir.is_relative() => {
                return Err(ToolError::invalid_params(format!(
                    "profile {}: an absolute path, since the daemon's working folder is not the caller's",
                    dir.display()
                )));
            }
            Some(dir) => Some(dir),
            None => self.config.engine.profile.clone(),
        };
        let proxy = match request.proxy {
            Some(proxy) => Some(proxy.proxy()?),
            None => self.config.engine.proxy.clone(),
        };
        // A configured archive folder holds the task's archive; else the state's.
        let dir = match self.config.engine.archive.root {
            Some(_) => None,
            None => Some(
                crate::StateDir::new(&self.config.state_dir)
                    .task_dir(&id)
                    .map_err(|e| ToolError::invalid_params(e.to_string()))?,
            ),
        };
        {
            let live = lock(&self.live);
            let mut starting = lock(&self.starting);
            if live.contains_key(&id) || starting.contains(&id) {
                return Err(ToolError::new(
                    Code::TaskAlreadyExists,
                    format!("task {id:?} is already running"),
                    "use it as it is, stop it first, or start another id",
                ));
            }
            self.configure_browser(request.browser.as_ref(), live.len() + starting.len())?;
            starting.insert(id.clone());
        }
        let defaults = &self.config.engine;
        let options = EngineOptions {
            profile,
            proxy,
            browser: self.host.options(),
            task_id: id.clone(),
            archive: tools::ArchiveOptions {
                dir,
                keep: request.keep_archive.unwrap_or(defaults.archive.keep),
                ..defaults.archive.clone()
            },
            ..defaults.clone()
        };
        let engine = Arc::new(Engine::with_host(options, self.host.clone()));
        engine.set_live_views(Arc::new(live::At::new(self.live_base.clone())));
        let opened = engine.open(timeout).await;
        let loaded = match (&opened, &request.state) {
            (Ok(()), Some(name)) => match load_state(&engine, name, timeout).await {
                Ok(loaded) => Some(loaded),
                Err(refused) => {
                    engine.shutdown().await;
                    lock(&self.starting).remove(&id);
                    return Err(refused);
                }
            },
            _ => None,
        };
        lock(&self.starting).remove(&id);
        opened?;
        let entry = Arc::new(TaskEntry {
            engine: engine.clone(),
            lease: Arc::new(tokio::sync::Mutex::new(())),
            created_at: SystemTime::now(),
            job: Mutex::new(None),
        });
        lock(&self.live).insert(id.clone(), entry);
        let mut recent = lock(&self.recent);
        recent.retain(|(task, _)| *task != id);
        recent.push_back((id.clone(), engine));
        while recent.len() > RECENT_TASKS {
            recent.pop_front();
        }
        let mut started =
            json!({ "task": id, "browser": self.host.browser().map(|b| b.product().to_string()) });
        if let Some(loaded) = loaded {
            started["state"] = loaded;
        }
        Ok(started)
    }

    /// Checks what a new task asks of the browser against the one browser every task
    /// shares. With no other task live, a different configuration replaces the browser;
    /// otherwise it is `BROWSER_CONFIG_CONFLICT`.
    fn configure_browser(
        &self,
        request: Option<&BrowserRequest>,
        live_tasks: usize,
    ) -> Result<(), ToolError> {
        let current = self.host.options();
        let Some(request) = request else {
            return Ok(());
        };
        let wanted = match &current.endpoint {
            Endpoint::Launch(launch) => LaunchOptions {
                executable: request.executable.clone().or(launch.executable.clone()),
                headless: request.headless.unwrap_or(launch.headless),
                args: request.args.clone().unwrap_or(launch.args.clone()),
                user_data_dir: None,
            },
            Endpoint::Replay(tape) => {
                return Err(conflict(format!(
                    "this daemon plays back the tape {}; it cannot launch a browser",
                    tape.display()
                )));
            }
            Endpoint::Attach(_) | Endpoint::Grid(_) | Endpoint::Pool(_) => {
                if request.headless.is_some()
                    || request.executable.is_some()
                    || request.args.is_some()
                {
                    return Err(conflict(format!(
                        "this daemon drives {}; it cannot launch a browser configured as asked",
                        driven(&current.endpoint)
                    )));
                }
                return Ok(());
            }
        };
        if !wanted.headless && !self.config.display_available {
            return Err(ToolError::new(
                Code::DisplayUnavailable,
                "a headed browser needs a display, and the daemon has none (DISPLAY is not set)",
                "start the task headless, or run the daemon where DISPLAY is set",
            ));
        }
        let Endpoint::Launch(running) = &current.endpoint else {
            return Ok(());
        };
        if same_launch(running, &wanted) {
            return Ok(());
        }
        if live_tasks > 0 {
            return Err(conflict(format!(
                "the running browser is {}, and {live_tasks} task(s) use it; this task asks for {}",
                describe(running),
                describe(&wanted)
            )));
        }
        // No task uses the browser: the next one starts as asked.
        let old = self.host.reconfigure(BrowserOptions {
            endpoint: Endpoint::Launch(wanted),
            record_cdp: current.record_cdp,
        });
        if let Some(old) = old {
            tokio::spawn(async move {
                old.close(browser::Deadline::after(Duration::from_secs(5)))
                    .await;
            });
        }
        Ok(())
    }

    /// `tasks`: the live tasks and what each is running.
    pub(crate) fn list(&self) -> Envelope {
        let started = Instant::now();
        let tasks: Vec<Value> = lock(&self.live)
            .iter()
            .map(|(id, entry)| {
                let active = entry.engine.active();
                json!({
                    "id": id,
                    "createdAt": epoch_ms(entry.created_at),
                    "activeCommand": active.as_ref().map(|a| a.command_id.clone()),
                    "activeMethod": active.as_ref().map(|a| a.method.clone()),
                    "job": lock(&entry.job).clone(),
                })
            })
            .collect();
        let browser = self.host.browser().filter(|b| b.is_connected());
        let mut data = json!({
            "tasks": tasks,
            "browser": browser.as_ref().map(|b| json!({ "product": b.product(), "pid": b.pid() })),
        });
        if let Some(endpoints) = self.host.pool_states() {
            data["endpoints"] = endpoints
                .into_iter()
                .map(|e| json!({ "url": e.url, "load": e.load, "down": e.down }))
                .collect();
        }
        reply(&self.host, Ok(data), Effect::Reads, started)
    }

    /// `stop`: cancels what the task runs (its job, through `cancel_job`), closes its
    /// browser context, and keeps its diagnostics among the recent tasks.
    pub(crate) async fn stop(&self, task: &str, cancel_job: impl FnOnce(&str)) -> Envelope {
        let started = Instant::now();
        if let Err(refused) = check_task_id(task) {
            return reply(&self.host, Err(refused), Effect::Reads, started);
        }
        let Some(entry) = lock(&self.live).remove(task) else {
            return reply(
                &self.host,
                Err(task_not_found(task)),
                Effect::Reads,
                started,
            );
        };
        let job = lock(&entry.job).clone();
        if let Some(job) = &job {
            cancel_job(job);
        }
        let cancelled = entry
            .engine
            .active()
            .filter(|active| entry.engine.cancel(&active.command_id))
            .map(|active| active.command_id);
        entry.engine.shutdown().await;
        let data = json!({ "task": task, "stopped": true, "cancelledCommand": cancelled, "cancelledJob": job });
        reply(&self.host, Ok(data), Effect::Changes, started)
    }

    /// Runs one command on `task`: refused at once with `TASK_BUSY` when another holds
    /// the task, otherwise run by a worker of its own under the command's one deadline.
    pub(crate) async fn command(&self, task: &str, request: CommandRequest) -> Envelope {
        let started = Instant::now();
        if let Err(refused) = check_task_id(task) {
            return reply(&self.host, Err(refused), Effect::Reads, started);
        }
        let Some(entry) = self.get(task) else {
            return reply(
                &self.host,
                Err(task_not_found(task)),
                Effect::Reads,
                started,
            );
        };
        let timeout = match request.command_timeout_ms.map(command_timeout).transpose() {
            Ok(timeout) => timeout,
            Err(error) => return reply(&self.host, Err(error), Effect::Reads, started),
        };
        let lease = if Engine::uses_task(&request.method) {
            match entry.lease.clone().try_lock_owned() {
                Ok(lease) => Some(lease),
                Err(_) => {
                    return entry.engine.refuse_busy(
                        &request.method,
                        &request.params,
                        request.sensitive,
                    );
                }
            }
        } else {
            None
        };
        let options = CallOptions {
            timeout,
            sensitive: request.sensitive,
            ..CallOptions::default()
        };
        self.run_worker(
            entry.engine.clone(),
            lease,
            request.method,
            request.params,
            options,
        )
        .await
    }

    /// Runs one command on a worker of its own: it goes on to its own end (deadline,
    /// cancel or completion) even if the client that asked goes away.
    pub(crate) async fn run_worker(
        &self,
        engine: Arc<Engine>,
        lease: Option<OwnedMutexGuard<()>>,
        method: String,
        params: Value,
        options: CallOptions,
    ) -> Envelope {
        let busy = self.activity.begin();
        let worker = tokio::spawn(async move {
            let envelope = engine.call_with(&method, params, options).await;
            drop(lease);
            drop(busy);
            envelope
        });
        match worker.await {
            Ok(envelope) => envelope,
            Err(err) => {
                tracing::error!(%err, "a command's worker failed");
                let error = ToolError::new(
                    Code::BrowserDisconnected,
                    format!("the command's worker failed: {err}"),
                    "call diagnostics; if this repeats, restart the daemon",
                );
                reply(&self.host, Err(error), Effect::Changes, Instant::now())
            }
        }
    }

    /// `cancel`: `accepted:true` only when `command_id` is the command running now.
    pub(crate) fn cancel(&self, command_id: &str) -> Envelope {
        let started = Instant::now();
        let accepted_by = lock(&self.live)
            .iter()
            .find(|(_, entry)| entry.engine.cancel(command_id))
            .map(|(task, _)| task.clone());
        let data = json!({
            "commandId": command_id,
            "accepted": accepted_by.is_some(),
            "task": accepted_by,
            "reason": if accepted_by.is_some() {
                "the command stops before its next step; it ends COMMAND_CANCELLED once its worker has exited"
            } else {
                "no running command has this id (it finished, never existed, or was already cancelled and ended)"
            },
        });
        reply(&self.host, Ok(data), Effect::Changes, started)
    }

    /// `diagnostics` of a live or recently stopped task, answered from memory.
    pub(crate) async fn diagnostics(&self, task: &str, limit: Option<usize>) -> Envelope {
        if let Err(refused) = check_task_id(task) {
            return reply(&self.host, Err(refused), Effect::Reads, Instant::now());
        }
        let engine = self.get(task).map(|e| e.engine.clone()).or_else(|| {
            lock(&self.recent)
                .iter()
                .rev()
                .find(|(id, _)| id == task)
                .map(|(_, engine)| engine.clone())
        });
        let Some(engine) = engine else {
            return reply(
                &self.host,
                Err(task_not_found(task)),
                Effect::Reads,
                Instant::now(),
            );
        };
        let params = match limit {
            Some(limit) => json!({ "limit": limit }),
            None => json!({}),
        };
        engine.call(tool::Diagnostics::NAME, params, None).await
    }

    /// Closes every task and the browser: the daemon is going away.
    pub(crate) async fn shutdown(&self) {
        let entries: Vec<Arc<TaskEntry>> = std::mem::take(&mut *lock(&self.live))
            .into_values()
            .collect();
        for entry in &entries {
            if let Some(active) = entry.engine.active() {
                entry.engine.cancel(&active.command_id);
            }
        }
        for entry in entries {
            entry.engine.shutdown().await;
        }
        self.host
            .close(browser::Deadline::after(Duration::from_secs(5)))
            .await;
    }
}

/// A task id: 1–64 characters of letters, digits, `.`, `_` and `-`, and a folder name of
/// its own (`tasks/<id>`): never `.` or `..`, which name the folder itself and the state
/// directory. Checked on every route that names a task, before anything is looked up.
pub(crate) fn check_task_id(id: &str) -> Result<(), ToolError> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && id != "."
        && id != "..";
    if ok {
        Ok(())
    } else {
        Err(ToolError::invalid_params(format!(
            "task id {id:?} is not valid: use 1–64 letters, digits, '.', '_' or '-', and not . or .. alone"
        )))
    }
}

/// `commandTimeoutMs`, which must be within 1–900000 (docs/waiting.md#deadlines).
pub(crate) fn command_timeout(ms: u64) -> Result<Duration, ToolError> {
    let max = tools::MAX_COMMAND_TIMEOUT.as_millis() as u64;
    if (1..=max).contains(&ms) {
        Ok(Duration::from_millis(ms))
    } else {
        Err(ToolError::invalid_params(format!(
            "commandTimeoutMs must be between 1 and {max}, not {ms}"
        )))
    }
}

/// What a daemon that launches no browser drives, in words.
fn driven(endpoint: &Endpoint) -> String {
    match endpoint {
        Endpoint::Attach(url) => format!("the browser at {url}"),
        Endpoint::Grid(grid) => format!("browsers of the Selenium Grid at {}", grid.url),
        Endpoint::Pool(urls) => format!("browsers at the CDP endpoints {}", urls.join(", ")),
        Endpoint::Launch(_) | Endpoint::Replay(_) => "the browser it launches".into(),
    }
}

fn conflict(message: String) -> ToolError {
    ToolError::new(
        Code::BrowserConfigConflict,
        message,
        "start the task without browser options to share the running browser, or stop the other tasks first",
    )
}

fn same_launch(a: &LaunchOptions, b: &LaunchOptions) -> bool {
    a.headless == b.headless && a.executable == b.executable && a.args == b.args
}

fn describe(launch: &LaunchOptions) -> String {
    format!(
        "{} {}{}",
        if launch.headless {
            "headless"
        } else {
            "headed"
        },
        launch.executable.as_ref().map_or_else(
            || "default Chromium".to_string(),
            |p| p.display().to_string()
        ),
        if launch.args.is_empty() {
            String::new()
        } else {
            format!(" with {}", launch.args.join(" "))
        }
    )
}

/// Loads saved state `name` into a task being started (`POST /v1/tasks {state}`): what
/// `state` answered, or its refusal, which fails the start.
async fn load_state(engine: &Engine, name: &str, timeout: Duration) -> Result<Value, ToolError> {
    let envelope = engine
        .call(
            tools::tool::State::NAME,
            json!({ "action": "load", "name": name }),
            Some(timeout),
        )
        .await;
    match envelope.code {
        None if envelope.ok => Ok(envelope.data),
        code => Err(ToolError::new(
            code.unwrap_or(Code::InvalidParams),
            envelope.message.unwrap_or_default(),
            envelope.hint.unwrap_or_default(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_ids_are_short_and_plain() {
        for good in ["t", "1001", "agent-7.run_2"] {
            assert!(check_task_id(good).is_ok(), "{good}");
        }
        for bad in ["", ".", "..", "a b", "a/b", "../x", "ü", &"x".repeat(65)] {
            assert!(check_task_id(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn command_timeouts_are_bounded() {
        assert!(command_timeout(0).is_err());
        assert!(command_timeout(900_001).is_err());
        assert_eq!(
            command_timeout(1500).expect("in range"),
            Duration::from_millis(1500)
        );
    }
}
