//! One condition type for `wait` and `expect` (docs/waiting.md#conditions): the params both take, one
//! validator, and one evaluator (the browser's `Tab::wait_for`). A rule about conditions
//! lives here and nowhere else, so the two cannot drift apart.

use std::collections::BTreeMap;

use browser::{Condition, ElementState, Matcher};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::error::{Code, ToolError};

/// The condition fields shared by `wait` and `expect`, flattened into each.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ConditionParams {
    /// CSS, in state.
    selector: Option<String>,
    /// Default visible.
    state: Option<State>,
    /// Shown on the page.
    text: Option<String>,
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    url: Option<String>,
    /// URL glob (* ?).
    url_matches: Option<String>,
    /// Read-only JS, polled (needs eval); default truthy.
    js: Option<String>,
    /// js equals.
    #[serde(default, deserialize_with = "present")]
    #[schemars(transform = no_default)]
    equals: Option<Value>,
    /// js differs.
    #[serde(default, deserialize_with = "present")]
    #[schemars(transform = no_default)]
    not_equals: Option<Value>,
    /// js contains.
    #[serde(default, deserialize_with = "present")]
    #[schemars(transform = no_default)]
    contains: Option<Value>,
    /// js ≥.
    min: Option<f64>,
    /// js ≤.
    max: Option<f64>,
    /// js truthy (true only).
    truthy: Option<bool>,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum State {
    Visible,
    Attached,
    Hidden,
}

/// A present JSON `null` is a value to match, not an absent parameter.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// A matcher's value has no default (`null` is a value to match).
fn no_default(schema: &mut schemars::Schema) {
    schema.remove("default");
}

/// How many conditions a caller may give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arity {
    /// `wait`: exactly one.
    One,
    /// `expect`: one or more, all required.
    AllOf,
}

impl ConditionParams {
    /// Whether it names a condition on the page at all.
    pub(crate) fn names_none(&self) -> bool {
        self.selector.is_none()
            && self.text.is_none()
            && self.url.is_none()
            && self.url_matches.is_none()
            && self.js.is_none()
    }

    /// The conditions asked for, checked by the one set of rules: none is
    /// `EMPTY_CONDITION`, and so is one that holds on any page (blank text, `*`); a state
    /// goes with a selector, a matcher with js, one matcher at most, `truthy` only true,
    /// bounds finite; js needs eval. `what` names the caller in messages (`wait`,
    /// `expect`).
    pub(crate) fn conditions(
        &self,
        what: &str,
        arity: Arity,
        eval_enabled: bool,
    ) -> Result<Vec<Condition>, ToolError> {
        let given = [
            ("selector", &self.selector),
            ("text", &self.text),
            ("url", &self.url),
            ("urlMatches", &self.url_matches),
            ("js", &self.js),
        ];
        let named: Vec<&str> = given
            .iter()
            .filter(|(_, value)| value.is_some())
            .map(|(name, _)| *name)
            .collect();
        match (named.as_slice(), arity) {
            ([], _) => {
                return Err(ToolError::new(
                    Code::EmptyCondition,
                    format!("{what} names no condition"),
                    "give one of selector (with state), text, url, urlMatches, js",
                ));
            }
            ([_], _) | (_, Arity::AllOf) => {}
            (several, Arity::One) => {
                return Err(ToolError::invalid_params(format!(
                    "{what} takes exactly one condition, not {}; call it once per condition",
                    several.join(" and ")
                )));
            }
        }
        for (name, value) in given {
            if let Some(value) = value
                && (value.trim().is_empty()
                    || name == "urlMatches" && value.chars().all(|c| c == '*'))
            {
                return Err(ToolError::new(
                    Code::EmptyCondition,
                    format!("{what}.{name} is empty: it would hold on any page"),
                    "give the selector, text, URL or expression the page must reach",
                ));
            }
        }
        if self.state.is_some() && self.selector.is_none() {
            return Err(ToolError::invalid_params(format!(
                "{what}.state goes with selector"
            )));
        }
        let matchers = self.matchers();
        if !matchers.is_empty() && self.js.is_none() {
            return Err(ToolError::invalid_params(format!(
                "{} goes with {what}.js",
                matchers.join(", ")
            )));
        }
        let mut conditions = Vec::new();
        if let Some(selector) = &self.selector {
            conditions.push(Condition::Selector {
                selector: selector.clone(),
                state: match self.state.unwrap_or(State::Visible) {
                    State::Visible => ElementState::Visible,
                    State::Attached => ElementState::Attached,
                    State::Hidden => ElementState::Hidden,
                },
            });
        }
        if let Some(text) = &self.text {
            conditions.push(Condition::Text(text.clone()));
        }
        if let Some(url) = &self.url {
            conditions.push(Condition::Url(url.clone()));
        }
        if let Some(glob) = &self.url_matches {
            conditions.push(Condition::UrlMatches(glob.clone()));
        }
        if let Some(expression) = &self.js {
            let matcher = self.matcher(what, &matchers)?;
            if !eval_enabled {
                return Err(super::eval::disabled(&format!("{what}.js")));
            }
            conditions.push(Condition::Js {
                expression: expression.clone(),
                matcher,
            });
        }
        Ok(conditions)
    }

    /// The condition fields given, as the caller gave them (`equals: null` kept).
    pub(crate) fn described(&self) -> Map<String, Value> {
        let mut map = Map::new();
        let mut put = |key: &str, value: Option<Value>| {
            if let Some(value) = value {
                map.insert(key.to_string(), value);
            }
        };
        put("selector", self.selector.clone().map(Value::String));
        put(
            "state", // not a tool name
            self.state
                .map(|s| Value::String(format!("{s:?}").to_lowercase())),
        );
        put("text", self.text.clone().map(Value::String));
        put("url", self.url.clone().map(Value::String));
        put("urlMatches", self.url_matches.clone().map(Value::String));
        put("js", self.js.clone().map(Value::String));
        put("equals", self.equals.clone());
        put("notEquals", self.not_equals.clone());
        put("contains", self.contains.clone());
        put("min", self.min.map(Value::from));
        put("max", self.max.map(Value::from));
        put("truthy", self.truthy.map(Value::Bool));
        map
    }

    /// The names of the js matchers given.
    fn matchers(&self) -> Vec<&'static str> {
        [
            ("equals", self.equals.is_some()),
            ("notEquals", self.not_equals.is_some()),
            ("contains", self.contains.is_some()),
            ("min", self.min.is_some()),
            ("max", self.max.is_some()),
            ("truthy", self.truthy.is_some()),
        ]
        .into_iter()
        .filter(|(_, given)| *given)
        .map(|(name, _)| name)
        .collect()
    }

    fn matcher(&self, what: &str, given: &[&str]) -> Result<Matcher, ToolError> {
        if given.len() > 1 {
            return Err(ToolError::invalid_params(format!(
                "{what}.js takes one matcher, not {}",
                given.join(" and ")
            )));
        }
        if self.truthy == Some(false) {
            return Err(ToolError::invalid_params(format!(
                "{what}.truthy:false is not a matcher; use equals or notEquals"
            )));
        }
        for (name, bound) in [("min", self.min), ("max", self.max)] {
            if bound.is_some_and(|b| !b.is_finite()) {
                return Err(ToolError::invalid_params(format!(
                    "{what}.{name} must be a finite number"
                )));
            }
        }
        Ok(if let Some(value) = &self.equals {
            Matcher::Equals(value.clone())
        } else if let Some(value) = &self.not_equals {
            Matcher::NotEquals(value.clone())
        } else if let Some(value) = &self.contains {
            Matcher::Contains(value.clone())
        } else if let Some(bound) = self.min {
            Matcher::Min(bound)
        } else if let Some(bound) = self.max {
            Matcher::Max(bound)
        } else {
            Matcher::Truthy
        })
    }
}

/// Refuses the keys no field took: serde cannot deny unknown fields through `flatten`,
/// so a struct with [`ConditionParams`] flattened in collects the rest and asks here.
pub(crate) fn refuse_unknown(what: &str, rest: &BTreeMap<String, Value>) -> Result<(), ToolError> {
    match rest.keys().next() {
        None => Ok(()),
        Some(key) => Err(ToolError::invalid_params(format!(
            "{what} has no parameter {key:?}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn conditions(json: Value, arity: Arity) -> Result<Vec<Condition>, ToolError> {
        let params: ConditionParams = serde_json::from_value(json).unwrap();
        params.conditions("wait", arity, true)
    }

    fn code(result: Result<Vec<Condition>, ToolError>) -> Code {
        match result {
            Ok(ok) => panic!("expected a refusal, got {ok:?}"),
            Err(error) => error.code,
        }
    }

    #[test]
    fn the_rules_hold_for_one_condition_and_for_several() {
        for arity in [Arity::One, Arity::AllOf] {
            for (json, want) in [
                (json!({}), Code::EmptyCondition),
                (json!({ "text": "  " }), Code::EmptyCondition),
                (json!({ "urlMatches": "*" }), Code::EmptyCondition),
                (json!({ "urlMatches": "**" }), Code::EmptyCondition),
                (
                    json!({ "text": "a", "state": "hidden" }),
                    Code::InvalidParams,
                ),
                (json!({ "text": "a", "equals": 1 }), Code::InvalidParams),
                (
                    json!({ "js": "1", "min": 1, "max": 2 }),
                    Code::InvalidParams,
                ),
                (json!({ "js": "1", "truthy": false }), Code::InvalidParams),
            ] {
                assert_eq!(
                    code(conditions(json.clone(), arity)),
                    want,
                    "{json} {arity:?}"
                );
            }
        }
        let two = json!({ "text": "a", "url": "http://x/" });
        assert_eq!(
            code(conditions(two.clone(), Arity::One)),
            Code::InvalidParams
        );
        assert_eq!(conditions(two, Arity::AllOf).unwrap().len(), 2);
    }

    #[test]
    fn null_is_a_value_to_match_and_truthy_is_the_default_matcher() {
        let null = conditions(json!({ "js": "window.x", "equals": null }), Arity::One).unwrap();
        assert_eq!(null[0].to_string(), "js \"window.x\" to equal null");
        let truthy = conditions(json!({ "js": "window.x" }), Arity::AllOf).unwrap();
        assert_eq!(truthy[0].to_string(), "js \"window.x\" to be truthy");
        let hidden =
            conditions(json!({ "selector": "#x", "state": "hidden" }), Arity::One).unwrap();
        assert_eq!(hidden[0].to_string(), "selector \"#x\" to be hidden");
    }

    #[test]
    fn js_needs_eval() {
        let params: ConditionParams = serde_json::from_value(json!({ "js": "1" })).unwrap();
        let refused = params
            .conditions("expect", Arity::AllOf, false)
            .unwrap_err();
        assert_eq!(refused.code, Code::EvalDisabled);
    }
}
