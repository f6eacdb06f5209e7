//! The outline's text: runs of text merged as they are drawn, an element's line (role,
//! name, ref, value, states), names quoted in the page's own characters, and the labels
//! and paths that identify an element.

use super::super::capture::{Node, Sep};
use super::Block;
use super::roles::*;

/// The text of blocks that hold only text (no element), space-joined.
pub(super) fn only_text(blocks: &[Block]) -> Option<String> {
    let mut parts = Vec::new();
    for line in blocks.iter().flat_map(|b| &b.lines) {
        if line.element {
            return None;
        }
        parts.push(line.text.as_str());
    }
    Some(normalise(&parts.join(" ")))
}

/// Adjacent text blocks at the same depth become one line where the page reads them as
/// one: text separated by a block boundary or `<br>` stays on its own line, and inline
/// neighbours join with a space only where the page renders one (see [`capture::Sep`];
/// without that knowledge, [`continues`] decides by geometry), so that `"<b>Vanda</b>"`
/// reads `"Vanda"` and `M<span>e</span>p` reads `"Mep"`.
pub(super) fn merge_text(nodes: &[Node], blocks: Vec<Block>) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::with_capacity(blocks.len());
    // Per block of `out`: the last text node merged into it.
    let mut tails: Vec<Option<usize>> = Vec::with_capacity(blocks.len());
    for block in blocks {
        let is_text = block.lines.len() == 1 && !block.lines[0].element;
        let next = block.lines[0].node;
        let sep = next.map_or(Some(Sep::Line), |n| nodes[n].sep_before);
        if is_text
            && sep != Some(Sep::Line)
            && let Some(last) = out.last_mut()
            && last.lines.len() == 1
            && !last.lines[0].element
            && last.lines[0].depth == block.lines[0].depth
        {
            let tail = tails.last_mut().expect("a tail per block");
            let joined = match sep {
                Some(sep) => sep == Sep::None,
                None => tail
                    .zip(next)
                    .is_some_and(|(a, b)| continues(&nodes[a], &nodes[b])),
            };
            let merged = &mut last.lines[0];
            if !joined {
                merged.text.push(' ');
            }
            merged.text.push_str(&block.lines[0].text);
            *tail = next;
            continue;
        }
        tails.push(if is_text { next } else { None });
        out.push(block);
    }
    for block in &mut out {
        for line in &mut block.lines {
            if !line.element {
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
pub(super) fn continues(a: &Node, b: &Node) -> bool {
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

/// The line for an element: role, name, ref, then value and states.
/// With `has_ref`, also where its ref goes (see [`Line::ref_at`]).
pub(super) fn describe(
    node: &Node,
    role: &str,
    name: &str,
    has_ref: bool,
) -> (String, Option<usize>) {
    let mut text = role.to_string();

    if !name.is_empty() {
        text.push(' ');
        text.push_str(&quote(name));
    }
    let ref_at = has_ref.then_some(text.len());
    let typed = node
        .input_type
        .as_deref()
        .is_some_and(|t| TYPED_INPUTS.contains(&t));
    let value = if typed {
        node.dom_value.as_deref().or(node.value.as_deref())
    } else {
        node.value.as_deref()
    };
    if let Some(value) = value.map(normalise).filter(|v| !v.is_empty() && *v != name) {
        if node.secret {
            text.push_str(" value=\"••••\"");
        } else {
            text.push_str(" value=");
            text.push_str(&quote(&clip(&value, MAX_VALUE)));
            let length = value.chars().count();
            if length > MAX_VALUE {
                text.push_str(&format!(" length={length}"));
            }
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
    (text, ref_at)
}

/// `text` in double quotes, in the page's own characters: only what would break the
/// quoted form (`"` and `\`) is escaped, and control characters of C0 (which no one
/// can type, and a terminal would act on), as `\u{1b}`. Whitespace was collapsed before.
pub(crate) fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The label a landmark or container folds into its elements' identities (its name, or
/// its text when unnamed and told apart by text); `None` for any other node.
pub(super) fn container_label(node: &Node, text: impl FnOnce() -> String) -> Option<String> {
    let role = node.role.as_str();
    if !LANDMARKS.contains(&role) && !CONTAINERS.contains(&role) {
        return None;
    }
    Some(
        if node.name.trim().is_empty() && TEXT_IDENTIFIED.contains(&role) {
            text()
        } else {
            normalise(&node.name)
        },
    )
}

/// The landmark and container ancestors of node `index`, outermost first, each with the
/// label the outline folds into its identity (so they hash to its container).
pub(crate) fn container_path(nodes: &[Node], index: usize) -> Vec<(String, String)> {
    let mut path = Vec::new();
    let mut current = nodes[index].parent;
    while let Some(i) = current {
        let node = &nodes[i];
        if let Some(label) = container_label(node, || text_under(nodes, i, 80)) {
            path.push((node.role.clone(), label));
        }
        current = node.parent;
    }
    path.reverse();
    path
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
            // Inline neighbours with nothing between them on the page join directly.
            if !text.is_empty() && node.sep_before != Some(Sep::None) {
                text.push(' ');
            }
            text.push_str(node.name.trim());
        }
        // A secret field's own text is its value.
        if !node.secret {
            stack.extend(node.children.iter().rev());
        }
    }
    clip(&normalise(&text), max)
}
