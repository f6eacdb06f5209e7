//! Element snapshots (docs/observation.md#elements): what the agent sees of a page, and the refs it acts
//! with. `capture` reads the browser, `outline` prunes and names, `budget` fits the
//! result to a token budget, `markdown` renders the readable form; this file ties them
//! to a tab and keeps the tab's snapshot memory (refs, ids, the last text for diffs).

mod budget;
mod capture;
mod coverage;
mod find;
mod locate;
mod markdown;
mod marks;
pub(crate) mod next_screen;
mod outline;
pub(crate) mod region;
mod text_breaks;

use std::collections::{HashMap, VecDeque};

use cdp::Deadline;

pub use budget::estimate_tokens;
pub(crate) use capture::{Observation, Rect};
pub use coverage::Cover;
pub use locate::{Candidate, Locator};
pub(crate) use locate::{Located, node_at};
pub use marks::{MAX_MARKS, Mark};
pub use next_screen::{NextScreen, Step};
pub(crate) use outline::clip as clip_text;

use crate::refs::RefRegistry;
use crate::{Error, Tab};

/// The tracing target of the snapshot path's timings (`CANDOR_LOG=candor::snapshot=debug`):
/// each read, its size and what it cost, for profiling; silent at the default level.
pub(crate) const PROFILE: &str = "candor::snapshot";

/// How many small pages' URLs a tab keeps (`SnapshotMemory::small_pages`); past that, it
/// starts again.
const SMALL_PAGES_KEPT: usize = 64;

/// Snapshots whose ref positions are kept for `snapshotId` checks.
const REMEMBERED_SNAPSHOTS: usize = 16;

/// What an element snapshot is asked for.
#[derive(Debug, Clone)]
pub struct SnapshotOptions {
    pub max_tokens: usize,
    /// Return only the lines changed since the previous snapshot, when that is smaller.
    pub diff: bool,
    /// Take a checkpoint of the page with the snapshot (docs/faces.md#checkpoints).
    pub checkpoint: bool,
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
    pub coverage: Coverage,
    /// Each listed line whose items were not all listed (a list, a table, a scroll
    /// container…), in document order: so "the cheapest of what I see" never passes for
    /// "the cheapest".
    pub lists: Vec<ListCount>,
    /// The page's restorable state, under the snapshot's id, when asked for: or why it
    /// could not be read.
    pub checkpoint: Option<Result<crate::Checkpoint, Error>>,
}

/// What of the page, and of each scroll container, has been in view in the current
/// revision (docs/observation.md#coverage).
#[derive(Debug, Clone)]
pub struct Coverage {
    pub page: Cover,
    /// Each scroll container's ref and coverage, in document order.
    pub containers: Vec<(String, Cover)>,
}

/// A listed line whose items the budget did not all list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListCount {
    /// Its ref, when it has one (a scroll container always does).
    pub r#ref: Option<String>,
    /// Its role as the snapshot shows it.
    pub role: String,
    /// Its items listed, of all it holds.
    pub listed: usize,
    pub total: usize,
}

/// Said with every coverage: the viewport is all coverage knows about.
pub const COVERAGE_NOTE: &str =
    "coverage is of what was in view; it does not mean a server-backed list has loaded everything";

/// The readable page as markdown.
#[derive(Debug, Clone)]
pub struct MarkdownSnapshot {
    pub id: String,
    pub text: String,
    pub truncated: bool,
    pub total_chars: usize,
    pub title: String,
}

/// A search of the whole page (docs/observation.md#find).
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

/// Each ref of a snapshot: the DOM node it named and where it was.
type RefPositions = HashMap<String, (Option<i64>, Option<Rect>)>;

/// What an element snapshot reads of the page (`Tab::read_for_snapshot`), before it is
/// made into one (`Tab::snapshot_of`).
pub struct SnapshotReading {
    observation: Observation,
    revision: Option<u64>,
    captured: Option<Result<crate::checkpoint::Capture, Error>>,
    took: std::time::Duration,
}

/// A reading of at most this many nodes costs a few milliseconds to make again (the
/// accessibility tree and the DOM snapshot grow with the nodes: about 25 µs each).
const SMALL_READING: usize = 1_000;

impl SnapshotReading {
    /// Whether making this reading again costs little: few nodes.
    pub fn is_small(&self) -> bool {
        self.observation.nodes.len() <= SMALL_READING
    }
}

impl std::fmt::Debug for SnapshotReading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SnapshotReading")
            .field("nodes", &self.observation.nodes.len())
            .field("took", &self.took)
            .finish_non_exhaustive()
    }
}

/// A tab's memory of its snapshots.
#[derive(Debug, Default)]
pub(crate) struct SnapshotMemory {
    registry: RefRegistry,
    count: u64,
    /// Dialogs already shown at the top of a snapshot.
    dialogs_shown: u64,
    last: Option<(String, Vec<String>)>,
    /// Per recent snapshot: each ref's node and box when it was taken.
    records: VecDeque<(String, RefPositions)>,
    coverage: coverage::CoverageMemory,
    /// The last element snapshot's page revision, its id and how many observations of
    /// that revision followed it (`tab0-s7` then `tab0-s7.1`, `.2`, …).
    revision: Option<(u64, String, u32)>,
    /// The URLs whose last observation read the page whole and found it small: fewer
    /// DOM nodes than a page the region pass would read in part, and no other frames.
    small_pages: std::collections::HashSet<String>,
    /// The content of the lines in view at the last observation (refs aside, see
    /// `next_screen::line_key`): `scroll_next_screen` reports what comes into view that
    /// was not.
    in_view: std::collections::HashSet<String>,
    /// The content of every line the last element snapshot listed, on screen or not:
    /// `scroll_next_screen` does not report it again as new.
    listed: std::collections::HashSet<String>,
}

impl SnapshotMemory {
    /// What the tab's ref registry holds: the refs kept whole, and the retired names
    /// (`footprint.rs`).
    pub(crate) fn ref_footprint(&self) -> (crate::Held, crate::Held) {
        self.registry.footprint()
    }
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
        let reading = self.read_for_snapshot(options, deadline).await?;
        Ok(self.snapshot_of(reading, options))
    }

    /// The reads an element snapshot is made of, and nothing else: a reading not made
    /// into a snapshot leaves no trace (`Tab::settle_then_read` may drop one).
    pub async fn read_for_snapshot(
        &self,
        options: &SnapshotOptions,
        deadline: Deadline,
    ) -> Result<SnapshotReading, Error> {
        let started = std::time::Instant::now();
        let (observation, revision, captured) = self
            .observe_with_revision(options.checkpoint, options.max_tokens, deadline)
            .await?;
        Ok(SnapshotReading {
            observation,
            revision,
            captured,
            took: started.elapsed(),
        })
    }

    /// The element snapshot of `reading`: refs, pruning, the budget, and the tab's memory
    /// of what it was shown.
    pub fn snapshot_of(
        &self,
        reading: SnapshotReading,
        options: &SnapshotOptions,
    ) -> ElementSnapshot {
        let started = std::time::Instant::now();
        let SnapshotReading {
            observation,
            revision,
            captured,
            took: observed,
        } = reading;
        let epoch = self.state().url_epoch;
        let revision = revision.map(|r| self.revision_key(r, &observation.viewport));
        let mut memory = self.memory();
        let outlined = outline::outline(&observation, epoch, &mut memory.registry);
        let outline_took = started.elapsed();
        let coverage = self.cover(&mut memory, &observation, &outlined, revision);
        let viewport = observation.viewport;
        // The coverage line comes out of the same budget.
        let covered = coverage_line(&coverage);
        let packed = budget::pack(
            &outlined.lines,
            &viewport,
            observation.elements_beyond,
            options.max_tokens.saturating_sub(estimate_tokens(&covered)),
        );
        let mut lines = budget::render(&outlined.lines, &packed, |node| {
            outlined.refs.get(&node).cloned()
        });
        let refs_shown = packed
            .chosen
            .iter()
            .filter(|i| {
                outlined.lines[**i]
                    .node
                    .is_some_and(|n| outlined.refs.contains_key(&n))
            })
            .count();
        // Dialogs handled since the last snapshot come first (docs/acting.md#dialogs).
        let handled = self.dialogs_since(memory.dialogs_shown);
        let newest = handled.first.iter().chain(&handled.last).rev().take(3);
        for dialog in newest.collect::<Vec<_>>().into_iter().rev() {
            lines.insert(
                0,
                format!(
                    "# dialog handled: {} {:?} → {}\n",
                    dialog.kind, dialog.message, dialog.answer
                ),
            );
        }
        memory.dialogs_shown += handled.count;
        let mut summaries = budget::summaries(&packed).into_iter();
        if packed.elements_above > 0
            && let Some(above) = summaries.next()
        {
            lines.insert(0, above);
        }
        lines.extend(summaries);
        let mut seen = std::collections::HashSet::new();
        let lists: Vec<ListCount> = packed
            .cuts
            .iter()
            .filter(|cut| seen.insert(cut.parent))
            .map(|cut| {
                let line = &outlined.lines[cut.parent];
                ListCount {
                    r#ref: line.node.and_then(|n| outlined.refs.get(&n).cloned()),
                    role: line.text.split(' ').next().unwrap_or_default().to_string(),
                    listed: cut.listed,
                    total: cut.total,
                }
            })
            .collect();
        let id = self.next_id(&mut memory, revision);
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
        // What was on screen, and what the agent was shown at all: `scroll_next_screen`
        // reports what comes into view that was in neither.
        memory.in_view = packed
            .chosen
            .iter()
            .filter(|i| packed.in_view[**i])
            .map(|i| next_screen::line_key(&outlined.lines, *i))
            .collect();
        memory.listed = packed
            .chosen
            .iter()
            .map(|i| next_screen::line_key(&outlined.lines, *i))
            .collect();
        memory.last = Some((id.clone(), lines));
        drop(memory);
        tracing::debug!(
            target: PROFILE,
            observe_ms = observed.as_secs_f64() * 1000.0,
            outline_ms = outline_took.as_secs_f64() * 1000.0,
            pack_ms = (started.elapsed() - outline_took).as_secs_f64() * 1000.0,
            nodes = observation.nodes.len(),
            lines = outlined.lines.len(),
            tokens = packed.tokens,
            "element snapshot"
        );
        // Coverage comes last, outside what later diffs compare; a snapshot that shows
        // the whole page, with no scroll container and nothing left out, has nothing to
        // report in it and leaves the line out (`coverage` keeps it).
        let whole = coverage.page.all_seen()
            && coverage.containers.is_empty()
            && !packed.truncated
            && packed.elements_above + packed.elements_below == 0;
        let text = if whole { text } else { text + &covered };
        let checkpoint =
            captured.map(|state| state.map(|state| self.checkpoint_of(id.clone(), state)));
        ElementSnapshot {
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
            coverage,
            lists,
            checkpoint,
        }
    }

    /// The id of a new element snapshot: the next number, or the last one's with the
    /// next suffix when the page's revision has not changed since.
    fn next_id(&self, memory: &mut SnapshotMemory, revision: Option<u64>) -> String {
        match (&mut memory.revision, revision) {
            (Some((last, base, repeats)), Some(now)) if *last == now => {
                *repeats += 1;
                format!("{base}.{repeats}")
            }
            (_, revision) => {
                memory.count += 1;
                let id = format!("{}-s{}", self.label(), memory.count);
                memory.revision = revision.map(|r| (r, id.clone(), 0));
                id
            }
        }
    }

    /// The page's revision as coverage and snapshot ids know it: its URL, content
    /// revision, viewport size and content height.
    pub(crate) fn revision_key(&self, revision: u64, viewport: &capture::Viewport) -> u64 {
        crate::refs::Fnv::new()
            .field(&self.state().url)
            .number(revision)
            .number(viewport.width.round() as u64)
            .number(viewport.height.round() as u64)
            .number(viewport.content_height.round() as u64)
            .finish()
    }

    /// An observation for a snapshot of `max_tokens` (around the viewport on a large page,
    /// see `region.rs`) and the page's content revision, read beside it.
    /// With `checkpoint`, the page's restorable state is read beside them too.
    pub(crate) async fn observe_with_revision(
        &self,
        checkpoint: bool,
        max_tokens: usize,
        deadline: Deadline,
    ) -> Result<
        (
            Observation,
            Option<u64>,
            Option<Result<crate::checkpoint::Capture, Error>>,
        ),
        Error,
    > {
        // A page (by URL) last read whole, and small, is read whole again without asking
        // it whether it is large (one round trip into the page fewer): one that has grown
        // since costs one whole read, which says so for the next; one grown past what a
        // whole read can carry is asked at once, as any page is.
        let url = self.state().url;
        let small = self.memory().small_pages.remove(&url);
        let read_whole = async || {
            let whole = self.observe(deadline).await?;
            let few = whole
                .dom_parents
                .first()
                .is_some_and(|parents| parents.len() < region::LARGE_PAGE_ELEMENTS)
                && whole.sessions.len() == 1;
            Ok::<_, Error>((whole, few))
        };
        let observe = async {
            if small {
                match read_whole().await {
                    Err(Error::PageTooLarge { .. }) => {}
                    read => return read,
                }
            }
            match self.observe_region(max_tokens, deadline).await? {
                Some(observation) => Ok((observation, false)),
                None => read_whole().await,
            }
        };
        let revision = self.call_script(&PAGE_REVISION, Vec::new(), deadline);
        let captured = async {
            if checkpoint {
                Some(self.capture_checkpoint(deadline).await)
            } else {
                None
            }
        };
        let (observation, revision, captured) = tokio::join!(observe, revision, captured);
        let (observation, few) = observation?;
        if few {
            let mut memory = self.memory();
            if memory.small_pages.len() >= SMALL_PAGES_KEPT {
                memory.small_pages.clear();
            }
            memory.small_pages.insert(url);
        }
        Ok((observation, revision.ok().flatten(), captured))
    }

    /// Records what this observation shows in the tab's coverage and reports it.
    fn cover(
        &self,
        memory: &mut SnapshotMemory,
        observation: &Observation,
        outlined: &outline::Outline,
        revision: Option<u64>,
    ) -> Coverage {
        let viewport = observation.viewport;
        let page = memory.coverage.page(coverage::Window {
            revision,
            top: viewport.scroll_y,
            bottom: viewport.scroll_y + viewport.height,
            total: viewport.content_height,
        });
        let containers = outlined
            .containers
            .iter()
            .filter_map(|container| {
                let r#ref = outlined.refs.get(&container.node)?;
                let identity = outlined.identities.get(&container.node)?.key();
                let cover = memory.coverage.container(r#ref, container.window(identity));
                Some((r#ref.clone(), cover))
            })
            .collect();
        Coverage { page, containers }
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
        memory.revision = None;
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
        let matches = find::find(&observation, &outlined, query);
        let total = matches.len();
        let mut found = Vec::new();
        for m in matches.into_iter().take(query.limit.max(1)) {
            let node = &observation.nodes[m.node];
            let r#ref = outlined.ref_of(&observation, m.node, &m.identity, &mut memory.registry);
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

    pub(crate) fn memory(&self) -> std::sync::MutexGuard<'_, SnapshotMemory> {
        self.snapshot_memory()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
}

/// Only the changed lines, or `None` when nothing changed: `- ` a line gone, `+ ` a line
/// added, `~ ` a line that changed in place, as it now reads — said once, not as a removal
/// and an addition. A line changed in place is one whose key (its element's ref, or a text
/// line's label up to `: `) is on exactly one line before and one line after, both in
/// the same changed stretch; what it read before is in the snapshot it is compared with.
fn diff(old: &[String], new: &[String]) -> Option<String> {
    let old: Vec<&str> = old.iter().map(String::as_str).collect();
    let new: Vec<&str> = new.iter().map(String::as_str).collect();
    let (old_keys, new_keys) = (key_counts(&old), key_counts(&new));
    let unique = |line: &'_ str| -> Option<String> {
        diff_key(line)
            .filter(|k| old_keys.get(k) == Some(&1) && new_keys.get(k) == Some(&1))
            .map(str::to_string)
    };
    let changes = similar::TextDiff::from_slices(&old, &new);
    let mut out = String::new();
    for op in changes.ops() {
        let (gone, added) = (op.old_range(), op.new_range());
        if matches!(op, similar::DiffOp::Equal { .. }) {
            continue;
        }
        let changed: Vec<String> = added.clone().filter_map(|i| unique(new[i])).collect();
        let removed: Vec<String> = gone.clone().filter_map(|i| unique(old[i])).collect();
        for line in &old[gone] {
            if !unique(line).is_some_and(|key| changed.contains(&key)) {
                out.push_str("- ");
                out.push_str(line);
            }
        }
        for line in &new[added] {
            let in_place = unique(line).is_some_and(|key| removed.contains(&key));
            out.push_str(if in_place { "~ " } else { "+ " });
            out.push_str(line);
        }
    }
    if out.is_empty() {
        Some("# no change since the previous snapshot\n".to_string())
    } else {
        Some(out)
    }
}

/// How many lines have each key.
fn key_counts<'a>(lines: &[&'a str]) -> HashMap<&'a str, usize> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for key in lines.iter().filter_map(|line| diff_key(line)) {
        *counts.entry(key).or_default() += 1;
    }
    counts
}

/// What identifies a snapshot line across two snapshots: its element's ref, or, for a
/// line of text, its label (`Time left:`); `None` for other lines.
fn diff_key(line: &str) -> Option<&str> {
    let body = line.trim_start();
    if body.starts_with("- ") {
        return body
            .split_whitespace()
            .filter_map(|word| word.strip_prefix('[')?.strip_suffix(']'))
            .find(|word| crate::refs::is_ref(word));
    }
    if body.starts_with('#') {
        return None;
    }
    let label = body
        .find(": ")
        .map(|at| &line[..line.len() - body.len() + at + 1])?;
    Some(label).filter(|l| !l.trim_start().contains('"'))
}

/// The snapshot's last line: `# coverage: seen 0–1,800 of 6,400 px (28 %); container
/// [e7k2] seen …` (left out when it would only say that all of it was seen).
fn coverage_line(coverage: &Coverage) -> String {
    let mut line = format!("# coverage: {}", coverage::describe(&coverage.page));
    for (r#ref, cover) in &coverage.containers {
        line.push_str(&format!(
            "; container [{ref}] {}",
            coverage::describe(cover)
        ));
    }
    line.push_str(" (what was in view: not proof that a list has loaded everything)\n");
    line
}

/// The page's content revision (see `snapshot/coverage.rs`); null without the watcher.
pub(crate) const PAGE_REVISION: crate::script::Script<Option<u64>> =
    crate::script::script!("page_revision" => Option<u64>);

#[cfg(test)]
mod tests {
    use super::diff;

    fn lines(text: &str) -> Vec<String> {
        text.split_inclusive('\n').map(str::to_string).collect()
    }

    fn check(old: &str, new: &str, expected: &str) {
        let got = diff(&lines(old), &lines(new)).expect("a diff");
        assert_eq!(got, expected, "\nold:\n{old}\nnew:\n{new}");
    }

    #[test]
    fn a_line_changed_in_place_is_said_once_as_it_now_reads() {
        check(
            "- textbox [e1]\n- button \"Go\" [e2]\nTime left: 10 / 10sec\nEpisodes done: 0\n",
            "- textbox [e1] value=\"Ann\"\n- button \"Go\" [e2]\nTime left: -\nEpisodes done: 1\n- clickable \"START\" [e3]\n",
            "~ - textbox [e1] value=\"Ann\"\n~ Time left: -\n~ Episodes done: 1\n+ - clickable \"START\" [e3]\n",
        );
    }

    #[test]
    fn lines_without_a_key_or_with_a_shared_one_are_a_removal_and_an_addition() {
        // Text without a label, and a label two lines share: nothing says which changed.
        check(
            "Home view\nNote: a\nNote: b\n- button \"Go\" [e2]\n",
            "Details view 1\nNote: c\nNote: b\n- button \"Go\" [e2]\n",
            "- Home view\n- Note: a\n+ Details view 1\n+ Note: c\n",
        );
        // An element that left and another that came: different refs.
        check(
            "- link \"One\" [e1]\n",
            "- link \"Two\" [e2]\n",
            "- - link \"One\" [e1]\n+ - link \"Two\" [e2]\n",
        );
    }

    #[test]
    fn nothing_changed_is_said() {
        check("a\n", "a\n", "# no change since the previous snapshot\n");
    }
}
