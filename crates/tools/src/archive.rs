//! The task's archive (docs/faces.md#archive): every observation a task makes — snapshots of every
//! mode, find results, `act` diffs and `scroll_next_screen` new content, form states —
//! kept in an embedded SQLite database (WAL, FTS5), so `recall` can give back what the
//! model's context has lost.
//!
//! One thread owns the connection; the engine hands it observations over a channel after
//! each command, so writing never delays a reply, and a write that fails is counted
//! (`diagnostics`), never the command's failure. `recall`'s reads go through the same
//! queue, so they see every observation made before them. The archive is not tied to the
//! browser (it survives a restart); it is removed with the task unless kept.
//!
//! Not here: what an observation is made of (the engine picks it from the envelope,
//! [`Observation::of`]), and redaction beyond that of the envelope's data, which already
//! masks password values (docs/security.md#redaction).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

use crate::envelope::{Envelope, Status};
use crate::folders;
use crate::mutex::lock;
use crate::policy::Archived;

/// The archive's file, in its folder.
pub const ARCHIVE_FILE: &str = "archive.sqlite3";

/// Where and whether a task keeps its archive.
#[derive(Debug, Clone)]
pub struct ArchiveOptions {
    /// Keep an archive at all (the benchmarks measure without one).
    pub enabled: bool,
    /// A folder of the archive's own (the daemon's `<state>/tasks/<id>`), removed with
    /// it unless kept; absent, a new temporary folder.
    pub dir: Option<PathBuf>,
    /// Without `dir`: the folder the task's archive folder goes in (`<root>/<task>`;
    /// config `archiveDir`); absent too, a new temporary folder of a random name. Either
    /// way the archive's folder must be a real folder of this user's, closed to others
    /// (`folders::make_private`).
    pub root: Option<PathBuf>,
    /// Leave the archive (and its folder) in place when the task ends.
    pub keep: bool,
}

impl Default for ArchiveOptions {
    fn default() -> Self {
        Self {
            enabled: true,
            dir: None,
            root: None,
            keep: false,
        }
    }
}

/// One observation, as stored.
#[derive(Debug, Clone)]
pub(crate) struct Observation {
    /// The snapshot id where there is one, else the command id.
    pub id: String,
    pub command_id: String,
    pub tab: String,
    pub url: String,
    pub title: String,
    /// Milliseconds since the Unix epoch.
    pub time: u64,
    /// `elements`, `text`, `markdown`, `html`, `find`, `act`, `scroll_next_screen`,
    /// `form_state`.
    pub mode: String,
    pub text: String,
}

/// A stored observation without its text (listing and search).
#[derive(Debug, Clone)]
pub(crate) struct Bundle {
    pub id: String,
    pub command_id: String,
    pub tab: String,
    pub url: String,
    pub title: String,
    pub time: u64,
    pub mode: String,
    pub chars: usize,
    /// Search only: the matching passage, hits in `[` `]`.
    pub excerpt: Option<String>,
}

/// Why the archive could not answer.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ArchiveError {
    #[error("the archive is closed")]
    Closed,
    #[error("the archive at {path} could not be opened: {message}")]
    Open { path: PathBuf, message: String },
    /// The writer could not open the database; the reason it gave.
    #[error("{0}")]
    Unavailable(String),
    #[error("the archive could not be read: {0}")]
    Sqlite(#[from] rusqlite::Error),
}

/// What the archive's writer has done, for `diagnostics`.
#[derive(Debug, Clone)]
pub(crate) struct ArchiveHealth {
    pub path: Option<PathBuf>,
    pub queued: u64,
    pub write_failures: u64,
    pub last_failure: Option<String>,
}

type Query = Box<dyn FnOnce(Result<&Connection, &ArchiveError>) + Send>;

enum Job {
    Write(Box<Observation>),
    Query(Query),
}

/// A task's archive: the writer thread's queue and what the engine counts itself.
pub(crate) struct Archive {
    sender: Mutex<Option<mpsc::Sender<Job>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    /// The archive's own folder; none when it could not be named or made.
    dir: Option<PathBuf>,
    keep: bool,
    queued: AtomicU64,
    failures: Arc<Failures>,
    /// Observations queued per tab, for the snapshot's reminder line.
    per_tab: Mutex<HashMap<String, u64>>,
    /// Per tab, the URL its last reminder line was given at.
    reminded: Mutex<HashMap<String, String>>,
}

#[derive(Default)]
struct Failures {
    count: AtomicU64,
    last: Mutex<Option<String>>,
}

impl Failures {
    fn record(&self, message: String) {
        tracing::warn!(%message, "archive write failed");
        self.count.fetch_add(1, Ordering::Relaxed);
        *lock(&self.last) = Some(message);
    }
}

impl Archive {
    /// Opens (or creates) the archive of `task` as `options` say; `None` when archiving
    /// is off. The database is opened on the writer thread, so a folder that cannot be
    /// written shows as failed writes, not as a failed task.
    pub(crate) fn open(task: &str, options: &ArchiveOptions) -> Option<Archive> {
        if !options.enabled {
            return None;
        }
        let dir = match (&options.dir, &options.root) {
            (Some(dir), _) => Ok(dir.clone()),
            (None, Some(root)) => folders::named(root, &folder_name(task)),
            // A name nobody can work out first, made exclusively: never a folder someone
            // else planted in the shared temporary folder.
            (None, None) => folders::make_temp(&format!("candor-archive-{}-", folder_name(task))),
        };
        let (sender, receiver) = mpsc::channel::<Job>();
        let failures = Arc::new(Failures::default());
        let path = dir
            .as_ref()
            .map(|dir| dir.join(ARCHIVE_FILE))
            .map_err(|e| e.to_string());
        let writer_failures = failures.clone();
        let thread = std::thread::Builder::new()
            .name(format!("archive-{task}"))
            .spawn(move || writer(path, receiver, &writer_failures));
        let thread = match thread {
            Ok(thread) => Some(thread),
            Err(e) => {
                failures.record(format!("the archive's writer did not start: {e}"));
                None
            }
        };
        Some(Archive {
            sender: Mutex::new(thread.as_ref().map(|_| sender)),
            thread: Mutex::new(thread),
            dir: dir.ok(),
            keep: options.keep,
            queued: AtomicU64::new(0),
            failures,
            per_tab: Mutex::new(HashMap::new()),
            reminded: Mutex::new(HashMap::new()),
        })
    }

    /// The database's file; none when no folder could be named for it.
    pub(crate) fn path(&self) -> Option<PathBuf> {
        self.dir.as_ref().map(|dir| dir.join(ARCHIVE_FILE))
    }

    /// Queues `observation` for the writer; returns at once.
    pub(crate) fn write(&self, observation: Observation) {
        *lock(&self.per_tab)
            .entry(observation.tab.clone())
            .or_default() += 1;
        self.queued.fetch_add(1, Ordering::Relaxed);
        let sent = lock(&self.sender)
            .as_ref()
            .map(|sender| sender.send(Job::Write(Box::new(observation))));
        if !matches!(sent, Some(Ok(()))) {
            self.failures
                .record("the archive's writer is not running".into());
        }
    }

    /// How many observations of `tab` were archived before now.
    pub(crate) fn count_of_tab(&self, tab: &str) -> u64 {
        lock(&self.per_tab).get(tab).copied().unwrap_or(0)
    }

    /// The count for the snapshot's reminder that the archive holds earlier observations
    /// of `tab`, when it tells something: the first time there are some, and again only
    /// once the tab shows another URL than it was last given at (what the tab showed
    /// before is then out of sight). [`Archive::reminded`] records it as given.
    pub(crate) fn reminder(&self, tab: &str, url: &str) -> Option<u64> {
        let earlier = self.count_of_tab(tab);
        let given = lock(&self.reminded)
            .get(tab)
            .is_some_and(|given| given == url);
        (earlier > 0 && !given).then_some(earlier)
    }

    /// The reminder of `tab` was given at `url`.
    pub(crate) fn reminded(&self, tab: &str, url: &str) {
        lock(&self.reminded).insert(tab.to_string(), url.to_string());
    }

    pub(crate) fn health(&self) -> ArchiveHealth {
        ArchiveHealth {
            path: self.path(),
            queued: self.queued.load(Ordering::Relaxed),
            write_failures: self.failures.count.load(Ordering::Relaxed),
            last_failure: lock(&self.failures.last).clone(),
        }
    }

    /// Runs `read` on the writer's connection after every write queued before it.
    pub(crate) async fn read<T: Send + 'static>(
        &self,
        read: impl FnOnce(&Connection) -> Result<T, ArchiveError> + Send + 'static,
    ) -> Result<T, ArchiveError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job = Job::Query(Box::new(move |connection| {
            let result = match connection {
                Ok(connection) => read(connection),
                Err(e) => Err(ArchiveError::Unavailable(e.to_string())),
            };
            let _ = tx.send(result);
        }));
        let sent = lock(&self.sender)
            .as_ref()
            .map(|sender| sender.send(job).is_ok());
        if sent != Some(true) {
            return Err(ArchiveError::Closed);
        }
        rx.await.unwrap_or(Err(ArchiveError::Closed))
    }

    /// Stops the writer once it has written what was queued, and removes the archive's
    /// folder unless it is kept.
    pub(crate) fn close(&self) {
        lock(&self.sender).take();
        if let Some(thread) = lock(&self.thread).take() {
            let _ = thread.join();
        }
        // Only a folder of the archive's own goes: never one it refused to write into.
        if !self.keep
            && let Some(dir) = &self.dir
            && folders::check_private(dir).is_ok()
            && let Err(e) = std::fs::remove_dir_all(dir)
        {
            tracing::warn!(dir = %dir.display(), error = %e, "the archive could not be removed");
        }
    }
}

impl Drop for Archive {
    fn drop(&mut self) {
        self.close();
    }
}

/// The bytes SQLite has allocated now, for every archive of the process together: their
/// page caches (up to 256 KB each, filled as an archive grows), schemas and
/// prepared statements. Part of what the process allocator counts in use.
pub fn sqlite_memory() -> u64 {
    // SAFETY: sqlite3_memory_used reads SQLite's own counter under its own mutex; it has
    // no preconditions and may be called from any thread, before or after any connection.
    let used = unsafe { rusqlite::ffi::sqlite3_memory_used() };
    u64::try_from(used).unwrap_or(0)
}

/// `task` as a file name: letters and digits kept, anything else `_`, at most 40.
fn folder_name(task: &str) -> String {
    task.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(40)
        .collect()
}

// The page cache is 256 KB, not SQLite's 2 MB: an archive is written far more than read,
// and a recall reads a few rows the OS keeps cached anyway, so a task's archive costs the
// daemon a quarter of a megabyte, reached in its first minutes (docs/faces.md#memory).
const SCHEMA: &str = "
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
PRAGMA cache_size = -256;
CREATE TABLE IF NOT EXISTS observations (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    command_id TEXT NOT NULL,
    tab TEXT NOT NULL,
    url TEXT NOT NULL,
    title TEXT NOT NULL,
    time INTEGER NOT NULL,
    mode TEXT NOT NULL,
    chars INTEGER NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS observations_id ON observations (id);
CREATE VIRTUAL TABLE IF NOT EXISTS observations_fts
    USING fts5 (text, content = 'observations', content_rowid = 'seq');
";

fn connect(path: Result<PathBuf, String>) -> Result<Connection, ArchiveError> {
    let path = path.map_err(ArchiveError::Unavailable)?;
    let fail = |message: String| ArchiveError::Open {
        path: path.clone(),
        message,
    };
    if let Some(dir) = path.parent() {
        folders::make_private(dir).map_err(|e| fail(e.to_string()))?;
    }
    let connection = Connection::open(&path).map_err(|e| fail(e.to_string()))?;
    connection
        .execute_batch(SCHEMA)
        .map_err(|e| fail(e.to_string()))?;
    Ok(connection)
}

/// The writer thread: owns the connection until the queue closes.
fn writer(path: Result<PathBuf, String>, jobs: mpsc::Receiver<Job>, failures: &Failures) {
    let connection = connect(path);
    if let Err(e) = &connection {
        failures.record(e.to_string());
    }
    for job in jobs {
        match job {
            Job::Write(observation) => match &connection {
                Ok(connection) => {
                    if let Err(e) = insert(connection, &observation) {
                        failures.record(format!("{} was not archived: {e}", observation.id));
                    }
                }
                Err(e) => failures.record(format!("{} was not archived: {e}", observation.id)),
            },
            Job::Query(query) => query(connection.as_ref()),
        }
    }
}

fn insert(connection: &Connection, o: &Observation) -> Result<(), rusqlite::Error> {
    let chars = o.text.chars().count();
    let tx = connection.unchecked_transaction()?;
    tx.execute(
        "INSERT INTO observations (id, command_id, tab, url, title, time, mode, chars, text)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            o.id,
            o.command_id,
            o.tab,
            o.url,
            o.title,
            o.time as i64,
            o.mode,
            chars as i64,
            o.text
        ],
    )?;
    let seq = tx.last_insert_rowid();
    tx.execute(
        "INSERT INTO observations_fts (rowid, text) VALUES (?1, ?2)",
        params![seq, o.text],
    )?;
    tx.commit()
}

const BUNDLE_COLUMNS: &str = "id, command_id, tab, url, title, time, mode, chars";

fn bundle(row: &rusqlite::Row<'_>) -> Result<Bundle, rusqlite::Error> {
    Ok(Bundle {
        id: row.get(0)?,
        command_id: row.get(1)?,
        tab: row.get(2)?,
        url: row.get(3)?,
        title: row.get(4)?,
        time: row.get::<_, i64>(5)?.max(0) as u64,
        mode: row.get(6)?,
        chars: row.get::<_, i64>(7)?.max(0) as usize,
        excerpt: None,
    })
}

/// Observations newest first, `offset` skipped, at most `limit`, and how many there are.
pub(crate) fn list(
    connection: &Connection,
    offset: usize,
    limit: usize,
) -> Result<(Vec<Bundle>, usize), ArchiveError> {
    let total: i64 = connection.query_row("SELECT count(*) FROM observations", [], |r| r.get(0))?;
    let mut statement = connection.prepare(&format!(
        "SELECT {BUNDLE_COLUMNS} FROM observations ORDER BY seq DESC LIMIT ?1 OFFSET ?2"
    ))?;
    let rows = statement
        .query_map(params![limit as i64, offset as i64], bundle)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok((rows, total.max(0) as usize))
}

/// The newest observation whose id (or command id) is `id`, with its text.
pub(crate) fn get(
    connection: &Connection,
    id: &str,
) -> Result<Option<(Bundle, String)>, ArchiveError> {
    let found = connection
        .query_row(
            &format!(
                "SELECT {BUNDLE_COLUMNS}, text FROM observations
                 WHERE id = ?1 OR command_id = ?1 ORDER BY seq DESC LIMIT 1"
            ),
            params![id],
            |row| Ok((bundle(row)?, row.get::<_, String>(8)?)),
        )
        .optional()?;
    Ok(found)
}

/// Observations holding every word of `query`, best first, each with an excerpt.
pub(crate) fn search(
    connection: &Connection,
    query: &str,
    limit: usize,
) -> Result<Vec<Bundle>, ArchiveError> {
    let mut statement = connection.prepare(
        "SELECT o.id, o.command_id, o.tab, o.url, o.title, o.time, o.mode, o.chars,
                snippet(observations_fts, 0, '[', ']', '…', 12)
         FROM observations_fts JOIN observations o ON o.seq = observations_fts.rowid
         WHERE observations_fts MATCH ?1 ORDER BY rank, o.seq DESC LIMIT ?2",
    )?;
    let rows = statement
        .query_map(params![fts_words(query), limit as i64], |row| {
            let mut found = bundle(row)?;
            found.excerpt = row.get(8)?;
            Ok(found)
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// `query` as FTS5 terms that are never syntax: each word quoted, all required.
fn fts_words(query: &str) -> String {
    query
        .split_whitespace()
        .map(|word| format!("\"{}\"", word.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(" ")
}

impl Observation {
    /// What `method`'s envelope observed, if anything, as its policy says the archive
    /// keeps it (`archived`): the text a snapshot read, an action's diff or the new
    /// content of a screen, the matches of a find, a form's state. Failures observe
    /// nothing, and `recall` does not archive itself.
    pub(crate) fn of(
        method: &str,
        archived: Archived,
        envelope: &Envelope,
        time: u64,
    ) -> Option<Observation> {
        if envelope.status == Status::Error {
            return None;
        }
        let data = &envelope.data;
        let page = envelope.page.as_ref();
        let command_id = envelope.execution.command_id.clone();
        let snapshot_id = page.and_then(|p| p.snapshot_id.clone());
        let json = |data: &Value| {
            serde_json::to_string_pretty(&crate::journal::redact(data)).unwrap_or_default()
        };
        let (mode, text, id) = match archived {
            Archived::Read => {
                let text = data["text"].as_str()?;
                let text = match data.get("structured") {
                    // Structured data is kept with its values, so recall returns them.
                    Some(items) => format!("{text}\n{}", json(items)),
                    None => text.to_string(),
                };
                (
                    data["mode"].as_str()?.to_string(),
                    text,
                    data["snapshotId"].as_str().map(str::to_string),
                )
            }
            Archived::Change => match (data["newContent"].as_str(), data["diff"].as_str()) {
                (Some(new), _) => ("scroll_next_screen".into(), new.to_string(), snapshot_id),
                (None, Some(diff)) => (method.to_string(), diff.to_string(), snapshot_id),
                (None, None) => return None,
            },
            Archived::Data => (method.to_string(), json(data), None),
            Archived::Nothing => return None,
        };
        Some(Observation {
            id: id.unwrap_or_else(|| command_id.clone()),
            command_id,
            tab: page.map(|p| p.tab_id.clone()).unwrap_or_default(),
            url: page.map(|p| p.url.clone()).unwrap_or_default(),
            title: page.map(|p| p.title.clone()).unwrap_or_default(),
            time,
            mode,
            text,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observation(n: usize, text: &str) -> Observation {
        Observation {
            id: format!("s{n}"),
            command_id: format!("c-{n}"),
            tab: "tab0".into(),
            url: "http://a/".into(),
            title: "A".into(),
            time: n as u64,
            mode: "text".into(),
            text: text.into(),
        }
    }

    #[tokio::test]
    async fn reads_see_every_write_queued_before_them_and_search_with_fts5() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let options = ArchiveOptions {
            enabled: true,
            dir: None,
            root: Some(dir.path().to_path_buf()),
            keep: false,
        };
        let archive = Archive::open("t", &options).expect("enabled");
        archive.write(observation(1, "a blue heron stood still"));
        archive.write(observation(2, "nothing \"to\" see (here) AND: *"));
        let (listed, total) = archive.read(|c| list(c, 0, 10)).await.expect("a listing");
        assert_eq!(total, 2);
        assert_eq!(listed[0].id, "s2");
        let found = archive
            .read(|c| search(c, "heron still", 5))
            .await
            .expect("a search");
        assert_eq!(found.len(), 1);
        assert!(
            found[0]
                .excerpt
                .as_deref()
                .unwrap_or("")
                .contains("[heron]")
        );
        let odd = archive.read(|c| search(c, "\"to\" (here) AND: *", 5)).await;
        assert!(odd.is_ok(), "{odd:?}");
        assert_eq!(archive.count_of_tab("tab0"), 2);
        assert_eq!(archive.health().write_failures, 0);
        let path = archive.path().expect("a folder");
        assert!(path.exists());
        assert!(path.starts_with(dir.path().join("t")), "{}", path.display());
        drop(archive);
        assert!(!path.exists(), "removed with the task");
    }

    /// A process that dies never closes its archive: what it committed is in the
    /// write-ahead log, and the next opening of the kept folder reads it.
    #[tokio::test]
    async fn a_kept_archive_never_closed_is_read_again_by_the_next_opening() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let options = ArchiveOptions {
            enabled: true,
            dir: Some(dir.path().join("kept")),
            root: None,
            keep: true,
        };
        let first = Archive::open("kept", &options).expect("enabled");
        first.write(observation(1, "written before the crash"));
        let (_, total) = first.read(|c| list(c, 0, 1)).await.expect("a listing");
        assert_eq!(total, 1);
        // No close, no checkpoint: as if the process had been killed.
        std::mem::forget(first);
        let again = Archive::open("kept", &options).expect("enabled");
        let found = again
            .read(|c| get(c, "s1"))
            .await
            .expect("a read")
            .expect("the observation");
        assert_eq!(found.1, "written before the crash");
    }

    /// A link planted where the task's folder goes (in a shared `archiveDir`) is never
    /// written through, nor removed with the task.
    #[tokio::test]
    async fn a_link_planted_for_the_tasks_folder_is_refused_and_left_alone() {
        let root = tempfile::tempdir().expect("a temp dir");
        let elsewhere = tempfile::tempdir().expect("a temp dir");
        std::os::unix::fs::symlink(elsewhere.path(), root.path().join("t")).expect("a link");
        let options = ArchiveOptions {
            enabled: true,
            dir: None,
            root: Some(root.path().to_path_buf()),
            keep: false,
        };
        let archive = Archive::open("t", &options).expect("enabled");
        archive.write(observation(1, "x"));
        assert!(archive.read(|c| list(c, 0, 1)).await.is_err());
        let health = archive.health();
        assert!(health.write_failures >= 1);
        let failure = health.last_failure.unwrap_or_default();
        assert!(failure.contains("symbolic link"), "{failure}");
        drop(archive);
        assert_eq!(
            std::fs::read_dir(elsewhere.path()).expect("there").count(),
            0
        );
        assert!(
            root.path().join("t").is_symlink(),
            "the link is left as it was"
        );
    }

    #[tokio::test]
    async fn a_folder_that_cannot_be_written_counts_failures_and_never_panics() {
        let options = ArchiveOptions {
            enabled: true,
            dir: Some(PathBuf::from("/proc/candor-no-such/archive")),
            root: None,
            keep: true,
        };
        let archive = Archive::open("t", &options).expect("enabled");
        archive.write(observation(1, "x"));
        let read = archive.read(|c| list(c, 0, 1)).await;
        assert!(read.is_err());
        assert!(archive.health().write_failures >= 1);
    }
}
