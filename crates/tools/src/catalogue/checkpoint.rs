//! `checkpoint`: list the task's checkpoints, or restore one (docs/faces.md#checkpoints). Every element
//! snapshot is a checkpoint of the same id; restoring reaches its page (history, else
//! the URL, never a page that redirected elsewhere), sets each field found again by
//! identity, restores scroll positions, reads everything back and says exactly what came
//! back: `partial` when anything did not.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Annotations, PageGuard, Policy, ToolSpec};
use crate::ctx::Ctx;
use crate::error::{Code, ToolError};
use crate::untrusted::PageText;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    #[serde(default)]
    action: Action,
    /// restore: a snapshot id.
    state_id: Option<String>,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    tab_id: Option<String>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Action {
    #[default]
    List,
    Restore,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum Output {
    List(List),
    Restored(Restored),
}

/// Newest first.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct List {
    checkpoints: Vec<Listed>,
    /// Older checkpoints dropped past the task's limit.
    dropped: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Listed {
    id: String,
    tab_id: String,
    url: PageText,
    title: PageText,
    /// Milliseconds since the Unix epoch.
    time: u64,
    fields: usize,
    scrolls: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Restored {
    state_id: String,
    tab_id: String,
    /// How the page was reached: in-place, history or url.
    reached: &'static str,
    url: PageText,
    restoration: Restoration,
    /// The page as restored, against the tab's last snapshot (its id is the page's).
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<PageText>,
}

/// Fields and scroll positions: read back as saved (`verified`; `restored` of them set
/// by this restore), not brought back (`failed`), never captured (`omitted`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Restoration {
    verified: usize,
    restored: usize,
    failed: Vec<Unrestored>,
    omitted: Vec<Unrestored>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Unrestored {
    field: PageText,
    reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected: Option<PageText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    actual: Option<PageText>,
}

impl From<browser::Unrestored> for Unrestored {
    fn from(u: browser::Unrestored) -> Self {
        Unrestored {
            field: PageText(u.field),
            reason: u.reason,
            expected: u.expected.map(PageText),
            actual: u.actual.map(PageText),
        }
    }
}

/// The diff a restore answers with, in tokens (as an action's).
const RESTORED_BUDGET: usize = 2_000;

/// The `checkpoint` tool.
pub struct Checkpoint;

impl ToolSpec for Checkpoint {
    const NAME: &'static str = "checkpoint";
    // A checkpoint belongs to its task (memory only): no replay could restore it.
    const POLICY: Policy = Policy::PLAIN;
    // Restore reaches the page by navigating, which recovers a hung tab first.
    const PAGE_GUARD: PageGuard = PageGuard::Own;
    // Restoring sets fields (their listeners run) and may navigate; again, it changes
    // nothing more.
    const ANNOTATIONS: Annotations = Annotations {
        title: "Checkpoints",
        read_only: false,
        destructive: false,
        idempotent: true,
        open_world: true,
    };
    const DESCRIPTION: &'static str =
        "List checkpoints (elements snapshots), or restore one: page, fields, scroll.";
    type Params = Params;
    type Output = Output;

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        match (params.action, params.state_id) {
            (Action::List, None) => Ok(list(ctx)),
            (Action::List, Some(_)) => Err(ToolError::invalid_params(
                "stateId goes with action restore",
            )),
            (Action::Restore, None) => Err(ToolError::invalid_params(
                "restore needs stateId (checkpoint list shows them)",
            )),
            (Action::Restore, Some(id)) => restore(ctx, id, params.tab_id).await,
        }
    }
}

/// Keeps the checkpoint an element snapshot took; returns why there is none, if it
/// could not be read (the snapshot itself stands).
/// What a command changed on `tab`, as a diff against the tab's last snapshot within
/// `budget` tokens, and the id of the snapshot it took (a checkpoint too), which becomes
/// the envelope's page's (docs/acting.md#what-changed). Reading it is not part of the
/// command: when it fails, the command still did what it did, and there is no diff.
pub(super) async fn what_changed(
    ctx: &mut Ctx<'_>,
    tab: &browser::Tab,
    budget: usize,
) -> (Option<String>, Option<String>) {
    ctx.stage("observe");
    let options = browser::SnapshotOptions {
        max_tokens: budget,
        diff: true,
        checkpoint: true,
    };
    let (diff, id) = match tab.snapshot(&options, ctx.deadline).await {
        Ok(mut snapshot) => {
            if let Some(error) = keep(ctx, snapshot.checkpoint.take()) {
                tracing::debug!(%error, "no checkpoint after the command");
            }
            (Some(snapshot.text), Some(snapshot.id))
        }
        Err(err) => {
            tracing::debug!(%err, "no snapshot after the command");
            (None, None)
        }
    };
    if let (Some(page), Some(id)) = (ctx.page.as_mut(), &id) {
        page.snapshot_id = Some(id.clone());
    }
    (diff, id)
}

pub(super) fn keep(
    ctx: &Ctx<'_>,
    taken: Option<Result<browser::Checkpoint, browser::Error>>,
) -> Option<String> {
    match taken? {
        Ok(checkpoint) => {
            ctx.checkpoints().keep(checkpoint);
            None
        }
        Err(error) => Some(error.to_string()),
    }
}

fn list(ctx: &Ctx<'_>) -> Output {
    let held = ctx.checkpoints();
    let millis = |t: std::time::SystemTime| {
        t.duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64)
    };
    Output::List(List {
        checkpoints: held
            .newest_first()
            .map(|c| Listed {
                id: c.id.clone(),
                tab_id: c.tab.clone(),
                url: PageText(c.url.clone()),
                title: PageText(c.title.clone()),
                time: millis(c.time),
                fields: c.fields(),
                scrolls: c.scrolls(),
            })
            .collect(),
        dropped: held.dropped(),
    })
}

async fn restore(
    ctx: &mut Ctx<'_>,
    id: String,
    tab_id: Option<String>,
) -> Result<Output, ToolError> {
    let Some(checkpoint) = ctx.checkpoints().get(&id).cloned() else {
        return Err(ToolError::new(
            Code::CheckpointNotFound,
            format!("this task holds no checkpoint {id:?}; nothing was navigated"),
            "checkpoint list shows the ids (the full id, with its .N suffix)",
        ));
    };
    let deadline = ctx.deadline;
    let task = ctx.task().await?;
    let url = task.check_url(&checkpoint.url)?;
    let named = tab_id.or_else(|| {
        task.tab(Some(&checkpoint.tab))
            .is_ok()
            .then(|| checkpoint.tab.clone())
    });
    let (tab_id, tab) = task.tab_or_open(named.as_deref(), deadline).await?;
    super::navigate::recover(ctx, &tab, deadline).await?;
    ctx.stage("restore");
    ctx.dispatched();
    let restored = tab.restore(&checkpoint, &url, deadline).await;
    ctx.events.navigated = restored
        .as_ref()
        .is_ok_and(|r| r.reached != browser::Reached::InPlace);
    let state = tab
        .refresh_info(deadline)
        .await
        .unwrap_or_else(|_| tab.state());
    ctx.report_page(tab_id, &state);
    let restoration = restored?;
    // The restore reads everything back: that is its verification, said where every
    // answer says what was verified.
    ctx.verification.requested = true;
    ctx.verification.verified = Some(restoration.failed.is_empty());
    ctx.verification.expect = Some(serde_json::json!({ "restored": id }));
    if !restoration.failed.is_empty() {
        ctx.partial(ToolError::new(
            Code::ReadbackFailed,
            format!(
                "{} of what {id} holds did not come back",
                restoration.failed.len()
            ),
            "see restoration.failed; fix those by hand, then take a snapshot",
        ));
    }
    let reason = restoration
        .load
        .as_ref()
        .and_then(|load| super::navigate::report_unfinished(ctx, &checkpoint.url, load));
    if let Some(reason) = reason {
        tracing::debug!(%reason, "the checkpoint's page did not finish loading");
    }
    // The page as it now is, so the agent need not take another snapshot.
    let (diff, _) = what_changed(ctx, &tab, RESTORED_BUDGET).await;
    Ok(Output::Restored(Restored {
        diff: diff.map(PageText),
        state_id: id,
        tab_id: tab_id.to_string(),
        reached: restoration.reached.as_str(),
        url: PageText(state.url),
        restoration: Restoration {
            verified: restoration.verified,
            restored: restoration.restored,
            failed: restoration.failed.into_iter().map(Into::into).collect(),
            omitted: restoration.omitted.into_iter().map(Into::into).collect(),
        },
    }))
}
