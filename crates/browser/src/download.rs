//! A task's downloads (docs/acting.md#downloads): allowed only into the task's own folder (a temporary
//! directory removed with the task), followed from the browser's download events, and
//! reported once per change of state so each command says what happened during it.
//!
//! Chromium sends download events on the browser session without naming a context. A
//! task claims a download when the frame that started it is one of its targets (a tab's
//! main frame has the tab's target id), or, for a frame it cannot name, when the finished
//! file lies in its folder.
//!
//! A page decides how much it downloads, so a task has limits ([`DownloadLimits`]): how
//! many downloads it may begin, and how many bytes they may take together. A download
//! past either is canceled as soon as that is known (`Browser.cancelDownload`; a file
//! that finished before the cancel landed is removed) and reported with the limit it
//! passed ([`Download::limit`]).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use cdp::protocol::{browser as cdp_browser, target};
use cdp::{Deadline, RawEvent};

use crate::{Browser, Error};

/// How much a task may download (config `downloadMaxCount`, `downloadMaxMb`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DownloadLimits {
    /// Downloads the task may begin; one more is canceled as it begins.
    pub max_count: usize,
    /// Bytes the task's downloads may take together (those finished and those under way);
    /// the download that would pass it is canceled.
    pub max_bytes: u64,
}

impl Default for DownloadLimits {
    fn default() -> Self {
        Self {
            max_count: 100,
            max_bytes: 500_000_000,
        }
    }
}

/// The limit a download was canceled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DownloadLimit {
    /// The task had begun `max` downloads already.
    Count { max: usize },
    /// The task's downloads would have taken more than `max` bytes.
    Bytes { max: u64 },
}

/// Downloads canceled for a limit kept for the next report; past this, a page that
/// downloads in a loop is canceled without a line each.
const MAX_REFUSED_UNREPORTED: usize = 20;

/// One download of a task, as last seen.
#[derive(Debug, Clone, PartialEq)]
pub struct Download {
    /// The file's name in the download folder (the suggested name until it is written).
    pub name: String,
    pub url: String,
    /// Where the finished file is; `None` until completed.
    pub path: Option<PathBuf>,
    pub state: DownloadState,
    pub received_bytes: u64,
    /// 0 when the server did not say.
    pub total_bytes: u64,
    /// Canceled by candor: the limit of the task it passed.
    pub limit: Option<DownloadLimit>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DownloadState {
    InProgress,
    Completed,
    Canceled,
}

impl DownloadState {
    pub fn name(self) -> &'static str {
        match self {
            DownloadState::InProgress => "inProgress",
            DownloadState::Completed => "completed",
            DownloadState::Canceled => "canceled",
        }
    }

    fn parse(state: &str) -> DownloadState {
        match state {
            "completed" => DownloadState::Completed,
            "canceled" => DownloadState::Canceled,
            _ => DownloadState::InProgress,
        }
    }
}

/// The task's download folder and what has been downloaded into it.
pub(crate) struct Downloads {
    log: Arc<Mutex<Log>>,
    // Dropped with the task: the folder and its files are removed.
    folder: tempfile::TempDir,
}

struct Log {
    context_id: String,
    /// What the browser's download calls name as the context (`Task::context_scope`).
    scope: Option<String>,
    folder: PathBuf,
    limits: DownloadLimits,
    /// The browser session, to cancel a download past a limit (sent from the reader).
    browser: cdp::Session,
    /// Downloads let begin (past the count, none is).
    allowed: usize,
    /// Targets (tabs, out-of-process frames) of the task's browser context.
    targets: HashSet<String>,
    /// Downloads the task owns, in the order they began.
    owned: Vec<Entry>,
    /// How many downloads have begun (the next one's `Entry::begun`).
    begun: u64,
    /// Downloads begun by frames the task cannot name yet: claimed if their file lands
    /// in the folder.
    unclaimed: HashMap<String, cdp_browser::DownloadWillBegin>,
}

struct Entry {
    guid: String,
    /// Where it stands among the task's downloads (0 for the first begun).
    begun: u64,
    download: Download,
    /// The state the last report showed, if any.
    reported: Option<DownloadState>,
}

impl Downloads {
    /// Creates the folder, starts following the browser's download events for the
    /// context, and points the context's downloads at the folder.
    pub(crate) async fn start(
        browser: &Browser,
        context_id: &str,
        scope: Option<String>,
        deadline: Deadline,
    ) -> Result<Downloads, Error> {
        let folder = tempfile::Builder::new()
            .prefix("candor-downloads-")
            .tempdir()
            .map_err(|e| Error::InvalidParams {
                what: "the task's download folder".into(),
                reason: e.to_string(),
            })?;
        let log = Arc::new(Mutex::new(Log {
            context_id: context_id.to_string(),
            scope: scope.clone(),
            folder: folder.path().to_path_buf(),
            limits: DownloadLimits::default(),
            browser: browser.connection().browser_session(),
            allowed: 0,
            targets: HashSet::new(),
            owned: Vec::new(),
            begun: 0,
            unclaimed: HashMap::new(),
        }));
        let followed = Arc::downgrade(&log);
        browser
            .connection()
            .on_events(None, Arc::new(move |event| follow(&followed, event)));
        browser
            .connection()
            .browser_session()
            .call(
                &cdp_browser::SetDownloadBehavior {
                    behavior: "allow".into(),
                    browser_context_id: scope,
                    download_path: Some(folder.path().display().to_string()),
                    events_enabled: Some(true),
                },
                deadline,
            )
            .await?;
        Ok(Downloads { log, folder })
    }

    pub(crate) fn folder(&self) -> &Path {
        self.folder.path()
    }

    pub(crate) fn set_limits(&self, limits: DownloadLimits) {
        self.lock().limits = limits;
    }

    /// How many downloads have begun so far: a mark for [`Self::since`].
    pub(crate) fn mark(&self) -> u64 {
        self.lock().begun
    }

    /// The downloads begun since `mark`, as they stand now (without marking them
    /// reported: the agent is told of them as ever). Those canceled for a limit and
    /// reported already are forgotten, so not listed.
    pub(crate) fn since(&self, mark: u64) -> Vec<Download> {
        self.lock()
            .owned
            .iter()
            .filter(|entry| entry.begun >= mark)
            .map(|entry| entry.download.clone())
            .collect()
    }

    /// The downloads whose state changed since the last call. Those canceled for a limit
    /// are reported once, then forgotten (a page downloading in a loop adds up to nothing).
    pub(crate) fn take_changes(&self) -> Vec<Download> {
        let mut log = self.lock();
        let changes = log
            .owned
            .iter_mut()
            .filter(|entry| entry.reported != Some(entry.download.state))
            .map(|entry| {
                entry.reported = Some(entry.download.state);
                entry.download.clone()
            })
            .collect();
        log.owned.retain(|entry| {
            entry.download.limit.is_none() || entry.reported != Some(entry.download.state)
        });
        changes
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Log> {
        self.log.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Applies one browser-level event; runs on the connection's reader. Returns false once
/// the task is gone.
fn follow(log: &Weak<Mutex<Log>>, event: &RawEvent) -> bool {
    let Some(log) = log.upgrade() else {
        return false;
    };
    let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(e) = event.parse::<target::TargetCreated>() {
        log.note_target(e.target_info);
    } else if let Some(e) = event.parse::<target::TargetInfoChanged>() {
        log.note_target(e.target_info);
    } else if let Some(e) = event.parse::<cdp_browser::DownloadWillBegin>() {
        if log.targets.contains(&e.frame_id) {
            log.claim(
                e.guid,
                e.suggested_filename,
                e.url,
                DownloadState::InProgress,
            );
        } else {
            log.unclaimed.insert(e.guid.clone(), e);
        }
    } else if let Some(e) = event.parse::<cdp_browser::DownloadProgress>() {
        log.progress(e);
    }
    true
}

impl Log {
    fn note_target(&mut self, info: target::TargetInfo) {
        if info.browser_context_id.as_deref() == Some(self.context_id.as_str()) {
            self.targets.insert(info.target_id);
        }
    }

    fn progress(&mut self, e: cdp_browser::DownloadProgress) {
        let state = DownloadState::parse(&e.state);
        let path = e
            .file_path
            .map(PathBuf::from)
            .filter(|path| path.starts_with(&self.folder));
        if !self.owned.iter().any(|entry| entry.guid == e.guid) {
            let Some(begun) = self.unclaimed.remove(&e.guid) else {
                return;
            };
            if path.is_none() {
                // Not ours, or not finished: keep waiting for the file.
                if state == DownloadState::InProgress {
                    self.unclaimed.insert(e.guid.clone(), begun);
                }
                return;
            }
            self.claim(e.guid.clone(), begun.suggested_filename, begun.url, state);
        }
        // Bytes of the task's other downloads, finished or under way.
        let others: u64 = self
            .owned
            .iter()
            .filter(|entry| entry.guid != e.guid && entry.download.limit.is_none())
            .map(|entry| entry.download.received_bytes)
            .sum();
        let max_bytes = self.limits.max_bytes;
        let Some(entry) = self.owned.iter_mut().find(|entry| entry.guid == e.guid) else {
            // Refused past the count and not listed: a file that made it goes.
            if let Some(path) = path {
                let _ = std::fs::remove_file(path);
            }
            return;
        };
        let download = &mut entry.download;
        download.state = state;
        download.received_bytes = e.received_bytes.max(0.0) as u64;
        download.total_bytes = e.total_bytes.max(0.0) as u64;
        if let Some(path) = path {
            // Chromium may have renamed it (`report (1).csv`) to keep an older file.
            if let Some(name) = path.file_name() {
                download.name = name.to_string_lossy().into_owned();
            }
            download.path = Some(path);
        }
        // What it will take, when the server said; what it took so far otherwise.
        let size = download.received_bytes.max(download.total_bytes);
        if download.limit.is_none()
            && state != DownloadState::Canceled
            && others.saturating_add(size) > max_bytes
        {
            download.limit = Some(DownloadLimit::Bytes { max: max_bytes });
            if let Some(path) = download.path.take() {
                // Finished before a cancel could land: the file goes all the same.
                let _ = std::fs::remove_file(path);
            }
            download.state = DownloadState::Canceled;
            cancel(&self.browser, self.scope.as_deref(), &e.guid);
        } else if download.limit.is_some() {
            // A cancel is on its way: what comes before it lands changes nothing.
            download.state = DownloadState::Canceled;
            if let Some(path) = download.path.take() {
                let _ = std::fs::remove_file(path);
            }
        }
    }

    /// A download of the task's begins: let go on if the task may begin another, else
    /// canceled at once (and listed, up to a bound, for the next report).
    fn claim(&mut self, guid: String, name: String, url: String, state: DownloadState) {
        let mut download = Download {
            name,
            url,
            path: None,
            state,
            received_bytes: 0,
            total_bytes: 0,
            limit: None,
        };
        if self.allowed < self.limits.max_count {
            self.allowed += 1;
        } else {
            cancel(&self.browser, self.scope.as_deref(), &guid);
            let unreported = self
                .owned
                .iter()
                .filter(|entry| entry.download.limit.is_some() && entry.reported.is_none())
                .count();
            if unreported >= MAX_REFUSED_UNREPORTED {
                return;
            }
            download.limit = Some(DownloadLimit::Count {
                max: self.limits.max_count,
            });
            download.state = DownloadState::Canceled;
        }
        let begun = self.begun;
        self.begun += 1;
        self.owned.push(Entry {
            guid,
            begun,
            download,
            reported: None,
        });
    }
}

/// Cancels download `guid` (sent, not awaited: this runs on the reader).
fn cancel(browser: &cdp::Session, scope: Option<&str>, guid: &str) {
    let _ = browser.send(&cdp_browser::CancelDownload {
        guid: guid.to_string(),
        browser_context_id: scope.map(str::to_string),
    });
}

/// What happened in a task since the last report that no command asked about.
#[derive(Debug, Clone, Default)]
pub struct TaskEvents {
    /// Downloads whose state changed.
    pub downloads: Vec<Download>,
    /// Permission requests that were denied.
    pub permissions: Vec<crate::PermissionDenial>,
}
