//! Tests of the outline: pruning, folding, collapsing and ref rules on small synthetic pages: each test
//! builds the nodes an observation would hold and checks the outline.

use super::*;
use crate::snapshot::capture::Sep;
use proptest::prelude::*;

/// A node tree written compactly: (role, name, bounds, children).
struct Spec {
    role: &'static str,
    name: String,
    bounds: Option<Rect>,
    clips: bool,
    children: Vec<Spec>,
}

fn el(role: &'static str, name: &str, children: Vec<Spec>) -> Spec {
    Spec {
        role,
        name: name.to_string(),
        bounds: Some(rect(0.0, 0.0, 100.0, 20.0)),
        clips: false,
        children,
    }
}

fn text(words: &str) -> Spec {
    el("StaticText", words, Vec::new())
}

fn at(mut spec: Spec, bounds: Rect) -> Spec {
    spec.bounds = Some(bounds);
    spec
}

fn rect(x: f64, y: f64, width: f64, height: f64) -> Rect {
    Rect {
        x,
        y,
        width,
        height,
    }
}

fn observation(root: Spec) -> Observation {
    fn add(nodes: &mut Vec<Node>, spec: Spec, parent: Option<usize>) -> usize {
        let index = nodes.len();
        nodes.push(Node {
            role: spec.role.to_string(),
            name: spec.name,
            bounds: spec.bounds,
            clips: spec.clips,
            backend_id: Some(index as i64 + 1),
            parent,
            ..Node::default()
        });
        for child in spec.children {
            let child = add(nodes, child, Some(index));
            nodes[index].children.push(child);
        }
        index
    }
    let mut nodes = Vec::new();
    add(&mut nodes, root, None);
    Observation {
        nodes,
        viewport: Viewport {
            width: 1000.0,
            height: 700.0,
            scroll_x: 0.0,
            scroll_y: 0.0,
            content_width: 1000.0,
            content_height: 700.0,
        },
        sessions: Vec::new(),
        dom_parents: Vec::new(),
        elements_beyond: (0, 0),
    }
}

fn render(observation: &Observation) -> String {
    let mut registry = RefRegistry::default();
    let outline = outline(observation, 1, &mut registry);
    outline
        .lines
        .iter()
        .map(|l| format!("{}{}", "  ".repeat(l.depth), l.text))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The outline with refs replaced by `[ref]`, so expectations read plainly.
fn shape(observation: &Observation) -> String {
    let text = render(observation);
    let mut out = String::new();
    let mut rest = text.as_str();
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

#[test]
fn wrappers_fold_and_text_merges() {
    let page = el(
        "RootWebArea",
        "Page",
        vec![el(
            "generic",
            "",
            vec![el(
                "generic",
                "",
                vec![
                    el("link", "Home", vec![text("Home")]),
                    text("Hello"),
                    text("world"),
                ],
            )],
        )],
    );
    assert_eq!(
        shape(&observation(page)),
        "link \"Home\" [ref]\nHello world"
    );
}

#[test]
fn zero_size_offscreen_and_clipped_nodes_are_pruned() {
    let zero = at(el("button", "Zero", vec![]), rect(10.0, 10.0, 0.0, 0.0));
    let offscreen = at(
        el("button", "Off", vec![]),
        rect(-10_000.0, 10.0, 100.0, 20.0),
    );
    let mut clipper = at(
        el("generic", "", vec![el("button", "Clipped", vec![])]),
        rect(0.0, 0.0, 0.0, 0.0),
    );
    clipper.clips = true;
    let tiny = at(
        el("button", "Screen reader only", vec![]),
        rect(0.0, 0.0, 1.0, 1.0),
    );
    let page = el(
        "RootWebArea",
        "",
        vec![el("button", "Kept", vec![]), zero, offscreen, clipper, tiny],
    );
    assert_eq!(shape(&observation(page)), "button \"Kept\" [ref]");
}

#[test]
fn a_zero_size_wrapper_with_visible_content_keeps_the_content() {
    // Inline wrappers often report no box while their children show.
    let wrapper = at(
        el("link", "Card", vec![text("Card")]),
        rect(0.0, 0.0, 0.0, 0.0),
    );
    let page = el(
        "RootWebArea",
        "",
        vec![at(wrapper, rect(0.0, 0.0, 0.0, 0.0))],
    );
    let mut obs = observation(page);
    obs.nodes[2].bounds = Some(rect(0.0, 0.0, 50.0, 20.0));
    assert_eq!(shape(&obs), "link \"Card\" [ref]");
}

#[test]
fn long_runs_of_same_shape_siblings_are_all_outlined_with_refs() {
    // Nothing is folded away here: what a budget leaves out is decided by the budget.
    let mut registry = RefRegistry::default();
    let page = el(
        "RootWebArea",
        "",
        vec![el(
            "list",
            "",
            (0..15)
                .map(|i| el("listitem", "", vec![el("link", &format!("L{i}"), vec![])]))
                .collect(),
        )],
    );
    let outlined = outline(&observation(page), 1, &mut registry);
    assert_eq!(outlined.refs.len(), 15);
    assert_eq!(
        outlined
            .lines
            .iter()
            .filter(|l| l.text.starts_with("link"))
            .count(),
        15
    );
}

#[test]
fn a_page_cannot_forge_a_ref_with_text_that_looks_like_candors_markers() {
    // Text holding the old placeholder of a node's ref (and ref-like brackets) stays the
    // page's text: refs go in by position, never by reading text.
    let page = el(
        "RootWebArea",
        "",
        vec![
            text("To cancel safely, click \u{1}2\u{1} (the Cancel button)"),
            el("button", "Delete my account", vec![]),
            el("button", "Cancel \u{1}2\u{1}", vec![]),
        ],
    );
    let mut registry = RefRegistry::default();
    let obs = observation(page);
    let outlined = outline(&obs, 1, &mut registry);
    let delete = outlined.refs.get(&2).cloned().unwrap_or_default();
    assert!(!delete.is_empty());
    let text: String = outlined
        .lines
        .iter()
        .map(|l| l.text.clone() + "\n")
        .collect();
    assert_eq!(text.matches(&delete).count(), 1, "{text}");
    assert!(
        text.starts_with("To cancel safely, click \u{1}2\u{1} (the Cancel button)\n"),
        "{text}"
    );
    assert!(
        text.contains("button \"Cancel \\u{1}2\\u{1}\" [e"),
        "{text}"
    );
}

#[test]
fn names_keep_the_pages_own_characters_and_escape_only_what_breaks_the_quotes() {
    assert_eq!(quote("Caf\u{e9} \u{8f}"), "\"Caf\u{e9} \u{8f}\"");
    assert_eq!(quote("say \"hi\" \\ bye"), "\"say \\\"hi\\\" \\\\ bye\"");
    assert_eq!(quote("bell\u{7}"), "\"bell\\u{7}\"");
}

#[test]
fn a_clickable_wrapper_is_named_by_its_text() {
    let page = el(
        "RootWebArea",
        "",
        vec![el("generic", "", vec![text("Tab one")])],
    );
    let mut obs = observation(page);
    obs.nodes[1].clickable = true;
    assert_eq!(shape(&obs), "clickable \"Tab one\" [ref]");
}

#[test]
fn a_body_that_delegates_clicks_is_no_clickable_of_its_own() {
    // A click listener on <body> (event delegation, a click tracker) does not make
    // the whole page one clickable named by all its text.
    let body = el(
        "generic",
        "",
        vec![
            text("Pick one"),
            el("button", "OK", vec![text("OK")]),
            text("Footer"),
        ],
    );
    let page = el("RootWebArea", "", vec![el("ignored", "", vec![body])]);
    let mut obs = observation(page);
    obs.nodes[2].clickable = true;
    assert_eq!(shape(&obs), "Pick one\nbutton \"OK\" [ref]\nFooter");
    // Without anything to pass clicks to, the page-wide wrapper stays clickable.
    let page = el(
        "RootWebArea",
        "",
        vec![el("generic", "", vec![text("Tap to start")])],
    );
    let mut obs = observation(page);
    obs.nodes[1].clickable = true;
    assert_eq!(shape(&obs), "clickable \"Tap to start\" [ref]");
}

#[test]
fn a_wrapper_around_one_control_it_names_folds_into_it() {
    let label = |name: &str| {
        el(
            "LabelText",
            "",
            vec![el("checkbox", name, vec![]), text(name)],
        )
    };
    let card = el(
        "generic",
        "",
        vec![text("Weekly digest"), el("link", "Unsubscribe", vec![])],
    );
    let list = el("list", "", vec![label("Alpha"), label("Beta"), card]);
    let page = el("RootWebArea", "", vec![list]);
    let mut obs = observation(page);
    for node in &mut obs.nodes {
        if node.role == "LabelText" || node.role == "generic" {
            node.clickable = true;
        }
    }
    assert_eq!(
        shape(&obs),
        "list\n  checkbox \"Alpha\" [ref]\n  Alpha\n  checkbox \"Beta\" [ref]\n  Beta\n  \
         clickable \"Weekly digest\" [ref]\n    Weekly digest\n    link \"Unsubscribe\" [ref]"
    );
}

#[test]
fn text_pieces_join_as_the_page_shows_them() {
    // `Enter "<b>Vanda</b>" into the field` with the last piece wrapping onto a
    // second line; then a block below; then two pieces a gap apart on one line.
    let pieces = vec![
        at(text("Enter \""), rect(0.0, 0.0, 40.0, 10.0)),
        at(text("Vanda"), rect(40.0, 0.0, 30.0, 10.0)),
        at(text("\" into the field"), rect(0.0, 0.0, 150.0, 20.0)),
        at(text("Below"), rect(0.0, 20.0, 30.0, 10.0)),
        at(text("Left"), rect(0.0, 30.0, 20.0, 10.0)),
        at(text("Right"), rect(24.0, 30.0, 20.0, 10.0)),
        at(text("Spaced "), rect(48.0, 30.0, 20.0, 10.0)),
        at(text("word"), rect(68.0, 30.0, 20.0, 10.0)),
    ];
    let page = el("RootWebArea", "", vec![el("generic", "", pieces)]);
    assert_eq!(
        shape(&observation(page)),
        "Enter \"Vanda\" into the field Below Left Right Spaced word"
    );
}

#[test]
fn a_text_field_shows_its_value_once() {
    let page = el(
        "RootWebArea",
        "",
        vec![el("textbox", "Tags", vec![text("Ma")])],
    );
    let mut obs = observation(page);
    obs.nodes[1].value = Some("Ma".into());
    assert_eq!(shape(&obs), "textbox \"Tags\" [ref] value=\"Ma\"");
}

#[test]
fn an_unlabelled_field_keeps_its_ref_when_a_value_is_typed() {
    let field = |typed: Option<&str>| {
        let children = typed.map_or_else(Vec::new, |value| vec![text(value)]);
        let page = el("RootWebArea", "", vec![el("textbox", "", children)]);
        let mut obs = observation(page);
        obs.nodes[1].value = typed.map(Into::into);
        obs
    };
    let empty = render(&field(None));
    let typed = render(&field(Some("Truman")));
    let ref_of = |text: &str| {
        text.split('[')
            .nth(1)
            .map(|rest| rest.split(']').next().map(str::to_string))
    };
    assert_eq!(ref_of(&empty), ref_of(&typed), "{empty}\n{typed}");
    assert!(typed.contains("value=\"Truman\""), "{typed}");
    assert!(!typed.contains("textbox \"Truman\""), "{typed}");
}

#[test]
fn values_and_states_follow_the_name_and_secret_fields_are_masked() {
    let page = el(
        "RootWebArea",
        "",
        vec![
            el("textbox", "Email", vec![]),
            el("textbox", "Password", vec![]),
            el("checkbox", "Agree", vec![]),
            el("textbox", "", vec![text("4242 4242")]),
        ],
    );
    let mut obs = observation(page);
    // A card number known by its autocomplete token: neither its value nor its own text
    // (Chromium's inner text of a field) is shown, nor taken for its name.
    obs.nodes[4].value = Some("4242 4242".into());
    obs.nodes[4].secret = true;
    obs.nodes[1].value = Some("a@b.c".into());
    obs.nodes[2].value = Some("hunter2".into());
    obs.nodes[2].input_type = Some("password".into());
    obs.nodes[2].secret = true;
    obs.nodes[3].states = vec![("checked", "true".into()), ("disabled", "true".into())];
    let text = shape(&obs);
    assert!(
        text.contains("textbox \"Email\" [ref] value=\"a@b.c\""),
        "{text}"
    );
    assert!(!text.contains("hunter2"), "{text}");
    assert!(!text.contains("4242"), "{text}");
    assert!(text.contains("textbox [ref] value=\"••••\""), "{text}");
    assert!(
        text.contains("checkbox \"Agree\" [ref] checked disabled"),
        "{text}"
    );
}

fn people(order: &[usize]) -> Observation {
    let names = [
        "Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi",
    ];
    let items = order
        .iter()
        .map(|i| {
            el(
                "listitem",
                "",
                vec![
                    text(names[*i]),
                    el("button", &format!("Delete {}", names[*i]), vec![]),
                ],
            )
        })
        .collect();
    let mut page = observation(el(
        "RootWebArea",
        "",
        vec![el("main", "", vec![el("list", "", items)])],
    ));
    // Re-rendered: new DOM nodes every time, so only identity can carry a ref over.
    for node in &mut page.nodes {
        node.backend_id = None;
    }
    page
}

fn refs_by_name(
    observation: &Observation,
    registry: &mut RefRegistry,
) -> std::collections::HashMap<String, String> {
    let outlined = outline(observation, 1, registry);
    outlined
        .refs
        .iter()
        .map(|(node, r)| (observation.nodes[*node].name.clone(), r.clone()))
        .collect()
}

proptest! {
    /// The same page observed twice gives the same refs; re-ordered siblings keep
    /// each element's ref (identity, not position).
    #[test]
    fn refs_follow_identity_across_reorders(order in Just((0..8).collect::<Vec<usize>>()).prop_shuffle()) {
        let mut registry = RefRegistry::default();
        let first = refs_by_name(&people(&(0..8).collect::<Vec<_>>()), &mut registry);
        let again = refs_by_name(&people(&(0..8).collect::<Vec<_>>()), &mut registry);
        prop_assert_eq!(&first, &again);
        let shuffled = refs_by_name(&people(&order), &mut registry);
        prop_assert_eq!(&first, &shuffled);
        // A fresh registry (another process) derives the same names too.
        let mut fresh = RefRegistry::default();
        prop_assert_eq!(&first, &refs_by_name(&people(&order), &mut fresh));
    }
}

#[test]
fn markdown_reads_headings_paragraphs_lists_and_links_with_refs() {
    let mut page = observation(el(
        "RootWebArea",
        "Shop",
        vec![
            el("heading", "Fruit", vec![text("Fruit")]),
            el("paragraph", "", vec![text("Fresh every day.")]),
            el(
                "list",
                "",
                vec![
                    el("listitem", "", vec![text("Apples")]),
                    el("listitem", "", vec![text("Pears")]),
                ],
            ),
            el("link", "Order now", vec![text("Order now")]),
        ],
    ));
    page.nodes[1].states.push(("level", "2".into()));
    let link = page.nodes.iter().position(|n| n.role == "link").unwrap();
    page.nodes[link].href = Some("/order".into());
    let mut registry = RefRegistry::default();
    let outlined = outline(&page, 1, &mut registry);
    let md = crate::snapshot::markdown::render(&page, &outlined);
    assert!(md.contains("## Fruit"), "{md}");
    assert!(md.contains("Fresh every day."), "{md}");
    assert!(md.contains("- Apples") && md.contains("- Pears"), "{md}");
    let r = &outlined.refs[&link];
    assert!(
        md.contains("[Order now](/order)") && md.contains(r.as_str()),
        "{md}"
    );
}

#[test]
fn a_clickable_list_item_around_its_one_link_is_not_a_second_ref() {
    let item = |name: &str| el("listitem", "", vec![el("link", name, vec![text(name)])]);
    let mut obs = observation(el(
        "RootWebArea",
        "",
        vec![el("list", "", vec![item("Kazakhstan"), item("Kenya")])],
    ));
    for node in &mut obs.nodes {
        if node.role == "listitem" {
            node.clickable = true;
        }
    }
    assert_eq!(
        shape(&obs),
        "list\n  listitem\n    link \"Kazakhstan\" [ref]\n  listitem\n    link \"Kenya\" [ref]"
    );
}

/// The heading an element sits under is part of its identity, so it must not depend on
/// what the viewport shows: a heading scrolled away (a sidebar's section title) names
/// the elements under it as when it is in view.
#[test]
fn a_heading_out_of_view_still_names_the_elements_under_it() {
    let page = |heading: Rect| {
        observation(el(
            "RootWebArea",
            "",
            vec![
                at(
                    el(
                        "heading",
                        "Provided Methods",
                        vec![text("Provided Methods")],
                    ),
                    heading,
                ),
                el("link", "fold", vec![text("fold")]),
            ],
        ))
    };
    for heading in [rect(0.0, 0.0, 100.0, 20.0), rect(0.0, -60.0, 100.0, 20.0)] {
        let observation = page(heading);
        let mut registry = RefRegistry::default();
        let outlined = outline(&observation, 0, &mut registry);
        let link = observation
            .nodes
            .iter()
            .position(|n| n.role == "link")
            .expect("the link");
        assert_eq!(outlined.identities[&link].context, "Provided Methods");
    }
}

#[test]
fn unnamed_images_and_groups_fold_and_named_ones_stay() {
    let page = el(
        "RootWebArea",
        "",
        vec![
            el("image", "", vec![]),
            el("image", "Logo", vec![]),
            el("group", "", vec![el("button", "One", vec![])]),
            el("group", "Shipping", vec![el("button", "Two", vec![])]),
        ],
    );
    assert_eq!(
        shape(&observation(page)),
        "img \"Logo\"\nbutton \"One\" [ref]\ngroup \"Shipping\"\n  button \"Two\" [ref]"
    );
}

#[test]
fn an_item_whose_only_content_is_a_short_text_is_named_by_it() {
    let long = "word ".repeat(30);
    let page = el(
        "RootWebArea",
        "",
        vec![el(
            "list",
            "",
            vec![
                el("listitem", "", vec![text("Apples")]),
                el("listitem", "", vec![text(&long)]),
                el("listitem", "", vec![text("Pears"), text("and plums")]),
            ],
        )],
    );
    let mut obs = observation(page);
    // The two pieces of the last item sit on two lines of their own.
    let plums = obs.nodes.len() - 1;
    obs.nodes[plums].sep_before = Some(Sep::Line);
    assert_eq!(
        shape(&obs),
        format!(
            "list\n  listitem \"Apples\"\n  listitem\n    {}\n  listitem\n    Pears\n    and plums",
            long.trim()
        )
    );
}

#[test]
fn a_field_whose_text_differs_from_its_value_keeps_the_text() {
    let page = el(
        "RootWebArea",
        "",
        vec![el("textbox", "Tags", vec![text("Mango")])],
    );
    let mut obs = observation(page);
    obs.nodes[1].value = Some("Ma".into());
    assert_eq!(shape(&obs), "textbox \"Tags\" [ref] value=\"Ma\"\n  Mango");
}

#[test]
fn an_identity_holds_its_heading_its_containers_and_its_ordinal() {
    let row = |name: &str| {
        el(
            "listitem",
            "",
            vec![text(name), el("button", "Delete", vec![])],
        )
    };
    let page = el(
        "RootWebArea",
        "",
        vec![
            el("heading", "People", vec![text("People")]),
            el("list", "", vec![row("Alice"), row("Bob")]),
            el("button", "Delete", vec![]),
            el("button", "Delete", vec![]),
        ],
    );
    let obs = observation(page);
    let mut registry = RefRegistry::default();
    let outlined = outline(&obs, 7, &mut registry);
    let deletes: Vec<&Identity> = (0..obs.nodes.len())
        .filter(|i| obs.nodes[*i].name == "Delete")
        .map(|i| &outlined.identities[&i])
        .collect();
    assert!(
        deletes
            .iter()
            .all(|i| i.context == "People" && i.epoch == 7)
    );
    assert!(
        deletes
            .iter()
            .all(|i| i.role == "button" && i.name == "Delete")
    );
    // Each row is a container of its own, told apart by its text: both buttons are the
    // first of their kind there, and neither shares the page's container.
    assert_eq!(deletes[0].ordinal, 0);
    assert_eq!(deletes[1].ordinal, 0);
    assert_ne!(deletes[0].container, deletes[1].container);
    assert_ne!(deletes[0].container, deletes[2].container);
    // Outside the list, the page's two Delete buttons are told apart by their order.
    assert_eq!((deletes[2].ordinal, deletes[3].ordinal), (0, 1));
    assert_eq!(deletes[2].container, deletes[3].container);
    let refs: std::collections::HashSet<&String> = outlined.refs.values().collect();
    assert_eq!(refs.len(), 4, "four elements, four refs");
}

#[test]
fn what_takes_focus_or_clicks_gets_a_ref_and_the_document_never_does() {
    let page = el(
        "RootWebArea",
        "Page",
        vec![
            el("article", "Focusable article", vec![]),
            el("generic", "", vec![text("Focusable only by script")]),
            el("generic", "", vec![text("Handle")]),
            el("LabelText", "", vec![text("A label")]),
        ],
    );
    let mut obs = observation(page);
    obs.nodes[0].focusable = true;
    obs.nodes[0].tabbable = true;
    obs.nodes[0].clickable = true;
    obs.nodes[1].focusable = true;
    obs.nodes[2].focusable = true;
    obs.nodes[4].focusable = true;
    obs.nodes[4].tabbable = true;
    obs.nodes[6].clickable = true;
    obs.nodes[6].focusable = true;
    assert_eq!(
        shape(&obs),
        "article \"Focusable article\" [ref]\nFocusable only by script\n\
         clickable \"Handle\" [ref]\nA label"
    );
    let mut registry = RefRegistry::default();
    assert!(!outline(&obs, 1, &mut registry).refs.contains_key(&0));
}

#[test]
fn a_control_that_takes_clicks_keeps_its_ref_whatever_it_holds() {
    let page = el(
        "RootWebArea",
        "",
        vec![el(
            "button",
            "Accept",
            vec![el("checkbox", "Accept", vec![])],
        )],
    );
    let mut obs = observation(page);
    obs.nodes[1].clickable = true;
    assert_eq!(
        shape(&obs),
        "button \"Accept\" [ref]\n  checkbox \"Accept\" [ref]"
    );
}

#[test]
fn a_hidden_control_does_not_stop_a_wrapper_from_passing_clicks_on() {
    let hidden = at(el("button", "More", vec![]), rect(0.0, 0.0, 0.0, 0.0));
    let item = el(
        "listitem",
        "",
        vec![el("link", "Kenya", vec![text("Kenya")]), hidden],
    );
    let mut obs = observation(el("RootWebArea", "", vec![el("list", "", vec![item])]));
    obs.nodes[2].clickable = true;
    assert_eq!(shape(&obs), "list\n  listitem\n    link \"Kenya\" [ref]");
}

#[test]
fn a_node_without_a_ref_gets_one_on_demand_and_a_node_with_one_keeps_it() {
    let obs = observation(el(
        "RootWebArea",
        "",
        vec![
            el("button", "Save", vec![]),
            el("heading", "Title", vec![text("Title")]),
        ],
    ));
    let mut registry = RefRegistry::default();
    let outlined = outline(&obs, 1, &mut registry);
    let save = outlined.refs[&1].clone();
    assert_eq!(
        outlined.ref_of(&obs, 1, &outlined.identities[&1], &mut registry),
        save
    );
    let heading = outlined.ref_of(&obs, 2, &outlined.identities[&2], &mut registry);
    assert!(crate::refs::is_ref(&heading), "{heading}");
    assert_ne!(heading, save);
    assert_eq!(registry.of_node((0, 3)), Some(heading.as_str()));
}

#[test]
fn a_new_element_like_one_still_on_the_page_gets_a_ref_of_its_own() {
    let mut registry = RefRegistry::default();
    let mut first = observation(el("RootWebArea", "", vec![el("button", "Star", vec![])]));
    first.nodes[1].backend_id = Some(10);
    let star = outline(&first, 1, &mut registry).refs[&1].clone();
    // A second Star button is inserted before the first, which is still there.
    let mut second = observation(el(
        "RootWebArea",
        "",
        vec![el("button", "Star", vec![]), el("button", "Star", vec![])],
    ));
    second.nodes[1].backend_id = Some(11);
    second.nodes[2].backend_id = Some(10);
    let refs = outline(&second, 1, &mut registry).refs;
    assert_eq!(refs[&2], star, "the first button keeps its ref");
    assert_ne!(refs[&1], star, "the new one has its own");
}

#[test]
fn each_line_knows_the_line_it_is_nested_under() {
    let obs = observation(el(
        "RootWebArea",
        "",
        vec![
            el(
                "list",
                "",
                vec![
                    el(
                        "listitem",
                        "",
                        vec![el("link", "A", vec![]), el("link", "B", vec![])],
                    ),
                    el("listitem", "", vec![el("link", "C", vec![])]),
                ],
            ),
            el("button", "D", vec![]),
        ],
    ));
    let mut registry = RefRegistry::default();
    let outlined = outline(&obs, 1, &mut registry);
    let parents: Vec<Option<usize>> = outlined.lines.iter().map(|l| l.parent).collect();
    assert_eq!(
        parents,
        vec![None, Some(0), Some(1), Some(1), Some(0), Some(4), None]
    );
}

#[test]
fn states_and_values_read_as_an_agent_needs_them() {
    let mut obs = observation(el(
        "RootWebArea",
        "",
        vec![
            el("heading", "Title", vec![]),
            el("treeitem", "Node", vec![]),
            el("row", "Row", vec![]),
            el("checkbox", "Some", vec![]),
            el("button", "Bold", vec![]),
            el("button", "Menu", vec![]),
            el("textbox", "Query", vec![]),
            el("textbox", "Born", vec![]),
            el("textbox", "Long", vec![]),
            el("textbox", "Blank", vec![]),
        ],
    ));
    obs.nodes[10].value = Some("  ".into());
    obs.nodes[1].states = vec![("level", "2".into())];
    obs.nodes[2].states = vec![("level", "3".into()), ("selected", "true".into())];
    obs.nodes[3].states = vec![("level", "1".into())];
    obs.nodes[4].states = vec![("checked", "mixed".into()), ("focused", "true".into())];
    obs.nodes[5].states = vec![("pressed", "mixed".into()), ("checked", "true".into())];
    obs.nodes[6].states = vec![("expanded", "true".into())];
    obs.nodes[7].value = Some(" Query ".into());
    obs.nodes[8].input_type = Some("date".into());
    obs.nodes[8].value = Some("3/10/2015".into());
    obs.nodes[8].dom_value = Some("2015-03-10".into());
    obs.nodes[9].value = Some("x".repeat(120));
    assert_eq!(
        shape(&obs),
        format!(
            "heading \"Title\" level=2\ntreeitem \"Node\" [ref] level=3 selected\nrow \"Row\"\n\
             checkbox \"Some\" [ref] checked=mixed\nbutton \"Bold\" [ref] pressed=mixed checked\n\
             button \"Menu\" [ref] expanded\ntextbox \"Query\" [ref]\n\
             date \"Born\" [ref] value=\"2015-03-10\"\ntextbox \"Long\" [ref] value=\"{}\"\ntextbox \"Blank\" [ref]",
            "x".repeat(120)
        )
    );
    // A value is given whole up to two thousand characters; past that, its length.
    obs.nodes[9].value = Some("y".repeat(2500));
    let long = shape(&obs);
    assert!(
        long.contains(&format!("value=\"{}…\" length=2500", "y".repeat(2000))),
        "{long}"
    );
}

#[test]
fn chromium_roles_read_as_an_agent_knows_them() {
    for (role, shown) in [
        ("StaticText", "text"),
        ("RootWebArea", "document"),
        ("Iframe", "iframe"),
        ("PopUpButton", "combobox"),
        ("MenuListOption", "option"),
        ("ListBoxOption", "option"),
        ("DisclosureTriangle", "button"),
        ("ToggleButton", "button"),
        ("image", "img"),
        ("LabelText", "label"),
        ("GenericContainer", "generic"),
        ("Div", "generic"),
        ("Span", "generic"),
        ("generic", "generic"),
        ("navigation", "navigation"),
    ] {
        assert_eq!(display_role(role), shown, "{role}");
    }
}

#[test]
fn text_is_normalised_clipped_by_characters_and_read_under_a_node() {
    assert_eq!(normalise("  a \n\t b  "), "a b");
    assert_eq!(clip("abcdef", 3), "abc…");
    assert_eq!(clip("abc", 3), "abc");
    assert_eq!(clip("ééééé", 2), "éé…");
    let mut obs = observation(el(
        "RootWebArea",
        "",
        vec![el(
            "generic",
            "",
            vec![text("M"), text("e"), text("p "), text(" world")],
        )],
    ));
    obs.nodes[3].sep_before = Some(Sep::None);
    obs.nodes[4].sep_before = Some(Sep::None);
    obs.nodes[5].sep_before = Some(Sep::Space);
    assert_eq!(text_under(&obs.nodes, 0, 80), "Mep world");
    assert_eq!(text_under(&obs.nodes, 0, 3), "Mep…");
    // However many bytes a character takes, the text holds `max` characters.
    let pieces = (0..40).map(|_| text("éééééééé")).collect();
    let obs = observation(el("RootWebArea", "", pieces));
    assert_eq!(text_under(&obs.nodes, 0, 80).chars().count(), 81);
    // Reading stops past four bytes a character, counted before spaces are collapsed.
    let obs = observation(el("RootWebArea", "", vec![text("a          b"), text("c")]));
    assert_eq!(text_under(&obs.nodes, 0, 3), "a b…");
}

#[test]
fn text_pieces_join_by_what_separates_them_and_long_text_is_clipped() {
    let long = "y".repeat(250);
    let pieces = vec![
        text("One"),
        text("two"),
        text("three"),
        text("Four"),
        el("button", "Five", vec![]),
        text(&long),
    ];
    let mut obs = observation(el("RootWebArea", "", pieces));
    obs.nodes[2].sep_before = Some(Sep::None);
    obs.nodes[3].sep_before = Some(Sep::Space);
    obs.nodes[4].sep_before = Some(Sep::Line);
    obs.nodes[6].sep_before = Some(Sep::Space);
    assert_eq!(
        shape(&obs),
        format!(
            "Onetwo three\nFour\nbutton \"Five\" [ref]\n{}…",
            "y".repeat(200)
        )
    );
}

#[test]
fn an_element_line_is_never_cut_and_a_text_line_is() {
    let mut obs = observation(el(
        "RootWebArea",
        "",
        vec![el("textbox", &"n".repeat(100), vec![])],
    ));
    obs.nodes[1].value = Some("v".repeat(100));
    let text = shape(&obs);
    assert_eq!(
        text,
        format!(
            "textbox \"{}\" [ref] value=\"{}\"",
            "n".repeat(100),
            "v".repeat(100)
        )
    );
}

/// An identity in words folds to the container hash the outline gave the element, for
/// landmarks, named containers and containers told apart by their text alike.
#[test]
fn an_elements_container_path_hashes_to_its_identitys_container() {
    let obs = observation(el(
        "RootWebArea",
        "",
        vec![el(
            "main",
            "",
            vec![
                el(
                    "list",
                    "",
                    vec![
                        el(
                            "listitem",
                            "",
                            vec![text("Brass lantern $24"), el("button", "Add", vec![])],
                        ),
                        el(
                            "listitem",
                            "Wool blanket",
                            vec![el("button", "Add", vec![])],
                        ),
                    ],
                ),
                el(
                    "form",
                    "Sign in",
                    vec![el("group", "", vec![el("textbox", "User", vec![])])],
                ),
            ],
        )],
    ));
    let mut registry = RefRegistry::default();
    let outlined = outline(&obs, 1, &mut registry);
    let mut checked = 0;
    for (node, identity) in &outlined.identities {
        let words = crate::refs::ElementIdentity {
            role: identity.role.clone(),
            name: identity.name.clone(),
            containers: container_path(&obs.nodes, *node),
            heading: identity.context.clone(),
            ordinal: identity.ordinal,
        };
        assert_eq!(words.container_key(), identity.container, "{words}");
        checked += 1;
    }
    assert!(checked >= 4, "{checked}");
    let first_add = obs.nodes.iter().position(|n| n.role == "button").unwrap();
    assert_eq!(
        container_path(&obs.nodes, first_add),
        [
            ("main".to_string(), String::new()),
            ("listitem".to_string(), "Brass lantern $24".to_string())
        ]
    );
}

#[path = "geometry_tests.rs"]
mod geometry;

#[path = "../markdown_tests.rs"]
mod markdown;

/// A page nests as deep as it likes: a tree 100,000 levels deep is outlined, packed,
/// rendered, written as markdown and searched on a test thread's stack, which a walk
/// recursing per level would overflow many times over.
#[test]
fn a_tree_a_hundred_thousand_levels_deep_is_walked_without_the_threads_stack() {
    const DEPTH: usize = 100_000;
    let mut nodes = vec![Node {
        role: "RootWebArea".into(),
        bounds: Some(rect(0.0, 0.0, 1000.0, 700.0)),
        backend_id: Some(1),
        ..Node::default()
    }];
    let mut add = |role: &str, name: &str| {
        let index = nodes.len();
        nodes.push(Node {
            role: role.into(),
            name: name.into(),
            bounds: Some(rect(0.0, 0.0, 100.0, 20.0)),
            backend_id: Some(index as i64 + 1),
            parent: Some(index - 1),
            ..Node::default()
        });
        nodes[index - 1].children.push(index);
    };
    for _ in 0..DEPTH {
        add("generic", "");
    }
    add("link", "At the bottom");
    add("StaticText", "At the bottom");
    let mut observation = observation(el("RootWebArea", "", Vec::new()));
    observation.nodes = nodes;

    let mut registry = RefRegistry::default();
    let outlined = outline(&observation, 1, &mut registry);
    let texts: Vec<&str> = outlined.lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(
        texts[0].starts_with("link \"At the bottom\" [e"),
        "{texts:?}"
    );
    let packed =
        crate::snapshot::budget::pack(&outlined.lines, &observation.viewport, (0, 0), 1000);
    let rendered = crate::snapshot::budget::render(&outlined.lines, &packed, |node| {
        outlined.refs.get(&node).cloned()
    });
    assert!(rendered.concat().contains("At the bottom"), "{rendered:?}");
    let markdown = crate::snapshot::markdown::render(&observation, &outlined);
    assert!(markdown.contains("[At the bottom]"), "{markdown}");
    let query = crate::snapshot::FindQuery {
        text: Some("at the bottom".into()),
        role: None,
        name: None,
        limit: 5,
    };
    let found = crate::snapshot::find::find(&observation, &outlined, &query);
    assert_eq!(found.len(), 1);
}
