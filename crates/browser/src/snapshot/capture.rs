//! One observation of a tab: Chromium's accessibility tree for every frame, joined with
//! the DOM snapshot (layout boxes, computed styles, live form values, click listeners).
//!
//! Per CDP session (the page, and each out-of-process iframe) three calls go out at
//! once — `Accessibility.getFullAXTree`, `DOMSnapshot.captureSnapshot`,
//! `Page.getLayoutMetrics` — plus one AX call per same-process child frame. Everything
//! else is computed here, in Rust, from the replies.

use std::collections::HashMap;

use cdp::protocol::{accessibility, dom, dom_snapshot, page};
use cdp::{Deadline, Session};

use crate::Error;

use super::PROFILE;
pub use super::text_breaks::Sep;
use super::text_breaks::separators;

/// Computed styles requested from the DOM snapshot, in this order.
pub(super) const STYLES: &[&str] = &[
    "cursor",
    "overflow-x",
    "overflow-y",
    "display",
    "opacity",
    "border-top-width",
    "border-bottom-width",
];
const CURSOR: usize = 0;
const OVERFLOW_X: usize = 1;
const OVERFLOW_Y: usize = 2;
pub(super) const DISPLAY: usize = 3;
const OPACITY: usize = 4;
const BORDER_TOP: usize = 5;
const BORDER_BOTTOM: usize = 6;

/// A computed length (`1px`) in CSS pixels; 0 for anything else.
fn px(value: &str) -> f64 {
    value
        .strip_suffix("px")
        .and_then(|n| n.trim().parse::<f64>().ok())
        .filter(|n| n.is_finite())
        .unwrap_or(0.0)
}

/// A rectangle in CSS pixels, in the top-level document's coordinates (the viewport's
/// plus its scroll offset).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl Rect {
    pub fn bottom(&self) -> f64 {
        self.y + self.height
    }

    pub fn right(&self) -> f64 {
        self.x + self.width
    }
}

/// One node of the observed page.
#[derive(Debug, Clone, Default)]
pub struct Node {
    /// Chromium's role, e.g. `button`, `link`, `StaticText`, `generic`, `RootWebArea`.
    pub role: String,
    pub name: String,
    pub value: Option<String>,
    /// ARIA states and properties that matter to an agent: `checked`, `disabled`, …
    pub states: Vec<(&'static str, String)>,
    pub backend_id: Option<i64>,
    /// Which CDP session owns the node (0: the page; then out-of-process frames).
    pub session: usize,
    /// The box in top-level document coordinates, when the node is laid out.
    pub bounds: Option<Rect>,
    /// Responds to clicks without an interactive role (listener, onclick, pointer cursor).
    pub clickable: bool,
    /// Drawn with a pointer cursor, its own or inherited.
    pub pointer: bool,
    /// Clips its content to its box (`overflow` other than `visible`).
    pub clips: bool,
    pub focusable: bool,
    pub href: Option<String>,
    pub input_type: Option<String>,
    /// Text: what separates it from the text before it (`None`: not known, as on a
    /// region read; geometry decides).
    pub sep_before: Option<Sep>,
    /// Drawn fully transparent (`opacity: 0`): hidden with what it holds.
    pub transparent: bool,
    /// Scrolls its content (`overflow` `auto` or `scroll`): a scroll container.
    pub scrolls: bool,
    /// A scroll container's top and bottom border widths: its box less these is the
    /// height it shows its content in.
    pub borders: (f64, f64),
    /// An input's live value, as the DOM holds it (`2015-03-10` for a date).
    pub dom_value: Option<String>,
    /// A secret field (`cdp::is_secret_field`: a password, a card number, a one-time
    /// code…): its value is never shown.
    pub secret: bool,
    /// Element children not read (a region read, inside a scroll container): before the
    /// first read child and after the last.
    pub unread: (usize, usize),
    /// In the keyboard's tab order by its own `tabindex` (0 or more).
    pub tabbable: bool,
    pub children: Vec<usize>,
    pub parent: Option<usize>,
}

/// The viewport and scroll position of the top-level page, in CSS pixels.
#[derive(Debug, Clone, Copy, Default)]
pub struct Viewport {
    pub width: f64,
    pub height: f64,
    pub scroll_x: f64,
    pub scroll_y: f64,
    pub content_width: f64,
    pub content_height: f64,
}

/// A whole observation: nodes in document order (index 0 is the root).
#[derive(Debug, Clone, Default)]
pub struct Observation {
    pub nodes: Vec<Node>,
    pub viewport: Viewport,
    /// The sessions nodes refer to by index.
    pub sessions: Vec<Session>,
    /// Per session: each DOM node's parent (backend ids; a pseudo-element's parent is
    /// its host), for hit-test checks.
    pub dom_parents: Vec<HashMap<i64, i64>>,
    /// Actionable elements left out above and below (an observation around the
    /// viewport), counted from the DOM.
    pub elements_beyond: (usize, usize),
}

impl Observation {
    /// Whether DOM node `node` is `ancestor` or inside it, in session `session`.
    pub fn dom_contains(&self, session: usize, ancestor: i64, node: i64) -> bool {
        let Some(parents) = self.dom_parents.get(session) else {
            return false;
        };
        let mut current = Some(node);
        for _ in 0..4096 {
            match current {
                Some(n) if n == ancestor => return true,
                Some(n) => current = parents.get(&n).copied(),
                None => return false,
            }
        }
        false
    }
}

/// Roles whose ARIA states are worth showing, and which states.
const STATE_PROPERTIES: &[&str] = &[
    "checked",
    "disabled",
    "expanded",
    "selected",
    "pressed",
    "required",
    "invalid",
    "readonly",
    "level",
    "focused",
    "multiselectable",
    "multiline",
    "modal",
];

/// What the DOM snapshot knows of one node, keyed by backend node id.
#[derive(Debug, Clone, Default)]
pub(super) struct DomFacts {
    pub bounds: Option<Rect>,
    pub clickable: bool,
    pub pointer: bool,
    pub clips: bool,
    pub href: Option<String>,
    pub input_type: Option<String>,
    pub has_onclick: bool,
    pub content_document: Option<usize>,
    pub parent_backend: Option<i64>,
    pub sep_before: Option<Sep>,
    pub transparent: bool,
    /// Scrolls its content (`overflow` `auto` or `scroll`).
    pub scrolls: bool,
    pub borders: (f64, f64),
    /// An input's live value, as the DOM holds it.
    pub dom_value: Option<String>,
    /// A secret field (`cdp::is_secret_field`).
    pub secret: bool,
    pub tabbable: bool,
}

/// A document of one session's DOM snapshot: its frame and where it sits on screen.
#[derive(Debug, Clone, Default)]
pub(super) struct Document {
    frame_id: String,
    /// Adds to the document's own coordinates to give top-level viewport coordinates.
    offset: (f64, f64),
}

/// The replies of one session, joined.
struct SessionCapture {
    dom: HashMap<i64, DomFacts>,
    documents: Vec<Document>,
    trees: Vec<accessibility::AxTree>,
}

/// Observes the page of `page` (and its out-of-process frames, `children`).
pub(crate) async fn observe(
    page: &Session,
    children: &[(String, Session)],
    deadline: Deadline,
) -> Result<Observation, Error> {
    let started = std::time::Instant::now();
    // The page's three reads go out at once: the renderer answers them in turn, and each
    // reply is parsed here while the next one is made.
    let (metrics, main) = tokio::try_join!(
        async { Ok::<_, Error>(page.call(&page::GetLayoutMetrics {}, deadline).await?) },
        capture_session(page, (0.0, 0.0), deadline),
    )?;
    let viewport = Viewport {
        width: metrics.css_visual_viewport.client_width,
        height: metrics.css_visual_viewport.client_height,
        scroll_x: metrics.css_visual_viewport.page_x,
        scroll_y: metrics.css_visual_viewport.page_y,
        content_width: metrics.css_content_size.width,
        content_height: metrics.css_content_size.height,
    };
    let mut sessions = vec![page.clone()];
    let mut captures = vec![main];
    let mut owners = HashMap::new();
    // Out-of-process frames: where their owner element sits in the page, then their own
    // capture offset by it.
    for (frame_id, session) in children {
        let owner = page
            .call(
                &dom::GetFrameOwner {
                    frame_id: frame_id.clone(),
                },
                deadline,
            )
            .await;
        let Ok(owner) = owner else { continue };
        let origin = captures[0]
            .dom
            .get(&owner.backend_node_id)
            .and_then(|facts| facts.bounds)
            .map_or((0.0, 0.0), |b| (b.x, b.y));
        match capture_session(session, origin, deadline).await {
            Ok(capture) => {
                owners.insert(sessions.len(), owner.backend_node_id);
                sessions.push(session.clone());
                captures.push(capture);
            }
            // A frame that went away between listing and reading is simply not shown.
            Err(err) => tracing::debug!(%err, frame = %frame_id, "skipping an iframe"),
        }
    }
    let dom_parents = captures
        .iter()
        .map(|c| {
            c.dom
                .iter()
                .filter_map(|(node, facts)| Some((*node, facts.parent_backend?)))
                .collect()
        })
        .collect();
    let nodes = join(&captures, &owners);
    tracing::debug!(
        target: PROFILE,
        ms = started.elapsed().as_secs_f64() * 1000.0,
        nodes = nodes.len(),
        frames = captures.len(),
        "whole read"
    );
    Ok(Observation {
        nodes,
        viewport,
        sessions,
        dom_parents,
        elements_beyond: (0, 0),
    })
}

fn snapshot_call() -> dom_snapshot::CaptureSnapshot {
    dom_snapshot::CaptureSnapshot {
        computed_styles: STYLES.iter().map(|s| s.to_string()).collect(),
        include_dom_rects: None,
    }
}

async fn capture_session(
    session: &Session,
    origin: (f64, f64),
    deadline: Deadline,
) -> Result<SessionCapture, Error> {
    let started = std::time::Instant::now();
    let snapshot_call = snapshot_call();
    let (tree, snapshot) = tokio::try_join!(
        async {
            let tree = session
                .call(&accessibility::GetFullAxTree::default(), deadline)
                .await?;
            tracing::debug!(
                target: PROFILE,
                ms = started.elapsed().as_secs_f64() * 1000.0,
                nodes = tree.nodes.len(),
                "AX tree"
            );
            Ok::<_, Error>(tree)
        },
        async {
            let snapshot = session.call(&snapshot_call, deadline).await?;
            tracing::debug!(
                target: PROFILE,
                ms = started.elapsed().as_secs_f64() * 1000.0,
                documents = snapshot.documents.len(),
                "DOM snapshot"
            );
            Ok::<_, Error>(snapshot)
        },
    )?;
    let (dom, documents) = read_dom(&snapshot, origin);
    // Same-process child frames have their own AX tree, asked for by frame id.
    let mut trees = vec![tree];
    let child_frames: Vec<String> = documents
        .iter()
        .skip(1)
        .map(|d| d.frame_id.clone())
        .collect();
    let requests: Vec<accessibility::GetFullAxTree> = child_frames
        .iter()
        .map(|frame| accessibility::GetFullAxTree {
            frame_id: Some(frame.clone()),
        })
        .collect();
    let calls = requests
        .iter()
        .map(|request| session.call(request, deadline));

    // A frame that went away meanwhile is simply not shown.
    trees.extend(
        futures::future::join_all(calls)
            .await
            .into_iter()
            .filter_map(Result::ok),
    );
    Ok(SessionCapture {
        dom,
        documents,
        trees,
    })
}

/// Reads the DOM snapshot into facts by backend id, placing every document on screen.
pub(super) fn read_dom(
    snapshot: &dom_snapshot::Snapshot,
    origin: (f64, f64),
) -> (HashMap<i64, DomFacts>, Vec<Document>) {
    let strings = &snapshot.strings;
    let text = |index: i64| -> &str {
        usize::try_from(index)
            .ok()
            .and_then(|i| strings.get(i))
            .map_or("", String::as_str)
    };
    let mut documents: Vec<Document> = snapshot
        .documents
        .iter()
        .map(|d| Document {
            frame_id: text(d.frame_id).to_string(),
            offset: origin,
        })
        .collect();
    let mut facts = HashMap::new();
    // Documents come parents first; a child's offset is its owner's box minus its scroll.
    for (doc_index, doc) in snapshot.documents.iter().enumerate() {
        let nodes = &doc.nodes;
        let offset = documents[doc_index].offset;
        let (scroll_x, scroll_y) = if doc_index == 0 {
            (0.0, 0.0)
        } else {
            (doc.scroll_offset_x, doc.scroll_offset_y)
        };
        let mut bounds: HashMap<usize, (Rect, &[i64])> = HashMap::new();
        for (layout_index, node_index) in doc.layout.node_index.iter().enumerate() {
            let Some(b) = doc.layout.bounds.get(layout_index) else {
                continue;
            };
            if b.len() < 4 {
                continue;
            }
            let rect = Rect {
                x: b[0] + offset.0 - scroll_x,
                y: b[1] + offset.1 - scroll_y,
                width: b[2],
                height: b[3],
            };
            let styles = doc
                .layout
                .styles
                .get(layout_index)
                .map_or(&[][..], Vec::as_slice);
            if let Ok(node_index) = usize::try_from(*node_index) {
                bounds.entry(node_index).or_insert((rect, styles));
            }
        }
        let rare_bool =
            |data: &Option<dom_snapshot::RareBooleanData>| -> std::collections::HashSet<i64> {
                data.as_ref()
                    .map(|d| d.index.iter().copied().collect())
                    .unwrap_or_default()
            };
        let clickable = rare_bool(&nodes.is_clickable);
        // Rare data: node index → value, for the nodes that have one.
        let rare = |index: &[i64], value: &[i64]| -> HashMap<i64, i64> {
            index.iter().copied().zip(value.iter().copied()).collect()
        };
        let input_values = nodes
            .input_value
            .as_ref()
            .map(|d| rare(&d.index, &d.value))
            .unwrap_or_default();
        let content_documents = nodes
            .content_document_index
            .as_ref()
            .map(|d| rare(&d.index, &d.value))
            .unwrap_or_default();
        for (index, backend) in nodes.backend_node_id.iter().enumerate() {
            let tag = text(nodes.node_name.get(index).copied().unwrap_or(-1)).to_ascii_lowercase();
            let attributes = nodes.attributes.get(index).map_or(&[][..], Vec::as_slice);
            let attribute = |name: &str| {
                attributes
                    .chunks(2)
                    .find(|pair| pair.len() == 2 && text(pair[0]).eq_ignore_ascii_case(name))
                    .map(|pair| text(pair[1]).to_string())
            };
            let (rect, styles) = bounds
                .get(&index)
                .map_or((None, &[][..]), |(r, s)| (Some(*r), *s));
            let style = |i: usize| styles.get(i).map_or("", |s| text(*s));
            let content_document = content_documents
                .get(&(index as i64))
                .and_then(|d| usize::try_from(*d).ok());
            if let (Some(child), Some(rect)) = (content_document, rect)
                && let Some(document) = documents.get_mut(child)
            {
                document.offset = (rect.x, rect.y);
            }
            let parent_backend = nodes
                .parent_index
                .get(index)
                .and_then(|p| usize::try_from(*p).ok())
                .and_then(|p| nodes.backend_node_id.get(p).copied());
            facts.insert(
                *backend,
                DomFacts {
                    bounds: rect,
                    clickable: clickable.contains(&(index as i64)),
                    pointer: style(CURSOR) == "pointer",
                    clips: [OVERFLOW_X, OVERFLOW_Y]
                        .iter()
                        .any(|i| !matches!(style(*i), "" | "visible")),
                    href: if tag == "a" { attribute("href") } else { None },
                    input_type: if tag == "input" {
                        attribute("type").map(|t| t.to_ascii_lowercase())
                    } else {
                        None
                    },
                    has_onclick: attribute("onclick").is_some(),
                    content_document,
                    parent_backend,
                    sep_before: None,
                    transparent: style(OPACITY) == "0"
                        && !matches!(tag.as_str(), "input" | "select" | "textarea"),
                    scrolls: [OVERFLOW_X, OVERFLOW_Y]
                        .iter()
                        .any(|i| matches!(style(*i), "auto" | "scroll")),
                    borders: (px(style(BORDER_TOP)), px(style(BORDER_BOTTOM))),
                    dom_value: input_values
                        .get(&(index as i64))
                        .map(|v| text(*v).to_string()),
                    secret: cdp::is_secret_field(&tag, attribute),
                    tabbable: attribute("tabindex")
                        .and_then(|t| t.trim().parse::<i64>().ok())
                        .is_some_and(|t| t >= 0),
                },
            );
        }
        for (backend, sep) in separators(doc, &bounds, &text) {
            if let Some(f) = facts.get_mut(&backend) {
                f.sep_before = Some(sep);
            }
        }
    }
    (facts, documents)
}

/// Joins every session's AX trees with its DOM facts into one tree in document order,
/// each child frame's tree inlined under its `iframe` node.
fn join(captures: &[SessionCapture], owners: &HashMap<usize, i64>) -> Vec<Node> {
    let mut nodes = Vec::new();
    // The root of each (session, document) tree, to inline under its owner.
    let mut frame_roots: HashMap<(usize, String), usize> = HashMap::new();
    for (session_index, capture) in captures.iter().enumerate() {
        for (tree_index, tree) in capture.trees.iter().enumerate() {
            let frame = capture
                .documents
                .get(tree_index)
                .map(|d| d.frame_id.clone())
                .unwrap_or_default();
            if let Some(root) = add_tree(&mut nodes, tree, capture, session_index) {
                frame_roots.insert((session_index, frame), root);
            }
        }
    }
    // Attach same-process child documents under their iframe element.
    let mut attach: Vec<(usize, usize)> = Vec::new(); // (iframe node, child root)
    for (index, node) in nodes.iter().enumerate() {
        let Some(backend) = node.backend_id else {
            continue;
        };
        let capture = &captures[node.session];
        let Some(facts) = capture.dom.get(&backend) else {
            continue;
        };
        if let Some(document) = facts.content_document
            && let Some(doc) = capture.documents.get(document)
            && let Some(root) = frame_roots.get(&(node.session, doc.frame_id.clone()))
        {
            attach.push((index, *root));
        }
        if node.session == 0 {
            for (session_index, owner) in owners {
                if *owner == backend
                    && let Some(doc) = captures[*session_index].documents.first()
                    && let Some(root) = frame_roots.get(&(*session_index, doc.frame_id.clone()))
                {
                    attach.push((index, *root));
                }
            }
        }
    }
    for (iframe, root) in attach {
        if iframe != root && nodes[root].parent.is_none() {
            nodes[iframe].children.push(root);
            nodes[root].parent = Some(iframe);
        }
    }
    reorder(nodes)
}

/// Adds one AX tree's nodes; returns the index of its root.
fn add_tree(
    nodes: &mut Vec<Node>,
    tree: &accessibility::AxTree,
    capture: &SessionCapture,
    session: usize,
) -> Option<usize> {
    let base = nodes.len();
    let by_id: HashMap<&str, usize> = tree
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.node_id.as_str(), base + i))
        .collect();
    for ax in &tree.nodes {
        nodes.push(node_from_ax(ax, &capture.dom, session));
    }
    let mut root = None;
    for (i, ax) in tree.nodes.iter().enumerate() {
        let index = base + i;
        for child in &ax.child_ids {
            if let Some(&child_index) = by_id.get(child.as_str()) {
                nodes[index].children.push(child_index);
                nodes[child_index].parent = Some(index);
            }
        }
        if ax.parent_id.is_none() && root.is_none() {
            root = Some(index);
        }
    }
    root
}

/// One observation node from an AX node and what the DOM snapshot knows of its element.
pub(super) fn node_from_ax(
    ax: &accessibility::AxNode,
    dom: &HashMap<i64, DomFacts>,
    session: usize,
) -> Node {
    let facts = ax.backend_dom_node_id.and_then(|b| dom.get(&b));
    let mut states = Vec::new();
    let mut focusable = false;
    for property in &ax.properties {
        if property.name == "focusable" {
            focusable = property
                .value
                .value
                .as_ref()
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false);
        }
        if let Some(name) = STATE_PROPERTIES.iter().find(|p| **p == property.name)
            && let Some(value) = property.value.text()
            && value != "false"
        {
            states.push((*name, value));
        }
    }
    let role = ax
        .role
        .as_ref()
        .and_then(accessibility::AxValue::text)
        .unwrap_or_default();
    Node {
        role: if ax.ignored {
            String::from("ignored")
        } else {
            role
        },
        name: ax
            .name
            .as_ref()
            .and_then(accessibility::AxValue::text)
            .unwrap_or_default(),
        value: ax.value.as_ref().and_then(accessibility::AxValue::text),
        states,
        backend_id: ax.backend_dom_node_id,
        session,
        bounds: facts.and_then(|f| f.bounds),
        clickable: facts.is_some_and(|f| {
            f.clickable || f.has_onclick || f.pointer && !parent_has_pointer(dom, f)
        }),
        pointer: facts.is_some_and(|f| f.pointer),
        clips: facts.is_some_and(|f| f.clips),
        focusable,
        href: facts.and_then(|f| f.href.clone()),
        input_type: facts.and_then(|f| f.input_type.clone()),
        sep_before: facts.and_then(|f| f.sep_before),
        transparent: facts.is_some_and(|f| f.transparent),
        scrolls: facts.is_some_and(|f| f.scrolls),
        borders: facts.map_or((0.0, 0.0), |f| f.borders),
        dom_value: facts.and_then(|f| f.dom_value.clone()),
        secret: facts.is_some_and(|f| f.secret),
        unread: (0, 0),
        tabbable: facts.is_some_and(|f| f.tabbable),
        children: Vec::new(),
        parent: None,
    }
}

/// The pointer cursor is inherited: only the outermost element that sets it counts.
fn parent_has_pointer(dom: &HashMap<i64, DomFacts>, facts: &DomFacts) -> bool {
    let mut parent = facts.parent_backend;
    // Text nodes and inline wrappers inherit the cursor from a few levels up at most.
    for _ in 0..64 {
        let Some(backend) = parent else { return false };
        let Some(p) = dom.get(&backend) else {
            return false;
        };
        if p.bounds.is_some() {
            return p.pointer;
        }
        parent = p.parent_backend;
    }
    false
}

/// Renumbers the nodes in document order (depth-first from the first root), dropping
/// nodes not reachable from it.
pub(super) fn reorder(nodes: Vec<Node>) -> Vec<Node> {
    let Some(root) = nodes.iter().position(|n| n.parent.is_none()) else {
        return Vec::new();
    };
    let mut order = Vec::with_capacity(nodes.len());
    let mut stack = vec![root];
    while let Some(index) = stack.pop() {
        order.push(index);
        for child in nodes[index].children.iter().rev() {
            stack.push(*child);
        }
    }
    let mut new_index = vec![usize::MAX; nodes.len()];
    for (position, old) in order.iter().enumerate() {
        new_index[*old] = position;
    }
    let mut nodes: Vec<Option<Node>> = nodes.into_iter().map(Some).collect();
    order
        .iter()
        .filter_map(|old| {
            let mut node = nodes[*old].take()?;
            node.children = node
                .children
                .iter()
                .map(|c| new_index[*c])
                .filter(|c| *c != usize::MAX)
                .collect();
            node.parent = node
                .parent
                .map(|p| new_index[p])
                .filter(|p| *p != usize::MAX);
            Some(node)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A DOM node: parent index, node type, name, value, display, rendered text.
    type Row<'a> = (i64, i64, &'a str, &'a str, &'a str, Option<&'a str>);

    /// One document from rows; a node with a display (or rendered text) has a layout
    /// box. Backend ids are index+1.
    fn document(rows: &[Row<'_>]) -> dom_snapshot::Snapshot {
        let mut strings: Vec<String> = Vec::new();
        let mut string = |s: &str| -> i64 {
            if let Some(i) = strings.iter().position(|t| t == s) {
                return i as i64;
            }
            strings.push(s.to_string());
            strings.len() as i64 - 1
        };
        let mut nodes = serde_json::json!({
            "parentIndex": [], "nodeType": [], "nodeName": [], "nodeValue": [],
            "backendNodeId": [], "attributes": [],
        });
        let mut layout = serde_json::json!({
            "nodeIndex": [], "styles": [], "bounds": [], "text": [],
        });
        for (index, (parent, kind, name, value, display, text)) in rows.iter().enumerate() {
            nodes["parentIndex"]
                .as_array_mut()
                .unwrap()
                .push((*parent).into());
            nodes["nodeType"]
                .as_array_mut()
                .unwrap()
                .push((*kind).into());
            let name = string(name);
            nodes["nodeName"].as_array_mut().unwrap().push(name.into());
            let value = string(value);
            nodes["nodeValue"]
                .as_array_mut()
                .unwrap()
                .push(value.into());
            nodes["backendNodeId"]
                .as_array_mut()
                .unwrap()
                .push((index as i64 + 1).into());
            nodes["attributes"]
                .as_array_mut()
                .unwrap()
                .push(serde_json::json!([]));
            if !display.is_empty() || text.is_some() {
                let styles: Vec<i64> = ["auto", "visible", "visible", display, "1"]
                    .iter()
                    .map(|s| string(s))
                    .collect();
                layout["nodeIndex"]
                    .as_array_mut()
                    .unwrap()
                    .push(index.into());
                layout["styles"].as_array_mut().unwrap().push(styles.into());
                layout["bounds"]
                    .as_array_mut()
                    .unwrap()
                    .push(serde_json::json!([0, index * 10, 100, 10]));
                let text = text.map_or(-1, &mut string);
                layout["text"].as_array_mut().unwrap().push(text.into());
            }
        }
        let url = string("http://x/");
        let frame = string("frame");
        serde_json::from_value(serde_json::json!({
            "documents": [{ "documentURL": url, "frameId": frame, "nodes": nodes, "layout": layout }],
            "strings": strings,
        }))
        .unwrap()
    }

    #[test]
    fn separators_follow_inner_texts_block_and_inline_rule() {
        // <body><div>Sign</div>in <span>M</span><span>e</span> x<br>y <p>z</p></body>
        let snapshot = document(&[
            (-1, 9, "#document", "", "block", None),
            (0, 1, "BODY", "", "block", None),
            (1, 1, "DIV", "", "block", None),
            (2, 3, "#text", "Sign", "", Some("Sign")),
            (1, 3, "#text", "in ", "", Some("in ")),
            (1, 1, "SPAN", "", "inline", None),
            (5, 3, "#text", "M", "", Some("M")),
            (1, 1, "SPAN", "", "inline", None),
            (7, 3, "#text", "e", "", Some("e")),
            (1, 3, "#text", " x", "", Some(" x")),
            (1, 1, "BR", "", "inline", None),
            (1, 3, "#text", "y ", "", Some("y ")),
            (1, 1, "P", "", "block", None),
            (12, 3, "#text", "z", "", Some("z")),
            (1, 3, "#text", "\n  ", "", None),
        ]);
        let (facts, _) = read_dom(&snapshot, (0.0, 0.0));
        let sep = |backend: i64| facts[&backend].sep_before;
        assert_eq!(sep(4), Some(Sep::Line), "the first text starts a line");
        assert_eq!(sep(5), Some(Sep::Line), "after a block");
        assert_eq!(sep(7), Some(Sep::Space), "after rendered whitespace");
        assert_eq!(sep(9), Some(Sep::None), "inline neighbours join");
        assert_eq!(sep(10), Some(Sep::Space), "leading whitespace");
        assert_eq!(sep(12), Some(Sep::Line), "after <br>");
        assert_eq!(sep(14), Some(Sep::Line), "a block after inline text");
        assert_eq!(sep(15), None, "unrendered whitespace has no separator");
    }
}
