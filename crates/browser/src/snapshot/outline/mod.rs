//! From an observation to the outline an agent reads: hidden nodes pruned, wrappers
//! folded, text merged, and refs assigned to every element an agent may act on (docs/observation.md#elements,
//! docs/observation.md#refs). Everything shown on the page or reachable by scrolling is a line here:
//! what a budget leaves out is decided, and counted, by `budget.rs`. Pure: no browser
//! here.

use std::collections::HashMap;

mod roles;
mod text;
mod visibility;

pub(in crate::snapshot) use roles::FOLDED;
use roles::*;
pub(crate) use roles::{DROPPED_ROLES, LANDMARKS, display_role};
use text::*;
pub(crate) use text::{clip, container_path, normalise, text_under};
use visibility::*;
pub(crate) use visibility::{intersects, scrolled_out, visibility};

use super::capture::{Node, Observation, Rect, Viewport};
use crate::refs::{Fnv, Identity, NodeKey, RefRegistry};

/// One line of the outline.
#[derive(Debug, Clone)]
pub(crate) struct Line {
    pub depth: usize,
    /// The line without indentation or bullet, e.g. `button "Save" [e4k2] disabled`.
    pub text: String,
    /// The observation node shown, if any (a count line shows none).
    pub node: Option<usize>,
    pub rect: Option<Rect>,
    /// The line this one is nested under.
    pub parent: Option<usize>,
    /// An element (counted as shown or omitted), not text.
    pub element: bool,
    /// Where the node's ref goes in `text` (a byte offset): refs are given once the whole
    /// page is known and put in by position, never by looking for a marker in text the
    /// page could have written.
    pub ref_at: Option<usize>,
    /// The scroll container (a node index) this line lies outside of: on the page, but
    /// scrolled out of view.
    pub scrolled: Option<usize>,
    /// A scroll container with content out of its box: it has a ref, and may be listed
    /// with only the count of what it holds.
    pub scroller: bool,
    /// Items of this line that were not read at all (a region read, inside a scroll
    /// container): before its first child line and after its last.
    pub unread: (usize, usize),
}

/// The outline of one observation, and the ref of every node that has one.
#[derive(Debug, Default)]
pub(crate) struct Outline {
    pub lines: Vec<Line>,
    /// Node index → ref, for every node given a ref (listed or not).
    pub refs: HashMap<usize, String>,
    /// Node index → identity, for every node with a ref.
    pub identities: HashMap<usize, Identity>,
    /// The DOM nodes of the observation, for ref continuity.
    pub live: std::collections::HashSet<NodeKey>,
    /// The shown scroll containers with more content than their box (each has a ref).
    pub containers: Vec<super::coverage::Container>,
}

impl Outline {
    /// The ref of node `index` of `observation`, given to it now if it has none.
    pub(crate) fn ref_of(
        &self,
        observation: &Observation,
        index: usize,
        identity: &Identity,
        registry: &mut RefRegistry,
    ) -> String {
        if let Some(r) = self.refs.get(&index) {
            return r.clone();
        }
        let node = &observation.nodes[index];
        let key = node.backend_id.map(|b| (node.session, b));
        registry.assign_node(identity, key, &|n| self.live.contains(&n))
    }
}

/// Builds the outline. `epoch` is the tab's URL epoch; refs are assigned in `registry`.
pub(crate) fn outline(
    observation: &Observation,
    epoch: u64,
    registry: &mut RefRegistry,
) -> Outline {
    registry.next_generation(epoch);
    let visible = visibility(&observation.nodes);
    let scrolled = scrolled_out(&observation.nodes, &visible);
    let containers = super::coverage::scroll_containers(&observation.nodes, &visible);
    let mut builder = Builder {
        nodes: &observation.nodes,
        viewport: observation.viewport,
        scrollers: scrolled
            .iter()
            .flatten()
            .map(|(s, _)| *s)
            .chain(containers.iter().map(|c| c.node))
            .chain(holding_unread(&observation.nodes))
            .collect(),
        scrolled,
        unread: Vec::new(),
        visible,
        epoch,
        registry,
        ordinals: HashMap::new(),
        text_memo: HashMap::new(),
        headings: headings(&observation.nodes),
        pending: Vec::new(),
        out: Outline {
            live: observation
                .nodes
                .iter()
                .filter_map(|n| Some((n.session, n.backend_id?)))
                .collect(),
            containers,
            ..Outline::default()
        },
    };
    if !observation.nodes.is_empty() {
        let blocks = builder.visit(0, Fnv::new().finish());
        builder.emit(blocks);
    }
    builder.assign_refs();
    builder.out
}

/// A subtree rendered to lines before it is placed (so text can be merged).
#[derive(Debug, Clone)]
struct Block {
    lines: Vec<Line>,
    /// Role plus the roles of its direct children: same-shape siblings share it.
    shape: u64,
}

/// A step of the outline's walk (`Builder::visit`).
enum Step {
    Enter {
        index: usize,
        depth: usize,
        parent_rect: Option<Rect>,
        container: u64,
        out_of: Option<usize>,
    },
    Leave(Open),
}

/// What entering a node gave: its blocks already, or a node whose children come first.
enum Entered {
    Blocks(Vec<Block>),
    Open(Open, Vec<usize>),
}

/// A node whose children are being rendered: what leaving it needs.
struct Open {
    index: usize,
    depth: usize,
    rect: Option<Rect>,
    container: u64,
    /// The container its children are in (itself, when it is one).
    inner_container: u64,
    out_of: Option<usize>,
    scroller: bool,
    actionable: bool,
    typed: bool,
    folded: bool,
    /// Where its children's blocks begin among the blocks rendered.
    first: usize,
}

struct Builder<'a> {
    nodes: &'a [Node],
    viewport: Viewport,
    visible: Vec<bool>,
    /// Per node: the scroll container it lies outside of, and whether below (or right).
    scrolled: Vec<Option<(usize, bool)>>,
    /// Scroll containers with content scrolled out of view: they get a ref and a count.
    scrollers: std::collections::HashSet<usize>,
    /// Per line being built (innermost last): the unread children it counts.
    unread: Vec<(usize, usize)>,
    epoch: u64,
    registry: &'a mut RefRegistry,
    ordinals: HashMap<u64, u32>,
    text_memo: HashMap<usize, String>,
    /// Per node: the heading last passed in document order (part of an element's
    /// identity), the node itself for a heading.
    headings: Vec<Option<usize>>,
    /// The nodes to give refs, with their identities, in document order.
    pending: Vec<(usize, Identity)>,
    out: Outline,
}

impl Builder<'_> {
    /// Renders the tree under `root` (inside `container`) to blocks. A page nests as deep
    /// as it likes and a thread's stack does not, so the walk keeps its own stack: each
    /// node is entered (`enter`: what it is, which children to render), its children
    /// rendered, and it is left (`leave`: its lines, from its children's blocks).
    fn visit(&mut self, root: usize, container: u64) -> Vec<Block> {
        let mut steps = vec![Step::Enter {
            index: root,
            depth: 0,
            parent_rect: None,
            container,
            out_of: None,
        }];
        // The blocks rendered so far; a node's children's are those after its `first`.
        let mut done: Vec<Block> = Vec::new();
        while let Some(step) = steps.pop() {
            match step {
                Step::Enter {
                    index,
                    depth,
                    parent_rect,
                    container,
                    out_of,
                } => match self.enter(index, depth, parent_rect, container, out_of) {
                    Entered::Blocks(blocks) => done.extend(blocks),
                    Entered::Open(mut open, children) => {
                        let child_depth = if open.folded { depth } else { depth + 1 };
                        let (rect, inner, out_of) = (open.rect, open.inner_container, open.out_of);
                        open.first = done.len();
                        steps.push(Step::Leave(open));
                        steps.extend(children.into_iter().rev().map(|child| Step::Enter {
                            index: child,
                            depth: child_depth,
                            parent_rect: rect,
                            container: inner,
                            out_of,
                        }));
                    }
                },
                Step::Leave(open) => {
                    let child_blocks = done.split_off(open.first);
                    let blocks = self.leave(open, child_blocks);
                    done.extend(blocks);
                }
            }
        }
        done
    }

    /// Node `index` (at `depth`, inside `container`, scrolled out of the scroll container
    /// `out_of` if any) before its children: its blocks when it has no children to render
    /// (hidden, text), else what `leave` needs and the children. Content only scrolled out
    /// of its container is not hidden: it is rendered like the rest and marked, so a
    /// budget with room lists it.
    fn enter(
        &mut self,
        index: usize,
        depth: usize,
        parent_rect: Option<Rect>,
        container: u64,
        out_of: Option<usize>,
    ) -> Entered {
        let node = &self.nodes[index];
        if !self.visible[index] || DROPPED_ROLES.contains(&node.role.as_str()) {
            return Entered::Blocks(Vec::new());
        }
        // An option can be chosen without scrolling its list: it counts as shown.
        let out_of = match self.scrolled[index] {
            Some((scroller, _)) if !OPTIONS.contains(&node.role.as_str()) => Some(scroller),
            _ => out_of,
        };
        if node.role == "StaticText" {
            let text = normalise(&node.name);
            if text.is_empty() {
                return Entered::Blocks(Vec::new());
            }
            let identity = self.identify(index, container, "text", &clip(&text, 80));
            self.out.identities.insert(index, identity);
            return Entered::Blocks(vec![Block {
                lines: vec![Line {
                    depth,
                    text,
                    node: Some(index),
                    rect: node.bounds.or(parent_rect),
                    parent: None,
                    element: false,
                    ref_at: None,
                    scrolled: out_of,
                    scroller: false,
                    unread: (0, 0),
                }],
                shape: 0,
            }]);
        }
        let scroller = self.scrollers.contains(&index);
        let actionable = self.actionable(node) && !self.forwards_clicks(index) || scroller;
        let typed = node
            .input_type
            .as_deref()
            .is_some_and(|t| TYPED_INPUTS.contains(&t));
        let unnamed_image =
            matches!(node.role.as_str(), "image" | "img") && node.name.trim().is_empty();
        let folded = FOLDED.contains(&node.role.as_str()) && !actionable
            || node.role == "group" && node.name.trim().is_empty() && !actionable
            || unnamed_image && !actionable;
        let rect = node.bounds.or(parent_rect);
        let inner_container = match container_label(node, || self.text_of(index)) {
            Some(label) => crate::refs::container_step(container, &node.role, &label),
            None => container,
        };
        // A typed input's parts are the user agent's, not the page's.
        let children: Vec<usize> = if typed {
            Vec::new()
        } else {
            node.children.clone()
        };
        // Children a region read left unread are counted on the nearest line above them.
        let unread = node.unread;
        if folded {
            if let Some(top) = self.unread.last_mut() {
                top.0 += unread.0;
                top.1 += unread.1;
            }
        } else {
            self.unread.push(unread);
        }
        Entered::Open(
            Open {
                index,
                depth,
                rect,
                container,
                inner_container,
                out_of,
                scroller,
                actionable,
                typed,
                folded,
                first: 0,
            },
            children,
        )
    }

    /// Node `open` after its children, whose blocks are `child_blocks`: its own blocks (a
    /// folded node yields its children's).
    fn leave(&mut self, open: Open, child_blocks: Vec<Block>) -> Vec<Block> {
        let Open {
            index,
            depth,
            rect,
            container,
            out_of,
            scroller,
            actionable,
            typed,
            folded,
            ..
        } = open;
        let node = &self.nodes[index];
        let unread = if folded {
            (0, 0)
        } else {
            self.unread.pop().unwrap_or_default()
        };
        let child_blocks = merge_text(self.nodes, child_blocks);
        if folded {
            return child_blocks;
        }
        // A wrapper that takes clicks (a span with a listener, a div with onclick) is
        // shown as `clickable`, named by its text.
        let (role, mut raw_name) = if actionable && FOLDED.contains(&node.role.as_str()) {
            // Named by its text only when that is short: a cut name never stands in
            // for the content, which stays as lines of its own.
            let name = if node.name.trim().is_empty() {
                Some(self.text_of(index))
                    .filter(|t| !t.ends_with('…'))
                    .unwrap_or_default()
            } else {
                normalise(&node.name)
            };
            ("clickable".to_string(), name)
        } else if typed {
            let shown = match node.input_type.as_deref() {
                Some("range") => "slider",
                Some("number") => "spinbutton",
                Some(other) => other,
                None => "textbox",
            };
            (shown.to_string(), normalise(&node.name))
        } else {
            (display_role(&node.role).to_string(), normalise(&node.name))
        };
        // An item whose only content is a short text carries it as its name — unless
        // that text is the field's own value: a value is no name, and an unlabelled
        // field that took one as its name would change its ref as the user types.
        let mut child_blocks = child_blocks;
        if raw_name.is_empty()
            && !node.secret
            && child_blocks.len() == 1
            && let Some(text) = only_text(&child_blocks)
            && !text.is_empty()
            && node.value.as_deref().map(str::trim) != Some(text.trim())
            && text.chars().count() <= MAX_NAME
        {
            raw_name = text;
            child_blocks.clear();
        }
        let identity = self.identify(index, container, &role, &raw_name);
        // Refs are given once the whole page is known (see `assign_refs`), and put into
        // the line at the place `describe` leaves for them.
        if actionable {
            self.pending.push((index, identity.clone()));
        }
        self.out.identities.insert(index, identity);
        let name = clip(&raw_name, MAX_NAME);
        // A named element whose only content is its name shows the name once.
        let child_blocks = if !name.is_empty()
            && child_blocks
                .iter()
                .all(|b| b.lines.iter().all(|l| !l.element))
            && normalise(&self.text_of(index)) == raw_name
        {
            Vec::new()
        } else {
            child_blocks
        };
        // A text field's own text is its value, already shown as `value=`; a secret
        // field's is never shown.
        let child_blocks = if node.secret
            || node.value.as_deref().is_some_and(|value| {
                let value = normalise(value);
                !value.is_empty() && only_text(&child_blocks) == Some(value)
            }) {
            Vec::new()
        } else {
            child_blocks
        };
        let shape = child_blocks
            .iter()
            .take(4)
            .fold(Fnv::new().field(&node.role), |h, b| h.number(b.shape))
            .finish();
        let (mut text, ref_at) = describe(node, &role, &name, actionable);
        if text.is_empty() {
            text = display_role(&node.role).to_string();
        }
        let mut lines = vec![Line {
            depth,
            text,
            node: Some(index),
            rect,
            parent: None,
            element: true,
            ref_at,
            scrolled: out_of,
            scroller,
            unread,
        }];
        for block in child_blocks {
            lines.extend(block.lines);
        }
        vec![Block { lines, shape }]
    }

    /// Whether the node gets a ref in the snapshot.
    fn actionable(&self, node: &Node) -> bool {
        // A label clicks its control, which has a ref of its own: one element, one ref.
        if node.role == "LabelText" {
            return false;
        }
        INTERACTIVE.contains(&node.role.as_str())
            || node.clickable && node.role != "RootWebArea"
            || self.delegated_item(node)
            || node.focusable
                && !matches!(
                    node.role.as_str(),
                    "RootWebArea" | "Iframe" | "ignored" | "generic" | "none"
                )
            // A role-less element the page put in the tab order (a slider's handle).
            || node.focusable && node.tabbable && node.role != "RootWebArea"
    }

    /// An item a person clicks whose clicks a wrapper around it handles (a plugin's
    /// dropdown handles its options' clicks on the dropdown): a list item, row or cell
    /// drawn with a pointer cursor, inside a clickable wrapper the size of a widget (not a
    /// page or app root, which takes every click on it).
    fn delegated_item(&self, node: &Node) -> bool {
        if !node.pointer || !DELEGATED_ITEMS.contains(&node.role.as_str()) {
            return false;
        }
        let mut at = node.parent;
        for _ in 0..DELEGATION_DEPTH {
            let Some(p) = at else { return false };
            let ancestor = &self.nodes[p];
            if ancestor.clickable && !INTERACTIVE.contains(&ancestor.role.as_str()) {
                // A widget, not a page or app root that takes every click on it.
                let small = ancestor
                    .bounds
                    .is_some_and(|b| b.height < self.viewport.height / 2.0);
                return small && ancestor.role != "RootWebArea";
            }
            at = ancestor.parent;
        }
        false
    }

    /// Whether a wrapper that takes clicks only through a listener (or a label's
    /// activation) passes them to the elements inside it, which carry the refs: the
    /// document's own body or app root (event delegation; its name would be the whole
    /// page's text), or a wrapper around one element whose name is all the wrapper says
    /// (a label around its checkbox, a title bar around its close button, a list item
    /// around its one link). Such a wrapper gets no ref of its own — one element, one
    /// ref — and a role-less one is folded like any other.
    fn forwards_clicks(&mut self, index: usize) -> bool {
        let node = &self.nodes[index];
        if !node.clickable || INTERACTIVE.contains(&node.role.as_str()) {
            return false;
        }
        let mut inside = Vec::new();
        self.actionable_below(index, &mut inside, 2);
        match inside.as_slice() {
            [] => false,
            [only] => {
                let name = normalise(&self.nodes[*only].name);
                self.page_level(index) || {
                    let text = self.text_of(index);
                    text.is_empty() || text == name
                }
            }
            _ => self.page_level(index),
        }
    }

    /// Up to `limit` shown nodes under `index` that would get a ref, in document order
    /// (a walk with its own stack, as `visit`).
    fn actionable_below(&self, index: usize, found: &mut Vec<usize>, limit: usize) {
        let mut stack: Vec<usize> = self.nodes[index].children.iter().rev().copied().collect();
        while let Some(child) = stack.pop() {
            if found.len() >= limit {
                return;
            }
            let node = &self.nodes[child];
            if !self.visible[child] || DROPPED_ROLES.contains(&node.role.as_str()) {
                continue;
            }
            if self.actionable(node) {
                found.push(child);
            }
            stack.extend(node.children.iter().rev());
        }
    }

    /// The first element a document renders: nothing but the document (and nodes the
    /// accessibility tree ignores) above it.
    fn page_level(&self, index: usize) -> bool {
        let mut parent = self.nodes[index].parent;
        while let Some(p) = parent {
            match self.nodes[p].role.as_str() {
                "RootWebArea" => return true,
                "ignored" | "none" => parent = self.nodes[p].parent,
                _ => return false,
            }
        }
        false
    }

    /// The identity of node `index`: its ordinal counts earlier nodes with the same
    /// container, role and name, in document order.
    fn identify(&mut self, index: usize, container: u64, role: &str, name: &str) -> Identity {
        let signature = Fnv::new()
            .number(container)
            .field(role)
            .field(name)
            .finish();
        let ordinal = self.ordinals.entry(signature).or_insert(0);
        let identity = Identity {
            epoch: self.epoch,
            container,
            role: role.to_string(),
            name: name.to_string(),
            ordinal: *ordinal,
            context: self.headings[index]
                .map(|h| clip(&normalise(&self.nodes[h].name), 60))
                .unwrap_or_default(),
        };
        *ordinal += 1;
        identity
    }

    /// The text under a node, normalised, at most 80 characters.
    fn text_of(&mut self, index: usize) -> String {
        if let Some(text) = self.text_memo.get(&index) {
            return text.clone();
        }
        let text = text_under(self.nodes, index, 80);
        self.text_memo.insert(index, text.clone());
        text
    }

    /// Gives every pending node its ref, all at once (so which element keeps a ref never
    /// depends on document order), and puts the refs into the lines.
    fn assign_refs(&mut self) {
        let items: Vec<(Identity, Option<NodeKey>)> = self
            .pending
            .iter()
            .map(|(index, identity)| {
                let node = &self.nodes[*index];
                (identity.clone(), node.backend_id.map(|b| (node.session, b)))
            })
            .collect();
        let live = &self.out.live;
        let refs = self.registry.assign_all(&items, &|n| live.contains(&n));
        for ((index, _), r#ref) in self.pending.iter().zip(refs) {
            self.out.refs.insert(*index, r#ref);
        }
        for line in &mut self.out.lines {
            let (Some(at), Some(node)) = (line.ref_at, line.node) else {
                continue;
            };
            if let Some(r#ref) = self.out.refs.get(&node) {
                line.text.insert_str(at, &format!(" [{ref}]"));
            }
        }
    }

    /// Places blocks into the outline, linking each line to its parent line.
    fn emit(&mut self, blocks: Vec<Block>) {
        let mut stack: Vec<(usize, usize)> = Vec::new(); // (depth, line index)
        for block in blocks {
            for mut line in block.lines {
                while stack.last().is_some_and(|(d, _)| *d >= line.depth) {
                    stack.pop();
                }
                line.parent = stack.last().map(|(_, i)| *i);
                let index = self.out.lines.len();
                stack.push((line.depth, index));
                self.out.lines.push(line);
            }
        }
    }
}

/// Per node: the heading last passed in document order, itself for a heading. Every
/// heading of the observation counts, shown or scrolled away: what the viewport shows
/// must not change an element's identity.
fn headings(nodes: &[Node]) -> Vec<Option<usize>> {
    let mut current = None;
    nodes
        .iter()
        .enumerate()
        .map(|(index, node)| {
            if node.role == "heading" {
                current = Some(index);
            }
            current
        })
        .collect()
}

#[cfg(test)]
mod tests;
