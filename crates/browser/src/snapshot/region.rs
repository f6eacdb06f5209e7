//! Observing a large page around the viewport only. Chromium's full accessibility tree
//! of a page like the Rust standard library's `Iterator` documentation has 33,000 nodes
//! (half of them inline text boxes) and takes the renderer most of a second to
//! serialise, while a snapshot's budget shows two screens of it. So for a large page:
//! the DOM snapshot (one call, all of the page's structure and boxes), then Chromium's
//! role, name and states only for the elements near the viewport and their ancestors
//! (`Accessibility.getPartialAXTree`, pipelined), with text taken from the DOM.
//! Small pages, pages with out-of-process frames, `find` and locating keep the full tree.

use std::collections::HashSet;

use cdp::protocol::{accessibility, dom_snapshot};
use cdp::{Deadline, Session};

use super::capture::{self, Node, Observation, Rect, Viewport};
use crate::Error;

/// Below this many DOM nodes the full tree costs less than the DOM snapshot plus the
/// per-element calls (measured: the full tree takes about 25 µs per node, the partial
/// path about 7 µs per DOM node plus 0.1 ms per element shown).
const LARGE_PAGE_NODES: usize = 12_000;
/// The region observed, in screens above and below the viewport: about what a default
/// budget shows.
const SCREENS_ABOVE: f64 = 0.5;
const SCREENS_BELOW: f64 = 2.5;

const ELEMENT: i64 = 1;
const TEXT: i64 = 3;

/// Observes `page` around the viewport, or returns `None` when the page is small enough
/// for a full observation (the caller's job then).
pub(crate) async fn observe_around(
    page: &Session,
    viewport: Viewport,
    snapshot: &dom_snapshot::Snapshot,
    deadline: Deadline,
) -> Result<Option<Observation>, Error> {
    let nodes: usize = snapshot
        .documents
        .iter()
        .map(|d| d.nodes.backend_node_id.len())
        .sum();
    if nodes < LARGE_PAGE_NODES {
        return Ok(None);
    }
    let started = std::time::Instant::now();
    let (facts, _documents) = capture::read_dom(snapshot, (0.0, 0.0));
    tracing::debug!(
        ms = started.elapsed().as_millis() as u64,
        nodes = facts.len(),
        "DOM facts"
    );
    let top = viewport.scroll_y - SCREENS_ABOVE * viewport.height;
    let bottom = viewport.scroll_y + (1.0 + SCREENS_BELOW) * viewport.height;
    let near = |rect: &Rect| rect.bottom() >= top && rect.y <= bottom;

    // Which nodes to show: elements near the viewport, their ancestors, and documents.
    let strings = &snapshot.strings;
    let text_of = |index: i64| -> String {
        usize::try_from(index)
            .ok()
            .and_then(|i| strings.get(i))
            .cloned()
            .unwrap_or_default()
    };
    let mut chosen: Vec<HashSet<usize>> = Vec::with_capacity(snapshot.documents.len());
    let mut beyond = (0usize, 0usize);
    for doc in &snapshot.documents {
        let nodes = &doc.nodes;
        let mut keep = HashSet::new();
        for (i, backend) in nodes.backend_node_id.iter().enumerate() {
            let kind = nodes.node_type.get(i).copied().unwrap_or(0);
            if kind != ELEMENT {
                continue;
            }
            let Some(f) = facts.get(backend) else {
                continue;
            };
            let Some(rect) = f.bounds else { continue };
            if near(&rect) {
                let mut at = Some(i);
                while let Some(n) = at {
                    if !keep.insert(n) {
                        break;
                    }
                    at = nodes
                        .parent_index
                        .get(n)
                        .and_then(|p| usize::try_from(*p).ok());
                }
            } else if f.clickable || f.href.is_some() || f.input_type.is_some() {
                if rect.bottom() < top {
                    beyond.0 += 1;
                } else {
                    beyond.1 += 1;
                }
            }
        }
        chosen.push(keep);
    }

    // Chromium's role, name and states for each chosen element (and document).
    let requests: Vec<(usize, usize, accessibility::GetPartialAxTree)> = snapshot
        .documents
        .iter()
        .enumerate()
        .flat_map(|(d, doc)| {
            chosen[d].iter().filter_map(move |i| {
                let kind = doc.nodes.node_type.get(*i).copied().unwrap_or(0);
                (kind == ELEMENT || kind == 9).then(|| {
                    (
                        d,
                        *i,
                        accessibility::GetPartialAxTree {
                            backend_node_id: doc.nodes.backend_node_id.get(*i).copied(),
                            fetch_relatives: Some(false),
                        },
                    )
                })
            })
        })
        .collect();
    let started = std::time::Instant::now();
    let replies =
        futures::future::join_all(requests.iter().map(|(_, _, r)| page.call(r, deadline))).await;
    tracing::debug!(
        calls = requests.len(),
        ms = started.elapsed().as_millis() as u64,
        "partial AX"
    );
    let mut ax: Vec<std::collections::HashMap<usize, Node>> =
        vec![Default::default(); snapshot.documents.len()];
    for ((d, i, request), reply) in requests.iter().zip(replies) {
        let reply = reply?;
        let wanted = request.backend_node_id;
        if let Some(node) = reply.nodes.iter().find(|n| n.backend_dom_node_id == wanted) {
            ax[*d].insert(*i, capture::node_from_ax(node, &facts, 0));
        }
    }

    // The tree, in document order, from the main document down (child documents under
    // their iframe element).
    let mut nodes: Vec<Node> = Vec::new();
    let children: Vec<Vec<Vec<usize>>> = snapshot
        .documents
        .iter()
        .map(|doc| {
            let mut children = vec![Vec::new(); doc.nodes.parent_index.len()];
            for (i, parent) in doc.nodes.parent_index.iter().enumerate() {
                if let Ok(p) = usize::try_from(*parent) {
                    children[p].push(i);
                }
            }
            children
        })
        .collect();
    let mut stack: Vec<(usize, usize, Option<usize>)> = vec![(0, 0, None)];
    while let Some((d, i, parent)) = stack.pop() {
        let doc = &snapshot.documents[d];
        let kind = doc.nodes.node_type.get(i).copied().unwrap_or(0);
        let backend = doc.nodes.backend_node_id.get(i).copied();
        let node = if kind == TEXT {
            let text = text_of(doc.nodes.node_value.get(i).copied().unwrap_or(-1));
            let parent_chosen = doc
                .nodes
                .parent_index
                .get(i)
                .and_then(|p| usize::try_from(*p).ok())
                .is_some_and(|p| chosen[d].contains(&p));
            let bounds = backend.and_then(|b| facts.get(&b)).and_then(|f| f.bounds);
            if text.trim().is_empty() || !parent_chosen || bounds.is_some_and(|r| !near(&r)) {
                continue;
            }
            Node {
                role: "StaticText".into(),
                name: text,
                backend_id: backend,
                bounds,
                ..Node::default()
            }
        } else if chosen[d].contains(&i) {
            ax[d].remove(&i).unwrap_or_else(|| Node {
                role: "none".into(),
                backend_id: backend,
                bounds: backend.and_then(|b| facts.get(&b)).and_then(|f| f.bounds),
                ..Node::default()
            })
        } else {
            continue;
        };
        let index = nodes.len();
        let mut node = node;
        node.parent = parent;
        node.children.clear();
        nodes.push(node);
        if let Some(p) = parent {
            nodes[p].children.push(index);
        }
        // Children go on the stack in reverse so they come off in document order; a
        // frame's document follows its iframe element's own children.
        let mut next: Vec<(usize, usize, Option<usize>)> = children[d][i]
            .iter()
            .map(|c| (d, *c, Some(index)))
            .collect();
        if let Some(child_doc) = backend
            .and_then(|b| facts.get(&b))
            .and_then(|f| f.content_document)
            && child_doc < snapshot.documents.len()
        {
            next.push((child_doc, 0, Some(index)));
        }
        stack.extend(next.into_iter().rev());
    }
    let dom_parents = vec![
        facts
            .iter()
            .filter_map(|(node, f)| Some((*node, f.parent_backend?)))
            .collect(),
    ];
    Ok(Some(Observation {
        nodes,
        viewport,
        sessions: vec![page.clone()],
        dom_parents,
        elements_beyond: beyond,
    }))
}
