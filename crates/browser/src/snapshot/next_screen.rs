//! `scroll_next_screen` (docs/observation.md#next-screen): one screen on, on the page or in a scroll container,
//! and only what that screen shows that the agent has not been shown — decided by
//! content, not by DOM nodes, so a virtual list's recycled rows count once.

use std::time::{Duration, Instant};

use cdp::Deadline;

use super::{Coverage, Locator, budget, outline};
use crate::{Error, Tab};

/// How much of the visible height one step advances; the rest stays as overlap.
const STEP: f64 = 0.8;

/// What `next_screen.js` answers.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct Scrolled {
    before: f64,
    after: f64,
    height: f64,
    total: f64,
    scrollable: bool,
}

/// One step taken: what was scrolled, and by how much.
#[derive(Debug)]
pub struct Step {
    started: Instant,
    container: Option<String>,
    target: Option<(cdp::Session, i64)>,
    scrolled: Scrolled,
}

impl Step {
    /// Pixels scrolled (0: it was at the end).
    pub fn moved(&self) -> f64 {
        (self.scrolled.after - self.scrolled.before).max(0.0)
    }
}

/// What one `scroll_next_screen` did and found.
#[derive(Debug, Clone)]
pub struct NextScreen {
    /// Pixels scrolled; 0 at the end.
    pub scrolled_by: f64,
    /// The bottom is in view (after the scroll).
    pub at_end: bool,
    /// The lines of the screen not shown before (with refs), in page order.
    pub new_content: String,
    pub new_lines: usize,
    /// The container scrolled (its ref), or `None` for the page.
    pub container: Option<String>,
    pub coverage: Coverage,
    /// The page had stopped changing within the settle budget.
    pub settled: bool,
}

impl Tab {
    /// Scrolls the page, or the scroll container `container` (a ref), one screen on —
    /// unless its end is in view. Nothing is sent when this fails before the scroll.
    pub async fn scroll_step(
        &self,
        container: Option<&str>,
        deadline: Deadline,
    ) -> Result<Step, Error> {
        let arguments = vec![serde_json::json!(STEP)];
        let (scrolled, target) = match container {
            Some(r#ref) => {
                let located = self
                    .locate(
                        &Locator::Ref {
                            r#ref: r#ref.to_string(),
                            snapshot_id: None,
                        },
                        deadline,
                    )
                    .await?;
                let scrolled = self
                    .call_on_node(
                        &located.session,
                        located.backend_id,
                        &NEXT_SCREEN,
                        arguments,
                        deadline,
                    )
                    .await?;
                (
                    scrolled,
                    Some((located.session.clone(), located.backend_id)),
                )
            }
            None => (
                self.call_script(&NEXT_SCREEN, arguments, deadline).await?,
                None,
            ),
        };
        if !scrolled.scrollable {
            return Err(Error::InvalidParams {
                what: container.map_or("the page".into(), |r| format!("ref {r}")),
                reason: format!(
                    "it does not scroll: its content ({:.0} px) fits its height ({:.0} px)",
                    scrolled.total, scrolled.height
                ),
            });
        }
        Ok(Step {
            started: Instant::now(),
            container: container.map(str::to_string),
            target,
            scrolled,
        })
    }

    /// After a step: settles, and reads what the screen shows that is new.
    pub async fn read_next_screen(
        &self,
        step: Step,
        settle: Duration,
        deadline: Deadline,
    ) -> Result<NextScreen, Error> {
        let Step {
            started,
            container,
            target,
            scrolled,
        } = step;
        let container = container.as_deref();
        let moved = scrolled.after - scrolled.before;
        let settled = if moved.abs() >= 1.0 && !settle.is_zero() {
            self.wait_quiet(settle, Some(started), deadline)
                .await
                .map(|s| s.quiet)
                .unwrap_or(false)
        } else {
            true
        };

        let (observation, revision, _) = self
            .observe_with_revision(false, super::region::BASE_BUDGET, deadline)
            .await?;
        let epoch = self.state().url_epoch;
        let revision = revision.map(|r| self.revision_key(r, &observation.viewport));
        let mut memory = self.memory();
        let outlined = outline::outline(&observation, epoch, &mut memory.registry);
        let coverage = self.cover(&mut memory, &observation, &outlined, revision);
        // The window now in view: the container's box (in document coordinates), or the
        // viewport.
        let (node, window) = match &target {
            Some((session, backend)) => {
                let node = observation.nodes.iter().position(|n| {
                    n.backend_id == Some(*backend)
                        && observation
                            .sessions
                            .get(n.session)
                            .is_some_and(|s| s.id() == session.id())
                });
                let bounds = node.and_then(|n| observation.nodes[n].bounds);
                (node, bounds.map(|b| (b.y, b.bottom())))
            }
            None => {
                let v = observation.viewport;
                (None, Some((v.scroll_y, v.scroll_y + v.height)))
            }
        };
        let Some((top, bottom)) = window else {
            return Err(Error::ElementNotFound {
                locator: container.map_or("the page".into(), |r| format!("ref {r}")),
                reason: "it is no longer shown after scrolling".into(),
            });
        };
        let inside = |line: &outline::Line| {
            let in_window = line
                .rect
                .is_some_and(|r| r.bottom() > top + 0.5 && r.y < bottom - 0.5);
            let in_container = node.is_none_or(|c| {
                line.node
                    .is_some_and(|n| n != c && descends(&observation, n, c))
            });
            // A line scrolled out of a container inside the window is not on screen.
            in_window && in_container && line.scrolled.is_none()
        };
        let in_view: Vec<usize> = (0..outlined.lines.len())
            .filter(|i| inside(&outlined.lines[*i]))
            .collect();
        // What was in view before the step is not new; a row a recycled node shows
        // again is the same content.
        let before = std::mem::take(&mut memory.in_view);
        let mut new_content = String::new();
        let mut new_lines = 0;
        for &i in &in_view {
            let key = line_key(&outlined.lines, i);
            if !before.contains(&key)
                && !memory.in_view.contains(&key)
                && !memory.listed.contains(&key)
            {
                new_content.push_str(&budget::render_line(&outlined.lines[i]));
                new_lines += 1;
            }
            memory.in_view.insert(key);
        }
        drop(memory);

        let cover = match container {
            Some(r#ref) => coverage
                .containers
                .iter()
                .find(|(r, _)| r == r#ref)
                .map(|(_, c)| c.at_end),
            None => Some(coverage.page.at_end),
        };
        Ok(NextScreen {
            scrolled_by: moved.max(0.0),
            at_end: cover.unwrap_or(scrolled.after + scrolled.height >= scrolled.total - 1.0),
            new_content,
            new_lines,
            container: container.map(str::to_string),
            coverage,
            settled,
        })
    }
}

/// Whether node `node` lies inside node `ancestor` of the observation.
fn descends(observation: &super::Observation, node: usize, ancestor: usize) -> bool {
    let mut at = observation.nodes[node].parent;
    while let Some(p) = at {
        if p == ancestor {
            return true;
        }
        at = observation.nodes[p].parent;
    }
    false
}

/// What tells a line's content apart: its own content and its parent line's (a row's
/// "Delete" button is not another row's).
pub(crate) fn line_key(lines: &[outline::Line], index: usize) -> String {
    let line = &lines[index];
    let own = content(&budget::render_line(line));
    match line.parent {
        Some(parent) => format!("{own} ‹ {}", content(&budget::render_line(&lines[parent]))),
        None => own,
    }
}

/// A line's content: without indentation, bullet or refs, so the same text shown by
/// another (recycled) node is the same content.
pub(crate) fn content(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line.trim().trim_start_matches("- ");
    while let Some(at) = rest.find(" [e") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        match after.find(']') {
            Some(end) if crate::refs::is_ref(&after[..end]) => rest = &after[end + 1..],
            _ => {
                out.push_str(" [");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `{before, after, height, total, scrollable}`: scrolls the page or a container one
/// screen on (see `snapshot/next_screen.rs`).
pub(crate) const NEXT_SCREEN: crate::script::Script<crate::snapshot::next_screen::Scrolled> =
    crate::script::script!("next_screen" => crate::snapshot::next_screen::Scrolled);

#[cfg(test)]
mod tests {
    use super::content;

    #[test]
    fn content_leaves_out_refs_and_layout_only() {
        assert_eq!(
            content("    - button \"Row 5\" [e4k2] disabled\n"),
            "button \"Row 5\" disabled"
        );
        assert_eq!(content("- link \"a [b]\" [e9zz0]"), "link \"a [b]\"");
        assert_eq!(
            content("text about [e] and [eXY] things"),
            "text about [e] and [eXY] things"
        );
        assert_eq!(content("- listitem"), "listitem");
    }
}
