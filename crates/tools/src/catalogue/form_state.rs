//! `form_state`: every form control in scope with what the DOM holds and what the user
//! sees (docs/observation.md#form-state): values, selected options, checked state, validity, and for custom
//! comboboxes the popup and its selected option. Passwords and other secret fields are
//! masked in the page; their values never reach the agent. Reading changes nothing.

use browser::{Checked, FormControl, OptionState};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Annotations, Archived, PageGuard, Policy, ToolSpec};
use crate::ctx::Ctx;
use crate::error::{Code, ToolError};
use crate::untrusted::PageText;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    /// CSS of a form or container.
    scope: Option<String>,
    // No description: `tabId` is every tool's, said once in the MCP instructions.
    tab_id: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Output {
    controls: Vec<Control>,
    /// Controls in scope, including any beyond those listed.
    total: usize,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    truncated: bool,
    /// Hidden inputs in scope: counted, not listed.
    #[serde(skip_serializing_if = "crate::schema::is_zero")]
    hidden_inputs: usize,
}

/// One control; fields that do not apply are left out.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Control {
    tag: String,
    r#type: String,
    /// An explicit ARIA role (e.g. combobox on an input).
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<PageText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<PageText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    selector: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    in_shadow_root: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    dom_value: Option<PageText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    display_value: Option<PageText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    selected_options: Option<Vec<Opt>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    checked: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    validation_message: Option<PageText>,
    invalid: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    disabled: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    required: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    read_only: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    masked: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    popup: Option<Popup>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Opt {
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<PageText>,
    label: PageText,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Popup {
    id: String,
    /// An element with that id exists.
    found: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<String>,
    visible: bool,
    options: usize,
    selected: Vec<Opt>,
    #[serde(skip_serializing_if = "Option::is_none")]
    active: Option<Opt>,
}

/// The `form_state` tool.
pub struct FormState;

impl ToolSpec for FormState {
    const NAME: &'static str = "form_state";
    const POLICY: Policy = Policy {
        archive: Archived::Data,
        ..Policy::PLAIN
    };
    const PAGE_GUARD: PageGuard = PageGuard::Reads;
    const ANNOTATIONS: Annotations = Annotations::reads("Read form fields");
    const DESCRIPTION: &'static str =
        "Form controls: values, selection, checked, validity; passwords masked.";
    type Params = Params;
    type Output = Output;

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        if params.scope.as_deref().is_some_and(|s| s.trim().is_empty()) {
            return Err(ToolError::invalid_params(
                "scope is empty; leave it out to read the whole page",
            ));
        }
        let deadline = ctx.deadline;
        let task = ctx.task().await?;
        let (tab_id, tab) = task.tab_or_open(params.tab_id.as_deref(), deadline).await?;
        ctx.report_page(tab_id, &tab.state());
        tab.check_loaded()?;
        ctx.stage("read");
        let read = tab.form_state(params.scope.as_deref(), deadline).await?;
        if read.scope_matched == Some(0) {
            return Err(ToolError::new(
                Code::ElementNotFound,
                format!(
                    "no element matches scope {:?} in {tab_id}",
                    params.scope.unwrap_or_default()
                ),
                "check the selector against a browser_snapshot, or leave scope out to read the whole page",
            ));
        }
        Ok(Output {
            truncated: read.total > read.controls.len(),
            total: read.total,
            hidden_inputs: read.hidden_inputs,
            controls: read.controls.into_iter().map(Control::from).collect(),
        })
    }
}

impl From<FormControl> for Control {
    fn from(c: FormControl) -> Self {
        Control {
            tag: c.tag,
            r#type: c.kind,
            role: c.role,
            name: c.name.map(PageText),
            label: c.label.map(PageText),
            selector: c.selector,
            in_shadow_root: c.in_shadow_root,
            dom_value: c.dom_value.map(PageText),
            display_value: c.display_value.map(PageText),
            selected_options: c
                .selected_options
                .map(|options| options.into_iter().map(Opt::from).collect()),
            checked: c.checked.map(|checked| match checked {
                Checked::Yes => json!(true),
                Checked::No => json!(false),
                Checked::Mixed => json!("mixed"),
            }),
            validation_message: c.validation_message.map(PageText),
            invalid: c.invalid,
            disabled: c.disabled,
            required: c.required,
            read_only: c.read_only,
            masked: c.masked,
            popup: c.popup.map(|p| Popup {
                id: p.id,
                found: p.found,
                role: p.role,
                visible: p.visible,
                options: p.options,
                selected: p.selected.into_iter().map(Opt::from).collect(),
                active: p.active.map(Opt::from),
            }),
        }
    }
}

impl From<OptionState> for Opt {
    fn from(o: OptionState) -> Self {
        Opt {
            value: o.value.map(PageText),
            label: PageText(o.label),
        }
    }
}
