//! Tests of fitting an outline into a budget: pure, on synthetic lines.

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
            ref_at: None,
            scrolled: None,
            scroller: false,
            unread: (0, 0),
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
    let packed = pack(&lines, &viewport, (0, 0), 10_000);
    assert_eq!(packed.chosen, (0..30).collect::<Vec<_>>());
    assert!(!packed.truncated);
    assert_eq!((packed.elements_above, packed.elements_below), (0, 0));
    assert_eq!(packed.elements_shown, 30);
}

#[test]
fn a_small_budget_keeps_the_viewport_first_and_counts_what_is_below() {
    let (lines, viewport) = page(200);
    let packed = pack(&lines, &viewport, (0, 0), 300);
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
    let packed = pack(&lines, &viewport, (0, 0), SUMMARY_RESERVE + 20);
    assert!(packed.truncated);
    assert!(packed.chosen.len() < 10);
}

#[test]
fn a_container_line_comes_only_with_its_content() {
    let (mut lines, viewport) = page(3);
    for line in lines.iter_mut().skip(1) {
        line.parent = Some(0);
        line.depth = 1;
        line.text.push_str(&" long".repeat(30));
    }
    let packed = pack(&lines, &viewport, (0, 0), 10_000);
    assert_eq!(packed.chosen, vec![0, 1, 2]);
    assert!(packed.cuts.is_empty());
    // The budget for one line and the count of the rest takes the child with its
    // container, never the container alone, and keeps room for the count.
    let cost = |i: usize| estimate_tokens(&render_line(&lines[i]));
    let packed = pack(
        &lines,
        &viewport,
        (0, 0),
        SUMMARY_RESERVE + MARKS_RESERVE + cost(0) + cost(1) + COUNT_RESERVE,
    );
    assert_eq!(packed.chosen, vec![0, 1]);
    assert_eq!(
        packed.cuts,
        vec![Cut {
            parent: 0,
            first: 2,
            items: 1,
            place: Place::OnScreen,
            scroller: None,
            listed: 1,
            total: 2,
        }]
    );
    let text = render(&lines, &packed, |_| None).concat();
    assert!(
        text.ends_with("  - … 1 more item not listed (1 of 2 listed: the budget was spent) — a larger maxTokens or browser_find\n"),
        "{text}"
    );
}

/// A scroll container of `n` items 40 px apart, its 100-px box in view at the top of
/// the page, the rest of the page (one button) below it.
fn pane(n: usize) -> (Vec<Line>, Viewport) {
    let (mut lines, viewport) = page(n + 2);
    lines[0].scroller = true;
    lines[0].text = "list \"Results\" [epane]".into();
    lines[0].rect = Some(Rect {
        x: 0.0,
        y: 0.0,
        width: 100.0,
        height: 100.0,
    });
    for (i, line) in lines.iter_mut().enumerate().skip(1).take(n) {
        line.parent = Some(0);
        line.depth = 1;
        let y = (i - 1) as f64 * 40.0;
        line.rect = Some(Rect {
            x: 0.0,
            y,
            width: 100.0,
            height: 30.0,
        });
        // Out of the pane's box: scrolled out of view.
        if y >= 100.0 {
            line.scrolled = Some(0);
        }
    }
    let last = n + 1;
    lines[last].text = "button \"Next page\" [enext]".into();
    lines[last].rect = Some(Rect {
        x: 0.0,
        y: 120.0,
        width: 100.0,
        height: 30.0,
    });
    (lines, viewport)
}

#[test]
fn a_scroll_pane_that_fits_is_listed_whole_and_its_hidden_part_marked_once() {
    let (lines, viewport) = pane(12);
    let packed = pack(&lines, &viewport, (0, 0), 4096);
    assert_eq!(packed.chosen.len(), 14, "{:?}", packed.chosen);
    assert!(packed.cuts.is_empty());
    let text = render(&lines, &packed, |_| Some("epane".into())).concat();
    // Items 0–2 are in the pane's box; 3–11 are scrolled out: one mark before them,
    // one where the page is on screen again.
    assert_eq!(text.matches("# out of view from here").count(), 1, "{text}");
    assert_eq!(text.matches("# on screen from here").count(), 1, "{text}");
    let out = text.find("# out of view").unwrap_or_default();
    assert!(
        text[..out].contains("Item 3\"") && text[out..].contains("Item 4\""),
        "{text}"
    );
    assert!(
        text.ends_with("# on screen from here\n- button \"Next page\" [enext]\n"),
        "{text}"
    );
}

#[test]
fn a_pane_cut_by_a_small_budget_keeps_its_line_and_its_count() {
    let (lines, viewport) = pane(50);
    let packed = pack(&lines, &viewport, (0, 0), 150);
    assert!(packed.chosen.contains(&0), "{:?}", packed.chosen);
    let text = render(&lines, &packed, |_| Some("epane".into())).concat();
    let count = text
        .lines()
        .find(|l| l.contains("more items below (scrolled out of view;"))
        .unwrap_or_else(|| panic!("no count in\n{text}"));
    let listed = packed
        .chosen
        .iter()
        .filter(|i| lines[**i].parent == Some(0))
        .count();
    assert!(
        count.contains(&format!(
            "; {listed} of 50 listed) — scroll [epane] or browser_find"
        )),
        "{count}"
    );
    let printed = text.clone() + &summaries(&packed).concat();
    assert!(estimate_tokens(&printed) <= 150, "{printed}");
    // Measured line by line, the estimate errs high, never low.
    assert!(packed.tokens >= estimate_tokens(&printed), "{printed}");
    // The items nearest the pane's box come first: the ones in it, in order.
    assert!(listed >= 1, "{text}");
    // Even a budget with no room for an item keeps the pane and its count.
    let packed = pack(
        &lines,
        &viewport,
        (0, 0),
        SUMMARY_RESERVE + MARKS_RESERVE + 40,
    );
    let text = render(&lines, &packed, |_| Some("epane".into())).concat();
    assert!(text.starts_with("- list \"Results\" [epane]\n"), "{text}");
    assert!(
        text.contains("(0 of 50 listed: the budget was spent)") || text.contains("0 of 50 listed)"),
        "{text}"
    );
}

#[test]
fn content_scrolled_out_of_a_pane_comes_nearest_first_before_farther_page_content() {
    let (mut lines, viewport) = pane(30);
    // The button sits 600 px below the fold: farther than the pane's first hidden
    // items, nearer than its last.
    lines[31].rect = Some(Rect {
        x: 0.0,
        y: 1000.0,
        width: 100.0,
        height: 30.0,
    });
    let distance = distances(&lines, &viewport);
    assert_eq!(distance[1], 0.0, "in the pane's box and in view");
    assert_eq!(distance[4], 20.0, "item 3 starts 20 px below the box");
    assert!(distance[5] > distance[4]);
    assert!(distance[31] > distance[10] && distance[31] < distance[30]);
}

#[test]
fn tokens_are_estimated_from_ascii_and_other_characters() {
    assert_eq!(estimate_tokens(""), 0);
    assert_eq!(estimate_tokens("abcdefg"), 2);
    assert_eq!(estimate_tokens("日本"), 2);
}

#[test]
fn an_element_is_a_bullet_and_text_is_not() {
    let (mut lines, _) = page(1);
    lines[0].depth = 2;
    assert_eq!(render_line(&lines[0]), "    - button \"Item 0\" [e0000]\n");
    lines[0].element = false;
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
    let packed = pack(&lines, &viewport, (0, 0), SUMMARY_RESERVE + cost + 10);
    assert!(packed.chosen.is_empty(), "{:?}", packed.chosen);
    assert!(packed.truncated);
    assert_eq!(packed.elements_below, 3);
}

#[test]
fn a_scrolled_page_counts_what_is_above_and_below_in_elements_and_screens() {
    let (lines, mut viewport) = page(100);
    viewport.scroll_y = 2000.0;
    let packed = pack(&lines, &viewport, (0, 0), 10_000);
    assert_eq!(packed.chosen.len(), 100);
    assert_eq!(packed.elements_shown, 100);
    assert_eq!((packed.elements_above, packed.elements_below), (0, 0));
    // The last line ends 10 px above the page's bottom.
    assert_eq!(
        (packed.screens_above, packed.screens_below),
        (0.0, 10.0 / 400.0)
    );
    // A budget for about twenty lines: those in view (lines 50 to 59), then outward
    // both ways, in one contiguous run, and every other line counted.
    let packed = pack(&lines, &viewport, (0, 0), 260);
    assert!(packed.tokens <= 260);
    let first = packed.chosen[0];
    let last = *packed.chosen.last().expect("lines chosen");
    assert!(first < 50 && last > 59, "{:?}", packed.chosen);
    assert_eq!(packed.chosen, (first..=last).collect::<Vec<_>>());
    assert_eq!(packed.elements_shown, last - first + 1);
    assert_eq!(packed.elements_above, first);
    assert_eq!(packed.elements_below, 99 - last);
    let top = first as f64 * 40.0;
    let bottom = last as f64 * 40.0 + 30.0;
    assert_eq!(packed.screens_above, top / 400.0);
    assert_eq!(packed.screens_below, (4000.0 - bottom) / 400.0);
    // Scrolled past the first line's end: it is above, and further than the second.
    viewport.scroll_y = 35.0;
    let packed = pack(
        &lines[..2],
        &viewport,
        (0, 0),
        SUMMARY_RESERVE + MARKS_RESERVE + 10,
    );
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
    let packed = pack(&lines, &viewport, (0, 0), SUMMARY_RESERVE + 20);
    assert!(packed.truncated && packed.chosen.len() < 10);
    assert_eq!(packed.screens_below, (8000.0 - 400.0) / 400.0);
}

#[test]
fn a_viewport_of_no_height_has_no_screens() {
    let (lines, mut viewport) = page(50);
    viewport.height = 0.0;
    let packed = pack(&lines, &viewport, (0, 0), 100);
    assert_eq!((packed.screens_above, packed.screens_below), (0.0, 0.0));
}
