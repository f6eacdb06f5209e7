//! A command's envelope, assembled once from its result and what its `Ctx` gathered:
//! status, code, how far it got, the page, the events, and the JSON pointers of
//! everything in it a page wrote.

use std::time::Instant;

use serde_json::Value;

use crate::ctx::Ctx;
use crate::envelope::{Envelope, Execution, Status};
use crate::error::{ActionStatus, Code, ToolError};

/// The envelope of a command: a success, `partial` (the tool called `ctx.partial`: the
/// code and reason, beside the tool's data saying what was done) or an error — one
/// construction for all three.
pub(super) fn finish(
    command_id: String,
    ctx: &Ctx<'_>,
    result: Result<Value, ToolError>,
    started: Instant,
) -> Envelope {
    let dispatched = if ctx.dispatch_started {
        ActionStatus::Completed
    } else {
        ActionStatus::NotStarted
    };
    let in_error = |error: &ToolError| -> Vec<String> {
        error
            .untrusted
            .iter()
            .map(|p| format!("/data{p}"))
            .collect()
    };
    let (status, error, data, in_data, action_status) = match result {
        Ok(data) => match ctx.partial.clone() {
            None => (
                Status::Success,
                None,
                data,
                ctx.untrusted.clone(),
                dispatched,
            ),
            Some(error) => {
                let mut data = data;
                if let (Value::Object(data), Some(Value::Object(extra))) =
                    (&mut data, error.data.as_deref())
                {
                    for (key, value) in extra {
                        data.entry(key.clone()).or_insert_with(|| value.clone());
                    }
                }
                let mut in_data = ctx.untrusted.clone();
                in_data.extend(in_error(&error));
                let action_status = error.action_status.unwrap_or(dispatched);
                (Status::Partial, Some(error), data, in_data, action_status)
            }
        },
        Err(error) => {
            let action_status = error.action_status.unwrap_or(
                if !ctx.dispatch_started || error.code.is_refusal() {
                    ActionStatus::NotStarted
                } else if matches!(
                    error.code,
                    Code::CommandTimeout
                        | Code::CommandCancelled
                        | Code::PageUnresponsive
                        | Code::NavigationTimeout
                        // The read after the action was dropped: what it did is not known.
                        | Code::PageTooLarge
                ) {
                    ActionStatus::Unknown
                } else {
                    ActionStatus::Completed
                },
            );
            let data = error
                .data
                .as_deref()
                .cloned()
                .unwrap_or_else(|| Value::Object(Default::default()));
            let in_data = in_error(&error);
            (Status::Error, Some(error), data, in_data, action_status)
        }
    };
    let ok = status == Status::Success;
    let (code, message, hint) = match error {
        Some(error) => (Some(error.code), Some(error.message), Some(error.hint)),
        None => (None, None, None),
    };
    let mut envelope = Envelope {
        ok,
        status,
        code,
        message,
        hint,
        execution: Execution {
            command_id,
            stage: if ok { "done" } else { ctx.stage },
            dispatch_started: ctx.dispatch_started,
            action_status,
            retry_safe: action_status == ActionStatus::NotStarted,
            duration_ms: started.elapsed().as_millis() as u64,
            started: None,
            cancelled: false,
        },
        verification: ctx.verification.clone(),
        task: "not_evaluated",
        page: ctx.page.clone(),
        data,
        events: ctx.events.clone(),
        untrusted: Vec::new(),
        image: None,
    };
    envelope.untrusted = page_content(&envelope, in_data);
    envelope
}

/// Every place in `envelope` that holds what came from the page: the data's (`in_data`,
/// known from the output's types), and the envelope's own — the page's URL and title,
/// the evidence of an expectation, a dialog's message, a new tab's URL, a download's file
/// name, URL and path, the origin a permission request came from, the URLs of tabs
/// reopened after a crash. A page writes each of these (a URL by `history.replaceState`,
/// a file name by a `download` attribute), so none is ever candor's own words.
fn page_content(envelope: &Envelope, in_data: Vec<String>) -> Vec<String> {
    let mut pointers = Vec::new();
    if let Some(page) = &envelope.page {
        for (key, value) in [("url", &page.url), ("title", &page.title)] {
            if !value.is_empty() {
                pointers.push(format!("/page/{key}"));
            }
        }
    }
    pointers.extend(in_data);
    let events = &envelope.events;
    let mut each = |list: &Option<Value>, at: &str, keys: &[&str]| {
        for (index, item) in list.iter().flat_map(listed).enumerate() {
            for key in keys {
                if item.get(*key).is_some_and(|v| !v.is_null()) {
                    pointers.push(format!("{at}/{index}/{key}"));
                }
            }
        }
    };
    each(
        &events.download,
        "/events/download",
        &["name", "url", "path"],
    );
    each(&events.permission, "/events/permission", &["origin"]);
    each(&events.logs, "/events/logs", &["lines"]);
    if let Some(recovered) = &events.recovered {
        each(
            &recovered.get("tabs").cloned(),
            "/events/recovered/tabs",
            &["url"],
        );
    }
    if events
        .new_tab
        .as_ref()
        .is_some_and(|tab| tab.get("url").is_some())
    {
        pointers.push("/events/newTab/url".into());
    }
    if let Some(expect) = &envelope.verification.expect {
        if expect.get("actual").is_some() {
            pointers.push("/verification/expect/actual".into());
        }
        for (index, _) in expect["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            pointers.push(format!("/verification/expect/conditions/{index}/actual"));
        }
    }
    if let Some(dialog) = &envelope.events.dialog {
        if dialog.get("message").is_some() {
            pointers.push("/events/dialog/message".into());
        }
        for list in ["first", "last"] {
            for (index, _) in dialog[list].as_array().into_iter().flatten().enumerate() {
                pointers.push(format!("/events/dialog/{list}/{index}/message"));
            }
        }
    }
    pointers
}

/// The items of an event that is a list.
fn listed(value: &Value) -> impl Iterator<Item = &Value> {
    value.as_array().into_iter().flatten()
}
