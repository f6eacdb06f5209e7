//! Set-of-marks (docs/observation.md#screenshots): each element of the viewport that has
//! a ref, labelled on a screenshot with a short number, and the table from label to ref,
//! so a model that reads images can point at refs. The labels are drawn by
//! `js/marks_draw.js` in an overlay candor adds for the capture only (a closed shadow
//! root, no pointer events) and removes at once after (`js/marks_clear.js`).

use cdp::Deadline;
use serde_json::json;

use super::outline;
use crate::{Error, Tab};

/// At most this many marks on one screenshot: past it the labels hide the page.
pub const MAX_MARKS: usize = 200;

/// One labelled element.
#[derive(Debug, Clone)]
pub struct Mark {
    /// `1`, `2`, … in document order.
    pub label: String,
    pub r#ref: String,
    pub role: String,
    pub name: String,
    /// Its box in CSS px of the viewport, cut to the viewport.
    pub rect: (f64, f64, f64, f64),
}

const MARKS_DRAW: crate::script::Script<usize> = crate::script::script!("marks_draw" => usize);
const MARKS_CLEAR: crate::script::Script<bool> = crate::script::script!("marks_clear" => bool);

impl Tab {
    /// The viewport's elements with refs (the main frame's, shown, at least partly in
    /// the viewport), labelled in document order; refs as `find` gives them.
    pub async fn marks(&self, deadline: Deadline) -> Result<Vec<Mark>, Error> {
        let observation = self.observe(deadline).await?;
        let epoch = self.state().url_epoch;
        let mut memory = self.memory();
        let outlined = outline::outline(&observation, epoch, &mut memory.registry);
        let visible = outline::visibility(&observation.nodes);
        let viewport = observation.viewport;
        let mut nodes: Vec<usize> = outlined.refs.keys().copied().collect();
        nodes.sort_unstable();
        let mut marks = Vec::new();
        for node in nodes {
            let n = &observation.nodes[node];
            let (Some(bounds), true, 0) = (n.bounds.as_ref(), visible[node], n.session) else {
                continue;
            };
            let left = (bounds.x - viewport.scroll_x).max(0.0);
            let top = (bounds.y - viewport.scroll_y).max(0.0);
            let right = (bounds.x + bounds.width - viewport.scroll_x).min(viewport.width);
            let bottom = (bounds.y + bounds.height - viewport.scroll_y).min(viewport.height);
            if right - left < 1.0 || bottom - top < 1.0 {
                continue;
            }
            let Some(r#ref) = outlined.refs.get(&node) else {
                continue;
            };
            let identity = outlined.identities.get(&node);
            marks.push(Mark {
                label: (marks.len() + 1).to_string(),
                r#ref: r#ref.clone(),
                role: identity
                    .map(|i| i.role.clone())
                    .unwrap_or_else(|| outline::display_role(&n.role).to_string()),
                name: identity
                    .map(|i| i.name.clone())
                    .unwrap_or_else(|| outline::normalise(&n.name)),
                rect: (left, top, right - left, bottom - top),
            });
            if marks.len() == MAX_MARKS {
                break;
            }
        }
        Ok(marks)
    }

    /// Draws `marks` over the page; how many were drawn.
    pub async fn draw_marks(&self, marks: &[Mark], deadline: Deadline) -> Result<usize, Error> {
        let boxes: Vec<_> = marks
            .iter()
            .map(|m| json!([m.label, m.rect.0, m.rect.1, m.rect.2, m.rect.3]))
            .collect();
        self.call_script(&MARKS_DRAW, vec![json!(boxes)], deadline)
            .await
    }

    /// Removes the marks' overlay; `true` when it was still in the page.
    pub async fn clear_marks(&self, deadline: Deadline) -> Result<bool, Error> {
        self.call_script(&MARKS_CLEAR, Vec::new(), deadline).await
    }
}
