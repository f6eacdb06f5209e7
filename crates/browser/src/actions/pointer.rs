//! Pointer input: the point to act at (scrolled into view, hit-tested), mouse
//! clicks, drags and the wheel.

use std::time::{Duration, Instant};

use cdp::Deadline;
use cdp::protocol::{dom, input, page};

use super::{ActOutcome, Run};
use crate::script;
use crate::snapshot::{Located, Locator};
use crate::{Error, Tab};

/// Where in an element's box to try, as fractions of its width and height: the centre
/// first, then a grid inward of the edges.
const SAMPLES: [(f64, f64); 9] = [
    (0.5, 0.5),
    (0.2, 0.5),
    (0.8, 0.5),
    (0.5, 0.2),
    (0.5, 0.8),
    (0.2, 0.2),
    (0.8, 0.2),
    (0.2, 0.8),
    (0.8, 0.8),
];

/// What a hit test found.
enum Hit {
    Target,
    Other(i64),
    Nothing,
}

impl Run<'_> {
    /// Shown, enabled, scrolled into view, and hit at its centre: the point to act at,
    /// in the page's viewport.
    pub(super) async fn pointer_target(
        &mut self,
        target: &Located,
        locator: &Locator,
        needs_enabled: bool,
    ) -> Result<(f64, f64), Error> {
        if needs_enabled {
            self.require_enabled(target, locator)?;
        } else {
            self.require_shown(target, locator)?;
        }
        let backend_node_id = target.backend_id;
        // Scrolling fails for nodes without a layout box; the quads say what is there.
        let _ = target
            .session
            .call(
                &dom::ScrollIntoViewIfNeeded { backend_node_id },
                self.deadline,
            )
            .await;
        let (left, top, right, bottom) = self.frame_box(target, locator).await?;
        // The hit test takes document coordinates: the viewport point plus the scroll.
        let metrics = target
            .session
            .call(&page::GetLayoutMetrics {}, self.deadline)
            .await?;
        let scroll = (
            metrics.css_visual_viewport.page_x,
            metrics.css_visual_viewport.page_y,
        );
        // The visible centre: the box's centre if it is uncovered, else the first
        // uncovered point of a grid over the box (an element partly under another).
        let mut first_cover = None;
        for (fx, fy) in SAMPLES {
            let (x, y) = (left + (right - left) * fx, top + (bottom - top) * fy);
            match self.hit_at(target, x, y, scroll).await? {
                Hit::Target => {
                    let (dx, dy) = self
                        .tab
                        .frame_origin(&target.session, self.deadline)
                        .await?;
                    return Ok((x + dx, y + dy));
                }
                Hit::Other(cover) => {
                    first_cover.get_or_insert(cover);
                }
                Hit::Nothing => {}
            }
        }
        match first_cover {
            Some(cover) => Err(Error::ElementOccluded {
                locator: locator.to_string(),
                covering: self.describe(&target.session, cover).await,
            }),
            None => Err(Error::ElementNotVisible {
                locator: locator.to_string(),
                reason: "no point of it is inside the viewport".into(),
            }),
        }
    }

    /// The axis-aligned box of the element's first visible quad, in its frame's viewport.
    async fn frame_box(
        &self,
        target: &Located,
        locator: &Locator,
    ) -> Result<(f64, f64, f64, f64), Error> {
        let quads = target
            .session
            .call(
                &dom::GetContentQuads {
                    backend_node_id: target.backend_id,
                },
                self.deadline,
            )
            .await
            .map_err(|e| Error::ElementNotVisible {
                locator: locator.to_string(),
                reason: format!("it has no box on screen ({e})"),
            })?;
        quads
            .quads
            .iter()
            .find(|q| q.len() == 8 && area(q) >= 1.0)
            .map(|q| {
                let xs = [q[0], q[2], q[4], q[6]];
                let ys = [q[1], q[3], q[5], q[7]];
                (
                    xs.iter().copied().fold(f64::MAX, f64::min),
                    ys.iter().copied().fold(f64::MAX, f64::min),
                    xs.iter().copied().fold(f64::MIN, f64::max),
                    ys.iter().copied().fold(f64::MIN, f64::max),
                )
            })
            .ok_or_else(|| Error::ElementNotVisible {
                locator: locator.to_string(),
                reason: "it has no visible area".into(),
            })
    }

    /// The centre of the element's visible box in its own frame's viewport.
    pub(super) async fn frame_point(
        &self,
        target: &Located,
        locator: &Locator,
    ) -> Result<(f64, f64), Error> {
        let (left, top, right, bottom) = self.frame_box(target, locator).await?;
        Ok(((left + right) / 2.0, (top + bottom) / 2.0))
    }

    pub(super) async fn point_of(&self, target: &Located) -> Result<(f64, f64), Error> {
        let _ = target
            .session
            .call(
                &dom::ScrollIntoViewIfNeeded {
                    backend_node_id: target.backend_id,
                },
                self.deadline,
            )
            .await;
        let (x, y) = self
            .frame_point(
                target,
                &Locator::Selector {
                    selector: "drop target".into(),
                    nth: None,
                },
            )
            .await?;
        let (dx, dy) = self
            .tab
            .frame_origin(&target.session, self.deadline)
            .await?;
        Ok((x + dx, y + dy))
    }

    /// The element at the point must be the target or inside it (a `::before` or
    /// `::after` counts as its host; a label that wraps the target forwards to it).
    /// What is hit at viewport point (`x`, `y`): the target (or inside it: a `::before`
    /// or `::after` counts as its host; a label around the target forwards to it),
    /// something else, or nothing.
    async fn hit_at(
        &self,
        target: &Located,
        x: f64,
        y: f64,
        scroll: (f64, f64),
    ) -> Result<Hit, Error> {
        let hit = target
            .session
            .call(
                &dom::GetNodeForLocation {
                    x: (x + scroll.0).round() as i64,
                    y: (y + scroll.1).round() as i64,
                    include_user_agent_shadow_dom: false,
                    ignore_pointer_events_none: false,
                },
                self.deadline,
            )
            .await;
        let Ok(hit) = hit else {
            return Ok(Hit::Nothing);
        };
        let observation = &target.observation;
        let session = target.node().session;
        if observation.dom_contains(session, target.backend_id, hit.backend_node_id) {
            return Ok(Hit::Target);
        }
        if observation.dom_contains(session, hit.backend_node_id, target.backend_id) {
            let described = target
                .session
                .call(
                    &dom::DescribeNode {
                        backend_node_id: hit.backend_node_id,
                    },
                    self.deadline,
                )
                .await;
            if described.is_ok_and(|d| d.node.node_name.eq_ignore_ascii_case("label")) {
                return Ok(Hit::Target);
            }
        }
        Ok(Hit::Other(hit.backend_node_id))
    }

    /// `tag#id.class` (and its text) of a DOM node, for messages.
    pub(super) async fn describe(&self, session: &cdp::Session, backend_id: i64) -> String {
        let value = self
            .tab
            .call_on_node(
                session,
                backend_id,
                &script::ELEMENT_LABEL,
                Vec::new(),
                self.deadline,
            )
            .await;
        value
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| format!("node {backend_id}"))
    }

    /// Move, then `clicks` presses (0: hover only), at viewport point (x, y).
    pub(super) async fn mouse(&mut self, x: f64, y: f64, clicks: i64) -> Result<(), Error> {
        let session = self.tab.session();
        // A touch preset taps: the page sees touch events (and the clicks they make).
        if clicks > 0 && self.tab.touch() {
            self.dispatched = true;
            for _ in 0..clicks {
                for (kind, points) in [
                    ("touchStart", vec![input::TouchPoint { x, y }]),
                    ("touchEnd", Vec::new()),
                ] {
                    session
                        .call(
                            &input::DispatchTouchEvent {
                                r#type: kind.into(),
                                touch_points: points,
                            },
                            self.deadline,
                        )
                        .await?;
                }
            }
            return Ok(());
        }
        let event = |kind: &str, buttons: i64, click_count: i64| input::DispatchMouseEvent {
            r#type: kind.to_string(),
            x,
            y,
            button: Some(if kind == "mouseMoved" { "none" } else { "left" }.to_string()),
            buttons: Some(buttons),
            click_count: (kind != "mouseMoved").then_some(click_count),
            ..Default::default()
        };
        self.dispatched = true;
        session
            .call(&event("mouseMoved", 0, 0), self.deadline)
            .await?;
        for count in 1..=clicks {
            session
                .call(&event("mousePressed", 1, count), self.deadline)
                .await?;
            session
                .call(&event("mouseReleased", 0, count), self.deadline)
                .await?;
        }
        Ok(())
    }

    pub(super) async fn drag(&mut self, from: (f64, f64), to: (f64, f64)) -> Result<(), Error> {
        let session = self.tab.session();
        let event = |kind: &str, (x, y): (f64, f64), buttons: i64| input::DispatchMouseEvent {
            r#type: kind.to_string(),
            x,
            y,
            button: Some("left".into()),
            buttons: Some(buttons),
            click_count: (kind != "mouseMoved").then_some(1),
            ..Default::default()
        };
        self.dispatched = true;
        session
            .call(&event("mouseMoved", from, 0), self.deadline)
            .await?;
        session
            .call(&event("mousePressed", from, 1), self.deadline)
            .await?;
        const STEPS: usize = 8;
        for step in 1..=STEPS {
            let t = step as f64 / STEPS as f64;
            let point = (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t);
            session
                .call(&event("mouseMoved", point, 1), self.deadline)
                .await?;
        }
        session
            .call(&event("mouseReleased", to, 0), self.deadline)
            .await?;
        Ok(())
    }

    /// Mouse wheel at the viewport's centre, then the scroll position once it moved.
    pub(super) async fn wheel(&mut self, dx: f64, dy: f64) -> Result<ActOutcome, Error> {
        let before = self.scroll_position().await?;
        let metrics = self
            .tab
            .session()
            .call(&page::GetLayoutMetrics {}, self.deadline)
            .await?;
        let (x, y) = (
            metrics.css_visual_viewport.client_width / 2.0,
            metrics.css_visual_viewport.client_height / 2.0,
        );
        self.dispatched = true;
        self.tab
            .session()
            .call(
                &input::DispatchMouseEvent {
                    r#type: "mouseWheel".into(),
                    x,
                    y,
                    delta_x: Some(dx),
                    delta_y: Some(dy),
                    ..Default::default()
                },
                self.deadline,
            )
            .await?;
        // Wheel scrolling is applied asynchronously: read until it moved (or a short
        // bound passes — a page at its end does not move).
        let started = Instant::now();
        let mut after = self.scroll_position().await?;
        while after == before
            && started.elapsed() < Duration::from_millis(300)
            && !self.deadline.expired()
        {
            after = self.scroll_position().await?;
        }
        Ok(ActOutcome {
            point: Some((x, y)),
            scroll: Some(after),
            ..ActOutcome::default()
        })
    }

    pub(super) async fn scroll_position(&self) -> Result<(f64, f64), Error> {
        let value = self
            .tab
            .call_script(&script::SCROLL_POSITION, Vec::new(), self.deadline)
            .await?;
        Ok((
            value["x"].as_f64().unwrap_or_default(),
            value["y"].as_f64().unwrap_or_default(),
        ))
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

impl Tab {
    /// Where a frame's viewport starts in the page's viewport: (0, 0) for the page's own
    /// session; for an out-of-process frame, its iframe element's content box.
    pub(crate) async fn frame_origin(
        &self,
        frame_session: &cdp::Session,
        deadline: Deadline,
    ) -> Result<(f64, f64), Error> {
        if frame_session.id() == self.session().id() {
            return Ok((0.0, 0.0));
        }
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
}
