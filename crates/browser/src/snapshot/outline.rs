//! From an observation to the outline an agent reads: hidden nodes pruned, wrappers
//! folded, text merged, runs of same-shape siblings collapsed, and refs assigned to
//! every element an agent may act on (SPEC §5.1, §5.2). Pure: no browser here.

use std::collections::HashMap;

use super::capture::{Node, Observation, Rect, Viewport};
use crate::refs::{Fnv, Identity, RefRegistry};

/// One line of the outline.
#[derive(Debug, Clone)]
pub(crate) struct Line {
    pub depth: usize,
    /// The line without indentation or bullet, e.g. `button "Save" [e4k2] disabled`.
    pub text: String,
    /// The observation node shown, if any (a collapse line shows none).
    pub node: Option<usize>,
    pub rect: Option<Rect>,
    /// The line this one is nested under.
    pub parent: Option<usize>,
    /// An element (counted as shown or omitted), not text.
    pub element: bool,
    /// Elements this line stands for beyond itself (a collapse line).
    pub hidden_elements: usize,
}

/// The outline of one observation, and the ref of every node that has one.
#[derive(Debug, Default)]
pub(crate) struct Outline {
    pub lines: Vec<Line>,
    /// Node index → ref, for every node given a ref (shown or collapsed).
    pub refs: HashMap<usize, String>,
    /// Node index → identity, for every node with a ref.
    pub identities: HashMap<usize, Identity>,
}

/// Roles an agent acts on: they always get a ref.
const INTERACTIVE: &[&str] = &[
    "button",
    "link",
    "textbox",
    "searchbox",
    "checkbox",
    "radio",
    "combobox",
    "listbox",
    "option",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "treeitem",
    "slider",
    "spinbutton",
    "switch",
    "PopUpButton",
    "MenuListOption",
    "ListBoxOption",
    "DisclosureTriangle",
    "ToggleButton",
    "ColorWell",
    "Date",
    "DateTime",
    "InputTime",
    "scrollbar",
];

/// Wrapper roles: no line of their own unless they carry a ref; children move up.
const FOLDED: &[&str] = &[
    "generic",
    "none",
    "presentation",
    "GenericContainer",
    "Section",
    "paragraph",
    "LabelText",
    "Div",
    "Span",
    "strong",
    "emphasis",
    "code",
    "time",
    "mark",
    "abbr",
    "subscript",
    "superscript",
    "Pre",
    "Ruby",
    "ignored",
    "RootWebArea",
    "LayoutTable",
    "LayoutTableRow",
    "LayoutTableCell",
    "contentinsertion",
    "contentdeletion",
    "DescriptionListDetail",
    "DescriptionListTerm",
    "Legend",
    "Canvas",
    "Abbr",
    "sectionheader",
    "sectionfooter",
];

/// Dropped with everything under them.
pub(crate) const DROPPED_ROLES: &[&str] = &["InlineTextBox", "LineBreak", "ListMarker"];

/// Containers that make up an element's identity path.
const CONTAINERS: &[&str] = &[
    "main",
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "region",
    "form",
    "search",
    "dialog",
    "alertdialog",
    "article",
    "listitem",
    "row",
    "table",
    "grid",
    "treegrid",
    "tablist",
    "tabpanel",
    "menu",
    "menubar",
    "tree",
    "toolbar",
    "Iframe",
    "listbox",
    "radiogroup",
];

/// Containers whose unnamed instances are told apart by their text.
const TEXT_IDENTIFIED: &[&str] = &["listitem", "row", "article", "treeitem"];

/// A run of at least this many same-shape siblings is collapsed.
const COLLAPSE_RUN: usize = 12;
/// Of a collapsed run, this many leading siblings stay.
const COLLAPSE_KEEP: usize = 3;

const MAX_NAME: usize = 100;
const MAX_TEXT: usize = 200;

/// Builds the outline. `epoch` is the tab's URL epoch; refs are assigned in `registry`.
pub(crate) fn outline(
    observation: &Observation,
    epoch: u64,
    registry: &mut RefRegistry,
) -> Outline {
    let mut builder = Builder {
        nodes: &observation.nodes,
        viewport: observation.viewport,
        visible: visibility(&observation.nodes),
        epoch,
        registry,
        ordinals: HashMap::new(),
        text_memo: HashMap::new(),
        out: Outline::default(),
    };
    if !observation.nodes.is_empty() {
        let blocks = builder.visit(0, 0, None, Fnv::new().finish());
        builder.emit(blocks);
    }
    builder.out
}

/// A subtree rendered to lines before it is placed (so runs can be collapsed).
#[derive(Debug, Clone)]
struct Block {
    lines: Vec<Line>,
    /// Role plus the roles of its direct children: same-shape siblings share it.
    shape: u64,
}

struct Builder<'a> {
    nodes: &'a [Node],
    viewport: Viewport,
    visible: Vec<bool>,
    epoch: u64,
    registry: &'a mut RefRegistry,
    ordinals: HashMap<u64, u32>,
    text_memo: HashMap<usize, String>,
    out: Outline,
}

impl Builder<'_> {
    /// Renders node `index` (at `depth`, inside `container`) to blocks; a folded node
    /// yields its children's blocks.
    fn visit(
        &mut self,
        index: usize,
        depth: usize,
        parent_rect: Option<Rect>,
        container: u64,
    ) -> Vec<Block> {
        let node = &self.nodes[index];
        if !self.visible[index] || DROPPED_ROLES.contains(&node.role.as_str()) {
            return Vec::new();
        }
        if node.role == "StaticText" {
            let text = normalise(&node.name);
            if text.is_empty() {
                return Vec::new();
            }
            let identity = self.identify(index, container, "text", &clip(&text, 80));
            self.out.identities.insert(index, identity);
            return vec![Block {
                lines: vec![Line {
                    depth,
                    text,
                    node: Some(index),
                    rect: node.bounds.or(parent_rect),
                    parent: None,
                    element: false,
                    hidden_elements: 0,
                }],
                shape: 0,
            }];
        }
        let actionable = self.actionable(node) && !self.forwards_clicks(index);
        let unnamed_image =
            matches!(node.role.as_str(), "image" | "img") && node.name.trim().is_empty();
        let folded = FOLDED.contains(&node.role.as_str()) && !actionable
            || node.role == "group" && node.name.trim().is_empty() && !actionable
            || unnamed_image && !actionable;
        let rect = node.bounds.or(parent_rect);
        let inner_container = if CONTAINERS.contains(&node.role.as_str()) {
            let label =
                if node.name.trim().is_empty() && TEXT_IDENTIFIED.contains(&node.role.as_str()) {
                    self.text_of(index)
                } else {
                    normalise(&node.name)
                };
            Fnv::new()
                .number(container)
                .field(&node.role)
                .field(&label)
                .finish()
        } else {
            container
        };
        let child_depth = if folded { depth } else { depth + 1 };
        let children: Vec<usize> = node.children.clone();
        let mut child_blocks = Vec::new();
        for child in children {
            child_blocks.extend(self.visit(child, child_depth, rect, inner_container));
        }
        let child_blocks = merge_text(self.nodes, child_blocks);
        if folded {
            return child_blocks;
        }
        // A wrapper that takes clicks (a span with a listener, a div with onclick) is
        // shown as `clickable`, named by its text.
        let (role, raw_name) = if actionable && FOLDED.contains(&node.role.as_str()) {
            let name = if node.name.trim().is_empty() {
                self.text_of(index)
            } else {
                normalise(&node.name)
            };
            ("clickable".to_string(), name)
        } else {
            (display_role(&node.role).to_string(), normalise(&node.name))
        };
        let identity = self.identify(index, container, &role, &raw_name);
        let r#ref = actionable.then(|| {
            let r#ref = self.registry.assign(&identity);
            self.out.refs.insert(index, r#ref.clone());
            r#ref
        });
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
        // A text field's own text is its value, already shown as `value=`.
        let child_blocks = if node.value.as_deref().is_some_and(|value| {
            let value = normalise(value);
            !value.is_empty() && only_text(&child_blocks) == Some(value)
        }) {
            Vec::new()
        } else {
            child_blocks
        };
        let mut line = Line {
            depth,
            text: describe(node, &role, &name, r#ref.as_deref()),
            node: Some(index),
            rect,
            parent: None,
            element: true,
            hidden_elements: 0,
        };
        if line.text.is_empty() {
            line.text = display_role(&node.role).to_string();
        }
        let shape = child_blocks
            .iter()
            .take(4)
            .fold(Fnv::new().field(&node.role), |h, b| h.number(b.shape))
            .finish();
        let mut lines = vec![line];
        for block in self.collapse(child_blocks, depth + 1) {
            lines.extend(block.lines);
        }
        vec![Block { lines, shape }]
    }

    /// Whether the node gets a ref in the snapshot.
    fn actionable(&self, node: &Node) -> bool {
        INTERACTIVE.contains(&node.role.as_str())
            || node.clickable && node.role != "RootWebArea"
            || node.focusable
                && !matches!(
                    node.role.as_str(),
                    "RootWebArea" | "Iframe" | "ignored" | "generic" | "none"
                )
    }

    /// Whether a wrapper that takes clicks only through a listener (or a label's
    /// activation) passes them to the elements inside it, which carry the refs: the
    /// document's own body or app root (event delegation; its name would be the whole
    /// page's text), or a wrapper around one element whose name is all the wrapper says
    /// (a label around its checkbox, a title bar around its close button). Such a
    /// wrapper is folded like any other.
    fn forwards_clicks(&mut self, index: usize) -> bool {
        let node = &self.nodes[index];
        if !node.clickable || !FOLDED.contains(&node.role.as_str()) {
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

    /// Up to `limit` shown nodes under `index` that would get a ref, in document order.
    fn actionable_below(&self, index: usize, found: &mut Vec<usize>, limit: usize) {
        for &child in &self.nodes[index].children {
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
            self.actionable_below(child, found, limit);
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
    fn identify(&mut self, _index: usize, container: u64, role: &str, name: &str) -> Identity {
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

    /// Collapses long runs of same-shape sibling blocks, keeping the first few and any
    /// that show inside the viewport.
    fn collapse(&mut self, blocks: Vec<Block>, depth: usize) -> Vec<Block> {
        let mut out = Vec::with_capacity(blocks.len());
        let mut i = 0;
        while i < blocks.len() {
            let mut j = i + 1;
            while j < blocks.len() && blocks[j].shape == blocks[i].shape && blocks[i].shape != 0 {
                j += 1;
            }
            if j - i < COLLAPSE_RUN {
                out.extend(blocks[i..j].iter().cloned());
                i = j;
                continue;
            }
            let mut pending: Vec<&Block> = Vec::new();
            for (k, block) in blocks[i..j].iter().enumerate() {
                if k < COLLAPSE_KEEP || self.in_viewport(block) {
                    if !pending.is_empty() {
                        out.push(collapsed(&pending, depth));
                        pending.clear();
                    }
                    out.push(block.clone());
                } else {
                    pending.push(block);
                }
            }
            if !pending.is_empty() {
                out.push(collapsed(&pending, depth));
            }
            i = j;
        }
        out
    }

    fn in_viewport(&self, block: &Block) -> bool {
        block
            .lines
            .iter()
            .any(|l| l.rect.is_some_and(|r| intersects(&r, &self.viewport)))
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

/// One line standing for a collapsed stretch of siblings.
fn collapsed(blocks: &[&Block], depth: usize) -> Block {
    let elements: usize = blocks
        .iter()
        .map(|b| b.lines.iter().filter(|l| l.element).count())
        .sum();
    let role = blocks
        .first()
        .and_then(|b| b.lines.first())
        .map(|l| {
            l.text
                .split([' ', ':'])
                .next()
                .unwrap_or("item")
                .to_string()
        })
        .unwrap_or_default();
    let rect = blocks
        .iter()
        .flat_map(|b| b.lines.iter().filter_map(|l| l.rect))
        .reduce(|a, b| {
            let x = a.x.min(b.x);
            let y = a.y.min(b.y);
            Rect {
                x,
                y,
                width: a.right().max(b.right()) - x,
                height: a.bottom().max(b.bottom()) - y,
            }
        });
    Block {
        lines: vec![Line {
            depth,
            text: format!(
                "… {} more {role} like the above (browser_find searches them)",
                blocks.len()
            ),
            node: None,
            rect,
            parent: None,
            element: false,
            hidden_elements: elements,
        }],
        shape: 0,
    }
}

/// The text of blocks that hold only text (no element), space-joined.
fn only_text(blocks: &[Block]) -> Option<String> {
    let mut parts = Vec::new();
    for line in blocks.iter().flat_map(|b| &b.lines) {
        if line.element || line.hidden_elements > 0 {
            return None;
        }
        parts.push(line.text.as_str());
    }
    Some(normalise(&parts.join(" ")))
}

/// Adjacent text blocks at the same depth become one line: with a space between two
/// pieces, unless the page shows none there (see [`continues`]), so that
/// `"<b>Vanda</b>"` reads `"Vanda"`, not `" Vanda "`.
fn merge_text(nodes: &[Node], blocks: Vec<Block>) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::with_capacity(blocks.len());
    // Per block of `out`: the last text node merged into it.
    let mut tails: Vec<Option<usize>> = Vec::with_capacity(blocks.len());
    for block in blocks {
        let is_text = block.lines.len() == 1
            && !block.lines[0].element
            && block.lines[0].hidden_elements == 0;
        if is_text
            && let Some(last) = out.last_mut()
            && last.lines.len() == 1
            && !last.lines[0].element
            && last.lines[0].hidden_elements == 0
            && last.lines[0].depth == block.lines[0].depth
        {
            let next = block.lines[0].node;
            let tail = tails.last_mut().expect("a tail per block");
            let joined = tail
                .zip(next)
                .is_some_and(|(a, b)| continues(&nodes[a], &nodes[b]));
            let merged = &mut last.lines[0];
            if !joined {
                merged.text.push(' ');
            }
            merged.text.push_str(&block.lines[0].text);
            *tail = next;
            continue;
        }
        tails.push(if is_text { block.lines[0].node } else { None });
        out.push(block);
    }
    for block in &mut out {
        for line in &mut block.lines {
            if !line.element && line.hidden_elements == 0 {
                line.text = clip(&line.text, MAX_TEXT);
            }
        }
    }
    out
}

/// Whether text node `b` goes on where text node `a` ends, with nothing between them on
/// the page: no whitespace at the seam, and `b`'s first line starts on `a`'s last line,
/// right where `a` ends. (Chromium keeps a text node's rendered boundary spaces in its
/// name; whitespace-only nodes are dropped, but leave a gap between their neighbours.)
fn continues(a: &Node, b: &Node) -> bool {
    const TOUCH: f64 = 1.5;
    if a.role != "StaticText"
        || b.role != "StaticText"
        || a.name.ends_with(char::is_whitespace)
        || b.name.starts_with(char::is_whitespace)
    {
        return false;
    }
    let (Some(p), Some(n)) = (a.bounds, b.bounds) else {
        return false;
    };
    // The height of one line: the shorter box (a box of several lines is taller).
    let line = p.height.min(n.height);
    if line <= 0.0 || ((p.bottom() - line) - n.y).abs() > line / 2.0 {
        return false;
    }
    let a_wraps = p.height > line * 1.5;
    let b_wraps = n.height > line * 1.5;
    match (a_wraps, b_wraps) {
        (false, false) => (n.x - p.right()).abs() <= TOUCH,
        // `b` starts where `a` ends and wraps back to the left.
        (false, true) => n.x <= p.right() + TOUCH && n.right() >= p.right() - TOUCH,
        // Where `a`'s last line ends is not known: `b` starts within `a`'s width.
        (true, _) => n.x >= p.x - TOUCH && n.x <= p.right() + TOUCH,
    }
}

/// Which nodes are shown at all: not zero-size (unless a child shows), not pushed off
/// the page, and not under a node that is hidden.
pub(crate) fn visibility(nodes: &[Node]) -> Vec<bool> {
    // What each node may show through: the intersection of the boxes of its ancestors
    // that clip (`overflow` not visible). Parents come before children in document
    // order, so one pass forward suffices.
    let mut clip: Vec<Option<Rect>> = vec![None; nodes.len()];
    for (index, node) in nodes.iter().enumerate() {
        let inherited = node.parent.and_then(|p| clip[p]);
        let own = if node.clips { node.bounds } else { None };
        clip[index] = match (inherited, own) {
            (Some(a), Some(b)) => Some(intersection(&a, &b)),
            (a, b) => a.or(b),
        };
    }
    let mut visible = vec![false; nodes.len()];
    // Walk backwards: a node shows if it has an area of its own inside its clip, or if
    // any child shows.
    for index in (0..nodes.len()).rev() {
        let node = &nodes[index];
        let parent_clip = node.parent.and_then(|p| clip[p]);
        let own = match node.bounds {
            None => true,
            Some(r) => {
                let shown = parent_clip.map_or(r, |c| intersection(&r, &c));
                shown.right() > 0.0
                    && shown.bottom() > 0.0
                    && shown.width >= 2.0
                    && shown.height >= 2.0
            }
        };
        let clipped_away = parent_clip.is_some_and(|c| c.width < 1.0 || c.height < 1.0);
        let offscreen = node
            .bounds
            .is_some_and(|r| r.right() < 0.0 || r.bottom() < 0.0);
        let child_shows = node.children.iter().any(|c| visible[*c]);
        visible[index] = !offscreen && !clipped_away && (own || child_shows);
    }
    visible
}

/// The overlap of two rectangles (empty: zero width or height).
fn intersection(a: &Rect, b: &Rect) -> Rect {
    let x = a.x.max(b.x);
    let y = a.y.max(b.y);
    Rect {
        x,
        y,
        width: (a.right().min(b.right()) - x).max(0.0),
        height: (a.bottom().min(b.bottom()) - y).max(0.0),
    }
}

pub(crate) fn intersects(rect: &Rect, viewport: &Viewport) -> bool {
    rect.bottom() > viewport.scroll_y
        && rect.y < viewport.scroll_y + viewport.height
        && rect.right() > viewport.scroll_x
        && rect.x < viewport.scroll_x + viewport.width
}

/// The line for an element: role, name, ref, then value and states.
fn describe(node: &Node, role: &str, name: &str, r#ref: Option<&str>) -> String {
    let mut text = role.to_string();

    if !name.is_empty() {
        text.push_str(&format!(" {name:?}"));
    }
    if let Some(r) = r#ref {
        text.push_str(&format!(" [{r}]"));
    }
    if let Some(value) = node
        .value
        .as_deref()
        .map(normalise)
        .filter(|v| !v.is_empty() && *v != name)
    {
        if node.input_type.as_deref() == Some("password") {
            text.push_str(" value=\"••••\"");
        } else {
            text.push_str(&format!(" value={:?}", clip(&value, MAX_NAME)));
        }
    }
    for (state, value) in &node.states {
        match (*state, value.as_str()) {
            ("level", level) if matches!(node.role.as_str(), "heading" | "treeitem") => {
                text.push_str(&format!(" level={level}"));
            }
            ("level", _) => {}

            ("checked" | "pressed", "mixed") => text.push_str(&format!(" {state}=mixed")),
            ("expanded", _) => text.push_str(" expanded"),
            ("focused", _) => {}
            (state, _) => {
                text.push(' ');
                text.push_str(state);
            }
        }
    }
    text
}

/// Chromium's internal role names, as an agent knows them.
pub(crate) fn display_role(role: &str) -> &str {
    match role {
        "StaticText" => "text",
        "RootWebArea" => "document",
        "Iframe" => "iframe",
        "PopUpButton" => "combobox",
        "MenuListOption" | "ListBoxOption" => "option",
        "DisclosureTriangle" | "ToggleButton" => "button",
        "image" => "img",
        "LabelText" => "label",
        "generic" | "GenericContainer" | "Div" | "Span" => "generic",
        other => other,
    }
}

/// Whitespace collapsed to single spaces, trimmed.
pub(crate) fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `max` characters, with an ellipsis when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((index, _)) => format!("{}…", &text[..index]),
        None => text.to_string(),
    }
}

/// The text under node `index`, normalised, at most `max` characters.
pub(crate) fn text_under(nodes: &[Node], index: usize, max: usize) -> String {
    let mut text = String::new();
    let mut stack = vec![index];
    while let Some(i) = stack.pop() {
        if text.len() > max * 4 {
            break;
        }
        let node = &nodes[i];
        if node.role == "StaticText" {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(node.name.trim());
        }
        stack.extend(node.children.iter().rev());
    }
    clip(&normalise(&text), max)
}

/// One match of a find.
#[derive(Debug, Clone)]
pub(crate) struct Match {
    pub node: usize,
    pub identity: Identity,
    pub text: String,
    pub path: Vec<String>,
}

/// Landmarks that name where a match is.
const LANDMARKS: &[&str] = &[
    "main",
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "region",
    "form",
    "search",
    "dialog",
    "alertdialog",
    "article",
];

/// Every shown-or-collapsed node matching `query`, best first: exact name matches, then
/// document order. A text match inside a matching element is reported as the element.
pub(crate) fn find(
    observation: &Observation,
    outline: &Outline,
    query: &super::FindQuery,
) -> Vec<Match> {
    let nodes = &observation.nodes;
    let lower = |s: &str| s.to_lowercase();
    let text = query.text.as_deref().map(lower);
    let role = query.role.as_deref().map(lower);
    let name = query.name.as_deref().map(lower);
    let mut heading = String::new();
    let mut matched = vec![false; nodes.len()];
    let mut found = Vec::new();
    for (index, node) in nodes.iter().enumerate() {
        if node.role == "heading" {
            heading = clip(&normalise(&node.name), 60);
        }
        let Some(identity) = outline.identities.get(&index) else {
            continue;
        };
        let node_name = lower(&identity.name);
        let shown_role = lower(&identity.role);

        let hit = role.as_ref().is_none_or(|r| *r == shown_role)
            && name.as_ref().is_none_or(|n| node_name.contains(n.as_str()))
            && text.as_ref().is_none_or(|t| node_name.contains(t.as_str()));
        if !hit || (role.is_none() && text.is_none() && name.is_none()) {
            continue;
        }
        // Text whose element already matched adds nothing.
        let mut ancestor = node.parent;
        let mut inside_match = false;
        let mut path = Vec::new();
        while let Some(a) = ancestor {
            inside_match |= matched[a];
            let an = &nodes[a];
            if LANDMARKS.contains(&an.role.as_str()) {
                let label = normalise(&an.name);
                path.push(if label.is_empty() {
                    an.role.clone()
                } else {
                    format!("{} {label:?}", an.role)
                });
            }
            ancestor = an.parent;
        }
        matched[index] = true;
        if inside_match && node.role == "StaticText" {
            continue;
        }
        path.reverse();
        if !heading.is_empty() && node.role != "heading" {
            path.push(format!("heading {heading:?}"));
        }
        let content = if node.role == "StaticText" {
            snippet(&normalise(&node.name), text.as_deref().unwrap_or(""), 80)
        } else {
            text_under(nodes, index, 80)
        };
        found.push(Match {
            node: index,
            identity: identity.clone(),
            text: content,
            path,
        });
    }
    if let Some(t) = &text {
        found.sort_by_key(|m| lower(&normalise(&nodes[m.node].name)) != *t);
    }
    found
}

/// About `width` characters of `text` around the first occurrence of `needle`
/// (case-insensitive), with ellipses where cut.
fn snippet(text: &str, needle: &str, width: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    let lower: Vec<char> = text.to_lowercase().chars().collect();
    let needle: Vec<char> = needle.to_lowercase().chars().collect();
    // Lowercasing can change lengths (rarely); fall back to the start then.
    let at = if lower.len() == chars.len() && !needle.is_empty() {
        lower
            .windows(needle.len())
            .position(|w| w == needle.as_slice())
            .unwrap_or(0)
    } else {
        0
    };
    let start = at.saturating_sub(width.saturating_sub(needle.len()) / 2);
    let end = (start + width).min(chars.len());
    let start = end.saturating_sub(width).min(start);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(&chars[start..end]);
    if end < chars.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    //! Pruning, folding, collapsing and ref rules on small synthetic pages: each test
    //! builds the nodes an observation would hold and checks the outline.

    use super::*;
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
    fn long_runs_of_same_shape_siblings_collapse_outside_the_viewport() {
        let items: Vec<Spec> = (0..40)
            .map(|i| {
                at(
                    el(
                        "listitem",
                        "",
                        vec![at(
                            el("link", &format!("Item {i}"), vec![]),
                            rect(0.0, 1000.0 + i as f64 * 30.0, 100.0, 20.0),
                        )],
                    ),
                    rect(0.0, 1000.0 + i as f64 * 30.0, 100.0, 20.0),
                )
            })
            .collect();
        let page = el(
            "RootWebArea",
            "",
            vec![at(el("list", "", items), rect(0.0, 1000.0, 100.0, 1200.0))],
        );
        let text = shape(&observation(page));
        assert!(text.contains("link \"Item 0\""), "{text}");
        assert!(text.contains("link \"Item 2\""), "{text}");
        assert!(!text.contains("link \"Item 3\""), "{text}");
        assert!(text.contains("… 37 more listitem"), "{text}");
        // Collapsed items still have refs, so find and act can reach them.
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
    fn values_and_states_follow_the_name_and_passwords_are_masked() {
        let page = el(
            "RootWebArea",
            "",
            vec![
                el("textbox", "Email", vec![]),
                el("textbox", "Password", vec![]),
                el("checkbox", "Agree", vec![]),
            ],
        );
        let mut obs = observation(page);
        obs.nodes[1].value = Some("a@b.c".into());
        obs.nodes[2].value = Some("hunter2".into());
        obs.nodes[2].input_type = Some("password".into());
        obs.nodes[3].states = vec![("checked", "true".into()), ("disabled", "true".into())];
        let text = shape(&obs);
        assert!(
            text.contains("textbox \"Email\" [ref] value=\"a@b.c\""),
            "{text}"
        );
        assert!(!text.contains("hunter2"), "{text}");
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
        observation(el(
            "RootWebArea",
            "",
            vec![el("main", "", vec![el("list", "", items)])],
        ))
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
}
