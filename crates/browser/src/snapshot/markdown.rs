//! The readable page as markdown (SPEC §5.1 `mode:"markdown"`): headings, paragraphs,
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
        writer.visit(0, 0);
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

impl Writer<'_> {
    fn visit(&mut self, index: usize, list_depth: usize) {
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
        for child in node.children.clone() {
            if role == "row" && !self.line.ends_with("| ") {
                self.line.push_str(" | ");
            }
            self.visit(child, depth);
        }
        if role == "row" {
            self.line.push_str(" |");
        }
        if block {
            self.flush();
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
