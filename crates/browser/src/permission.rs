//! Permission requests (docs/acting.md#permissions): denied while the agent is alone, and reported.
//!
//! The task's browser context is created granting no permission, so Chromium denies every
//! request at once (no prompt waits). CDP has no event for a request, so each tab gets a
//! small page-side watcher (`js/permission_watch.js`) that reports requests through a
//! binding before they reach the browser. The watcher runs in the page's world, since it
//! wraps the page's own functions, so a report says only what was asked: which origin
//! asked is the browser's word, the origin of the context that called the binding.

use std::sync::{Arc, Mutex, Weak};

use cdp::protocol::{browser as cdp_browser, runtime};
use cdp::{Deadline, RawEvent};

use crate::{Browser, Error, Tab};

/// The binding the watcher reports through (the name is also in the script).
const BINDING: &str = "__candorPermissionRequest";

/// Permission names the watcher reports; anything else in a report is ignored.
const KNOWN: &[&str] = &[
    "geolocation",
    "notifications",
    "camera",
    "microphone",
    "display-capture",
    "midi",
    "clipboard-read",
    "idle-detection",
    "window-management",
    "local-fonts",
    "storage-access",
];

/// Most denials kept between two reports.
const MAX_UNREPORTED: usize = 20;

/// Most requests held for the person at once. A page asks as often as it likes; past
/// this, a request is answered at once as if no one were asked (denied, unless the
/// person granted it already), so what waits — here and in the page — stays bounded.
const MAX_PENDING: usize = 20;

/// Longest origin kept (a page chooses its origin's host name).
const MAX_ORIGIN: usize = 200;

/// A permission request that was denied.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionDenial {
    /// The tab whose page asked, e.g. `tab0`.
    pub tab: String,
    /// The permission's name as the Permissions API spells it (`geolocation`, `camera`).
    pub permission: String,
    /// The origin of the document that asked.
    pub origin: String,
}

/// A request held for the person during a hand-off.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionRequest {
    /// candor's number for it (the live view answers by it).
    pub id: u64,
    pub tab: String,
    pub permission: String,
    pub origin: String,
}

/// What the person chose for a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionChoice {
    Deny,
    /// Granted to the origin until the hand-off ends.
    Once,
    /// Granted to the origin in this hand-off and every later one of the task (while the
    /// agent is alone, requests stay denied).
    Always,
}

/// A held request and how to let it go on.
#[derive(Debug, Clone)]
struct Held {
    request: PermissionRequest,
    page_id: u64,
    session: cdp::Session,
}

/// During a hand-off, requests wait for the person (`holding`); the grants made, and the
/// choices to remember.
#[derive(Debug, Default)]
struct Gate {
    holding: bool,
    pending: Vec<Held>,
    next: u64,
    /// (origin, permission) always allowed during hand-offs.
    always: std::collections::BTreeSet<(String, String)>,
    /// What is granted now, per origin (a grant names every permission of its origin).
    granted: std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
}

/// What becomes of a request the page made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decision {
    /// Held for the person.
    Hold,
    /// Let go on to the browser, which grants it (the person allowed it).
    GoOn,
    /// Let go on to the browser, which denies it; reported.
    Deny,
}

impl Gate {
    /// What becomes of a request for `permission` by `origin`: held during a hand-off
    /// (unless the person always allows it, or [`MAX_PENDING`] wait already), denied while
    /// the agent is alone.
    fn decide(&self, origin: &str, permission: &str) -> Decision {
        if !self.holding {
            return Decision::Deny;
        }
        let granted = self
            .granted
            .get(origin)
            .is_some_and(|granted| granted.contains(permission));
        if self
            .always
            .contains(&(origin.to_string(), permission.to_string()))
        {
            Decision::GoOn
        } else if self.pending.len() < MAX_PENDING {
            Decision::Hold
        } else if granted {
            Decision::GoOn
        } else {
            Decision::Deny
        }
    }
}

/// The task's record of denied requests not yet reported, and its hand-off gate.
#[derive(Clone, Default)]
pub(crate) struct Permissions {
    unreported: Arc<Mutex<Vec<PermissionDenial>>>,
    gate: Arc<Mutex<Gate>>,
}

impl Permissions {
    /// Makes the context deny every permission to every origin.
    pub(crate) async fn deny_all(
        browser: &Browser,
        scope: Option<&str>,
        deadline: Deadline,
    ) -> Result<Permissions, Error> {
        browser
            .connection()
            .browser_session()
            .call(
                &cdp_browser::GrantPermissions {
                    permissions: Vec::new(),
                    origin: None,
                    browser_context_id: scope.map(str::to_string),
                },
                deadline,
            )
            .await?;
        Ok(Permissions::default())
    }

    /// Installs the watcher in `tab`'s future documents.
    pub(crate) async fn watch(&self, tab: &Tab, deadline: Deadline) -> Result<(), Error> {
        let session = tab.session();
        let log = Arc::downgrade(&self.unreported);
        let gate = Arc::downgrade(&self.gate);
        let label = tab.label().to_string();
        let page = session.clone();
        let origins = Mutex::default();
        session.connection().on_events(
            session.id().cloned(),
            Arc::new(move |event| follow(&log, &gate, &origins, &page, &label, event)),
        );
        let binding = runtime::AddBinding {
            name: BINDING.into(),
        };
        tokio::try_join!(
            async { Ok::<_, Error>(session.call(&binding, deadline).await?) },
            PERMISSION_WATCH.install(session, deadline)
        )?;
        Ok(())
    }

    /// The denials since the last call.
    pub(crate) fn take(&self) -> Vec<PermissionDenial> {
        std::mem::take(&mut *lock(&self.unreported))
    }
}

/// The origin of each execution context of a tab, as the browser reported it.
type Origins = Mutex<std::collections::HashMap<i64, String>>;

/// Records a watcher's report and lets the request go on — at once while the agent is
/// alone (the context grants nothing, so it is denied), or during a hand-off when the
/// person has chosen (at once for what they always allow). The origin is the one of the
/// context that reported, as the browser created it: a report from a context that is not
/// known (a document older than the watcher, where the binding is still the page's to
/// call) is let go unrecorded. Runs on the connection's reader, which also keeps
/// `origins` current. Returns false once the task is gone.
fn follow(
    log: &Weak<Mutex<Vec<PermissionDenial>>>,
    gate: &Weak<Mutex<Gate>>,
    origins: &Origins,
    session: &cdp::Session,
    tab: &str,
    event: &RawEvent,
) -> bool {
    let (Some(log), Some(gate)) = (log.upgrade(), gate.upgrade()) else {
        return false;
    };
    if let Some(created) = event.parse::<runtime::ExecutionContextCreated>() {
        let context = created.context;
        lock(origins).insert(context.id, context.origin);
        return true;
    }
    if let Some(destroyed) = event.parse::<runtime::ExecutionContextDestroyed>() {
        lock(origins).remove(&destroyed.execution_context_id);
        return true;
    }
    if event.parse::<runtime::ExecutionContextsCleared>().is_some() {
        lock(origins).clear();
        return true;
    }
    let Some(called) = event.parse::<runtime::BindingCalled>() else {
        return true;
    };
    if called.name != BINDING {
        return true;
    }
    let Ok(report) = serde_json::from_str::<serde_json::Value>(&called.payload) else {
        return true;
    };
    let page_id = report["id"].as_u64().unwrap_or(0);
    let Some(origin) = lock(origins).get(&called.execution_context_id).cloned() else {
        release(session, page_id);
        return true;
    };
    // The browser spells an opaque origin (a data: URL's, a sandboxed frame's) as
    // `://`; the page's `location.origin` says "null".
    let origin = match origin.as_str() {
        "" | "://" => "null".to_string(),
        _ => origin,
    };
    let Some(permission) = report["permission"]
        .as_str()
        .and_then(|p| KNOWN.iter().find(|known| **known == p))
    else {
        release(session, page_id);
        return true;
    };
    let origin: String = origin.chars().take(MAX_ORIGIN).collect();
    let mut gate = lock(&gate);
    let decision = if page_id == 0 {
        Decision::Deny
    } else {
        gate.decide(&origin, permission)
    };
    match decision {
        Decision::Hold => {
            gate.next += 1;
            let request = PermissionRequest {
                id: gate.next,
                tab: tab.to_string(),
                permission: permission.to_string(),
                origin,
            };
            gate.pending.push(Held {
                request,
                page_id,
                session: session.clone(),
            });
            return true;
        }
        Decision::GoOn => {
            release(session, page_id);
            return true;
        }
        Decision::Deny => {}
    }
    drop(gate);
    release(session, page_id);
    let denial = PermissionDenial {
        tab: tab.to_string(),
        permission: permission.to_string(),
        origin,
    };
    let mut unreported = lock(&log);
    // A page asking in a loop is one fact, not a flood.
    if unreported.len() < MAX_UNREPORTED && !unreported.contains(&denial) {
        unreported.push(denial);
    }
    true
}

/// Lets the page's held request `page_id` go on to the browser (sent, not awaited: this
/// runs on the reader).
fn release(session: &cdp::Session, page_id: u64) {
    if page_id == 0 {
        return;
    }
    let _ = session.send(&runtime::Evaluate {
        expression: format!("globalThis[Symbol.for('candor.permissions')]?.release({page_id})"),
        context_id: None,
        return_by_value: Some(true),
        await_promise: None,
        silent: Some(true),
    });
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Permissions {
    /// A hand-off begins: requests wait for the person; what they always allow is granted.
    pub(crate) async fn hold(
        &self,
        browser: &Browser,
        scope: Option<&str>,
        deadline: Deadline,
    ) -> Result<(), Error> {
        let origins: Vec<String> = {
            let mut gate = lock(&self.gate);
            gate.holding = true;
            let always: Vec<(String, String)> = gate.always.iter().cloned().collect();
            for (origin, permission) in always {
                gate.granted.entry(origin).or_default().insert(permission);
            }
            gate.granted.keys().cloned().collect()
        };
        for origin in origins {
            self.grant(browser, scope, &origin, deadline).await?;
        }
        Ok(())
    }

    /// The hand-off ends: every grant is taken back and what still waits goes on (to be
    /// denied).
    pub(crate) async fn unhold(
        &self,
        browser: &Browser,
        scope: Option<&str>,
        deadline: Deadline,
    ) -> Result<(), Error> {
        let (origins, pending) = {
            let mut gate = lock(&self.gate);
            gate.holding = false;
            let origins: Vec<String> = gate.granted.keys().cloned().collect();
            gate.granted.clear();
            (origins, std::mem::take(&mut gate.pending))
        };
        for origin in origins {
            self.grant(browser, scope, &origin, deadline).await?;
        }
        for held in pending {
            release(&held.session, held.page_id);
        }
        Ok(())
    }

    /// The first request waiting for the person.
    pub(crate) fn pending(&self) -> Option<PermissionRequest> {
        lock(&self.gate).pending.first().map(|h| h.request.clone())
    }

    /// The person's choice for request `id`: granted (for the hand-off, or always) or not,
    /// then the request goes on.
    pub(crate) async fn answer(
        &self,
        browser: &Browser,
        scope: Option<&str>,
        id: u64,
        choice: PermissionChoice,
        deadline: Deadline,
    ) -> Result<PermissionRequest, Error> {
        let held = {
            let mut gate = lock(&self.gate);
            let at = gate
                .pending
                .iter()
                .position(|h| h.request.id == id)
                .ok_or_else(|| Error::InvalidParams {
                    what: "permission".into(),
                    reason: format!("no permission request {id} is waiting"),
                })?;
            let held = gate.pending.remove(at);
            if choice != PermissionChoice::Deny {
                let request = &held.request;
                gate.granted
                    .entry(request.origin.clone())
                    .or_default()
                    .insert(request.permission.clone());
                if choice == PermissionChoice::Always {
                    gate.always
                        .insert((request.origin.clone(), request.permission.clone()));
                }
            }
            held
        };
        if choice != PermissionChoice::Deny {
            self.grant(browser, scope, &held.request.origin, deadline)
                .await?;
        }
        release(&held.session, held.page_id);
        Ok(held.request)
    }

    /// Sets `origin`'s grants to what the gate holds for it (none: every one refused).
    async fn grant(
        &self,
        browser: &Browser,
        scope: Option<&str>,
        origin: &str,
        deadline: Deadline,
    ) -> Result<(), Error> {
        let permissions: Vec<String> = lock(&self.gate)
            .granted
            .get(origin)
            .map(|p| p.iter().cloned().collect())
            .unwrap_or_default();
        browser
            .connection()
            .browser_session()
            .call(
                &cdp_browser::GrantPermissions {
                    permissions,
                    origin: Some(origin.to_string()),
                    browser_context_id: scope.map(str::to_string),
                },
                deadline,
            )
            .await?;
        Ok(())
    }
}

/// Reports permission requests (an init script in the page's world, whose functions it
/// wraps, answering nothing; see `permission.rs`).
pub(crate) const PERMISSION_WATCH: crate::script::Script<()> =
    crate::script::script!("permission_watch" => (), in Page);
