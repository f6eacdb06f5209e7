//! Fitting an outline into a token budget, viewport first (SPEC §5.1): lines inside the
//! viewport are taken first, then outward by distance; a line brings its ancestors so the
//! tree stays readable; what did not fit is summarised. Pure: no browser here.

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

/// Tokens kept for the "above/below the viewport" summary lines.
const SUMMARY_RESERVE: usize = 50;

/// The rendered form of one line.
pub(crate) fn render_line(line: &Line) -> String {
    let indent = "  ".repeat(line.depth);
    if line.element || line.hidden_elements > 0 {
        format!("{indent}- {}\n", line.text)
    } else {
        format!("{indent}{}\n", line.text)
    }
}

/// Chooses lines for a budget of `max_tokens`.
pub(crate) fn pack(lines: &[Line], viewport: &Viewport, max_tokens: usize) -> Packed {
    let costs: Vec<usize> = lines
        .iter()
        .map(|l| estimate_tokens(&render_line(l)))
        .collect();
    let distance: Vec<f64> = lines.iter().map(|l| distance_to(l, viewport)).collect();
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by(|a, b| distance[*a].total_cmp(&distance[*b]).then(a.cmp(b)));

    // The summary lines about what was left out come out of the same budget.
    let budget = max_tokens.saturating_sub(SUMMARY_RESERVE);
    let mut taken = vec![false; lines.len()];
    let mut has_children = vec![false; lines.len()];
    for line in lines {
        if let Some(parent) = line.parent {
            has_children[parent] = true;
        }
    }
    let mut packed = Packed::default();
    for index in order {
        // A container line comes in with the first of its content, never alone.
        if taken[index] || has_children[index] {
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
        if packed.tokens + cost > budget {
            // Inside the viewport every line that fits is worth having; beyond it, the
            // picture must stay contiguous, so the first line that does not fit ends it.
            if distance[index] == 0.0 {
                packed.truncated = true;
                continue;
            }
            break;
        }
        packed.tokens += cost;
        for i in needed {
            taken[i] = true;
        }
    }
    let mut lowest_shown = f64::MIN;
    let mut highest_shown = f64::MAX;
    for (index, line) in lines.iter().enumerate() {
        let elements = usize::from(line.element) + line.hidden_elements;
        if taken[index] {
            packed.chosen.push(index);
            packed.elements_shown += usize::from(line.element);
            if let Some(rect) = line.rect {
                lowest_shown = lowest_shown.max(rect.bottom());
                highest_shown = highest_shown.min(rect.y);
            }
            // A collapse line stands for elements not shown.
            packed.elements_below += line.hidden_elements;
        } else if line.rect.is_some_and(|r| r.bottom() <= viewport.scroll_y) {
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
    packed
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
