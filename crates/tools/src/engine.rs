//! Runs one task's commands: ids, one deadline per command, the envelope, the journal.
//!
//! The browser starts on the first command that needs it, so listing tools costs
//! nothing. Commands that touch the task run one at a time; `diagnostics` reads the
//! journal without waiting for them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use browser::{Browser, BrowserOptions, Deadline, Task};
use serde_json::Value;

use crate::catalogue::{self, ToolDef};
use crate::envelope::{
    ActionStatus, Envelope, Events, Execution, Image, PageInfo, Status, Verification,
};
use crate::error::{Code, ToolError};
use crate::journal::{CommandRecord, Journal, epoch_ms, redact};

/// How an engine gets its browser and bounds its commands.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    pub browser: BrowserOptions,
    pub task_id: String,
    /// The deadline of a command that names none.
    pub command_timeout: Duration,
    pub url_policy: browser::UrlPolicy,
}

impl Default for EngineOptions {
    fn default() -> Self {
        Self {
            browser: BrowserOptions::default(),
            task_id: "default".into(),
            command_timeout: Duration::from_secs(30),
            url_policy: browser::UrlPolicy::default(),
        }
    }
}

/// The most a command may ask for (SPEC §7).
const MAX_COMMAND_TIMEOUT: Duration = Duration::from_millis(900_000);

#[derive(Default)]
pub(crate) struct Slot {
    browser: Option<Browser>,
    task: Option<Task>,
}

/// One task's command runner.
pub struct Engine {
    options: EngineOptions,
    slot: tokio::sync::Mutex<Slot>,
    journal: Arc<Mutex<Journal>>,
    next_command: AtomicU64,
    /// The browser, reachable without the task lock, so shutdown never waits on a
    /// command that is stuck.
    running: Arc<Mutex<Option<Browser>>>,
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
    options: &'a EngineOptions,
    journal: &'a Mutex<Journal>,
    running: &'a Mutex<Option<Browser>>,
    pub(crate) deadline: Deadline,
    stage: &'static str,
    dispatch_started: bool,
    pub(crate) page: Option<PageInfo>,
    pub(crate) events: Events,
    image: Option<Image>,
}

impl Engine {
    pub fn new(options: EngineOptions) -> Self {
        Self {
            options,
            slot: tokio::sync::Mutex::new(Slot::default()),
            journal: Arc::new(Mutex::new(Journal::default())),
            next_command: AtomicU64::new(1),
            running: Arc::new(Mutex::new(None)),
        }
    }

    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// Runs `method` with `params` under one deadline and returns its envelope. Never
    /// fails: every failure is an envelope with a code.
    pub async fn call(&self, method: &str, params: Value, timeout: Option<Duration>) -> Envelope {
        let started = Instant::now();
        let started_at = SystemTime::now();
        let command_id = format!("c-{}", self.next_command.fetch_add(1, Ordering::Relaxed));
        let budget = timeout
            .unwrap_or(self.options.command_timeout)
            .clamp(Duration::from_millis(1), MAX_COMMAND_TIMEOUT);
        let deadline = Deadline::after(budget);
        let mut ctx = Ctx {
            slot: None,
            options: &self.options,
            journal: &self.journal,
            running: &self.running,
            deadline,
            stage: "validate",
            dispatch_started: false,
            page: None,
            events: Events::default(),
            image: None,
        };
        let result = match catalogue::find(method) {
            None => Err(ToolError::invalid_params(format!(
                "there is no tool named {method:?}; the tools are: {}",
                catalogue::catalogue()
                    .iter()
                    .map(|t| t.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
            Some(tool) => self.run(tool, &mut ctx, params.clone(), started).await,
        };
        ctx.report_task_events();
        let mut envelope = finish(command_id, &ctx, result, started);
        if envelope.ok {
            envelope.image = ctx.image.take();
        }
        self.record(method, &params, &envelope, started_at);
        envelope
    }

    async fn run<'a>(
        &'a self,
        tool: &'static ToolDef,
        ctx: &mut Ctx<'a>,
        params: Value,
        started: Instant,
    ) -> Result<Value, ToolError> {
        let deadline = ctx.deadline;
        let work = async {
            if tool.uses_task {
                ctx.slot = Some(self.slot.lock().await);
            }
            (tool.call)(ctx, params).await
        };
        match tokio::time::timeout_at(deadline.at().into(), work).await {
            Ok(result) => result,
            Err(_) => Err(ToolError::new(
                Code::CommandTimeout,
                format!(
                    "{} did not finish within its {} ms deadline; work already handed to the browser may still complete",
                    tool.name,
                    started.elapsed().as_millis()
                ),
                "take a snapshot to see the page's state before acting again",
            )),
        }
    }

    fn record(&self, method: &str, params: &Value, envelope: &Envelope, started_at: SystemTime) {
        let record = CommandRecord {
            command_id: envelope.execution.command_id.clone(),
            method: method.to_string(),
            params: redact(params),
            ok: envelope.ok,
            code: envelope.code.map(Code::as_str),
            stage: envelope.execution.stage,
            duration_ms: envelope.execution.duration_ms,
            url: envelope.page.as_ref().map(|p| p.url.clone()),
            started_at: epoch_ms(started_at),
        };
        if let Ok(mut journal) = self.journal.lock() {
            journal.push(record);
        }
    }

    /// Closes the task and the browser, if one was started. A command still running
    /// gets a moment to finish; after that its browser is closed under it.
    pub async fn shutdown(&self) {
        let deadline = Deadline::after(Duration::from_secs(5));
        let mut slot = match tokio::time::timeout(Duration::from_secs(1), self.slot.lock()).await {
            Ok(slot) => slot,
            Err(_) => {
                let browser = self.running.lock().ok().and_then(|mut b| b.take());
                if let Some(browser) = browser {
                    browser.close(deadline).await;
                }
                return;
            }
        };
        if let Some(task) = slot.task.take() {
            let _ = task.close(deadline).await;
        }
        if let Some(browser) = slot.browser.take() {
            browser.close(deadline).await;
        }
        if let Ok(mut running) = self.running.lock() {
            running.take();
        }
    }

    /// The browser, when one is running (benchmarks and tests look at it).
    pub async fn browser(&self) -> Option<Browser> {
        self.slot.lock().await.browser.clone()
    }
}

fn finish(
    command_id: String,
    ctx: &Ctx<'_>,
    result: Result<Value, ToolError>,
    started: Instant,
) -> Envelope {
    let duration_ms = started.elapsed().as_millis() as u64;
    match result {
        Ok(data) => Envelope {
            ok: true,
            status: Status::Success,
            code: None,
            message: None,
            hint: None,
            execution: Execution {
                command_id,
                stage: "done",
                dispatch_started: ctx.dispatch_started,
                action_status: if ctx.dispatch_started {
                    ActionStatus::Completed
                } else {
                    ActionStatus::NotStarted
                },
                retry_safe: !ctx.dispatch_started,
                duration_ms,
            },
            verification: Verification::default(),
            task: "not_evaluated",
            page: ctx.page.clone(),
            data,
            events: ctx.events.clone(),
            image: None,
        },
        Err(error) => {
            let action_status = error.action_status.unwrap_or(
                if !ctx.dispatch_started || error.code.is_refusal() {
                    ActionStatus::NotStarted
                } else if error.code == Code::CommandTimeout {
                    ActionStatus::Unknown
                } else {
                    ActionStatus::Completed
                },
            );
            Envelope {
                ok: false,
                status: Status::Error,
                code: Some(error.code),
                message: Some(error.message),
                hint: Some(error.hint),
                execution: Execution {
                    command_id,
                    stage: ctx.stage,
                    dispatch_started: ctx.dispatch_started,
                    action_status,
                    retry_safe: action_status == ActionStatus::NotStarted,
                    duration_ms,
                },
                verification: Verification::default(),
                task: "not_evaluated",
                page: ctx.page.clone(),
                data: error
                    .data
                    .map_or_else(|| Value::Object(Default::default()), |d| *d),
                events: ctx.events.clone(),
                image: None,
            }
        }
    }
}

impl Ctx<'_> {
    /// Marks the stage the command is in; a failure reports the last one set.
    pub(crate) fn stage(&mut self, stage: &'static str) {
        self.stage = stage;
    }

    /// From here on, something may have reached the page.
    pub(crate) fn dispatched(&mut self) {
        self.dispatch_started = true;
    }

    pub(crate) fn options(&self) -> &EngineOptions {
        self.options
    }

    pub(crate) fn journal(&self) -> Vec<CommandRecord> {
        self.journal
            .lock()
            .map(|j| j.last(crate::journal::CAPACITY))
            .unwrap_or_default()
    }

    /// The task, starting the browser and creating the task on first use. A browser
    /// that died is reported once, then replaced on the next command.
    pub(crate) async fn task(&mut self) -> Result<&mut Task, ToolError> {
        let deadline = self.deadline;
        let options = self.options;
        let slot = self
            .slot
            .as_deref_mut()
            .ok_or_else(|| ToolError::invalid_params("this tool does not use the task"))?;
        if let Some(browser) = &slot.browser
            && !browser.is_connected()
        {
            slot.task = None;
            slot.browser = None;
            return Err(browser::Error::Disconnected.into());
        }
        if slot.browser.is_none() {
            self.stage = "launch";
            let browser = Browser::start(options.browser.clone(), deadline).await?;
            if let Ok(mut running) = self.running.lock() {
                *running = Some(browser.clone());
            }
            slot.browser = Some(browser);
        }
        if slot.task.is_none() {
            let Some(browser) = slot.browser.as_ref() else {
                return Err(browser::Error::Disconnected.into());
            };
            let mut task = Task::create(browser, options.task_id.clone(), deadline).await?;
            task.set_url_policy(options.url_policy.clone());
            slot.task = Some(task);
        }
        slot.task
            .as_mut()
            .ok_or_else(|| browser::Error::Disconnected.into())
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
    json
}
