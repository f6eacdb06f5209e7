//! The typed client of the daemon's HTTP API, for the CLI: blocking (one call per
//! process needs no runtime), found through the state directory (`daemon.json` names the
//! port, `token` the credential). Every answer that is not a transport failure or a 401
//! is the daemon's envelope, whatever its HTTP status.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};

use crate::Error;
use crate::state::StateDir;

/// The most a daemon's answer may weigh (a screenshot rides inside as base64).
const MAX_ANSWER: u64 = 256 * 1024 * 1024;

/// An answer: the HTTP status and the JSON body (an envelope on every route but health).
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub body: Value,
}

/// A connection to one daemon.
#[derive(Debug, Clone)]
pub struct Client {
    base: String,
    token: String,
    token_path: PathBuf,
    agent: ureq::Agent,
    /// The most this client waits for an answer, if it was told one.
    wait: Option<Duration>,
}

impl Client {
    /// The daemon that `state` names, without asking it anything yet.
    /// The directory must be this user's own: whoever owns it chooses the port the token
    /// is sent to.
    pub fn from_state(state: &StateDir) -> Result<Client, Error> {
        state.check()?;
        let info = state.read_info()?;
        let token = state.read_token()?;
        Ok(Self::new(info.port, token, state.token_path()))
    }

    /// The daemon on `127.0.0.1:port` that accepts `token`.
    pub fn new(port: u16, token: String, token_path: PathBuf) -> Client {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(2)))
            // A command may run up to 900 s; the daemon bounds it, not the client.
            .timeout_global(None)
            // No idle connections kept: a request on a kept connection the daemon is
            // closing at that moment fails ("peer disconnected"), and a command is never
            // sent twice to find out whether it arrived. A loopback connect costs little.
            .max_idle_connections(0)
            .max_idle_connections_per_host(0)
            .build()
            .new_agent();
        Client {
            base: format!("http://127.0.0.1:{port}"),
            token,
            token_path,
            agent,
            wait: None,
        }
    }

    /// `GET /v1/health`: whether this daemon answers and accepts the token.
    pub fn health(&self) -> Result<Answer, Error> {
        self.get("/v1/health")
    }

    /// `GET /v1/health?memory=true`: the health answer with the daemon's memory report.
    pub fn memory(&self) -> Result<Answer, Error> {
        self.get("/v1/health?memory=true")
    }

    /// `POST /v1/tasks`: `{id?, browser?, timeoutMs?}`.
    pub fn start_task(&self, body: &Value) -> Result<Answer, Error> {
        self.post("/v1/tasks", body)
    }

    /// `GET /v1/tasks`.
    pub fn tasks(&self) -> Result<Answer, Error> {
        self.get("/v1/tasks")
    }

    /// `DELETE /v1/tasks/{task}`.
    pub fn stop_task(&self, task: &str) -> Result<Answer, Error> {
        let path = format!("/v1/tasks/{}", segment(task));
        let request = self.agent.delete(format!("{}{path}", self.base));
        self.answer(&path, request.header("Authorization", self.bearer()).call())
    }

    /// The same daemon, waiting at most `wait` for each answer (`None`: as long as the
    /// daemon takes, which bounds every command). Past it the call is
    /// [`Error::NoAnswerInTime`]; what was asked goes on at the daemon.
    pub fn waiting_at_most(mut self, wait: Option<Duration>) -> Client {
        self.wait = wait;
        self
    }

    /// `POST /v1/tasks/{task}/commands`.
    pub fn command(
        &self,
        task: &str,
        method: &str,
        params: &Value,
        command_timeout_ms: Option<u64>,
        sensitive: bool,
    ) -> Result<Answer, Error> {
        let mut body = json!({ "method": method, "params": params });
        if let Some(ms) = command_timeout_ms {
            body["commandTimeoutMs"] = ms.into();
        }
        if sensitive {
            body["sensitive"] = true.into();
        }
        self.post(&format!("/v1/tasks/{}/commands", segment(task)), &body)
    }

    /// `GET /v1/tasks/{task}/diagnostics`.
    pub fn diagnostics(&self, task: &str, limit: Option<usize>) -> Result<Answer, Error> {
        let query = limit.map_or_else(String::new, |n| format!("?limit={n}"));
        self.get(&format!("/v1/tasks/{}/diagnostics{query}", segment(task)))
    }

    /// `POST /v1/commands/{id}/cancel`.
    pub fn cancel(&self, command_id: &str) -> Result<Answer, Error> {
        self.post(
            &format!("/v1/commands/{}/cancel", segment(command_id)),
            &json!({}),
        )
    }

    /// `POST /v1/tasks/{task}/jobs`: a flow (`{steps, continueOnError?, …}`).
    pub fn batch(&self, task: &str, body: &Value) -> Result<Answer, Error> {
        self.post(&format!("/v1/tasks/{}/jobs", segment(task)), body)
    }

    /// `POST /v1/tasks/{task}/jobs?wait=true`: the job, answered once it has ended.
    pub fn batch_and_wait(&self, task: &str, body: &Value) -> Result<Answer, Error> {
        self.post(&format!("/v1/tasks/{}/jobs?wait=true", segment(task)), body)
    }

    /// `GET /v1/jobs`.
    pub fn jobs(&self) -> Result<Answer, Error> {
        self.get("/v1/jobs")
    }

    /// `GET /v1/jobs/{job}`.
    pub fn job(&self, job: &str) -> Result<Answer, Error> {
        self.get(&format!("/v1/jobs/{}", segment(job)))
    }

    /// `POST /v1/jobs/{job}/cancel`.
    pub fn cancel_job(&self, job: &str) -> Result<Answer, Error> {
        self.post(&format!("/v1/jobs/{}/cancel", segment(job)), &json!({}))
    }

    fn bearer(&self) -> String {
        format!("Bearer {}", self.token)
    }

    fn get(&self, path: &str) -> Result<Answer, Error> {
        let request = self
            .agent
            .get(format!("{}{path}", self.base))
            .config()
            .timeout_global(self.wait)
            .build();
        self.answer(path, request.header("Authorization", self.bearer()).call())
    }

    fn post(&self, path: &str, body: &Value) -> Result<Answer, Error> {
        let request = self
            .agent
            .post(format!("{}{path}", self.base))
            .config()
            .timeout_global(self.wait)
            .build();
        let sent = request
            .header("Authorization", self.bearer())
            .header("Content-Type", "application/json")
            .send(body.to_string());
        self.answer(path, sent)
    }

    fn answer(
        &self,
        path: &str,
        sent: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<Answer, Error> {
        let mut response = sent.map_err(|e| self.failed(path, e))?;
        let status = response.status().as_u16();
        if status == 401 {
            return Err(Error::Unauthorized {
                token_path: self.token_path.clone(),
            });
        }
        let text = response
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER)
            .read_to_string()
            .map_err(|e| self.failed(path, e))?;
        let body = serde_json::from_str(&text).map_err(|e| Error::BadAnswer {
            what: path.to_string(),
            reason: e.to_string(),
        })?;
        Ok(Answer { status, body })
    }
}

impl Client {
    /// A call that got no answer: past the client's own wait, or the daemon unreachable.
    fn failed(&self, path: &str, error: ureq::Error) -> Error {
        match (error, self.wait) {
            (ureq::Error::Timeout(_), Some(wait)) => Error::NoAnswerInTime {
                seconds: wait.as_secs_f64(),
            },
            (error, _) => Error::Unreachable {
                url: format!("{}{path}", self.base),
                reason: error.to_string(),
            },
        }
    }
}

/// A path segment, percent-encoded where it is not a plain id. `.` and `..` are encoded
/// too: sent bare, a client or a proxy may resolve them as the URL's dot-segments, and
/// the daemon must see the name to refuse it.
fn segment(raw: &str) -> String {
    if raw == "." || raw == ".." {
        return raw.bytes().map(|b| format!("%{b:02X}")).collect();
    }
    raw.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_segments_are_encoded() {
        assert_eq!(segment("t-1.a_b"), "t-1.a_b");
        assert_eq!(segment("a/b c"), "a%2Fb%20c");
        assert_eq!(segment(".."), "%2E%2E");
        assert_eq!(segment("."), "%2E");
    }
}
