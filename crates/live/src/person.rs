//! The person's session in the live view (docs/faces.md#live-view): frames out; input, Stop and
//! find sent to the tab shown at once; the other controls through the engine as the
//! person's commands, each beside the session so none holds it; the page's state every
//! beat, read without waiting for the task.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket};
use browser::{Deadline, PersonInput};
use serde::Deserialize;
use serde_json::{Value, json};
use tools::handoff::PersonInputKind;
use tools::{Engine, tool};

use crate::{STATE_EVERY, STEP, Shown, send};

/// What the page sends.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum FromPage {
    Mouse {
        event: String,
        x: f64,
        y: f64,
        #[serde(default = "one")]
        click_count: i64,
        /// The button is down (a move drags).
        #[serde(default)]
        pressed: bool,
    },
    Wheel {
        x: f64,
        y: f64,
        dx: f64,
        dy: f64,
    },
    Key {
        key: String,
        #[serde(default)]
        repeat: bool,
    },
    /// Pasted text, or a composition the person's input method committed.
    Text {
        text: String,
    },
    /// A composition under way.
    Compose {
        text: String,
    },
    Navigate {
        url: String,
    },
    Back,
    Forward,
    Reload,
    Stop,
    Tab {
        id: String,
    },
    NewTab,
    CloseTab,
    Reopen,
    Find {
        text: String,
        #[serde(default)]
        backwards: bool,
    },
    Viewport {
        preset: String,
    },
    Dialog {
        accept: bool,
        text: Option<String>,
    },
    Permission {
        id: u64,
        choice: String,
    },
    Done,
}

fn one() -> i64 {
    1
}

/// How often the page shown is asked whether it answers (a cheap round trip), and how
/// long it has to: a page that does not is shown as not answering, with Reload and Stop.
const PROBE_EVERY: Duration = Duration::from_secs(2);
const PROBE_BUDGET: Duration = Duration::from_secs(2);

/// One person's session: frames out, input and controls in, until Done or the page goes.
/// Controls that go through the engine (a navigation that may take its time, a tab
/// opened) run beside the session, so Stop, the page's state and the frames never wait
/// for them.
pub(crate) async fn serve(
    mut socket: WebSocket,
    engine: Arc<Engine>,
    session: String,
) -> Result<(), String> {
    let mut shown = Shown::default();
    shown.follow(&engine).await;
    let mut view = View::default();
    send(&mut socket, &view.state(&engine, &shown).await).await?;
    let (done, mut finished) = tokio::sync::mpsc::unbounded_channel::<Option<String>>();
    // The controls run one after another, in the order the person gave them (Go, then
    // Close tab, closes the tab the page went to), each bound to the tab shown when it
    // was given; one worker, beside the session, so none holds it.
    let (controls, mut queued) = tokio::sync::mpsc::unbounded_channel::<(
        FromPage,
        Option<String>,
        Arc<tools::CancelSignal>,
    )>();
    let worker = {
        let engine = engine.clone();
        tokio::spawn(async move {
            while let Some((control, tab, cancel)) = queued.recv().await {
                let answer = through_engine(&engine, control, tab, &cancel).await;
                drop(cancel);
                if done.send(answer).is_err() {
                    return;
                }
            }
        })
    };
    let _worker = AbortOnDrop(worker);
    let mut tick = tokio::time::interval(STATE_EVERY);
    let mut probe: Option<tokio::task::JoinHandle<()>> = None;
    let mut probed = tokio::time::Instant::now();
    // The person's controls still running, so Stop can end the loads among them.
    let mut running: Vec<Arc<tools::CancelSignal>> = Vec::new();
    loop {
        tokio::select! {
            frame = shown.next_frame() => {
                if let Some(frame) = frame {
                    send(&mut socket, &frame).await?;
                }
            }
            _ = tick.tick() => {
                if !engine.live_view_session(&session) {
                    return send(&mut socket, &json!({ "type": "ended" })).await;
                }
                shown.follow(&engine).await;
                if probed.elapsed() >= PROBE_EVERY
                    && probe.as_ref().is_none_or(|p| p.is_finished())
                    && let Some((_, tab)) = shown.tab.clone()
                {
                    probed = tokio::time::Instant::now();
                    // The verdict lands in the tab's state (`unresponsive`), which the
                    // next state shows.
                    probe = Some(tokio::spawn(async move {
                        let _ = tab.probe(PROBE_BUDGET, Deadline::after(PROBE_BUDGET * 2)).await;
                    }));
                }
                send(&mut socket, &view.state(&engine, &shown).await).await?;
            }
            Some(answer) = finished.recv() => {
                if let Some(error) = answer {
                    send(&mut socket, &json!({ "type": "error", "message": error })).await?;
                }
                shown.follow(&engine).await;
                send(&mut socket, &view.state(&engine, &shown).await).await?;
            }
            message = socket.recv() => {
                let Some(Ok(message)) = message else { return Ok(()) };
                let Message::Text(text) = message else { continue };
                let Ok(request) = serde_json::from_str::<FromPage>(text.as_str()) else {
                    send(&mut socket, &json!({ "type": "error", "message": "not a live view message" })).await?;
                    continue;
                };
                if !engine.live_view_session(&session) {
                    return send(&mut socket, &json!({ "type": "ended" })).await;
                }
                match request {
                    FromPage::Done => {
                        drop(shown.frames.take());
                        engine.hand_back().await;
                        return send(&mut socket, &json!({ "type": "ended" })).await;
                    }
                    FromPage::Find { text, backwards } => {
                        let Some((_, tab)) = shown.tab.clone() else { continue };
                        engine.person_input_noted(PersonInputKind::Find);
                        let message = match tab.find_text(&text, backwards, Deadline::after(STEP)).await {
                            Ok(found) => json!({ "type": "found", "count": found.count, "found": found.found }),
                            Err(err) => json!({ "type": "error", "message": err.to_string() }),
                        };
                        send(&mut socket, &message).await?;
                    }
                    request => {
                        if matches!(request, FromPage::Stop) {
                            // A browser's Stop ends the navigation under way with its load.
                            for control in running.drain(..) {
                                control.request();
                            }
                        }
                        match at_once(&engine, shown.tab.as_ref(), request) {
                            Ok(Some(error)) => {
                                send(&mut socket, &json!({ "type": "error", "message": error })).await?;
                            }
                            Ok(None) => {}
                            Err(control) => {
                                let cancel = Arc::new(tools::CancelSignal::default());
                                running.retain(|c| Arc::strong_count(c) > 1);
                                running.push(cancel.clone());
                                let tab = shown.tab.as_ref().map(|(id, _)| id.clone());
                                let _ = controls.send((control, tab, cancel));
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Input and Stop, sent to the tab shown at once (a person's input is a stream); the
/// controls that go through the engine are handed back (`Err`). `Ok(Some)` is what went
/// wrong.
fn at_once(
    engine: &Engine,
    current: Option<&(String, browser::Tab)>,
    request: FromPage,
) -> Result<Option<String>, FromPage> {
    let input = match request {
        FromPage::Mouse {
            event,
            x,
            y,
            click_count,
            pressed,
        } if matches!(
            event.as_str(),
            "mousePressed" | "mouseReleased" | "mouseMoved"
        ) =>
        {
            if event == "mousePressed" {
                engine.person_input_noted(PersonInputKind::Pointer);
            }
            PersonInput::Mouse {
                kind: event,
                x,
                y,
                click_count,
                pressed,
            }
        }
        FromPage::Mouse { event, .. } => return Ok(Some(format!("no mouse event {event:?}"))),
        FromPage::Wheel { x, y, dx, dy } => PersonInput::Wheel { x, y, dx, dy },
        FromPage::Key { key, repeat } => {
            engine.person_input_noted(PersonInputKind::Key);
            PersonInput::Key { key, repeat }
        }
        FromPage::Text { text } => {
            engine.person_input_noted(PersonInputKind::Text);
            PersonInput::Text { text }
        }
        FromPage::Compose { text } => PersonInput::Compose { text },
        FromPage::Stop => {
            let Some((_, tab)) = current else {
                return Ok(None);
            };
            return Ok(tab.person_stop().err().map(|e| e.to_string()));
        }
        control => return Err(control),
    };
    let Some((_, tab)) = current else {
        return Ok(None);
    };
    Ok(tab.person_input(&input).err().map(|e| e.to_string()))
}

/// Carries out a control through the engine, as the person; returns what went wrong.
async fn through_engine(
    engine: &Engine,
    control: FromPage,
    tab: Option<String>,
    cancel: &Arc<tools::CancelSignal>,
) -> Option<String> {
    if cancel.is_requested() {
        // Stopped before its turn came.
        return None;
    }
    let (method, params) = match control {
        FromPage::Permission { id, choice } => {
            let choice = match choice.as_str() {
                "deny" => browser::PermissionChoice::Deny,
                "once" => browser::PermissionChoice::Once,
                "always" => browser::PermissionChoice::Always,
                other => return Some(format!("no permission choice {other:?}")),
            };
            return engine.person_permission(id, choice).await.err();
        }
        FromPage::Reopen => return engine.person_reopen().await.err(),
        FromPage::Navigate { url } => (tool::Navigate::NAME, json!({ "url": url, "tabId": tab })),
        FromPage::Back => (tool::Navigate::NAME, json!({ "back": true, "tabId": tab })),
        FromPage::Forward => (
            tool::Navigate::NAME,
            json!({ "forward": true, "tabId": tab }),
        ),
        FromPage::Reload => (
            tool::Navigate::NAME,
            json!({ "reload": true, "tabId": tab }),
        ),
        FromPage::Tab { id } => (tool::Tabs::NAME, json!({ "action": "select", "tabId": id })),
        FromPage::NewTab => (tool::Tabs::NAME, json!({ "action": "new" })),
        FromPage::CloseTab => (tool::Tabs::NAME, json!({ "action": "close", "tabId": tab })),
        FromPage::Viewport { preset } => (
            tool::Viewport::NAME,
            json!({ "preset": preset, "tabId": tab }),
        ),
        FromPage::Dialog { accept, text } => (
            tool::Dialog::NAME,
            json!({ "accept": accept, "promptText": text, "tabId": tab }),
        ),
        _ => return None,
    };
    let envelope = engine
        .person_call_until(method, params, Some(cancel.clone()))
        .await;
    // What the person's own Stop ended is no error to them.
    let stopped = envelope
        .code
        .is_some_and(|c| c.as_str() == "COMMAND_CANCELLED");
    (!envelope.ok && !stopped).then(|| {
        format!(
            "{}: {}",
            envelope.code.map(|c| c.as_str()).unwrap_or_default(),
            envelope.message.unwrap_or_default()
        )
    })
}

/// What the view last knew of the task, kept for the beats when a command holds it.
#[derive(Default)]
struct View {
    tabs: Vec<browser::TabSummary>,
    downloads: Vec<Value>,
    /// The permission request waiting for the person: a bar that vanished whenever a
    /// command held the task would move the page under their pointer.
    permission: Option<browser::PermissionRequest>,
}

impl View {
    /// The page's state for the view: the reason, the tab shown (URL, title, loading or
    /// failed, answering, its viewport), the tabs, an open dialog, a permission request,
    /// the downloads of this hand-off, and whether a closed tab can be reopened.
    async fn state(&mut self, engine: &Engine, shown: &Shown) -> Value {
        if let Some(tabs) = engine.person_tabs_now().await {
            self.tabs = tabs;
        }
        if let Some(downloads) = engine.person_downloads().await {
            self.downloads = downloads;
        }
        if let Some(permission) = engine.person_pending_permission().await {
            self.permission = permission;
        }
        let listed: Vec<Value> = self
            .tabs
            .iter()
            .map(|t| json!({ "id": t.id.to_string(), "title": t.state.title, "url": t.state.url, "active": t.active }))
            .collect();
        // The tab shown reads its own state: it is current even while a command holds
        // the task.
        let current = shown
            .tab
            .as_ref()
            .map(|(_, tab)| (tab.state(), tab.viewport()));
        json!({
            "type": "state", // not a tool name
            "reason": engine.handoff_reason(),
            "url": current.as_ref().map(|(s, _)| s.url.clone()),
            "title": current.as_ref().map(|(s, _)| s.title.clone()),
            "loading": current.as_ref().is_some_and(|(s, _)| s.loading || s.navigating.is_some()),
            "failed": current.as_ref().and_then(|(s, _)| s.failed.clone()),
            "answering": current.as_ref().is_none_or(|(s, _)| !s.unresponsive),
            "viewport": current.as_ref().map(|(_, preset)| preset.name()),
            "tabs": listed,
            "canReopen": engine.person_can_reopen(),
            "downloads": self.downloads,
            "dialog": current
                .as_ref()
                .and_then(|(s, _)| s.open_dialog.as_ref())
                .map(|d| json!({ "kind": d.kind, "message": d.message })),
            "permission": self.permission.as_ref().map(|p| json!({
                "id": p.id,
                "tab": p.tab,
                "permission": p.permission,
                "origin": p.origin,
            })),
        })
    }
}

/// Ends the controls' worker with the session.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
