//! Locating the element a command acts on (docs/observation.md#refs, docs/acting.md#locators): by ref (identity first,
//! then a unique role+name stand-in in the same container, never a positional guess),
//! by role and name, or by CSS selector. Several matches without `nth` are refused with
//! the candidates; none is refused at once.

use cdp::Deadline;
use cdp::protocol::dom;

use super::capture::{Observation, Rect};
use super::outline::{self, Outline};
use crate::refs::ElementIdentity;
use crate::{Error, Tab};

/// How a command names its element.
#[derive(Debug, Clone)]
pub enum Locator {
    /// A ref from a snapshot or find of this tab; with `snapshot_id`, refused if the
    /// element changed since that snapshot.
    Ref {
        r#ref: String,
        snapshot_id: Option<String>,
    },
    /// An accessible role and name (substring, case-insensitive, unless `exact`),
    /// optionally inside the elements matching `scope` (CSS) or the iframe named
    /// `frame`, and the `nth` (0-based) of several.
    Role {
        role: String,
        name: Option<String>,
        scope: Option<String>,
        frame: Option<String>,
        exact: bool,
        nth: Option<usize>,
    },
    /// A CSS selector in the main document, and the `nth` of several.
    Selector {
        selector: String,
        nth: Option<usize>,
    },
    /// An element's identity in words, as a ref of another tab or task stood for it (a
    /// flow's step): the same identity, else a unique same role and name in the same
    /// containers (`relocated`); several are ambiguous, none is not found.
    Identity(ElementIdentity),
    /// A point in CSS pixels of the viewport, for what has no node of its own to name (a
    /// canvas): the element is the one the browser's hit test finds there (or its nearest
    /// ancestor candor reads), and the input goes to the point itself.
    Point { x: f64, y: f64 },
}

impl std::fmt::Display for Locator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Locator::Ref { r#ref, .. } => write!(f, "ref {ref}"),
            Locator::Role {
                role, name, scope, ..
            } => {
                write!(f, "role {role}")?;
                if let Some(name) = name {
                    write!(f, " name {name:?}")?;
                }
                if let Some(scope) = scope {
                    write!(f, " in {scope:?}")?;
                }
                Ok(())
            }
            Locator::Selector { selector, .. } => write!(f, "selector {selector:?}"),
            Locator::Identity(identity) => write!(f, "{identity}"),
            Locator::Point { x, y } => write!(f, "the point ({x}, {y})"),
        }
    }
}

/// One of several elements a locator matched.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub r#ref: Option<String>,
    pub role: String,
    pub name: String,
    pub text: String,
}

/// The element found, with the observation it was found in.
#[derive(Debug)]
pub(crate) struct Located {
    pub observation: Observation,
    pub node: usize,
    pub backend_id: i64,
    pub session: cdp::Session,
    pub role: String,
    pub name: String,
    pub r#ref: Option<String>,
    pub relocated: bool,
    /// Shown on the page at all (not hidden, clipped away or zero-size).
    pub visible: bool,
    /// What the element is, in words that outlive this tab.
    pub identity: Option<ElementIdentity>,
}

impl Located {
    pub fn node(&self) -> &super::capture::Node {
        &self.observation.nodes[self.node]
    }

    pub fn disabled(&self) -> bool {
        self.node()
            .states
            .iter()
            .any(|(state, _)| *state == "disabled")
    }

    /// `Some(true/false)` for checkboxes, radios and switches; "mixed" counts as false.
    pub fn checked(&self) -> Option<bool> {
        let node = self.node();
        let checkable = matches!(
            node.role.as_str(),
            "checkbox" | "radio" | "switch" | "menuitemcheckbox" | "menuitemradio"
        );
        checkable.then(|| {
            node.states
                .iter()
                .any(|(state, value)| *state == "checked" && value == "true")
        })
    }
}

impl Tab {
    /// Finds the one element `locator` names, in a fresh observation.
    pub(crate) async fn locate(
        &self,
        locator: &Locator,
        deadline: Deadline,
    ) -> Result<Located, Error> {
        if let Locator::Ref { r#ref, .. } = locator {
            self.check_ref_epoch(r#ref)?;
        }
        let selected = match locator {
            Locator::Selector { selector, .. } => {
                Some(self.query_selector_all(selector, deadline).await?)
            }
            _ => None,
        };
        let scope = match locator {
            Locator::Role {
                scope: Some(scope), ..
            } => {
                let roots = self.query_selector_all(scope, deadline).await?;
                if roots.is_empty() {
                    return Err(Error::ElementNotFound {
                        locator: locator.to_string(),
                        reason: format!("no element matches the scope {scope:?}"),
                    });
                }
                Some(roots)
            }
            _ => None,
        };
        let hit = match locator {
            Locator::Point { x, y } => Some(self.hit_test(*x, *y, locator, deadline).await?),
            _ => None,
        };
        let observation = self.observe(deadline).await?;
        let epoch = self.state().url_epoch;
        let mut memory = self.memory();
        let outlined = outline::outline(&observation, epoch, &mut memory.registry);
        let (node, relocated) = match locator {
            Locator::Point { x, y } => {
                let viewport = observation.viewport;
                if *x >= viewport.width || *y >= viewport.height {
                    return Err(Error::InvalidParams {
                        what: "x, y".into(),
                        reason: format!(
                            "{locator} is outside the viewport ({} × {} CSS px)",
                            viewport.width, viewport.height
                        ),
                    });
                }
                let hit = hit.ok_or_else(|| Error::ElementNotFound {
                    locator: locator.to_string(),
                    reason: "nothing is there".into(),
                })?;
                (read_at(&observation, hit, locator)?, false)
            }
            Locator::Ref { r#ref, snapshot_id } => {
                let (node, relocated) = by_ref(&memory, &observation, &outlined, r#ref)?;
                if let Some(snapshot_id) = snapshot_id {
                    check_snapshot(
                        &memory,
                        &observation,
                        node,
                        relocated,
                        r#ref,
                        snapshot_id,
                        self.label(),
                    )?;
                }
                (node, relocated)
            }
            Locator::Role { nth, .. } | Locator::Selector { nth, .. } => {
                let matches = match (locator, &selected) {
                    (Locator::Selector { .. }, Some(backends)) => observation
                        .nodes
                        .iter()
                        .enumerate()
                        .filter(|(_, n)| {
                            n.session == 0 && n.backend_id.is_some_and(|b| backends.contains(&b))
                        })
                        .map(|(i, _)| i)
                        .collect(),
                    _ => by_role(&observation, &outlined, locator, scope.as_deref()),
                };
                // Elements the selector matched that candor does not read (no node of
                // the accessibility tree: a bare `<span>` of text, a container with no
                // role) are never swapped for an ancestor: that would be a guess.
                if let Some(backends) = selected.as_ref().filter(|b| !b.is_empty())
                    && matches.is_empty()
                {
                    return Err(Error::ElementNotFound {
                        locator: locator.to_string(),
                        reason: format!(
                            "{} element(s) match, none of them one candor reads: hidden, or no node of the accessibility tree (bare text, a container without a role)",
                            backends.len()
                        ),
                    });
                }
                pick(&observation, &outlined, &mut memory, matches, *nth, locator)?
            }
            Locator::Identity(identity) => {
                by_identity(&observation, &outlined, &mut memory, identity, locator)?
            }
        };
        let visible = outline::visibility(&observation.nodes)[node];
        let n = &observation.nodes[node];
        let backend_id = n.backend_id.ok_or_else(|| Error::ElementNotFound {
            locator: locator.to_string(),
            reason: "it names no DOM element".into(),
        })?;
        let session = observation
            .sessions
            .get(n.session)
            .cloned()
            .ok_or(Error::Disconnected)?;
        let identity = outlined.identities.get(&node).cloned();
        let r#ref = match (outlined.refs.get(&node), identity) {
            (Some(r), _) => Some(r.clone()),
            (None, Some(identity)) => {
                Some(outlined.ref_of(&observation, node, &identity, &mut memory.registry))
            }
            (None, None) => None,
        };
        let role = identity_role(&outlined, node, n);
        let name = outlined
            .identities
            .get(&node)
            .map(|i| i.name.clone())
            .unwrap_or_else(|| outline::normalise(&n.name));
        let identity = outlined.identities.get(&node).map(|i| ElementIdentity {
            role: role.clone(),
            name: i.name.clone(),
            containers: outline::container_path(&observation.nodes, node),
            heading: i.context.clone(),
            ordinal: i.ordinal,
        });
        drop(memory);
        Ok(Located {
            observation,
            node,
            backend_id,
            session,
            role,
            name,
            r#ref,
            relocated,
            visible,
            identity,
        })
    }

    /// The DOM node the browser's hit test finds at (`x`, `y`) of the viewport; a point
    /// outside it is refused.
    async fn hit_test(
        &self,
        x: f64,
        y: f64,
        locator: &Locator,
        deadline: Deadline,
    ) -> Result<i64, Error> {
        let outside = || Error::InvalidParams {
            what: "x, y".into(),
            reason: format!("{locator} is outside the viewport"),
        };
        if !(x.is_finite() && y.is_finite() && x >= 0.0 && y >= 0.0) {
            return Err(outside());
        }
        node_at(self.session(), x.floor() as i64, y.floor() as i64, deadline)
            .await
            .map_err(|err| match err {
                // The browser's word for a point past the page's edge.
                cdp::Error::Protocol { message, .. } if message.contains("No node found") => {
                    outside()
                }
                err => err.into(),
            })
    }

    /// A ref from before the tab's URL changed is refused before anything is read.
    fn check_ref_epoch(&self, r#ref: &str) -> Result<(), Error> {
        let memory = self.memory();
        let entry = memory.registry.get(r#ref).ok_or_else(|| Error::StaleRef {
            r#ref: r#ref.to_string(),
            reason: if memory.registry.is_retired(r#ref) {
                format!(
                    "{ref} was taken on an earlier page of {}; refs do not carry over to another page",
                    self.label()
                )
            } else {
                format!(
                    "{} has no ref {ref} (refs come from browser_snapshot or browser_find of this tab)",
                    self.label()
                )
            },
            element: None,
        })?;
        let state = self.state();
        if entry.identity.epoch != state.url_epoch {
            return Err(Error::StaleRef {
                r#ref: r#ref.to_string(),
                reason: format!(
                    "{ref} was taken before {} moved to {}; refs do not carry over to another page",
                    self.label(),
                    state.url
                ),
                element: Some(entry.identity.describe()),
            });
        }
        Ok(())
    }

    /// Backend ids of the main document's elements matching `selector`.
    pub(crate) async fn query_selector_all(
        &self,
        selector: &str,
        deadline: Deadline,
    ) -> Result<Vec<i64>, Error> {
        let session = self.session();
        let document = session
            .call(&dom::GetDocument { depth: Some(0) }, deadline)
            .await?;
        let found = session
            .call(
                &dom::QuerySelectorAll {
                    node_id: document.root.node_id,
                    selector: selector.to_string(),
                },
                deadline,
            )
            .await
            .map_err(|err| match err {
                cdp::Error::Protocol { message, .. } => Error::InvalidSelector {
                    selector: selector.to_string(),
                    reason: message,
                },
                other => other.into(),
            })?;
        let requests: Vec<dom::DescribeNodeById> = found
            .node_ids
            .iter()
            .map(|node_id| dom::DescribeNodeById { node_id: *node_id })
            .collect();
        let described =
            futures::future::join_all(requests.iter().map(|r| session.call(r, deadline))).await;
        Ok(described
            .into_iter()
            .filter_map(Result::ok)
            .map(|d| d.node.backend_node_id)
            .collect())
    }
}

/// The node a ref names now: the DOM node it was bound to, while that lives; else the
/// node its identity was re-rendered as (the outline bound the ref to it); else a
/// *unique* element with the same role, name, container and heading that appeared after
/// the ref was last seen (`relocated`). An element that was already there, with a ref of
/// its own, is never a stand-in: it is another element.
fn by_ref(
    memory: &super::SnapshotMemory,
    observation: &Observation,
    outlined: &Outline,
    r#ref: &str,
) -> Result<(usize, bool), Error> {
    let stale = |reason: String| Error::StaleRef {
        r#ref: r#ref.to_string(),
        reason,
        element: memory.registry.get(r#ref).map(|e| e.identity.describe()),
    };
    let entry = memory
        .registry
        .get(r#ref)
        .ok_or_else(|| stale("unknown ref".into()))?;
    let identity = entry.identity.clone();
    let node_key = |index: usize| {
        let n = &observation.nodes[index];
        n.backend_id.map(|b| (n.session, b))
    };
    if let Some(bound) = entry.node
        && memory.registry.of_node(bound) == Some(r#ref)
        && let Some(index) = (0..observation.nodes.len()).find(|i| node_key(*i) == Some(bound))
    {
        return Ok((index, false));
    }
    if let Some((node, _)) = outlined.refs.iter().find(|(_, r)| *r == r#ref) {
        return Ok((*node, false));
    }
    let loose = identity.loose_key();
    let candidates: Vec<usize> = outlined
        .identities
        .iter()
        .filter(|(node, id)| {
            id.loose_key() == loose
                && node_key(**node).is_none_or(|k| {
                    memory
                        .registry
                        .of_node(k)
                        .and_then(|r| memory.registry.get(r))
                        .is_none_or(|other| other.born > entry.seen)
                })
        })
        .map(|(node, _)| *node)
        .collect();
    match candidates.as_slice() {
        [only] => Ok((*only, true)),
        [] => Err(stale(format!(
            "the element {ref} named is no longer on the page"
        ))),
        several => Err(stale(format!(
            "the element {ref} named is gone and {} similar elements stand in its place",
            several.len()
        ))),
    }
}

/// The node an identity names: the one element with the same role, name, containers,
/// heading and ordinal; else the one with the same role and name in the same containers
/// (`relocated`). Never a positional guess: several such elements are ambiguous.
fn by_identity(
    observation: &Observation,
    outlined: &Outline,
    memory: &mut super::SnapshotMemory,
    wanted: &ElementIdentity,
    locator: &Locator,
) -> Result<(usize, bool), Error> {
    let container = wanted.container_key();
    let mut same: Vec<usize> = outlined
        .identities
        .iter()
        .filter(|(_, id)| {
            id.container == container && id.role == wanted.role && id.name == wanted.name
        })
        .map(|(node, _)| *node)
        .collect();
    same.sort_unstable();
    let exact: Vec<usize> = same
        .iter()
        .copied()
        .filter(|node| {
            outlined
                .identities
                .get(node)
                .is_some_and(|id| id.context == wanted.heading && id.ordinal == wanted.ordinal)
        })
        .collect();
    if let [only] = exact.as_slice() {
        return Ok((*only, false));
    }
    if same.is_empty() {
        return Err(Error::ElementNotFound {
            locator: locator.to_string(),
            reason: "no element with that role and name is in those containers".into(),
        });
    }
    pick(observation, outlined, memory, same, None, locator).map(|(node, _)| (node, true))
}

/// With a snapshot id: refuses an element replaced, relocated or moved since.
fn check_snapshot(
    memory: &super::SnapshotMemory,
    observation: &Observation,
    node: usize,
    relocated: bool,
    r#ref: &str,
    snapshot_id: &str,
    tab: &str,
) -> Result<(), Error> {
    let stale = |reason: String| Error::StaleSnapshot {
        snapshot: snapshot_id.to_string(),
        reason,
    };
    let record = memory
        .records
        .iter()
        .find(|(id, _)| id == snapshot_id)
        .ok_or_else(|| stale(format!("{snapshot_id} is not a recent snapshot of {tab}")))?;
    let n = &observation.nodes[node];
    let changed = match record.1.get(r#ref) {
        None => Some("it was not in that snapshot"),
        Some(_) if relocated => Some("it was replaced by another element"),
        // A link a region read named page-side has no DOM node id to compare: its
        // identity and place stand for it.
        Some((Some(backend), _)) if Some(*backend) != n.backend_id => {
            Some("it was replaced (re-rendered)")
        }
        Some((_, Some(before))) if n.bounds.is_some_and(|now| moved(before, &now)) => {
            Some("it moved")
        }
        _ => None,
    };
    match changed {
        Some(reason) => Err(stale(format!(
            "{ref} changed since {snapshot_id}: {reason}"
        ))),
        None => Ok(()),
    }
}

/// Nodes matching a role locator, in document order.
fn by_role(
    observation: &Observation,
    outlined: &Outline,
    locator: &Locator,
    scope: Option<&[i64]>,
) -> Vec<usize> {
    let Locator::Role {
        role,
        name,
        frame,
        exact,
        ..
    } = locator
    else {
        return Vec::new();
    };
    let role = role.to_lowercase();
    let wanted = name
        .as_deref()
        .map(|n| outline::normalise(n).to_lowercase());
    let frame = frame.as_deref().map(str::to_lowercase);
    let mut matches: Vec<usize> = outlined
        .identities
        .iter()
        .filter(|(_, identity)| identity.role.to_lowercase() == role)
        .filter(|(_, identity)| {
            let have = identity.name.to_lowercase();
            wanted.as_ref().is_none_or(|w| {
                if *exact {
                    have == *w
                } else {
                    have.contains(w.as_str())
                }
            })
        })
        .filter(|(node, _)| {
            frame
                .as_ref()
                .is_none_or(|f| inside_frame(observation, **node, f))
        })
        .filter(|(node, _)| {
            scope.is_none_or(|roots| {
                let n = &observation.nodes[**node];
                n.session == 0
                    && n.backend_id.is_some_and(|b| {
                        roots
                            .iter()
                            .any(|root| observation.dom_contains(0, *root, b))
                    })
            })
        })
        .map(|(node, _)| *node)
        .collect();
    matches.sort_unstable();
    matches
}

/// Whether node `index` is inside an iframe whose name contains `frame`.
fn inside_frame(observation: &Observation, index: usize, frame: &str) -> bool {
    let mut current = observation.nodes[index].parent;
    while let Some(i) = current {
        let node = &observation.nodes[i];
        if node.role == "Iframe" && node.name.to_lowercase().contains(frame) {
            return true;
        }
        current = node.parent;
    }
    false
}

/// One node of `matches`: the `nth`, or the only one.
fn pick(
    observation: &Observation,
    outlined: &Outline,
    memory: &mut super::SnapshotMemory,
    matches: Vec<usize>,
    nth: Option<usize>,
    locator: &Locator,
) -> Result<(usize, bool), Error> {
    match (matches.len(), nth) {
        (0, _) => Err(Error::ElementNotFound {
            locator: locator.to_string(),
            reason: "nothing on the page matches".into(),
        }),
        (n, Some(i)) if i >= n => Err(Error::ElementNotFound {
            locator: locator.to_string(),
            reason: format!("nth {i} asked for, {n} matched"),
        }),
        (_, Some(i)) => Ok((matches[i], false)),
        (1, None) => Ok((matches[0], false)),
        (n, None) => Err(Error::AmbiguousLocator {
            locator: locator.to_string(),
            matched: n,
            candidates: matches
                .iter()
                .take(5)
                .map(|node| {
                    let n = &observation.nodes[*node];
                    Candidate {
                        r#ref: outlined.identities.get(node).map(|identity| {
                            outlined.ref_of(observation, *node, identity, &mut memory.registry)
                        }),
                        role: identity_role(outlined, *node, n),
                        name: outlined
                            .identities
                            .get(node)
                            .map(|i| i.name.clone())
                            .unwrap_or_else(|| outline::normalise(&n.name)),
                        text: outline::text_under(&observation.nodes, *node, 60),
                    }
                })
                .collect(),
        }),
    }
}

fn identity_role(outlined: &Outline, node: usize, n: &super::capture::Node) -> String {
    outlined
        .identities
        .get(&node)
        .map(|i| i.role.clone())
        .unwrap_or_else(|| outline::display_role(&n.role).to_string())
}

/// More than 2 px off in any direction.
fn moved(before: &Rect, now: &Rect) -> bool {
    (before.x - now.x).abs() > 2.0
        || (before.y - now.y).abs() > 2.0
        || (before.width - now.width).abs() > 2.0
        || (before.height - now.height).abs() > 2.0
}

/// The node of `observation` for DOM node `hit` of the main frame, or of its nearest
/// ancestor that has one (text, or a wrapper without a role, has none).
fn read_at(observation: &Observation, hit: i64, locator: &Locator) -> Result<usize, Error> {
    let parents = observation.dom_parents.first();
    let mut current = Some(hit);
    for _ in 0..4096 {
        let Some(backend) = current else { break };
        if let Some(node) = observation
            .nodes
            .iter()
            .position(|n| n.session == 0 && n.backend_id == Some(backend))
        {
            return Ok(node);
        }
        current = parents.and_then(|p| p.get(&backend).copied());
    }
    Err(Error::ElementNotFound {
        locator: locator.to_string(),
        reason: "the element there is none candor reads, nor is any around it".into(),
    })
}

/// The backend id of the DOM node the browser's hit test finds at (`x`, `y`) of
/// `session`'s frame (the one hit test of an agent's point and of what covers a target).
pub(crate) async fn node_at(
    session: &cdp::Session,
    x: i64,
    y: i64,
    deadline: Deadline,
) -> Result<i64, cdp::Error> {
    let hit = session
        .call(
            &cdp::protocol::dom::GetNodeForLocation {
                x,
                y,
                include_user_agent_shadow_dom: false,
                ignore_pointer_events_none: false,
            },
            deadline,
        )
        .await?;
    Ok(hit.backend_node_id)
}
