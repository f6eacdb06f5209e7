//! A task's downloads (SPEC §9.4): allowed only into the task's own folder (a temporary
//! directory removed with the task), followed from the browser's download events, and
//! reported once per change of state so each command says what happened during it.
//!
//! Chromium sends download events on the browser session without naming a context. A
//! task claims a download when the frame that started it is one of its targets (a tab's
//! main frame has the tab's target id), or, for a frame it cannot name, when the finished
//! file lies in its folder.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use cdp::protocol::{browser as cdp_browser, target};
use cdp::{Deadline, RawEvent};

use crate::{Browser, Error};

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
    folder: PathBuf,
    /// Targets (tabs, out-of-process frames) of the task's browser context.
    targets: HashSet<String>,
    /// Downloads the task owns, in the order they began.
    owned: Vec<Entry>,
    /// Downloads begun by frames the task cannot name yet: claimed if their file lands
    /// in the folder.
    unclaimed: HashMap<String, cdp_browser::DownloadWillBegin>,
}

struct Entry {
    guid: String,
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
            folder: folder.path().to_path_buf(),
            targets: HashSet::new(),
            owned: Vec::new(),
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
                    browser_context_id: Some(context_id.to_string()),
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

    /// The downloads whose state changed since the last call.
    pub(crate) fn take_changes(&self) -> Vec<Download> {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.owned
            .iter_mut()
            .filter(|entry| entry.reported != Some(entry.download.state))
            .map(|entry| {
                entry.reported = Some(entry.download.state);
                entry.download.clone()
            })
            .collect()
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
            log.owned.push(Entry {
                guid: e.guid,
                download: Download {
                    name: e.suggested_filename,
                    url: e.url,
                    path: None,
                    state: DownloadState::InProgress,
                    received_bytes: 0,
                    total_bytes: 0,
                },
                reported: None,
            });
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
            self.owned.push(Entry {
                guid: e.guid.clone(),
                download: Download {
                    name: begun.suggested_filename,
                    url: begun.url,
                    path: None,
                    state,
                    received_bytes: 0,
                    total_bytes: 0,
                },
                reported: None,
            });
        }
        let Some(entry) = self.owned.iter_mut().find(|entry| entry.guid == e.guid) else {
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
    }
}

/// What happened in a task since the last report that no command asked about.
#[derive(Debug, Clone, Default)]
pub struct TaskEvents {
    /// Downloads whose state changed.
    pub downloads: Vec<Download>,
    /// Permission requests that were denied.
    pub permissions: Vec<crate::PermissionDenial>,
}
