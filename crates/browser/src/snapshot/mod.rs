//! Element snapshots (SPEC §5.1): what the agent sees of a page, and the refs it acts
//! with. `capture` reads the browser, `outline` prunes and names, `budget` fits the
//! result to a token budget, `markdown` renders the readable form; this file ties them
//! to a tab and keeps the tab's snapshot memory (refs, ids, the last text for diffs).

mod budget;
mod capture;
mod markdown;
mod outline;

use std::collections::{HashMap, VecDeque};

use cdp::Deadline;

pub use budget::estimate_tokens;
pub(crate) use capture::{Observation, Rect};

use crate::refs::RefRegistry;
use crate::{Error, Tab};

/// Snapshots whose ref positions are kept for `snapshotId` checks.
const REMEMBERED_SNAPSHOTS: usize = 16;

/// What an element snapshot is asked for.
#[derive(Debug, Clone)]
pub struct SnapshotOptions {
    pub max_tokens: usize,
    /// Return only the lines changed since the previous snapshot, when that is smaller.
    pub diff: bool,
}

/// The viewport and scroll position, in CSS pixels.
#[derive(Debug, Clone, Copy, Default)]
pub struct ViewportInfo {
    pub width: f64,
    pub height: f64,
    pub scroll_x: f64,
    pub scroll_y: f64,
    pub page_width: f64,
    pub page_height: f64,
}

/// One element snapshot of a tab.
#[derive(Debug, Clone)]
pub struct ElementSnapshot {
    /// e.g. `tab0-s3`.
    pub id: String,
    pub text: String,
    /// Something inside the viewport did not fit the budget.
    pub truncated: bool,
    pub tokens: usize,
    pub viewport: ViewportInfo,
    pub elements_shown: usize,
    pub elements_omitted: usize,
    pub refs_shown: usize,
    pub title: String,
    /// The snapshot this one is a diff against, when `text` holds only the changes.
    pub diff_against: Option<String>,
}

/// The readable page as markdown.
#[derive(Debug, Clone)]
pub struct MarkdownSnapshot {
    pub id: String,
    pub text: String,
    pub truncated: bool,
    pub total_chars: usize,
    pub title: String,
}

/// A search of the whole page (SPEC §5.1b).
#[derive(Debug, Clone, Default)]
pub struct FindQuery {
    /// Text in the name or content, case-insensitive.
    pub text: Option<String>,
    pub role: Option<String>,
    /// With `role`: the accessible name, case-insensitive substring.
    pub name: Option<String>,
    pub limit: usize,
}

/// One match of a find.
#[derive(Debug, Clone)]
pub struct Found {
    pub r#ref: String,
    pub role: String,
    pub name: String,
    pub text: String,
    /// Landmarks around it and the heading it is under.
    pub path: Vec<String>,
    pub in_viewport: bool,
}

/// Where a ref resolved to.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    pub backend_id: i64,
    pub session: cdp::Session,
    pub role: String,
    pub name: String,
    /// The element that had the ref is gone; a unique role+name match in the same
    /// container stands in.
    pub relocated: bool,
}

/// Each ref of a snapshot: the DOM node it named and where it was.
type RefPositions = HashMap<String, (Option<i64>, Option<Rect>)>;

/// A tab's memory of its snapshots.
#[derive(Debug, Default)]
pub(crate) struct SnapshotMemory {
    registry: RefRegistry,
    count: u64,
    last: Option<(String, Vec<String>)>,
    /// Per recent snapshot: each ref's node and box when it was taken.
    records: VecDeque<(String, RefPositions)>,
}

impl Tab {
    /// Reads the page through CDP: one observation of every frame.
    pub(crate) async fn observe(&self, deadline: Deadline) -> Result<Observation, Error> {
        self.check_usable()?;
        let children: Vec<(String, cdp::Session)> = self
            .state()
            .child_frames
            .iter()
            .map(|(frame, session)| {
                (
                    frame.clone(),
                    self.session().connection().session(session.clone()),
                )
            })
            .collect();
        capture::observe(self.session(), &children, deadline).await
    }

    /// An element snapshot: the pruned accessibility tree with refs, within a budget.
    pub async fn snapshot(
        &self,
        options: &SnapshotOptions,
        deadline: Deadline,
    ) -> Result<ElementSnapshot, Error> {
        let observation = self.observe(deadline).await?;
        let epoch = self.state().url_epoch;
        let mut memory = self.memory();
        let outlined = outline::outline(&observation, epoch, &mut memory.registry);
        let viewport = observation.viewport;
        let packed = budget::pack(&outlined.lines, &viewport, options.max_tokens);
        let mut lines: Vec<String> = packed
            .chosen
            .iter()
            .map(|i| budget::render_line(&outlined.lines[*i]))
            .collect();
        let refs_shown = packed
            .chosen
            .iter()
            .filter(|i| {
                outlined.lines[**i]
                    .node
                    .is_some_and(|n| outlined.refs.contains_key(&n))
            })
            .count();
        if packed.elements_above > 0 {
            lines.insert(
                0,
                format!(
                    "# above the viewport: {:.1} screens, {} elements not shown\n",
                    packed.screens_above, packed.elements_above
                ),
            );
        }
        if packed.elements_below > 0 {
            lines.push(format!(
                "# below the viewport: {:.1} screens, {} elements not shown (browser_find searches the whole page)\n",
                packed.screens_below, packed.elements_below
            ));
        }
        memory.count += 1;
        let id = format!("{}-s{}", self.label(), memory.count);
        let record: RefPositions = outlined
            .refs
            .iter()
            .map(|(node, r)| {
                let node = &observation.nodes[*node];
                (r.clone(), (node.backend_id, node.bounds))
            })
            .collect();
        memory.records.push_back((id.clone(), record));
        if memory.records.len() > REMEMBERED_SNAPSHOTS {
            memory.records.pop_front();
        }
        let full: String = lines.concat();
        let (text, diff_against) = match (&memory.last, options.diff) {
            (Some((previous, old)), true) => match diff(old, &lines) {
                Some(changes) if changes.len() < full.len() => (changes, Some(previous.clone())),
                _ => (full.clone(), None),
            },
            _ => (full.clone(), None),
        };
        memory.last = Some((id.clone(), lines));
        drop(memory);
        Ok(ElementSnapshot {
            id,
            tokens: estimate_tokens(&text),
            text,
            truncated: packed.truncated,
            viewport: ViewportInfo {
                width: viewport.width,
                height: viewport.height,
                scroll_x: viewport.scroll_x,
                scroll_y: viewport.scroll_y,
                page_width: viewport.content_width,
                page_height: viewport.content_height,
            },
            elements_shown: packed.elements_shown,
            elements_omitted: packed.elements_above + packed.elements_below,
            refs_shown,
            title: observation
                .nodes
                .first()
                .map(|n| n.name.clone())
                .unwrap_or_default(),
            diff_against,
        })
    }

    /// The readable page as markdown with links and refs, at most `max_chars`.
    pub async fn markdown(
        &self,
        max_chars: usize,
        deadline: Deadline,
    ) -> Result<MarkdownSnapshot, Error> {
        let observation = self.observe(deadline).await?;
        let epoch = self.state().url_epoch;
        let mut memory = self.memory();
        let outlined = outline::outline(&observation, epoch, &mut memory.registry);
        memory.count += 1;
        let id = format!("{}-s{}", self.label(), memory.count);
        drop(memory);
        let full = markdown::render(&observation, &outlined);
        let (text, total_chars) = crate::page_read::clip_chars(&full, max_chars);
        Ok(MarkdownSnapshot {
            id,
            truncated: total_chars > max_chars,
            text: text.to_string(),
            total_chars,
            title: observation
                .nodes
                .first()
                .map(|n| n.name.clone())
                .unwrap_or_default(),
        })
    }

    /// Searches the whole page, not only what a budget showed. Every match gets a ref.
    pub async fn find(
        &self,
        query: &FindQuery,
        deadline: Deadline,
    ) -> Result<(Vec<Found>, usize), Error> {
        let observation = self.observe(deadline).await?;
        let epoch = self.state().url_epoch;
        let mut memory = self.memory();
        let outlined = outline::outline(&observation, epoch, &mut memory.registry);
        let matches = outline::find(&observation, &outlined, query);
        let total = matches.len();
        let mut found = Vec::new();
        for m in matches.into_iter().take(query.limit.max(1)) {
            let node = &observation.nodes[m.node];
            let r#ref = match outlined.refs.get(&m.node) {
                Some(r) => r.clone(),
                None => memory
                    .registry
                    .assign(&m.identity),
            };
            let name = if node.role == "StaticText" {
                String::new() // the text itself is in `text`, around the match
            } else {
                outline::clip(&m.identity.name, 100)
            };
            found.push(Found {
                r#ref,
                role: m.identity.role.clone(),
                name,

                text: m.text,
                path: m.path,
                in_viewport: node
                    .bounds
                    .is_some_and(|r| outline::intersects(&r, &observation.viewport)),
            });
        }
        Ok((found, total))
    }

    /// Finds the element a ref names now (SPEC §5.2): the same identity first; if it is
    /// gone, a unique element with the same role and name in the same container;
    /// anything else is `StaleRef`. With `snapshot_id`, an element that was replaced or
    /// moved since that snapshot is `StaleSnapshot`.
    pub(crate) async fn resolve(
        &self,
        r#ref: &str,
        snapshot_id: Option<&str>,
        deadline: Deadline,
    ) -> Result<Resolved, Error> {
        let stale = |reason: String| Error::StaleRef {
            r#ref: r#ref.to_string(),
            reason,
        };
        let (entry_identity, epoch) = {
            let memory = self.memory();
            let entry = memory
                .registry
                .get(r#ref)
                .ok_or_else(|| stale(format!("{} has no ref {ref} (refs come from browser_snapshot or browser_find of this tab)", self.label())))?;
            (entry.identity.clone(), self.state().url_epoch)
        };
        if entry_identity.epoch != epoch {
            return Err(stale(format!(
                "{ref} was taken before {} moved to {}; refs do not carry over to another page",
                self.label(),
                self.state().url
            )));
        }
        let observation = self.observe(deadline).await?;
        let mut memory = self.memory();
        let outlined = outline::outline(&observation, epoch, &mut memory.registry);
        let by_key = outlined
            .identities
            .iter()
            .find(|(_, id)| **id == entry_identity);
        let (node_index, relocated) = match by_key {
            Some((node, _)) => (*node, false),
            None => {
                let loose = entry_identity.loose_key();
                let candidates: Vec<usize> = outlined
                    .identities
                    .iter()
                    .filter(|(_, id)| id.loose_key() == loose)
                    .map(|(node, _)| *node)
                    .collect();
                match candidates.as_slice() {
                    [only] => (*only, true),
                    [] => {
                        return Err(stale(format!(
                            "the {} {:?} that {ref} named is no longer on the page",
                            entry_identity.role, entry_identity.name
                        )));
                    }
                    several => {
                        return Err(stale(format!(
                            "the {} {:?} that {ref} named is gone and {} similar elements stand in its place",
                            entry_identity.role,
                            entry_identity.name,
                            several.len()
                        )));
                    }
                }
            }
        };
        let node = &observation.nodes[node_index];
        if let Some(snapshot_id) = snapshot_id {
            let record = memory
                .records
                .iter()
                .find(|(id, _)| id == snapshot_id)
                .ok_or_else(|| Error::StaleSnapshot {
                    snapshot: snapshot_id.to_string(),
                    reason: format!("{snapshot_id} is not a recent snapshot of {}", self.label()),
                })?;
            let then = record.1.get(r#ref);
            let changed = match then {
                None => Some("it was not in that snapshot"),
                Some(_) if relocated => Some("it was replaced by another element"),
                Some((backend, _)) if *backend != node.backend_id => {
                    Some("it was replaced (re-rendered)")
                }
                Some((_, Some(before))) if node.bounds.is_some_and(|now| moved(before, &now)) => {
                    Some("it moved")
                }
                _ => None,
            };
            if let Some(reason) = changed {
                return Err(Error::StaleSnapshot {
                    snapshot: snapshot_id.to_string(),
                    reason: format!("{ref} changed since {snapshot_id}: {reason}"),
                });
            }
        }
        let backend_id = node
            .backend_id
            .ok_or_else(|| stale(format!("{ref} names no DOM element")))?;
        let session = observation
            .sessions
            .get(node.session)
            .cloned()
            .ok_or_else(|| stale(format!("the frame of {ref} is gone")))?;
        Ok(Resolved {
            backend_id,
            session,
            role: outline::display_role(&node.role).to_string(),
            name: node.name.clone(),
            relocated,
        })
    }

    fn memory(&self) -> std::sync::MutexGuard<'_, SnapshotMemory> {
        self.snapshot_memory()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
}

/// More than 2 px off in any direction.
fn moved(before: &Rect, now: &Rect) -> bool {
    (before.x - now.x).abs() > 2.0
        || (before.y - now.y).abs() > 2.0
        || (before.width - now.width).abs() > 2.0
        || (before.height - now.height).abs() > 2.0
}

/// Only the changed lines, marked `+`/`-`, or `None` when nothing changed.
fn diff(old: &[String], new: &[String]) -> Option<String> {
    let old: Vec<&str> = old.iter().map(String::as_str).collect();
    let new: Vec<&str> = new.iter().map(String::as_str).collect();
    let changes = similar::TextDiff::from_slices(&old, &new);
    let mut out = String::new();
    for change in changes.iter_all_changes() {
        let sign = match change.tag() {
            similar::ChangeTag::Equal => continue,
            similar::ChangeTag::Delete => "-",
            similar::ChangeTag::Insert => "+",
        };
        out.push_str(sign);
        out.push(' ');
        out.push_str(change.value());
    }
    if out.is_empty() {
        Some("# no change since the previous snapshot\n".to_string())
    } else {
        Some(out)
    }
}
