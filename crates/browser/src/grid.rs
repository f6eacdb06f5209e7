//! A browser on a Selenium Grid 4: one WebDriver session per browser, opened with the
//! `goog:chromeOptions` candor needs, whose `se:cdp` WebSocket the CDP transport
//! attaches to. The grid queues and places sessions; this module only asks, and deletes
//! the session when the browser is closed or dropped — on every path, so the grid keeps
//! no session of candor's: a session the grid creates after its request was given up
//! (the deadline passed while it was queued) is deleted the moment it arrives.
//!
//! It speaks the few WebDriver calls it needs (`POST /session`, `DELETE /session/{id}`)
//! and nothing else of WebDriver.

use std::time::Duration;

use cdp::Deadline;
use serde_json::{Value, json};

use crate::Error;
use crate::launch::{QUIET_ARGS, with_switches};

/// How tasks get browsers from a Selenium Grid 4.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GridOptions {
    /// The grid's URL, e.g. `http://127.0.0.1:4444` (its WebDriver endpoint; a trailing
    /// `/wd/hub` is kept as given).
    pub url: String,
    pub headless: bool,
    /// Extra Chromium switches, after candor's own.
    pub args: Vec<String>,
}

impl GridOptions {
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            headless: true,
            args: Vec::new(),
        }
    }
}

/// The switches a grid session gets beside [`QUIET_ARGS`] (chromedriver sets the
/// debugging port, the profile and its own defaults): `--no-sandbox`, because grid nodes
/// commonly run Chromium as root in containers.
const SESSION_ARGS: &[&str] = &["--no-sandbox"];

/// How long an HTTP call to the grid may take beyond a command's deadline: a queued
/// request is followed to its end, so a session created late is deleted.
const FOLLOW_LIMIT: Duration = Duration::from_secs(600);

/// How long a session's deletion, or a look at it, may take.
const DELETE_LIMIT: Duration = Duration::from_secs(10);

/// How often a session is looked at. Selenium's `se:cdp` proxy keeps candor's WebSocket
/// open after the session ended (its node went away, the grid reaped it) and answers
/// nothing more, so the session itself is watched. Each look is also WebDriver activity,
/// so the grid's idle timeout never reaps a session candor still holds.
pub(crate) const WATCH_EVERY: Duration = Duration::from_secs(2);

/// A WebDriver session on the grid. Deleted by [`GridSession::delete`], or when dropped.
#[derive(Debug)]
pub(crate) struct GridSession {
    grid: String,
    id: String,
    deleted: bool,
}

/// A session the grid created: its id and the CDP WebSocket it proxies.
struct Created {
    id: String,
    cdp: Option<String>,
}

impl GridSession {
    /// Asks the grid for a session within `deadline`, and returns it with its `se:cdp`
    /// WebSocket URL. A grid that is unreachable, or that has no free slot in time, is
    /// [`Error::GridUnavailable`]; one that fails to create the session is
    /// [`Error::GridSessionFailed`]. Either carries the grid's own message.
    pub(crate) async fn open(
        options: &GridOptions,
        deadline: Deadline,
    ) -> Result<(GridSession, String), Error> {
        let started = std::time::Instant::now();
        let grid = options.url.trim_end_matches('/').to_string();
        let body = capabilities(options);
        let (answer, asked) = tokio::sync::oneshot::channel();
        let follow = grid.clone();
        // A thread of its own, not the runtime's: the request is followed past the
        // deadline, and whatever it creates then is deleted here, with nobody waiting.
        std::thread::spawn(move || {
            let created = post_session(&follow, &body);
            if let Err(Ok(late)) = answer.send(created) {
                tracing::info!(grid = %follow, session = %late.id, "deleting a session created after its request was given up");
                delete_session(&follow, &late.id);
            }
        });
        let created = match tokio::time::timeout_at(deadline.at().into(), asked).await {
            Ok(Ok(created)) => created?,
            Ok(Err(_)) => {
                return Err(Error::GridUnavailable {
                    grid,
                    message: "the request for a session was lost".into(),
                });
            }
            Err(_) => {
                return Err(Error::GridUnavailable {
                    grid,
                    message: format!(
                        "no session within {} ms (no free slot; the request was withdrawn)",
                        started.elapsed().as_millis()
                    ),
                });
            }
        };
        let session = GridSession {
            grid: grid.clone(),
            id: created.id,
            deleted: false,
        };
        let Some(cdp) = created.cdp else {
            // Dropping the session deletes it.
            return Err(Error::GridSessionFailed {
                grid,
                message: "the session's capabilities name no se:cdp endpoint (a Selenium 4 Chromium node gives one)".into(),
            });
        };
        tracing::debug!(grid = %session.grid, session = %session.id, "grid session opened");
        Ok((session, cdp))
    }

    /// The grid's URL and the session's id, to watch it ([`session_gone`]).
    pub(crate) fn address(&self) -> (String, String) {
        (self.grid.clone(), self.id.clone())
    }

    /// Deletes the session on the grid, waiting for the answer until `deadline`.
    pub(crate) async fn delete(mut self, deadline: Deadline) {
        self.deleted = true;
        let (grid, id) = (self.grid.clone(), self.id.clone());
        let deleting = tokio::task::spawn_blocking(move || delete_session(&grid, &id));
        let _ = tokio::time::timeout_at(deadline.at().into(), deleting).await;
    }
}

impl Drop for GridSession {
    fn drop(&mut self) {
        if !self.deleted {
            let (grid, id) = (self.grid.clone(), self.id.clone());
            std::thread::spawn(move || delete_session(&grid, &id));
        }
    }
}

/// The new-session request: W3C capabilities for Chromium with candor's switches.
fn capabilities(options: &GridOptions) -> Value {
    let mut args: Vec<String> = Vec::new();
    if options.headless {
        args.push("--headless=new".into());
    }
    args.extend(with_switches(
        SESSION_ARGS.iter().chain(QUIET_ARGS).copied(),
        &options.args,
    ));
    json!({
        "capabilities": {
            "alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": { "args": args },
                // Dialogs are candor's to answer (its dialog policy), never the driver's.
                "unhandledPromptBehavior": "ignore",
            }
        }
    })
}

fn agent(limit: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(limit))
        .http_status_as_error(false)
        .build()
        .new_agent()
}

/// `POST {grid}/session`, blocking until the grid answers.
fn post_session(grid: &str, body: &Value) -> Result<Created, Error> {
    let unavailable = |message: String| Error::GridUnavailable {
        grid: grid.to_string(),
        message,
    };
    let mut response = agent(FOLLOW_LIMIT)
        .post(&format!("{grid}/session"))
        .header("Content-Type", "application/json; charset=utf-8")
        .send_json(body)
        .map_err(|e| unavailable(format!("the grid cannot be reached: {e}")))?;
    let status = response.status().as_u16();
    let answer: Value = response
        .body_mut()
        .read_json()
        .map_err(|e| Error::GridSessionFailed {
            grid: grid.to_string(),
            message: format!("HTTP {status} with a body that is not WebDriver JSON: {e}"),
        })?;
    let value = &answer["value"];
    if (200..300).contains(&status)
        && let Some(id) = value["sessionId"].as_str()
    {
        return Ok(Created {
            id: id.to_string(),
            cdp: value["capabilities"]["se:cdp"].as_str().map(str::to_string),
        });
    }
    let message = grid_message(value, status);
    // Grid 4 answers a request that waited in its queue past `--session-request-timeout`
    // with "New session request timed out": no slot came free.
    if message.contains("request timed out") {
        Err(unavailable(message))
    } else {
        Err(Error::GridSessionFailed {
            grid: grid.to_string(),
            message,
        })
    }
}

/// The grid's message from a WebDriver error value: its error and the first lines of its
/// message, without the build and host lines the grid appends.
fn grid_message(value: &Value, status: u16) -> String {
    let error = value["error"].as_str().unwrap_or("error");
    let message: Vec<&str> = value["message"]
        .as_str()
        .unwrap_or("")
        .lines()
        .map(str::trim)
        .take_while(|line| {
            !["Host info:", "Build info:", "System info:", "Driver info:"]
                .iter()
                .any(|prefix| line.starts_with(prefix))
        })
        .filter(|line| !line.is_empty())
        .collect();
    format!("HTTP {status}, {error}: {}", message.join(" "))
}

/// Whether the grid says the session no longer exists (blocking): `GET
/// {grid}/session/{id}/timeouts`, a WebDriver read that touches no page. A grid that does
/// not answer is no verdict (`false`): the session may be fine behind it.
pub(crate) fn session_gone(grid: &str, id: &str) -> bool {
    let Ok(mut response) = agent(DELETE_LIMIT)
        .get(&format!("{grid}/session/{id}/timeouts"))
        .call()
    else {
        return false;
    };
    let status = response.status().as_u16();
    if (200..300).contains(&status) {
        return false;
    }
    let answer: Value = response.body_mut().read_json().unwrap_or(Value::Null);
    status == 404 || answer["value"]["error"] == "invalid session id"
}

/// `DELETE {grid}/session/{id}`, blocking; a failure is logged (the node may be gone,
/// which ends its sessions anyway).
fn delete_session(grid: &str, id: &str) {
    match agent(DELETE_LIMIT)
        .delete(&format!("{grid}/session/{id}"))
        .call()
    {
        Ok(response) if response.status().is_success() => {
            tracing::debug!(grid, session = id, "grid session deleted");
        }
        Ok(response) => {
            tracing::warn!(grid, session = id, status = %response.status(), "the grid refused to delete the session");
        }
        Err(err) => tracing::warn!(grid, session = id, %err, "cannot delete the grid session"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grids_message_keeps_its_first_lines_and_drops_build_and_host_info() {
        let value = json!({
            "error": "session not created",
            "message": "Could not start a new session. New session request timed out \nHost info: host: 'vm'\nBuild info: version: '4.48.0'",
        });
        assert_eq!(
            grid_message(&value, 500),
            "HTTP 500, session not created: Could not start a new session. New session request timed out"
        );
    }

    #[test]
    fn a_session_asks_for_headless_chromium_with_candors_switches_then_the_callers() {
        let mut options = GridOptions::new("http://grid:4444");
        options.args = vec!["--lang=de".into()];
        let body = capabilities(&options);
        let args = &body["capabilities"]["alwaysMatch"]["goog:chromeOptions"]["args"];
        let args: Vec<&str> = args
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(args.first(), Some(&"--headless=new"));
        assert!(args.contains(&"--disable-background-networking"));
        assert_eq!(args.last(), Some(&"--lang=de"));
        options.headless = false;
        let headed = capabilities(&options).to_string();
        assert!(!headed.contains("--headless"), "{headed}");
    }
}
