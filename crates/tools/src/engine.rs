//! Runs one task's commands: ids, one deadline per command, cancellation, the live status
//! of the running command, the envelope, the journal.
//!
//! The tasks of one process share a [`BrowserHost`]: one browser, started on the first
//! command that needs it and replaced when it dies, and the command counter, so command
//! ids are unique per process. [`Engine::new`] gives an engine a host of its own (the MCP
//! face, demo, bench); the daemon gives every task's engine the same host, and each task
//! its own browser context. Commands that touch the task run one at a time; `diagnostics`
//! reads the journal and the running command's status without waiting for them.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use browser::{Browser, BrowserOptions, Deadline, Task};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::Notify;

use crate::archive::{Archive, ArchiveOptions, Observation};
use crate::catalogue::{self, PageGuard, Postcondition, ToolDef};
use crate::checkpoints::Checkpoints;
use crate::envelope::{Envelope, Events, Execution, Image, PageInfo, Status, Verification};
use crate::error::{ActionStatus, Code, ToolError};
use crate::flow::{self, Acted, Recorded};
use crate::handoff::HandoffCell;
use crate::host::BrowserHost;
use crate::journal::{CommandRecord, Journal, epoch_ms, redact_command};
use crate::mutex::lock;
use crate::resilience::{self, Circuit};

/// How an engine gets its browser and bounds its commands.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// The browser of an engine made with [`Engine::new`]; an engine on a shared
    /// [`BrowserHost`] uses the host's.
    pub browser: BrowserOptions,
    pub task_id: String,
    /// The deadline of a command that names none.
    pub command_timeout: Duration,
    pub url_policy: browser::UrlPolicy,
    /// Run caller JavaScript (`eval`, `expect.js`, `readback`): off unless configured.
    pub enable_eval: bool,
    /// Dialog policy `ask`: JavaScript dialogs stay open for the `dialog` tool instead
    /// of being answered at once (policy `auto`, the default).
    pub ask_dialogs: bool,
    /// The folder uploads are taken from; files named for an upload must be inside it.
    pub upload_dir: Option<std::path::PathBuf>,
    /// How long a page may take to answer a probe before it is `PAGE_UNRESPONSIVE`
    /// (config `unresponsiveMs`).
    pub unresponsive: Duration,
    /// How long five consecutive failures keep the task's circuit open.
    pub circuit_open: Duration,
    /// How long a press (mouse button, touch) is held before its release (config
    /// `pressPauseMs`, default 30–80 ms).
    pub press_pause: browser::PressPause,
    /// The task's archive of observations (docs/faces.md#archive): whether, where, and kept or not.
    pub archive: ArchiveOptions,
    /// The budgets of a call that names none (read budgets, screenshot size, settle).
    pub defaults: crate::defaults::CallDefaults,
    /// How much a task may download (config `downloadMaxCount`, `downloadMaxMb`).
    pub downloads: browser::DownloadLimits,
}

impl Default for EngineOptions {
    fn default() -> Self {
        Self {
            browser: BrowserOptions::default(),
            task_id: "default".into(),
            command_timeout: Duration::from_secs(30),
            url_policy: browser::UrlPolicy::default(),
            enable_eval: false,
            ask_dialogs: false,
            upload_dir: None,
            unresponsive: browser::DEFAULT_UNRESPONSIVE,
            circuit_open: crate::resilience::DEFAULT_CIRCUIT_OPEN,
            press_pause: browser::PressPause::default(),
            archive: ArchiveOptions::default(),
            defaults: crate::defaults::CallDefaults::default(),
            downloads: browser::DownloadLimits::default(),
        }
    }
}

/// How one command is to be run, beyond its method and params.
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    /// The command's deadline (clamped to 1–900000 ms); the engine's default when absent.
    pub timeout: Option<Duration>,
    /// Keep only the method, outcome, code and stage in the journal (docs/security.md#redaction).
    pub sensitive: bool,
    /// The element an acting command works on, by identity instead of a locator in its
    /// params (a flow's step, replayed in a tab that never issued its ref).
    pub target: Option<browser::ElementIdentity>,
    /// Conditions checked after the tool ran, all required, as act's `expect` (a flow
    /// step's postcondition): unmet is `EXPECTATION_FAILED`.
    pub expect: Option<Value>,
    /// Made by the person in a hand-off's live view: not refused by its lock.
    pub person: bool,
}

/// The most a command may ask for (docs/waiting.md#deadlines).
pub const MAX_COMMAND_TIMEOUT: Duration = Duration::from_millis(900_000);

/// How long past its deadline a command may take to report a timeout it saw itself.
const REPORT_GRACE: Duration = Duration::from_millis(50);

/// How soon a tab already found unresponsive must answer again before a command on it
/// is refused: the refusal comes at once, yet a page that recovered by itself is used.
const RECHECK: Duration = Duration::from_millis(300);

#[derive(Default)]
pub(crate) struct Slot {
    pub(crate) task: Option<Task>,
    /// The tabs of a task whose browser died, to reopen in the next one.
    lost: Option<browser::Remnant>,
    /// Tabs reopened by this command, for `events.recovered`.
    reopened: Vec<browser::Reopened>,
}

/// The command that holds the task, as `diagnostics` reports it.
struct Active {
    command_id: String,
    method: &'static str,
    started: Instant,
    stage: &'static str,
    dispatch_started: bool,
    cancel: Arc<CancelSignal>,
    worker_running: bool,
}

/// The running command's status, read from memory (docs/waiting.md#diagnostics).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActiveCommand {
    pub command_id: String,
    pub method: String,
    pub stage: &'static str,
    pub elapsed_ms: u64,
    pub dispatch_started: bool,
    /// `not-started` until something was dispatched, `unknown` from then on.
    pub action_status: ActionStatus,
    pub cancel_requested: bool,
    /// The command's handler is still running; false once it has exited (finished,
    /// cancelled or stopped at its deadline) and only the envelope is being written.
    pub worker_running: bool,
}

/// Set once by `cancel`; the command's runner waits on it beside its work.
#[derive(Default)]
struct CancelSignal {
    requested: AtomicBool,
    notify: Notify,
}

impl CancelSignal {
    fn request(&self) {
        self.requested.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    fn is_requested(&self) -> bool {
        self.requested.load(Ordering::SeqCst)
    }

    async fn requested(&self) {
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_requested() {
                return;
            }
            notified.await;
        }
    }
}

/// One task's command runner.
pub struct Engine {
    options: EngineOptions,
    host: Arc<BrowserHost>,
    /// The host is this engine's alone: shutting the engine down closes its browser.
    owns_host: bool,
    slot: tokio::sync::Mutex<Slot>,
    journal: Mutex<Journal>,
    active: Mutex<Option<Active>>,
    /// Shut down: no command may create the task again.
    closed: AtomicBool,
    /// Consecutive failures; open, it refuses the task's commands (`resilience.rs`).
    circuit: Mutex<Circuit>,
    /// Every observation of the task, written off the command's path (`archive.rs`).
    archive: Option<Archive>,
    /// The restorable state of each element snapshot (`checkpoints.rs`).
    checkpoints: Mutex<Checkpoints>,
    /// Whether a person has the task, and what they hand back (`handoff.rs`).
    pub(crate) handoff: HandoffCell,
    /// The steps a flow of this task would hold (`flow.rs`).
    flow_log: Mutex<FlowLog>,
    /// The page (tab, URL, title) the task's last answer gave, so the next says whether
    /// it changed (`PageInfo::changed`; the text form repeats it only then).
    told: Mutex<Option<(String, String, String)>>,
}

/// What the engine keeps for `flow export`: the recorded steps (the last
/// [`flow::MAX_STEPS`]), how many fell out, and the page's URL after the last command.
#[derive(Debug, Default)]
struct FlowLog {
    steps: VecDeque<Recorded>,
    dropped: u64,
    url: Option<String>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("task", &self.options.task_id)
            .finish()
    }
}

/// What a tool handler works with during one command.
pub struct Ctx<'a> {
    slot: Option<tokio::sync::MutexGuard<'a, Slot>>,
    engine: &'a Engine,
    pub(crate) deadline: Deadline,
    stage: &'static str,
    dispatch_started: bool,
    /// This command holds the task, and its stage shows in `diagnostics` as it changes.
    live: bool,
    pub(crate) page: Option<PageInfo>,
    pub(crate) events: Events,
    /// What the command verified (an `expect`), filled by the tool.
    pub(crate) verification: Verification,
    image: Option<Image>,
    /// Part of what was asked was done: the envelope is `partial` with this code.
    partial: Option<ToolError>,
    /// Tries that failed with a transient error and were tried again, for the journal.
    retries: Vec<Value>,
    /// JSON pointers (into `data`) of the page content the tool's output holds.
    pub(crate) untrusted: Vec<String>,
    /// The element to act on by identity ([`CallOptions::target`]); the tool takes it.
    pub(crate) target: Option<browser::ElementIdentity>,
    /// What `act` acted on, for the flow log.
    pub(crate) acted: Option<Acted>,
    /// Checked after the tool ran ([`CallOptions::expect`]).
    postcondition: Option<Postcondition>,
}

impl Engine {
    /// An engine with a browser of its own, started from `options.browser`.
    pub fn new(options: EngineOptions) -> Self {
        let host = Arc::new(BrowserHost::new(options.browser.clone()));
        Self::build(options, host, true)
    }

    /// An engine whose task lives in `host`'s browser, beside other tasks. Shutting it
    /// down closes its task (its browser context), never the browser.
    pub fn with_host(options: EngineOptions, host: Arc<BrowserHost>) -> Self {
        Self::build(options, host, false)
    }

    fn build(options: EngineOptions, host: Arc<BrowserHost>, owns_host: bool) -> Self {
        Self {
            archive: Archive::open(&options.task_id, &options.archive),
            options,
            host,
            owns_host,
            slot: tokio::sync::Mutex::new(Slot::default()),
            journal: Mutex::new(Journal::default()),
            active: Mutex::new(None),
            closed: AtomicBool::new(false),
            circuit: Mutex::new(Circuit::default()),
            checkpoints: Mutex::new(Checkpoints::default()),
            handoff: HandoffCell::default(),
            flow_log: Mutex::new(FlowLog::default()),
            told: Mutex::new(None),
        }
    }

    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// The task, held until the guard drops (the hand-off works on it beside commands).
    pub(crate) async fn task_slot(&self) -> tokio::sync::MutexGuard<'_, Slot> {
        self.slot.lock().await
    }

    pub fn host(&self) -> &Arc<BrowserHost> {
        &self.host
    }

    /// Whether `method` works on the task, and so runs only when no other command does.
    /// Unknown methods do not (they are refused without touching anything).
    pub fn uses_task(method: &str) -> bool {
        catalogue::find(method).is_some_and(|tool| tool.uses_task)
    }

    /// Runs `method` with `params` under one deadline and returns its envelope. Never
    /// fails: every failure is an envelope with a code.
    pub async fn call(&self, method: &str, params: Value, timeout: Option<Duration>) -> Envelope {
        let options = CallOptions {
            timeout,
            ..CallOptions::default()
        };
        self.call_with(method, params, options).await
    }

    /// [`Engine::call`] with every option. A command that uses the task waits for the one
    /// running (within its deadline); the daemon refuses instead (see
    /// [`Engine::refuse_busy`]).
    pub async fn call_with(&self, method: &str, params: Value, options: CallOptions) -> Envelope {
        let started = Instant::now();
        let started_at = SystemTime::now();
        let command_id = self.host.next_command_id();
        let budget = options
            .timeout
            .unwrap_or(self.options.command_timeout)
            .clamp(Duration::from_millis(1), MAX_COMMAND_TIMEOUT);
        let mut ctx = Ctx {
            slot: None,
            engine: self,
            deadline: Deadline::after(budget),
            stage: "validate",
            dispatch_started: false,
            live: false,
            page: None,
            events: Events::default(),
            verification: Verification::default(),
            image: None,
            partial: None,
            untrusted: Vec::new(),
            retries: Vec::new(),
            target: None,
            acted: None,
            postcondition: None,
        };
        ctx.target = options.target.clone();
        let postcondition = options
            .expect
            .as_ref()
            .map(|expect| catalogue::postcondition(expect, self.options.enable_eval))
            .transpose();
        let open = catalogue::find(method)
            .filter(|tool| tool.uses_task)
            .and_then(|_| lock(&self.circuit).open(Instant::now()));
        let url_before = lock(&self.flow_log).url.clone();
        // An unknown tool is refused as such, hand-off or not.
        let locked =
            !options.person && catalogue::find(method).is_some() && self.agent_enters(method);
        let result = match catalogue::find(method) {
            _ if locked => Err(crate::handoff::handoff_locked(&self.options.task_id)),
            _ if open.is_some() => Err(circuit_open(&self.options.task_id, open)),
            Some(tool) if !tool.policy.takes_target && options.target.is_some() => {
                Err(ToolError::invalid_params(format!(
                    "{method} acts on no element: it takes no target"
                )))
            }
            Some(tool) if !tool.uses_task && options.expect.is_some() => Err(
                ToolError::invalid_params(format!("{method} works on no page: it takes no expect")),
            ),
            None => Err(ToolError::invalid_params(format!(
                "there is no tool named {method:?}; the tools are: {}",
                catalogue::catalogue()
                    .iter()
                    .map(|t| t.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
            Some(tool) => match postcondition {
                Err(refused) => Err(refused),
                Ok(postcondition) => {
                    ctx.postcondition = postcondition;
                    let run = Run {
                        tool,
                        command_id: &command_id,
                        started,
                        budget,
                    };
                    self.run(run, &mut ctx, params.clone()).await
                }
            },
        };
        ctx.report_task_events();
        let cancelled = matches!(&result, Err(e) if e.code == Code::CommandCancelled);
        let mut envelope = finish(command_id, &ctx, result, started);
        envelope.execution.cancelled = cancelled;
        if let Some(page) = envelope.page.as_mut() {
            let now = (page.tab_id.clone(), page.url.clone(), page.title.clone());
            page.changed = lock(&self.told).replace(now.clone()) != Some(now);
        }
        if envelope.ok {
            envelope.image = ctx.image.take();
        }
        self.record_flow(
            method,
            &params,
            &envelope,
            ctx.acted.take(),
            options.sensitive,
            url_before,
        );
        self.record(
            method,
            &params,
            &envelope,
            started_at,
            options.sensitive,
            ctx.retries,
        );
        // Queued for the archive's writer; a sensitive command observes nothing.
        if !options.sensitive
            && let Some(archive) = &self.archive
            && let Some(observation) = Observation::of(method, &envelope, epoch_ms(started_at))
        {
            archive.write(observation);
        }
        if ctx.live {
            lock(&self.active).take();
        }
        if Engine::uses_task(method) && envelope.code != Some(Code::CircuitOpen) {
            let opened = lock(&self.circuit).record(
                envelope.status,
                envelope.code,
                Instant::now(),
                self.options.circuit_open,
            );
            if opened {
                tracing::warn!(task = %self.options.task_id, "five consecutive failures: the circuit is open");
            }
        }
        envelope
    }

    async fn run<'a>(
        &'a self,
        run: Run<'_>,
        ctx: &mut Ctx<'a>,
        params: Value,
    ) -> Result<Value, ToolError> {
        let deadline = ctx.deadline;
        let signal = Arc::new(CancelSignal::default());
        let work = async {
            if run.tool.uses_task {
                ctx.slot = Some(self.slot.lock().await);
                *lock(&self.active) = Some(Active {
                    command_id: run.command_id.to_string(),
                    method: run.tool.name,
                    started: run.started,
                    stage: ctx.stage,
                    dispatch_started: false,
                    cancel: signal.clone(),
                    worker_running: true,
                });
                ctx.live = true;
            }
            for try_number in 2..=resilience::MAX_TRIES {
                let result = self.try_once(run.tool, ctx, params.clone()).await;
                let wait = resilience::backoff(try_number);
                match result {
                    // Only what passes by itself, only before anything was dispatched,
                    // and only when the deadline leaves room for the wait and a try.
                    Err(error)
                        if error.transient
                            && !ctx.dispatch_started
                            && ctx.deadline.remaining() > wait * 2 =>
                    {
                        ctx.retries.push(serde_json::json!({
                            "code": error.code,
                            "message": error.message,
                            "waitMs": wait.as_millis() as u64,
                        }));
                        ctx.stage("retry");
                        tokio::time::sleep(wait).await;
                    }
                    result => return result,
                }
            }
            self.try_once(run.tool, ctx, params).await
        };

        // Tools that watch the deadline themselves report it with what they were doing;
        // this outer bound, a moment later, catches any that did not.
        let outer = deadline.at() + REPORT_GRACE;
        let outcome = tokio::select! {
            result = tokio::time::timeout_at(outer.into(), work) => match result {
                Ok(result) => result,
                Err(_) => Err(ToolError::new(
                    Code::CommandTimeout,
                    format!(
                        "{} did not finish within its {} ms deadline; work already handed to the browser may still complete",
                        run.tool.name,
                        run.budget.as_millis()
                    ),
                    "take a snapshot to see the page's state before acting again",
                )),
            },
            () = signal.requested() => Err(ToolError::new(
                Code::CommandCancelled,
                format!(
                    "{} ({}) was cancelled after {} ms and its worker has exited; steps not yet dispatched were not run, work already handed to the browser may still complete",
                    run.tool.name,
                    run.command_id,
                    run.started.elapsed().as_millis()
                ),
                "take a snapshot to see the page's state before acting again",
            )),
        };
        // The handler's future has ended here (finished, or dropped at the deadline or on
        // cancel): the worker is gone, only the envelope remains to be written.
        if ctx.live
            && let Some(active) = lock(&self.active).as_mut()
        {
            active.worker_running = false;
        }
        outcome
    }

    /// One try of a command: its handler, then the postcondition the caller gave (a flow
    /// step's), on the current tab.
    async fn try_once(
        &self,
        tool: &'static ToolDef,
        ctx: &mut Ctx<'_>,
        params: Value,
    ) -> Result<Value, ToolError> {
        let data = self.try_handler(tool, ctx, params).await?;
        if let Some(postcondition) = ctx.postcondition.clone() {
            let tab = ctx.task().await?.tab(None).map(|(_, tab)| tab.clone())?;
            catalogue::verify(ctx, &tab, &postcondition).await?;
        }
        Ok(data)
    }

    /// One try of a command's handler, under the tool's page guard: the tab it works on
    /// is probed first, and watched while the handler runs, so a page that stops
    /// answering ends the command at the probe point.
    async fn try_handler(
        &self,
        tool: &'static ToolDef,
        ctx: &mut Ctx<'_>,
        params: Value,
    ) -> Result<Value, ToolError> {
        let watched = match tool.page_guard {
            PageGuard::Reads => ctx.guard_page(&params, true).await?,
            PageGuard::Probe => ctx.guard_page(&params, false).await?,
            PageGuard::Own | PageGuard::Off => None,
        };
        let Some(tab) = watched else {
            return (tool.call)(ctx, params).await;
        };
        let unresponsive = tokio::select! {
            result = (tool.call)(&mut *ctx, params) => return result,
            unresponsive = tab.watch(self.options.unresponsive) => unresponsive,
        };
        // Stopped in its dispatch stage, the command may have sent input already.
        if ctx.stage == "dispatch" {
            ctx.dispatched();
        }
        Err(unresponsive.into())
    }

    /// The TASK_BUSY refusal (`started:false`) of a command that arrived while another
    /// holds the task: numbered and journalled like any command, and nothing ran.
    pub fn refuse_busy(&self, method: &str, params: &Value, sensitive: bool) -> Envelope {
        let started = Instant::now();
        let started_at = SystemTime::now();
        let command_id = self.host.next_command_id();
        let holder = self.active();
        let message = match &holder {
            Some(active) => format!(
                "task {} is running {} ({}, {} ms so far); one command runs at a time per task",
                self.options.task_id, active.command_id, active.method, active.elapsed_ms
            ),
            None => format!(
                "task {} is busy (a job holds it); one command runs at a time per task",
                self.options.task_id
            ),
        };
        let error = ToolError::new(
            Code::TaskBusy,
            message,
            "wait until it ends (diagnostics shows it), or cancel it; this command did not start",
        )
        .with_data(serde_json::json!({
            "started": false,
            "activeCommandId": holder.as_ref().map(|a| a.command_id.clone()),
        }));
        let ctx = Ctx {
            slot: None,
            engine: self,
            deadline: Deadline::after(Duration::ZERO),
            stage: "queue",
            dispatch_started: false,
            live: false,
            page: None,
            events: Events::default(),
            verification: Verification::default(),
            image: None,
            partial: None,
            untrusted: Vec::new(),
            retries: Vec::new(),
            target: None,
            acted: None,
            postcondition: None,
        };
        let mut envelope = finish(command_id, &ctx, Err(error), started);
        envelope.execution.started = Some(false);
        self.record(method, params, &envelope, started_at, sensitive, Vec::new());
        envelope
    }

    /// Asks the running command `command_id` to stop. True only when that command holds
    /// the task now and its worker has not yet exited; any other id (finished, unknown,
    /// of another task) is refused and cancels nothing.
    pub fn cancel(&self, command_id: &str) -> bool {
        match lock(&self.active).as_ref() {
            Some(active) if active.command_id == command_id && active.worker_running => {
                active.cancel.request();
                true
            }
            _ => false,
        }
    }

    /// The command holding the task, if any, read from memory.
    pub fn active(&self) -> Option<ActiveCommand> {
        lock(&self.active).as_ref().map(|active| ActiveCommand {
            command_id: active.command_id.clone(),
            method: active.method.to_string(),
            stage: active.stage,
            elapsed_ms: active.started.elapsed().as_millis() as u64,
            dispatch_started: active.dispatch_started,
            action_status: if active.dispatch_started {
                ActionStatus::Unknown
            } else {
                ActionStatus::NotStarted
            },
            cancel_requested: active.cancel.is_requested(),
            worker_running: active.worker_running,
        })
    }

    /// Starts the browser (if needed) and creates the task's browser context now rather
    /// than on its first command, within `timeout`.
    pub async fn open(&self, timeout: Duration) -> Result<(), ToolError> {
        let deadline = Deadline::after(timeout);
        let work = async {
            let mut slot = self.slot.lock().await;
            let mut stage = "launch";
            self.task_in(&mut slot, deadline, &mut stage)
                .await
                .map(drop)
        };
        match tokio::time::timeout_at(deadline.at().into(), work).await {
            Ok(result) => result,
            Err(_) => Err(ToolError::new(
                Code::CommandTimeout,
                format!(
                    "the browser context of task {} was not ready within {} ms; the browser may still finish starting",
                    self.options.task_id,
                    timeout.as_millis()
                ),
                "call again with a longer timeout",
            )),
        }
    }

    fn record(
        &self,
        method: &str,
        params: &Value,
        envelope: &Envelope,
        started_at: SystemTime,
        sensitive: bool,
        retries: Vec<Value>,
    ) {
        let record = CommandRecord {
            command_id: envelope.execution.command_id.clone(),
            method: method.to_string(),
            params: if sensitive {
                Value::String("[sensitive]".into())
            } else {
                redact_command(method, params)
            },
            ok: envelope.ok,
            code: envelope.code.map(Code::as_str),
            stage: envelope.execution.stage,
            duration_ms: envelope.execution.duration_ms,
            url: if sensitive {
                None
            } else {
                envelope.page.as_ref().map(|p| p.url.clone())
            },
            started_at: epoch_ms(started_at),
            retries,
            dialogs: envelope
                .events
                .dialog
                .as_ref()
                .and_then(|d| d["count"].as_u64()),
        };
        lock(&self.journal).push(record);
    }

    /// Keeps what a flow of this task needs of a command (`flow::Recorded`), and the
    /// page's URL after it, the URL the next command runs on.
    fn record_flow(
        &self,
        method: &str,
        params: &Value,
        envelope: &Envelope,
        acted: Option<Acted>,
        sensitive: bool,
        url_before: Option<String>,
    ) {
        let recorded = Recorded::of(
            method,
            params,
            envelope,
            acted.as_ref(),
            sensitive,
            url_before,
        );
        let mut log = lock(&self.flow_log);
        if let Some(page) = &envelope.page {
            log.url = Some(page.url.clone());
        }
        if let Some(recorded) = recorded {
            if log.steps.len() == flow::MAX_STEPS {
                log.steps.pop_front();
                log.dropped += 1;
            }
            log.steps.push_back(recorded);
        }
    }

    /// The task's flow (docs/faces.md#flows): the steps recorded so far.
    pub fn export_flow(&self) -> flow::Flow {
        let log = lock(&self.flow_log);
        let steps: Vec<Recorded> = log.steps.iter().cloned().collect();
        flow::export(
            &self.options.task_id,
            &steps,
            log.dropped,
            epoch_ms(SystemTime::now()),
        )
    }

    /// The task, starting the browser and creating the task on first use. A browser
    /// that died is reported once, then replaced on the next command.
    async fn task_in<'s>(
        &self,
        slot: &'s mut Slot,
        deadline: Deadline,
        stage: &mut &'static str,
    ) -> Result<&'s mut Task, ToolError> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(ToolError::new(
                Code::TaskNotFound,
                format!("task {} was stopped", self.options.task_id),
                "start the task again, or use another one",
            ));
        }
        if let Some(task) = &slot.task
            && !task.browser().is_connected()
        {
            // Reported once; the next command reopens the tabs in a new browser.
            slot.lost = slot.task.take().map(|task| task.remnant());
            return Err(browser::Error::Disconnected.into());
        }
        if slot.task.is_none() {
            *stage = "launch";
            let browser = self.host.place(deadline).await?;
            let mut task = Task::create(&browser, self.options.task_id.clone(), deadline).await?;
            task.set_url_policy(self.options.url_policy.clone());
            task.set_ask_dialogs(self.options.ask_dialogs);
            task.set_unresponsive_budget(self.options.unresponsive);
            task.set_download_limits(self.options.downloads);
            if let Some(remnant) = slot.lost.take() {
                *stage = "recover";
                slot.reopened = task.reopen(remnant, deadline).await;
            }
            slot.task = Some(task);
        }
        slot.task
            .as_mut()
            .ok_or_else(|| browser::Error::Disconnected.into())
    }

    /// Closes the task, and the browser when the engine has its own. A command still
    /// running gets a moment to finish; after that an own browser is closed under it.
    pub async fn shutdown(&self) {
        self.closed.store(true, Ordering::SeqCst);
        // What runs is cancelled (steps not yet dispatched never run), so the task is
        // free to close at once rather than when the command's deadline comes.
        if let Some(active) = lock(&self.active).as_ref() {
            active.cancel.request();
        }
        // A browser of the task's own (a grid session) must not outlive it, so a command
        // that is slow to let go is waited for longer than on a shared browser.
        let patience = if self.host.shares_browser() {
            Duration::from_secs(1)
        } else {
            Duration::from_secs(10)
        };
        let slot = tokio::time::timeout(patience, self.slot.lock()).await;
        let deadline = Deadline::after(Duration::from_secs(5));
        if let Ok(mut slot) = slot
            && let Some(task) = slot.task.take()
        {
            // A browser of the task's own (a grid session, a pool endpoint's) goes with it.
            let own = (!self.host.shares_browser()).then(|| task.browser().clone());
            let _ = task.close(deadline).await;
            if let Some(browser) = own {
                browser.close(deadline).await;
            }
        }
        if self.owns_host {
            self.host.close(deadline).await;
        }
        if let Some(archive) = &self.archive {
            archive.close();
        }
    }

    /// The browser, when one is running (benchmarks and tests look at it).
    pub async fn browser(&self) -> Option<Browser> {
        self.host.browser()
    }
}

/// What `run` needs to know about the command beyond its params.
struct Run<'r> {
    tool: &'static ToolDef,
    command_id: &'r str,
    started: Instant,
    budget: Duration,
}

/// The envelope of a command: a success, `partial` (the tool called `ctx.partial`: the
/// code and reason, beside the tool's data saying what was done) or an error — one
/// construction for all three.
fn finish(
    command_id: String,
    ctx: &Ctx<'_>,
    result: Result<Value, ToolError>,
    started: Instant,
) -> Envelope {
    let dispatched = if ctx.dispatch_started {
        ActionStatus::Completed
    } else {
        ActionStatus::NotStarted
    };
    let in_error = |error: &ToolError| -> Vec<String> {
        error
            .untrusted
            .iter()
            .map(|p| format!("/data{p}"))
            .collect()
    };
    let (status, error, data, in_data, action_status) = match result {
        Ok(data) => match ctx.partial.clone() {
            None => (
                Status::Success,
                None,
                data,
                ctx.untrusted.clone(),
                dispatched,
            ),
            Some(error) => {
                let mut data = data;
                if let (Value::Object(data), Some(Value::Object(extra))) =
                    (&mut data, error.data.as_deref())
                {
                    for (key, value) in extra {
                        data.entry(key.clone()).or_insert_with(|| value.clone());
                    }
                }
                let mut in_data = ctx.untrusted.clone();
                in_data.extend(in_error(&error));
                let action_status = error.action_status.unwrap_or(dispatched);
                (Status::Partial, Some(error), data, in_data, action_status)
            }
        },
        Err(error) => {
            let action_status = error.action_status.unwrap_or(
                if !ctx.dispatch_started || error.code.is_refusal() {
                    ActionStatus::NotStarted
                } else if matches!(
                    error.code,
                    Code::CommandTimeout
                        | Code::CommandCancelled
                        | Code::PageUnresponsive
                        | Code::NavigationTimeout
                        // The read after the action was dropped: what it did is not known.
                        | Code::PageTooLarge
                ) {
                    ActionStatus::Unknown
                } else {
                    ActionStatus::Completed
                },
            );
            let data = error
                .data
                .as_deref()
                .cloned()
                .unwrap_or_else(|| Value::Object(Default::default()));
            let in_data = in_error(&error);
            (Status::Error, Some(error), data, in_data, action_status)
        }
    };
    let ok = status == Status::Success;
    let (code, message, hint) = match error {
        Some(error) => (Some(error.code), Some(error.message), Some(error.hint)),
        None => (None, None, None),
    };
    let mut envelope = Envelope {
        ok,
        status,
        code,
        message,
        hint,
        execution: Execution {
            command_id,
            stage: if ok { "done" } else { ctx.stage },
            dispatch_started: ctx.dispatch_started,
            action_status,
            retry_safe: action_status == ActionStatus::NotStarted,
            duration_ms: started.elapsed().as_millis() as u64,
            started: None,
            cancelled: false,
        },
        verification: ctx.verification.clone(),
        task: "not_evaluated",
        page: ctx.page.clone(),
        data,
        events: ctx.events.clone(),
        untrusted: Vec::new(),
        image: None,
    };
    envelope.untrusted = page_content(&envelope, in_data);
    envelope
}

/// Every place in `envelope` that holds what came from the page: the data's (`in_data`,
/// known from the output's types), and the envelope's own — the page's URL and title,
/// the evidence of an expectation, a dialog's message, a new tab's URL, a download's file
/// name, URL and path, the origin a permission request came from, the URLs of tabs
/// reopened after a crash. A page writes each of these (a URL by `history.replaceState`,
/// a file name by a `download` attribute), so none is ever candor's own words.
fn page_content(envelope: &Envelope, in_data: Vec<String>) -> Vec<String> {
    let mut pointers = Vec::new();
    if let Some(page) = &envelope.page {
        for (key, value) in [("url", &page.url), ("title", &page.title)] {
            if !value.is_empty() {
                pointers.push(format!("/page/{key}"));
            }
        }
    }
    pointers.extend(in_data);
    let events = &envelope.events;
    let mut each = |list: &Option<Value>, at: &str, keys: &[&str]| {
        for (index, item) in list.iter().flat_map(listed).enumerate() {
            for key in keys {
                if item.get(*key).is_some_and(|v| !v.is_null()) {
                    pointers.push(format!("{at}/{index}/{key}"));
                }
            }
        }
    };
    each(
        &events.download,
        "/events/download",
        &["name", "url", "path"],
    );
    each(&events.permission, "/events/permission", &["origin"]);
    if let Some(recovered) = &events.recovered {
        each(
            &recovered.get("tabs").cloned(),
            "/events/recovered/tabs",
            &["url"],
        );
    }
    if events
        .new_tab
        .as_ref()
        .is_some_and(|tab| tab.get("url").is_some())
    {
        pointers.push("/events/newTab/url".into());
    }
    if let Some(expect) = &envelope.verification.expect {
        if expect.get("actual").is_some() {
            pointers.push("/verification/expect/actual".into());
        }
        for (index, _) in expect["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            pointers.push(format!("/verification/expect/conditions/{index}/actual"));
        }
    }
    if let Some(dialog) = &envelope.events.dialog {
        if dialog.get("message").is_some() {
            pointers.push("/events/dialog/message".into());
        }
        for list in ["first", "last"] {
            for (index, _) in dialog[list].as_array().into_iter().flatten().enumerate() {
                pointers.push(format!("/events/dialog/{list}/{index}/message"));
            }
        }
    }
    pointers
}

/// The items of an event that is a list.
fn listed(value: &Value) -> impl Iterator<Item = &Value> {
    value.as_array().into_iter().flatten()
}

/// The refusal of a command while the task's circuit is open.
fn circuit_open(task: &str, open: Option<resilience::Open>) -> ToolError {
    let (left, failures, last) = open.map_or((Duration::ZERO, 0, None), |o| {
        (o.left, o.failures, o.last_code)
    });
    let left_ms = left.as_millis() as u64;
    ToolError::new(
        Code::CircuitOpen,
        format!(
            "task {task} had {failures} failed commands in a row (the last {}); its circuit is open for {left_ms} ms more, so nothing was run",
            last.map(Code::as_str).unwrap_or_default()
        ),
        "wait that long (browser_diagnostics answers meanwhile), then call again; a success closes the circuit",
    )
    .with_data(serde_json::json!({
        "retryAfterMs": left_ms,
        "failures": failures,
        "lastCode": last,
    }))
}

impl<'a> Ctx<'a> {
    /// The task's archive, when it keeps one.
    pub(crate) fn archive(&self) -> Option<&'a Archive> {
        self.engine.archive.as_ref()
    }

    /// The engine running this command (the hand-off works beside the task's lock).
    pub(crate) fn engine(&self) -> &'a Engine {
        self.engine
    }

    /// The task's checkpoints.
    pub(crate) fn checkpoints(&self) -> MutexGuard<'a, Checkpoints> {
        lock(&self.engine.checkpoints)
    }
}

impl Ctx<'_> {
    /// Part of what was asked was done and part was not: the command's envelope becomes
    /// `partial` with `error`'s code, message and hint, beside the data the tool returns.
    pub(crate) fn partial(&mut self, error: ToolError) {
        self.partial = Some(error);
    }

    /// The checks of [`PageGuard::Reads`] (`reads`: an error page is refused) and
    /// [`PageGuard::Probe`]: the tab the command names (`tabId`) or the
    /// current one, when the task has it and it is neither crashed nor closed (the tool
    /// reports those), must answer within the probe budget — or at once, if it was
    /// already found unresponsive. Returns the tab to watch while the handler runs.
    async fn guard_page(
        &mut self,
        params: &Value,
        reads: bool,
    ) -> Result<Option<browser::Tab>, ToolError> {
        let Some(task) = self.slot.as_deref().and_then(|slot| slot.task.as_ref()) else {
            return Ok(None);
        };
        if !task.browser().is_connected() {
            return Ok(None);
        }
        let named = params.get("tabId").and_then(Value::as_str);
        let Ok((tab_id, tab)) = task.tab(named) else {
            return Ok(None);
        };
        let tab = tab.clone();
        let state = tab.state();
        if state.crashed || state.closed {
            return Ok(None);
        }
        // A Chromium error page is not the site: a tool that reads the page never reads
        // it as if it were.
        if reads && let Err(refused) = tab.check_loaded() {
            self.report_page(tab_id, &state);
            return Err(refused.into());
        }
        let budget = self.engine.options.unresponsive;
        let budget = if state.unresponsive {
            RECHECK.min(budget)
        } else {
            budget
        };
        match tab.probe(budget, self.deadline).await {
            Err(err @ browser::Error::PageUnresponsive { .. }) => {
                self.stage("probe");
                self.report_page(tab_id, &tab.state());
                Err(err.into())
            }
            // Anything else is the tool's to find and report.
            _ => Ok(Some(tab)),
        }
    }

    /// Marks the stage the command is in; a failure reports the last one set, and
    /// `diagnostics` shows it while the command runs.
    pub(crate) fn stage(&mut self, stage: &'static str) {
        self.stage = stage;
        self.update_active(|active| active.stage = stage);
    }

    /// From here on, something may have reached the page.
    pub(crate) fn dispatched(&mut self) {
        self.dispatch_started = true;
        self.update_active(|active| active.dispatch_started = true);
    }

    fn update_active(&self, change: impl FnOnce(&mut Active)) {
        if self.live
            && let Some(active) = lock(&self.engine.active).as_mut()
        {
            change(active);
        }
    }

    pub(crate) fn options(&self) -> &EngineOptions {
        &self.engine.options
    }

    /// The task's flow so far.
    pub(crate) fn export_flow(&self) -> flow::Flow {
        self.engine.export_flow()
    }

    pub(crate) fn journal(&self) -> Vec<CommandRecord> {
        lock(&self.engine.journal).last(crate::journal::CAPACITY)
    }

    /// The command holding the task, if another one does (for `diagnostics`).
    pub(crate) fn active(&self) -> Option<ActiveCommand> {
        self.engine.active()
    }

    /// The task, starting the browser and creating the task on first use. A browser
    /// that died is reported once, then replaced on the next command.
    pub(crate) async fn task(&mut self) -> Result<&mut Task, ToolError> {
        let deadline = self.deadline;
        let engine = self.engine;
        let mut stage = self.stage;
        let slot = self
            .slot
            .as_deref_mut()
            .ok_or_else(|| ToolError::invalid_params("this tool does not use the task"))?;
        let result = engine.task_in(slot, deadline, &mut stage).await;
        if stage != self.stage {
            self.stage = stage;
            if self.live
                && let Some(active) = lock(&engine.active).as_mut()
            {
                active.stage = stage;
            }
        }
        result
    }

    /// Delivers an image with the envelope (faces that carry images send it apart from
    /// `data`).
    pub(crate) fn attach_image(&mut self, image: Image) {
        self.image = Some(image);
    }

    /// Puts the task's unasked-for events since the last command into the envelope:
    /// downloads that changed state (one that finishes after its command shows in the
    /// next one) and denied permission requests.
    fn report_task_events(&mut self) {
        if let Some(slot) = self.slot.as_deref_mut()
            && !slot.reopened.is_empty()
        {
            let reopened = std::mem::take(&mut slot.reopened);
            let tabs = reopened
                .iter()
                .map(|tab| {
                    let mut line =
                        serde_json::json!({ "tabId": tab.id.to_string(), "url": tab.url });
                    if let Some(error) = &tab.error {
                        line["error"] = error.clone().into();
                    }
                    line
                })
                .collect();
            self.events.recovered = Some(serde_json::json!({
                "browserRelaunched": true,
                "tabs": Value::Array(tabs),
            }));
        }
        let Some(task) = self.slot.as_deref().and_then(|slot| slot.task.as_ref()) else {
            return;
        };
        let events = task.take_events();
        if !events.downloads.is_empty() {
            let downloads = events.downloads.iter().map(download_json).collect();
            self.events.download = Some(Value::Array(downloads));
        }
        if !events.permissions.is_empty() {
            let denials = events
                .permissions
                .iter()
                .map(|denial| {
                    serde_json::json!({
                        "permission": denial.permission,
                        "origin": denial.origin,
                        "tabId": denial.tab,
                        "decision": "denied",
                    })
                })
                .collect();
            self.events.permission = Some(Value::Array(denials));
        }
    }

    /// Puts `tab`'s page into the envelope.
    pub(crate) fn report_page(&mut self, tab_id: browser::TabId, state: &browser::PageState) {
        self.page = Some(PageInfo {
            tab_id: tab_id.to_string(),
            url: state.url.clone(),
            title: state.title.clone(),
            snapshot_id: None,
            changed: true,
        });
    }
}

fn download_json(download: &browser::Download) -> Value {
    let mut json = serde_json::json!({
        "name": download.name,
        "size": download.received_bytes,
        "state": download.state.name(),
        "url": download.url,
    });
    if download.total_bytes > 0 && download.total_bytes != download.received_bytes {
        json["totalBytes"] = download.total_bytes.into();
    }
    if let Some(path) = &download.path {
        json["path"] = path.display().to_string().into();
    }
    if let Some(limit) = download.limit {
        let error = ToolError::from(browser::Error::DownloadLimit { limit });
        json["error"] = serde_json::json!({
            "code": error.code,
            "message": error.message,
            "hint": error.hint,
            "data": error.data,
        });
    }
    json
}
