//! Where the page's text breaks (docs/observation.md#elements, text of a run reads as the page reads): per
//! rendered text node, what separates it from the text before it, by the rule of
//! `HTMLElement.innerText`, read from one document of the DOM snapshot.

use std::collections::HashMap;

use cdp::protocol::dom_snapshot;

use super::capture::{DISPLAY, Rect};

/// What separates a text node from the rendered text before it, as `innerText` reads
/// it: nothing (adjacent inline boxes), a space, or a line break (a block boundary or
/// `<br>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Sep {
    None,
    Space,
    Line,
}

/// For each rendered text node of a document (by backend id), what separates it from
/// the rendered text before it — the rule of `HTMLElement.innerText`: block-level boxes
/// (and `<br>`) break lines, inline boundaries add nothing, and collapsed whitespace
/// that is rendered is one space. Nodes come in document order; a node is entered when
/// it appears and left when a later node is not inside it.
pub(super) fn separators<'s>(
    doc: &dom_snapshot::DocumentSnapshot,
    layout: &HashMap<usize, (Rect, &[i64])>,
    text: &impl Fn(i64) -> &'s str,
) -> Vec<(i64, Sep)> {
    const TEXT_NODE: i64 = 3;
    let nodes = &doc.nodes;
    let mut rendered_text: HashMap<usize, i64> = HashMap::new();
    for (layout_index, node_index) in doc.layout.node_index.iter().enumerate() {
        if let (Ok(node), Some(t)) = (
            usize::try_from(*node_index),
            doc.layout.text.get(layout_index),
        ) && *t >= 0
        {
            rendered_text.entry(node).or_insert(*t);
        }
    }
    let block = |index: usize| -> bool {
        let Some((_, styles)) = layout.get(&index) else {
            return false;
        };
        let display = styles.get(DISPLAY).map_or("", |s| text(*s));
        !display.is_empty() && !display.starts_with("inline") && display != "contents"
    };
    let mut out = Vec::new();
    let mut open: Vec<(usize, bool)> = Vec::new(); // (node, is block)
    let mut pending = Sep::None;
    let mut started = false;
    for index in 0..nodes.backend_node_id.len() {
        let parent = nodes
            .parent_index
            .get(index)
            .and_then(|p| usize::try_from(*p).ok());
        while let Some((top, is_block)) = open.last().copied() {
            if Some(top) == parent {
                break;
            }
            open.pop();
            if is_block {
                pending = pending.max(Sep::Line);
            }
        }
        let name = text(nodes.node_name.get(index).copied().unwrap_or(-1));
        if nodes.node_type.get(index) == Some(&TEXT_NODE) {
            let Some(content) = rendered_text.get(&index).map(|t| text(*t)) else {
                continue; // not rendered
            };
            if content.trim().is_empty() {
                if !content.is_empty() {
                    pending = pending.max(Sep::Space);
                }
                continue;
            }
            if content.starts_with(char::is_whitespace) {
                pending = pending.max(Sep::Space);
            }
            if let Some(backend) = nodes.backend_node_id.get(index) {
                out.push((*backend, if started { pending } else { Sep::Line }));
            }
            started = true;
            pending = if content.ends_with(char::is_whitespace) {
                Sep::Space
            } else {
                Sep::None
            };
            continue;
        }
        if name.eq_ignore_ascii_case("br") {
            pending = Sep::Line;
        }
        let is_block = block(index);
        if is_block {
            pending = pending.max(Sep::Line);
        }
        open.push((index, is_block));
    }
    out
}
