//! What a person's live view of a tab needs during a hand-off (docs/faces.md#live-view): the tab's
//! frames as it paints (`Page.startScreencast`, each frame acknowledged so the next comes);
//! the person's mouse (as touch under a touch preset), wheel, keys, pasted text and input
//! method compositions, sent as trusted input like the agent's; stopping a load or a
//! script that does not return; and finding text in the page.

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
    /// `mousePressed`, `mouseReleased` or `mouseMoved`; `pressed` when the button is down
    /// (a move then drags). Under a touch preset it is one finger: pressed, moved while
    /// down, lifted.
    Mouse {
        kind: String,
        x: f64,
        y: f64,
        click_count: i64,
        pressed: bool,
    },
    Wheel {
        x: f64,
        y: f64,
        dx: f64,
        dy: f64,
    },
    /// One key pressed and released: a character (`a`, `É`) or a named key (`Enter`,
    /// `Backspace`, `Control+A`); `repeat` when the person holds it down.
    Key {
        key: String,
        repeat: bool,
    },
    /// Text inserted at once, as an input method commits it: a paste, or a composition
    /// the person finished (Chinese, Japanese).
    Text {
        text: String,
    },
    /// A composition under way: shown in the page's field, not committed yet.
    Compose {
        text: String,
    },
}

/// What finding text in the page found.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
pub struct Found {
    /// Matches in the page's text (case aside).
    pub count: u64,
    /// A match was selected and scrolled into view.
    pub found: bool,
}

/// Finds text as a browser's find bar does (`js/find_text.js`).
const FIND_TEXT: crate::script::Script<Found> = crate::script::script!("find_text" => Found);

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
                click_count: _,
                pressed,
            } if self.touch() => {
                let (kind, point) = match kind.as_str() {
                    "mousePressed" => ("touchStart", Some((*x, *y))),
                    "mouseMoved" if *pressed => ("touchMove", Some((*x, *y))),
                    "mouseReleased" => ("touchEnd", None),
                    // A finger that does not touch the screen is nowhere.
                    _ => return Ok(()),
                };
                session.send(&input::DispatchTouchEvent {
                    r#type: kind.into(),
                    touch_points: point
                        .map(|(x, y)| input::TouchPoint { x, y })
                        .into_iter()
                        .collect(),
                })?;
            }
            PersonInput::Mouse {
                kind,
                x,
                y,
                click_count,
                pressed,
            } => {
                let pressing = kind != "mouseMoved";
                session.send(&input::DispatchMouseEvent {
                    r#type: kind.clone(),
                    x: *x,
                    y: *y,
                    button: Some(if pressing { "left" } else { "none" }.into()),
                    buttons: Some(i64::from(*pressed || kind == "mousePressed")),
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
            PersonInput::Key { key, repeat } => {
                let mut chars = key.chars();
                let chord = match (chars.next(), chars.next()) {
                    (Some(c), None) => keys::Chord {
                        modifiers: 0,
                        modifier_keys: Vec::new(),
                        key: keys::char_key(c),
                    },
                    _ => keys::parse_chord(key)?,
                };
                for mut event in crate::actions::chord_events(&chord) {
                    let held = event.key.as_deref() == Some(chord.key.key.as_str())
                        && event.r#type != "keyUp";
                    if *repeat && held {
                        event.auto_repeat = Some(true);
                    }
                    session.send(&event)?;
                }
            }
            PersonInput::Text { text } => {
                session.send(&input::InsertText { text: text.clone() })?;
            }
            PersonInput::Compose { text } => {
                let end = i64::try_from(text.encode_utf16().count()).unwrap_or(i64::MAX);
                session.send(&input::ImeSetComposition {
                    text: text.clone(),
                    selection_start: end,
                    selection_end: end,
                })?;
            }
        }
        Ok(())
    }

    /// The person's Stop: the load under way stops where it is, and a script that has
    /// not returned (the page does not answer) is ended, so the page answers again.
    pub fn person_stop(&self) -> Result<(), Error> {
        let session = self.session();
        session.send(&page::StopLoading {})?;
        if self.state().unresponsive {
            session.send(&cdp::protocol::runtime::TerminateExecution {})?;
        }
        Ok(())
    }

    /// Finds `text` in the page, as a browser's find bar does: the next match (the
    /// previous one, `backwards`) selected and scrolled into view, and how many there are.
    pub async fn find_text(
        &self,
        text: &str,
        backwards: bool,
        deadline: Deadline,
    ) -> Result<Found, Error> {
        self.call_script(&FIND_TEXT, vec![text.into(), backwards.into()], deadline)
            .await
    }
}
