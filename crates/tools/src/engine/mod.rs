//! Runs one task's commands: ids, one deadline per command, cancellation, the live status
//! of the running command, the envelope, the journal.
//!
//! The tasks of one process share a [`BrowserHost`]: one browser, started on the first
//! command that needs it and replaced when it dies, and the command counter, so command
//! ids are unique per process. [`Engine::new`] gives an engine a host of its own (the MCP
//! face, demo, bench); the daemon gives every task's engine the same host, and each task
//! its own browser context. Commands that touch the task run one at a time; `diagnostics`
//! reads the journal and the running command's status without waiting for them.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use browser::{Browser, Deadline};
use serde_json::Value;

use crate::archive::Observation;
use crate::catalogue::{self, PageGuard, Postcondition, ToolDef};
use crate::command::{Active, ActiveCommand, CancelSignal};
use crate::ctx::Ctx;
use crate::envelope::Envelope;
use crate::error::{Code, ToolError};
use crate::host::BrowserHost;
use crate::journal::epoch_ms;
use crate::mutex::lock;
use crate::options::{CallOptions, EngineOptions, MAX_COMMAND_TIMEOUT};
use crate::resilience::{self, Circuit};
use crate::state::{TaskBuffers, TaskState};

mod handoff;
mod record;
mod reply;

/// How long past its deadline a command may take to report a timeout it saw itself.
const REPORT_GRACE: Duration = Duration::from_millis(50);

/// One task's command runner.
pub struct Engine {
    /// What the task keeps between commands, lent to each command's `Ctx`.
    state: TaskState,
    /// The host is this engine's alone: shutting the engine down closes its browser.
    owns_host: bool,
    /// Consecutive failures; open, it refuses the task's commands (`resilience.rs`).
    circuit: Mutex<Circuit>,
    /// The page (tab, URL, title) the task's last answer gave, so the next says whether
    /// it changed (`PageInfo::changed`; the text form repeats it only then).
    told: Mutex<Option<(String, String, String)>>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("task", &self.state.options.task_id)
            .finish()
    }
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
            state: TaskState::new(options, host),
            owns_host,
            circuit: Mutex::new(Circuit::default()),
            told: Mutex::new(None),
        }
    }

    pub fn options(&self) -> &EngineOptions {
        &self.state.options
    }

    pub fn host(&self) -> &Arc<BrowserHost> {
        &self.state.host
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
        let sensitive =
            options.sensitive || catalogue::find(method).is_some_and(|tool| tool.policy.sensitive);
        let started = Instant::now();
        let started_at = SystemTime::now();
        let command_id = self.state.host.next_command_id();
        let budget = options
            .timeout
            .unwrap_or(self.state.options.command_timeout)
            .clamp(Duration::from_millis(1), MAX_COMMAND_TIMEOUT);
        let mut ctx = Ctx::new(&self.state, Deadline::after(budget), "validate");
        ctx.target = options.target.clone();
        let postcondition = options
            .expect
            .as_ref()
            .map(|expect| catalogue::postcondition(expect, self.state.options.enable_eval))
            .transpose();
        let open = catalogue::find(method)
            .filter(|tool| tool.uses_task)
            .and_then(|_| lock(&self.circuit).open(Instant::now()));
        let url_before = lock(&self.state.flow_log).url();
        let tool = catalogue::find(method);
        // An unknown tool is refused as such, hand-off or not.
        let locked = !options.person && tool.is_some_and(|tool| self.agent_enters(&tool.policy));
        let result = match tool {
            _ if locked => Err(crate::handoff::handoff_locked(&self.state.options.task_id)),
            _ if open.is_some() => Err(circuit_open(&self.state.options.task_id, open)),
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
                    let run = Run {
                        tool,
                        command_id: &command_id,
                        started,
                        budget,
                        postcondition,
                        cancel: options.cancel.clone().unwrap_or_default(),
                    };
                    self.run(run, &mut ctx, params.clone()).await
                }
            },
        };
        let ran = started.elapsed();
        if let Some(tool) = tool {
            // A command cancelled or past its deadline waits for nothing more.
            let cut_short = matches!(&result, Err(e)
                if matches!(e.code, Code::CommandCancelled | Code::CommandTimeout));
            ctx.report_problems(tool.policy.problems, !cut_short).await;
        }
        ctx.report_task_events();
        let cancelled = matches!(&result, Err(e) if e.code == Code::CommandCancelled);
        let mut envelope = reply::finish(command_id, &ctx, result, started);
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
            sensitive,
            url_before,
        );
        self.record(
            method,
            &params,
            &envelope,
            started_at,
            sensitive,
            ctx.retries,
        );
        // Queued for the archive's writer; a sensitive command observes nothing.
        if !sensitive
            && let Some(archive) = &self.state.archive
            && let Some(tool) = tool
            && let Some(observation) =
                Observation::of(method, tool.policy.archive, &envelope, epoch_ms(started_at))
        {
            archive.write(observation);
        }
        if ctx.live {
            lock(&self.state.active).take();
        }
        // Where a command's time went, for profiling (`CANDOR_LOG=candor::command=debug`):
        // its handler (with the probe), and what the engine did around it.
        tracing::debug!(
            target: "candor::command",
            method,
            run_ms = ran.as_secs_f64() * 1000.0,
            total_ms = started.elapsed().as_secs_f64() * 1000.0,
            "command"
        );
        if tool.is_some_and(|tool| tool.uses_task) && envelope.code != Some(Code::CircuitOpen) {
            let opened = lock(&self.circuit).record(
                envelope.status,
                envelope.code,
                Instant::now(),
                self.state.options.circuit_open,
            );
            if opened {
                tracing::warn!(task = %self.state.options.task_id, "five consecutive failures: the circuit is open");
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
        let signal = run.cancel.clone();
        let work = async {
            if run.tool.uses_task {
                ctx.slot = Some(self.state.slot.lock().await);
                *lock(&self.state.active) = Some(Active {
                    command_id: run.command_id.to_string(),
                    method: run.tool.name,
                    started: run.started,
                    stage: ctx.stage,
                    dispatch_started: false,
                    cancel: signal.clone(),
                    worker_running: true,
                });
                ctx.live = true;
                ctx.mark_logs();
            }
            for try_number in 2..=resilience::MAX_TRIES {
                let result = self.try_once(&run, ctx, params.clone()).await;
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
            self.try_once(&run, ctx, params).await
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
            && let Some(active) = lock(&self.state.active).as_mut()
        {
            active.worker_running = false;
        }
        outcome
    }

    /// One try of a command: its handler, then the postcondition the caller gave (a flow
    /// step's), on the current tab.
    async fn try_once(
        &self,
        run: &Run<'_>,
        ctx: &mut Ctx<'_>,
        params: Value,
    ) -> Result<Value, ToolError> {
        let data = self.try_handler(run.tool, ctx, params).await?;
        if let Some(postcondition) = &run.postcondition {
            let tab = ctx.task().await?.tab(None).map(|(_, tab)| tab.clone())?;
            catalogue::verify(ctx, &tab, postcondition).await?;
        }
        Ok(data)
    }

    /// One try of a command's handler, under the tool's page guard: the tab it works on
    /// is probed first (for a tool that changes nothing, just before the handler starts,
    /// see `Ctx::guard_page`), and watched while the handler runs, so a page that stops
    /// answering ends the command at the probe point.
    async fn try_handler(
        &self,
        tool: &'static ToolDef,
        ctx: &mut Ctx<'_>,
        params: Value,
    ) -> Result<Value, ToolError> {
        let read_only = tool.annotations.read_only;
        let watched = match tool.page_guard {
            PageGuard::Reads => ctx.guard_page(&params, true, read_only).await?,
            PageGuard::Probe => ctx.guard_page(&params, false, read_only).await?,
            PageGuard::Own | PageGuard::Off => None,
        };
        let Some((tab, probed)) = watched else {
            return (tool.call)(ctx, params).await;
        };
        let unresponsive = tokio::select! {
            // The watch is polled first: unprobed, its first probe goes before anything
            // of the handler's.
            biased;
            unresponsive = tab.watch(self.state.options.unresponsive, !probed) => unresponsive,
            result = (tool.call)(&mut *ctx, params) => return result,
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
        let command_id = self.state.host.next_command_id();
        let holder = self.active();
        let message = match &holder {
            Some(active) => format!(
                "task {} is running {} ({}, {} ms so far); one command runs at a time per task",
                self.state.options.task_id, active.command_id, active.method, active.elapsed_ms
            ),
            None => format!(
                "task {} is busy (a job holds it); one command runs at a time per task",
                self.state.options.task_id
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
        let ctx = Ctx::new(&self.state, Deadline::after(Duration::ZERO), "queue");
        let mut envelope = reply::finish(command_id, &ctx, Err(error), started);
        envelope.execution.started = Some(false);
        let sensitive =
            sensitive || catalogue::find(method).is_some_and(|tool| tool.policy.sensitive);
        self.record(method, params, &envelope, started_at, sensitive, Vec::new());
        envelope
    }

    /// Asks the running command `command_id` to stop. True only when that command holds
    /// the task now and its worker has not yet exited; any other id (finished, unknown,
    /// of another task) is refused and cancels nothing.
    pub fn cancel(&self, command_id: &str) -> bool {
        match lock(&self.state.active).as_ref() {
            Some(active) if active.command_id == command_id && active.worker_running => {
                active.cancel.request();
                true
            }
            _ => false,
        }
    }

    /// The command holding the task, if any, read from memory.
    pub fn active(&self) -> Option<ActiveCommand> {
        self.state.active()
    }

    /// What the task's bounded buffers (flow log, journal, checkpoints) hold now, read
    /// from memory without waiting for a running command.
    pub fn buffers(&self) -> TaskBuffers {
        self.state.buffers()
    }

    /// Starts the browser (if needed) and creates the task's browser context now rather
    /// than on its first command, within `timeout`.
    pub async fn open(&self, timeout: Duration) -> Result<(), ToolError> {
        let deadline = Deadline::after(timeout);
        let work = async {
            let mut slot = self.state.slot.lock().await;
            let mut stage = "launch";
            self.state
                .task_in(&mut slot, deadline, &mut stage)
                .await
                .map(drop)
        };
        match tokio::time::timeout_at(deadline.at().into(), work).await {
            Ok(result) => result,
            Err(_) => Err(ToolError::new(
                Code::CommandTimeout,
                format!(
                    "the browser context of task {} was not ready within {} ms; the browser may still finish starting",
                    self.state.options.task_id,
                    timeout.as_millis()
                ),
                "call again with a longer timeout",
            )),
        }
    }

    /// Closes the task, and the browser when the engine has its own. A command still
    /// running gets a moment to finish; after that an own browser is closed under it.
    pub async fn shutdown(&self) {
        self.state.closed.store(true, Ordering::SeqCst);
        // What runs is cancelled (steps not yet dispatched never run), so the task is
        // free to close at once rather than when the command's deadline comes.
        if let Some(active) = lock(&self.state.active).as_ref() {
            active.cancel.request();
        }
        // A browser of the task's own (a grid session) must not outlive it, so a command
        // that is slow to let go is waited for longer than on a shared browser.
        let patience = if self.state.owns_browser() {
            Duration::from_secs(10)
        } else {
            Duration::from_secs(1)
        };
        let slot = tokio::time::timeout(patience, self.state.slot.lock()).await;
        let deadline = Deadline::after(Duration::from_secs(5));
        // A command that would not let go keeps its browser, and so the profile it is on.
        let settled = slot.is_ok();
        if let Ok(mut slot) = slot
            && let Some(task) = slot.task.take()
        {
            // A browser of the task's own (a grid session, a pool endpoint's, its
            // profile's) goes with it.
            let own = self.state.owns_browser().then(|| task.browser().clone());
            let _ = task.close(deadline).await;
            if let Some(browser) = own {
                browser.close(deadline).await;
            }
        }
        if self.owns_host {
            self.state.host.close(deadline).await;
        }
        // Let go of the profile once its browser has closed (and written it out).
        if settled {
            lock(&self.state.profile).take();
        }
        if let Some(archive) = &self.state.archive {
            archive.close();
        }
    }

    /// The browser, when one is running (benchmarks and tests look at it).
    pub async fn browser(&self) -> Option<Browser> {
        self.state.host.browser()
    }
}

/// What `run` needs to know about the command beyond its params.
struct Run<'r> {
    tool: &'static ToolDef,
    command_id: &'r str,
    started: Instant,
    budget: Duration,
    /// Checked after the tool ran ([`CallOptions::expect`]).
    postcondition: Option<Postcondition>,
    /// The caller's own cancel ([`CallOptions::cancel`]), else one of the command's.
    cancel: Arc<CancelSignal>,
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
