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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::capture::Rect;

    /// A flat page of `n` one-line elements stacked 40 px apart, the viewport at the top
    /// showing the first ten.
    fn page(n: usize) -> (Vec<Line>, Viewport) {
        let lines = (0..n)
            .map(|i| Line {
                depth: 0,
                text: format!("button \"Item {i}\" [e{i:04}]"),
                node: Some(i),
                rect: Some(Rect {
                    x: 0.0,
                    y: i as f64 * 40.0,
                    width: 100.0,
                    height: 30.0,
                }),
                parent: None,
                element: true,
                hidden_elements: 0,
            })
            .collect();
        let viewport = Viewport {
            width: 800.0,
            height: 400.0,
            content_width: 800.0,
            content_height: n as f64 * 40.0,
            ..Viewport::default()
        };
        (lines, viewport)
    }

    #[test]
    fn everything_fits_a_large_budget_and_nothing_is_counted_as_left_out() {
        let (lines, viewport) = page(30);
        let packed = pack(&lines, &viewport, 10_000);
        assert_eq!(packed.chosen, (0..30).collect::<Vec<_>>());
        assert!(!packed.truncated);
        assert_eq!((packed.elements_above, packed.elements_below), (0, 0));
        assert_eq!(packed.elements_shown, 30);
    }

    #[test]
    fn a_small_budget_keeps_the_viewport_first_and_counts_what_is_below() {
        let (lines, viewport) = page(200);
        let packed = pack(&lines, &viewport, 300);
        // The viewport's ten lines come first, in document order, then a contiguous run.
        assert!(packed.chosen.len() >= 10, "{:?}", packed.chosen);
        assert_eq!(packed.chosen, (0..packed.chosen.len()).collect::<Vec<_>>());
        assert!(packed.tokens <= 300);
        assert_eq!(packed.elements_shown + packed.elements_below, 200);
        assert!(packed.screens_below > 0.0);
        assert!(!packed.truncated, "the whole viewport fitted");
    }

    #[test]
    fn a_viewport_that_does_not_fit_is_truncated() {
        let (lines, viewport) = page(10);
        let packed = pack(&lines, &viewport, SUMMARY_RESERVE + 20);
        assert!(packed.truncated);
        assert!(packed.chosen.len() < 10);
    }

    #[test]
    fn a_container_line_comes_only_with_its_content() {
        let (mut lines, viewport) = page(3);
        for line in lines.iter_mut().skip(1) {
            line.parent = Some(0);
            line.depth = 1;
        }
        let packed = pack(&lines, &viewport, 10_000);
        assert_eq!(packed.chosen, vec![0, 1, 2]);
        // The budget for one line takes the child with its container, never the
        // container alone.
        let cost = |i: usize| estimate_tokens(&render_line(&lines[i]));
        let packed = pack(&lines, &viewport, SUMMARY_RESERVE + cost(0) + cost(1));
        assert_eq!(packed.chosen, vec![0, 1]);
    }

    #[test]
    fn tokens_are_estimated_from_ascii_and_other_characters() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcdefg"), 2);
        assert_eq!(estimate_tokens("日本"), 2);
    }

    #[test]
    fn an_element_or_a_collapse_line_is_a_bullet_and_text_is_not() {
        let (mut lines, _) = page(1);
        lines[0].depth = 2;
        assert_eq!(render_line(&lines[0]), "    - button \"Item 0\" [e0000]\n");
        lines[0].element = false;
        lines[0].text = "… 5 more listitem like the above".into();
        lines[0].hidden_elements = 5;
        assert_eq!(
            render_line(&lines[0]),
            "    - … 5 more listitem like the above\n"
        );
        lines[0].hidden_elements = 0;
        lines[0].text = "Hello".into();
        assert_eq!(render_line(&lines[0]), "    Hello\n");
    }

    #[test]
    fn a_container_that_fits_without_any_of_its_content_is_left_out() {
        let (mut lines, viewport) = page(3);
        for line in lines.iter_mut().skip(1) {
            line.parent = Some(0);
            line.depth = 1;
            line.text = "x".repeat(400);
        }
        let cost = estimate_tokens(&render_line(&lines[0]));
        let packed = pack(&lines, &viewport, SUMMARY_RESERVE + cost + 10);
        assert!(packed.chosen.is_empty(), "{:?}", packed.chosen);
        assert!(packed.truncated);
        assert_eq!(packed.elements_below, 3);
    }

    #[test]
    fn a_scrolled_page_counts_what_is_above_and_below_in_elements_and_screens() {
        let (mut lines, mut viewport) = page(100);
        viewport.scroll_y = 2000.0;
        // Line 60 stands for a collapsed run of seven elements.
        lines[60].element = false;
        lines[60].hidden_elements = 7;
        let packed = pack(&lines, &viewport, 10_000);
        assert_eq!(packed.chosen.len(), 100);
        assert_eq!(packed.elements_shown, 99);
        assert_eq!((packed.elements_above, packed.elements_below), (0, 7));
        // The last line ends 10 px above the page's bottom.
        assert_eq!(
            (packed.screens_above, packed.screens_below),
            (0.0, 10.0 / 400.0)
        );
        // A budget for about twenty lines: those in view, then outward both ways.
        let packed = pack(&lines, &viewport, 215);
        let first = packed.chosen[0];
        let last = *packed.chosen.last().expect("lines chosen");
        assert_eq!((first, last), (45, 64), "{:?}", packed.chosen);
        assert_eq!(packed.chosen, (first..=last).collect::<Vec<_>>());
        assert_eq!(packed.elements_shown, 19);
        assert_eq!(packed.elements_above, 45);
        assert_eq!(packed.elements_below, 7 + 35);
        // Line 45 starts at 1800 px, line 64 ends at 2590 px, the page at 4000 px.
        assert_eq!(packed.screens_above, 1800.0 / 400.0);
        assert_eq!(packed.screens_below, (4000.0 - 2590.0) / 400.0);
        // Scrolled past the first line's end: it is above, and further than the second.
        viewport.scroll_y = 35.0;
        let packed = pack(&lines[..2], &viewport, SUMMARY_RESERVE + 10);
        assert_eq!(packed.chosen, vec![1]);
        assert_eq!((packed.elements_above, packed.elements_below), (1, 0));
    }

    #[test]
    fn distance_to_the_viewport_is_measured_from_its_nearest_edge() {
        let viewport = Viewport {
            width: 800.0,
            height: 400.0,
            scroll_x: 100.0,
            scroll_y: 1000.0,
            ..Viewport::default()
        };
        let (mut lines, _) = page(1);
        let mut distance = |x: f64, y: f64| {
            lines[0].rect = Some(Rect {
                x,
                y,
                width: 100.0,
                height: 30.0,
            });
            distance_to(&lines[0], &viewport)
        };
        assert_eq!(distance(150.0, 1100.0), 0.0, "inside");
        assert_eq!(distance(150.0, 900.0), 70.0, "above: its bottom to the top");
        assert_eq!(
            distance(150.0, 1450.0),
            50.0,
            "below: the bottom to its top"
        );
        assert_eq!(distance(1000.0, 1100.0), 100.0, "to the right");
        assert_eq!(distance(-50.0, 1100.0), 50.0, "to the left");
        assert_eq!(distance(-0.5, 1100.0), 1.0, "just beside it: never inside");
        lines[0].rect = None;
        assert_eq!(distance_to(&lines[0], &viewport), 0.0, "no box: in view");
    }

    #[test]
    fn screens_below_count_from_the_viewports_bottom_when_it_is_not_filled() {
        let (lines, viewport) = page(200);
        let packed = pack(&lines, &viewport, SUMMARY_RESERVE + 20);
        assert!(packed.truncated && packed.chosen.len() < 10);
        assert_eq!(packed.screens_below, (8000.0 - 400.0) / 400.0);
    }

    #[test]
    fn a_viewport_of_no_height_has_no_screens() {
        let (lines, mut viewport) = page(50);
        viewport.height = 0.0;
        let packed = pack(&lines, &viewport, 100);
        assert_eq!((packed.screens_above, packed.screens_below), (0.0, 0.0));
    }
}
