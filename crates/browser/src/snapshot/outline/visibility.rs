//! Which nodes are shown at all, and which are scrolled out of their container: geometry
//! over the observation's boxes, no text.

use super::super::capture::{Node, Rect, Viewport};

/// Which nodes are shown at all: not zero-size (unless a child shows), not pushed off
/// the page, and not under a node that is hidden.
pub(crate) fn visibility(nodes: &[Node]) -> Vec<bool> {
    // What each node may show through: the intersection of the boxes of its ancestors
    // that clip (`overflow` not visible). Parents come before children in document
    // order, so one pass forward suffices.
    let mut clip: Vec<Option<Rect>> = vec![None; nodes.len()];
    for (index, node) in nodes.iter().enumerate() {
        let inherited = node.parent.and_then(|p| clip[p]);
        // A scroll container's content is scrolled out of view, not hidden.
        let own = if node.clips && !node.scrolls {
            node.bounds
        } else {
            None
        };
        clip[index] = match (inherited, own) {
            (Some(a), Some(b)) => Some(intersection(&a, &b)),
            (a, b) => a.or(b),
        };
    }
    let mut visible = vec![false; nodes.len()];
    // Walk backwards: a node shows if it has an area of its own inside its clip, or if
    // any child shows.
    for index in (0..nodes.len()).rev() {
        let node = &nodes[index];
        let parent_clip = node.parent.and_then(|p| clip[p]);
        let own = match node.bounds {
            // No layout box: `display: contents` (its children show), or not rendered at
            // all (`display: none`, which the accessibility tree marks ignored).
            None => node.role != "ignored",
            Some(r) => {
                let shown = parent_clip.map_or(r, |c| intersection(&r, &c));
                shown.right() > 0.0
                    && shown.bottom() > 0.0
                    && shown.width >= 2.0
                    && shown.height >= 2.0
            }
        };
        let clipped_away = parent_clip.is_some_and(|c| c.width < 1.0 || c.height < 1.0);
        let offscreen = node
            .bounds
            .is_some_and(|r| r.right() < 0.0 || r.bottom() < 0.0);
        let child_shows = node.children.iter().any(|c| visible[*c]);
        visible[index] = !offscreen && !clipped_away && (own || child_shows);
        // Fully transparent (`opacity: 0`, a fade's end): hidden with everything
        // inside (the outline does not descend into a hidden node).
        if node.transparent {
            visible[index] = false;
        }
    }
    visible
}

/// Per node: the nearest scroll container whose box it lies wholly outside of (content
/// shown by scrolling that container), and whether it lies below or to the right.
pub(crate) fn scrolled_out(nodes: &[Node], visible: &[bool]) -> Vec<Option<(usize, bool)>> {
    let mut scroller: Vec<Option<usize>> = vec![None; nodes.len()];
    let mut out = vec![None; nodes.len()];
    for (index, node) in nodes.iter().enumerate() {
        let Some(parent) = node.parent else { continue };
        scroller[index] = if nodes[parent].scrolls && nodes[parent].bounds.is_some() {
            Some(parent)
        } else {
            scroller[parent]
        };
        if !visible[index] {
            continue;
        }
        let (Some(s), Some(r)) = (scroller[index], node.bounds) else {
            continue;
        };
        let Some(b) = nodes[s].bounds else { continue };
        if r.width < 1.0 && r.height < 1.0 {
            continue;
        }
        // Against the box it shows content in: inside its borders.
        let (border_top, border_bottom) = nodes[s].borders;
        let below = r.y >= b.bottom() - border_bottom - 0.5 || r.x >= b.right();
        let above = r.bottom() <= b.y + border_top + 0.5 || r.right() <= b.x;
        if below || above {
            out[index] = Some((s, below));
        }
    }
    out
}

/// The scroll containers that hold children a region read left unread: more content
/// than what was read of it, so they scroll to it.
pub(super) fn holding_unread(nodes: &[Node]) -> Vec<usize> {
    nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.unread != (0, 0))
        .filter_map(|(index, _)| {
            let mut at = Some(index);
            while let Some(i) = at {
                if nodes[i].scrolls && nodes[i].bounds.is_some() {
                    return Some(i);
                }
                at = nodes[i].parent;
            }
            None
        })
        .collect()
}

/// The overlap of two rectangles (empty: zero width or height).
pub(super) fn intersection(a: &Rect, b: &Rect) -> Rect {
    let x = a.x.max(b.x);
    let y = a.y.max(b.y);
    Rect {
        x,
        y,
        width: (a.right().min(b.right()) - x).max(0.0),
        height: (a.bottom().min(b.bottom()) - y).max(0.0),
    }
}

pub(crate) fn intersects(rect: &Rect, viewport: &Viewport) -> bool {
    rect.bottom() > viewport.scroll_y
        && rect.y < viewport.scroll_y + viewport.height
        && rect.right() > viewport.scroll_x
        && rect.x < viewport.scroll_x + viewport.width
}
