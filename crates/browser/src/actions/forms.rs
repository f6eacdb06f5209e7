//! `<select>` options and file uploads (through the input, or through an intercepted
//! file chooser), and the upload's response: with a URL pattern, the page's network is
//! watched from the moment the files are set for the first request that matches, and its
//! answer (status, or the transport error) is reported. Only requests of the page's own
//! session are seen (not those of an out-of-process frame).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use cdp::protocol::{dom, network, page};
use cdp::{Deadline, RawEvent};
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;

use super::{CHOOSER_LIMIT, Run};
use crate::Error;
use crate::snapshot::{Located, Locator};

/// The most an upload waits for its response (and at most half of what the command has
/// left, so the settle and an expectation keep their time).
const RESPONSE_LIMIT: Duration = Duration::from_secs(10);

/// Which request is an upload's: with a `*`, a glob over the whole URL (`*` any run of
/// characters, `?` one character); without, a substring of the URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlPattern(String);

impl UrlPattern {
    pub fn new(pattern: impl Into<String>) -> Self {
        Self(pattern.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn matches(&self, url: &str) -> bool {
        if self.0.contains('*') {
            let glob: Vec<char> = self.0.chars().collect();
            let text: Vec<char> = url.chars().collect();
            glob_matches(&glob, &text)
        } else {
            url.contains(&self.0)
        }
    }
}

/// Whether `glob` (`*`, `?`) matches all of `text`: a linear scan that, on a mismatch,
/// lets the last `*` take one more character.
fn glob_matches(glob: &[char], text: &[char]) -> bool {
    let (mut g, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match glob.get(g) {
            Some('*') => {
                star = Some((g, t));
                g += 1;
            }
            Some(c) if *c == '?' || *c == text[t] => {
                g += 1;
                t += 1;
            }
            _ => match star {
                Some((star_g, star_t)) => {
                    g = star_g + 1;
                    t = star_t + 1;
                    star = Some((star_g, star_t + 1));
                }
                None => return false,
            },
        }
    }
    glob[g..].iter().all(|c| *c == '*')
}

/// What an upload did.
#[derive(Debug, Clone)]
pub struct UploadOutcome {
    /// The input holds as many files as were given.
    pub file_selected: bool,
    /// What the input holds, read back from the page — or why it could not be read back
    /// once the files were set (the page replaced the input or moved it out of the
    /// document from its `change` handler): the files were selected all the same.
    pub input_readback: Result<FileReadback, String>,
    /// With a URL pattern: the watch for the upload's response.
    pub watch: Option<ResponseWatch>,
}

impl UploadOutcome {
    /// Whether the upload reached its server: known only from a response that was
    /// watched for and came (`None`: unknown).
    pub fn completed(&self) -> Option<bool> {
        self.watch
            .as_ref()
            .and_then(|w| w.response.as_ref())
            .map(|r| r.ok)
    }
}

/// What a file input holds (`element_files.js`).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct FileReadback {
    /// The input is in the document.
    pub connected: bool,
    pub count: usize,
    /// The files' names, in order.
    pub names: Vec<String>,
    /// Their sizes in bytes.
    pub sizes: Vec<u64>,
}

/// An option of a `<select>` that is selected.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct SelectedOption {
    pub value: String,
    /// Its label, trimmed.
    pub label: String,
}

/// What `element_select_options.js` did: selected the options, or changed nothing and
/// says why (`error`).
#[derive(Debug, serde::Deserialize)]
#[serde(tag = "error", rename_all = "kebab-case")]
pub(crate) enum SelectReply {
    /// The element is no `<select>`.
    NotSelect,
    /// Some of the options asked for are not there; `available` holds the labels (or
    /// values) of the first 20 options, each clipped to 100 characters.
    Missing {
        missing: Vec<String>,
        available: Vec<String>,
    },
    /// Several options were asked of a single-choice `<select>`.
    Single,
    /// No `error`: the options now selected.
    #[serde(untagged)]
    Selected { selected: Vec<SelectedOption> },
}

/// The watch for an upload's response.
#[derive(Debug, Clone)]
pub struct ResponseWatch {
    pub pattern: UrlPattern,
    /// How long it was watched for at most.
    pub budget: Duration,
    /// The first matching request's answer; `None` if none came within the budget.
    pub response: Option<UploadResponse>,
}

/// How the server answered an upload's request, or how the request failed.
#[derive(Debug, Clone, PartialEq)]
pub struct UploadResponse {
    pub url: String,
    /// The HTTP status; `None` when the request failed without one.
    pub status: Option<i64>,
    /// A status below 400.
    pub ok: bool,
    /// The transport error (`net::ERR_*`) of a request that failed.
    pub error: Option<String>,
}

impl Run<'_> {
    pub(super) async fn select(
        &mut self,
        target: &Located,
        locator: &Locator,
        values: &[String],
    ) -> Result<Vec<SelectedOption>, Error> {
        // The script checks every option before changing anything, so a refusal here
        // has dispatched nothing.
        let reply = self
            .tab
            .call_on_node(
                &target.session,
                target.backend_id,
                &ELEMENT_SELECT_OPTIONS,
                vec![json!(values)],
                self.deadline,
            )
            .await?;
        match reply {
            SelectReply::Selected { selected } => {
                self.dispatched = true;
                Ok(selected)
            }
            SelectReply::NotSelect => Err(Error::InvalidParams {
                what: locator.to_string(),
                reason: format!(
                    "a {} is not a <select>; click its options instead",
                    target.role
                ),
            }),
            SelectReply::Single => Err(Error::InvalidParams {
                what: locator.to_string(),
                reason: "it takes one option; several were given".into(),
            }),
            SelectReply::Missing { missing, available } => Err(Error::OptionNotFound {
                locator: locator.to_string(),
                missing,
                available,
            }),
        }
    }

    pub(super) async fn upload(
        &mut self,
        target: &Located,
        locator: &Locator,
        files: &[PathBuf],
        via_trigger: bool,
        response_url: Option<&UrlPattern>,
    ) -> Result<UploadOutcome, Error> {
        let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        let (session, input) = if via_trigger {
            let session = self.tab.session().clone();
            session
                .call(
                    &page::SetInterceptFileChooserDialog { enabled: true },
                    self.deadline,
                )
                .await?;
            let opened_before = self.tab.state().file_choosers;
            let clicked = async {
                let (x, y) = self.pointer_target(target, locator, true).await?;
                self.mouse(x, y, 1).await?;
                let limit = self.deadline.within(CHOOSER_LIMIT);
                self.tab
                    .wait_state("a file chooser to open", limit, Instant::now(), |s| {
                        s.file_choosers > opened_before
                    })
                    .await
            }
            .await;
            let _ = session
                .call(
                    &page::SetInterceptFileChooserDialog { enabled: false },
                    self.deadline,
                )
                .await;
            let state = clicked?;
            let input = state
                .file_chooser_input
                .ok_or_else(|| Error::ElementNotFound {
                    locator: locator.to_string(),
                    reason: "the file chooser it opened names no input".into(),
                })?;
            (session, input)
        } else {
            self.require_shown_or_file_input(target, locator).await?;
            (target.session.clone(), target.backend_id)
        };
        // Watched from before the files are set: a page may post them from its `change`
        // handler, before the call returns.
        let mut network = response_url.map(|_| self.tab.session().subscribe());
        self.dispatched = true;
        session
            .call(
                &dom::SetFileInputFiles {
                    files: files.clone(),
                    backend_node_id: input,
                },
                self.deadline,
            )
            .await?;
        // The browser took the files. A page that swaps the input out from its `change`
        // handler leaves nothing to read back: that is said, never taken for a failed
        // upload (the page received the file) nor for a lost browser.
        let readback = match self
            .tab
            .call_on_node(&session, input, &ELEMENT_FILES, Vec::new(), self.deadline)
            .await
        {
            Ok(readback) => Ok(readback),
            Err(Error::Protocol { method, message }) => Err(format!(
                "the input could not be read back after its files were set: the browser refused {method}: {message}"
            )),
            Err(other) => return Err(other),
        };
        let watch = match (response_url, network.as_mut()) {
            (Some(pattern), Some(events)) => {
                let budget = RESPONSE_LIMIT.min(self.deadline.remaining() / 2);
                let response = first_response(events, pattern, Deadline::after(budget)).await;
                Some(ResponseWatch {
                    pattern: pattern.clone(),
                    budget,
                    response,
                })
            }
            _ => None,
        };
        Ok(UploadOutcome {
            file_selected: readback
                .as_ref()
                .map_or(true, |readback| readback.count == files.len()),
            input_readback: readback,
            watch,
        })
    }

    /// A file input may be visually hidden behind a styled label; it must be a file input.
    pub(super) async fn require_shown_or_file_input(
        &self,
        target: &Located,
        locator: &Locator,
    ) -> Result<(), Error> {
        let element = self
            .tab
            .call_on_node(
                &target.session,
                target.backend_id,
                &super::ELEMENT_VALUE,
                vec![json!(cdp::secret_field_selector())],
                self.deadline,
            )
            .await?;
        if element.r#type != "file" {
            return Err(Error::InvalidParams {
                what: locator.to_string(),
                reason: "it is not an <input type=file>; give the button that opens the chooser with trigger:true".into(),
            });
        }
        Ok(())
    }
}

/// The answer to the first request whose URL matches `pattern` among `events` (the page
/// session's), or `None` if none came before `until`.
async fn first_response(
    events: &mut UnboundedReceiver<RawEvent>,
    pattern: &UrlPattern,
    until: Deadline,
) -> Option<UploadResponse> {
    // Request id → URL of the matching requests sent so far: a failure names only the id.
    let mut sent: HashMap<String, String> = HashMap::new();
    loop {
        let event = tokio::time::timeout_at(until.at().into(), events.recv())
            .await
            .ok()??;
        if let Some(request) = event.parse::<network::RequestWillBeSent>() {
            if pattern.matches(&request.request.url) {
                sent.insert(request.request_id, request.request.url);
            }
        } else if let Some(received) = event.parse::<network::ResponseReceived>() {
            if sent.contains_key(&received.request_id) || pattern.matches(&received.response.url) {
                let status = received.response.status;
                return Some(UploadResponse {
                    url: received.response.url,
                    status: Some(status),
                    ok: status < 400,
                    error: None,
                });
            }
        } else if let Some(failed) = event.parse::<network::LoadingFailed>()
            && let Some(url) = sent.remove(&failed.request_id)
        {
            return Some(UploadResponse {
                url,
                status: None,
                ok: false,
                error: Some(failed.error_text),
            });
        }
    }
}

/// On a `<select>`: choose options by value or label: `{selected}` or `{error, …}`.
pub(crate) const ELEMENT_SELECT_OPTIONS: crate::script::Script<crate::actions::SelectReply> =
    crate::script::script!("element_select_options" => crate::actions::SelectReply);
/// On a file input: `{connected, count, names, sizes}`.
pub(crate) const ELEMENT_FILES: crate::script::Script<crate::actions::FileReadback> =
    crate::script::script!("element_files" => crate::actions::FileReadback);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_with_a_star_is_a_whole_url_glob_and_one_without_a_substring() {
        let upload = "http://127.0.0.1:4000/api/upload?id=7";
        for (pattern, matches) in [
            ("/api/upload", true),
            ("upload?id=7", true),
            ("/api/download", false),
            ("*/api/upload*", true),
            ("*/api/upload", false),
            ("http://127.0.0.1:????/api/*", true),
            ("http://*/api/*?id=?", true),
            ("https://*", false),
            ("*", true),
        ] {
            assert_eq!(
                UrlPattern::new(pattern).matches(upload),
                matches,
                "{pattern}"
            );
        }
    }
}
