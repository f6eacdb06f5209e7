//! What one task's engine keeps between commands and lends to each command's `Ctx`: its
//! options, the browser host, the task itself (its slot, taken by one command at a time),
//! the journal, the command running now, the archive, the checkpoints, the hand-off and
//! the flow log. The engine owns it; tools reach it only through their `Ctx`, never the
//! engine.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use browser::{Deadline, Held, ProfileLock, Task, TaskSetup};

use crate::archive::Archive;
use crate::checkpoints::Checkpoints;
use crate::command::{Active, ActiveCommand};
use crate::error::{Code, ToolError};
use crate::flow_file::{Flow, Log};
use crate::handoff::HandoffCell;
use crate::host::BrowserHost;
use crate::journal::{CommandRecord, Journal, epoch_ms};
use crate::mutex::lock;
use crate::options::EngineOptions;

/// A task's state, as its engine keeps it.
pub(crate) struct TaskState {
    pub options: EngineOptions,
    pub host: Arc<BrowserHost>,
    /// The task, held by the command that works on it.
    pub slot: tokio::sync::Mutex<Slot>,
    pub journal: Mutex<Journal>,
    /// The command holding the task, while one does.
    pub active: Mutex<Option<Active>>,
    /// Shut down: no command may create the task again.
    pub closed: AtomicBool,
    /// Every observation of the task, written off the command's path (`archive.rs`).
    pub archive: Option<Archive>,
    /// The restorable state of each element snapshot (`checkpoints.rs`).
    pub checkpoints: Mutex<Checkpoints>,
    /// Whether a person has the task, and what they hand back (`handoff.rs`).
    pub handoff: HandoffCell,
    /// The steps a flow of this task would hold (`flow_file.rs`).
    pub flow_log: Mutex<Log>,
    /// The task's persistent profile, held from its first need until shutdown.
    pub profile: Mutex<Option<browser::ProfileLock>>,
}

/// What a task's bounded buffers hold now (`browser::Footprint`), summed over tasks by
/// the daemon's memory report. Its tabs' buffers are the browser's to tell
/// (`Browser::tab_buffers`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TaskBuffers {
    /// The flow log (the last `flow_file::MAX_STEPS` steps).
    pub flow_steps: Held,
    /// The journal (the last `journal::CAPACITY` commands).
    pub journal: Held,
    /// The checkpoints (the last `checkpoints::CAPACITY`).
    pub checkpoints: Held,
}

impl std::ops::AddAssign for TaskBuffers {
    fn add_assign(&mut self, other: TaskBuffers) {
        self.flow_steps += other.flow_steps;
        self.journal += other.journal;
        self.checkpoints += other.checkpoints;
    }
}

/// The task of an engine, and what is left of it when its browser died.
#[derive(Default)]
pub(crate) struct Slot {
    pub task: Option<Task>,
    /// The tabs of a task whose browser died, to reopen in the next one.
    pub lost: Option<browser::Remnant>,
    /// Tabs reopened by this command, for `events.recovered`.
    pub reopened: Vec<browser::Reopened>,
}

impl TaskState {
    pub fn new(options: EngineOptions, host: Arc<BrowserHost>) -> Self {
        Self {
            archive: Archive::open(&options.task_id, &options.archive),
            options,
            host,
            slot: tokio::sync::Mutex::new(Slot::default()),
            journal: Mutex::new(Journal::default()),
            active: Mutex::new(None),
            closed: AtomicBool::new(false),
            checkpoints: Mutex::new(Checkpoints::default()),
            handoff: HandoffCell::default(),
            flow_log: Mutex::new(Log::default()),
            profile: Mutex::new(None),
        }
    }

    /// The command holding the task, if any, read from memory.
    pub fn active(&self) -> Option<ActiveCommand> {
        lock(&self.active).as_ref().map(Active::status)
    }

    /// The last commands, oldest first.
    pub fn journal(&self) -> Vec<CommandRecord> {
        lock(&self.journal).last(crate::journal::CAPACITY)
    }

    /// What the task's buffers hold now: each lock taken in turn, only for the walk
    /// over its buffer, so a running command is never waited for (it holds none of them
    /// for longer than a push).
    pub fn buffers(&self) -> TaskBuffers {
        TaskBuffers {
            flow_steps: lock(&self.flow_log).footprint(),
            journal: lock(&self.journal).footprint(),
            checkpoints: lock(&self.checkpoints).footprint(),
        }
    }

    /// The task's flow (docs/faces.md#flows): the steps recorded so far.
    pub fn export_flow(&self) -> Flow {
        lock(&self.flow_log).export(&self.options.task_id, epoch_ms(SystemTime::now()))
    }

    /// Whether the task has a browser of its own, closed with it: on a grid or a pool, or
    /// on its profile.
    pub fn owns_browser(&self) -> bool {
        self.options.profile.is_some() || !self.host.shares_browser()
    }

    /// Takes the task's profile, unless it holds it already; refused at once
    /// (`PROFILE_IN_USE`) when another holds it.
    fn hold_profile(&self, dir: &std::path::Path) -> Result<(), ToolError> {
        let mut held = lock(&self.profile);
        if held.is_none() {
            let holder = format!("task {}", self.options.task_id);
            *held = Some(ProfileLock::acquire(dir, &holder)?);
        }
        Ok(())
    }

    /// The task, starting the browser and creating the task on first use. A browser
    /// that died is reported once, then replaced on the next command.
    pub async fn task_in<'s>(
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
            let proxy = self.options.proxy.as_ref();
            let browser = match &self.options.profile {
                Some(dir) => {
                    self.hold_profile(dir)?;
                    self.host.place_profile(dir, proxy, deadline).await?
                }
                None => self.host.place(deadline).await?,
            };
            let setup = TaskSetup {
                proxy: proxy.cloned(),
                default_context: self.options.profile.is_some(),
            };
            let id = self.options.task_id.clone();
            let mut task = Task::create_with(&browser, id, &setup, deadline).await?;
            task.set_url_policy(self.options.url_policy.clone());
            task.set_ask_dialogs(self.options.ask_dialogs);
            task.set_unresponsive_budget(self.options.unresponsive);
            task.set_download_limits(self.options.downloads);
            task.set_log_max_entries(self.options.log_max_entries);
            task.set_default_viewport(self.options.default_viewport);
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
}
