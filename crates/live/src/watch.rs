//! The watch view (docs/faces.md#watch-view): the task's current tab as it paints, for a person
//! who looks on while the agent keeps driving. It follows the tab the agent works in and
//! shows, as a strip, the agent's last commands and how they ended (never their params).
//! It sends nothing to the page: any input is refused. Its one control is **Take over**,
//! which begins a hand-off (the agent locked out from then on) and hands the watcher the
//! hand-off's live view. The door is the live view's, with a token and cookie of its own.

use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket};
use serde::Deserialize;
use serde_json::{Value, json};
use tools::Engine;

use crate::{STATE_EVERY, Shown, send};

/// How many of the agent's last commands the strip shows.
const STRIP: usize = 8;

/// What the watch page sends.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum FromWatcher {
    TakeOver,
}

/// One watcher's session: frames and state out, until they take over or the page goes.
pub(crate) async fn serve(
    mut socket: WebSocket,
    engine: Arc<Engine>,
    session: String,
) -> Result<(), String> {
    let mut shown = Shown::default();
    shown.follow(&engine).await;
    send(&mut socket, &state(&engine).await).await?;
    let mut tick = tokio::time::interval(STATE_EVERY);
    loop {
        tokio::select! {
            frame = shown.next_frame() => {
                if let Some(frame) = frame {
                    send(&mut socket, &frame).await?;
                }
            }
            _ = tick.tick() => {
                if !engine.watch_view_session(&session) {
                    return send(&mut socket, &json!({ "type": "ended" })).await;
                }
                shown.follow(&engine).await;
                send(&mut socket, &state(&engine).await).await?;
            }
            message = socket.recv() => {
                let Some(Ok(message)) = message else { return Ok(()) };
                let Message::Text(text) = message else { continue };
                match serde_json::from_str::<FromWatcher>(text.as_str()) {
                    Ok(FromWatcher::TakeOver) => match engine.watcher_takes_over().await {
                        Ok(url) => {
                            drop(shown.frames.take());
                            return send(&mut socket, &json!({ "type": "takeOver", "url": url })).await;
                        }
                        Err(error) => {
                            send(&mut socket, &json!({ "type": "error", "message": error })).await?;
                        }
                    },
                    Err(_) => {
                        send(&mut socket, &json!({
                            "type": "error",
                            "message": "this view only watches: nothing was sent to the page; take over to act",
                        })).await?;
                    }
                }
            }
        }
    }
}

/// What the watcher sees besides the frames: who drives, the tab, the tabs, and the
/// agent's last commands.
async fn state(engine: &Engine) -> Value {
    let tabs = engine.tabs_now().await.unwrap_or_default();
    let current = tabs.iter().find(|t| t.active);
    json!({
        "type": "state", // not a tool name
        "mode": engine.handoff_mode(),
        "url": current.map(|t| t.state.url.clone()),
        "title": current.map(|t| t.state.title.clone()),
        "tabs": tabs
            .iter()
            .map(|t| json!({ "id": t.id.to_string(), "title": t.state.title, "url": t.state.url, "active": t.active }))
            .collect::<Vec<_>>(),
        "commands": engine.recent_commands(STRIP),
    })
}
