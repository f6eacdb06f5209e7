//! Acting with trusted input (docs/acting.md#trusted-input): events dispatched by the browser
//! (`Input.dispatchMouseEvent`, `dispatchKeyEvent`, `insertText`) where the element's own
//! content is, after scrolling it into view — never `element.click()`.
//!
//! Before anything is dispatched the element is checked: found exactly once, shown,
//! enabled, and actually hit at the point it would be clicked (a different element on
//! top is `ElementOccluded`, naming it). Every failure says whether input had already
//! been sent ([`ActFailure::dispatched`]), so the caller never claims more than happened.
//! A click is watched from its press to the end of the settle: a press split by a
//! re-render, and whether anything changed, are facts of its outcome.
//!
//! `pointer` holds mouse and touch input and hit testing, `pace` how long a press is
//! held, `keyboard` text and keys, `forms` selects and uploads (and the upload's
//! response).

pub(crate) mod forms;
mod keyboard;
mod pace;
pub(crate) mod pointer;

pub use pace::{InvalidPressPause, PressPause};

use std::path::PathBuf;
use std::time::{Duration, Instant};

use cdp::Deadline;
use cdp::protocol::dom;
use serde_json::{Value, json};

pub(crate) use forms::SelectReply;
pub use forms::{
    FileReadback, ResponseWatch, SelectedOption, UploadOutcome, UploadResponse, UrlPattern,
};
pub(crate) use keyboard::chord_events;
pub(crate) use pointer::{ClickPoint, ScrollPosition};

use crate::keys;
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
    /// the file chooser, which is intercepted. With `response_url`, the first response to
    /// a request whose URL matches it (see [`UrlPattern`]) is waited for and reported.
    Upload {
        files: Vec<PathBuf>,
        via_trigger: bool,
        response_url: Option<UrlPattern>,
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
    /// type: the keys sent (into a secret field, only as their count).
    pub keys_sent: Option<String>,
    /// type/fill: what the field holds after (a secret field's only as its length).
    pub value_after: Option<String>,
    /// How long the action waited for its target to become actionable (uncovered,
    /// still, shown); `None` when it was at once.
    pub actionable_wait: Option<Duration>,
    /// check/uncheck: whether the state had to change.
    pub changed: Option<bool>,
    /// select: the options now selected.
    pub selected: Option<Vec<SelectedOption>>,
    /// scroll: the page's scroll position after.
    pub scroll: Option<(f64, f64)>,
    pub upload: Option<UploadOutcome>,
    pub navigated: bool,
    /// The navigation the action started (if any) committed and loaded, and the page
    /// stopped changing, within the settle budget.
    pub settled: bool,
    /// How long settling took.
    pub settle_ms: u64,
    /// What was still changing when the settle budget ran out.
    pub still_changing: Option<String>,
    /// The action opened a dialog that waits for an answer (policy `ask`).
    pub dialog_open: bool,
    /// The element acted on, in words that outlive the tab (a flow's step keeps it).
    pub target: Option<crate::ElementIdentity>,
    /// type/fill went into a secret field (`cdp::is_secret_field`): the text is a secret.
    pub secret: bool,
    /// click/dblclick: a press split by a re-render — the element pressed (or the target)
    /// was gone from the document by the release, and no click reached the target.
    pub press_replaced: bool,
    /// click/dblclick: a press that landed beside the element — on the element named
    /// (`div#menu`), neither the target, inside it, nor around it — and no click reached
    /// the target: it moved, or something came over it, between the check of its point
    /// and the press (`action_seen.js`).
    pub press_missed: Option<String>,
    /// click/dblclick: whether anything the action watch sees changed by the end of the
    /// settle (the DOM of the target's document, its shadow roots and the top document,
    /// scrolling, the URL, the target's value or checked state, focus beyond the target);
    /// `None` when not watched or not known (a select, a chooser, a canvas…, a frame of
    /// another origin, whose effect may show where the watch does not look; a document
    /// gone).
    pub page_changed: Option<bool>,
}

/// What an element holds now (`element_value.js`).
#[derive(Debug, serde::Deserialize)]
pub(crate) struct ElementValue {
    /// The tag name, lower case (empty for a node that is no element).
    pub tag: String,
    /// An input's type, lower case (`text` when it has none); empty for anything else.
    pub r#type: String,
    /// The value of an input, textarea or select, or a contenteditable's text; `None`
    /// for any other element, and for a secret field (its value is `secret_value`).
    pub value: Option<String>,
    /// A secret field's value (`cdp::is_secret_field`): a key so named is dropped from
    /// every record (a tape), and the engine never echoes it.
    #[serde(default, rename = "secretValue")]
    pub secret_value: Option<String>,
    /// A checkbox's or radio's state, or `aria-checked`; `None` for an element that has
    /// neither.
    pub checked: Option<bool>,
    /// It takes typed text (a text-like input, a textarea, a contenteditable).
    pub editable: bool,
    /// It is in the document.
    #[allow(dead_code)] // Sent by the script; no action needs it yet.
    pub connected: bool,
}

impl ElementValue {
    /// What the element holds, a secret field's value included.
    pub fn held(&self) -> Option<&str> {
        self.value.as_deref().or(self.secret_value.as_deref())
    }

    /// It is a secret field: what it holds is never shown.
    pub fn secret(&self) -> bool {
        self.secret_value.is_some()
    }
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
    /// The most the action waits for the page to stop changing (`None`: the default,
    /// zero: only the navigation it started).
    pub settle: Option<Duration>,
    /// The most a pointer action waits for its target to become actionable (`None`: the
    /// default, 1,000 ms; zero: refused at once).
    pub action_timeout: Option<Duration>,
    /// How long each press (mouse button, touch) is held before its release.
    pub press_pause: PressPause,
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
    /// The actionability budget of pointer actions.
    action_timeout: Duration,
    /// How long a pointer action waited for its target to become actionable.
    actionable_wait: Option<Duration>,
    /// How long each press is held.
    press_pause: PressPause,
    /// The watch on a click's press and effect (`action_watch.js`), while it runs.
    watch: Option<Watch>,
}

/// A watch `action_watch.js` keeps in the page: the remote object and its session.
struct Watch {
    session: cdp::Session,
    object_id: String,
    /// The context of candor's world the watch lives in, when known.
    world: Option<String>,
}

/// What `action_seen.js` read of a watch.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct Seen {
    /// The press was split by a re-render (no click reached the target).
    pub replaced: bool,
    /// The element the press landed on, beside the target (no click reached it).
    pub missed: Option<String>,
    /// Something the watch sees changed.
    pub changed: bool,
    /// The target's effect may show where the watch does not look (a select's list, a
    /// chooser, a canvas, a video, an embedded frame).
    pub opaque: bool,
}

/// The object group of a watch, released once it is read.
const WATCH_GROUP: &str = "candor-action-watch";

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
            action_timeout: options
                .action_timeout
                .unwrap_or(pointer::DEFAULT_ACTION_TIMEOUT),
            actionable_wait: None,
            press_pause: options.press_pause,
            watch: None,
        };
        let before = self.state();
        let started = Instant::now();
        // A page in the background gets no frames, and input to it waits for one (about
        // five seconds): the tab acted on comes to the front first.
        if let Err(error) = self
            .session()
            .call(&cdp::protocol::page::BringToFront {}, deadline)
            .await
        {
            return Err(ActFailure {
                error: error.into(),
                dispatched: false,
            });
        }
        let ended = {
            let acting = run.act(locator, action, options);
            // Under the `ask` policy a dialog the input opens blocks the page, and the
            // input's own dispatch with it: the action ends there, the dialog open.
            let dialog = self.wait_state("a dialog", deadline, Instant::now(), |s| {
                s.open_dialog.is_some()
            });
            tokio::select! {
                result = acting => Some(result),
                Ok(_) = dialog => None,
            }
        };
        let dispatched = run.dispatched;
        let actionable_wait = run.actionable_wait;
        let watch = run.watch.take();
        let Some(result) = ended else {
            // The page waits on the dialog: the watch cannot be read (it only counts).
            return Ok(ActOutcome {
                dialog_open: true,
                ..ActOutcome::default()
            });
        };
        match result {
            Ok(mut outcome) => {
                outcome.actionable_wait = actionable_wait;
                let budget = options.settle.unwrap_or(crate::DEFAULT_SETTLE);
                let settled = self.settle(&before, started, budget, deadline).await;
                outcome.settled = settled.quiet;
                outcome.settle_ms = settled.waited.as_millis() as u64;
                outcome.still_changing = settled.region;
                outcome.navigated = self.state().navigations > before.navigations;
                if let Some(seen) = self.seen(watch, deadline).await {
                    outcome.press_replaced = seen.replaced;
                    outcome.press_missed = seen.missed;
                    outcome.page_changed = (!seen.opaque).then_some(seen.changed);
                }
                Ok(outcome)
            }
            Err(error) => {
                // Read only to end it: its listeners and observers leave the page.
                self.seen(watch, deadline).await;
                Err(ActFailure { error, dispatched })
            }
        }
    }

    /// Reads and ends `watch`, and releases it; `None` when there was none or it could
    /// not be read (its document gone with a navigation).
    async fn seen(&self, watch: Option<Watch>, deadline: Deadline) -> Option<Seen> {
        let watch = watch?;
        let seen = script::call(
            &watch.session,
            &ACTION_SEEN,
            script::This::Object(&watch.object_id, watch.world.as_deref()),
            Vec::new(),
            deadline,
        )
        .await;
        let _ = watch
            .session
            .call(
                &cdp::protocol::runtime::ReleaseObjectGroup {
                    object_group: WATCH_GROUP.into(),
                },
                deadline,
            )
            .await;
        seen.map_err(|error| tracing::debug!(%error, "the action watch was not read"))
            .ok()
    }

    /// After input: the navigation the input started, if any, committed and loaded
    /// (within `deadline` and at most [`SETTLE_LIMIT`]); then the page quiet (see
    /// `settle.rs`) within `budget`, changes counted from `started`. With a zero budget,
    /// one round trip stands in for the quiet test, so whatever the input started
    /// synchronously has run and been reported.
    pub(crate) async fn settle(
        &self,
        before: &PageState,
        started: Instant,
        budget: Duration,
        deadline: Deadline,
    ) -> crate::Settled {
        let begun = Instant::now();
        let unsettled = |region: Option<String>| crate::Settled {
            quiet: false,
            waited: begun.elapsed(),
            region,
        };
        let same_document = |s: &PageState| !s.loading && s.navigations == before.navigations;
        if budget.is_zero() {
            if self.evaluate_one(deadline).await.is_err() {
                return unsettled(None);
            }
        } else if same_document(&self.state()) {
            // The quiet test; if the document goes away meanwhile, the navigation below
            // decides.
            let quiet = self.wait_quiet(budget, Some(started), deadline).await;
            if same_document(&self.state()) {
                return match quiet {
                    Ok(settled) => crate::Settled {
                        waited: begun.elapsed(),
                        ..settled
                    },
                    // The page did not answer the quiet test: not known to be quiet.
                    Err(_) => unsettled(None),
                };
            }
        }
        if same_document(&self.state()) {
            return crate::Settled {
                quiet: true,
                waited: begun.elapsed(),
                region: None,
            };
        }
        let limit = deadline.within(SETTLE_LIMIT);
        let navigations = before.navigations;
        let loaded = self
            .wait_state(
                "the page to settle after the action",
                limit,
                Instant::now(),
                |s| {
                    s.crashed
                        || s.closed
                        || !s.loading
                            && (s.navigations > navigations || s.loaded_loader == s.loader)
                },
            )
            .await
            .is_ok();
        if !loaded {
            return unsettled(Some("the page it navigated to is still loading".into()));
        }
        let left = budget.saturating_sub(begun.elapsed());
        if left.is_zero() {
            return crate::Settled {
                quiet: true,
                waited: begun.elapsed(),
                region: None,
            };
        }
        // The new document: quiet from its load on.
        match self.wait_quiet(left, None, deadline).await {
            Ok(settled) => crate::Settled {
                waited: begun.elapsed(),
                ..settled
            },
            Err(_) => unsettled(None),
        }
    }

    /// Calls a page-side script with `this` bound to the DOM node `backend_id`, in
    /// candor's world (see `tab/world.rs`): what it reads is the browser's, not the page's.
    pub(crate) async fn call_on_node<R: serde::de::DeserializeOwned>(
        &self,
        session: &cdp::Session,
        backend_id: i64,
        script: &Script<R>,
        arguments: Vec<Value>,
        deadline: Deadline,
    ) -> Result<R, Error> {
        debug_assert_eq!(script.world, script::World::Candor, "{}", script.name);
        let node = self.resolve_node(session, backend_id, deadline).await?;
        crate::script::call(
            session,
            script,
            crate::script::This::Object(&node.object, node.world.as_deref()),
            arguments,
            deadline,
        )
        .await
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
            target: target.identity.clone(),
            ..ActOutcome::default()
        };
        match action {
            Action::Click | Action::DoubleClick | Action::Hover => {
                let ((x, y), fresh) = self
                    .pointer_target_located(&target, locator, !matches!(action, Action::Hover))
                    .await?;
                let clicks = match action {
                    Action::Click => 1,
                    Action::DoubleClick => 2,
                    _ => 0,
                };
                if clicks > 0 {
                    // On the element the point is on: located again on the way, it may be
                    // another node than the one first found.
                    self.watch = self.watch_action(fresh.as_ref().unwrap_or(&target)).await;
                }
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
                // The keys and what the field holds are facts, not a promise: a page may
                // consume keys (a terminal) and still have received them.
                let edited = self.edit(&target, locator, text, false).await?;
                outcome.input_value_verified = Some(edited.verified);
                outcome.keys_sent = edited.keys_sent;
                outcome.value_after = Some(edited.value_after);
                outcome.secret = edited.secret;
                if options.submit {
                    self.press(&keys::parse_chord("Enter")?).await?;
                }
            }
            Action::Fill { value } => {
                let edited = self.edit(&target, locator, value, true).await?;
                outcome.input_value_verified = Some(edited.verified);
                outcome.value_after = Some(edited.value_after);
                outcome.secret = edited.secret;
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
                    // Shown is not heard: a box the browser refilled (a page brought back
                    // through history) is one the page's framework may hold otherwise, so
                    // it is set again page-side, where the page hears it.
                    if !target.disabled() {
                        self.dispatched = true;
                        let held = self
                            .tab
                            .call_on_node(
                                &target.session,
                                target.backend_id,
                                &ELEMENT_SET_CHECKED,
                                vec![Value::Bool(want)],
                                self.deadline,
                            )
                            .await?;
                        if held == Some(!want) {
                            return Err(Error::InputMismatch {
                                expected: if want { "checked" } else { "unchecked" }.into(),
                                actual: if want { "unchecked" } else { "checked" }.into(),
                            });
                        }
                    }
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
                            &ELEMENT_VALUE,
                            vec![json!(cdp::secret_field_selector())],
                            self.deadline,
                        )
                        .await?;
                    if read.checked != Some(want) {
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
            Action::Upload {
                files,
                via_trigger,
                response_url,
            } => {
                let upload = self
                    .upload(&target, locator, files, *via_trigger, response_url.as_ref())
                    .await?;
                outcome.upload = Some(upload);
            }
        }
        Ok(outcome)
    }

    /// Starts the watch on a click's press and effect (`action_watch.js`); `None` when
    /// it could not be (the click goes ahead unwatched, its effect unknown).
    async fn watch_action(&self, target: &Located) -> Option<Watch> {
        let started = async {
            let node = self
                .tab
                .resolve_node(&target.session, target.backend_id, self.deadline)
                .await?;
            let watch = script::call_for_object(
                &target.session,
                &ACTION_WATCH,
                script::This::Object(&node.object, node.world.as_deref()),
                Vec::new(),
                WATCH_GROUP,
                self.deadline,
            )
            .await?;
            Ok::<_, Error>(watch.object_id.map(|id| (id, node.world)))
        };
        match started.await {
            Ok(Some((object_id, world))) => Some(Watch {
                session: target.session.clone(),
                object_id,
                world,
            }),
            Ok(None) => None,
            Err(error) => {
                tracing::debug!(%error, "the action is not watched");
                None
            }
        }
    }

    pub(super) fn require_shown(&self, target: &Located, locator: &Locator) -> Result<(), Error> {
        if target.visible {
            Ok(())
        } else {
            Err(Error::ElementNotVisible {
                locator: locator.to_string(),
                reason: "it is hidden, clipped away or has no size".into(),
            })
        }
    }

    pub(super) fn require_enabled(&self, target: &Located, locator: &Locator) -> Result<(), Error> {
        self.require_shown(target, locator)?;
        if target.disabled() {
            return Err(Error::ElementDisabled {
                locator: locator.to_string(),
            });
        }
        Ok(())
    }
}

/// On an element: `{tag, type, value, checked, editable, connected}`, a secret field's
/// value as `secretValue` instead (given the secret field selector).
pub(crate) const ELEMENT_VALUE: crate::script::Script<crate::actions::ElementValue> =
    crate::script::script!("element_value" => crate::actions::ElementValue);
/// On a checkbox, or a radio to check, that shows the state already: set it again so
/// the page's framework hears it; what it holds after (`null`: no such input).
pub(crate) const ELEMENT_SET_CHECKED: crate::script::Script<Option<bool>> =
    crate::script::script!("element_set_checked" => Option<bool>);
/// On an element about to be clicked: a watch on the press and its effect, kept in the
/// page (see `actions/mod.rs`).
pub(crate) const ACTION_WATCH: crate::script::Script<crate::script::InPage> =
    crate::script::script!("action_watch" => crate::script::InPage);
/// On that watch: `{replaced, missed, changed, opaque}`, and the watch ended.
pub(crate) const ACTION_SEEN: crate::script::Script<crate::actions::Seen> =
    crate::script::script!("action_seen" => crate::actions::Seen);

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A watch's reading decodes whole; a reading missing a fact fails by the script's
    /// name rather than reading as "nothing changed".
    #[test]
    fn a_watch_reading_decodes_whole_or_fails_by_name() {
        let seen = script::decode(
            &ACTION_SEEN,
            json!({"replaced": true, "missed": null, "changed": false, "opaque": false}),
        )
        .unwrap();
        assert!(seen.replaced && !seen.changed && !seen.opaque && seen.missed.is_none());
        let seen = script::decode(
            &ACTION_SEEN,
            json!({"replaced": false, "missed": "div#menu", "changed": true, "opaque": false}),
        )
        .unwrap();
        assert_eq!(seen.missed.as_deref(), Some("div#menu"));
        assert!(matches!(
            script::decode(&ACTION_SEEN, json!({"replaced": false, "opaque": false})),
            Err(Error::ScriptReply {
                script: "action_seen",
                ..
            })
        ));
    }
}
