//! Reading a page's form controls (docs/observation.md#form-state, `browser_form_state`): values as the DOM
//! holds them and as the user sees them, selections, checked state and validity, custom
//! comboboxes with their popups, open shadow roots included. Secret fields (the one
//! definition, `cdp::is_secret_field`: passwords, one-time codes, card numbers…) are masked
//! page-side (`js/form_state.js`, handed the rule as a selector), so their values never
//! cross the wire. Reading changes nothing on the page.

use cdp::Deadline;
use serde_json::{Value, json};

use crate::{Error, Tab};

/// The most controls one read returns; `total` says how many there were.
pub const MAX_CONTROLS: usize = 500;
/// Values longer than this are clipped (with an ellipsis).
const VALUE_CHARS: usize = 500;

/// The form controls in scope.
/// What `form_state.js` answers.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FormStateReply {
    /// The scope selector the page could not parse, and why.
    #[serde(default)]
    invalid_selector: Option<String>,
    #[serde(default)]
    controls: Vec<FormControl>,
    #[serde(default)]
    total: usize,
    #[serde(default)]
    hidden_inputs: usize,
    #[serde(default)]
    scope_matched: Option<usize>,
}

#[derive(Debug, Clone)]
pub struct FormState {
    pub controls: Vec<FormControl>,
    /// Controls in scope, including any beyond [`MAX_CONTROLS`].
    pub total: usize,
    /// `<input type=hidden>` in scope: counted, never listed.
    pub hidden_inputs: usize,
    /// With a scope: how many elements it matched (zero: nothing was read).
    pub scope_matched: Option<usize>,
}

/// One control. Fields that do not apply to its kind are `None`.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FormControl {
    pub tag: String,
    /// The input type, `select`, `textarea`, or the ARIA role of a custom control.
    #[serde(rename = "type")]
    pub kind: String,
    pub role: Option<String>,
    pub name: Option<String>,
    pub id: Option<String>,
    pub label: Option<String>,
    /// A CSS selector naming this one element (none inside a shadow root).
    pub selector: Option<String>,
    pub in_shadow_root: bool,
    /// The `value` property (for secret fields: `[masked]`, or empty).
    pub dom_value: Option<String>,
    /// What the user sees: a select's option labels, file names, an element's text.
    pub display_value: Option<String>,
    pub selected_options: Option<Vec<OptionState>>,
    pub checked: Option<Checked>,
    pub validation_message: Option<String>,
    pub invalid: bool,
    pub disabled: bool,
    pub required: bool,
    pub read_only: bool,
    /// The value is a secret and was not read out.
    pub masked: bool,
    /// For a combobox: the popup named by `aria-controls`/`aria-owns`.
    pub popup: Option<Popup>,
}

/// One option: its value (`value`, `data-value` or id) and its label.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
pub struct OptionState {
    #[serde(default)]
    pub value: Option<String>,
    pub label: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(try_from = "Value")]
pub enum Checked {
    Yes,
    No,
    /// Indeterminate (`aria-checked="mixed"` or `indeterminate`).
    Mixed,
}

/// A combobox's popup.
/// A popup the control names; only `id` and `found` when it is not in the page.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default)]
pub struct Popup {
    pub id: String,
    /// An element with that id exists.
    pub found: bool,
    pub role: Option<String>,
    pub visible: bool,
    /// `[role=option]` elements inside it.
    pub options: usize,
    /// Options with `aria-selected="true"`.
    pub selected: Vec<OptionState>,
    /// The option `aria-activedescendant` points at.
    pub active: Option<OptionState>,
}

impl Tab {
    /// The form controls inside the elements `scope` (CSS) matches, or the whole
    /// document. An invalid selector is `InvalidSelector`.
    pub async fn form_state(
        &self,
        scope: Option<&str>,
        deadline: Deadline,
    ) -> Result<FormState, Error> {
        let arguments = vec![
            json!(scope),
            json!(MAX_CONTROLS),
            json!(VALUE_CHARS),
            json!(cdp::secret_field_selector()),
        ];
        let reply = self.call_script(&FORM_STATE, arguments, deadline).await?;
        if let Some(reason) = reply.invalid_selector {
            return Err(Error::InvalidSelector {
                selector: scope.unwrap_or_default().to_string(),
                reason,
            });
        }
        Ok(FormState {
            controls: reply.controls,
            total: reply.total,
            hidden_inputs: reply.hidden_inputs,
            scope_matched: reply.scope_matched,
        })
    }
}

impl TryFrom<Value> for Checked {
    type Error = String;

    fn try_from(value: Value) -> Result<Self, Self::Error> {
        match value {
            Value::Bool(true) => Ok(Checked::Yes),
            Value::Bool(false) => Ok(Checked::No),
            Value::String(mixed) if mixed == "mixed" => Ok(Checked::Mixed),
            other => Err(format!("checked is true, false or \"mixed\", not {other}")),
        }
    }
}

/// `{controls, total, hiddenInputs, scopeMatched}`: every form control in scope, secret
/// fields masked (given the secret field selector).
pub(crate) const FORM_STATE: crate::script::Script<crate::form_state::FormStateReply> =
    crate::script::script!("form_state" => crate::form_state::FormStateReply);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_control_is_read_from_the_page_reply() {
        let reply = json!({
            "tag": "div", "type": "combobox", "role": "combobox", "name": null, "id": "country",
            "label": "Country", "selector": "#country", "inShadowRoot": false,
            "domValue": null, "displayValue": "Germany",
            "selectedOptions": [{ "value": "de", "label": "Germany" }],
            "checked": "mixed", "validationMessage": null, "invalid": true,
            "disabled": false, "required": true, "readOnly": false, "masked": false,
            "popup": { "id": "list", "found": true, "role": "listbox", "visible": false,
                       "options": 3, "selected": [{ "value": "de", "label": "Germany" }],
                       "active": null },
        });
        let control: FormControl = serde_json::from_value(reply).unwrap();
        assert_eq!(control.kind, "combobox");
        assert_eq!(control.dom_value, None);
        assert_eq!(control.display_value.as_deref(), Some("Germany"));
        assert_eq!(control.checked, Some(Checked::Mixed));
        assert!(control.invalid && control.required && !control.disabled);
        let popup = control.popup.unwrap();
        assert_eq!(popup.options, 3);
        assert_eq!(
            popup.selected,
            vec![OptionState {
                value: Some("de".into()),
                label: "Germany".into()
            }]
        );
        assert!(popup.active.is_none());
    }
}
