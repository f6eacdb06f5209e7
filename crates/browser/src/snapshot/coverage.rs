//! Coverage (docs/observation.md#coverage): which vertical ranges of the page, and of each scroll container,
//! have been inside the viewport for the current DOM revision. Pure bookkeeping: the
//! snapshot measures windows and revisions, this module merges and reports them.
//!
//! A revision is what the ranges are true of: for the page its URL, viewport size,
//! content height and the page-side count of content mutations; for a container its
//! identity, box height, content height and a fingerprint of its content. A new revision
//! drops what was seen before — conservative on purpose: a list that keeps changing keeps
//! losing its progress rather than claiming rows it no longer shows.

use std::collections::HashMap;

use super::capture::Node;
use crate::refs::Fnv;

/// Ranges `[top, bottom)` in CSS pixels, sorted and merged.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Ranges(Vec<(f64, f64)>);

impl Ranges {
    /// Adds `[top, bottom)`, merging what touches or overlaps it.
    pub fn add(&mut self, top: f64, bottom: f64) {
        if bottom <= top {
            return;
        }
        let (mut top, mut bottom) = (top, bottom);
        let mut kept = Vec::with_capacity(self.0.len() + 1);
        for &(a, b) in &self.0 {
            if b < top || a > bottom {
                kept.push((a, b));
            } else {
                top = top.min(a);
                bottom = bottom.max(b);
            }
        }
        kept.push((top, bottom));
        kept.sort_by(|x, y| x.0.total_cmp(&y.0));
        self.0 = kept;
    }

    /// The ranges, each clipped to `[0, total)`.
    pub fn within(&self, total: f64) -> Vec<(f64, f64)> {
        self.0
            .iter()
            .map(|&(a, b)| (a.max(0.0), b.min(total)))
            .filter(|(a, b)| b > a)
            .collect()
    }

    /// What of `[0, total)` is not covered.
    pub fn gaps(&self, total: f64) -> Vec<(f64, f64)> {
        let mut gaps = Vec::new();
        let mut at = 0.0;
        for (a, b) in self.within(total) {
            if a > at {
                gaps.push((at, a));
            }
            at = at.max(b);
        }
        if total > at {
            gaps.push((at, total));
        }
        gaps
    }
}

/// One scrolled surface's coverage in its current revision.
#[derive(Debug, Clone, Default)]
struct Tracked {
    revision: u64,
    seen: Ranges,
}

/// What a surface shows now: its revision, the window in view, and its content height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Window {
    /// `None`: the revision could not be read; nothing earlier is counted.
    pub revision: Option<u64>,
    pub top: f64,
    pub bottom: f64,
    pub total: f64,
}

/// The coverage of one surface, as reported.
#[derive(Debug, Clone, PartialEq)]
pub struct Cover {
    /// Seen ranges in the current revision, `[top, bottom)` px, merged.
    pub seen: Vec<(f64, f64)>,
    /// The rest of `[0, height)`.
    pub unseen: Vec<(f64, f64)>,
    /// Seen share of the height, 0 to 1.
    pub fraction: f64,
    /// The content height, px.
    pub height: f64,
    /// The bottom of the content is in view.
    pub at_end: bool,
}

impl Cover {
    /// Every pixel of the content has been in view (gaps under a pixel do not count).
    pub fn all_seen(&self) -> bool {
        self.unseen.iter().all(|(a, b)| b - a < 1.0)
    }
}

/// A tab's coverage: the page's, and each scroll container's by its ref.
#[derive(Debug, Default)]
pub(crate) struct CoverageMemory {
    page: Tracked,
    containers: HashMap<String, Tracked>,
}

impl CoverageMemory {
    /// Records the page's window; returns its coverage.
    pub fn page(&mut self, window: Window) -> Cover {
        record(&mut self.page, window)
    }

    /// Records the window of the container `r#ref`; returns its coverage.
    pub fn container(&mut self, r#ref: &str, window: Window) -> Cover {
        record(
            self.containers.entry(r#ref.to_string()).or_default(),
            window,
        )
    }
}

fn record(tracked: &mut Tracked, window: Window) -> Cover {
    match window.revision {
        Some(revision) if revision == tracked.revision => {}
        other => {
            tracked.revision = other.unwrap_or(0);
            tracked.seen = Ranges::default();
        }
    }
    let total = window.total.max(window.bottom).max(0.0);
    tracked
        .seen
        .add(window.top.max(0.0), window.bottom.min(total));
    let seen = tracked.seen.within(total);
    let covered: f64 = seen.iter().map(|(a, b)| b - a).sum();
    let cover = Cover {
        unseen: tracked.seen.gaps(total),
        seen,
        fraction: if total > 0.0 {
            (covered / total).min(1.0)
        } else {
            1.0
        },
        height: total,
        at_end: window.bottom >= total - 1.0,
    };
    // A revision that could not be read counts for this window only.
    if window.revision.is_none() {
        tracked.revision = u64::MAX;
        tracked.seen = Ranges::default();
    }
    cover
}

/// A scroll container as one observation shows it: its box, and the extent of its
/// content (the boxes of what it scrolls), both in document coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Container {
    pub node: usize,
    /// Its scroll position: how far its box's top lies below its content's top.
    pub top: f64,
    /// Its box's height.
    pub height: f64,
    /// Its content's height.
    pub total: f64,
    /// What it holds: the roles and names of its content, in order.
    pub fingerprint: u64,
}

impl Container {
    /// The revision of what it shows: the content and the sizes.
    pub fn window(&self, identity: u64) -> Window {
        Window {
            revision: Some(
                Fnv::new()
                    .number(identity)
                    .number(self.fingerprint)
                    .number(self.height.round() as u64)
                    .number(self.total.round() as u64)
                    .finish(),
            ),
            top: self.top,
            bottom: self.top + self.height,
            total: self.total,
        }
    }
}

/// The shown scroll containers (`overflow: auto|scroll`) whose content is taller than
/// their box, measured from the observation's geometry: the content's extent is the
/// union of the boxes of the nodes it scrolls (a virtual list's spacer included).
pub(crate) fn scroll_containers(nodes: &[Node], visible: &[bool]) -> Vec<Container> {
    let mut nearest: Vec<Option<usize>> = vec![None; nodes.len()];
    let mut extent: HashMap<usize, (f64, f64, u64)> = HashMap::new();
    for (index, node) in nodes.iter().enumerate() {
        let Some(parent) = node.parent else { continue };
        nearest[index] = if nodes[parent].scrolls && nodes[parent].bounds.is_some() {
            Some(parent)
        } else {
            nearest[parent]
        };
        let Some(scroller) = nearest[index] else {
            continue;
        };
        let entry = extent
            .entry(scroller)
            .or_insert((f64::INFINITY, f64::NEG_INFINITY, 0));
        entry.2 = Fnv::new()
            .number(entry.2)
            .field(&node.role)
            .field(&node.name)
            .finish();
        if let Some(r) = node.bounds
            && r.width >= 1.0
            && r.height >= 1.0
        {
            entry.0 = entry.0.min(r.y);
            entry.1 = entry.1.max(r.bottom());
        }
    }
    let mut out: Vec<Container> = extent
        .into_iter()
        .filter_map(|(node, (low, high, fingerprint))| {
            let b = nodes[node].bounds?;
            // The height it shows content in: its box less its borders.
            let (border_top, border_bottom) = nodes[node].borders;
            let (top, height) = (b.y + border_top, b.height - border_top - border_bottom);
            if !visible[node] || !low.is_finite() || height < 1.0 {
                return None;
            }
            let low = low.min(top);
            let total = high.max(top + height) - low;
            (total > height + 1.0).then_some(Container {
                node,
                top: top - low,
                height,
                total,
                fingerprint,
            })
        })
        .collect();
    out.sort_by_key(|c| c.node);
    out
}

/// `seen 0–1,800 of 6,400 px (28 %)`, or `all 713 px seen` once nothing is left.
pub(crate) fn describe(cover: &Cover) -> String {
    if cover.all_seen() {
        return format!("all {} px seen", thousands(cover.height));
    }
    let ranges: Vec<String> = cover
        .seen
        .iter()
        .map(|(a, b)| format!("{}–{}", thousands(*a), thousands(*b)))
        .collect();
    format!(
        "seen {} of {} px ({:.0} %){}",
        if ranges.is_empty() {
            "nothing".to_string()
        } else {
            ranges.join(", ")
        },
        thousands(cover.height),
        cover.fraction * 100.0,
        if cover.at_end { ", at the end" } else { "" }
    )
}

fn thousands(px: f64) -> String {
    let whole = px.round().max(0.0) as u64;
    let digits = whole.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(revision: u64, top: f64, bottom: f64, total: f64) -> Window {
        Window {
            revision: Some(revision),
            top,
            bottom,
            total,
        }
    }

    #[test]
    fn ranges_merge_what_touches_and_keep_gaps() {
        let mut ranges = Ranges::default();
        ranges.add(0.0, 100.0);
        ranges.add(300.0, 400.0);
        assert_eq!(ranges.gaps(500.0), vec![(100.0, 300.0), (400.0, 500.0)]);
        ranges.add(100.0, 300.0);
        assert_eq!(ranges.within(500.0), vec![(0.0, 400.0)]);
        ranges.add(350.0, 450.0);
        assert_eq!(ranges.within(500.0), vec![(0.0, 450.0)]);
        ranges.add(20.0, 10.0);
        assert_eq!(ranges.within(500.0), vec![(0.0, 450.0)]);
        assert_eq!(ranges.gaps(500.0), vec![(450.0, 500.0)]);
    }

    #[test]
    fn windows_of_one_revision_add_up_to_the_end() {
        let mut memory = CoverageMemory::default();
        let first = memory.page(window(7, 0.0, 700.0, 2000.0));
        assert_eq!(first.seen, vec![(0.0, 700.0)]);
        assert!((first.fraction - 0.35).abs() < 1e-9 && !first.at_end);
        memory.page(window(7, 560.0, 1260.0, 2000.0));
        let last = memory.page(window(7, 1300.0, 2000.0, 2000.0));
        assert_eq!(last.seen, vec![(0.0, 1260.0), (1300.0, 2000.0)]);
        assert_eq!(last.unseen, vec![(1260.0, 1300.0)]);
        assert!(last.at_end);
        assert!((last.fraction - 0.98).abs() < 1e-9);
    }

    #[test]
    fn a_new_revision_forgets_what_was_seen() {
        let mut memory = CoverageMemory::default();
        memory.page(window(1, 0.0, 700.0, 3000.0));
        memory.page(window(1, 700.0, 1400.0, 3000.0));
        let changed = memory.page(window(2, 700.0, 1400.0, 3100.0));
        assert_eq!(changed.seen, vec![(700.0, 1400.0)]);
        // Unknown revisions count for their own window only.
        let unknown = Window {
            revision: None,
            top: 0.0,
            bottom: 700.0,
            total: 3100.0,
        };
        assert_eq!(memory.page(unknown).seen, vec![(0.0, 700.0)]);
        assert_eq!(memory.page(unknown).seen, vec![(0.0, 700.0)]);
        assert_eq!(
            memory.page(window(2, 1400.0, 2100.0, 3100.0)).seen,
            vec![(1400.0, 2100.0)]
        );
    }

    #[test]
    fn containers_are_covered_apart_from_the_page() {
        let mut memory = CoverageMemory::default();
        memory.page(window(1, 0.0, 700.0, 1400.0));
        memory.container("e7k2", window(5, 0.0, 300.0, 1500.0));
        let panel = memory.container("e7k2", window(5, 240.0, 540.0, 1500.0));
        assert_eq!(panel.seen, vec![(0.0, 540.0)]);
        let page = memory.page(window(1, 0.0, 700.0, 1400.0));
        assert_eq!(page.seen, vec![(0.0, 700.0)]);
        let other = memory.container("e9aa", window(5, 0.0, 100.0, 100.0));
        assert!(other.at_end && other.fraction == 1.0);
    }

    #[test]
    fn the_line_reads_plainly() {
        let mut memory = CoverageMemory::default();
        let cover = memory.page(window(1, 0.0, 1800.0, 6400.0));
        assert_eq!(describe(&cover), "seen 0–1,800 of 6,400 px (28 %)");
        let end = memory.page(window(1, 5700.0, 6400.0, 6400.0));
        assert_eq!(
            describe(&end),
            "seen 0–1,800, 5,700–6,400 of 6,400 px (39 %), at the end"
        );
        let all = memory.page(window(1, 1700.0, 5800.0, 6400.0));
        assert_eq!(describe(&all), "all 6,400 px seen");
    }
}
