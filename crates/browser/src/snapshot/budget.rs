//! Fitting an outline into a token budget (docs/observation.md#budget): lines inside the viewport are
//! taken first, then outward by distance — below the fold of the page and inside every
//! scroll container alike (a line scrolled out of its container is as far as it is from
//! the container's box, plus the container's own distance) — until the budget is spent. A
//! line brings its ancestors so the tree stays readable. What did not fit is counted
//! where it was cut, under the line that holds it, with how many of that line's items
//! are listed; the count's room is kept from the moment its container is listed, so a
//! count is never what gives way. A run of lines not on screen is marked once. Pure: no
//! browser here.

use super::capture::Viewport;
use super::outline::{Line, intersects};

/// Estimated tokens of `text`.
///
/// Calibration: snapshot lines are dense (quotes, brackets, short refs, role words), so
/// ASCII runs at about 3.5 characters per token on GPT-4/Claude-class BPE tokenizers,
/// against ~4 for prose; characters outside ASCII (CJK, accents, symbols) cost about a
/// token each. The estimate errs high, so a budget is not overrun.
pub fn estimate_tokens(text: &str) -> usize {
    let (ascii, other) = text.chars().fold((0usize, 0usize), |(a, o), c| {
        if c.is_ascii() { (a + 1, o) } else { (a, o + 1) }
    });
    (ascii as f64 / 3.5 + other as f64).ceil() as usize
}

/// The lines chosen and what was left out.
#[derive(Debug, Clone, Default)]
pub(crate) struct Packed {
    /// Indexes into the outline, in document order.
    pub chosen: Vec<usize>,
    /// Per line of the outline: on screen (in the viewport, not scrolled out of its
    /// container).
    pub in_view: Vec<bool>,
    /// Where listed content was cut, in document order: one count line each.
    pub cuts: Vec<Cut>,
    pub tokens: usize,
    /// Something inside the viewport did not fit.
    pub truncated: bool,
    pub elements_shown: usize,
    pub elements_above: usize,
    pub elements_below: usize,
    /// Screens of content below the last chosen line's bottom.
    pub screens_below: f64,
    pub screens_above: f64,
}

/// A run of items of a listed line that the budget left out: said on one line, where the
/// run begins.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cut {
    /// The listed line whose items these are.
    pub parent: usize,
    /// The run's first item (the count line takes its place).
    pub first: usize,
    /// Items in the run.
    pub items: usize,
    /// Where the run is: not on screen below (or right of) the view, above it, or on
    /// screen (cut only because the budget was spent).
    pub place: Place,
    /// The scroll container (a line) the run is scrolled out of, when it is.
    pub scroller: Option<usize>,
    /// The parent's items listed, of all it holds.
    pub listed: usize,
    pub total: usize,
}

/// Where a run of lines lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    Above,
    Below,
    OnScreen,
}

/// Tokens kept for the "above/below the viewport" summary lines while lines are chosen
/// (one line; the whole is measured at the end).
const SUMMARY_RESERVE: usize = 30;

/// The rendered form of one line.
pub(crate) fn render_line(line: &Line) -> String {
    let indent = "  ".repeat(line.depth);
    if line.element {
        format!("{indent}- {}\n", line.text)
    } else {
        format!("{indent}{}\n", line.text)
    }
}

/// The count line of `cut`; `container_ref` is the ref of the scroll container the run
/// is scrolled out of.
pub(crate) fn render_cut(cut: &Cut, depth: usize, container_ref: Option<&str>) -> String {
    let indent = "  ".repeat(depth);
    let items = cut.items;
    let plural = if items == 1 { "" } else { "s" };
    let listed = format!("{} of {} listed", cut.listed, cut.total);
    match (cut.place, container_ref.filter(|_| cut.scroller.is_some())) {
        (Place::OnScreen, _) => format!(
            "{indent}- … {items} more item{plural} not listed ({listed}: the budget was spent) — a larger maxTokens or browser_find\n"
        ),
        (place, Some(r#ref)) => format!(
            "{indent}- … {items} more item{plural} {} (scrolled out of view; {listed}) — scroll [{ref}] or browser_find\n",
            place.word()
        ),
        (place, None) => format!(
            "{indent}- … {items} more item{plural} {} ({listed}) — browser_find searches them\n",
            place.word()
        ),
    }
}

impl Place {
    fn word(self) -> &'static str {
        match self {
            Place::Above => "above",
            Place::Below => "below",
            Place::OnScreen => "on screen",
        }
    }
}

/// The mark before a run of listed lines not on screen, and before lines on screen again.
pub(crate) fn render_mark(depth: usize, in_view: bool) -> String {
    let indent = "  ".repeat(depth);
    if in_view {
        format!("{indent}# on screen from here\n")
    } else {
        format!("{indent}# out of view from here\n")
    }
}

/// The budget kept for a count line while its container is listed and not whole: the
/// longest a count line gets (three-digit counts, a long ref).
const COUNT_RESERVE: usize = 28;

/// The budget kept for the marks of lines not on screen while lines are chosen (one; the
/// whole is measured at the end).
const MARKS_RESERVE: usize = 8;

/// Chooses lines for a budget of `max_tokens`; `beyond` counts the elements a region
/// read left out above and below.
pub(crate) fn pack(
    lines: &[Line],
    viewport: &Viewport,
    beyond: (usize, usize),
    max_tokens: usize,
) -> Packed {
    let n = lines.len();
    let costs: Vec<usize> = lines
        .iter()
        .map(|l| estimate_tokens(&render_line(l)))
        .collect();
    let distance = distances(lines, viewport);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|a, b| distance[*a].total_cmp(&distance[*b]).then(a.cmp(b)));

    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (index, line) in lines.iter().enumerate() {
        if let Some(parent) = line.parent {
            children[parent].push(index);
        }
    }
    // The summary lines about what was left out come out of the same budget, and so do
    // the marks of what is not on screen (two, most often; more give way at the end).
    let budget = max_tokens.saturating_sub(SUMMARY_RESERVE);
    let packing = budget.saturating_sub(MARKS_RESERVE);
    let mut taken = vec![false; n];
    // Items not read at all are never taken: a line with some keeps its count's room.
    let mut untaken: Vec<usize> = children
        .iter()
        .zip(lines)
        .map(|(c, l)| c.len() + l.unread.0 + l.unread.1)
        .collect();
    let reserve_of = |taken: bool, untaken: usize| {
        if taken && untaken > 0 {
            COUNT_RESERVE
        } else {
            0
        }
    };
    let mut tokens = 0;
    let mut reserved = 0;
    let mut truncated = false;
    // In the order taken, for giving way at the end.
    let mut taken_order: Vec<usize> = Vec::new();
    for index in order {
        // A container line comes in with the first of its content, never alone — but a
        // scroll container may: its count says what it holds.
        if taken[index] || (!children[index].is_empty() && !lines[index].scroller) {
            continue;
        }
        // The line and the ancestors it needs.
        let mut needed = vec![index];
        let mut parent = lines[index].parent;
        while let Some(p) = parent {
            if taken[p] {
                break;
            }
            needed.push(p);
            parent = lines[p].parent;
        }
        let cost: usize = needed.iter().map(|i| costs[*i]).sum();
        // How the count lines' reserve changes: each new line's parent has one item
        // fewer left out, and each new line with items of its own may need a count.
        let mut affected: Vec<usize> = needed.clone();
        affected.extend(needed.iter().filter_map(|i| lines[*i].parent));
        affected.sort_unstable();
        affected.dedup();
        let delta: isize = affected
            .iter()
            .map(|&p| {
                let now = reserve_of(taken[p], untaken[p]) as isize;
                let joins = needed
                    .iter()
                    .filter(|i| lines[**i].parent == Some(p))
                    .count();
                let then = reserve_of(taken[p] || needed.contains(&p), untaken[p] - joins);
                then as isize - now
            })
            .sum();
        let reserve_then = (reserved as isize + delta).max(0) as usize;
        if tokens + cost + reserve_then > packing {
            // Inside the viewport every line that fits is worth having; beyond it, the
            // picture must stay contiguous, so the first line that does not fit ends it.
            if distance[index] == 0.0 {
                truncated = true;
                continue;
            }
            break;
        }
        tokens += cost;
        reserved = reserve_then;
        for &i in &needed {
            taken[i] = true;
            if let Some(p) = lines[i].parent {
                untaken[p] -= 1;
            }
        }
        taken_order.extend(needed.iter().rev());
    }

    let in_view: Vec<bool> = distance.iter().map(|d| *d == 0.0).collect();
    // The reserves are estimates (a container cut on both sides has two count lines, the
    // summary may need two lines or none): the whole is measured as it will be printed,
    // and the last lines taken give way until it fits.
    loop {
        let cuts = cuts_of(lines, &taken, &children, &in_view, viewport);
        let mut packed = account(lines, viewport, beyond, &taken, cuts);
        packed.tokens = tokens
            + cuts_cost(lines, &packed.cuts)
            + marks_cost(lines, &taken, &in_view)
            + summaries(&packed)
                .iter()
                .map(|l| estimate_tokens(l))
                .sum::<usize>();
        let Some(pos) = taken_order
            .iter()
            .rposition(|&i| children[i].iter().all(|c| !taken[*c]))
            .filter(|_| packed.tokens > max_tokens)
        else {
            packed.truncated = truncated;
            packed.in_view = in_view;
            return packed;
        };
        let gone = taken_order.remove(pos);
        taken[gone] = false;
        tokens -= costs[gone];
        if in_view[gone] {
            truncated = true;
        }
    }
}

/// What `taken` lists and leaves out, counted: each line left out once, on the count
/// line of the run it belongs to, or (nothing of it listed) on the page's above/below
/// lines, with `beyond`, the elements a region read left out above and below.
fn account(
    lines: &[Line],
    viewport: &Viewport,
    beyond: (usize, usize),
    taken: &[bool],
    cuts: Vec<Cut>,
) -> Packed {
    let n = lines.len();
    let mut packed = Packed {
        elements_above: beyond.0,
        elements_below: beyond.1,
        ..Packed::default()
    };
    let mut place: Vec<Option<Place>> = vec![None; n];
    for cut in &cuts {
        if cut.first < n && !taken[cut.first] && lines[cut.first].parent == Some(cut.parent) {
            place[cut.first] = Some(cut.place);
        }
    }
    let mut lowest_shown = f64::MIN;
    let mut highest_shown = f64::MAX;
    for (index, line) in lines.iter().enumerate() {
        let elements = usize::from(line.element);
        // What was never read is never shown.
        packed.elements_above += line.unread.0;
        packed.elements_below += line.unread.1;
        if taken[index] {
            packed.chosen.push(index);
            packed.elements_shown += usize::from(line.element);
            if let Some(rect) = line.rect {
                lowest_shown = lowest_shown.max(rect.bottom());
                highest_shown = highest_shown.min(rect.y);
            }
            continue;
        }
        // Inside a run: the run's place, passed down from its first item.
        let inherited = line.parent.filter(|p| !taken[*p]).and_then(|p| place[p]);
        let here = place[index].or(inherited);
        place[index] = here;
        let above = match here {
            Some(p) => p == Place::Above,
            None => line.rect.is_some_and(|r| r.bottom() <= viewport.scroll_y),
        };
        if above {
            packed.elements_above += elements;
        } else {
            packed.elements_below += elements;
        }
    }
    let bottom = viewport
        .content_height
        .max(viewport.scroll_y + viewport.height);
    let shown_to = lowest_shown.max(viewport.scroll_y + viewport.height);
    if viewport.height > 0.0 {
        packed.screens_below = ((bottom - shown_to) / viewport.height).max(0.0);
        packed.screens_above = ((highest_shown.min(viewport.scroll_y)) / viewport.height).max(0.0);
    }
    packed.cuts = cuts;
    packed
}

/// The lines that say what was left out above and below the viewport, as the snapshot
/// prints them (first and last).
pub(crate) fn summaries(packed: &Packed) -> Vec<String> {
    let mut lines = Vec::new();
    if packed.elements_above > 0 {
        lines.push(format!(
            "# above the viewport: {:.1} screens, {} elements not shown\n",
            packed.screens_above, packed.elements_above
        ));
    }
    if packed.elements_below > 0 {
        lines.push(format!(
            "# below the viewport: {:.1} screens, {} elements not shown (browser_find searches the whole page)\n",
            packed.screens_below, packed.elements_below
        ));
    }
    lines
}

/// The snapshot's lines: the chosen ones in document order, each cut's count line where
/// its run begins, and a mark where lines stop or start being on screen. `ref_of` gives
/// a node's ref (for the count line of a scroll container).
pub(crate) fn render(
    lines: &[Line],
    packed: &Packed,
    ref_of: impl Fn(usize) -> Option<String>,
) -> Vec<String> {
    let mut chosen = vec![false; lines.len()];
    for &index in &packed.chosen {
        chosen[index] = true;
    }
    let mut marks = marks(lines, &chosen, &packed.in_view)
        .into_iter()
        .peekable();
    let mut cuts = packed.cuts.iter().peekable();
    let cut_line = |cut: &Cut| {
        let container = cut.scroller.and_then(|s| lines[s].node).and_then(&ref_of);
        render_cut(cut, lines[cut.parent].depth + 1, container.as_deref())
    };
    let mut out = Vec::with_capacity(packed.chosen.len() + packed.cuts.len());
    for (index, line) in lines.iter().enumerate() {
        out.extend(std::iter::from_fn(|| cuts.next_if(|c| c.first == index)).map(&cut_line));
        if !chosen[index] {
            continue;
        }
        if let Some((_, view)) = marks.next_if(|(at, _)| *at == index) {
            out.push(render_mark(line.depth, view));
        }
        out.push(render_line(line));
    }
    // Counts of what follows the last line.
    out.extend(cuts.map(cut_line));
    out
}

/// The runs of items of listed lines that are not listed, in document order.
fn cuts_of(
    lines: &[Line],
    taken: &[bool],
    children: &[Vec<usize>],
    in_view: &[bool],
    viewport: &Viewport,
) -> Vec<Cut> {
    let scrollers = scroller_lines(lines);
    let mut cuts = Vec::new();
    for (parent, items) in children.iter().enumerate() {
        let (before, after) = lines[parent].unread;
        if !taken[parent] || items.iter().all(|i| taken[*i]) && before + after == 0 {
            continue;
        }
        let listed = items.iter().filter(|i| taken[**i]).count();
        let total = items.len() + before + after;
        // Unread items are out of view in the scroll container the line lies in.
        let own_scroller = || {
            let mut at = Some(parent);
            while let Some(i) = at {
                if lines[i].scroller {
                    return Some(i);
                }
                at = lines[i].parent;
            }
            None
        };
        let start = cuts.len();
        let mut run: Option<Cut> = None;
        for &item in items {
            if taken[item] {
                cuts.extend(run.take());
                continue;
            }
            let cut = run.get_or_insert_with(|| {
                let scroller = lines[item]
                    .scrolled
                    .and_then(|node| scrollers.get(&node).copied());
                Cut {
                    parent,
                    first: item,
                    items: 0,
                    place: place_of(lines, item, scroller, in_view, viewport),
                    scroller,
                    listed,
                    total,
                }
            });
            cut.items += 1;
        }
        let trailing = run.is_some();
        cuts.extend(run);
        if before > 0 {
            let first = items.first().copied().unwrap_or(parent + 1);
            match cuts.get_mut(start).filter(|c| c.first == first) {
                Some(cut) => cut.items += before,
                None => {
                    cuts.insert(
                        start,
                        Cut {
                            parent,
                            first,
                            items: before,
                            place: Place::Above,
                            scroller: own_scroller(),
                            listed,
                            total,
                        },
                    );
                }
            }
        }
        if after > 0 {
            match cuts.last_mut().filter(|c| trailing && c.parent == parent) {
                Some(cut) => cut.items += after,
                None => cuts.push(Cut {
                    parent,
                    first: subtree_end(lines, parent),
                    items: after,
                    place: Place::Below,
                    scroller: own_scroller(),
                    listed,
                    total,
                }),
            }
        }
    }
    // Where two counts fall at one place, the inner one comes first.
    cuts.sort_by_key(|c| (c.first, std::cmp::Reverse(lines[c.parent].depth)));
    cuts
}

/// The index of the first line after `index` and all it holds.
fn subtree_end(lines: &[Line], index: usize) -> usize {
    let depth = lines[index].depth;
    lines[index + 1..]
        .iter()
        .position(|l| l.depth <= depth)
        .map_or(lines.len(), |p| index + 1 + p)
}

/// Where the run starting at `item` lies: against the box of the scroll container it
/// is scrolled out of, else against the viewport.
fn place_of(
    lines: &[Line],
    item: usize,
    scroller: Option<usize>,
    in_view: &[bool],
    viewport: &Viewport,
) -> Place {
    if in_view[item] {
        return Place::OnScreen;
    }
    let Some(rect) = lines[item].rect else {
        return Place::Below;
    };
    let top = match scroller.and_then(|s| lines[s].rect) {
        Some(container) => container.y,
        None => viewport.scroll_y,
    };
    if rect.bottom() <= top {
        Place::Above
    } else {
        Place::Below
    }
}

/// Tokens of the count lines of `cuts` (with a ref of the longest kind).
fn cuts_cost(lines: &[Line], cuts: &[Cut]) -> usize {
    cuts.iter()
        .map(|cut| {
            estimate_tokens(&render_cut(
                cut,
                lines[cut.parent].depth + 1,
                Some("e0000000"),
            ))
        })
        .sum()
}

/// Tokens of the marks `render` puts where taken lines stop or start being on screen.
fn marks_cost(lines: &[Line], taken: &[bool], in_view: &[bool]) -> usize {
    marks(lines, taken, in_view)
        .into_iter()
        .map(|(at, view)| estimate_tokens(&render_mark(lines[at].depth, view)))
        .sum()
}

/// Where the marks go among the `taken` lines: before each line (by index) where lines
/// stop or start being on screen, and whether they are on screen from there. The first
/// run needs a mark only when it is not on screen; a line with no box of its own says
/// nothing of where it is.
fn marks(lines: &[Line], taken: &[bool], in_view: &[bool]) -> Vec<(usize, bool)> {
    let mut marks = Vec::new();
    let mut on_screen: Option<bool> = None;
    for (index, line) in lines.iter().enumerate() {
        if !taken[index] || line.rect.is_none() {
            continue;
        }
        let view = in_view.get(index).copied().unwrap_or(true);
        if on_screen != Some(view) {
            if on_screen.is_some() || !view {
                marks.push((index, view));
            }
            on_screen = Some(view);
        }
    }
    marks
}

/// Per line: 0 on screen; otherwise how far from it, in pixels. A line scrolled out of
/// its container is as far as it is from the container's box, plus the container's own
/// distance from the screen.
fn distances(lines: &[Line], viewport: &Viewport) -> Vec<f64> {
    let line_of_node = scroller_lines(lines);
    let mut out = Vec::with_capacity(lines.len());
    for (index, line) in lines.iter().enumerate() {
        let container = line
            .scrolled
            .and_then(|node| line_of_node.get(&node).copied())
            .filter(|c| *c < index);
        let distance = match (container, line.rect) {
            (Some(c), Some(rect)) => {
                let container_box = lines[c].rect.unwrap_or(rect);
                out[c] + gap(&rect, &container_box).max(1.0)
            }
            (Some(c), None) => out[c] + 1.0,
            (None, _) => distance_to(line, viewport),
        };
        out.push(distance);
    }
    out
}

/// The line of each scroll container, by its node.
fn scroller_lines(lines: &[Line]) -> std::collections::HashMap<usize, usize> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.scroller)
        .filter_map(|(index, l)| Some((l.node?, index)))
        .collect()
}

/// How far `rect` lies outside `container` (0 when they overlap).
fn gap(rect: &super::capture::Rect, container: &super::capture::Rect) -> f64 {
    if rect.y >= container.bottom() {
        rect.y - container.bottom()
    } else if rect.bottom() <= container.y {
        container.y - rect.bottom()
    } else if rect.x >= container.right() {
        rect.x - container.right()
    } else if rect.right() <= container.x {
        container.x - rect.right()
    } else {
        0.0
    }
}

/// 0 inside the viewport; otherwise how far away, in pixels.
fn distance_to(line: &Line, viewport: &Viewport) -> f64 {
    let Some(rect) = line.rect else { return 0.0 };
    if intersects(&rect, viewport) {
        return 0.0;
    }
    let top = viewport.scroll_y;
    let bottom = top + viewport.height;
    if rect.bottom() <= top {
        top - rect.bottom()
    } else if rect.y >= bottom {
        rect.y - bottom
    } else {
        // Beside the viewport horizontally.
        (viewport.scroll_x - rect.right())
            .max(rect.x - viewport.scroll_x - viewport.width)
            .max(1.0)
    }
}

#[cfg(test)]
#[path = "budget_tests.rs"]
mod tests;
