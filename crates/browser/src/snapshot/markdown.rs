//! The readable page as markdown (docs/observation.md#modes, `mode:"markdown"`): headings, paragraphs,
//! lists, tables, links with their targets, and refs on what can be acted on. Pure.

use super::capture::{Node, Observation};
use super::outline::{DROPPED_ROLES, Outline, display_role, normalise, visibility};

/// Roles that start a block of their own.
const BLOCKS: &[&str] = &[
    "paragraph",
    "heading",
    "listitem",
    "row",
    "list",
    "table",
    "blockquote",
    "article",
    "main",
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "region",
    "form",
    "dialog",
    "figure",
    "group",
    "Pre",
    "Section",
];

pub(crate) fn render(observation: &Observation, outline: &Outline) -> String {
    let visible = visibility(&observation.nodes);
    let mut writer = Writer {
        nodes: &observation.nodes,
        outline,
        visible: &visible,
        out: String::new(),
        line: String::new(),
    };
    if !observation.nodes.is_empty() {
        writer.visit(0);
    }
    writer.flush();
    writer.out.trim().to_string() + "\n"
}

struct Writer<'a> {
    nodes: &'a [Node],
    outline: &'a Outline,
    visible: &'a [bool],
    out: String,
    line: String,
}

/// A step of the writer's walk (`Writer::visit`).
enum Step {
    /// Write node `index`, inside `list_depth` lists.
    Enter(usize, usize),
    /// Before a cell of a row: its separator.
    Cell,
    /// After a node's children: close its row, end its block.
    Leave { row: bool, block: bool },
}

impl Writer<'_> {
    /// Writes the tree under `root`. A page nests as deep as it likes and a thread's stack
    /// does not, so the walk keeps its own stack of steps.
    fn visit(&mut self, root: usize) {
        let mut steps = vec![Step::Enter(root, 0)];
        while let Some(step) = steps.pop() {
            match step {
                Step::Enter(index, list_depth) => self.enter(index, list_depth, &mut steps),
                Step::Cell => {
                    if !self.line.ends_with("| ") {
                        self.line.push_str(" | ");
                    }
                }
                Step::Leave { row, block } => {
                    if row {
                        self.line.push_str(" |");
                    }
                    if block {
                        self.flush();
                    }
                }
            }
        }
    }

    /// Writes what node `index` shows before its children, and puts its children's steps
    /// (and what ends it) on `steps`.
    fn enter(&mut self, index: usize, list_depth: usize, steps: &mut Vec<Step>) {
        let node = &self.nodes[index];
        if !self.visible[index] || DROPPED_ROLES.contains(&node.role.as_str()) {
            return;
        }
        let role = node.role.as_str();
        let name = normalise(&node.name);
        let r#ref = self.outline.refs.get(&index);
        match role {
            "StaticText" => {
                self.word(&name);
                return;
            }
            "heading" => {
                self.flush();
                let level = node
                    .states
                    .iter()
                    .find(|(s, _)| *s == "level")
                    .and_then(|(_, l)| l.parse::<usize>().ok())
                    .unwrap_or(2)
                    .clamp(1, 6);
                self.line = format!("{} {name}", "#".repeat(level));
                self.flush();
                return;
            }
            "link" => {
                let target = node.href.as_deref().unwrap_or("");
                let text = if name.is_empty() {
                    target.to_string()
                } else {
                    name
                };
                let mut link = format!("[{}]({target})", text.replace(']', "\\]"));
                if let Some(r) = r#ref {
                    link.push_str(&format!(" [{r}]"));
                }
                self.word(&link);
                return;
            }
            "image" | "img" if !name.is_empty() => {
                self.word(&format!("![{name}]"));
                return;
            }
            _ => {}
        }
        if let Some(r) = r#ref {
            // Controls: role, name, ref, and the value a user would see.
            let mut control = format!("{} {name:?} [{r}]", display_role(role));
            if let Some(value) = node
                .value
                .as_deref()
                .filter(|v| !v.is_empty() && *v != name)
            {
                if node.secret {
                    control.push_str(" value=\"••••\"");
                } else {
                    control.push_str(&format!(" value={value:?}"));
                }
            }
            self.word(&control);
            if matches!(
                role,
                "button"
                    | "textbox"
                    | "searchbox"
                    | "checkbox"
                    | "radio"
                    | "combobox"
                    | "PopUpButton"
                    | "slider"
                    | "switch"
            ) {
                return;
            }
        }
        let block = BLOCKS.contains(&role);
        if block {
            self.flush();
        }
        match role {
            "listitem" => self
                .line
                .push_str(&format!("{}- ", "  ".repeat(list_depth.saturating_sub(1)))),
            "row" => self.line.push_str("| "),
            _ => {}
        }
        let depth = if role == "list" {
            list_depth + 1
        } else {
            list_depth
        };
        let row = role == "row";
        steps.push(Step::Leave { row, block });
        for &child in node.children.iter().rev() {
            steps.push(Step::Enter(child, depth));
            if row {
                steps.push(Step::Cell);
            }
        }
    }

    fn word(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if !self.line.is_empty() && !self.line.ends_with(' ') {
            self.line.push(' ');
        }
        self.line.push_str(text);
    }

    fn flush(&mut self) {
        let line = self.line.trim_end();
        if !line.trim().is_empty() && line.trim() != "-" && line.trim() != "|" {
            self.out.push_str(line);
            self.out.push_str("\n\n");
        }
        self.line.clear();
    }
}
