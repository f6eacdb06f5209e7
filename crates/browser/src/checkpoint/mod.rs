//! Checkpoints (docs/faces.md#checkpoints): every element snapshot keeps the page's restorable state —
//! its URL and history entry, form fields, `<details>`, contenteditable and scroll
//! positions, read in one page-side pass (`js/checkpoint.js`) beside the snapshot — and
//! [`Tab::restore`] brings it back: through history when the entry is still there, else
//! by loading the URL; each field found again by its identity ([`relocate`]: id, name,
//! label, with the path only to choose among equals — never by position alone), set as a
//! person would, then everything read back and reported: verified, restored, failed (with
//! why) and omitted (secrets are never captured; limits are counted).
//!
//! Checkpoints are values: the engine keeps them in memory for the task.

use std::time::{Duration, Instant};

use cdp::Deadline;
use cdp::protocol::page;
use serde::{Deserialize, Serialize};
use serde_json::json;
use url::Url;

use crate::{Error, LoadOutcome, Tab};

mod verdict;

use verdict::{Changed, Place, omissions, relocate, relocate_scrolls, verdict};

/// At most this many fields, scroll positions and characters per value are kept.
pub const MAX_FIELDS: usize = 500;
pub const MAX_SCROLLS: usize = 200;
pub const MAX_VALUE_CHARS: usize = 8_000;
/// A scroll position within this many CSS px of the saved one is restored.
const SCROLL_TOLERANCE: f64 = 2.0;
/// After a navigation, how long fields a page renders late are waited for.
const LATE_FIELDS: Duration = Duration::from_millis(1_500);

/// What kind of state a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Kind {
    Text,
    Textarea,
    Select,
    Checkbox,
    Radio,
    Editable,
    Details,
    Password,
    File,
}

impl Kind {
    fn noun(self) -> &'static str {
        match self {
            Kind::Text | Kind::Textarea => "textbox",
            Kind::Select => "select",
            Kind::Checkbox => "checkbox",
            Kind::Radio => "radio",
            Kind::Editable => "editable",
            Kind::Details => "details",
            Kind::Password => "password",
            Kind::File => "file input",
        }
    }

    /// Whether a restore sets a field of this kind even when the page already shows the
    /// saved state: a form control, because the page's framework may never have heard of
    /// what it shows (the browser refills a form it brings back through history without
    /// any event) and would render its own state over it at its next update. An
    /// editable's text is set only when it differs (setting it again would flatten its
    /// markup), a `<details>` only when it is not open or closed as saved.
    fn set_always(self) -> bool {
        !matches!(self, Kind::Editable | Kind::Details)
    }
}

/// A field's state, as the page holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum State {
    Value(String),
    Selected(Vec<String>),
    Checked(bool),
    Open(bool),
}

impl State {
    fn shown(&self) -> String {
        match self {
            State::Value(value) => format!("{value:?}"),
            State::Selected(values) => format!("{values:?}"),
            State::Checked(checked) => if *checked { "checked" } else { "unchecked" }.into(),
            State::Open(open) => if *open { "open" } else { "closed" }.into(),
        }
    }

    fn empty(&self) -> bool {
        match self {
            State::Value(value) => value.is_empty(),
            State::Selected(values) => values.iter().all(String::is_empty),
            State::Checked(checked) => !checked,
            State::Open(_) => false,
        }
    }

    /// Whether two states agree; an editable's text is compared without its whitespace
    /// (the browser re-lays it out).
    fn agrees(&self, other: &State) -> bool {
        match (self, other) {
            (State::Value(a), State::Value(b)) => {
                a == b || a.split_whitespace().eq(b.split_whitespace())
            }
            _ => self == other,
        }
    }
}

/// What identifies a field: where it is (`scope`: the frames and shadow hosts above it)
/// and what it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Identity {
    pub scope: String,
    pub kind: Kind,
    pub id: String,
    pub name: String,
    pub label: String,
}

impl Identity {
    /// `textbox "Email"`, `checkbox name=terms`, `select #country in /frame:iframe#pay`.
    pub fn describe(&self) -> String {
        let what = if !self.label.is_empty() {
            format!("{} {:?}", self.kind.noun(), self.label)
        } else if !self.name.is_empty() {
            format!("{} name={}", self.kind.noun(), self.name)
        } else if !self.id.is_empty() {
            format!("{} #{}", self.kind.noun(), self.id)
        } else {
            self.kind.noun().to_string()
        };
        if self.scope.is_empty() {
            what
        } else {
            format!("{what} in {}", self.scope)
        }
    }
}

/// One field of a page.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Field {
    #[serde(flatten)]
    pub identity: Identity,
    pub path: String,
    /// A checkbox's or radio's `value` attribute (which of its group it is).
    pub option: String,
    pub required: bool,
    pub state: State,
}

/// A scroll position: the page's or a frame's (`page`), or a container's.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Scroll {
    pub scope: String,
    pub id: String,
    pub path: String,
    pub x: f64,
    pub y: f64,
    pub page: bool,
}

impl Scroll {
    fn describe(&self) -> String {
        let what = if self.page && self.scope.is_empty() {
            "the page's scroll position".to_string()
        } else if self.page {
            format!("the scroll position of {}", self.scope)
        } else if !self.id.is_empty() {
            format!("the scroll position of #{}", self.id)
        } else {
            format!("the scroll position of {}", self.path)
        };
        if self.page || self.scope.is_empty() {
            what
        } else {
            format!("{what} in {}", self.scope)
        }
    }
}

/// A field the pass saw and did not keep, and why.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Omitted {
    #[serde(flatten)]
    pub identity: Identity,
    pub reason: String,
}

/// What the limits left out, counted.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub(crate) struct Dropped {
    pub fields: usize,
    pub scrolls: usize,
    pub values: usize,
    /// Frames of another origin, whose fields cannot be read from the page.
    pub frames: usize,
}

/// One planned change, as the pass applied it.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Applied {
    pub index: usize,
    pub done: bool,
    pub reason: Option<String>,
}

/// The pass's reply (`js/checkpoint.js`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Captured {
    pub fields: Vec<Field>,
    pub scrolls: Vec<Scroll>,
    pub omitted: Vec<Omitted>,
    pub more_omitted: usize,
    pub dropped: Dropped,
    pub applied: Vec<Applied>,
}

/// A tab's restorable state as read, before it is named.
#[derive(Debug)]
pub(crate) struct Capture {
    history_entry: Option<i64>,
    state: Captured,
}

/// A restorable state of a tab, taken with an element snapshot of the same id.
#[derive(Debug, Clone)]
pub struct Checkpoint {
    /// The snapshot's id (`tab0-s7`, `tab0-s7.1`).
    pub id: String,
    /// The tab it was taken in.
    pub tab: String,
    pub url: String,
    pub title: String,
    /// When it was taken.
    pub time: std::time::SystemTime,
    history_entry: Option<i64>,
    state: Captured,
}

impl Checkpoint {
    /// Fields it holds.
    pub fn fields(&self) -> usize {
        self.state.fields.len()
    }

    /// Scroll positions it holds (the page's included).
    pub fn scrolls(&self) -> usize {
        self.state.scrolls.len()
    }
}

crate::footprint!(Checkpoint {
    id,
    tab,
    url,
    title,
    time,
    history_entry,
    state,
});

crate::footprint!(Captured {
    fields,
    scrolls,
    omitted,
    more_omitted,
    dropped,
    applied,
});

crate::footprint!(Field {
    identity,
    path,
    option,
    required,
    state,
});

crate::footprint!(Identity {
    scope,
    kind,
    id,
    name,
    label,
});

crate::footprint!(Scroll {
    scope,
    id,
    path,
    x,
    y,
    page,
});

crate::footprint!(Omitted { identity, reason });

crate::footprint!(Applied {
    index,
    done,
    reason,
});

crate::footprint!(owns_nothing: Kind, Dropped);

impl crate::Footprint for State {
    fn heap_bytes(&self) -> usize {
        match self {
            State::Value(value) => crate::Footprint::heap_bytes(value),
            State::Selected(values) => crate::Footprint::heap_bytes(values),
            State::Checked(_) | State::Open(_) => 0,
        }
    }
}

/// How a restore reached the checkpoint's page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reached {
    /// The tab was on it already.
    InPlace,
    /// Through the tab's history: the entry was still there.
    History,
    /// By loading the URL again.
    Loaded,
}

impl Reached {
    pub fn as_str(self) -> &'static str {
        match self {
            Reached::InPlace => "in-place",
            Reached::History => "history",
            Reached::Loaded => "url",
        }
    }
}

/// One field (or scroll position) a restore could not bring back, or did not try to.
#[derive(Debug, Clone)]
pub struct Unrestored {
    /// `textbox "Email"`: the field's kind and identity (page text).
    pub field: String,
    pub reason: String,
    /// What the checkpoint held and what the page holds, when both are known.
    pub expected: Option<String>,
    pub actual: Option<String>,
}

/// What a restore did and found (docs/faces.md#checkpoints).
#[derive(Debug, Clone)]
pub struct Restoration {
    pub reached: Reached,
    /// The navigation, when there was one.
    pub load: Option<LoadOutcome>,
    /// Fields and scroll positions read back as the checkpoint holds them.
    pub verified: usize,
    /// Of those, how many this restore changed.
    pub restored: usize,
    pub failed: Vec<Unrestored>,
    pub omitted: Vec<Unrestored>,
}

/// The URL without its fragment: a page is the same page at another anchor.
fn page_of(url: &str) -> &str {
    url.split_once('#').map_or(url, |(page, _)| page)
}

impl Tab {
    /// The page's restorable state now (one page-side pass, and the history entry
    /// beside it).
    pub(crate) async fn capture_checkpoint(&self, deadline: Deadline) -> Result<Capture, Error> {
        let history = self
            .session()
            .call(&page::GetNavigationHistory {}, deadline);
        let state = self.read_checkpoint_state(None, &[], deadline);
        let (history, state) = tokio::join!(history, state);
        let history_entry = history
            .ok()
            .and_then(|h| h.entries.get(h.current_index).map(|e| e.id));
        Ok(Capture {
            history_entry,
            state: state?,
        })
    }

    /// A checkpoint of the page now, apart from any snapshot (`id` names it).
    pub async fn checkpoint(&self, id: String, deadline: Deadline) -> Result<Checkpoint, Error> {
        let capture = self.capture_checkpoint(deadline).await?;
        Ok(self.checkpoint_of(id, capture))
    }

    /// `capture` as the checkpoint `id`.
    pub(crate) fn checkpoint_of(&self, id: String, capture: Capture) -> Checkpoint {
        let page = self.state();
        Checkpoint {
            id,
            tab: self.label().to_string(),
            url: page.url,
            title: page.title,
            time: std::time::SystemTime::now(),
            history_entry: capture.history_entry,
            state: capture.state,
        }
    }

    /// One pass of `js/checkpoint.js`: the page's state after `plan` (if any), with the
    /// containers of `wanted` read wherever they are scrolled.
    async fn read_checkpoint_state(
        &self,
        plan: Option<serde_json::Value>,
        wanted: &[Scroll],
        deadline: Deadline,
    ) -> Result<Captured, Error> {
        let wanted: Vec<serde_json::Value> = wanted
            .iter()
            .filter(|s| !s.page)
            .map(|s| json!({ "scope": s.scope, "id": s.id, "path": s.path }))
            .collect();
        let limits = json!({
            "fields": MAX_FIELDS,
            "scrolls": MAX_SCROLLS,
            "valueChars": MAX_VALUE_CHARS,
            "wanted": wanted,
        });
        self.call_script(
            &CHECKPOINT,
            vec![
                plan.unwrap_or(serde_json::Value::Null),
                limits,
                json!(cdp::secret_field_selector()),
            ],
            deadline,
        )
        .await
    }

    /// Restores `checkpoint` in this tab: reaches its page (`url`, the checkpoint's URL
    /// already checked against the task's policy) through history or by loading it,
    /// refuses a page that redirected elsewhere (`CheckpointUrlChanged`), then sets every
    /// field that differs and every form control (`Kind::set_always`), restores scroll
    /// positions and reads everything back once the page has rendered what it heard.
    pub async fn restore(
        &self,
        checkpoint: &Checkpoint,
        url: &Url,
        deadline: Deadline,
    ) -> Result<Restoration, Error> {
        let (reached, load) = self.reach(checkpoint, url, deadline).await?;
        let now = self.state().url;
        if page_of(&now) != page_of(&checkpoint.url) {
            return Err(Error::CheckpointUrlChanged {
                expected: checkpoint.url.clone(),
                reached: now,
            });
        }
        let _ = self.wait_settled(crate::DEFAULT_SETTLE, deadline).await;
        // A page may render its form after it loads: fields are waited for a moment.
        let saved = &checkpoint.state;
        let started = Instant::now();
        let mut current = self
            .read_checkpoint_state(None, &saved.scrolls, deadline)
            .await?;
        while reached != Reached::InPlace
            && started.elapsed() < LATE_FIELDS
            && relocate(&saved.fields, &current.fields).contains(&Place::Missing)
        {
            tokio::time::sleep(Duration::from_millis(100)).await;
            current = self
                .read_checkpoint_state(None, &saved.scrolls, deadline)
                .await?;
        }
        // Fields first (setting them may change the layout), then scroll positions. A form
        // control is set even when it shows the saved state (`Kind::set_always`); what it
        // showed decides only whether it counts as restored.
        let mut changed = Changed::default();
        let mut refused = Vec::new();
        let places = relocate(&saved.fields, &current.fields);
        let mut plan = Vec::new();
        let mut planned = Vec::new();
        for (i, (field, place)) in saved.fields.iter().zip(&places).enumerate() {
            let Place::Found(index) = place else { continue };
            let now = &current.fields[*index];
            let differs = !now.state.agrees(&field.state);
            if differs || field.identity.kind.set_always() {
                plan.push(json!({
                    "index": index,
                    "expect": now.identity,
                    "state": field.state,
                }));
                planned.push((i, *index, differs));
            }
        }
        if !plan.is_empty() {
            let applied = self
                .read_checkpoint_state(Some(json!({ "fields": plan })), &saved.scrolls, deadline)
                .await?
                .applied;
            for (saved_index, page_index, differs) in planned {
                match applied.iter().find(|a| a.index == page_index) {
                    Some(a) if a.done && differs => {
                        changed.fields.insert(saved_index);
                    }
                    // Set again as it showed: heard, not restored.
                    Some(a) if a.done => {}
                    Some(a) => refused.push((
                        saved_index,
                        a.reason.clone().unwrap_or_else(|| "it was not set".into()),
                    )),
                    None => {}
                }
            }
            let _ = self.wait_settled(crate::DEFAULT_SETTLE, deadline).await;
        }
        let before = self
            .read_checkpoint_state(None, &saved.scrolls, deadline)
            .await?;
        let mut scrolls = Vec::new();
        let places = relocate_scrolls(&saved.scrolls, &before.scrolls);
        // In place, a container scrolled since the checkpoint (so not in it: the page had
        // never scrolled it) goes back to its start.
        if reached == Reached::InPlace {
            for (index, now) in before.scrolls.iter().enumerate() {
                if !now.page && (now.x != 0.0 || now.y != 0.0) && !places.contains(&Some(index)) {
                    scrolls.push(json!({ "index": index, "x": 0, "y": 0 }));
                }
            }
        }
        for (i, (scroll, place)) in saved.scrolls.iter().zip(places).enumerate() {
            let Some(index) = place else { continue };
            let now = &before.scrolls[index];
            if (now.x - scroll.x).abs() > SCROLL_TOLERANCE
                || (now.y - scroll.y).abs() > SCROLL_TOLERANCE
            {
                scrolls.push(json!({ "index": index, "x": scroll.x, "y": scroll.y }));
                changed.scrolls.insert(i);
            }
        }
        let after = if scrolls.is_empty() {
            before
        } else {
            self.read_checkpoint_state(
                Some(json!({ "scrolls": scrolls })),
                &saved.scrolls,
                deadline,
            )
            .await?
        };
        let (verified, restored, failed) = verdict(saved, &after, &changed, &refused);
        Ok(Restoration {
            reached,
            load,
            verified,
            restored,
            failed,
            omitted: omissions(saved),
        })
    }

    /// Brings the tab to the checkpoint's page: nothing when it is there, its history
    /// entry when the tab still has it (same URL), else the URL.
    async fn reach(
        &self,
        checkpoint: &Checkpoint,
        url: &Url,
        deadline: Deadline,
    ) -> Result<(Reached, Option<LoadOutcome>), Error> {
        let state = self.state();
        if !state.crashed && page_of(&state.url) == page_of(&checkpoint.url) {
            return Ok((Reached::InPlace, None));
        }
        if let Some(entry) = checkpoint.history_entry
            && !state.crashed
        {
            let history = self
                .session()
                .call(&page::GetNavigationHistory {}, deadline)
                .await?;
            let valid = history
                .entries
                .iter()
                .any(|e| e.id == entry && e.url == checkpoint.url);
            if valid {
                let outcome = self.go_to_entry(entry, &checkpoint.url, deadline).await?;
                return Ok((Reached::History, Some(outcome)));
            }
        }
        let outcome = self.navigate(url, deadline).await?;
        Ok((Reached::Loaded, Some(outcome)))
    }
}

/// The page's restorable state, after applying a plan if given (see `checkpoint/`); secret
/// fields omitted (given the secret field selector).
pub(crate) const CHECKPOINT: crate::script::Script<crate::checkpoint::Captured> =
    crate::script::script!("checkpoint" => crate::checkpoint::Captured);
