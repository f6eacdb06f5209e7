//! What an `act` answer says of the page around the action: the page and the dialogs
//! the command raised, an upload's outcome, the tabs it opened.

use serde_json::{Value, json};

use crate::ctx::Ctx;
use crate::error::ToolError;

/// The page and the dialogs raised since `dialogs_before` into the envelope.
pub(super) async fn report(
    ctx: &mut Ctx<'_>,
    tab_id: browser::TabId,
    tab: &browser::Tab,
    dialogs_before: u64,
) {
    let state = match tab.refresh_info(ctx.deadline).await {
        Ok(state) => state,
        Err(_) => tab.state(),
    };
    ctx.events.dialog = dialog_event(&tab.dialogs_since(dialogs_before));
    ctx.report_page(tab_id, &state);
}

/// `events.dialog` (docs/acting.md#dialogs): how many dialogs the command raised and the last one's
/// type, message and answer; with several, the first and last few (`first`, `last`) and
/// the rest counted by type and answer (`omitted`). `None` when there were none.
fn dialog_event(report: &browser::DialogReport) -> Option<Value> {
    let latest = report.latest()?;
    let record = |d: &browser::DialogRecord| json!({ "type": d.kind, "message": d.message, "answer": d.answer });
    let mut event = record(latest);
    event["count"] = json!(report.count);
    if report.count > 1 {
        event["first"] = report.first.iter().map(record).collect();
        event["last"] = report.last.iter().map(record).collect();
    }
    let omitted: u64 = report.omitted.values().sum();
    if omitted > 0 || report.lost > 0 {
        event["omitted"] = json!({
            "count": omitted + report.lost,
            "between": report
                .omitted
                .iter()
                .map(|((kind, answer), count)| json!({ "type": kind, "answer": answer, "count": count }))
                .collect::<Vec<_>>(),
        });
        if report.lost > 0 {
            event["omitted"]["notKept"] = json!(report.lost);
        }
    }
    Some(event)
}

/// An upload's result: what the input holds, and whether it reached its server — from
/// the response to `responseUrl`, else `"unknown"` with a note saying how to know.
pub(super) fn upload_json(upload: &browser::UploadOutcome, framework_accepted: bool) -> Value {
    let mut out = json!({
        "fileSelected": upload.file_selected,
        "inputReadback": match &upload.input_readback {
            Ok(readback) => json!({
                "connected": readback.connected,
                "count": readback.count,
                "names": readback.names,
                "sizes": readback.sizes,
            }),
            Err(error) => json!({ "error": error }),
        },
        "uploadCompleted": upload.completed().map_or(json!("unknown"), Value::Bool),
        "frameworkAccepted": if framework_accepted { json!(true) } else { json!("unknown") },
    });
    match &upload.watch {
        None => {
            out["note"] = json!(
                "uploadCompleted is unknown: give responseUrl (a glob or a substring of the URL the page sends the file to) to wait for the server's answer"
            );
        }
        Some(watch) => match &watch.response {
            Some(response) => {
                let mut answered = json!({
                    "url": response.url,
                    "status": response.status,
                    "ok": response.ok,
                });
                if let Some(error) = &response.error {
                    answered["error"] = json!(error);
                }
                out["response"] = answered;
            }
            None => {
                out["note"] = json!(format!(
                    "uploadCompleted is unknown: no response to a request matching {:?} came within {} ms (the page may send the file later, on submit)",
                    watch.pattern.as_str(),
                    watch.budget.as_millis()
                ));
            }
        },
    }
    out
}

/// Tabs opened by the page during the command become task tabs; with `wait`, waits a
/// moment for one. Returns the first.
pub(super) async fn adopt_new_tabs(
    ctx: &mut Ctx<'_>,
    wait: bool,
) -> Result<Option<(browser::TabId, browser::Tab)>, ToolError> {
    let deadline = ctx.deadline;
    let task = ctx.task().await?;
    let opened = task.adopt_new_tabs(wait, deadline).await?;
    let first = opened.first().cloned();
    if let Some((id, tab)) = &first {
        if wait {
            task.select(&id.to_string())?;
            // The tab asked for is the one acted on next: let its page load first.
            tab.wait_until_loaded(deadline).await;
        }
        let state = tab.state();
        ctx.events.new_tab =
            Some(json!({ "tabId": id.to_string(), "url": state.url, "current": wait }));
    }
    Ok(first)
}
