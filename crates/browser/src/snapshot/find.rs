//! `find` (SPEC §5.1b): every node of the page matching a text, a role, or a role and
//! name, with where it is (landmarks, the heading it is under). Pure: no browser here.

use super::capture::Observation;
use super::outline::{LANDMARKS, Outline, clip, normalise, text_under};
use crate::refs::Identity;

/// One match of a find.
#[derive(Debug, Clone)]
pub(crate) struct Match {
    pub node: usize,
    pub identity: Identity,
    pub text: String,
    pub path: Vec<String>,
}

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
