//! A task's requests as HAR 1.2 (<http://www.softwareishard.com/blog/har-12-spec/>), the
//! format browsers' developer tools import. Written by a serde model here: the HAR crates
//! on crates.io are unmaintained or pull a YAML stack in, and the part of the format a
//! log of requests fills is small. Secrets are redacted as everywhere: a header's or a
//! query parameter's value when its name is a secret key's.
//!
//! Bodies are not in the log (docs/logs.md), so `content` has sizes and the MIME type,
//! no text. A request that failed has status 0 and its `net::ERR_*` in `_error` (custom
//! fields start with `_`, as the format allows).

use browser::NetworkEntry;
use serde::Serialize;

use super::{redact_header, redact_url};

#[derive(Debug, Serialize)]
pub(crate) struct Har {
    log: Log,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Log {
    version: &'static str,
    creator: Creator,
    pages: Vec<Page>,
    entries: Vec<Entry>,
}

#[derive(Debug, Serialize)]
struct Creator {
    name: &'static str,
    version: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Page {
    started_date_time: String,
    id: String,
    title: String,
    page_timings: PageTimings,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PageTimings {
    on_content_load: f64,
    on_load: f64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    pageref: String,
    started_date_time: String,
    time: f64,
    request: Request,
    response: Response,
    cache: Cache,
    timings: Timings,
    #[serde(rename = "_resourceType")]
    resource_type: String,
    #[serde(rename = "_error", skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Request {
    method: String,
    url: String,
    http_version: String,
    cookies: Vec<NameValue>,
    headers: Vec<NameValue>,
    query_string: Vec<NameValue>,
    headers_size: i64,
    body_size: i64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Response {
    status: i64,
    status_text: String,
    http_version: String,
    cookies: Vec<NameValue>,
    headers: Vec<NameValue>,
    content: Content,
    #[serde(rename = "redirectURL")]
    redirect_url: String,
    headers_size: i64,
    body_size: i64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Content {
    size: i64,
    mime_type: String,
}

#[derive(Debug, Serialize)]
struct Cache {}

#[derive(Debug, Serialize)]
struct Timings {
    blocked: f64,
    dns: f64,
    connect: f64,
    send: f64,
    wait: f64,
    receive: f64,
    ssl: f64,
}

#[derive(Debug, Serialize)]
struct NameValue {
    name: String,
    value: String,
}

/// One tab's part of a HAR: its id, title, and its requests.
pub(crate) struct TabRequests<'a> {
    pub tab_id: String,
    pub title: String,
    pub requests: Vec<&'a NetworkEntry>,
}

impl Har {
    /// The HAR of the task's tabs, a page per tab, its requests in the order sent.
    pub(crate) fn of(tabs: &[TabRequests<'_>]) -> Har {
        let pages = tabs
            .iter()
            .map(|tab| Page {
                started_date_time: date(
                    tab.requests
                        .first()
                        .map_or_else(now_ms, |request| request.started_ms),
                ),
                id: tab.tab_id.clone(),
                title: tab.title.clone(),
                page_timings: PageTimings {
                    on_content_load: -1.0,
                    on_load: -1.0,
                },
            })
            .collect();
        let entries = tabs
            .iter()
            .flat_map(|tab| {
                tab.requests
                    .iter()
                    .map(|request| entry(&tab.tab_id, request))
            })
            .collect();
        Har {
            log: Log {
                version: "1.2",
                creator: Creator {
                    name: "candor",
                    version: env!("CARGO_PKG_VERSION"),
                },
                pages,
                entries,
            },
        }
    }

    pub(crate) fn entries(&self) -> usize {
        self.log.entries.len()
    }
}

fn entry(tab_id: &str, request: &NetworkEntry) -> Entry {
    let time = request.duration_ms.or(request.waited_ms).unwrap_or(0.0);
    let wait = request.waited_ms.unwrap_or(time).min(time);
    let url = redact_url(&request.url);
    let query_string = url::Url::parse(&url)
        .map(|parsed| {
            parsed
                .query_pairs()
                .map(|(name, value)| NameValue {
                    name: name.into_owned(),
                    value: value.into_owned(),
                })
                .collect()
        })
        .unwrap_or_default();
    let http_version = request.protocol.clone().unwrap_or_else(|| "unknown".into());
    let redirect_url = request
        .response_headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("location"))
        .map(|(_, value)| value.clone())
        .unwrap_or_default();
    Entry {
        pageref: tab_id.to_string(),
        started_date_time: date(request.started_ms),
        time,
        request: Request {
            method: request.method.clone(),
            url,
            http_version: http_version.clone(),
            cookies: Vec::new(),
            headers: name_values(&request.request_headers),
            query_string,
            headers_size: -1,
            body_size: -1,
        },
        response: Response {
            status: request.status.unwrap_or(0),
            status_text: request.status_text.clone(),
            http_version,
            cookies: Vec::new(),
            headers: name_values(&request.response_headers),
            content: Content {
                size: request.bytes.map_or(-1, |b| b as i64),
                mime_type: request.mime_type.clone(),
            },
            redirect_url,
            headers_size: -1,
            body_size: request.bytes.map_or(-1, |b| b as i64),
        },
        cache: Cache {},
        timings: Timings {
            blocked: -1.0,
            dns: -1.0,
            connect: -1.0,
            send: 0.0,
            wait,
            receive: (time - wait).max(0.0),
            ssl: -1.0,
        },
        resource_type: request.resource_type.clone(),
        error: request.failure.clone(),
    }
}

fn name_values(pairs: &[(String, String)]) -> Vec<NameValue> {
    pairs
        .iter()
        .map(|(name, value)| NameValue {
            name: name.clone(),
            value: redact_header(name, value),
        })
        .collect()
}

/// Milliseconds since the epoch as ISO 8601 with milliseconds, in UTC.
pub(crate) fn date(ms: f64) -> String {
    chrono::DateTime::from_timestamp_millis(ms as i64)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_millis() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_iso_8601_in_utc_with_milliseconds() {
        assert_eq!(date(1_700_000_000_123.0), "2023-11-14T22:13:20.123Z");
    }
}
