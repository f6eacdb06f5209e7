//! Pointer input: the point to act at (scrolled into view, hit-tested), mouse
//! clicks, drags and the wheel; taps and touch drags under a touch preset. Each press is
//! held for the run's [`PressPause`](super::PressPause) before its release.

use std::time::{Duration, Instant};

use cdp::Deadline;
use cdp::protocol::{dom, input, page};

use super::{ActOutcome, Run};
use crate::snapshot::{Located, Locator};
use crate::{Error, Tab};

/// Where else in an element's box to try, as fractions of its width and height, after
/// its centre and its own content (see `element_click_point.js`): a grid inward of the
/// edges.
const SAMPLES: [(f64, f64); 8] = [
    (0.2, 0.5),
    (0.8, 0.5),
    (0.5, 0.2),
    (0.5, 0.8),
    (0.2, 0.2),
    (0.8, 0.2),
    (0.2, 0.8),
    (0.8, 0.8),
];

/// The most a pointer action waits, unless told otherwise, for its target to become
/// actionable.
pub(crate) const DEFAULT_ACTION_TIMEOUT: Duration = Duration::from_millis(1_000);

/// How far (CSS pixels) a box may differ between two reads and still count as still.
const STILL: f64 = 0.5;

/// Where `element_click_point.js` found the element to be hit: `at`, as fractions of the
/// width and height of its box, laid on the box its quads give here.
#[derive(Debug, serde::Deserialize)]
#[serde(tag = "hit", rename_all = "camelCase")]
pub(crate) enum ClickPoint {
    /// On the element's own content, or on what delivers the click to it.
    Target { at: [f64; 2] },
    /// Another element is on top of it there (no point of it is free).
    Covered { at: [f64; 2] },
    /// No point of it is inside the viewport.
    Outside,
    /// It has no box with an area.
    NoBox,
}

/// Why one actionability check did not give a point.
enum Check {
    /// Not actionable yet (covered, not shown, moving): worth another look a frame later.
    Blocked(Blocked),
    /// Not worth waiting for (disabled, gone, the page did not answer).
    Failed(Error),
}

enum Blocked {
    /// The element is not visible (`reason`).
    Hidden(String),
    /// Another element is on top of it at this point (the frame's document
    /// coordinates, for `DOM.getNodeForLocation`).
    Covered((f64, f64)),
    /// Its box moved between two reads a frame apart.
    Moving,
}

impl From<Error> for Check {
    fn from(error: Error) -> Self {
        Check::Failed(error)
    }
}

/// An element's box: left, top, right, bottom.
type Box4 = (f64, f64, f64, f64);

fn same_box(a: Box4, b: Box4) -> bool {
    (a.0 - b.0).abs() <= STILL
        && (a.1 - b.1).abs() <= STILL
        && (a.2 - b.2).abs() <= STILL
        && (a.3 - b.3).abs() <= STILL
}

impl Run<'_> {
    /// Shown, enabled, scrolled into view, still, and hit where its own content is: the
    /// point to act at, in the page's viewport. The centre when a hit test there lands
    /// on the element or on its content; else the first line of its text, its first
    /// children (a row's first cell), a grid over its box — so a row whose centre is a
    /// column's resize handle is clicked on its text. A cover that delivers the click to
    /// the element anyway (inside it, a label whose control it is, the same shadow host:
    /// a component drawn over its own input) is no occlusion.
    ///
    /// A target that is covered, not shown yet or moving is looked at again each frame
    /// until it is actionable or the actionability budget (`Run::action_timeout`) has
    /// passed; only then is it refused, the message saying how long it waited. Nothing is
    /// dispatched before.
    ///
    /// A target actionable at once costs no wait, one page call: it is still when no
    /// finite animation or transition that moves, resizes or fades runs on it or an
    /// ancestor (`element_motion.js`; a colour transition is no reason to wait) and
    /// its box equals the box of the observation it was located in; otherwise two reads
    /// a frame apart decide (an element first scrolled into view inside a container costs
    /// that frame, and a smooth scroll is waited out). Motion a script drives frame by frame is caught only when
    /// the observation is a frame older than the read (the settle after the previous
    /// action waits such motion out). Infinite animations are not waited for; once the
    /// budget has passed, a target still moving is acted on where the hit test finds it.
    pub(super) async fn pointer_target(
        &mut self,
        target: &Located,
        locator: &Locator,
        needs_enabled: bool,
    ) -> Result<(f64, f64), Error> {
        Ok(self
            .pointer_target_located(target, locator, needs_enabled)
            .await?
            .0)
    }

    /// `pointer_target`, with the element located again on the way when it was (a
    /// virtual list's row followed to the node that shows it once scrolled to): the
    /// element the point is on.
    pub(super) async fn pointer_target_located(
        &mut self,
        target: &Located,
        locator: &Locator,
        needs_enabled: bool,
    ) -> Result<((f64, f64), Option<Located>), Error> {
        // The agent's own point: the input goes there, to whatever is there (the located
        // element is what the hit test found, so nothing covers it).
        if let Locator::Point { x, y } = locator {
            return Ok(((*x, *y), None));
        }
        // Half of what the command has left at most: a cover that stays is refused as
        // such, with time to spare, rather than by the command's own timeout.
        let budget = self.action_timeout.min(self.deadline.remaining() / 2);
        let started = Instant::now();
        // The target located again, when it was not shown and may show up.
        let mut fresh: Option<Located> = None;
        let mut last_box = None;
        let mut waited = false;
        let mut relocated_after_move = false;
        loop {
            let current = fresh.as_ref().unwrap_or(target);
            let may_wait = started.elapsed() < budget;
            let stillness = may_wait.then_some(&mut last_box);
            let blocked = match self
                .actionable_point(current, locator, needs_enabled, stillness)
                .await
            {
                Ok(point) => {
                    if waited {
                        self.actionable_wait = Some(started.elapsed());
                    }
                    return Ok((point, fresh));
                }
                Err(Check::Failed(error)) => return Err(error),
                Err(Check::Blocked(blocked)) => blocked,
            };
            if !may_wait {
                let after = waited.then(|| started.elapsed().as_millis());
                return Err(self.refusal(current, locator, blocked, after).await);
            }
            waited = true;
            self.tab
                .call_script(&ANIMATION_FRAME, Vec::new(), self.deadline)
                .await?;
            // Not shown (or its node gone, re-rendered), or moved since it was located
            // (scrolled into view: a virtual list may have recycled its node for another
            // row): what the page shows now decides which element the locator names.
            let moved_first = matches!(blocked, Blocked::Moving) && !relocated_after_move;
            if matches!(blocked, Blocked::Hidden(_)) || moved_first {
                relocated_after_move |= moved_first;
                fresh = Some(self.tab.locate(locator, self.deadline).await?);
            }
        }
    }

    /// One actionability check; with `stillness`, the box must also be still (compared
    /// with the box of the previous check, or at first with the observation's).
    async fn actionable_point(
        &self,
        target: &Located,
        locator: &Locator,
        needs_enabled: bool,
        stillness: Option<&mut Option<Box4>>,
    ) -> Result<(f64, f64), Check> {
        if !target.visible {
            return Err(Check::Blocked(Blocked::Hidden(
                "it is hidden, clipped away or has no size".into(),
            )));
        }
        if needs_enabled {
            self.require_enabled(target, locator)?;
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
        // Once it is scrolled to, its box, the page's scroll, its motion and the point to
        // press are read at once (the node resolved once for both scripts), then judged
        // in that order.
        let motion_asked = stillness.is_some();
        let on_node = async {
            let node = self
                .tab
                .resolve_node(&target.session, backend_node_id, self.deadline)
                .await?;
            let this = || crate::script::This::Object(&node.object, node.world.as_deref());
            let motion = async {
                if !motion_asked {
                    return Ok(None);
                }
                let call = crate::script::call(
                    &target.session,
                    &ELEMENT_MOTION,
                    this(),
                    Vec::new(),
                    self.deadline,
                );
                call.await.map(Some)
            };
            // One page-side pass picks the point: the element's own content (see
            // `element_click_point.js`), as fractions of its box, laid below on the box
            // the quads gave.
            let point = crate::script::call(
                &target.session,
                &ELEMENT_CLICK_POINT,
                this(),
                vec![serde_json::json!(SAMPLES)],
                self.deadline,
            );
            tokio::try_join!(motion, point)
        };
        let (frame_box, metrics, on_node) = tokio::join!(
            self.frame_box(target, locator),
            target
                .session
                .call(&page::GetLayoutMetrics {}, self.deadline),
            on_node,
        );
        let (left, top, right, bottom) = match frame_box {
            Ok(found) => found,
            Err(Error::ElementNotVisible { reason, .. }) => {
                return Err(Check::Blocked(Blocked::Hidden(reason)));
            }
            Err(other) => return Err(other.into()),
        };
        // The hit test takes document coordinates: the viewport point plus the scroll.
        let metrics = metrics.map_err(Error::from)?;
        let scroll = (
            metrics.css_visual_viewport.page_x,
            metrics.css_visual_viewport.page_y,
        );
        let (animating, reply) = on_node?;
        if let Some(last) = stillness {
            let now = (left, top, right, bottom);
            let still = match *last {
                _ if animating == Some(true) => false,
                Some(before) => same_box(before, now),
                // The observation's box is in the top-level document's coordinates,
                // comparable only for an element of the page's own session.
                None => {
                    target.session.id() == self.tab.session().id()
                        && target.node().bounds.is_some_and(|b| {
                            same_box(
                                (b.x, b.y, b.x + b.width, b.y + b.height),
                                (
                                    left + scroll.0,
                                    top + scroll.1,
                                    right + scroll.0,
                                    bottom + scroll.1,
                                ),
                            )
                        })
                }
            };
            *last = Some(now);
            if !still {
                return Err(Check::Blocked(Blocked::Moving));
            }
        }
        match reply {
            ClickPoint::Target { at } => {
                let (x, y) = laid_on(at, (left, top, right, bottom));
                let (dx, dy) = self
                    .tab
                    .frame_origin(&target.session, self.deadline)
                    .await?;
                Ok((x + dx, y + dy))
            }
            ClickPoint::Covered { at } => {
                let (x, y) = laid_on(at, (left, top, right, bottom));
                Err(Check::Blocked(Blocked::Covered((
                    x + scroll.0,
                    y + scroll.1,
                ))))
            }
            ClickPoint::Outside => Err(Check::Blocked(Blocked::Hidden(
                "no point of it is inside the viewport".into(),
            ))),
            ClickPoint::NoBox => Err(Check::Blocked(Blocked::Hidden(
                "it has no visible area".into(),
            ))),
        }
    }

    /// The refusal for a target still blocked when the budget ran out; `waited_ms` when
    /// it was waited for.
    async fn refusal(
        &self,
        target: &Located,
        locator: &Locator,
        blocked: Blocked,
        waited_ms: Option<u128>,
    ) -> Error {
        let waited = |what: &str| {
            waited_ms
                .map(|ms| format!(" (waited {ms} ms for it to {what})"))
                .unwrap_or_default()
        };
        match blocked {
            Blocked::Covered(at) => Error::ElementOccluded {
                locator: format!("{locator}{}", waited("be uncovered")),
                covering: self.cover_at(&target.session, at).await,
            },
            Blocked::Hidden(reason) => Error::ElementNotVisible {
                locator: locator.to_string(),
                reason: format!("{reason}{}", waited("show")),
            },
            // Not reached: stillness is not asked of the last check.
            Blocked::Moving => Error::ElementNotVisible {
                locator: locator.to_string(),
                reason: format!("it kept moving{}", waited("stop")),
            },
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

    /// What covers the point `at` (document coordinates of `session`'s frame), for a
    /// message.
    async fn cover_at(&self, session: &cdp::Session, (x, y): (f64, f64)) -> String {
        let hit =
            crate::snapshot::node_at(session, x.round() as i64, y.round() as i64, self.deadline)
                .await;
        match hit {
            Ok(backend_id) => self.describe(session, backend_id).await,
            Err(_) => "an element that is gone now".into(),
        }
    }

    /// `tag#id.class` (and its text) of a DOM node, for messages.
    pub(super) async fn describe(&self, session: &cdp::Session, backend_id: i64) -> String {
        // Only for a message: a node gone meanwhile is named by its id.
        self.tab
            .call_on_node(
                session,
                backend_id,
                &ELEMENT_LABEL,
                Vec::new(),
                self.deadline,
            )
            .await
            .unwrap_or_else(|_| format!("node {backend_id}"))
    }

    /// Move, then `clicks` presses (0: hover only), at viewport point (x, y); each press
    /// held for the run's press pause before its release.
    pub(super) async fn mouse(&mut self, x: f64, y: f64, clicks: i64) -> Result<(), Error> {
        let session = self.tab.session();
        // A touch preset taps: the page sees touch events (and the clicks they make).
        if clicks > 0 && self.tab.touch() {
            self.dispatched = true;
            for _ in 0..clicks {
                self.touch("touchStart", Some((x, y))).await?;
                held(self.press_pause.start(self.deadline)).await;
                self.touch("touchEnd", None).await?;
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
        // The pointer comes to the target before it presses (hover styles, `pointerover`).
        // Messages leave in order, so a press needs no wait for the move's reply; a hover
        // waits for it.
        let moved = event("mouseMoved", 0, 0);
        if clicks == 0 {
            session.call(&moved, self.deadline).await?;
        } else {
            session.send(&moved)?;
        }
        for count in 1..=clicks {
            session
                .call(&event("mousePressed", 1, count), self.deadline)
                .await?;
            held(self.press_pause.start(self.deadline)).await;
            session
                .call(&event("mouseReleased", 0, count), self.deadline)
                .await?;
        }
        Ok(())
    }

    /// Press at `from`, hold, move to `to` in steps, release there: with the mouse, or
    /// under a touch preset with one finger (`touchMove`).
    pub(super) async fn drag(&mut self, from: (f64, f64), to: (f64, f64)) -> Result<(), Error> {
        const STEPS: usize = 8;
        let step = |n: usize| {
            let t = n as f64 / STEPS as f64;
            (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t)
        };
        self.dispatched = true;
        if self.tab.touch() {
            self.touch("touchStart", Some(from)).await?;
            held(self.press_pause.start(self.deadline)).await;
            for n in 1..=STEPS {
                self.touch("touchMove", Some(step(n))).await?;
            }
            return self.touch("touchEnd", None).await;
        }
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
        session
            .call(&event("mouseMoved", from, 0), self.deadline)
            .await?;
        session
            .call(&event("mousePressed", from, 1), self.deadline)
            .await?;
        held(self.press_pause.start(self.deadline)).await;
        for n in 1..=STEPS {
            session
                .call(&event("mouseMoved", step(n), 1), self.deadline)
                .await?;
        }
        session
            .call(&event("mouseReleased", to, 0), self.deadline)
            .await?;
        Ok(())
    }

    /// One touch event: a finger at `point`, or none (`touchEnd`).
    async fn touch(&self, kind: &str, point: Option<(f64, f64)>) -> Result<(), Error> {
        self.tab
            .session()
            .call(
                &input::DispatchTouchEvent {
                    r#type: kind.into(),
                    touch_points: point
                        .map(|(x, y)| input::TouchPoint { x, y })
                        .into_iter()
                        .collect(),
                },
                self.deadline,
            )
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
        let ScrollPosition { x, y } = self
            .tab
            .call_script(&SCROLL_POSITION, Vec::new(), self.deadline)
            .await?;
        Ok((x, y))
    }
}

/// The page's scroll position in CSS pixels (`scroll_position.js`).
#[derive(Debug, Clone, Copy, serde::Deserialize)]
pub(crate) struct ScrollPosition {
    pub x: f64,
    pub y: f64,
}

/// A point the page gave as fractions of the element's box, on the box its quads give
/// here: the same spot of the element whatever frame, scroll or scale lies between.
fn laid_on([fx, fy]: [f64; 2], (left, top, right, bottom): Box4) -> (f64, f64) {
    (left + (right - left) * fx, top + (bottom - top) * fy)
}

/// Waits out a press's hold, if it has one.
async fn held(hold: Option<tokio::time::Sleep>) {
    if let Some(hold) = hold {
        hold.await;
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

/// On a node: `tag#id.class "text"`, for messages.
pub(crate) const ELEMENT_LABEL: crate::script::Script<String> =
    crate::script::script!("element_label" => String);
/// `{x, y}`: the page's scroll position.
pub(crate) const SCROLL_POSITION: crate::script::Script<crate::actions::ScrollPosition> =
    crate::script::script!("scroll_position" => crate::actions::ScrollPosition);
/// `true` at the next animation frame (`false` after 50 ms without one): the pause
/// between two actionability checks.
pub(crate) const ANIMATION_FRAME: crate::script::Script<bool> =
    crate::script::script!("animation_frame" => bool);
/// On an element: where to click it (its own content, see `actions/pointer.rs`), or what
/// covers it.
pub(crate) const ELEMENT_CLICK_POINT: crate::script::Script<crate::actions::ClickPoint> =
    crate::script::script!("element_click_point" => crate::actions::ClickPoint);
/// On an element: whether a finite animation or transition that moves, resizes or fades
/// runs on it or an ancestor.
pub(crate) const ELEMENT_MOTION: crate::script::Script<bool> =
    crate::script::script!("element_motion" => bool);

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::script;

    /// The grid goes to the page as pairs of fractions, as the script reads them.
    #[test]
    fn the_sample_grid_goes_to_the_page_as_pairs_of_fractions() {
        let sent = json!(SAMPLES);
        assert_eq!(sent[0], json!([0.2, 0.5]));
        assert_eq!(sent.as_array().map(Vec::len), Some(8));
        assert!(
            SAMPLES.iter().all(|&(x, y)| (x, y) != (0.5, 0.5)),
            "the centre is the script's own first candidate"
        );
    }

    /// Each answer of the click point decodes as its kind; a point without its place
    /// fails by the script's name.
    #[test]
    fn a_click_point_reply_decodes_by_what_was_hit() {
        let decode = |value| script::decode(&ELEMENT_CLICK_POINT, value);
        assert!(matches!(
            decode(json!({"hit": "target", "at": [0.1, 0.5]})),
            Ok(ClickPoint::Target { at: [0.1, 0.5] })
        ));
        assert!(matches!(
            decode(json!({"hit": "covered", "at": [0.5, 0.5]})),
            Ok(ClickPoint::Covered { .. })
        ));
        assert!(matches!(
            decode(json!({"hit": "outside"})),
            Ok(ClickPoint::Outside)
        ));
        assert!(matches!(
            decode(json!({"hit": "noBox"})),
            Ok(ClickPoint::NoBox)
        ));
        assert!(matches!(
            decode(json!({"hit": "target"})),
            Err(Error::ScriptReply {
                script: "element_click_point",
                ..
            })
        ));
    }

    /// Fractions of the element's box land on the same spot of the box its quads give,
    /// wherever that box is and however it is scaled (a zoomed frame).
    #[test]
    fn a_page_point_lands_on_the_same_spot_of_the_elements_box() {
        let row = (10.0, 100.0, 410.0, 126.0);
        assert_eq!(laid_on([0.5, 0.5], row), (210.0, 113.0));
        assert_eq!(laid_on([0.05, 0.5], row), (30.0, 113.0));
        let zoomed = (20.0, 200.0, 820.0, 252.0);
        assert_eq!(laid_on([0.05, 0.5], zoomed), (60.0, 226.0));
    }
}
