//! What a person's live view of a tab needs during a hand-off (docs/faces.md#live-view): the tab's
//! frames as it paints (`Page.startScreencast`, each frame acknowledged so the next comes)
//! and the person's mouse, wheel and keys, sent as trusted input like the agent's.

use cdp::Deadline;
use cdp::protocol::{input, page};
use tokio::sync::mpsc;

use crate::{Error, Tab, keys};

/// One painted frame: a base64 JPEG and the size in CSS px of what it shows.
#[derive(Debug, Clone)]
pub struct Frame {
    pub data: String,
    pub width: f64,
    pub height: f64,
}

/// The frames of one tab, until dropped (which stops the screencast).
#[derive(Debug)]
pub struct Screencast {
    session: cdp::Session,
    events: mpsc::UnboundedReceiver<cdp::RawEvent>,
}

impl Screencast {
    /// The next frame, acknowledged; `None` once the tab is gone.
    pub async fn next(&mut self) -> Option<Frame> {
        while let Some(event) = self.events.recv().await {
            let Some(frame) = event.parse::<page::ScreencastFrame>() else {
                continue;
            };
            let _ = self.session.send(&page::ScreencastFrameAck {
                session_id: frame.session_id,
            });
            return Some(Frame {
                data: frame.data,
                width: frame.metadata.device_width,
                height: frame.metadata.device_height,
            });
        }
        None
    }
}

impl Drop for Screencast {
    fn drop(&mut self) {
        let _ = self.session.send(&page::StopScreencast {});
    }
}

/// The person's input, in CSS px of the viewport.
#[derive(Debug, Clone)]
pub enum PersonInput {
    /// `mousePressed`, `mouseReleased` or `mouseMoved`.
    Mouse {
        kind: String,
        x: f64,
        y: f64,
        click_count: i64,
    },
    Wheel {
        x: f64,
        y: f64,
        dx: f64,
        dy: f64,
    },
    /// One key pressed and released: a character (`a`, `É`) or a named key (`Enter`,
    /// `Backspace`, `Control+A`).
    Key {
        key: String,
    },
}

impl Tab {
    /// Starts streaming this tab's frames (brought to the front: a tab behind another
    /// paints nothing).
    pub async fn screencast(&self, deadline: Deadline) -> Result<Screencast, Error> {
        let events = self.session().subscribe();
        self.session()
            .call(&page::BringToFront {}, deadline)
            .await?;
        self.session()
            .call(
                &page::StartScreencast {
                    format: "jpeg".into(),
                    quality: Some(70),
                    every_nth_frame: Some(1),
                },
                deadline,
            )
            .await?;
        Ok(Screencast {
            session: self.session().clone(),
            events,
        })
    }

    /// Sends the person's input to the page as trusted input, without waiting for the
    /// page to take it: a person's input is a stream, and a handler that opens a dialog
    /// holds its event's answer until the dialog is answered (in the live view).
    pub fn person_input(&self, input: &PersonInput) -> Result<(), Error> {
        let session = self.session();
        match input {
            PersonInput::Mouse {
                kind,
                x,
                y,
                click_count,
            } => {
                let pressing = kind != "mouseMoved";
                session.send(&input::DispatchMouseEvent {
                    r#type: kind.clone(),
                    x: *x,
                    y: *y,
                    button: Some(if pressing { "left" } else { "none" }.into()),
                    buttons: Some(i64::from(kind == "mousePressed")),
                    click_count: pressing.then_some(*click_count),
                    ..Default::default()
                })?;
            }
            PersonInput::Wheel { x, y, dx, dy } => {
                session.send(&input::DispatchMouseEvent {
                    r#type: "mouseWheel".into(),
                    x: *x,
                    y: *y,
                    delta_x: Some(*dx),
                    delta_y: Some(*dy),
                    ..Default::default()
                })?;
            }
            PersonInput::Key { key } => {
                let mut chars = key.chars();
                let chord = match (chars.next(), chars.next()) {
                    (Some(c), None) => keys::Chord {
                        modifiers: 0,
                        modifier_keys: Vec::new(),
                        key: keys::char_key(c),
                    },
                    _ => keys::parse_chord(key)?,
                };
                for event in crate::actions::chord_events(&chord) {
                    session.send(&event)?;
                }
            }
        }
        Ok(())
    }
}
