//! Tests of the markdown reading (`snapshot::markdown`) on small synthetic pages, built
//! with the outline tests' page helpers.

use super::*;
use crate::snapshot::markdown::render as markdown;

fn read(observation: &Observation) -> String {
    let mut registry = RefRegistry::default();
    let outlined = outline(observation, 1, &mut registry);
    let text = markdown(observation, &outlined);
    // Refs replaced by `[ref]`, so expectations read plainly.
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
fn headings_take_their_level_within_one_to_six() {
    let mut page = observation(el(
        "RootWebArea",
        "",
        vec![
            el("heading", "One", vec![]),
            el("heading", "Three", vec![]),
            el("heading", "Plain", vec![]),
            el("heading", "Deep", vec![]),
        ],
    ));
    page.nodes[1].states = vec![("level", "1".into())];
    page.nodes[2].states = vec![("disabled", "true".into()), ("level", "3".into())];
    page.nodes[4].states = vec![("level", "9".into())];
    assert_eq!(
        read(&page),
        "# One\n\n### Three\n\n## Plain\n\n###### Deep\n"
    );
}

#[test]
fn links_images_and_controls_read_inline() {
    let mut page = observation(el(
        "RootWebArea",
        "",
        vec![el(
            "paragraph",
            "",
            vec![
                text("See"),
                el("link", "the [docs]", vec![]),
                el("link", "", vec![]),
                el("image", "Logo", vec![]),
                el("image", "", vec![]),
                el("textbox", "Email", vec![]),
                el("textbox", "Password", vec![]),
                el("textbox", "Query", vec![]),
                el("button", "Go", vec![text("Go")]),
            ],
        )],
    ));
    page.nodes[3].href = Some("/docs".into());
    page.nodes[4].href = Some("/blank".into());
    page.nodes[7].value = Some("a@b.c".into());
    page.nodes[8].value = Some("hunter2".into());
    page.nodes[8].input_type = Some("password".into());
    page.nodes[8].secret = true;
    page.nodes[9].value = Some("Query".into());
    assert_eq!(
        read(&page),
        "See [the [docs\\]](/docs) [ref] [/blank](/blank) [ref] ![Logo] \
         textbox \"Email\" [ref] value=\"a@b.c\" textbox \"Password\" [ref] value=\"••••\" \
         textbox \"Query\" [ref] button \"Go\" [ref]\n"
    );
}

#[test]
fn lists_nest_and_tables_read_as_rows() {
    // Only lists indent: what wraps them does not.
    let page = observation(el(
        "main",
        "",
        vec![
            el(
                "generic",
                "",
                vec![el(
                    "list",
                    "",
                    vec![
                        el("listitem", "", vec![text("Fruit")]),
                        el(
                            "listitem",
                            "",
                            vec![el(
                                "list",
                                "",
                                vec![el("listitem", "", vec![text("Pears")])],
                            )],
                        ),
                    ],
                )],
            ),
            el(
                "table",
                "",
                vec![
                    el("row", "", vec![text("Name"), text("Price")]),
                    el("row", "", vec![text("Tea"), text("2")]),
                ],
            ),
            el("InlineTextBox", "Dropped", vec![]),
        ],
    ));
    assert_eq!(
        read(&page),
        "- Fruit\n\n  - Pears\n\n| Name | Price |\n\n| Tea | 2 |\n"
    );
}

#[test]
fn hidden_content_is_not_read_and_an_empty_page_is_one_empty_line() {
    let gone = at(text("Gone"), rect(0.0, 0.0, 0.0, 0.0));
    let hidden = at(el("paragraph", "", vec![gone]), rect(0.0, 0.0, 0.0, 0.0));
    let page = observation(el(
        "RootWebArea",
        "",
        vec![hidden, el("paragraph", "", vec![text("Here")])],
    ));
    assert_eq!(read(&page), "Here\n");
    let mut empty = observation(el("RootWebArea", "", vec![]));
    empty.nodes.clear();
    assert_eq!(read(&empty), "\n");
}
