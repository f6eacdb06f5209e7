//! Permission requests (SPEC §9.4): denied while the agent is alone, and reported.
//!
//! The task's browser context is created granting no permission, so Chromium denies every
//! request at once (no prompt waits). CDP has no event for a request, so each tab gets a
//! small page-side watcher (`js/permission_watch.js`) that reports requests through a
//! binding before they reach the browser.

use std::sync::{Arc, Mutex, Weak};

use cdp::protocol::{browser as cdp_browser, page, runtime};
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

/// Longest origin kept from a report (it comes from the page).
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

/// The task's record of denied requests not yet reported.
#[derive(Clone, Default)]
pub(crate) struct Permissions {
    unreported: Arc<Mutex<Vec<PermissionDenial>>>,
}

impl Permissions {
    /// Makes the context deny every permission to every origin.
    pub(crate) async fn deny_all(
        browser: &Browser,
        context_id: &str,
        deadline: Deadline,
    ) -> Result<Permissions, Error> {
        browser
            .connection()
            .browser_session()
            .call(
                &cdp_browser::GrantPermissions {
                    permissions: Vec::new(),
                    origin: None,
                    browser_context_id: Some(context_id.to_string()),
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
        let label = tab.label().to_string();
        session.connection().on_events(
            session.id().cloned(),
            Arc::new(move |event| follow(&log, &label, event)),
        );
        let binding = runtime::AddBinding {
            name: BINDING.into(),
        };
        let script = page::AddScriptToEvaluateOnNewDocument {
            source: crate::script::PERMISSION_WATCH.init_source(),
        };
        tokio::try_join!(
            session.call(&binding, deadline),
            session.call(&script, deadline)
        )?;
        Ok(())
    }

    /// The denials since the last call.
    pub(crate) fn take(&self) -> Vec<PermissionDenial> {
        std::mem::take(&mut *self.unreported.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Records a watcher's report; runs on the connection's reader. Returns false once the
/// task is gone.
fn follow(log: &Weak<Mutex<Vec<PermissionDenial>>>, tab: &str, event: &RawEvent) -> bool {
    let Some(log) = log.upgrade() else {
        return false;
    };
    let Some(called) = event.parse::<runtime::BindingCalled>() else {
        return true;
    };
    if called.name != BINDING {
        return true;
    }
    let Ok(report) = serde_json::from_str::<serde_json::Value>(&called.payload) else {
        return true;
    };
    let Some(permission) = report["permission"]
        .as_str()
        .and_then(|p| KNOWN.iter().find(|known| **known == p))
    else {
        return true;
    };
    let origin: String = report["origin"]
        .as_str()
        .unwrap_or_default()
        .chars()
        .take(MAX_ORIGIN)
        .collect();
    let denial = PermissionDenial {
        tab: tab.to_string(),
        permission: permission.to_string(),
        origin,
    };
    let mut unreported = log.lock().unwrap_or_else(|e| e.into_inner());
    // A page asking in a loop is one fact, not a flood.
    if unreported.len() < MAX_UNREPORTED && !unreported.contains(&denial) {
        unreported.push(denial);
    }
    true
}
