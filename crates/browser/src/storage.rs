//! A task's cookies and web storage, read and written whole: what a saved state keeps
//! (`tools`' `state` tool, docs/security.md#saved-state). Cookies are the browser
//! context's (`Storage.getCookies`/`setCookies` with its id: every origin's, `HttpOnly`
//! ones included); storage is that of the origins the task's tabs show, read page-side in
//! candor's world (`js/storage_read.js`).
//!
//! Writing an origin's storage needs a document of that origin. A tab showing it takes
//! localStorage and sessionStorage alike. Otherwise a blank page of the origin is made in a
//! page of the task's context candor opens for the purpose: its one request is answered by
//! candor (`Fetch.fulfillRequest`, an empty document), so nothing reaches the site and no
//! site script runs; localStorage is written there and the page closed. sessionStorage
//! belongs to one tab and would go with that page, so it is not written then: the answer
//! counts it as left out (`StorageWritten::session_left`).
//!
//! What is read or written is never part of this crate's errors or logs; its values pass
//! the connection under `secretItems`, which every recorder redacts.

use std::time::Instant;

use cdp::protocol::{fetch, page, storage, target};
use cdp::{Deadline, Session};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::Error;
use crate::script::{self, Context, This, script};
use crate::task::{TabId, Task};

/// A cookie of the task's context, as a saved state keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct Cookie {
    pub name: String,
    pub value: String,
    pub domain: String,
    pub path: String,
    /// Seconds since the epoch; `None` for a session cookie.
    pub expires: Option<f64>,
    pub http_only: bool,
    pub secure: bool,
    /// `Strict`, `Lax` or `None`, when the cookie set one.
    pub same_site: Option<String>,
}

/// The web storage of one origin: `[key, value]` pairs in the order the page lists them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OriginStorage {
    /// `scheme://host[:port]`.
    pub origin: String,
    pub local: Vec<(String, String)>,
    pub session: Vec<(String, String)>,
}

/// What writing one origin's storage did.
#[derive(Debug, Clone, PartialEq)]
pub struct StorageWritten {
    pub origin: String,
    /// localStorage items set.
    pub local: usize,
    /// sessionStorage items set.
    pub session: usize,
    /// The tab that showed the origin and took them; `None`: a blank page of the origin.
    pub tab: Option<TabId>,
    /// sessionStorage items not set: no tab showed the origin.
    pub session_left: usize,
}

impl Task {
    /// Every cookie of the task's browser context.
    pub async fn cookies(&self, deadline: Deadline) -> Result<Vec<Cookie>, Error> {
        let reply = self
            .browser()
            .connection()
            .browser_session()
            .call(
                &storage::GetCookies {
                    browser_context_id: self.context_scope(),
                },
                deadline,
            )
            .await?;
        Ok(reply
            .cookies
            .into_iter()
            .map(|c| Cookie {
                expires: (!c.session && c.expires > 0.0).then_some(c.expires),
                name: c.name,
                value: c.value,
                domain: c.domain,
                path: c.path,
                http_only: c.http_only,
                secure: c.secure,
                same_site: c.same_site,
            })
            .collect())
    }

    /// Sets `cookies` in the task's browser context (a cookie of the same name, domain
    /// and path is replaced).
    pub async fn set_cookies(&self, cookies: &[Cookie], deadline: Deadline) -> Result<(), Error> {
        let cookies = cookies
            .iter()
            .map(|c| storage::CookieParam {
                name: c.name.clone(),
                value: c.value.clone(),
                domain: c.domain.clone(),
                path: c.path.clone(),
                secure: c.secure,
                http_only: c.http_only,
                same_site: c.same_site.clone(),
                expires: c.expires,
            })
            .collect();
        self.browser()
            .connection()
            .browser_session()
            .call(
                &storage::SetCookies {
                    cookies,
                    browser_context_id: self.context_scope(),
                },
                deadline,
            )
            .await?;
        Ok(())
    }

    /// The storage of each origin the task's tabs show (main frames), in tab order; an
    /// origin shown twice is read from its first tab. Origins without storage
    /// (`about:blank`) are left out.
    pub async fn read_storage(&self, deadline: Deadline) -> Result<Vec<OriginStorage>, Error> {
        let mut origins: Vec<OriginStorage> = Vec::new();
        for (_, tab) in self.tabs() {
            if origin_of(&tab.state().url).is_none() {
                continue;
            }
            let read = tab.call_script(&STORAGE_READ, Vec::new(), deadline).await?;
            if read.origin == "null" || origins.iter().any(|o| o.origin == read.origin) {
                continue;
            }
            origins.push(OriginStorage {
                origin: read.origin,
                local: read.secret_items.local,
                session: read.secret_items.session,
            });
        }
        Ok(origins)
    }

    /// Writes `storage` into its origin: in the first tab that shows it, else (localStorage
    /// only) in a blank page of the origin (see the module's comment). An origin the
    /// task's URL policy refuses is `UrlBlocked`, and nothing is written.
    pub async fn write_storage(
        &self,
        storage: &OriginStorage,
        deadline: Deadline,
    ) -> Result<StorageWritten, Error> {
        let url = format!("{}/", storage.origin);
        self.check_url(&url)?;
        let items = json!({
            "origin": storage.origin,
            "secretItems": { "local": storage.local, "session": storage.session },
        });
        let showing = self
            .tabs()
            .find(|(_, tab)| origin_of(&tab.state().url).as_deref() == Some(&storage.origin));
        if let Some((id, tab)) = showing {
            let written = tab
                .call_script(&STORAGE_WRITE, vec![items], deadline)
                .await?;
            return Ok(StorageWritten {
                origin: storage.origin.clone(),
                local: written.local,
                session: written.session,
                tab: Some(id),
                session_left: storage.session.len() - written.session.min(storage.session.len()),
            });
        }
        let local = json!({
            "origin": storage.origin,
            "secretItems": { "local": storage.local, "session": [] },
        });
        let written = self.in_blank_page(&url, local, deadline).await?;
        Ok(StorageWritten {
            origin: storage.origin.clone(),
            local: written.local,
            session: 0,
            tab: None,
            session_left: storage.session.len(),
        })
    }

    /// Runs `storage_write` with `items` in a page of the task's context showing an empty
    /// document served by candor at `url`, then closes the page.
    async fn in_blank_page(
        &self,
        url: &str,
        items: Value,
        deadline: Deadline,
    ) -> Result<Written, Error> {
        let browser = self.browser().connection().browser_session();
        let created = browser
            .call(
                &target::CreateTarget {
                    url: "about:blank".into(),
                    browser_context_id: self.context_scope(),
                    background: Some(true),
                },
                deadline,
            )
            .await?;
        let written = async {
            let attached = browser
                .call(
                    &target::AttachToTarget {
                        target_id: created.target_id.clone(),
                        flatten: true,
                    },
                    deadline,
                )
                .await?;
            let session = self.browser().connection().session(attached.session_id);
            let frame = blank_document(&session, url, deadline).await?;
            let world = session
                .call(
                    &page::CreateIsolatedWorld {
                        frame_id: frame,
                        world_name: script::World::CANDOR_NAME.into(),
                        grant_univeral_access: false,
                    },
                    deadline,
                )
                .await?;
            let context = Context {
                id: world.execution_context_id,
                unique: None,
            };
            script::call(
                &session,
                &STORAGE_WRITE,
                This::Context(&context),
                vec![items],
                deadline,
            )
            .await
        }
        .await;
        // Closed whatever happened; a page that will not close goes with the context.
        let closed = browser
            .call(
                &target::CloseTarget {
                    target_id: created.target_id,
                },
                deadline,
            )
            .await;
        if let Err(err) = closed {
            tracing::debug!(%err, "a saved state's blank page did not close");
        }
        written
    }
}

/// Navigates `session`'s page to `url`, answering its requests with an empty document
/// (nothing reaches the network), and waits for that document; its frame id.
async fn blank_document(session: &Session, url: &str, deadline: Deadline) -> Result<String, Error> {
    let mut events = session.subscribe();
    session
        .call(
            &fetch::Enable {
                patterns: vec![fetch::RequestPattern {
                    url_pattern: Some("*".into()),
                    resource_type: None,
                }],
                handle_auth_requests: None,
            },
            deadline,
        )
        .await?;
    session.call(&page::Enable {}, deadline).await?;
    session
        .call(&page::SetLifecycleEventsEnabled { enabled: true }, deadline)
        .await?;
    let started = Instant::now();
    let waited = tokio::time::timeout_at(deadline.at().into(), async {
        let to = page::Navigate { url: url.into() };
        let navigate = session.call(&to, deadline);
        tokio::pin!(navigate);
        let mut navigated: Option<page::Navigated> = None;
        let mut loaded: Vec<String> = Vec::new();
        loop {
            if let Some(nav) = &navigated
                && nav
                    .loader_id
                    .as_ref()
                    .is_some_and(|loader| loaded.contains(loader))
            {
                return Ok(nav.frame_id.clone());
            }
            tokio::select! {
                reply = &mut navigate, if navigated.is_none() => {
                    let nav = reply?;
                    if let Some(error_text) = nav.error_text {
                        return Err(Error::NavigationFailed { url: url.into(), error_text });
                    }
                    navigated = Some(nav);
                }
                event = events.recv() => {
                    let Some(event) = event else {
                        return Err(Error::Disconnected);
                    };
                    if let Some(paused) = event.parse::<fetch::RequestPaused>() {
                        session.send(&fetch::FulfillRequest {
                            request_id: paused.request_id,
                            response_code: 200,
                            response_headers: vec![fetch::HeaderEntry {
                                name: "Content-Type".into(),
                                value: "text/html".into(),
                            }],
                        })?;
                    } else if let Some(life) = event.parse::<page::LifecycleEvent>()
                        && life.name == "DOMContentLoaded"
                    {
                        loaded.push(life.loader_id);
                    }
                }
            }
        }
    })
    .await;
    waited.unwrap_or_else(|_| {
        Err(Error::Timeout {
            waiting_for: format!("a blank page of {url}"),
            after: started.elapsed(),
        })
    })
}

/// The origin of `url` when it has one storage belongs to (`http`, `https`).
fn origin_of(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    matches!(url.scheme(), "http" | "https").then(|| url.origin().ascii_serialization())
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Read {
    origin: String,
    secret_items: Items,
}

#[derive(Debug, Deserialize)]
struct Items {
    local: Vec<(String, String)>,
    session: Vec<(String, String)>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Written {
    local: usize,
    session: usize,
}

const STORAGE_READ: script::Script<Read> = script!("storage_read" => crate::storage::Read);
const STORAGE_WRITE: script::Script<Written> = script!("storage_write" => crate::storage::Written);
