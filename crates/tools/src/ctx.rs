//! What a tool handler works with during one command ([`Ctx`]): the task (held while
//! the command has it), its deadline and stage, what it reports into the envelope (page,
//! events, verification, image, a partial result, page content), and what the task's
//! engine keeps, lent for the command ([`TaskState`]). A tool never sees the engine.

use std::sync::MutexGuard;
use std::time::Duration;

use browser::{Deadline, Task};
use serde_json::Value;

use crate::archive::Archive;
use crate::checkpoints::Checkpoints;
use crate::command::{Active, ActiveCommand};
use crate::envelope::{Events, Image, PageInfo, Verification};
use crate::error::ToolError;
use crate::flow_file::{Acted, Flow};
use crate::journal::CommandRecord;
use crate::mutex::lock;
use crate::options::EngineOptions;
use crate::state::{Slot, TaskState};

/// How soon a tab already found unresponsive must answer again before a command on it
/// is refused: the refusal comes at once, yet a page that recovered by itself is used.
const RECHECK: Duration = Duration::from_millis(300);

/// What a tool handler works with during one command.
pub struct Ctx<'a> {
    /// The task, while this command holds it.
    pub(crate) slot: Option<tokio::sync::MutexGuard<'a, Slot>>,
    /// What the task's engine keeps, lent for the command.
    state: &'a TaskState,
    pub(crate) deadline: Deadline,
    pub(crate) stage: &'static str,
    pub(crate) dispatch_started: bool,
    /// This command holds the task, and its stage shows in `diagnostics` as it changes.
    pub(crate) live: bool,
    pub(crate) page: Option<PageInfo>,
    pub(crate) events: Events,
    /// What the command verified (an `expect`), filled by the tool.
    pub(crate) verification: Verification,
    pub(crate) image: Option<Image>,
    /// Part of what was asked was done: the envelope is `partial` with this code.
    pub(crate) partial: Option<ToolError>,
    /// Tries that failed with a transient error and were tried again, for the journal.
    pub(crate) retries: Vec<Value>,
    /// JSON pointers (into `data`) of the page content the tool's output holds.
    pub(crate) untrusted: Vec<String>,
    /// The element to act on by identity ([`crate::CallOptions::target`]); the tool takes it.
    pub(crate) target: Option<browser::ElementIdentity>,
    /// What `act` acted on, for the flow log.
    pub(crate) acted: Option<Acted>,
    /// Where each of the task's tabs' logs stood when the command began: its target id
    /// and cursor (a tab opened since, or reopened in a new browser, counts from 0).
    pub(crate) log_marks: Vec<(String, u64)>,
}

impl<'a> Ctx<'a> {
    /// A command's context at its start: in `stage`, nothing done yet, within `deadline`.
    pub(crate) fn new(state: &'a TaskState, deadline: Deadline, stage: &'static str) -> Self {
        Ctx {
            slot: None,
            state,
            deadline,
            stage,
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
            log_marks: Vec::new(),
        }
    }

    /// What the task's engine keeps (the hand-off works on it beside the task's lock).
    pub(crate) fn state(&self) -> &'a TaskState {
        self.state
    }

    /// The task's archive, when it keeps one.
    pub(crate) fn archive(&self) -> Option<&'a Archive> {
        self.state.archive.as_ref()
    }

    /// The task's checkpoints.
    pub(crate) fn checkpoints(&self) -> MutexGuard<'a, Checkpoints> {
        lock(&self.state.checkpoints)
    }
}

impl Ctx<'_> {
    /// Part of what was asked was done and part was not: the command's envelope becomes
    /// `partial` with `error`'s code, message and hint, beside the data the tool returns.
    pub(crate) fn partial(&mut self, error: ToolError) {
        self.partial = Some(error);
    }

    /// The checks of [`crate::PageGuard::Reads`] (`reads`: an error page is refused) and
    /// [`crate::PageGuard::Probe`]: the tab the command names (`tabId`) or the
    /// current one, when the task has it and it is neither crashed nor closed (the tool
    /// reports those), must answer within the probe budget — or at once, if it was
    /// already found unresponsive. Returns the tab to watch while the handler runs, and
    /// whether it was probed: a tool that changes nothing (`read_only`) on a tab not
    /// found unresponsive is not, its handler starting at once with the probe sent just
    /// before it (the watch's first, `Tab::watch`), one round trip into the page fewer.
    pub(crate) async fn guard_page(
        &mut self,
        params: &Value,
        reads: bool,
        read_only: bool,
    ) -> Result<Option<(browser::Tab, bool)>, ToolError> {
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
        if read_only && !state.unresponsive {
            return Ok(Some((tab, false)));
        }
        let budget = self.state.options.unresponsive;
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
            _ => Ok(Some((tab, true))),
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
            && let Some(active) = lock(&self.state.active).as_mut()
        {
            change(active);
        }
    }

    pub(crate) fn options(&self) -> &EngineOptions {
        &self.state.options
    }

    /// The task's flow so far.
    pub(crate) fn export_flow(&self) -> Flow {
        self.state.export_flow()
    }

    pub(crate) fn journal(&self) -> Vec<CommandRecord> {
        self.state.journal()
    }

    /// The command holding the task, if another one does (for `diagnostics`).
    pub(crate) fn active(&self) -> Option<ActiveCommand> {
        self.state.active()
    }

    /// The task, starting the browser and creating the task on first use. A browser
    /// that died is reported once, then replaced on the next command.
    pub(crate) async fn task(&mut self) -> Result<&mut Task, ToolError> {
        let deadline = self.deadline;
        let state = self.state;
        let mut stage = self.stage;
        let slot = self
            .slot
            .as_deref_mut()
            .ok_or_else(|| ToolError::invalid_params("this tool does not use the task"))?;
        let result = state.task_in(slot, deadline, &mut stage).await;
        if stage != self.stage {
            self.stage = stage;
            if self.live
                && let Some(active) = lock(&state.active).as_mut()
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
    pub(crate) fn report_task_events(&mut self) {
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

    /// Notes where the logs of the task's tabs stand, as the command begins.
    pub(crate) fn mark_logs(&mut self) {
        self.log_marks = self
            .slot
            .as_deref()
            .and_then(|slot| slot.task.as_ref())
            .map(|task| {
                task.tabs()
                    .map(|(_, tab)| (tab.target_id().to_string(), tab.log_cursor()))
                    .collect()
            })
            .unwrap_or_default();
    }

    /// Where `tab`'s log stood when the command began.
    pub(crate) fn log_mark(&self, tab: &browser::Tab) -> u64 {
        self.log_marks
            .iter()
            .find(|(target, _)| target == tab.target_id())
            .map_or(0, |(_, cursor)| *cursor)
    }

    /// Puts into the envelope (`events.logs`) what went wrong in the task's pages during
    /// the command — exceptions, console errors, requests that failed or answered 400 and
    /// above — as its tool's policy says; nothing when nothing did (docs/logs.md#events).
    /// `may_wait`: the command ran its course (not cancelled, not past its deadline), so
    /// an action may wait for its requests' answers.
    pub(crate) async fn report_problems(
        &mut self,
        problems: crate::policy::Problems,
        may_wait: bool,
    ) {
        use crate::policy::Problems;
        if problems == Problems::Unsaid {
            return;
        }
        let Some(task) = self.slot.as_deref().and_then(|slot| slot.task.as_ref()) else {
            return;
        };
        let tabs: Vec<(browser::TabId, browser::Tab)> =
            task.tabs().map(|(id, tab)| (id, tab.clone())).collect();
        if problems == Problems::SaidAfterRequests && self.dispatch_started && may_wait {
            // One budget for all the task's tabs, not one each.
            let budget = self.state.options.defaults.settle;
            let started = std::time::Instant::now();
            for (_, tab) in &tabs {
                let since = self.log_mark(tab);
                let left = budget.saturating_sub(started.elapsed());
                tab.requests_answered(since, left, self.deadline).await;
            }
        }
        let mut said = Vec::new();
        for (id, tab) in &tabs {
            let since = self.log_mark(tab);
            let origin = page_origin(&tab.state().url);
            let report =
                tab.read_log(|log| crate::logs::problems_report(log, since, origin.as_deref()));
            if let Some(mut report) = report {
                report["tabId"] = id.to_string().into();
                said.push(report);
            }
        }
        if !said.is_empty() {
            self.events.logs = Some(Value::Array(said));
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

/// `http://127.0.0.1:8080` of a page's URL, when it has one.
pub(crate) fn page_origin(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    let origin = url.origin();
    origin.is_tuple().then(|| origin.ascii_serialization())
}

pub(crate) fn download_json(download: &browser::Download) -> Value {
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
