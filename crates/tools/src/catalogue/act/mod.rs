//! `act`: act on an element with trusted input (docs/acting.md), then settle, check the
//! postcondition and read back. The result says exactly what happened: dispatched or
//! not, verified or not — never more.

use std::path::{Path, PathBuf};

use browser::{Action, Locator};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

mod answer;

use self::answer::{adopt_new_tabs, report, upload_json};
use super::expect::{self, Expect};
use super::{Annotations, Archived, InFlow, PageGuard, Policy, Problems, ToolSpec};
use crate::ctx::Ctx;
use crate::error::{Code, ToolError};
use crate::untrusted::{PageText, PageValue};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    /// scroll_next_screen: one screen on (the page, or a container ref).
    action: ActionName,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    r#ref: Option<String>,
    /// Target by role (+name, scope, frame, exact, nth).
    role: Option<String>,
    /// Accessible name, substring.
    name: Option<String>,
    /// Within this CSS selector.
    scope: Option<String>,
    /// Within this named iframe.
    frame: Option<String>,
    /// Name matches whole.
    #[serde(default)]
    exact: bool,
    /// Which match, 0-based.
    nth: Option<usize>,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    selector: Option<String>,
    /// Refuse if the ref changed since.
    snapshot_id: Option<String>,
    /// type: appended; fill: the new value.
    text: Option<String>,
    /// press: e.g. Enter, Control+A.
    keys: Option<String>,
    /// select: option values or labels.
    values: Option<Vec<String>>,
    /// With y: viewport px, for what has no ref.
    x: Option<f64>,
    // Undescribed in the schema: x's description says it.
    y: Option<f64>,
    /// scroll: px right, without a target.
    dx: Option<f64>,
    /// scroll: px down, without a target.
    dy: Option<f64>,
    /// drag: drop target {ref|role,name|selector}.
    #[serde(default)]
    #[schemars(schema_with = "crate::schema::any_object")]
    to: Option<Target>,
    /// upload: names in the upload folder.
    files: Option<Vec<String>>,
    /// upload: the target opens the chooser.
    #[serde(default)]
    trigger: bool,
    /// upload: await this response URL (glob or substring).
    response_url: Option<String>,
    /// type/fill: press Enter after.
    #[serde(default)]
    submit: bool,
    /// Verify after: browser_wait's conditions (all) and timeoutMs.
    #[serde(default)]
    #[schemars(schema_with = "crate::schema::any_object")]
    expect: Option<Expect>,
    /// JS expression read after (needs eval).
    readback: Option<String>,
    /// Wait for the tab it opens.
    #[serde(default)]
    expect_popup: bool,
    /// Max ms to settle after (default {settleMs}).
    settle_ms: Option<u64>,
    /// Max ms to wait for the target (default 1000).
    // `timeoutMs` is the name callers of the server-and-CLI contract give it.
    #[serde(alias = "timeoutMs")]
    action_timeout_ms: Option<u64>,
    /// Return the page diff (default true).
    snapshot: Option<bool>,
    // No description: `tabId` is every tool's, said once in the MCP instructions.
    tab_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum ActionName {
    Click,
    Dblclick,
    Hover,
    Focus,
    Type,
    Fill,
    Press,
    Select,
    Check,
    Uncheck,
    Scroll,
    Drag,
    Upload,
    /// One screen on (80 %), on the page or in a scroll container (ref), and only what
    /// is new (the field's description says so to the model).
    #[serde(rename = "scroll_next_screen")]
    ScrollNextScreen,
}

/// A second element (drag's drop target).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Target {
    r#ref: Option<String>,
    role: Option<String>,
    name: Option<String>,
    selector: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Output {
    action: ActionName,
    #[serde(skip_serializing_if = "Option::is_none")]
    r#ref: Option<String>,
    role: String,
    name: PageText,
    /// The ref's element was gone; a unique same role+name element stood in.
    relocated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_value_verified: Option<bool>,
    /// type: the keys sent (into a secret field, only as their count).
    #[serde(skip_serializing_if = "Option::is_none")]
    keys_sent: Option<String>,
    /// type/fill: what the field holds after (a secret field's only as its length); for
    /// type a fact, not a promise: a page may take the keys elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    value_after: Option<String>,
    /// How long the target took to become actionable (it was covered, moving or not yet
    /// shown); absent when it was at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    actionable_wait_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    changed: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    selected: Option<Vec<Selected>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scroll: Option<Value>,
    /// upload: fileSelected, inputReadback, and uploadCompleted (true/false from the
    /// response to responseUrl, else "unknown").
    #[serde(skip_serializing_if = "Option::is_none")]
    upload: Option<Value>,
    /// Any navigation it started loaded and the page stopped changing.
    settled: bool,
    /// How long settling took.
    settle_ms: u64,
    /// What was still changing when the settle budget ran out.
    #[serde(skip_serializing_if = "Option::is_none")]
    still_changing: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    readback: Option<PageValue>,
    /// click: what the answer must say in words — the click reached the page but nothing
    /// on it changed, or its press was split by a re-render and only the expectation
    /// says it worked.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    /// A dialog opened and waits for browser_dialog (policy ask).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    dialog_open: bool,
    /// The page's snapshot lines that changed (`+`/`-`/`~`), or the whole snapshot when
    /// there was none before; its id is `page.snapshotId`.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<PageText>,
    /// scroll_next_screen: pixels scrolled (0 at the end).
    #[serde(skip_serializing_if = "Option::is_none")]
    scrolled_by: Option<f64>,
    /// scroll_next_screen: the bottom is in view.
    #[serde(skip_serializing_if = "Option::is_none")]
    at_end: Option<bool>,
    /// scroll_next_screen: the lines of this screen not shown before (by content).
    #[serde(skip_serializing_if = "Option::is_none")]
    new_content: Option<PageText>,
    /// scroll_next_screen: what of the page and its containers has been in view.
    #[serde(skip_serializing_if = "Option::is_none")]
    coverage: Option<super::snapshot::CoverageOut>,
}

/// select: an option now selected, as the page has it.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Selected {
    value: PageText,
    label: PageText,
}

/// `diff` without its closing coverage line when that says the whole page was seen and
/// names no scroll container: after an action that is no news (a page partly seen, or a
/// container, keeps the line).
fn without_whole_page_coverage(diff: &str) -> String {
    let body = diff.trim_end_matches('\n');
    match body.rsplit_once('\n') {
        Some((before, last))
            if last.starts_with("# coverage: all ") && !last.contains("; container") =>
        {
            format!("{before}\n")
        }
        _ => diff.to_string(),
    }
}

/// The most `actionTimeoutMs` may ask for.
const MAX_ACTION_TIMEOUT_MS: u64 = 60_000;

/// The token budget of the snapshot taken after an action.
const DIFF_BUDGET: usize = 2_000;

/// The `act` tool.
pub struct Act;

fn locator_of(
    r#ref: &Option<String>,
    role: &Option<String>,
    selector: &Option<String>,
    params: Option<&Params>,
) -> Result<Option<Locator>, ToolError> {
    let given = [r#ref.is_some(), role.is_some(), selector.is_some()]
        .iter()
        .filter(|g| **g)
        .count();
    if given > 1 {
        return Err(ToolError::invalid_params(
            "give one locator: ref, role (+ name), or selector",
        ));
    }
    if let Some(r) = r#ref {
        if !browser::is_ref(r) {
            return Err(ToolError::invalid_params(format!(
                "{r:?} is not a ref; refs look like e4k2 and come from browser_snapshot or browser_find"
            )));
        }
        return Ok(Some(Locator::Ref {
            r#ref: r.clone(),
            snapshot_id: params.and_then(|p| p.snapshot_id.clone()),
        }));
    }
    if let Some(role) = role {
        return Ok(Some(Locator::Role {
            role: role.clone(),
            name: params.and_then(|p| p.name.clone()),
            scope: params.and_then(|p| p.scope.clone()),
            frame: params.and_then(|p| p.frame.clone()),
            exact: params.is_some_and(|p| p.exact),
            nth: params.and_then(|p| p.nth),
        }));
    }
    Ok(selector.as_ref().map(|s| Locator::Selector {
        selector: s.clone(),
        nth: params.and_then(|p| p.nth),
    }))
}

impl Params {
    fn action(&self, upload_dir: Option<&Path>) -> Result<Action, ToolError> {
        let need = |what: &str| {
            ToolError::invalid_params(format!(
                "{} needs {what}",
                serde_json::to_value(self.action).unwrap_or_default()
            ))
        };
        Ok(match self.action {
            ActionName::Click => Action::Click,
            ActionName::Dblclick => Action::DoubleClick,
            ActionName::Hover => Action::Hover,
            ActionName::Focus => Action::Focus,
            ActionName::Type => Action::Type {
                text: self.text.clone().ok_or_else(|| need("text"))?,
            },
            ActionName::Fill => Action::Fill {
                value: self
                    .text
                    .clone()
                    .ok_or_else(|| need("text (the new value)"))?,
            },
            ActionName::Press => Action::Press {
                keys: self.keys.clone().ok_or_else(|| need("keys"))?,
            },
            ActionName::Select => Action::Select {
                values: self
                    .values
                    .clone()
                    .filter(|v| !v.is_empty())
                    .ok_or_else(|| need("values"))?,
            },
            ActionName::Check => Action::Check,
            ActionName::Uncheck => Action::Uncheck,
            ActionName::Scroll => Action::Scroll {
                dx: self.dx.unwrap_or(0.0),
                dy: self.dy.unwrap_or(0.0),
            },
            ActionName::Drag => {
                let to = self.to.as_ref().ok_or_else(|| need("to"))?;
                let to = locator_of(&to.r#ref, &to.role, &to.selector, None)?
                    .map(|l| match l {
                        Locator::Role {
                            role,
                            scope,
                            frame,
                            exact,
                            nth,
                            ..
                        } => Locator::Role {
                            role,
                            name: to.name.clone(),
                            scope,
                            frame,
                            exact,
                            nth,
                        },
                        other => other,
                    })
                    .ok_or_else(|| need("to: a ref, role or selector"))?;
                Action::Drag { to }
            }
            ActionName::ScrollNextScreen => {
                return Err(ToolError::invalid_params(
                    "scroll_next_screen acts on the page or a scroll container, not through an element action",
                ));
            }
            ActionName::Upload => Action::Upload {
                files: upload_files(self.files.as_deref().unwrap_or_default(), upload_dir)?,
                via_trigger: self.trigger,
                response_url: match self.response_url.as_deref().map(str::trim) {
                    Some("") => {
                        return Err(ToolError::invalid_params(
                            "responseUrl is empty; give a glob (with *) or a substring of the upload's URL",
                        ));
                    }
                    pattern => pattern.map(browser::UrlPattern::new),
                },
            },
        })
    }
}

/// Files must be inside the upload folder (docs/acting.md#uploads): names are taken relative to it,
/// absolute paths must lie within it.
fn upload_files(files: &[String], upload_dir: Option<&Path>) -> Result<Vec<PathBuf>, ToolError> {
    if files.is_empty() {
        return Err(ToolError::invalid_params("upload needs files"));
    }
    let Some(dir) = upload_dir else {
        return Err(ToolError::invalid_params(
            "uploads are off: no upload folder is configured (uploadDir in the config, CANDOR_UPLOAD_DIR in the environment)",
        ));
    };
    let root = dir.canonicalize().map_err(|e| {
        ToolError::invalid_params(format!(
            "the upload folder {} is unusable: {e}",
            dir.display()
        ))
    })?;
    files
        .iter()
        .map(|name| {
            let path = root.join(name);
            let path = path.canonicalize().map_err(|_| {
                ToolError::invalid_params(format!(
                    "no file {name:?} in the upload folder {}",
                    root.display()
                ))
            })?;
            if !path.starts_with(&root) || !path.is_file() {
                return Err(ToolError::invalid_params(format!(
                    "{name:?} is not a file inside the upload folder {}",
                    root.display()
                )));
            }
            Ok(path)
        })
        .collect()
}

impl ToolSpec for Act {
    const NAME: &'static str = "act";
    // A screen scrolled on to read what is new is a read.
    const POLICY: Policy = Policy {
        archive: Archived::Change,
        flow: InFlow::StepUnless(|params| params["action"] == "scroll_next_screen"),
        typed_params: &["text"],
        takes_target: true,
        problems: Problems::SaidAfterRequests,
        ..Policy::STEP
    };
    const PAGE_GUARD: PageGuard = PageGuard::Reads;
    const ANNOTATIONS: Annotations = Annotations {
        title: "Act on an element",
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: true,
    };
    const DESCRIPTION: &'static str =
        "Act on an element (ref, role+name or selector) with trusted input; expect verifies.";
    type Params = Params;
    type Output = Output;

    /// The diff and the news: not the target the agent named (unless another element
    /// stood in for it), not the keys it sent, not a value read back as it was meant,
    /// not a settle that went as usual (the text form says one that did not).
    fn brief(data: &mut serde_json::Map<String, Value>) {
        let relocated = data.get("relocated") == Some(&Value::Bool(true));
        if !relocated {
            super::omit(data, &["ref", "role", "name", "relocated"], &[]);
        }
        if data.get("inputValueVerified") == Some(&Value::Bool(true)) {
            if data.get("action") == Some(&Value::from("fill")) {
                data.remove("valueAfter");
            }
            data.remove("inputValueVerified");
        }
        super::omit(
            data,
            &["action", "keysSent", "settled", "settleMs", "stillChanging"],
            &[("changed", Value::Bool(true))],
        );
        if let Some(Value::String(diff)) = data.get_mut("diff") {
            *diff = without_whole_page_coverage(diff);
        }
    }

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        let eval_enabled = ctx.options().enable_eval;
        let upload_dir = ctx.options().upload_dir.clone();
        let press_pause = ctx.options().press_pause;
        if params.response_url.is_some() && params.action != ActionName::Upload {
            return Err(ToolError::invalid_params(
                "responseUrl is for upload: the response to the request that sends the file",
            ));
        }
        if params.action == ActionName::ScrollNextScreen {
            return next_screen(ctx, params).await;
        }
        // Everything that can be refused is refused before anything is dispatched.
        let action = params.action(upload_dir.as_deref())?;
        let named = match (params.x, params.y) {
            (None, None) => {
                locator_of(&params.r#ref, &params.role, &params.selector, Some(&params))?
            }
            (Some(x), Some(y)) => {
                if params.r#ref.is_some() || params.role.is_some() || params.selector.is_some() {
                    return Err(ToolError::invalid_params(
                        "give x,y or a locator (ref, role, selector), not both",
                    ));
                }
                if !matches!(
                    params.action,
                    ActionName::Click | ActionName::Dblclick | ActionName::Hover | ActionName::Drag
                ) {
                    return Err(ToolError::invalid_params(
                        "x,y go with click, dblclick, hover and drag",
                    ));
                }
                Some(Locator::Point { x, y })
            }
            _ => return Err(ToolError::invalid_params("give x and y together")),
        };
        let locator = match (ctx.target.take(), named) {
            // A step at a point is replayed at that point: its target only says what was
            // there when it was recorded (a canvas has no identity to find it by).
            (_, Some(point @ Locator::Point { .. })) => Some(point),
            (Some(_), Some(_)) => {
                return Err(ToolError::invalid_params(
                    "the step names its element twice: by target and by a locator",
                ));
            }
            (Some(identity), None) => Some(Locator::Identity(identity)),
            (None, named) => named,
        };
        if locator.is_none() && !matches!(params.action, ActionName::Press | ActionName::Scroll) {
            return Err(ToolError::invalid_params(format!(
                "{} needs an element: ref, role (+ name), or selector",
                serde_json::to_value(params.action).unwrap_or_default()
            )));
        }
        if params
            .action_timeout_ms
            .is_some_and(|ms| ms > MAX_ACTION_TIMEOUT_MS)
        {
            return Err(ToolError::invalid_params(format!(
                "actionTimeoutMs must be 0 to {MAX_ACTION_TIMEOUT_MS}"
            )));
        }
        let postcondition = params
            .expect
            .as_ref()
            .map(|e| e.check(eval_enabled))
            .transpose()?;
        if params.readback.is_some() && !eval_enabled {
            return Err(super::eval::disabled("readback"));
        }
        let deadline = ctx.deadline;
        let default_settle = ctx.options().defaults.settle;
        let task = ctx.task().await?;
        let (tab_id, tab) = task
            .tab(params.tab_id.as_deref())
            .map(|(id, tab)| (id, tab.clone()))?;
        let tabs_before = task.list().len();
        let dialogs_before = tab.state().dialogs_seen;
        ctx.stage("dispatch");
        let options = browser::ActOptions {
            submit: params.submit,
            settle: Some(
                params
                    .settle_ms
                    .map_or(default_settle, std::time::Duration::from_millis),
            ),
            action_timeout: params
                .action_timeout_ms
                .map(std::time::Duration::from_millis),
            press_pause,
        };
        let acted = tab.act(locator.as_ref(), &action, &options, deadline).await;
        let outcome = match acted {
            Ok(outcome) => {
                ctx.dispatched();
                outcome
            }
            Err(failure) => {
                if failure.dispatched {
                    ctx.dispatched();
                }
                report(ctx, tab_id, &tab, dialogs_before).await;
                return Err(failure.error.into());
            }
        };
        ctx.events.navigated = outcome.navigated;
        ctx.acted = Some(crate::flow_file::Acted {
            target: outcome.target.clone(),
            r#ref: outcome.r#ref.clone(),
            secret: outcome.secret,
        });
        if outcome.dialog_open {
            // The page waits on a dialog (policy ask): nothing more can be read now.
            report(ctx, tab_id, &tab, dialogs_before).await;
            return Ok(Output {
                action: params.action,
                r#ref: None,
                role: String::new(),
                name: PageText::default(),
                relocated: false,
                input_value_verified: None,
                keys_sent: None,
                value_after: None,
                actionable_wait_ms: None,
                changed: None,
                selected: None,
                scroll: None,
                upload: None,
                settled: false,
                settle_ms: 0,
                still_changing: None,
                readback: None,
                note: None,
                dialog_open: true,
                diff: None,
                scrolled_by: None,
                at_end: None,
                new_content: None,
                coverage: None,
            });
        }
        // A tab the action opened: adopted, reported, and current if it was expected.
        let popup = adopt_new_tabs(ctx, params.expect_popup).await?;
        let tab = match popup {
            Some((id, popup_tab)) if params.expect_popup => {
                report(ctx, id, &popup_tab, 0).await;
                popup_tab
            }
            _ if params.expect_popup => {
                report(ctx, tab_id, &tab, dialogs_before).await;
                let _ = tabs_before;
                return Err(ToolError::new(
                    Code::PopupNotOpened,
                    "the action was done, but no new tab opened",
                    "do not act again: the click happened; check browser_tabs or take a snapshot",
                ));
            }
            _ => {
                report(ctx, tab_id, &tab, dialogs_before).await;
                tab
            }
        };
        if let Some(postcondition) = &postcondition {
            expect::verify(ctx, &tab, postcondition).await?;
        }
        // What the page did with the files is known only from an expectation it met.
        let framework_accepted = postcondition.is_some();
        let readback = match &params.readback {
            Some(expression) => Some(expect::readback(ctx, &tab, expression).await?),
            None => None,
        };
        // What the action changed, as a diff against the tab's last snapshot (docs/acting.md#what-changed).
        // Reading it is not part of the action: if it fails, the action still succeeded.
        let (diff, _snapshot_id) = if params.snapshot.unwrap_or(true) {
            super::checkpoint::what_changed(ctx, &tab, DIFF_BUDGET).await
        } else {
            (None, None)
        };
        let note = effect_note(ctx, &outcome, postcondition.is_some());
        Ok(Output {
            action: params.action,
            r#ref: outcome.r#ref,
            role: outcome.role,
            name: PageText(outcome.name),
            relocated: outcome.relocated,
            input_value_verified: outcome.input_value_verified,
            keys_sent: outcome.keys_sent,
            value_after: outcome.value_after,
            actionable_wait_ms: outcome.actionable_wait.map(|d| d.as_millis() as u64),
            changed: outcome.changed,
            selected: outcome.selected.map(|options| {
                options
                    .into_iter()
                    .map(|o| Selected {
                        value: PageText(o.value),
                        label: PageText(o.label),
                    })
                    .collect()
            }),
            scroll: outcome.scroll.map(|(x, y)| json!({ "x": x, "y": y })),
            upload: outcome
                .upload
                .as_ref()
                .map(|upload| upload_json(upload, framework_accepted)),
            settled: outcome.settled,
            settle_ms: outcome.settle_ms,
            still_changing: outcome.still_changing,
            readback: readback.map(PageValue),
            note,
            dialog_open: false,
            diff: diff.map(PageText),
            scrolled_by: None,
            at_end: None,
            new_content: None,
            coverage: None,
        })
    }
}

/// What a click's answer says beyond its data (see `action_watch.js`): a press split by a
/// re-render is `partial` (`TARGET_REPLACED`), and a press that landed beside the element
/// `partial` (`TARGET_MISSED`), unless an expectation held (`verified`), when it is a note; a click after which nothing changed — nothing the watch sees, no
/// navigation, dialog or new tab — is a note, the action still done: dispatched is not
/// verified, and a click the page ignores is not a failure of the tool.
fn effect_note(ctx: &mut Ctx<'_>, outcome: &browser::ActOutcome, verified: bool) -> Option<String> {
    if outcome.press_replaced {
        if verified {
            return Some(
                "the press was split by a re-render (what the mousedown reached was replaced before the mouseup, so no click reached the element); the expectation held all the same"
                    .into(),
            );
        }
        ctx.partial(ToolError::new(
            Code::TargetReplaced,
            "the press was split by a re-render: what the mousedown reached was replaced before the mouseup, so no click reached the element",
            "do not take it as done: look at the diff or a snapshot; if the page did not act on the press, act again on the element's new ref",
        ));
        return None;
    }
    if let Some(pressed) = &outcome.press_missed {
        if verified {
            return Some(
                "the press landed beside the element, on another one (it moved, or something came over it, after its click point was checked), so no click reached it; the expectation held all the same"
                    .into(),
            );
        }
        ctx.partial(
            ToolError::new(
                Code::TargetMissed,
                "the press landed beside the element, on another one (data.pressed): it moved, or something came over it, after its click point was checked, so no click reached it",
                "do not take it as done: take a snapshot; once what came over it is gone or the element is still, act again",
            )
            .with_typed_data(&Missed {
                pressed: PageText(pressed.clone()),
            }),
        );
        return None;
    }
    let unchanged = outcome.page_changed == Some(false)
        && !outcome.navigated
        && ctx.events.dialog.is_none()
        && ctx.events.new_tab.is_none();
    unchanged.then(|| {
        "the click was delivered, but nothing on the page changed: no element, text or attribute, no value, focus, scroll or URL, no navigation, dialog or new tab; it may have landed where the page ignores it"
            .into()
    })
}

/// `TARGET_MISSED`'s data: the element the press landed on, as the page names it.
#[derive(serde::Serialize)]
struct Missed {
    pressed: PageText,
}

/// `scroll_next_screen` (docs/observation.md#next-screen): one screen on, on the page or in the container `ref`,
/// then what is new there and the coverage.
async fn next_screen(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
    if params.role.is_some() || params.selector.is_some() {
        return Err(ToolError::invalid_params(
            "scroll_next_screen takes the page (no locator) or a scroll container's ref",
        ));
    }
    if params.expect.is_some() || params.readback.is_some() {
        return Err(ToolError::invalid_params(
            "scroll_next_screen reports what it shows; it takes no expect or readback",
        ));
    }
    locator_of(&params.r#ref, &None, &None, None)?;
    let deadline = ctx.deadline;
    let task = ctx.task().await?;
    let (tab_id, tab) = task
        .tab(params.tab_id.as_deref())
        .map(|(id, tab)| (id, tab.clone()))?;
    let dialogs_before = tab.state().dialogs_seen;
    ctx.stage("dispatch");
    let step = match tab.scroll_step(params.r#ref.as_deref(), deadline).await {
        Ok(step) => step,
        Err(err) => {
            report(ctx, tab_id, &tab, dialogs_before).await;
            return Err(err.into());
        }
    };
    if step.moved() > 0.0 {
        ctx.dispatched();
    }
    ctx.stage("read");
    let settle = params.settle_ms.map_or(
        ctx.options().defaults.settle,
        std::time::Duration::from_millis,
    );
    let read = tab.read_next_screen(step, settle, deadline).await;
    report(ctx, tab_id, &tab, dialogs_before).await;
    let screen = read?;
    Ok(Output {
        action: params.action,
        r#ref: screen.container.clone(),
        role: if screen.container.is_some() {
            "scroll container".into()
        } else {
            "page".into()
        },
        name: PageText::default(),
        relocated: false,
        input_value_verified: None,
        keys_sent: None,
        value_after: None,
        actionable_wait_ms: None,
        changed: None,
        selected: None,
        scroll: None,
        upload: None,
        settled: screen.settled,
        settle_ms: 0,
        still_changing: None,
        readback: None,
        note: None,
        dialog_open: false,
        diff: None,
        scrolled_by: Some(screen.scrolled_by.round()),
        at_end: Some(screen.at_end),
        new_content: Some(PageText(screen.new_content)),
        coverage: Some(super::snapshot::CoverageOut::of(&screen.coverage)),
    })
}
