//! The JavaScript worlds candor's page-side scripts run in (see ARCHITECTURE.md, "Worlds").
//!
//! A page can redefine anything in its own world (`JSON.stringify`,
//! `HTMLInputElement.prototype.value`, `Element.prototype.getAttribute`) and so change
//! what a script running there reads back. candor's reads, read-backs, verifications,
//! checkpoints and watchers run in an isolated world of candor's own instead: the same DOM,
//! the browser's own globals and prototypes. Each script declares its world
//! (`script::World`); only what must see the page's own functions runs in the page's.
//!
//! Each document has its own context of candor's world. The main frame's comes with the
//! document (`settle.rs` installs candor's change watcher in that world as an init script,
//! so every new document has it before the page's scripts run) and is followed from
//! `Runtime.executionContextCreated` (`PageState::candor_context`); a document older than
//! the init script gets one made on first use (`Page.createIsolatedWorld`, one round
//! trip; asking again for the same name gives the same world). An out-of-process frame's
//! session has no context events, so its world is made on first use and kept until a
//! call finds it gone. A node is resolved into the world of its session's frame; one in a
//! same-process frame of another origin, which that world may not reach, into its own
//! frame's.
//!
//! Context ids are not unique across processes: after a cross-process navigation, a new
//! document's context (of the page's world) can have the id an old one of candor's had.
//! Calls on a context name it by CDP's unique id where known; a node resolved by id counts
//! only if the id is still candor's when the answer comes (events are applied before any
//! later reply is delivered).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use cdp::protocol::{dom, page};
use cdp::{Deadline, Session, SessionId};
use serde_json::Value;

use crate::script::{self, Context, Script, This, World};
use crate::{Error, Tab};

/// How long a page-side read may take before the page counts as unverified — or the
/// tab's probe budget (`unresponsiveMs`, the agent's patience with the page), when that
/// is longer: a read of a huge page on a loaded machine can take as long as the page is
/// given to answer. A read also never takes more than three quarters of what is left of
/// its command, so a page that does not answer is reported as such (`PageUnverified`)
/// rather than as a timeout.
const PAGE_READ_BUDGET: Duration = Duration::from_secs(10);

/// candor's world in each out-of-process frame: (its session, the context), made on first
/// use.
#[derive(Debug, Default)]
pub(crate) struct FrameWorlds(Mutex<Vec<(SessionId, i64)>>);

impl FrameWorlds {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(SessionId, i64)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A call named a context that is gone (its document was replaced).
fn context_gone(error: &Error) -> bool {
    matches!(error, Error::Protocol { message, .. }
        if message.contains("Cannot find context") || message.contains("uniqueContextId not found"))
}

/// A DOM node resolved as an object of candor's world: its remote object id, and which
/// context of candor's world holds it (a hint for [`crate::script`]'s installed
/// functions), when known.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    pub object: String,
    pub world: Option<String>,
}

/// The name of context `context` of `session` for [`Resolved::world`].
pub(crate) fn world_key(session: &Session, context: i64) -> String {
    let session = session.id().map_or("", |id| id.0.as_str());
    format!("{session}#{context}")
}

impl Tab {
    /// How long a page-side read may take (see [`PAGE_READ_BUDGET`]).
    fn read_budget(&self) -> Duration {
        PAGE_READ_BUDGET.max(self.unresponsive_budget())
    }

    /// Calls a page-side script in the main frame, in the script's world, with JSON
    /// arguments, and returns its decoded reply. A page that does not answer within its
    /// read budget is marked unverified and reported as such.
    pub(crate) async fn call_script<R: serde::de::DeserializeOwned>(
        &self,
        script: &Script<R>,
        arguments: Vec<Value>,
        deadline: Deadline,
    ) -> Result<R, Error> {
        self.check_usable()?;
        let started = Instant::now();
        let read_deadline = deadline.within(self.read_budget().min(deadline.remaining() * 3 / 4));

        let mut stale = None;
        for _attempt in 0..2 {
            let context = self
                .context_of(script.world, stale, read_deadline, started)
                .await
                .map_err(|e| self.unverified_after(e, deadline, started))?;
            self.check_usable()?;
            let Some(context) = context else {
                continue;
            };
            let called = script::call(
                &self.shared.session,
                script,
                This::Context(&context),
                arguments.clone(),
                read_deadline,
            )
            .await;
            match called {
                Ok(reply) => {
                    self.update(|s| s.unverified = false);
                    return Ok(reply);
                }
                // The document changed between our reading the context and the call.
                Err(error) if context_gone(&error) => stale = Some(context.id),
                Err(err @ (Error::Script { .. } | Error::ScriptReply { .. })) => {
                    self.update(|s| s.unverified = false);
                    return Err(err);
                }
                Err(err) => return Err(self.unverified_after(err, deadline, started)),
            }
        }
        Err(self.unverified_after(
            Error::Timeout {
                waiting_for: "a stable JavaScript context".into(),
                after: started.elapsed(),
            },
            deadline,
            started,
        ))
    }

    /// The main frame's context of `world` once its document has one other than `stale`
    /// (candor's made if the document has none); `None` when the tab crashed or closed
    /// meanwhile.
    async fn context_of(
        &self,
        world: World,
        stale: Option<i64>,
        deadline: Deadline,
        started: Instant,
    ) -> Result<Option<Context>, Error> {
        let state = self
            .wait_state("a JavaScript context", deadline, started, |s| {
                let current = match world {
                    World::Page => s.main_context,
                    World::Candor => s.candor_context.as_ref().map(|c| c.id),
                };
                // A document with no context of candor's world (one older than the init
                // script, such as a new tab's first blank page) gets one made below.
                let usable = match world {
                    World::Page => current != stale,
                    World::Candor => current.is_none() || current != stale,
                };
                s.crashed || s.closed || s.main_context.is_some() && usable
            })
            .await?;
        if state.crashed || state.closed {
            return Ok(None);
        }
        match world {
            World::Page => Ok(state.main_context.map(|id| Context { id, unique: None })),
            World::Candor => match state.candor_context {
                Some(context) => Ok(Some(context)),
                None => self.make_world(&state.main_frame, deadline).await.map(Some),
            },
        }
    }

    /// candor's world in the main frame's current document, for a document older than the
    /// init script that gives every new one its world.
    async fn make_world(&self, frame: &str, deadline: Deadline) -> Result<Context, Error> {
        let made = self
            .session()
            .call(&create_world(frame), deadline)
            .await?
            .execution_context_id;
        // The context's creation was reported before the reply, with its unique id.
        Ok(match self.state().candor_context {
            Some(context) if context.id == made => context,
            _ => Context {
                id: made,
                unique: None,
            },
        })
    }

    /// The main frame's context of candor's world now, made if its document has none; `None`
    /// while there is no document to make it in.
    pub(crate) async fn candor_context_now(
        &self,
        deadline: Deadline,
    ) -> Result<Option<Context>, Error> {
        let state = self.state();
        match (state.candor_context, state.main_context) {
            (Some(context), _) => Ok(Some(context)),
            (None, Some(_)) => self.make_world(&state.main_frame, deadline).await.map(Some),
            (None, None) => Ok(None),
        }
    }

    /// The DOM node `backend_id` of `session` as an object of candor's world, for a script
    /// to run on (element scripts never run in the page's world).
    pub(crate) async fn resolve_node(
        &self,
        session: &Session,
        backend_id: i64,
        deadline: Deadline,
    ) -> Result<Resolved, Error> {
        let gone = || Error::ElementNotFound {
            locator: format!("node {backend_id}"),
            reason: "it is no longer in the page".into(),
        };
        let mut stale = None;
        for _attempt in 0..2 {
            let context = self.session_world(session, stale, deadline).await?;
            let resolved = session
                .call(
                    &dom::ResolveNode {
                        backend_node_id: backend_id,
                        execution_context_id: Some(context),
                    },
                    deadline,
                )
                .await
                .map_err(Error::from);
            match resolved {
                Ok(resolved) => match resolved.object.object_id {
                    // Still candor's when the answer came: the id named no other world.
                    Some(object) if self.is_candor_context(session, context) => {
                        return Ok(Resolved {
                            object,
                            world: Some(world_key(session, context)),
                        });
                    }
                    Some(_) => stale = Some(context),
                    // A node this world may not reach: in a same-process frame of
                    // another origin.
                    None => {
                        let object = self
                            .resolve_in_frames(session, backend_id, deadline)
                            .await?
                            .ok_or_else(gone)?;
                        return Ok(Resolved {
                            object,
                            world: None,
                        });
                    }
                },
                Err(error) if context_gone(&error) => {
                    self.forget_world(session, context);
                    stale = Some(context);
                }
                Err(error) => return Err(error),
            }
        }
        Err(Error::Timeout {
            waiting_for: "a stable JavaScript context".into(),
            after: Duration::ZERO,
        })
    }

    /// The context of candor's world in `session`'s frame: the main frame's, or an
    /// out-of-process frame's (made on first use), other than `stale`.
    async fn session_world(
        &self,
        session: &Session,
        stale: Option<i64>,
        deadline: Deadline,
    ) -> Result<i64, Error> {
        if session.id() == self.session().id() {
            let read_deadline =
                deadline.within(self.read_budget().min(deadline.remaining() * 3 / 4));
            let context = self
                .context_of(World::Candor, stale, read_deadline, Instant::now())
                .await
                .map_err(|e| self.unverified_after(e, deadline, Instant::now()))?;
            self.check_usable()?;
            return context.map(|c| c.id).ok_or(Error::Disconnected);
        }
        let id = session.id().cloned();
        let (frame, known) = {
            let state = self.state();
            let frame = state
                .child_frames
                .iter()
                .find(|(_, s)| Some(s) == id.as_ref())
                .map(|(frame, _)| frame.clone());
            let mut worlds = self.shared.frame_worlds.lock();
            worlds.retain(|(s, _)| state.child_frames.iter().any(|(_, c)| c == s));
            let known = worlds
                .iter()
                .find(|(s, _)| Some(s) == id.as_ref())
                .map(|(_, context)| *context);
            (frame, known)
        };
        let frame = frame.ok_or_else(|| Error::Protocol {
            method: "Page.createIsolatedWorld".into(),
            message: "the frame is no longer attached".into(),
        })?;
        if let Some(context) = known.filter(|c| Some(*c) != stale) {
            return Ok(context);
        }
        let made = session
            .call(&create_world(&frame), deadline)
            .await?
            .execution_context_id;
        if let Some(id) = id {
            let mut worlds = self.shared.frame_worlds.lock();
            worlds.retain(|(s, _)| *s != id);
            worlds.push((id, made));
        }
        Ok(made)
    }

    /// Whether `context` is candor's world in `session` as far as events tell (an
    /// out-of-process frame's session has none: its contexts are numbered by its own
    /// process, which it never changes).
    fn is_candor_context(&self, session: &Session, context: i64) -> bool {
        session.id() != self.session().id()
            || self.state().candor_context.map(|c| c.id) == Some(context)
    }

    fn forget_world(&self, session: &Session, context: i64) {
        let id = session.id().cloned();
        self.shared
            .frame_worlds
            .lock()
            .retain(|(s, c)| !(Some(s) == id.as_ref() && *c == context));
    }

    /// `backend_id` resolved in candor's world of each frame of `session` but its main one
    /// (a node of a same-process frame of another origin); `None` when none holds it.
    async fn resolve_in_frames(
        &self,
        session: &Session,
        backend_id: i64,
        deadline: Deadline,
    ) -> Result<Option<String>, Error> {
        let tree = session.call(&page::GetFrameTree {}, deadline).await?;
        let mut frames = Vec::new();
        let mut pending: Vec<&page::FrameTree> = tree.frame_tree.child_frames.iter().collect();
        while let Some(tree) = pending.pop() {
            frames.push(tree.frame.id.clone());
            pending.extend(tree.child_frames.iter());
        }
        for frame in frames {
            // Made just now in this process: its id names nothing else.
            let Ok(made) = session.call(&create_world(&frame), deadline).await else {
                continue;
            };
            let resolved = session
                .call(
                    &dom::ResolveNode {
                        backend_node_id: backend_id,
                        execution_context_id: Some(made.execution_context_id),
                    },
                    deadline,
                )
                .await;
            if let Some(object) = resolved.ok().and_then(|r| r.object.object_id) {
                return Ok(Some(object));
            }
        }
        Ok(None)
    }

    /// A read that timed out before the command's own deadline means the page did not
    /// answer: it becomes `PageUnverified` and the tab is marked so.
    pub(crate) fn unverified_after(
        &self,
        err: Error,
        deadline: Deadline,
        started: Instant,
    ) -> Error {
        match err {
            Error::Timeout { .. } if !deadline.expired() => {
                self.update(|s| s.unverified = true);
                Error::PageUnverified {
                    tab: self.label().to_string(),
                    after: started.elapsed(),
                }
            }
            Error::Timeout { .. } => {
                self.update(|s| s.unverified = true);
                err
            }
            other => other,
        }
    }
}

/// `Page.createIsolatedWorld` for candor's world in `frame`. Universal access lets its
/// scripts read what the page's own world could (a same-origin frame's document).
fn create_world(frame: &str) -> page::CreateIsolatedWorld {
    page::CreateIsolatedWorld {
        frame_id: frame.to_string(),
        world_name: World::CANDOR_NAME.into(),
        grant_univeral_access: true,
    }
}
