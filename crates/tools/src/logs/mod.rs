//! Reading a tab's console and network log (docs/logs.md): the entries a `logs` call
//! lists, one line each under its budget; one entry in full, its secrets redacted; what
//! went wrong during a command, for its `events.logs`; and the task's requests as HAR
//! ([`har`]). The log itself is kept by `browser` (`browser::TabLog`).

pub(crate) mod har;

use browser::{ConsoleEntry, EntryId, Level, NetworkEntry, Problem, TabLog, UrlPattern};
use serde_json::{Value, json};

/// The most characters of a message or a URL one line shows.
const LINE_CHARS: usize = 300;
/// The lines an action's `events.logs` names per tab; the rest are counted.
const EVENT_LINES: usize = 5;

/// What a `logs` call lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Console messages and exceptions.
    Console,
    /// Requests.
    Network,
    /// What went wrong: exceptions, console errors, requests that failed or answered
    /// 400 and above, in the order they went wrong.
    Errors,
}

/// Which entries a `logs` call lists.
#[derive(Debug, Clone, Default)]
pub(crate) struct Filter {
    /// The least severe console level listed.
    pub level: Option<Level>,
    /// The entry's URL (a request's, a message's script) holds this, or matches it as a
    /// glob when it has a `*`.
    pub url: Option<UrlPattern>,
    pub status: Option<StatusFilter>,
    /// A request's method, in any case.
    pub method: Option<String>,
    /// Only what began or changed after this cursor.
    pub since: u64,
}

/// Status codes: `404`, `400-499`, `4xx`, `failed` (no answer), comma-separated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StatusFilter(Vec<StatusRange>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StatusRange {
    Codes(i64, i64),
    Failed,
}

impl StatusFilter {
    pub(crate) fn parse(text: &str) -> Result<StatusFilter, String> {
        let mut ranges = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let bad = || format!("status {part:?}: write 404, 400-499, 4xx or failed");
            let range = if part.eq_ignore_ascii_case("failed") {
                StatusRange::Failed
            } else if let Some(hundreds) = part.strip_suffix("xx").or(part.strip_suffix("XX")) {
                let first: i64 = hundreds.parse().map_err(|_| bad())?;
                if !(1..=5).contains(&first) || hundreds.len() != 1 {
                    return Err(bad());
                }
                StatusRange::Codes(first * 100, first * 100 + 99)
            } else if let Some((low, high)) = part.split_once('-') {
                let low: i64 = low.trim().parse().map_err(|_| bad())?;
                let high: i64 = high.trim().parse().map_err(|_| bad())?;
                if low > high {
                    return Err(bad());
                }
                StatusRange::Codes(low, high)
            } else {
                let code: i64 = part.parse().map_err(|_| bad())?;
                StatusRange::Codes(code, code)
            };
            ranges.push(range);
        }
        if ranges.is_empty() {
            return Err("status is empty: write 404, 400-499, 4xx or failed".into());
        }
        Ok(StatusFilter(ranges))
    }

    fn admits(&self, entry: &NetworkEntry) -> bool {
        self.0.iter().any(|range| match range {
            StatusRange::Failed => entry.failure.is_some(),
            StatusRange::Codes(low, high) => entry
                .status
                .is_some_and(|status| (*low..=*high).contains(&status)),
        })
    }
}

/// What a `logs` call lists, oldest first.
#[derive(Debug, Clone, Default)]
pub(crate) struct Listing {
    pub lines: Vec<String>,
    /// Entries the filter admits, listed or not.
    pub matched: usize,
    /// The tab's last log number: `since` for a later call.
    pub cursor: u64,
    /// Entries of this kind the tab's rings let go of to stay bounded.
    pub dropped: u64,
}

impl Listing {
    /// Admitted entries not listed (older ones, past the limit or the budget).
    pub(crate) fn omitted(&self) -> usize {
        self.matched - self.lines.len()
    }
}

/// The entries of `kind` that `filter` admits, as lines, the newest kept when they do
/// not all fit in `limit` lines and `max_tokens`. `origin` is the page's: its URLs are
/// shown as paths.
pub(crate) fn list(
    log: &TabLog,
    kind: Kind,
    filter: &Filter,
    origin: Option<&str>,
    limit: usize,
    max_tokens: usize,
) -> Listing {
    let url_admits = |url: Option<&str>| match &filter.url {
        None => true,
        Some(pattern) => url.is_some_and(|url| pattern.matches(url)),
    };
    // (order, line), oldest first.
    let mut admitted: Vec<(u64, String)> = Vec::new();
    let dropped = match kind {
        Kind::Console => {
            let least = filter.level.unwrap_or(Level::Debug);
            let mut entries: Vec<&ConsoleEntry> = log
                .console()
                .iter()
                .chain(log.exceptions())
                .filter(|e| e.last > filter.since && e.level >= least)
                .filter(|e| url_admits(e.url.as_deref()))
                .collect();
            entries.sort_by_key(|e| e.seq);
            admitted.extend(entries.iter().map(|e| (e.seq, e.line(LINE_CHARS))));
            let gone = log.dropped();
            gone.console + gone.exceptions
        }
        Kind::Network => {
            admitted.extend(
                log.network()
                    .iter()
                    .filter(|e| e.last > filter.since)
                    .filter(|e| url_admits(Some(&e.url)))
                    .filter(|e| filter.status.as_ref().is_none_or(|s| s.admits(e)))
                    .filter(|e| {
                        filter
                            .method
                            .as_ref()
                            .is_none_or(|m| m.eq_ignore_ascii_case(&e.method))
                    })
                    .map(|e| (e.seq, e.line(origin, LINE_CHARS))),
            );
            log.dropped().network
        }
        Kind::Errors => {
            let problems: Vec<&Problem> = log.problems_since(filter.since).collect();
            // A problem met again later is listed once, where it was last met.
            let mut seen = std::collections::HashSet::new();
            for problem in problems.iter().rev() {
                if !seen.insert(problem.entry) {
                    continue;
                }
                let Some((url, line)) = problem_line(log, problem, origin) else {
                    continue;
                };
                if url_admits(url.as_deref()) {
                    admitted.push((problem.at, line));
                }
            }
            admitted.reverse();
            log.dropped().problems
        }
    };
    let matched = admitted.len();
    let mut tokens = 0;
    let mut lines = Vec::new();
    for (_, line) in admitted.into_iter().rev() {
        let cost = browser::estimate_tokens(&line) + 1;
        if lines.len() >= limit || tokens + cost > max_tokens {
            break;
        }
        tokens += cost;
        lines.push(line);
    }
    lines.reverse();
    Listing {
        lines,
        matched,
        cursor: log.cursor(),
        dropped,
    }
}

/// A problem's line (`×N` when met more than once) and the URL it is about.
fn problem_line(
    log: &TabLog,
    problem: &Problem,
    origin: Option<&str>,
) -> Option<(Option<String>, String)> {
    let (url, mut line) = match problem.entry {
        EntryId::Console(seq) => log
            .console_entry(seq)
            .map(|e| (e.url.clone(), e.line(LINE_CHARS)))?,
        EntryId::Exception(seq) => log
            .exception(seq)
            .map(|e| (e.url.clone(), e.line(LINE_CHARS)))?,
        EntryId::Network(seq) => log
            .request(seq)
            .map(|e| (Some(e.url.clone()), e.line(origin, LINE_CHARS)))?,
    };
    if problem.times > 1 && matches!(problem.entry, EntryId::Network(_)) {
        line.push_str(&format!(" ×{}", problem.times));
    }
    Some((url, line))
}

/// What went wrong in `log` after `since`, for an answer's `events.logs`: how many
/// errors (exceptions, console errors) and failed requests, and the last few named;
/// `None` when nothing did.
pub(crate) fn problems_report(log: &TabLog, since: u64, origin: Option<&str>) -> Option<Value> {
    let problems: Vec<&Problem> = log.problems_since(since).collect();
    if problems.is_empty() {
        return None;
    }
    let errors: u64 = problems
        .iter()
        .filter(|p| !matches!(p.entry, EntryId::Network(_)))
        .map(|p| u64::from(p.times))
        .sum();
    let failed = problems
        .iter()
        .filter(|p| matches!(p.entry, EntryId::Network(_)))
        .count();
    let mut seen = std::collections::HashSet::new();
    let mut lines: Vec<String> = problems
        .iter()
        .rev()
        .filter(|p| seen.insert(p.entry))
        .filter_map(|p| problem_line(log, p, origin).map(|(_, line)| line))
        .collect();
    let more = lines.len().saturating_sub(EVENT_LINES);
    lines.truncate(EVENT_LINES);
    lines.reverse();
    let mut report = json!({
        "since": since,
        "errors": errors,
        "failedRequests": failed,
        "lines": lines,
    });
    if more > 0 {
        report["more"] = more.into();
    }
    Some(report)
}

/// One entry in full: every field kept, headers with secret values redacted (the one
/// rule, `browser::is_secret_key`).
pub(crate) fn detail(log: &TabLog, id: EntryId) -> Option<Value> {
    match id {
        EntryId::Console(seq) => log.console_entry(seq).map(console_detail),
        EntryId::Exception(seq) => log.exception(seq).map(console_detail),
        EntryId::Network(seq) => log.request(seq).map(request_detail),
    }
}

fn console_detail(entry: &ConsoleEntry) -> Value {
    let mut detail = json!({
        "id": entry.id(),
        "level": entry.level.name(),
        "exception": entry.exception,
        "text": entry.text,
        "count": entry.count,
        "at": har::date(entry.at_ms),
    });
    if entry.clipped > 0 {
        detail["clippedChars"] = entry.clipped.into();
    }
    if let Some(url) = &entry.url {
        detail["url"] = url.clone().into();
    }
    if let Some(line) = entry.line {
        detail["line"] = line.into();
    }
    if !entry.stack.is_empty() {
        detail["stack"] = entry.stack.clone().into();
    }
    detail
}

fn request_detail(entry: &NetworkEntry) -> Value {
    let mut detail = json!({
        "id": entry.id(),
        "method": entry.method,
        "url": redact_url(&entry.url),
        "type": entry.resource_type,
        "state": match entry.state() {
            browser::RequestState::Pending => "pending",
            browser::RequestState::Finished => "finished",
            browser::RequestState::Failed => "failed",
        },
        "startedAt": har::date(entry.started_ms),
        "mainFrame": entry.main_frame,
        "requestHeaders": headers(&entry.request_headers),
        "responseHeaders": headers(&entry.response_headers),
    });
    let optional = [
        ("status", entry.status.map(Value::from)),
        (
            "statusText",
            Some(entry.status_text.clone())
                .filter(|t| !t.is_empty())
                .map(Value::from),
        ),
        (
            "mimeType",
            Some(entry.mime_type.clone())
                .filter(|t| !t.is_empty())
                .map(Value::from),
        ),
        ("protocol", entry.protocol.clone().map(Value::from)),
        ("failure", entry.failure.clone().map(Value::from)),
        ("canceled", entry.canceled.then_some(Value::Bool(true))),
        ("fromCache", entry.from_cache.then_some(Value::Bool(true))),
        ("bytes", entry.bytes.map(Value::from)),
        (
            "waitedMs",
            entry.waited_ms.map(|ms| Value::from(ms.round() as u64)),
        ),
        (
            "durationMs",
            entry.duration_ms.map(|ms| Value::from(ms.round() as u64)),
        ),
        (
            "hasPostData",
            entry.has_post_data.then_some(Value::Bool(true)),
        ),
        ("redirected", entry.redirected.then_some(Value::Bool(true))),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            detail[key] = value;
        }
    }
    detail
}

/// Headers as `[{name, value}]`, a secret one's value redacted.
fn headers(pairs: &[(String, String)]) -> Value {
    pairs
        .iter()
        .map(|(name, value)| json!({ "name": name, "value": redact_header(name, value) }))
        .collect()
}

pub(crate) fn redact_header(name: &str, value: &str) -> String {
    if browser::is_secret_key(name) {
        browser::REDACTED.to_string()
    } else {
        value.to_string()
    }
}

/// `url` with the value of each query parameter whose name is a secret key's redacted
/// (`?token=abc` → `?token=[redacted]`).
pub(crate) fn redact_url(url: &str) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return url.to_string();
    };
    if !parsed
        .query_pairs()
        .any(|(name, _)| browser::is_secret_key(&name))
    {
        return url.to_string();
    }
    let pairs: Vec<(String, String)> = parsed
        .query_pairs()
        .map(|(name, value)| {
            let value = redact_header(&name, &value);
            (name.into_owned(), value)
        })
        .collect();
    parsed.query_pairs_mut().clear().extend_pairs(pairs);
    parsed.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_filters_read_codes_ranges_classes_and_failures() {
        assert_eq!(
            StatusFilter::parse("404, 5xx,300-399,failed"),
            Ok(StatusFilter(vec![
                StatusRange::Codes(404, 404),
                StatusRange::Codes(500, 599),
                StatusRange::Codes(300, 399),
                StatusRange::Failed,
            ]))
        );
        for bad in ["", "abc", "9xx", "500-400", "45xx"] {
            assert!(StatusFilter::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_secret_query_parameter_is_redacted_and_the_rest_kept() {
        assert_eq!(
            redact_url("http://h/api?token=abc&page=2"),
            "http://h/api?token=%5Bredacted%5D&page=2"
        );
        assert_eq!(redact_url("http://h/api?page=2"), "http://h/api?page=2");
        assert_eq!(redact_header("Authorization", "Bearer x"), "[redacted]");
        assert_eq!(redact_header("Accept", "*/*"), "*/*");
    }
}
