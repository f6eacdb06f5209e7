//! `state`: save the task's cookies and web storage under a name, load one into the task,
//! list or delete them (docs/security.md#saved-state). The files are `saved_states.rs`'s;
//! the answer counts what was saved or set — cookies per domain, storage keys per origin
//! — and never carries a value. Every call runs as sensitive (its policy): the journal
//! keeps its method and outcome only, the archive nothing.
//!
//! Loading sets every cookie in the task's browser context, and each origin's storage in
//! the tab that shows it, else (localStorage only) in a blank page of that origin that
//! candor serves itself: no request reaches the site. sessionStorage belongs to a tab, so
//! for an origin no tab shows it is counted as not set (`sessionNotSet`).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Annotations, PageGuard, Policy, ToolSpec};
use crate::ctx::Ctx;
use crate::error::ToolError;
use crate::saved_states::{Saved, Store, check_name};
use crate::untrusted::PageText;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    action: Action,
    // Undescribed in the schema: the tool's description says it (SELF_EVIDENT).
    name: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Action {
    Save,
    Load,
    List,
    Delete,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum Output {
    Saved(Summary),
    List(List),
    Deleted(Deleted),
}

/// What was saved (and where) or loaded.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Summary {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    encrypted: bool,
    cookies: Vec<Domain>,
    origins: Vec<Origin>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct List {
    states: Vec<Listed>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Listed {
    name: String,
    encrypted: bool,
    // Milliseconds since the Unix epoch.
    modified: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Deleted {
    deleted: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Domain {
    domain: PageText,
    count: usize,
}

// Storage keys saved or set for one origin; on load, the tab that took them (none: a
// blank page of the origin), the sessionStorage keys not set (no tab showed the origin),
// and why nothing was set (the URL policy refused it).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Origin {
    origin: PageText,
    local: usize,
    session: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    tab_id: Option<String>,
    #[serde(skip_serializing_if = "is_zero")]
    session_not_set: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    not_set: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The `state` tool.
pub struct State;

impl ToolSpec for State {
    const NAME: &'static str = "state";
    const POLICY: Policy = Policy {
        sensitive: true,
        ..Policy::PLAIN
    };
    const PAGE_GUARD: PageGuard = PageGuard::Own;
    const ANNOTATIONS: Annotations = Annotations {
        title: "Saved state",
        read_only: false,
        destructive: true,
        idempotent: true,
        open_world: true,
    };
    const DESCRIPTION: &'static str = "Save or load the task's cookies and storage by name.";
    type Params = Params;
    type Output = Output;

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        let named = || {
            let name = params.name.clone().ok_or_else(|| {
                ToolError::invalid_params(format!("{:?} needs a name", params.action))
            })?;
            check_name(&name).map(|()| name)
        };
        let config = ctx.options().saved_states.clone();
        let store = Store::of(&config)?;
        match params.action {
            Action::Save => save(ctx, &store, named()?).await.map(Output::Saved),
            Action::Load => load(ctx, &store, named()?).await.map(Output::Saved),
            Action::List => Ok(Output::List(List {
                states: store
                    .list()?
                    .into_iter()
                    .map(|l| Listed {
                        name: l.name,
                        encrypted: l.encrypted,
                        modified: l.modified,
                    })
                    .collect(),
            })),
            Action::Delete => {
                let name = named()?;
                store.delete(&name)?;
                Ok(Output::Deleted(Deleted { deleted: name }))
            }
        }
    }
}

async fn save(ctx: &mut Ctx<'_>, store: &Store<'_>, name: String) -> Result<Summary, ToolError> {
    let deadline = ctx.deadline;
    ctx.stage("read");
    let task = ctx.task().await?;
    let cookies = task.cookies(deadline).await?;
    let storage = task.read_storage(deadline).await?;
    let saved = Saved {
        saved_at: crate::journal::epoch_ms(std::time::SystemTime::now()),
        cookies: cookies.into_iter().map(Into::into).collect(),
        origins: storage.into_iter().map(Into::into).collect(),
    };
    ctx.stage("write");
    let (path, encrypted) = store.save(&name, &saved)?;
    Ok(Summary {
        name,
        path: Some(path.display().to_string()),
        encrypted,
        cookies: per_domain(&saved),
        origins: saved
            .origins
            .iter()
            .map(|o| Origin {
                origin: o.origin.clone().into(),
                local: o.local_storage.len(),
                session: o.session_storage.len(),
                tab_id: None,
                session_not_set: 0,
                not_set: None,
            })
            .collect(),
    })
}

async fn load(ctx: &mut Ctx<'_>, store: &Store<'_>, name: String) -> Result<Summary, ToolError> {
    let deadline = ctx.deadline;
    // Read (and opened) before anything reaches the browser: a refusal sets nothing.
    let (saved, encrypted) = store.load(&name)?;
    ctx.stage("dispatch");
    ctx.task().await?;
    ctx.dispatched();
    let cookies: Vec<browser::Cookie> = saved.cookies.iter().map(Into::into).collect();
    let task = ctx.task().await?;
    task.set_cookies(&cookies, deadline).await?;
    let mut origins = Vec::new();
    for origin in &saved.origins {
        let written = task.write_storage(&origin.into(), deadline).await;
        origins.push(match written {
            Ok(w) => Origin {
                origin: w.origin.into(),
                local: w.local,
                session: w.session,
                tab_id: w.tab.map(|t| t.to_string()),
                session_not_set: w.session_left,
                not_set: None,
            },
            Err(browser::Error::UrlBlocked { reason, .. }) => Origin {
                origin: origin.origin.clone().into(),
                local: 0,
                session: 0,
                tab_id: None,
                session_not_set: 0,
                not_set: Some(format!("the URL policy refuses it: {reason}")),
            },
            Err(err) => return Err(err.into()),
        });
    }
    Ok(Summary {
        name,
        path: None,
        encrypted,
        cookies: per_domain(&saved),
        origins,
    })
}

/// The cookies of `saved`, counted per domain (domains in order).
fn per_domain(saved: &Saved) -> Vec<Domain> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for cookie in &saved.cookies {
        *counts.entry(cookie.domain.as_str()).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|(domain, count)| Domain {
            domain: domain.to_string().into(),
            count,
        })
        .collect()
}
