//! Trusted input: events dispatched by the browser (`Input.dispatchMouseEvent`), at the
//! element's visible centre after scrolling it into view — never `element.click()`.

use cdp::Deadline;
use cdp::protocol::{dom, input};

use crate::{Error, Tab};

/// What a click did.
#[derive(Debug, Clone)]
pub struct Clicked {
    pub role: String,
    pub name: String,
    /// The element the ref named was gone; a unique same role+name match was clicked.
    pub relocated: bool,
    /// Where the click landed, in the page's viewport (CSS pixels).
    pub x: f64,
    pub y: f64,
    /// The page navigated (within the document or to a new one).
    pub navigated: bool,
    /// The page was quiet (no navigation under way) when the click returned.
    pub settled: bool,
}

/// The most an action waits for a navigation it started to load.
const SETTLE_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

impl Tab {
    /// Clicks the element `ref` names (resolved as SPEC §5.2 says) with the left button.
    pub async fn click(
        &self,
        r#ref: &str,
        snapshot_id: Option<&str>,
        deadline: Deadline,
    ) -> Result<Clicked, Error> {
        let target = self.resolve(r#ref, snapshot_id, deadline).await?;
        let not_clickable = |reason: String| Error::NotClickable {
            r#ref: r#ref.to_string(),
            reason,
        };
        let backend_node_id = target.backend_id;
        // Scrolling fails for nodes without a layout box (e.g. display: contents); the
        // quads below tell whether there is anything to click.
        let _ = target
            .session
            .call(&dom::ScrollIntoViewIfNeeded { backend_node_id }, deadline)
            .await;
        let quads = target
            .session
            .call(&dom::GetContentQuads { backend_node_id }, deadline)
            .await
            .map_err(|e| not_clickable(format!("it has no box on screen ({e})")))?;
        let (mut x, mut y) = quads
            .quads
            .iter()
            .filter(|q| q.len() == 8 && area(q) >= 1.0)
            .map(|q| {
                (
                    (q[0] + q[2] + q[4] + q[6]) / 4.0,
                    (q[1] + q[3] + q[5] + q[7]) / 4.0,
                )
            })
            .next()
            .ok_or_else(|| not_clickable("it has no visible area".into()))?;
        if target.session.id() != self.session().id() {
            let (dx, dy) = self.frame_origin(&target.session, deadline).await?;
            x += dx;
            y += dy;
        }
        let before = self.state();
        self.mouse_click(x, y, deadline).await?;
        let settled = self.settle(&before, deadline).await;
        let after = self.state();
        Ok(Clicked {
            role: target.role,
            name: target.name,
            relocated: target.relocated,
            x,
            y,
            navigated: after.navigations > before.navigations,
            settled,
        })
    }

    /// After input: one round trip into the page, so whatever the input started
    /// synchronously (handlers, default actions) has run and been reported; then, if a
    /// navigation began, its commit and load, within `deadline` and at most
    /// [`SETTLE_LIMIT`]. Returns whether the page settled.
    pub(crate) async fn settle(&self, before: &crate::PageState, deadline: Deadline) -> bool {
        if self.evaluate_one(deadline).await.is_err() {
            return false;
        }
        let now = self.state();
        if !now.loading && now.navigations == before.navigations {
            return true;
        }
        let limit = deadline.within(SETTLE_LIMIT);
        let started = std::time::Instant::now();
        let navigations = before.navigations;
        self.wait_state("the page to settle after the action", limit, started, |s| {
            s.crashed
                || s.closed
                || !s.loading && (s.navigations > navigations || s.loaded_loader == s.loader)
        })
        .await
        .is_ok()
    }

    /// Where an out-of-process frame's viewport starts in the page's viewport.
    async fn frame_origin(
        &self,
        frame_session: &cdp::Session,
        deadline: Deadline,
    ) -> Result<(f64, f64), Error> {
        let frame_id = self
            .state()
            .child_frames
            .iter()
            .find(|(_, session)| Some(session) == frame_session.id())
            .map(|(frame, _)| frame.clone())
            .ok_or_else(|| Error::Protocol {
                method: "DOM.getFrameOwner".into(),
                message: "the frame is no longer attached".into(),
            })?;
        let owner = self
            .session()
            .call(&dom::GetFrameOwner { frame_id }, deadline)
            .await?;
        let model = self
            .session()
            .call(
                &dom::GetBoxModel {
                    backend_node_id: owner.backend_node_id,
                },
                deadline,
            )
            .await?;
        Ok((
            model.model.content.first().copied().unwrap_or_default(),
            model.model.content.get(1).copied().unwrap_or_default(),
        ))
    }

    /// A left click at viewport point (`x`, `y`): move, press, release.
    pub(crate) async fn mouse_click(
        &self,
        x: f64,
        y: f64,
        deadline: Deadline,
    ) -> Result<(), Error> {
        let event = |kind: &str, buttons: i64| input::DispatchMouseEvent {
            r#type: kind.to_string(),
            x,
            y,
            button: Some(if kind == "mouseMoved" { "none" } else { "left" }.to_string()),
            buttons: Some(buttons),
            click_count: (kind != "mouseMoved").then_some(1),
            ..Default::default()
        };
        let session = self.session();
        session.call(&event("mouseMoved", 0), deadline).await?;
        session.call(&event("mousePressed", 1), deadline).await?;
        session.call(&event("mouseReleased", 0), deadline).await?;
        Ok(())
    }
}

/// The area of a quad (shoelace formula).
fn area(quad: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..4 {
        let (x1, y1) = (quad[2 * i], quad[2 * i + 1]);
        let (x2, y2) = (quad[(2 * i + 2) % 8], quad[(2 * i + 3) % 8]);
        sum += x1 * y2 - x2 * y1;
    }
    (sum / 2.0).abs()
}
