//! A request sent to the daemon: one blocking HTTP call through the client, and when the
//! task is missing, the task started and the call made again.

use serde_json::{Value, json};
use tools::tool;

use super::args::CallArgs;
use super::request::Request;
use crate::BrowserArgs;
use crate::client::{Session, Started};

/// Sends `request` for `task` and returns the daemon's answer: a tool call or a batch that
/// finds the task missing starts it and is sent again.
pub(super) fn send(
    session: &Session,
    task: &str,
    request: &Request,
    call: &CallArgs,
    browser: &BrowserArgs,
) -> anyhow::Result<Value> {
    // The verb's own calls wait at most `--timeout`; starting a missing task (a browser
    // launched) is the session's, as long as it takes.
    let client = session.client().clone().waiting_at_most(call.timeout);
    let answer = match request {
        Request::Tool { method, params } => {
            // A wait for a person gets the command time it asks for.
            let waited = (method == tool::Handoff::NAME)
                .then(|| params["timeoutMs"].as_u64())
                .flatten()
                .map(|ms| ms.saturating_add(1_000));
            let settings = &browser.settings;
            let timeout = settings
                .sources
                .command_timeout_ms
                .is_flag()
                .then_some(settings.command_timeout_ms)
                .or(waited);
            let first = client.command(task, method, params, timeout, call.sensitive)?;
            if first.body["code"] != "TASK_NOT_FOUND" {
                first
            } else {
                match session.start_task(task, browser)? {
                    Started::Running => {
                        client.command(task, method, params, timeout, call.sensitive)?
                    }
                    Started::Refused(envelope) => return Ok(envelope),
                }
            }
        }
        Request::Start(state) => {
            client.start_task(&session.start_body(task, browser, state.as_deref()))?
        }
        Request::Tasks => client.tasks()?,
        Request::Stop(id) => client.stop_task(id)?,
        Request::Cancel(id) => client.cancel(id)?,
        Request::Diagnose(limit) => client.diagnostics(task, *limit)?,
        Request::Batch { body, wait, .. } => {
            let post = || match wait {
                true => client.batch_and_wait(task, body),
                false => client.batch(task, body),
            };
            let first = post()?;
            if first.body["code"] != "TASK_NOT_FOUND" {
                first
            } else {
                match session.start_task(task, browser)? {
                    Started::Running => post()?,
                    Started::Refused(envelope) => return Ok(envelope),
                }
            }
        }
        Request::FlowExport => client.command(
            task,
            tool::Flow::NAME,
            &json!({ "action": "export" }),
            None,
            false,
        )?,
        Request::Refused(error) => anyhow::bail!("{}", error.message),
        Request::Job(id) => client.job(id)?,
        Request::Jobs => client.jobs()?,
        Request::CancelJob(id) => client.cancel_job(id)?,
    };
    Ok(answer.body)
}
