//! Keyboard input: focus, typing and filling with read-back, keys and chords. What fill
//! accepts for dates, times, colours and numbers is `typed_value.rs`.

use cdp::Deadline;
use cdp::protocol::{dom, input};
use serde_json::json;

use super::Run;
use crate::Error;
use crate::keys::{self, Key};
use crate::snapshot::{Located, Locator};

mod typed_value;

/// What type or fill did.
#[derive(Debug)]
pub(super) struct Edited {
    /// The field holds what was meant: fill's value; for type, what it held plus the
    /// keys (or, in a date or time field, the value they spell).
    pub verified: bool,
    /// What the field holds after (a secret field's only as its length).
    pub value_after: String,
    /// type: the keys sent (into a secret field, only as their count).
    pub keys_sent: Option<String>,
    /// The field is a secret field (`cdp::is_secret_field`): what was typed is a secret.
    pub secret: bool,
}

impl Run<'_> {
    pub(super) async fn focus(&mut self, target: &Located) -> Result<(), Error> {
        self.dispatched = true;
        target
            .session
            .call(
                &dom::Focus {
                    backend_node_id: target.backend_id,
                },
                self.deadline,
            )
            .await?;
        Ok(())
    }

    /// type (append keystrokes) or fill (replace the value) `text`, then read the value
    /// back. For fill the value is a promise: a field that holds something else is
    /// `InputMismatch`. For type the keys are the promise, and what the field holds after
    /// is a fact reported beside them (a page may consume keys and echo them elsewhere).
    /// A secret field's value (a password, a card number, a one-time code) is never
    /// echoed.
    ///
    /// Fill on an input whose value has its own format (date, time, colour, range,
    /// number, …) takes that format or a typed form of it (`typed_value.rs`), refuses
    /// anything else before any input is sent, and sets the value as the browser's own
    /// picker would, so the page's `input` and `change` listeners run.
    pub(super) async fn edit(
        &mut self,
        target: &Located,
        locator: &Locator,
        text: &str,
        replace: bool,
    ) -> Result<Edited, Error> {
        self.require_enabled(target, locator)?;
        if target.node().states.iter().any(|(s, _)| *s == "readonly") {
            return Err(Error::ElementDisabled {
                locator: format!("{locator} (read-only)"),
            });
        }
        let session = &target.session;
        let read = |me: &Self| {
            me.tab.call_on_node(
                session,
                target.backend_id,
                &super::ELEMENT_VALUE,
                vec![json!(cdp::secret_field_selector())],
                me.deadline,
            )
        };
        let before = read(self).await?;
        let secret = before.secret();
        let shown = |v: &str| {
            if secret {
                format!("({} characters, not shown)", v.chars().count())
            } else {
                v.to_string()
            }
        };
        let typed = typed_value::Kind::of(&before.r#type);
        if let (true, Some(typed)) = (replace, typed) {
            let value =
                typed_value::normalise(typed, text).ok_or_else(|| Error::InvalidParams {
                    what: format!(
                        "the value {} for {locator}",
                        if secret {
                            shown(text)
                        } else {
                            format!("{text:?}")
                        }
                    ),
                    reason: typed.formats().to_string(),
                })?;
            self.focus(target).await?;
            self.tab
                .call_on_node(
                    session,
                    target.backend_id,
                    &ELEMENT_SET_VALUE,
                    vec![json!(value)],
                    self.deadline,
                )
                .await?;
            // An input's value is always a string.
            let actual = read(self).await?.held().unwrap_or_default().to_string();
            if actual != value {
                return Err(Error::InputMismatch {
                    expected: shown(&value),
                    actual: shown(&actual),
                });
            }
            return Ok(Edited {
                verified: true,
                value_after: shown(&actual),
                keys_sent: None,
                secret,
            });
        }
        if !before.editable {
            let what = [before.r#type.as_str(), before.tag.as_str(), "element"]
                .into_iter()
                .find(|what| !what.is_empty())
                .unwrap_or_default();
            let reason = match typed {
                Some(typed) => format!(
                    "a {} ({what}) takes no keystrokes; fill it with a value: {}",
                    target.role,
                    typed.formats()
                ),
                None => format!(
                    "a {} ({what}) takes no typed text; use select, check or upload",
                    target.role
                ),
            };
            return Err(Error::InvalidParams {
                what: locator.to_string(),
                reason,
            });
        }
        self.focus(target).await?;
        let script = if replace {
            &ELEMENT_SELECT_CONTENTS
        } else {
            &ELEMENT_CARET_TO_END
        };
        self.tab
            .call_on_node(
                session,
                target.backend_id,
                script,
                Vec::new(),
                self.deadline,
            )
            .await?;
        if replace {
            if text.is_empty() {
                self.press(&keys::parse_chord("Delete")?).await?;
            } else {
                self.tab
                    .session()
                    .call(
                        &input::InsertText {
                            text: text.to_string(),
                        },
                        self.deadline,
                    )
                    .await?;
            }
        } else {
            self.type_text(text).await?;
        }
        // An editable element always holds a value (a field's, or a contenteditable's
        // text).
        let actual = read(self).await?.held().unwrap_or_default().to_string();
        let expected = match typed {
            // Keys typed into a date or time field fill its parts: "03/10/2015" typed
            // holds 2015-03-10.
            Some(typed) if !replace && typed.has_parts() => {
                typed_value::normalise(typed, text).unwrap_or_else(|| text.to_string())
            }
            _ if replace => text.to_string(),
            _ => format!("{}{text}", before.held().unwrap_or_default()),
        };
        // contenteditable's innerText may end with a newline it added itself.
        let matches = actual == expected
            || target.node().role != "textbox" && actual.trim_end() == expected.trim_end();
        if replace && !matches {
            return Err(Error::InputMismatch {
                expected: shown(&expected),
                actual: shown(&actual),
            });
        }
        Ok(Edited {
            verified: matches,
            value_after: shown(&actual),
            keys_sent: (!replace).then(|| shown(text)),
            secret,
        })
    }

    /// Keystrokes for each character; line breaks as Enter.
    pub(super) async fn type_text(&mut self, text: &str) -> Result<(), Error> {
        self.dispatched = true;
        for c in text.chars() {
            if c == '\n' {
                self.press(&keys::parse_chord("Enter")?).await?;
            } else {
                self.key(&keys::char_key(c), 0).await?;
            }
        }
        Ok(())
    }

    pub(super) async fn press(&mut self, chord: &keys::Chord) -> Result<(), Error> {
        self.dispatched = true;
        press_chord(self.tab.session(), chord, self.deadline).await
    }

    /// One key down (typing its text, if any) and up.
    pub(super) async fn key(&mut self, key: &Key, modifiers: i64) -> Result<(), Error> {
        self.dispatched = true;
        press_key(self.tab.session(), key, modifiers, self.deadline).await
    }
}

/// A chord on `session`: its modifiers down, the key down and up, the modifiers up (the
/// agent's `press`), each event answered before the next is sent.
async fn press_chord(
    session: &cdp::Session,
    chord: &keys::Chord,
    deadline: Deadline,
) -> Result<(), Error> {
    for event in chord_events(chord) {
        session.call(&event, deadline).await?;
    }
    Ok(())
}

async fn press_key(
    session: &cdp::Session,
    key: &Key,
    modifiers: i64,
    deadline: Deadline,
) -> Result<(), Error> {
    for event in key_events(key, modifiers) {
        session.call(&event, deadline).await?;
    }
    Ok(())
}

/// The key events of a chord, in order: its modifiers down, the key down (typing its
/// text, if any) and up, the modifiers up.
pub(crate) fn chord_events(chord: &keys::Chord) -> Vec<input::DispatchKeyEvent> {
    let mut events = Vec::new();
    let mut held = 0;
    for modifier in &chord.modifier_keys {
        held |= modifier_mask(&modifier.key);
        events.push(key_event("rawKeyDown", modifier, held));
    }
    events.extend(key_events(&chord.key, chord.modifiers));
    for modifier in chord.modifier_keys.iter().rev() {
        held &= !modifier_mask(&modifier.key);
        events.push(key_event("keyUp", modifier, held));
    }
    events
}

fn key_events(key: &Key, modifiers: i64) -> [input::DispatchKeyEvent; 2] {
    let down = if key.text.is_some() {
        "keyDown"
    } else {
        "rawKeyDown"
    };
    [
        key_event(down, key, modifiers),
        key_event("keyUp", key, modifiers),
    ]
}

fn modifier_mask(key: &str) -> i64 {
    match key {
        "Alt" => 1,
        "Control" => 2,
        "Meta" => 4,
        "Shift" => 8,
        _ => 0,
    }
}

fn key_event(kind: &str, key: &Key, modifiers: i64) -> input::DispatchKeyEvent {
    let text = if kind == "keyDown" {
        key.text.clone()
    } else {
        None
    };
    input::DispatchKeyEvent {
        r#type: kind.to_string(),
        modifiers: (modifiers != 0).then_some(modifiers),
        unmodified_text: text.clone(),
        text,
        key: Some(key.key.clone()),
        code: (!key.code.is_empty()).then(|| key.code.clone()),
        windows_virtual_key_code: (key.key_code != 0).then_some(key.key_code),
        native_virtual_key_code: (key.key_code != 0).then_some(key.key_code),
        auto_repeat: None,
    }
}

/// On a text field: select its contents so typing replaces them; `false` when it has
/// nothing to select.
pub(crate) const ELEMENT_SELECT_CONTENTS: crate::script::Script<bool> =
    crate::script::script!("element_select_contents" => bool);
/// On a text field: caret to the end so typing appends; `false` when it has no caret
/// (email, number) or is no text field.
pub(crate) const ELEMENT_CARET_TO_END: crate::script::Script<bool> =
    crate::script::script!("element_caret_to_end" => bool);
/// On a non-text input (date, color…): set its value and fire input/change; the value
/// it then holds.
pub(crate) const ELEMENT_SET_VALUE: crate::script::Script<String> =
    crate::script::script!("element_set_value" => String);
