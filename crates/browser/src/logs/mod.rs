//! A tab's console and network log (docs/logs.md): what the page logged, threw and
//! fetched, kept from the tab's first navigation in bounded rings, a repeat folded into
//! the entry it repeats, and each thing that went wrong — an exception, a console error,
//! a request that failed or was answered 400 and above — noted as a [`Problem`] at the
//! moment it happened, so a command is told what went wrong *during* it.
//!
//! Every entry and every change to one takes the next number of the tab's one sequence.
//! An entry's id is the number it began with, prefixed by its kind (`c12` a console
//! message, `x13` an exception, `n14` a request); a *cursor* is the last number given, so
//! "since a cursor" is what began or changed after it. Events are applied on the
//! connection's reader (`tab/events.rs`), so the log is never behind a reply.
//!
//! Nothing here asks the page: `Runtime` and `Network` are enabled for every tab already
//! (load state needs them), so keeping the log costs no round trip.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use cdp::RawEvent;
use cdp::protocol::{Event, network, runtime};
use serde::de::DeserializeOwned;
use serde_json::Value;

mod tab;
mod text;

pub(crate) use tab::Rings;

use text::{Bounded, clip, console_text, file_name, headers, size, stack_lines};

/// Entries each ring keeps (console messages, exceptions, requests, problems), config
/// `logMaxEntries`.
pub const DEFAULT_LOG_ENTRIES: usize = 1_000;
/// The events the log is made of.
pub(crate) const LOGGED: &[&str] = &[
    <runtime::ConsoleApiCalled as Event>::METHOD,
    <runtime::ExceptionThrown as Event>::METHOD,
    <network::RequestWillBeSent as Event>::METHOD,
    <network::ResponseReceived as Event>::METHOD,
    <network::LoadingFinished as Event>::METHOD,
    <network::LoadingFailed as Event>::METHOD,
    <network::RequestServedFromCache as Event>::METHOD,
];
/// The most characters kept of one message's or exception's text.
const MAX_TEXT: usize = 8_000;
/// Frames kept of a stack.
const MAX_STACK: usize = 5;
/// Headers kept of a request or a response, and characters of each value.
const MAX_HEADERS: usize = 100;
const MAX_HEADER_VALUE: usize = 2_000;

/// How severe a console message is. An exception is an `Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Debug,
    Info,
    Warning,
    Error,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }

    /// `debug`, `info`, `warning` (or `warn`), `error`.
    pub fn parse(name: &str) -> Option<Level> {
        Some(match name {
            "debug" | "verbose" => Level::Debug,
            "info" | "log" => Level::Info,
            "warning" | "warn" => Level::Warning,
            "error" => Level::Error,
            _ => return None,
        })
    }

    /// The level of a `console` method (`Runtime.consoleAPICalled`'s `type`).
    fn of_console_call(kind: &str) -> Level {
        match kind {
            "debug"
            | "trace"
            | "dir"
            | "dirxml"
            | "profile"
            | "profileEnd"
            | "startGroup"
            | "startGroupCollapsed"
            | "endGroup"
            | "timeEnd"
            | "count" => Level::Debug,
            "warning" => Level::Warning,
            "error" | "assert" => Level::Error,
            _ => Level::Info,
        }
    }
}

/// A console message, or an uncaught exception or unhandled rejection (`exception`).
#[derive(Debug, Clone)]
pub struct ConsoleEntry {
    pub seq: u64,
    /// The number of the latest repeat (`seq` until it repeats).
    pub last: u64,
    pub level: Level,
    pub exception: bool,
    /// The text, as the console would show it; at most `MAX_TEXT` (8,000) characters.
    pub text: String,
    /// Characters of the text left out past `MAX_TEXT`.
    pub clipped: usize,
    /// The script and 1-based line it came from, when known.
    pub url: Option<String>,
    pub line: Option<u32>,
    /// The first frames of its stack, `function (url:line:column)`.
    pub stack: Vec<String>,
    /// How many times it was logged in a row.
    pub count: u32,
    /// When it was first logged, in milliseconds since the epoch.
    pub at_ms: f64,
}

impl ConsoleEntry {
    /// `c12`, or `x13` for an exception.
    pub fn id(&self) -> String {
        format!("{}{}", if self.exception { 'x' } else { 'c' }, self.seq)
    }

    /// One line: `c12 [error] app.js:12 TypeError: x is undefined ×3`, the text's first
    /// line only, at most `max_chars` characters of it.
    pub fn line(&self, max_chars: usize) -> String {
        let mut line = format!(
            "{} [{}]",
            self.id(),
            if self.exception {
                "exception"
            } else {
                self.level.name()
            }
        );
        if let Some(place) = self.place() {
            line.push(' ');
            line.push_str(&place);
        }
        let first = self.text.lines().next().unwrap_or_default();
        line.push(' ');
        line.push_str(&clip(first, max_chars));
        if self.count > 1 {
            line.push_str(&format!(" ×{}", self.count));
        }
        line
    }

    /// `app.js:12`: the script's file name and line.
    pub fn place(&self) -> Option<String> {
        let url = self.url.as_deref().filter(|url| !url.is_empty())?;
        let name = file_name(url);
        Some(match self.line {
            Some(line) => format!("{name}:{line}"),
            None => name.to_string(),
        })
    }
}

/// How a request stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestState {
    /// Sent, not answered to its end yet.
    Pending,
    /// Answered (whatever the status) and read to its end.
    Finished,
    /// Failed at the transport (`net::ERR_*`), or canceled.
    Failed,
}

/// A request the page made (`data:` URLs are no request and are not kept).
#[derive(Debug, Clone)]
pub struct NetworkEntry {
    pub seq: u64,
    /// The number of its latest change.
    pub last: u64,
    pub request_id: String,
    pub method: String,
    pub url: String,
    /// `document`, `script`, `xhr`, `fetch`, … (lowercase).
    pub resource_type: String,
    pub frame_id: Option<String>,
    /// Made by the tab's main frame (else by a frame inside it).
    pub main_frame: bool,
    /// When it was sent, in milliseconds since the epoch.
    pub started_ms: f64,
    /// The browser's monotonic clock when it was sent (seconds).
    started: f64,
    /// From sending to the response's headers, and to its end (or failure), in ms.
    pub waited_ms: Option<f64>,
    pub duration_ms: Option<f64>,
    pub status: Option<i64>,
    pub status_text: String,
    pub mime_type: String,
    pub protocol: Option<String>,
    /// `net::ERR_*`, when it failed.
    pub failure: Option<String>,
    /// Canceled (by a navigation, by the page): not counted as a problem.
    pub canceled: bool,
    pub from_cache: bool,
    /// Bytes received, headers included, once finished.
    pub bytes: Option<u64>,
    pub request_headers: Vec<(String, String)>,
    pub response_headers: Vec<(String, String)>,
    pub has_post_data: bool,
    /// Answered by a redirect: the request went on under a new entry.
    pub redirected: bool,
}

impl NetworkEntry {
    /// `n14`.
    pub fn id(&self) -> String {
        format!("n{}", self.seq)
    }

    pub fn state(&self) -> RequestState {
        if self.failure.is_some() {
            RequestState::Failed
        } else if self.duration_ms.is_some() || self.redirected {
            RequestState::Finished
        } else {
            RequestState::Pending
        }
    }

    /// Failed at the transport (not canceled), or answered 400 and above — unless it is
    /// the browser's own request for the site's icon, which no page asked for.
    pub fn is_problem(&self) -> bool {
        let failed =
            (self.failure.is_some() && !self.canceled) || self.status.is_some_and(|s| s >= 400);
        failed && !self.is_site_icon()
    }

    fn is_site_icon(&self) -> bool {
        self.resource_type == "other"
            && url::Url::parse(&self.url).is_ok_and(|url| url.path() == "/favicon.ico")
    }

    /// Answered below 400, and not failed since.
    pub fn succeeded(&self) -> bool {
        self.failure.is_none() && self.status.is_some_and(|s| s < 400)
    }

    /// One line: `n14 POST 500 /api/save 1.2 KB 84 ms xhr`. The URL is its path when it
    /// is of `origin` (the page's), else whole; at most `max_chars` characters of it.
    pub fn line(&self, origin: Option<&str>, max_chars: usize) -> String {
        let outcome = match (&self.failure, self.status) {
            (Some(failure), _) if self.canceled => format!("canceled {failure}"),
            (Some(failure), _) => format!("failed {failure}"),
            (None, Some(status)) => status.to_string(),
            (None, None) => "pending".into(),
        };
        // Only a URL of that very origin: `http://h.evil.example/x` starts with
        // `http://h` too, and must never read as the page's own `.evil.example/x`.
        let url = match origin.and_then(|origin| self.url.strip_prefix(origin)) {
            Some(path) if path.starts_with('/') => path,
            _ => self.url.as_str(),
        };
        let mut line = format!(
            "{} {} {outcome} {}",
            self.id(),
            self.method,
            clip(url, max_chars)
        );
        if let Some(bytes) = self.bytes {
            line.push(' ');
            line.push_str(&size(bytes));
        }
        // To its end, or to its answer while the body is still coming.
        if let Some(ms) = self.duration_ms.or(self.waited_ms) {
            line.push_str(&format!(" {} ms", ms.round() as u64));
        }
        if !self.resource_type.is_empty() {
            line.push(' ');
            line.push_str(&self.resource_type);
        }
        if !self.main_frame {
            line.push_str(" (frame)");
        }
        line
    }
}

/// An entry of the log, by kind and number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryId {
    Console(u64),
    Exception(u64),
    Network(u64),
}

impl EntryId {
    /// `c12`, `x13`, `n14`.
    pub fn parse(id: &str) -> Option<EntryId> {
        let kind = id.chars().next()?;
        let seq = id.get(1..)?.parse().ok()?;
        Some(match kind {
            'c' => EntryId::Console(seq),
            'x' => EntryId::Exception(seq),
            'n' => EntryId::Network(seq),
            _ => return None,
        })
    }
}

impl std::fmt::Display for EntryId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EntryId::Console(seq) => write!(f, "c{seq}"),
            EntryId::Exception(seq) => write!(f, "x{seq}"),
            EntryId::Network(seq) => write!(f, "n{seq}"),
        }
    }
}

/// Something that went wrong, when it did (`at`, a number of the sequence): an
/// exception, a console error, a request that failed or answered 400 and above. A
/// repeat of the last problem moves it (`at`) and counts it (`times`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Problem {
    pub at: u64,
    pub entry: EntryId,
    pub times: u32,
}

/// What each ring let go of to stay within its bound.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dropped {
    pub console: u64,
    pub exceptions: u64,
    pub network: u64,
    pub problems: u64,
}

/// One tab's log. Read it through [`crate::Tab::read_log`].
#[derive(Debug)]
pub struct TabLog {
    /// The last number given.
    cursor: u64,
    max_entries: usize,
    console: VecDeque<ConsoleEntry>,
    exceptions: VecDeque<ConsoleEntry>,
    network: VecDeque<NetworkEntry>,
    problems: VecDeque<Problem>,
    dropped: Dropped,
    /// Requests not ended yet: the browser's id → the entry's number.
    open: HashMap<String, u64>,
    /// Woken at each request's answer and end.
    ended: Arc<tokio::sync::Notify>,
}

impl Default for TabLog {
    fn default() -> Self {
        TabLog::new(DEFAULT_LOG_ENTRIES)
    }
}

impl TabLog {
    pub(crate) fn new(max_entries: usize) -> Self {
        TabLog {
            cursor: 0,
            max_entries: max_entries.max(1),
            console: VecDeque::new(),
            exceptions: VecDeque::new(),
            network: VecDeque::new(),
            problems: VecDeque::new(),
            dropped: Dropped::default(),
            open: HashMap::new(),
            ended: Arc::default(),
        }
    }

    /// The last number given: what a later read takes as `since`.
    pub fn cursor(&self) -> u64 {
        self.cursor
    }

    pub fn console(&self) -> &VecDeque<ConsoleEntry> {
        &self.console
    }

    pub fn exceptions(&self) -> &VecDeque<ConsoleEntry> {
        &self.exceptions
    }

    pub fn network(&self) -> &VecDeque<NetworkEntry> {
        &self.network
    }

    pub fn dropped(&self) -> Dropped {
        self.dropped
    }

    /// The problems that happened after `since`, oldest first.
    pub fn problems_since(&self, since: u64) -> impl Iterator<Item = &Problem> {
        let start = self.problems.partition_point(|p| p.at <= since);
        self.problems.range(start..)
    }

    pub fn console_entry(&self, seq: u64) -> Option<&ConsoleEntry> {
        find(&self.console, seq, |e| e.seq)
    }

    pub fn exception(&self, seq: u64) -> Option<&ConsoleEntry> {
        find(&self.exceptions, seq, |e| e.seq)
    }

    pub fn request(&self, seq: u64) -> Option<&NetworkEntry> {
        find(&self.network, seq, |e| e.seq)
    }

    fn next(&mut self) -> u64 {
        self.cursor += 1;
        self.cursor
    }

    /// Applies one event of the tab's session; `main_frame` is the tab's main frame.
    pub(crate) fn apply(&mut self, event: &RawEvent, main_frame: &str) {
        let params = &event.params;
        match event.method.as_str() {
            "Runtime.consoleAPICalled" => self.console_called(params),
            "Runtime.exceptionThrown" => self.exception_thrown(params),
            "Network.requestWillBeSent" => {
                // No request, and no copy of what may be megabytes of URL.
                if params["request"]["url"]
                    .as_str()
                    .is_some_and(|url| url.starts_with("data:"))
                {
                    return;
                }
                if let Some(e) = typed::<network::RequestWillBeSent>(params) {
                    self.request_sent(e, main_frame);
                }
            }
            "Network.responseReceived" => {
                if let Some(e) = typed::<network::ResponseReceived>(params) {
                    self.response_received(e);
                }
            }
            "Network.loadingFinished" => {
                if let Some(e) = typed::<network::LoadingFinished>(params) {
                    self.loading_finished(e);
                }
            }
            "Network.loadingFailed" => {
                if let Some(e) = typed::<network::LoadingFailed>(params) {
                    self.loading_failed(e);
                }
            }
            "Network.requestServedFromCache" => {
                if let Some(e) = typed::<network::RequestServedFromCache>(params) {
                    self.change(&e.request_id, |entry| entry.from_cache = true);
                }
            }
            _ => {}
        }
    }

    /// `Runtime.consoleAPICalled`, read where it lies: a page decides how long its
    /// arguments are, so their text is taken up to [`MAX_TEXT`] and the rest counted.
    fn console_called(&mut self, params: &Value) {
        let kind = params["type"].as_str().unwrap_or("log");
        let level = Level::of_console_call(kind);
        let mut text = Bounded::new(MAX_TEXT);
        if kind == "assert" {
            text.push_str("Assertion failed");
            if params["args"]
                .as_array()
                .is_some_and(|args| !args.is_empty())
            {
                text.push_str(": ");
            }
        }
        let args = params["args"].as_array().map_or(&[][..], Vec::as_slice);
        console_text(args, &mut text);
        let frames = frames(&params["stackTrace"]);
        let (url, line) = frames
            .first()
            .map(|f| (Some(f.url.clone()), Some(f.line_number.max(0) as u32 + 1)))
            .unwrap_or((None, None));
        let stack = if level == Level::Error {
            stack_lines(&frames)
        } else {
            Vec::new()
        };
        let at = params["timestamp"].as_f64().unwrap_or_default();
        self.log(false, level, text.into_parts(), url, line, stack, at);
    }

    /// `Runtime.exceptionThrown`, read where it lies, as a console call is.
    fn exception_thrown(&mut self, params: &Value) {
        let details = &params["exceptionDetails"];
        let exception = &details["exception"];
        let described = exception["description"]
            .as_str()
            .or(exception["value"].as_str());
        let mut lines = described.unwrap_or_default().lines();
        let first = lines.next().unwrap_or_default();
        let said = details["text"].as_str().unwrap_or_default();
        let mut text = Bounded::new(MAX_TEXT);
        text.push_str(said);
        if !said.is_empty() && !first.is_empty() {
            text.push(' ');
        }
        match (first, &exception["value"]) {
            ("", value @ (Value::Number(_) | Value::Bool(_))) => {
                text.push_str(&value.to_string());
            }
            (first, _) => text.push_str(first),
        }
        let frames = frames(&details["stackTrace"]);
        let stack = if frames.is_empty() {
            // A thrown Error's description carries its stack, "    at f (url:1:2)".
            lines
                .map(str::trim)
                .filter(|l| l.starts_with("at "))
                .take(MAX_STACK)
                .map(|l| clip(l.trim_start_matches("at "), MAX_HEADER_VALUE))
                .collect()
        } else {
            stack_lines(&frames)
        };
        let (url, line) = match frames.first() {
            Some(frame) => (
                Some(frame.url.clone()),
                Some(frame.line_number.max(0) as u32 + 1),
            ),
            None => (
                details["url"].as_str().map(str::to_string),
                details["lineNumber"].as_i64().map(|l| l.max(0) as u32 + 1),
            ),
        };
        let at = params["timestamp"].as_f64().unwrap_or_default();
        self.log(true, Level::Error, text.into_parts(), url, line, stack, at);
    }

    #[allow(clippy::too_many_arguments)]
    fn log(
        &mut self,
        exception: bool,
        level: Level,
        (text, clipped): (String, usize),
        url: Option<String>,
        line: Option<u32>,
        stack: Vec<String>,
        at_ms: f64,
    ) {
        let seq = self.next();
        let max = self.max_entries;
        let ring = if exception {
            &mut self.exceptions
        } else {
            &mut self.console
        };
        let repeat = ring.back_mut().filter(|last| {
            last.level == level && last.text == text && last.url == url && last.line == line
        });
        let entry = match repeat {
            Some(last) => {
                last.count = last.count.saturating_add(1);
                last.last = seq;
                last.seq
            }
            None => {
                ring.push_back(ConsoleEntry {
                    seq,
                    last: seq,
                    level,
                    exception,
                    text,
                    clipped,
                    url,
                    line,
                    stack,
                    count: 1,
                    at_ms,
                });
                let over = ring.len().saturating_sub(max) as u64;
                ring.drain(..over as usize);
                if exception {
                    self.dropped.exceptions += over;
                } else {
                    self.dropped.console += over;
                }
                seq
            }
        };
        if level == Level::Error {
            let entry = if exception {
                EntryId::Exception(entry)
            } else {
                EntryId::Console(entry)
            };
            self.problem(seq, entry);
        }
    }

    fn problem(&mut self, at: u64, entry: EntryId) {
        if let Some(last) = self.problems.back_mut()
            && last.entry == entry
        {
            last.at = at;
            last.times = last.times.saturating_add(1);
            return;
        }
        self.problems.push_back(Problem {
            at,
            entry,
            times: 1,
        });
        if self.problems.len() > self.max_entries {
            self.problems.pop_front();
            self.dropped.problems += 1;
        }
    }

    fn request_sent(&mut self, e: network::RequestWillBeSent, main_frame: &str) {
        if let Some(redirect) = e.redirect_response {
            // The same id goes on to the new URL: the old entry ends with the redirect.
            let at = e.timestamp;
            self.change(&e.request_id, |entry| {
                entry.status = Some(redirect.status);
                entry.status_text = redirect.status_text;
                entry.response_headers = headers(&redirect.headers);
                entry.redirected = true;
                entry.duration_ms = Some(((at - entry.started) * 1000.0).max(0.0));
            });
            self.end(&e.request_id);
        }
        if e.request.url.starts_with("data:") {
            return;
        }
        let seq = self.next();
        self.open.insert(e.request_id.clone(), seq);
        let main = e
            .frame_id
            .as_deref()
            .is_none_or(|frame| frame == main_frame);
        self.network.push_back(NetworkEntry {
            seq,
            last: seq,
            request_id: e.request_id,
            method: e.request.method,
            url: e.request.url,
            resource_type: e.r#type.unwrap_or_default().to_ascii_lowercase(),
            frame_id: e.frame_id,
            main_frame: main,
            started_ms: e.wall_time * 1000.0,
            started: e.timestamp,
            waited_ms: None,
            duration_ms: None,
            status: None,
            status_text: String::new(),
            mime_type: String::new(),
            protocol: None,
            failure: None,
            canceled: false,
            from_cache: false,
            bytes: None,
            request_headers: headers(&e.request.headers),
            response_headers: Vec::new(),
            has_post_data: e.request.has_post_data.unwrap_or(false),
            redirected: false,
        });
        while self.network.len() > self.max_entries {
            if let Some(gone) = self.network.pop_front() {
                self.dropped.network += 1;
                if self.open.get(&gone.request_id) == Some(&gone.seq) {
                    self.open.remove(&gone.request_id);
                }
            }
        }
    }

    fn response_received(&mut self, e: network::ResponseReceived) {
        let at = e.timestamp;
        let response = e.response;
        let status = response.status;
        let mut problem = false;
        let changed = self.change(&e.request_id, |entry| {
            entry.status = Some(status);
            entry.status_text = response.status_text;
            entry.mime_type = response.mime_type;
            entry.protocol = response.protocol;
            entry.from_cache |= response.from_disk_cache.unwrap_or(false);
            entry.response_headers = headers(&response.headers);
            entry.waited_ms = Some(((at - entry.started) * 1000.0).max(0.0));
            problem = entry.is_problem();
        });
        if let Some(seq) = changed {
            self.ended.notify_waiters();
            if problem {
                let at = self.cursor;
                self.problem(at, EntryId::Network(seq));
            }
        }
    }

    fn loading_finished(&mut self, e: network::LoadingFinished) {
        let at = e.timestamp;
        self.change(&e.request_id, |entry| {
            entry.bytes = Some(e.encoded_data_length.max(0.0) as u64);
            entry.duration_ms = Some(((at - entry.started) * 1000.0).max(0.0));
        });
        self.end(&e.request_id);
    }

    fn loading_failed(&mut self, e: network::LoadingFailed) {
        let at = e.timestamp;
        let canceled = e.canceled.unwrap_or(false);
        let failure = match e.blocked_reason {
            Some(reason) => format!("{} ({reason})", e.error_text),
            None => e.error_text,
        };
        let mut problem = false;
        let changed = self.change(&e.request_id, |entry| {
            entry.failure = Some(failure);
            entry.canceled = canceled;
            entry.duration_ms = Some(((at - entry.started) * 1000.0).max(0.0));
            problem = entry.is_problem();
        });
        self.end(&e.request_id);
        if let Some(seq) = changed
            && problem
        {
            let at = self.cursor;
            self.problem(at, EntryId::Network(seq));
        }
    }

    /// Changes the open request `request_id` under the next number; returns its entry's.
    fn change(&mut self, request_id: &str, edit: impl FnOnce(&mut NetworkEntry)) -> Option<u64> {
        let seq = *self.open.get(request_id)?;
        let last = self.next();
        let index = self.network.binary_search_by_key(&seq, |e| e.seq).ok()?;
        let entry = &mut self.network[index];
        entry.last = last;
        edit(entry);
        Some(seq)
    }

    fn end(&mut self, request_id: &str) {
        if self.open.remove(request_id).is_some() {
            self.ended.notify_waiters();
        }
    }

    /// Requests begun after `since` of a kind a page waits on (`xhr`, `fetch`), neither
    /// answered nor failed yet. (Answered is enough: a page that never reads a body
    /// leaves its request open for good.)
    fn unanswered_since(&self, since: u64) -> usize {
        self.open
            .values()
            .filter(|seq| **seq > since)
            .filter_map(|seq| self.request(*seq))
            .filter(|e| matches!(e.resource_type.as_str(), "xhr" | "fetch"))
            .filter(|e| e.status.is_none() && e.failure.is_none())
            .count()
    }
}

/// `E` read from an event's params where they lie: only its own fields are copied, never
/// the rest of what the page sent (a request's body, a console call's arguments).
fn typed<E: DeserializeOwned>(params: &Value) -> Option<E> {
    E::deserialize(params).ok()
}

/// The frames of a `StackTrace`, innermost first (none when it is absent or malformed).
fn frames(stack: &Value) -> Vec<runtime::CallFrame> {
    typed::<runtime::StackTrace>(stack)
        .map(|s| s.call_frames)
        .unwrap_or_default()
}

/// The entry numbered `seq` in a ring kept in order of number.
fn find<T>(ring: &VecDeque<T>, seq: u64, key: impl Fn(&T) -> u64) -> Option<&T> {
    let index = ring.binary_search_by_key(&seq, key).ok()?;
    ring.get(index)
}

#[cfg(test)]
mod tests;
