//! `find` (docs/observation.md#find): every node of the page matching a text, a role, or a role and
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
        // A text's identity holds its first 80 characters; the search reads all of it.
        let node_name = if node.role == "StaticText" {
            lower(&normalise(&node.name))
        } else {
            lower(&identity.name)
        };
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
        let mut inside_secret = false;
        let mut path = Vec::new();
        while let Some(a) = ancestor {
            inside_match |= matched[a];
            let an = &nodes[a];
            inside_secret |= an.secret;
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
        // A secret field's own text is its value: never found, never shown.
        if inside_secret {
            continue;
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
    use super::*;
    use crate::refs::RefRegistry;
    use crate::snapshot::FindQuery;
    use crate::snapshot::capture::{Node, Rect, Viewport};
    use crate::snapshot::outline::outline;

    /// A page from (role, name, parent) in document order, every node laid out.
    fn page(spec: &[(&str, &str, Option<usize>)]) -> Observation {
        let mut nodes: Vec<Node> = spec
            .iter()
            .enumerate()
            .map(|(i, (role, name, parent))| Node {
                role: role.to_string(),
                name: name.to_string(),
                parent: *parent,
                backend_id: Some(i as i64 + 1),
                bounds: Some(Rect {
                    x: 0.0,
                    y: i as f64 * 20.0,
                    width: 400.0,
                    height: 20.0,
                }),
                ..Node::default()
            })
            .collect();
        for i in 0..nodes.len() {
            if let Some(p) = nodes[i].parent {
                nodes[p].children.push(i);
            }
        }
        Observation {
            nodes,
            viewport: Viewport {
                width: 1000.0,
                height: 700.0,
                ..Viewport::default()
            },
            ..Observation::default()
        }
    }

    fn settings() -> Observation {
        page(&[
            ("RootWebArea", "", None),
            ("navigation", "Main", Some(0)),
            ("link", "Save draft", Some(1)),
            ("StaticText", "Save draft", Some(2)),
            ("heading", "Settings", Some(0)),
            ("StaticText", "Settings", Some(4)),
            ("main", "", Some(0)),
            ("button", "Save", Some(6)),
            ("StaticText", "Save", Some(7)),
            ("paragraph", "", Some(6)),
            ("StaticText", "Remember to save your work", Some(9)),
        ])
    }

    /// (role, text, path) of each match.
    fn search(
        observation: &Observation,
        text: Option<&str>,
        role: Option<&str>,
        name: Option<&str>,
    ) -> Vec<(String, String, Vec<String>)> {
        let mut registry = RefRegistry::default();
        let outlined = outline(observation, 1, &mut registry);
        let query = FindQuery {
            text: text.map(str::to_string),
            role: role.map(str::to_string),
            name: name.map(str::to_string),
            limit: 10,
        };
        find(observation, &outlined, &query)
            .into_iter()
            .map(|m| (observation.nodes[m.node].role.clone(), m.text, m.path))
            .collect()
    }

    fn owned(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn text_finds_elements_and_loose_text_exact_names_first_with_where_they_are() {
        assert_eq!(
            search(&settings(), Some("SAVE"), None, None),
            vec![
                (
                    "button".into(),
                    "Save".into(),
                    owned(&["main", "heading \"Settings\""])
                ),
                (
                    "link".into(),
                    "Save draft".into(),
                    owned(&["navigation \"Main\""])
                ),
                (
                    "StaticText".into(),
                    "Remember to save your work".into(),
                    owned(&["main", "heading \"Settings\""])
                ),
            ]
        );
    }

    #[test]
    fn a_role_and_a_name_narrow_the_search_and_nothing_asked_finds_nothing() {
        let page = settings();
        let roles = |found: Vec<(String, String, Vec<String>)>| {
            found.into_iter().map(|(role, ..)| role).collect::<Vec<_>>()
        };
        assert_eq!(roles(search(&page, None, Some("Button"), None)), ["button"]);
        assert_eq!(
            roles(search(&page, None, Some("link"), Some("DRAFT"))),
            ["link"]
        );
        assert!(search(&page, None, Some("link"), Some("publish")).is_empty());
        assert!(search(&page, None, None, None).is_empty());
        // A heading is not placed under itself.
        assert_eq!(
            search(&page, None, Some("heading"), None),
            vec![("heading".into(), "Settings".into(), Vec::<String>::new())]
        );
    }

    #[test]
    fn a_long_text_is_shown_around_its_match_and_an_element_by_its_content() {
        let long = format!("{} the needle {}", "a".repeat(100), "b".repeat(100));
        let page = page(&[
            ("RootWebArea", "", None),
            ("StaticText", &long, Some(0)),
            ("button", "Close the needle", Some(0)),
            ("StaticText", "×", Some(2)),
        ]);
        let found = search(&page, Some("needle"), None, None);
        let texts: Vec<&str> = found.iter().map(|(_, text, _)| text.as_str()).collect();
        let around = format!("…{} the needle {}…", "a".repeat(32), "b".repeat(36));
        assert_eq!(texts, [around.as_str(), "×"]);
    }

    #[test]
    fn a_snippet_is_cut_around_the_match_with_ellipses_where_cut() {
        let text = "abcdefghij";
        assert_eq!(snippet(text, "ef", 4), "…defg…");
        assert_eq!(snippet("ABCDEFGHIJ", "ef", 4), "…DEFG…");
        assert_eq!(snippet(text, "j", 4), "…ghij");
        assert_eq!(snippet(text, "a", 4), "abcd…");
        assert_eq!(snippet(text, "zz", 4), "abcd…");
        assert_eq!(snippet(text, "", 4), "abcd…");
        assert_eq!(snippet(text, "c", 10), "abcdefghij");
        assert_eq!(snippet(text, "c", 20), "abcdefghij");
        // Lowercasing that changes the length (`İ` becomes two characters): the start.
        assert_eq!(snippet("İabcdefgh", "gh", 4), "İabc…");
    }
}
