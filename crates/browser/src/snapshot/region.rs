//! Observing a page around the viewport only. Chromium's full accessibility tree of a
//! page like the Rust standard library's `Iterator` documentation has 33,000 nodes (half
//! of them inline text boxes) and takes the renderer most of a second to serialise, and
//! even its DOM snapshot takes 130 ms, while a snapshot's budget shows two screens of it.
//! So for a page whose region (a few screens around the viewport, more for a larger
//! budget) holds less than half of it, a page-side pass (`js/region_elements.js`) picks
//! the elements there and their ancestors, another (`js/region_facts.js`) describes them
//! (boxes, text, click and clip hints), and Chromium gives each element the page cannot
//! describe itself (more than a plain wrapper, a list, a list item, or a link named by
//! its text alone whose name no link left out before it could share) its role, name and
//! states (`Accessibility.getPartialAXTree`, pipelined). Small pages, pages mostly in view, pages with out-of-process frames,
//! `find` and locating read the whole tree.

use cdp::protocol::accessibility;
use cdp::{Deadline, Session};

use super::PROFILE;
use super::capture::{self, Node, Observation, Rect, Viewport};
use super::text_breaks::Sep;
use crate::Error;

/// The region observed, in screens above and below the viewport: about what a budget of
/// `BASE_BUDGET` tokens shows; a larger budget reads a region as much larger.
const SCREENS_ABOVE: f64 = 0.5;
const SCREENS_BELOW: f64 = 2.5;
/// The budget the region's size above is for: the snapshot's default.
pub(crate) const BASE_BUDGET: usize = 4_096;

/// The group page objects of a region read belong to; released at the end.
const OBJECT_GROUP: &str = "candor-region";
/// Pages with fewer elements are read whole: below this the whole read costs a few
/// milliseconds, and the page-side passes would cost as much.
pub(super) const LARGE_PAGE_ELEMENTS: usize = 300;

impl crate::Tab {
    /// Observes a large page around its viewport, as far as a budget of `max_tokens`
    /// could show, without reading the whole page: a page-side pass picks the elements
    /// near the viewport (and their ancestors), and Chromium gives each its role, name and
    /// states. `None` for a page small enough to read whole or mostly in the region, a
    /// page with out-of-process frames, or one that could not be asked.
    pub(crate) async fn observe_region(
        &self,
        max_tokens: usize,
        deadline: Deadline,
    ) -> Result<Option<Observation>, Error> {
        Ok(self
            .observe_region_asking(max_tokens, Asking::Needed, deadline)
            .await?
            .map(|(observation, _)| observation))
    }

    /// [`Self::observe_region`], asking Chromium about the elements `asking` says; with
    /// how many it asked about.
    pub(super) async fn observe_region_asking(
        &self,
        max_tokens: usize,
        asking: Asking,
        deadline: Deadline,
    ) -> Result<Option<(Observation, usize)>, Error> {
        use crate::script::{self, This};
        use cdp::protocol::{page, runtime};
        self.check_usable()?;
        let state = self.state();
        if !state.child_frames.is_empty() {
            return Ok(None);
        }
        // Without candor's world (it could not be made), the page is read whole.
        let Some(context) = self.candor_context_now(deadline).await.ok().flatten() else {
            return Ok(None);
        };
        let session = self.session();
        let started = std::time::Instant::now();
        let scale = (max_tokens as f64 / BASE_BUDGET as f64).max(1.0);
        let (above, below) = (SCREENS_ABOVE * scale, SCREENS_BELOW * scale);
        let arguments = [LARGE_PAGE_ELEMENTS as f64, above, below]
            .iter()
            .map(|v| serde_json::json!(v))
            .chain([serde_json::json!(asking == Asking::Every)])
            .collect();
        let (metrics, found) = tokio::try_join!(
            async { Ok::<_, Error>(session.call(&page::GetLayoutMetrics {}, deadline).await?) },
            script::call_for_object(
                session,
                &REGION_ELEMENTS,
                This::Context(&context),
                arguments,
                OBJECT_GROUP,
                deadline,
            ),
        )?;
        let Some(array) = found.object_id else {
            tracing::debug!(
                target: PROFILE,
                ms = started.elapsed().as_secs_f64() * 1000.0,
                "region: read the page whole"
            );
            return Ok(None);
        };
        let read = self
            .read_region(session, &array, context.unique.as_deref(), deadline)
            .await;
        let _ = session
            .call(
                &runtime::ReleaseObjectGroup {
                    object_group: OBJECT_GROUP.into(),
                },
                deadline,
            )
            .await;
        let (facts, asked, beyond, ax) = read?;
        let viewport = Viewport {
            width: metrics.css_visual_viewport.client_width,
            height: metrics.css_visual_viewport.client_height,
            scroll_x: metrics.css_visual_viewport.page_x,
            scroll_y: metrics.css_visual_viewport.page_y,
            content_width: metrics.css_content_size.width,
            content_height: metrics.css_content_size.height,
        };
        let top = viewport.scroll_y - above * viewport.height;
        let bottom = viewport.scroll_y + (1.0 + below) * viewport.height;
        let observation = build(
            &facts,
            ax,
            beyond,
            viewport,
            (top, bottom),
            &state.title,
            session,
        );
        tracing::debug!(
            target: PROFILE,
            ms = started.elapsed().as_secs_f64() * 1000.0,
            elements = facts.len(),
            asked,
            nodes = observation.nodes.len(),
            "region read"
        );
        Ok(Some((observation, asked)))
    }

    /// The facts, how many elements Chromium was asked about, counts left out, and the
    /// AX nodes of a region read: per element, `Asked` with its node (`None` if the call
    /// failed) or `Plain` (not asked: a plain wrapper).
    async fn read_region(
        &self,
        session: &Session,
        array: &str,
        world: Option<&str>,
        deadline: Deadline,
    ) -> Result<(Vec<RegionFact>, usize, (usize, usize), Vec<Ax>), Error> {
        use crate::script::{self, This};
        use cdp::protocol::runtime;
        let properties = runtime::GetProperties {
            object_id: array.to_string(),
            own_properties: Some(true),
        };
        let (facts, properties) = tokio::try_join!(
            script::call(
                session,
                &REGION_FACTS,
                This::Object(array, world),
                vec![serde_json::json!(cdp::secret_field_selector())],
                deadline
            ),
            async { Ok::<_, Error>(session.call(&properties, deadline).await?) },
        )?;
        let mut objects: Vec<(usize, String)> = Vec::new();
        let mut beyond = (0, 0);
        for property in properties.result {
            let value = property.value;
            match property.name.as_str() {
                "above" => {
                    beyond.0 = value
                        .and_then(|v| v.value)
                        .and_then(|v| v.as_u64())
                        .unwrap_or(0) as usize
                }
                "below" => {
                    beyond.1 = value
                        .and_then(|v| v.value)
                        .and_then(|v| v.as_u64())
                        .unwrap_or(0) as usize
                }
                name => {
                    if let (Ok(index), Some(object)) =
                        (name.parse::<usize>(), value.and_then(|v| v.object_id))
                    {
                        objects.push((index, object));
                    }
                }
            }
        }
        let replies = ask(session, objects, deadline).await;
        let asked = replies.len();
        let mut ax: Vec<Ax> = (0..facts.len()).map(|_| Ax::Plain).collect();
        for (index, node) in replies {
            if let Some(slot) = ax.get_mut(index) {
                *slot = Ax::Asked(node);
            }
        }
        Ok((facts, asked, beyond, ax))
    }
}

/// Chromium's node for each `(index, object)`, pipelined: `None` where the call failed.
async fn ask(
    session: &Session,
    objects: Vec<(usize, String)>,
    deadline: Deadline,
) -> Vec<(usize, Option<Box<Node>>)> {
    let requests: Vec<(usize, accessibility::GetPartialAxTree)> = objects
        .into_iter()
        .map(|(index, object)| {
            (
                index,
                accessibility::GetPartialAxTree {
                    backend_node_id: None,
                    object_id: Some(object),
                    fetch_relatives: Some(false),
                },
            )
        })
        .collect();
    let replies =
        futures::future::join_all(requests.iter().map(|(_, r)| session.call(r, deadline))).await;
    let empty = std::collections::HashMap::new();
    requests
        .iter()
        .zip(replies)
        .map(|((index, _), reply)| {
            let node = reply.ok().and_then(|reply| {
                let node = reply
                    .nodes
                    .iter()
                    .find(|n| n.backend_dom_node_id.is_some())?;
                Some(Box::new(capture::node_from_ax(node, &empty, 0)))
            });
            (*index, node)
        })
        .collect()
}

/// The elements near the viewport of a large page (by reference; see `region.rs`).
pub(crate) const REGION_ELEMENTS: crate::script::Script<crate::script::InPage> =
    crate::script::script!("region_elements" => crate::script::InPage);
/// On that array: what a snapshot needs of each element (given the secret field selector:
/// which are secret).
pub(crate) const REGION_FACTS: crate::script::Script<Vec<crate::snapshot::region::RegionFact>> =
    crate::script::script!("region_facts" => Vec<crate::snapshot::region::RegionFact>);

#[cfg(test)]
#[path = "region_tests.rs"]
mod tests;

/// Which elements of a region read Chromium is asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Asking {
    /// Those whose role, name and states the page cannot tell for certain.
    Needed,
    /// Every one: what a test holds the page-side answers to.
    #[cfg_attr(not(test), allow(dead_code))]
    Every,
}

/// What Chromium said of one element of a region read.
#[derive(Debug)]
enum Ax {
    /// Asked: its node, or `None` when the call failed (the element went away).
    Asked(Option<Box<Node>>),
    /// Not asked: a plain wrapper (`js/region_elements.js`), generic to Chromium too.
    Plain,
}

/// What `region_facts.js` answers for one element: a key it leaves out has its default
/// (false, none, zero, empty).
#[derive(Debug, serde::Deserialize)]
pub(crate) struct RegionFact {
    /// The index of its nearest listed ancestor, -1 for none.
    parent: i64,
    /// `[x, y, width, height]` in document coordinates.
    #[serde(rename = "box")]
    bounds: [f64; 4],
    href: Option<String>,
    #[serde(rename = "type")]
    input_type: Option<String>,
    /// A secret field (`cdp::is_secret_field`): its value is never shown.
    #[serde(default)]
    secret: bool,
    #[serde(default)]
    onclick: bool,
    #[serde(default)]
    pointer: bool,
    #[serde(default)]
    clips: bool,
    /// Scrolls its content (`overflow` `auto` or `scroll`), and its top and bottom borders.
    #[serde(default)]
    scrolls: bool,
    #[serde(default)]
    borders: (f64, f64),
    /// Inside a scroll container: its element children left out before its first listed
    /// one and after its last.
    #[serde(default)]
    unread: (usize, usize),
    /// Drawn invisible (`visibility: hidden`); its text is left out.
    #[serde(default)]
    hidden: bool,
    /// The role, level and name the page-side pass knew without asking Chromium: a list,
    /// a list item, an element hidden with `aria-hidden`, or a link and its name
    /// (`js/region_elements.js` says when).
    known: Option<(String, u64, String)>,
    #[serde(default)]
    content: Vec<Content>,
}

/// One piece of an element's content, in order.
#[derive(Debug, serde::Deserialize)]
#[serde(untagged)]
enum Content {
    /// `["e", index]`: a listed element.
    Element(ElementTag, usize),
    /// `["t", text, x, y, width, height, separator]`: a text node, its box, and what
    /// separates it from the rendered text before it (0 nothing, 1 a space, 2 a line).
    Text(TextTag, String, f64, f64, f64, f64, u8),
}

#[derive(Debug, serde::Deserialize)]
enum ElementTag {
    #[serde(rename = "e")]
    E,
}

#[derive(Debug, serde::Deserialize)]
enum TextTag {
    #[serde(rename = "t")]
    T,
}

fn rect([x, y, width, height]: [f64; 4]) -> Rect {
    Rect {
        x,
        y,
        width,
        height,
    }
}

/// The observation of a region read: elements as the page described them, with their
/// accessibility nodes, and their direct text.
fn build(
    facts: &[RegionFact],
    mut ax: Vec<Ax>,
    beyond: (usize, usize),
    viewport: Viewport,
    (top, bottom): (f64, f64),
    title: &str,
    session: &Session,
) -> Observation {
    let mut nodes = vec![Node {
        role: "RootWebArea".into(),
        name: title.to_string(),
        ..Node::default()
    }];
    // Every element first (element i is node i + 1), then each one's content in order;
    // pointer cursors inherit, so only the outermost element that sets one counts.
    let parent_of = |i: usize| usize::try_from(facts[i].parent).ok();
    for (i, fact) in facts.iter().enumerate() {
        let parent_pointer = parent_of(i).is_some_and(|p| facts.get(p).is_some_and(|f| f.pointer));
        let asked = ax.get_mut(i).map(|a| std::mem::replace(a, Ax::Plain));
        let mut node = match asked {
            Some(Ax::Asked(Some(node))) => *node,
            // A wrapper drawn invisible is what Chromium ignores; what it holds may show.
            Some(Ax::Plain) | None if fact.hidden => Node {
                role: "ignored".into(),
                ..Node::default()
            },
            Some(Ax::Plain) | None => match &fact.known {
                Some((role, level, name)) => Node {
                    role: role.clone(),
                    name: name.clone(),
                    states: if *level > 0 {
                        vec![("level", level.to_string())]
                    } else {
                        Vec::new()
                    },
                    focusable: role == "link",
                    ..Node::default()
                },
                None => Node {
                    role: "generic".into(),
                    ..Node::default()
                },
            },
            Some(Ax::Asked(None)) => Node {
                role: "none".into(),
                ..Node::default()
            },
        };
        node.bounds = Some(rect(fact.bounds));
        node.clickable = fact.onclick || fact.pointer && !parent_pointer;
        node.pointer = fact.pointer;
        node.clips = fact.clips;
        node.scrolls = fact.scrolls;
        node.borders = fact.borders;
        node.unread = fact.unread;
        node.href = fact.href.clone();
        node.input_type = fact.input_type.clone();
        node.secret = fact.secret;
        node.parent = Some(parent_of(i).map_or(0, |p| p + 1));
        node.children.clear();
        nodes.push(node);
    }
    for (i, fact) in facts.iter().enumerate() {
        if parent_of(i).is_none() {
            nodes[0].children.push(i + 1);
        }
        for item in &fact.content {
            match item {
                Content::Element(ElementTag::E, child) => nodes[i + 1].children.push(child + 1),
                Content::Text(TextTag::T, text, x, y, width, height, sep) => {
                    let bounds = rect([*x, *y, *width, *height]);
                    if bounds.bottom() < top || bounds.y > bottom {
                        continue;
                    }
                    let at = nodes.len();
                    nodes.push(Node {
                        role: "StaticText".into(),
                        name: text.clone(),
                        bounds: Some(bounds),
                        sep_before: Some(match sep {
                            0 => Sep::None,
                            1 => Sep::Space,
                            _ => Sep::Line,
                        }),
                        parent: Some(i + 1),
                        ..Node::default()
                    });
                    nodes[i + 1].children.push(at);
                }
            }
        }
    }
    // Nodes must be in document order for the outline: renumber depth-first.
    let nodes = capture::reorder(nodes);
    Observation {
        nodes,
        viewport,
        sessions: vec![session.clone()],
        dom_parents: vec![std::collections::HashMap::new()],
        elements_beyond: beyond,
    }
}
