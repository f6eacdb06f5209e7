//! Acting with trusted input (SPEC §6): events dispatched by the browser
//! (`Input.dispatchMouseEvent`, `dispatchKeyEvent`, `insertText`) at the element's
//! visible centre after scrolling it into view — never `element.click()`.
//!
//! Before anything is dispatched the element is checked: found exactly once, shown,
//! enabled, and actually hit at the point it would be clicked (a different element on
//! top is `ElementOccluded`, naming it). Every failure says whether input had already
//! been sent ([`ActFailure::dispatched`]), so the caller never claims more than happened.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use cdp::Deadline;
use cdp::protocol::{dom, input, page};
use serde_json::{Value, json};

use crate::keys::{self, Key};
use crate::script::{self, Script};
use crate::snapshot::{Located, Locator};
use crate::{Error, PageState, Tab};

/// What to do to the element.
#[derive(Debug, Clone)]
pub enum Action {
    Click,
    DoubleClick,
    Hover,
    Focus,
    /// Append keystrokes.
    Type {
        text: String,
    },
    /// Replace the value.
    Fill {
        value: String,
    },
    /// A key or chord, e.g. `Enter`, `Control+A`; to the element if a locator is given,
    /// else to whatever has focus.
    Press {
        keys: String,
    },
    /// `<select>` options, by value or label.
    Select {
        values: Vec<String>,
    },
    Check,
    Uncheck,
    /// By a delta (mouse wheel), or the element into view.
    Scroll {
        dx: f64,
        dy: f64,
    },
    /// Press on the element, move to `to`, release there.
    Drag {
        to: Locator,
    },
    /// Files into a file input; with `via_trigger` the locator is the button that opens
    /// the file chooser, which is intercepted.
    Upload {
        files: Vec<PathBuf>,
        via_trigger: bool,
    },
}

impl Action {
    pub fn name(&self) -> &'static str {
        match self {
            Action::Click => "click",
            Action::DoubleClick => "dblclick",
            Action::Hover => "hover",
            Action::Focus => "focus",
            Action::Type { .. } => "type",
            Action::Fill { .. } => "fill",
            Action::Press { .. } => "press",
            Action::Select { .. } => "select",
            Action::Check => "check",
            Action::Uncheck => "uncheck",
            Action::Scroll { .. } => "scroll",
            Action::Drag { .. } => "drag",
            Action::Upload { .. } => "upload",
        }
    }
}

/// What an action did.
#[derive(Debug, Clone, Default)]
pub struct ActOutcome {
    pub role: String,
    pub name: String,
    pub r#ref: Option<String>,
    /// The element the ref named was gone; a unique same role+name stand-in was used.
    pub relocated: bool,
    /// Where the pointer acted, in the page's viewport (CSS pixels).
    pub point: Option<(f64, f64)>,
    /// type/fill: the value read back equals what was meant.
    pub input_value_verified: Option<bool>,
    /// check/uncheck: whether the state had to change.
    pub changed: Option<bool>,
    /// select: the options now selected (`{value, label}`).
    pub selected: Option<Value>,
    /// scroll: the page's scroll position after.
    pub scroll: Option<(f64, f64)>,
    pub upload: Option<Value>,
    pub navigated: bool,
    /// No navigation was still under way when the action returned.
    pub settled: bool,
}

/// A failed action, and whether any input had reached the page.
#[derive(Debug, Clone)]
pub struct ActFailure {
    pub error: Error,
    pub dispatched: bool,
}

/// Extra switches of an action.
#[derive(Debug, Clone, Default)]
pub struct ActOptions {
    /// type/fill: press Enter after the value was read back correctly.
    pub submit: bool,
}

/// The most an action waits for a navigation it started to load.
const SETTLE_LIMIT: Duration = Duration::from_secs(10);
/// The most an upload trigger waits for its file chooser.
const CHOOSER_LIMIT: Duration = Duration::from_secs(5);

/// Tracks whether input was sent, so every error can say so.
struct Run<'a> {
    tab: &'a Tab,
    deadline: Deadline,
    dispatched: bool,
}

impl Tab {
    /// Performs `action` on the element `locator` names (some actions need none).
    pub async fn act(
        &self,
        locator: Option<&Locator>,
        action: &Action,
        options: &ActOptions,
        deadline: Deadline,
    ) -> Result<ActOutcome, ActFailure> {
        let mut run = Run {
            tab: self,
            deadline,
            dispatched: false,
        };
        let before = self.state();
        let result = run.act(locator, action, options).await;
        let dispatched = run.dispatched;
        match result {
            Ok(mut outcome) => {
                outcome.settled = self.settle(&before, deadline).await;
                outcome.navigated = self.state().navigations > before.navigations;
                Ok(outcome)
            }
            Err(error) => Err(ActFailure { error, dispatched }),
        }
    }

    /// After input: one round trip into the page, so whatever the input started
    /// synchronously (handlers, default actions) has run and been reported; then, if a
    /// navigation began, its commit and load, within `deadline` and at most
    /// [`SETTLE_LIMIT`]. Returns whether the page settled.
    pub(crate) async fn settle(&self, before: &PageState, deadline: Deadline) -> bool {
        if self.evaluate_one(deadline).await.is_err() {
            return false;
        }
        let now = self.state();
        if !now.loading && now.navigations == before.navigations {
            return true;
        }
        let limit = deadline.within(SETTLE_LIMIT);
        let navigations = before.navigations;
        self.wait_state(
            "the page to settle after the action",
            limit,
            Instant::now(),
            |s| {
                s.crashed
                    || s.closed
                    || !s.loading && (s.navigations > navigations || s.loaded_loader == s.loader)
            },
        )
        .await
        .is_ok()
    }

    /// Calls a page-side script with `this` bound to the DOM node `backend_id`.
    pub(crate) async fn call_on_node(
        &self,
        session: &cdp::Session,
        backend_id: i64,
        script: &Script,
        arguments: Vec<Value>,
        deadline: Deadline,
    ) -> Result<Value, Error> {
        let resolved = session
            .call(
                &dom::ResolveNode {
                    backend_node_id: backend_id,
                },
                deadline,
            )
            .await?;
        let object_id = resolved
            .object
            .object_id
            .ok_or_else(|| Error::ElementNotFound {
                locator: format!("node {backend_id}"),
                reason: "it is no longer in the page".into(),
            })?;
        let call = cdp::protocol::runtime::CallFunctionOn {
            function_declaration: script.source.to_string(),
            object_id: Some(object_id),
            arguments: arguments
                .into_iter()
                .map(|value| cdp::protocol::runtime::CallArgument {
                    value: Some(value),
                    object_id: None,
                })
                .collect(),
            return_by_value: Some(true),
            await_promise: Some(true),
            ..Default::default()
        };
        let reply = session.call(&call, deadline).await?;
        if let Some(details) = reply.exception_details {
            return Err(Error::Script {
                class: details
                    .exception
                    .as_ref()
                    .and_then(|e| e.class_name.clone())
                    .unwrap_or_else(|| "Error".into()),
                message: details.text,
            });
        }
        Ok(reply.result.value.unwrap_or(Value::Null))
    }
}

impl Run<'_> {
    async fn act(
        &mut self,
        locator: Option<&Locator>,
        action: &Action,
        options: &ActOptions,
    ) -> Result<ActOutcome, Error> {
        if let Action::Press { keys } = action
            && locator.is_none()
        {
            let chord = keys::parse_chord(keys)?;
            self.press(&chord).await?;
            return Ok(ActOutcome::default());
        }
        if let Action::Scroll { dx, dy } = action
            && locator.is_none()
        {
            return self.wheel(*dx, *dy).await;
        }
        let locator = locator.ok_or_else(|| Error::InvalidParams {
            what: action.name().into(),
            reason: "needs an element: ref, role (+ name), or selector".into(),
        })?;
        let target = self.tab.locate(locator, self.deadline).await?;
        let mut outcome = ActOutcome {
            role: target.role.clone(),
            name: target.name.clone(),
            r#ref: target.r#ref.clone(),
            relocated: target.relocated,
            ..ActOutcome::default()
        };
        match action {
            Action::Click | Action::DoubleClick | Action::Hover => {
                let (x, y) = self
                    .pointer_target(&target, locator, !matches!(action, Action::Hover))
                    .await?;
                let clicks = match action {
                    Action::Click => 1,
                    Action::DoubleClick => 2,
                    _ => 0,
                };
                self.mouse(x, y, clicks).await?;
                outcome.point = Some((x, y));
            }
            Action::Focus => {
                self.require_shown(&target, locator)?;
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
            }
            Action::Type { text } => {
                let (verified, _) = self.edit(&target, locator, text, false).await?;
                outcome.input_value_verified = Some(verified);
                if options.submit {
                    self.press(&keys::parse_chord("Enter")?).await?;
                }
            }
            Action::Fill { value } => {
                let (verified, _) = self.edit(&target, locator, value, true).await?;
                outcome.input_value_verified = Some(verified);
                if options.submit {
                    self.press(&keys::parse_chord("Enter")?).await?;
                }
            }
            Action::Press { keys } => {
                let chord = keys::parse_chord(keys)?;
                self.require_shown(&target, locator)?;
                self.focus(&target).await?;
                self.press(&chord).await?;
            }
            Action::Select { values } => {
                self.require_enabled(&target, locator)?;
                outcome.selected = Some(self.select(&target, locator, values).await?);
            }
            Action::Check | Action::Uncheck => {
                let want = matches!(action, Action::Check);
                let now = target.checked().ok_or_else(|| Error::InvalidParams {
                    what: locator.to_string(),
                    reason: format!(
                        "a {} cannot be checked; check works on checkboxes, radios and switches",
                        target.role
                    ),
                })?;
                if now == want {
                    outcome.changed = Some(false);
                } else {
                    let (x, y) = self.pointer_target(&target, locator, true).await?;
                    self.mouse(x, y, 1).await?;
                    outcome.point = Some((x, y));
                    outcome.changed = Some(true);
                    let read = self
                        .tab
                        .call_on_node(
                            &target.session,
                            target.backend_id,
                            &script::ELEMENT_VALUE,
                            Vec::new(),
                            self.deadline,
                        )
                        .await?;
                    if read["checked"].as_bool() != Some(want) {
                        return Err(Error::InputMismatch {
                            expected: if want { "checked" } else { "unchecked" }.into(),
                            actual: if want { "unchecked" } else { "checked" }.into(),
                        });
                    }
                }
            }
            Action::Scroll { .. } => {
                self.require_shown(&target, locator)?;
                self.dispatched = true;
                target
                    .session
                    .call(
                        &dom::ScrollIntoViewIfNeeded {
                            backend_node_id: target.backend_id,
                        },
                        self.deadline,
                    )
                    .await?;
                outcome.scroll = Some(self.scroll_position().await?);
            }
            Action::Drag { to } => {
                let from = self.pointer_target(&target, locator, true).await?;
                let destination = self.tab.locate(to, self.deadline).await?;
                self.require_shown(&destination, to)?;
                let to_point = self.point_of(&destination).await?;
                self.drag(from, to_point).await?;
                outcome.point = Some(to_point);
            }
            Action::Upload { files, via_trigger } => {
                outcome.upload = Some(self.upload(&target, locator, files, *via_trigger).await?);
            }
        }
        Ok(outcome)
    }

    fn require_shown(&self, target: &Located, locator: &Locator) -> Result<(), Error> {
        if target.visible {
            Ok(())
        } else {
            Err(Error::ElementNotVisible {
                locator: locator.to_string(),
                reason: "it is hidden, clipped away or has no size".into(),
            })
        }
    }

    fn require_enabled(&self, target: &Located, locator: &Locator) -> Result<(), Error> {
        self.require_shown(target, locator)?;
        if target.disabled() {
            return Err(Error::ElementDisabled {
                locator: locator.to_string(),
            });
        }
        Ok(())
    }

    /// Shown, enabled, scrolled into view, and hit at its centre: the point to act at,
    /// in the page's viewport.
    async fn pointer_target(
        &mut self,
        target: &Located,
        locator: &Locator,
        needs_enabled: bool,
    ) -> Result<(f64, f64), Error> {
        if needs_enabled {
            self.require_enabled(target, locator)?;
        } else {
            self.require_shown(target, locator)?;
        }
        let backend_node_id = target.backend_id;
        // Scrolling fails for nodes without a layout box; the quads say what is there.
        let _ = target
            .session
            .call(
                &dom::ScrollIntoViewIfNeeded { backend_node_id },
                self.deadline,
            )
            .await;
        let (x, y) = self.frame_point(target, locator).await?;
        self.hit_test(target, locator, x, y).await?;
        let (dx, dy) = self
            .tab
            .frame_origin(&target.session, self.deadline)
            .await?;
        Ok((x + dx, y + dy))
    }

    /// The element's visible centre in its own frame's viewport.
    async fn frame_point(&self, target: &Located, locator: &Locator) -> Result<(f64, f64), Error> {
        let quads = target
            .session
            .call(
                &dom::GetContentQuads {
                    backend_node_id: target.backend_id,
                },
                self.deadline,
            )
            .await
            .map_err(|e| Error::ElementNotVisible {
                locator: locator.to_string(),
                reason: format!("it has no box on screen ({e})"),
            })?;
        quads
            .quads
            .iter()
            .filter(|q| q.len() == 8 && area(q) >= 1.0)
            .map(|q| {
                (
                    (q[0] + q[2] + q[4] + q[6]) / 4.0,
                    (q[1] + q[3] + q[5] + q[7]) / 4.0,
                )
            })
            .next()
            .ok_or_else(|| Error::ElementNotVisible {
                locator: locator.to_string(),
                reason: "it has no visible area".into(),
            })
    }

    async fn point_of(&self, target: &Located) -> Result<(f64, f64), Error> {
        let _ = target
            .session
            .call(
                &dom::ScrollIntoViewIfNeeded {
                    backend_node_id: target.backend_id,
                },
                self.deadline,
            )
            .await;
        let (x, y) = self
            .frame_point(
                target,
                &Locator::Selector {
                    selector: "drop target".into(),
                    nth: None,
                },
            )
            .await?;
        let (dx, dy) = self
            .tab
            .frame_origin(&target.session, self.deadline)
            .await?;
        Ok((x + dx, y + dy))
    }

    /// The element at the point must be the target or inside it (a `::before` or
    /// `::after` counts as its host; a label that wraps the target forwards to it).
    async fn hit_test(
        &self,
        target: &Located,
        locator: &Locator,
        x: f64,
        y: f64,
    ) -> Result<(), Error> {
        let hit = target
            .session
            .call(
                &dom::GetNodeForLocation {
                    x: x.round() as i64,
                    y: y.round() as i64,
                    include_user_agent_shadow_dom: false,
                    ignore_pointer_events_none: false,
                },
                self.deadline,
            )
            .await;
        let Ok(hit) = hit else {
            // Nothing hit at all: the point is outside the viewport after scrolling.
            return Err(Error::ElementNotVisible {
                locator: locator.to_string(),
                reason: "its centre is not inside the viewport".into(),
            });
        };
        let observation = &target.observation;
        let session = target.node().session;
        if observation.dom_contains(session, target.backend_id, hit.backend_node_id) {
            return Ok(());
        }
        // A label (or other ancestor that forwards clicks) around the target.
        if observation.dom_contains(session, hit.backend_node_id, target.backend_id) {
            let described = target
                .session
                .call(
                    &dom::DescribeNode {
                        backend_node_id: hit.backend_node_id,
                    },
                    self.deadline,
                )
                .await;
            if described.is_ok_and(|d| d.node.node_name.eq_ignore_ascii_case("label")) {
                return Ok(());
            }
        }
        Err(Error::ElementOccluded {
            locator: locator.to_string(),
            covering: self.describe(&target.session, hit.backend_node_id).await,
        })
    }

    /// `tag#id.class` (and its text) of a DOM node, for messages.
    async fn describe(&self, session: &cdp::Session, backend_id: i64) -> String {
        let value = self
            .tab
            .call_on_node(
                session,
                backend_id,
                &script::ELEMENT_LABEL,
                Vec::new(),
                self.deadline,
            )
            .await;
        value
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| format!("node {backend_id}"))
    }

    /// Move, then `clicks` presses (0: hover only), at viewport point (x, y).
    async fn mouse(&mut self, x: f64, y: f64, clicks: i64) -> Result<(), Error> {
        let session = self.tab.session();
        let event = |kind: &str, buttons: i64, click_count: i64| input::DispatchMouseEvent {
            r#type: kind.to_string(),
            x,
            y,
            button: Some(if kind == "mouseMoved" { "none" } else { "left" }.to_string()),
            buttons: Some(buttons),
            click_count: (kind != "mouseMoved").then_some(click_count),
            ..Default::default()
        };
        self.dispatched = true;
        session
            .call(&event("mouseMoved", 0, 0), self.deadline)
            .await?;
        for count in 1..=clicks {
            session
                .call(&event("mousePressed", 1, count), self.deadline)
                .await?;
            session
                .call(&event("mouseReleased", 0, count), self.deadline)
                .await?;
        }
        Ok(())
    }

    async fn drag(&mut self, from: (f64, f64), to: (f64, f64)) -> Result<(), Error> {
        let session = self.tab.session();
        let event = |kind: &str, (x, y): (f64, f64), buttons: i64| input::DispatchMouseEvent {
            r#type: kind.to_string(),
            x,
            y,
            button: Some("left".into()),
            buttons: Some(buttons),
            click_count: (kind != "mouseMoved").then_some(1),
            ..Default::default()
        };
        self.dispatched = true;
        session
            .call(&event("mouseMoved", from, 0), self.deadline)
            .await?;
        session
            .call(&event("mousePressed", from, 1), self.deadline)
            .await?;
        const STEPS: usize = 8;
        for step in 1..=STEPS {
            let t = step as f64 / STEPS as f64;
            let point = (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t);
            session
                .call(&event("mouseMoved", point, 1), self.deadline)
                .await?;
        }
        session
            .call(&event("mouseReleased", to, 0), self.deadline)
            .await?;
        Ok(())
    }

    /// Mouse wheel at the viewport's centre, then the scroll position once it moved.
    async fn wheel(&mut self, dx: f64, dy: f64) -> Result<ActOutcome, Error> {
        let before = self.scroll_position().await?;
        let metrics = self
            .tab
            .session()
            .call(&page::GetLayoutMetrics {}, self.deadline)
            .await?;
        let (x, y) = (
            metrics.css_visual_viewport.client_width / 2.0,
            metrics.css_visual_viewport.client_height / 2.0,
        );
        self.dispatched = true;
        self.tab
            .session()
            .call(
                &input::DispatchMouseEvent {
                    r#type: "mouseWheel".into(),
                    x,
                    y,
                    delta_x: Some(dx),
                    delta_y: Some(dy),
                    ..Default::default()
                },
                self.deadline,
            )
            .await?;
        // Wheel scrolling is applied asynchronously: read until it moved (or a short
        // bound passes — a page at its end does not move).
        let started = Instant::now();
        let mut after = self.scroll_position().await?;
        while after == before
            && started.elapsed() < Duration::from_millis(300)
            && !self.deadline.expired()
        {
            after = self.scroll_position().await?;
        }
        Ok(ActOutcome {
            point: Some((x, y)),
            scroll: Some(after),
            ..ActOutcome::default()
        })
    }

    async fn scroll_position(&self) -> Result<(f64, f64), Error> {
        let value = self
            .tab
            .call_script(&script::SCROLL_POSITION, Vec::new(), self.deadline)
            .await?;
        Ok((
            value["x"].as_f64().unwrap_or_default(),
            value["y"].as_f64().unwrap_or_default(),
        ))
    }

    async fn focus(&mut self, target: &Located) -> Result<(), Error> {
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

    /// type (append) or fill (replace) `text`, then read the value back. Returns
    /// whether it matched; a mismatch is `InputMismatch` (passwords never echoed).
    async fn edit(
        &mut self,
        target: &Located,
        locator: &Locator,
        text: &str,
        replace: bool,
    ) -> Result<(bool, String), Error> {
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
                &script::ELEMENT_VALUE,
                Vec::new(),
                me.deadline,
            )
        };
        let before = read(self).await?;
        if before["editable"] != true {
            return Err(Error::InvalidParams {
                what: locator.to_string(),
                reason: format!(
                    "a {} ({}) takes no typed text; use select, check or upload",
                    target.role,
                    before["type"]
                        .as_str()
                        .filter(|t| !t.is_empty())
                        .or(before["tag"].as_str())
                        .unwrap_or("element")
                ),
            });
        }
        let password = before["type"] == "password";
        let kind = before["type"].as_str().unwrap_or_default().to_string();
        self.focus(target).await?;
        if matches!(
            kind.as_str(),
            "date" | "time" | "datetime-local" | "month" | "week"
        ) {
            // These have no text editing: their value is set as a picker would.
            let value = if replace {
                text.to_string()
            } else {
                format!("{}{text}", before["value"].as_str().unwrap_or_default())
            };
            self.tab
                .call_on_node(
                    session,
                    target.backend_id,
                    &script::ELEMENT_SET_VALUE,
                    vec![json!(value)],
                    self.deadline,
                )
                .await?;
        } else {
            let script = if replace {
                &script::ELEMENT_SELECT_CONTENTS
            } else {
                &script::ELEMENT_CARET_TO_END
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
        }
        let after = read(self).await?;
        let actual = after["value"].as_str().unwrap_or_default().to_string();
        let expected = if replace {
            text.to_string()
        } else {
            format!("{}{text}", before["value"].as_str().unwrap_or_default())
        };
        // contenteditable's innerText may end with a newline it added itself.
        let matches = actual == expected
            || target.node().role != "textbox" && actual.trim_end() == expected.trim_end();
        if !matches {
            let shown = |v: &str| {
                if password {
                    format!("({} characters, not shown)", v.chars().count())
                } else {
                    v.to_string()
                }
            };
            return Err(Error::InputMismatch {
                expected: shown(&expected),
                actual: shown(&actual),
            });
        }
        Ok((true, actual))
    }

    /// Keystrokes for each character; line breaks as Enter.
    async fn type_text(&mut self, text: &str) -> Result<(), Error> {
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

    async fn press(&mut self, chord: &keys::Chord) -> Result<(), Error> {
        self.dispatched = true;
        let session = self.tab.session();
        let mut held = 0;
        for modifier in &chord.modifier_keys {
            held |= modifier_mask(&modifier.key);
            session
                .call(&key_event("rawKeyDown", modifier, held), self.deadline)
                .await?;
        }
        self.key(&chord.key, chord.modifiers).await?;
        for modifier in chord.modifier_keys.iter().rev() {
            held &= !modifier_mask(&modifier.key);
            session
                .call(&key_event("keyUp", modifier, held), self.deadline)
                .await?;
        }
        Ok(())
    }

    /// One key down (typing its text, if any) and up.
    async fn key(&mut self, key: &Key, modifiers: i64) -> Result<(), Error> {
        self.dispatched = true;
        let session = self.tab.session();
        let down = if key.text.is_some() {
            "keyDown"
        } else {
            "rawKeyDown"
        };
        session
            .call(&key_event(down, key, modifiers), self.deadline)
            .await?;
        session
            .call(&key_event("keyUp", key, modifiers), self.deadline)
            .await?;
        Ok(())
    }

    async fn select(
        &mut self,
        target: &Located,
        locator: &Locator,
        values: &[String],
    ) -> Result<Value, Error> {
        // The script checks every option before changing anything, so a refusal here
        // has dispatched nothing.
        let result = self
            .tab
            .call_on_node(
                &target.session,
                target.backend_id,
                &script::ELEMENT_SELECT_OPTIONS,
                vec![json!(values)],
                self.deadline,
            )
            .await?;
        match result["error"].as_str() {
            None => {
                self.dispatched = true;
                Ok(result["selected"].clone())
            }
            Some("not-select") => Err(Error::InvalidParams {
                what: locator.to_string(),
                reason: format!(
                    "a {} is not a <select>; click its options instead",
                    target.role
                ),
            }),
            Some("single") => Err(Error::InvalidParams {
                what: locator.to_string(),
                reason: "it takes one option; several were given".into(),
            }),
            Some(_) => Err(Error::ElementNotFound {
                locator: format!("{locator} options {values:?}"),
                reason: format!(
                    "no option {} (some there: {})",
                    result["missing"], result["available"]
                ),
            }),
        }
    }

    async fn upload(
        &mut self,
        target: &Located,
        locator: &Locator,
        files: &[PathBuf],
        via_trigger: bool,
    ) -> Result<Value, Error> {
        let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        let (session, input) = if via_trigger {
            let session = self.tab.session().clone();
            session
                .call(
                    &page::SetInterceptFileChooserDialog { enabled: true },
                    self.deadline,
                )
                .await?;
            let opened_before = self.tab.state().file_choosers;
            let clicked = async {
                let (x, y) = self.pointer_target(target, locator, true).await?;
                self.mouse(x, y, 1).await?;
                let limit = self.deadline.within(CHOOSER_LIMIT);
                self.tab
                    .wait_state("a file chooser to open", limit, Instant::now(), |s| {
                        s.file_choosers > opened_before
                    })
                    .await
            }
            .await;
            let _ = session
                .call(
                    &page::SetInterceptFileChooserDialog { enabled: false },
                    self.deadline,
                )
                .await;
            let state = clicked?;
            let input = state
                .file_chooser_input
                .ok_or_else(|| Error::ElementNotFound {
                    locator: locator.to_string(),
                    reason: "the file chooser it opened names no input".into(),
                })?;
            (session, input)
        } else {
            self.require_shown_or_file_input(target, locator).await?;
            (target.session.clone(), target.backend_id)
        };
        self.dispatched = true;
        session
            .call(
                &dom::SetFileInputFiles {
                    files: files.clone(),
                    backend_node_id: input,
                },
                self.deadline,
            )
            .await?;
        let readback = self
            .tab
            .call_on_node(
                &session,
                input,
                &script::ELEMENT_FILES,
                Vec::new(),
                self.deadline,
            )
            .await?;
        Ok(json!({
            "fileSelected": readback["count"].as_u64() == Some(files.len() as u64),
            "inputReadback": readback,
            "uploadCompleted": "unknown",
            "frameworkAccepted": "unknown",
        }))
    }

    /// A file input may be visually hidden behind a styled label; it must be a file input.
    async fn require_shown_or_file_input(
        &self,
        target: &Located,
        locator: &Locator,
    ) -> Result<(), Error> {
        let value = self
            .tab
            .call_on_node(
                &target.session,
                target.backend_id,
                &script::ELEMENT_VALUE,
                Vec::new(),
                self.deadline,
            )
            .await?;
        if value["type"] != "file" {
            return Err(Error::InvalidParams {
                what: locator.to_string(),
                reason: "it is not an <input type=file>; give the button that opens the chooser with trigger:true".into(),
            });
        }
        Ok(())
    }
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
    }
}

/// The area of a quad (shoelace formula).
fn area(quad: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..4 {
        let (x1, y1) = (quad[2 * i], quad[2 * i + 1]);
        let (x2, y2) = (quad[(2 * i + 2) % 8], quad[(2 * i + 3) % 8]);
        sum += x1 * y2 - x2 * y1;
    }
    (sum / 2.0).abs()
}

impl Tab {
    /// Where a frame's viewport starts in the page's viewport: (0, 0) for the page's own
    /// session; for an out-of-process frame, its iframe element's content box.
    pub(crate) async fn frame_origin(
        &self,
        frame_session: &cdp::Session,
        deadline: Deadline,
    ) -> Result<(f64, f64), Error> {
        if frame_session.id() == self.session().id() {
            return Ok((0.0, 0.0));
        }
        let frame_id = self
            .state()
            .child_frames
            .iter()
            .find(|(_, session)| Some(session) == frame_session.id())
            .map(|(frame, _)| frame.clone())
            .ok_or_else(|| Error::Protocol {
                method: "DOM.getFrameOwner".into(),
                message: "the frame is no longer attached".into(),
            })?;
        let owner = self
            .session()
            .call(&dom::GetFrameOwner { frame_id }, deadline)
            .await?;
        let model = self
            .session()
            .call(
                &dom::GetBoxModel {
                    backend_node_id: owner.backend_node_id,
                },
                deadline,
            )
            .await?;
        Ok((
            model.model.content.first().copied().unwrap_or_default(),
            model.model.content.get(1).copied().unwrap_or_default(),
        ))
    }
}
