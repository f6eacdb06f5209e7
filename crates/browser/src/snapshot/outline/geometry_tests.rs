//! Tests of the outline's geometry: what shows through clipping boxes, what a scroll
//! container holds out of view, which runs collapse around the viewport, and where text
//! pieces continue each other on the page.

use super::*;
use crate::snapshot::budget;

/// The snapshot text of `observation` within `max_tokens`, refs as `[ref]`.
fn packed(observation: &Observation, max_tokens: usize) -> String {
    let mut registry = RefRegistry::default();
    let outlined = outline(observation, 1, &mut registry);
    let packed = budget::pack(&outlined.lines, &observation.viewport, (0, 0), max_tokens);
    let text =
        budget::render(&outlined.lines, &packed, |n| outlined.refs.get(&n).cloned()).concat();
    without_refs(text.trim_end())
}

fn without_refs(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(" [e") {
        out.push_str(&rest[..start]);
        let end = rest[start..]
            .find(']')
            .map_or(rest.len(), |e| start + e + 1);
        out.push_str(" [ref]");
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A list that scrolls in a 100-px box at y 100, holding items at `ys` (each a list item
/// with one link), and the page around it.
fn scrolling_list(role: &'static str, item_role: &'static str, ys: &[f64]) -> Observation {
    let items = ys
        .iter()
        .enumerate()
        .map(|(i, y)| {
            let item = if item_role == "listitem" {
                let link = el("link", &format!("Item {i}"), vec![]);
                el(item_role, "", vec![at(link, rect(0.0, *y, 200.0, 20.0))])
            } else {
                el(item_role, &format!("Item {i}"), vec![])
            };
            at(item, rect(0.0, *y, 200.0, 20.0))
        })
        .collect();
    let list = at(el(role, "Feed", items), rect(0.0, 100.0, 200.0, 100.0));
    let mut obs = observation(el("RootWebArea", "", vec![list]));
    obs.nodes[1].scrolls = true;
    obs.nodes[1].clips = true;
    obs
}

#[test]
fn content_scrolled_out_of_its_container_is_listed_when_it_fits_and_counted_where_cut() {
    let obs = scrolling_list(
        "list",
        "listitem",
        &[20.0, 50.0, 120.0, 150.0, 220.0, 260.0, 300.0],
    );
    // The whole list fits: every item is listed, what is not on screen marked once per
    // run, and nothing is counted.
    assert_eq!(
        packed(&obs, 4096),
        "- list \"Feed\" [ref]\n  \
         # out of view from here\n  \
         - listitem\n    - link \"Item 0\" [ref]\n  - listitem\n    - link \"Item 1\" [ref]\n  \
         # on screen from here\n  \
         - listitem\n    - link \"Item 2\" [ref]\n  - listitem\n    - link \"Item 3\" [ref]\n  \
         # out of view from here\n  \
         - listitem\n    - link \"Item 4\" [ref]\n  - listitem\n    - link \"Item 5\" [ref]\n  \
         - listitem\n    - link \"Item 6\" [ref]"
    );
    // Out of view lines know the container they are scrolled out of.
    let mut registry = RefRegistry::default();
    let outlined = outline(&obs, 1, &mut registry);
    let scrolled: Vec<bool> = outlined
        .lines
        .iter()
        .filter(|l| l.text.starts_with("link"))
        .map(|l| l.scrolled == Some(1))
        .collect();
    assert_eq!(scrolled, [true, true, false, false, true, true, true]);
    assert_eq!(outlined.refs.len(), 8, "the list and its seven links");
    // A budget for the items in view: the rest counted where they were cut, with the
    // container's ref, how many are listed and of how many.
    let small = packed(&obs, 50 + 16 + 70);
    assert!(small.contains("link \"Item 2\""), "{small}");
    assert!(
        small.contains("(scrolled out of view; ")
            && small.contains(" of 7 listed) — scroll [ref] or browser_find"),
        "{small}"
    );
}

#[test]
fn a_listbox_lists_its_options_scrolled_out_of_view_or_not() {
    let obs = scrolling_list("listbox", "option", &[40.0, 120.0, 220.0]);
    assert_eq!(
        shape(&obs),
        "listbox \"Feed\" [ref]\n  option \"Item 0\" [ref]\n  option \"Item 1\" [ref]\n  \
         option \"Item 2\" [ref]"
    );
}

/// A list of `ys.len()` list items (each one link) at those heights, 20 px tall.
fn list_at(role: &'static str, ys: &[f64]) -> Spec {
    let items = ys
        .iter()
        .enumerate()
        .map(|(i, y)| {
            let item = if role == "listitem" {
                let link = el("link", &format!("Item {i}"), vec![]);
                el(role, "", vec![at(link, rect(10.0, *y, 100.0, 20.0))])
            } else {
                el(role, &format!("Item {i}"), vec![])
            };
            at(item, rect(10.0, *y, 100.0, 20.0))
        })
        .collect();
    let list = if role == "listitem" {
        "list"
    } else {
        "listbox"
    };
    at(el(list, "", items), rect(0.0, 0.0, 100.0, 4000.0))
}

fn links_shown(text: &str) -> Vec<usize> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim();
            l.strip_prefix("- ")
                .unwrap_or(l)
                .strip_prefix("link \"Item ")
        })
        .filter_map(|l| l.split('"').next()?.parse().ok())
        .collect()
}

#[test]
fn a_long_list_below_the_fold_is_listed_whole_when_it_fits_and_counted_where_cut() {
    let ys = |n: usize| (0..n).map(|i| 1000.0 + i as f64 * 30.0).collect::<Vec<_>>();
    let obs = observation(el("RootWebArea", "", vec![list_at("listitem", &ys(40))]));
    let whole = packed(&obs, 4096);
    assert_eq!(links_shown(&whole), (0..40).collect::<Vec<_>>(), "{whole}");
    assert!(
        whole.starts_with("- list\n  # out of view from here\n"),
        "{whole}"
    );
    assert_eq!(whole.matches("# ").count(), 1, "{whole}");
    assert!(!whole.contains("more item"), "{whole}");
    // A small budget lists the nearest items and counts the rest on the list.
    let cut = packed(&obs, 300);
    let shown = links_shown(&cut);
    assert!(!shown.is_empty() && shown.len() < 40, "{cut}");
    assert_eq!(shown, (0..shown.len()).collect::<Vec<_>>(), "{cut}");
    let count = format!(
        "- … {} more items below ({} of 40 listed) — browser_find searches them",
        40 - shown.len(),
        shown.len()
    );
    assert!(cut.ends_with(&count), "{cut}");
    // Options are listed like the rest.
    let options = packed(
        &observation(el("RootWebArea", "", vec![list_at("option", &ys(13))])),
        4096,
    );
    assert_eq!(options.matches("option \"Item").count(), 13, "{options}");
}

#[test]
fn a_list_around_the_viewport_keeps_what_shows_and_counts_both_sides() {
    let ys: Vec<f64> = (0..30).map(|i| 80.0 + i as f64 * 100.0).collect();
    let mut obs = observation(el("RootWebArea", "", vec![list_at("listitem", &ys)]));
    obs.viewport.scroll_y = 1000.0;
    obs.viewport.content_height = 4000.0;
    let text = packed(&obs, 260);
    let shown = links_shown(&text);
    // Items 10 to 16 show in the viewport; the budget takes them and their neighbours.
    for item in 10..=16 {
        assert!(shown.contains(&item), "{text}");
    }
    assert!(shown.len() < 30, "{text}");
    let first = shown[0];
    let last = *shown.last().unwrap_or(&0);
    assert!(
        text.contains(&format!(
            "- … {first} more items above ({} of 30 listed)",
            shown.len()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "- … {} more items below ({} of 30 listed)",
            29 - last,
            shown.len()
        )),
        "{text}"
    );
}

#[test]
fn what_shows_is_what_lies_inside_every_clipping_box_above_it() {
    let mut clipper = at(
        el(
            "generic",
            "",
            vec![
                at(
                    el("button", "Half in", vec![]),
                    rect(50.0, 50.0, 100.0, 100.0),
                ),
                at(
                    el("button", "Outside", vec![]),
                    rect(150.0, 0.0, 50.0, 50.0),
                ),
                at(el("button", "Sliver", vec![]), rect(99.0, 0.0, 50.0, 50.0)),
                at(el("button", "Two by two", vec![]), rect(0.0, 0.0, 2.0, 2.0)),
                at(el("button", "Flat", vec![]), rect(0.0, 0.0, 50.0, 1.9)),
                at(
                    el("button", "Bottom edge", vec![]),
                    rect(0.0, 99.0, 100.0, 20.0),
                ),
                at(
                    el("button", "Right part", vec![]),
                    rect(60.0, 0.0, 100.0, 20.0),
                ),
            ],
        ),
        rect(0.0, 0.0, 100.0, 100.0),
    );
    clipper.clips = true;
    let mut obs = observation(el("RootWebArea", "", vec![clipper]));
    assert_eq!(
        shape(&obs),
        "button \"Half in\" [ref]\nbutton \"Two by two\" [ref]\nbutton \"Right part\" [ref]"
    );
    // A box inside a box that clips to a sliver is clipped away with it.
    obs.nodes[1].bounds = Some(rect(0.0, 0.0, 0.5, 100.0));
    obs.nodes[2].bounds = Some(rect(0.0, 0.0, 0.5, 100.0));
    assert_eq!(shape(&obs), "");
}

#[test]
fn transparent_offscreen_and_undisplayed_nodes_hide_what_they_hold() {
    let page = el(
        "RootWebArea",
        "",
        vec![
            el("generic", "", vec![el("button", "Faded", vec![])]),
            at(
                el("generic", "", vec![el("button", "Pulled in", vec![])]),
                rect(0.0, -500.0, 100.0, 20.0),
            ),
            el("ignored", "", vec![]),
            el("generic", "", vec![el("button", "Contents", vec![])]),
        ],
    );
    let mut obs = observation(page);
    obs.nodes[1].transparent = true;
    obs.nodes[5].bounds = None;
    obs.nodes[6].bounds = None;
    obs.nodes[7].bounds = None;
    // A node with no box (`display: contents`) shows, unless the accessibility tree
    // ignores it (`display: none`). What a hidden node holds is not visited at all.
    assert_eq!(
        visibility(&obs.nodes),
        vec![true, false, true, false, true, false, true, true]
    );
    assert_eq!(shape(&obs), "button \"Contents\" [ref]");
}

#[test]
fn content_beside_a_sideways_scroller_is_counted_left_and_right() {
    let items = [0.0, 150.0, 350.0, 500.0]
        .iter()
        .enumerate()
        .map(|(i, x)| {
            at(
                el("button", &format!("Card {i}"), vec![]),
                rect(*x, 0.0, 80.0, 50.0),
            )
        })
        .collect();
    let mut obs = observation(el(
        "RootWebArea",
        "",
        vec![at(
            el("group", "Cards", items),
            rect(100.0, 0.0, 200.0, 50.0),
        )],
    ));
    obs.nodes[1].scrolls = true;
    let scrolled = scrolled_out(&obs.nodes, &visibility(&obs.nodes));
    assert_eq!(
        scrolled,
        vec![
            None,
            None,
            Some((1, false)),
            None,
            Some((1, true)),
            Some((1, true))
        ]
    );
    // A box touching the scroller's edge from outside is outside it.
    obs.nodes[3].bounds = Some(rect(300.0, 0.0, 80.0, 50.0));
    obs.nodes[2].bounds = Some(rect(20.0, 0.0, 80.0, 50.0));
    let scrolled = scrolled_out(&obs.nodes, &visibility(&obs.nodes));
    assert_eq!(scrolled[2], Some((1, false)));
    assert_eq!(scrolled[3], Some((1, true)));
    // A scroller with no box (not laid out) counts nothing.
    obs.nodes[1].bounds = None;
    let scrolled = scrolled_out(&obs.nodes, &visibility(&obs.nodes));
    assert!(scrolled.iter().all(Option::is_none), "{scrolled:?}");
}

#[test]
fn text_nodes_continue_each_other_only_where_the_page_shows_them_touching() {
    let node = |name: &str, bounds: Rect| Node {
        role: "StaticText".into(),
        name: name.into(),
        bounds: Some(bounds),
        ..Node::default()
    };
    let a = node("Van", rect(0.0, 0.0, 40.0, 10.0));
    let at_x = |x: f64| node("da", rect(x, 0.0, 20.0, 10.0));
    assert!(continues(&a, &at_x(40.0)));
    assert!(continues(&a, &at_x(41.4)));
    assert!(continues(&a, &at_x(38.6)));
    assert!(!continues(&a, &at_x(41.6)));
    assert!(!continues(&a, &at_x(38.4)));
    // Not on the same line: its top is more than half a line off.
    assert!(continues(&a, &node("da", rect(40.0, 4.0, 20.0, 10.0))));
    assert!(continues(&a, &node("da", rect(40.0, 5.0, 20.0, 10.0))));
    assert!(!continues(&a, &node("da", rect(40.0, 6.0, 20.0, 10.0))));
    assert!(!continues(&a, &node("da", rect(40.0, -6.0, 20.0, 10.0))));
    // Whitespace at the seam, a piece that is not text, a piece with no box or no height.
    assert!(!continues(
        &node("Van ", rect(0.0, 0.0, 40.0, 10.0)),
        &at_x(40.0)
    ));
    assert!(!continues(&a, &node(" da", rect(40.0, 0.0, 20.0, 10.0))));
    let mut link = at_x(40.0);
    link.role = "link".into();
    assert!(!continues(&a, &link));
    assert!(!continues(&link, &a));
    let mut boxless = at_x(40.0);
    boxless.bounds = None;
    assert!(!continues(&a, &boxless));
    assert!(!continues(&boxless, &a));
    assert!(!continues(&a, &node("da", rect(40.0, 10.0, 20.0, 0.0))));
    // A piece that starts where `a` ends and wraps back to the left.
    let wraps = |x: f64, width: f64| node("da", rect(x, 0.0, width, 20.0));
    assert!(continues(&a, &wraps(0.0, 100.0)));
    assert!(continues(&a, &wraps(0.0, 38.6)));
    assert!(!continues(&a, &wraps(0.0, 38.4)));
    assert!(continues(&a, &wraps(41.4, 100.0)));
    assert!(!continues(&a, &wraps(41.6, 100.0)));
    // Up to one and a half lines tall, `b` is one line: it must start where `a` ends.
    assert!(!continues(&a, &node("da", rect(0.0, 0.0, 100.0, 15.0))));
    assert!(continues(&a, &node("da", rect(40.0, 0.0, 100.0, 15.0))));
    // A box up to one and a half lines tall is one line.
    let short = node("Van", rect(0.0, 0.0, 40.0, 15.0));
    assert!(!continues(&short, &node("da", rect(20.0, 5.0, 20.0, 10.0))));
    assert!(continues(&short, &node("da", rect(40.0, 5.0, 20.0, 10.0))));
    // After a piece of several lines: `b` starts within `a`'s width on its last line.
    let tall = node("Van", rect(10.0, 0.0, 40.0, 30.0));
    let last_line = |x: f64| node("da", rect(x, 20.0, 20.0, 10.0));
    assert!(continues(&tall, &last_line(8.6)));
    assert!(continues(&tall, &last_line(51.4)));
    assert!(!continues(&tall, &last_line(8.4)));
    assert!(!continues(&tall, &last_line(51.6)));
}

#[test]
fn a_box_ending_at_the_pages_edge_or_clipped_below_a_pixel_shows_nothing() {
    let page = el(
        "RootWebArea",
        "",
        vec![
            at(
                el("button", "Left of the page", vec![]),
                rect(-100.0, 0.0, 100.0, 20.0),
            ),
            at(
                el("button", "Above the page", vec![]),
                rect(0.0, -20.0, 100.0, 20.0),
            ),
            at(
                el("button", "Just in", vec![]),
                rect(-99.0, -19.0, 100.0, 20.0),
            ),
        ],
    );
    assert_eq!(
        visibility(&observation(page).nodes),
        vec![true, false, false, true]
    );
    // What has no box of its own (`display: contents`) shows through a clip of a pixel
    // or more, never through less.
    let through = |width: f64, height: f64| {
        let mut clipper = at(
            el("generic", "", vec![el("generic", "", vec![])]),
            rect(0.0, 0.0, width, height),
        );
        clipper.clips = true;
        let mut obs = observation(el("RootWebArea", "", vec![clipper]));
        obs.nodes[2].bounds = None;
        visibility(&obs.nodes)[2]
    };
    assert!(through(1.0, 1.0));
    assert!(!through(0.5, 100.0));
    assert!(!through(100.0, 0.5));
}

#[test]
fn a_box_meets_the_viewport_only_by_overlapping_it() {
    let viewport = Viewport {
        width: 800.0,
        height: 400.0,
        scroll_x: 100.0,
        scroll_y: 1000.0,
        ..Viewport::default()
    };
    let meets = |x: f64, y: f64| intersects(&rect(x, y, 100.0, 20.0), &viewport);
    assert!(meets(500.0, 1200.0));
    assert!(!meets(500.0, 980.0), "ends where it begins");
    assert!(meets(500.0, 981.0));
    assert!(!meets(500.0, 1400.0), "starts where it ends");
    assert!(meets(500.0, 1399.0));
    assert!(!meets(0.0, 1200.0), "ends at its left edge");
    assert!(meets(1.0, 1200.0));
    assert!(!meets(900.0, 1200.0), "starts at its right edge");
    assert!(meets(899.0, 1200.0));
}

#[test]
fn only_a_box_wholly_past_a_scrollers_edge_is_scrolled_out_and_a_dot_is_never() {
    // Boxes holding content with no box of its own, so that each shows.
    let boxes = [
        rect(0.0, 80.0, 100.0, 20.0),
        rect(0.0, 81.0, 100.0, 20.0),
        rect(0.0, 200.0, 100.0, 20.0),
        rect(0.0, 199.0, 100.0, 20.0),
        rect(0.0, 300.0, 1.0, 0.5),
        rect(0.0, 300.0, 0.5, 1.0),
        rect(0.0, 300.0, 0.5, 0.5),
        rect(0.0, 300.0, 0.5, 50.0),
        rect(0.0, 300.0, 50.0, 0.5),
    ];
    let items = boxes
        .iter()
        .map(|r| at(el("generic", "", vec![el("generic", "", vec![])]), *r))
        .collect();
    let mut obs = observation(el(
        "RootWebArea",
        "",
        vec![at(el("list", "", items), rect(0.0, 100.0, 100.0, 100.0))],
    ));
    obs.nodes[1].scrolls = true;
    for node in &mut obs.nodes {
        if node.children.is_empty() {
            node.bounds = None;
        }
    }
    let scrolled = scrolled_out(&obs.nodes, &visibility(&obs.nodes));
    let items: Vec<Option<(usize, bool)>> = (0..boxes.len()).map(|i| scrolled[2 + 2 * i]).collect();
    let above = Some((1, false));
    let below = Some((1, true));
    assert_eq!(
        items,
        vec![above, None, below, None, below, below, None, below, below]
    );
}

#[test]
fn a_nested_list_scrolled_out_of_its_container_is_counted_with_every_element_it_holds() {
    let ys: Vec<f64> = (0..12).map(|i| 800.0 + i as f64 * 30.0).collect();
    let inner = list_at("listitem", &ys);
    let item = at(
        el("listitem", "", vec![inner]),
        rect(0.0, 800.0, 200.0, 400.0),
    );
    let visible = at(el("button", "Shown", vec![]), rect(0.0, 120.0, 100.0, 20.0));
    let feed = at(
        el("list", "Feed", vec![visible, item]),
        rect(0.0, 100.0, 200.0, 100.0),
    );
    let mut obs = observation(el("RootWebArea", "", vec![feed]));
    obs.nodes[1].scrolls = true;
    let whole = packed(&obs, 4096);
    assert_eq!(links_shown(&whole), (0..12).collect::<Vec<_>>(), "{whole}");
    // A budget for the shown button only: the rest is one count on the feed.
    let mut registry = RefRegistry::default();
    let outlined = outline(&obs, 1, &mut registry);
    let cut = budget::pack(&outlined.lines, &obs.viewport, (0, 0), 50 + 16 + 50);
    assert!(!cut.cuts.is_empty(), "{:?}", cut.cuts);
    // Every element is listed or counted: the feed, the button, the item, its list,
    // twelve items of two elements each.
    assert_eq!(cut.elements_shown + cut.elements_below, 2 + 1 + 1 + 12 * 2);
    // Each count is of content scrolled out below the feed, and says so.
    for c in &cut.cuts {
        assert!(
            c.scroller.is_some() && c.place == budget::Place::Below,
            "{c:?}"
        );
        assert!(c.listed < c.total, "{c:?}");
    }
}

#[test]
fn a_scroller_counts_only_where_there_is_more() {
    let ys = [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 120.0];
    let obs = scrolling_list("list", "listitem", &ys);
    let mut registry = RefRegistry::default();
    let outlined = outline(&obs, 1, &mut registry);
    // Room for the item in view only: the ones above are counted, nothing below.
    let cut = budget::pack(&outlined.lines, &obs.viewport, (0, 0), 50 + 16 + 50);
    let text = without_refs(
        budget::render(&outlined.lines, &cut, |n| outlined.refs.get(&n).cloned())
            .concat()
            .trim_end(),
    );
    assert_eq!(
        text,
        "- list \"Feed\" [ref]\n  \
         - … 8 more items above (scrolled out of view; 1 of 9 listed) — scroll [ref] or browser_find\n  \
         - listitem\n    - link \"Item 8\" [ref]"
    );
}

#[test]
fn items_a_region_read_left_unread_are_counted_with_the_rest() {
    // A pane (region read) with items 3 to 5 read, two before and forty after not.
    let obs = {
        let mut obs = scrolling_list("list", "listitem", &[120.0, 150.0, 180.0]);
        obs.nodes[1].unread = (2, 40);
        obs
    };
    let text = packed(&obs, 4096);
    assert!(
        text.contains("- … 2 more items above (scrolled out of view; 3 of 45 listed) — scroll [ref] or browser_find"),
        "{text}"
    );
    assert!(
        text.ends_with("- … 40 more items below (scrolled out of view; 3 of 45 listed) — scroll [ref] or browser_find"),
        "{text}"
    );
    let mut registry = RefRegistry::default();
    let outlined = outline(&obs, 1, &mut registry);
    let packed = budget::pack(&outlined.lines, &obs.viewport, (0, 0), 4096);
    assert_eq!(packed.elements_below, 40, "{packed:?}");
    assert_eq!(packed.elements_above, 2, "{packed:?}");
}
