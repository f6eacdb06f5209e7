//! JSON Schema for tool params, trimmed for size: every schema is sent to the agent on
//! every turn, so titles and the meta-schema line are dropped and subschemas inlined.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

/// Whether a count is zero: what an output leaves out of its JSON (`skip_serializing_if`),
/// which a schema then lists as not required.
pub(crate) fn is_zero<T: Default + PartialEq>(n: &T) -> bool {
    *n == T::default()
}

pub(crate) fn params_schema<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            s.inline_subschemas = true;
        })
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    strip_titles(&mut schema);
    if let Value::Object(root) = &mut schema {
        // The tool's description says what the params are for; a struct's doc comment is
        // for its readers. Unknown params are refused by name (INVALID_PARAMS) either way,
        // so `additionalProperties: false` would only cost every turn.
        root.remove("description");
        root.remove("additionalProperties");
    }
    schema
}

fn strip_titles(value: &mut Value) {
    match value {
        Value::Object(map) => {
            // An optional field is optional by being absent from `required`; saying it
            // may also be null costs tokens and tells the model nothing useful.
            if let Some(Value::Array(types)) = map.get("type")
                && types.len() == 2
                && let Some(other) = types.iter().find(|t| *t != "null")
            {
                let other = other.clone();
                map.insert("type".into(), other);
            }
            if let Some(Value::Array(options)) = map.get("anyOf")
                && options.len() == 2
                && options
                    .iter()
                    .any(|o| o.get("type") == Some(&Value::from("null")))
                && let Some(Value::Object(other)) = options
                    .iter()
                    .find(|o| o.get("type") != Some(&Value::from("null")))
                    .cloned()
            {
                map.remove("anyOf");
                for (key, value) in other {
                    map.entry(key).or_insert(value);
                }
            }

            // An optional choice is optional by being absent, not by a `null` among its
            // values.
            if let Some(Value::Array(values)) = map.get_mut("enum") {
                values.retain(|v| !v.is_null());
            }
            // A choice among names, some with a doc comment of their own, is one enum:
            // what a name does belongs in the field's description.
            if let Some(Value::Array(options)) = map.get("oneOf")
                && let Some(names) = options
                    .iter()
                    .map(enum_names)
                    .collect::<Option<Vec<Vec<Value>>>>()
            {
                map.remove("oneOf");
                map.insert("type".into(), Value::from("string"));
                map.insert("enum".into(), Value::Array(names.concat()));
            }
            // Names are strings: an enum of them says so without `type`.
            if map
                .get("enum")
                .and_then(Value::as_array)
                .is_some_and(|names| !names.is_empty() && names.iter().all(Value::is_string))
            {
                map.remove("type");
            }
            // A boolean flag is false unless given; saying so costs tokens on every turn.
            if map.get("default") == Some(&Value::Bool(false)) {
                map.remove("default");
            }
            // A property that is itself called `title` is an object, not a string.
            if map.get("title").is_some_and(Value::is_string) {
                map.remove("title");
            }
            // `format: uint`, `double` and friends are noise to a model; so are a number's
            // bounds, which the tool checks and states in its refusal (INVALID_PARAMS)
            // for the rare call that passes one.
            if map.get("format").and_then(Value::as_str).is_some_and(|f| {
                f.starts_with("uint") || f.starts_with("int") || f == "double" || f == "float"
            }) {
                map.remove("format");
            }
            for bound in ["minimum", "maximum"] {
                if map.get(bound).is_some_and(Value::is_number) {
                    map.remove(bound);
                }
            }
            map.values_mut().for_each(strip_titles);
            // Nested objects: serde refuses unknown fields anyway; the root says so once.
            if let Some(Value::Object(properties)) = map.get_mut("properties") {
                for property in properties.values_mut() {
                    if let Value::Object(inner) = property {
                        inner.remove("additionalProperties");
                    }
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_titles),
        _ => {}
    }
}

/// The schema of a param listed as "an object" whose keys its description names (act's
/// `expect`, whose keys are browser_wait's, and drag's `to`): spelled out again they
/// would cost every turn what another schema already pays. The keys are still checked,
/// and unknown ones refused by name.
pub(crate) fn any_object(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "object" })
}

/// The names a string-enum or string-const schema allows, or `None` for any other.
fn enum_names(option: &Value) -> Option<Vec<Value>> {
    if option.get("type") != Some(&Value::from("string")) {
        return None;
    }
    match (option.get("enum"), option.get("const")) {
        (Some(Value::Array(values)), None) => Some(values.clone()),
        (None, Some(value)) => Some(vec![value.clone()]),
        _ => None,
    }
}

/// The `outputSchema` of a tool whose data is `T`: the envelope (docs/envelope.md#shape), with `data`
/// held to `T` on success and partial results (an error's data is the error's own).
/// Sent on every `tools/list`, so it says shapes only: which envelope fields there
/// are, and the data's fields and their types. No titles, descriptions, formats or long
/// enumerations, which a validating client does not need and a model does not read.
pub(crate) fn output_schema<T: JsonSchema>() -> Value {
    let mut envelope = shape::<crate::envelope::Envelope>(1);
    if let Value::Object(map) = &mut envelope {
        // Only the fields every reader branches on are spelled out; the rest are
        // required by name.
        if let Some(Value::Object(properties)) = map.get_mut("properties") {
            properties.retain(|key, _| matches!(key.as_str(), "ok" | "status"));
            properties.insert(
                "status".into(),
                serde_json::json!({"enum": ["success", "partial", "error"]}),
            );
        }
        map.insert(
            "if".into(),
            serde_json::json!({"properties": {"status": {"const": "error"}}}),
        );
        map.insert(
            "else".into(),
            serde_json::json!({"properties": {"data": shape::<T>(1)}}),
        );
    }
    envelope
}

/// `T`'s schema as it serialises (a field skipped when empty is not required), cut to
/// `levels` levels of properties.
fn shape<T: JsonSchema>(levels: usize) -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            s.inline_subschemas = true;
            s.contract = schemars::generate::Contract::Serialize;
        })
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    cut(&mut schema, levels);
    schema
}

/// Keeps what a value must look like down to `levels` levels of properties; below, only
/// its type. Prose (titles, descriptions, formats) and enumerations of more than eight
/// values go everywhere.
fn cut(value: &mut Value, levels: usize) {
    let Value::Object(map) = value else {
        if let Value::Array(items) = value {
            items.iter_mut().for_each(|item| cut(item, levels));
        }
        return;
    };
    map.retain(|key, _| !matches!(key.as_str(), "title" | "description" | "format"));
    if map.get("minimum") == Some(&Value::from(0)) {
        map.remove("minimum");
    }
    if map
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|e| e.len() > 8)
    {
        map.remove("enum");
    }
    if levels == 0 {
        let kept = map.get("type").cloned();
        map.clear();
        if let Some(kind) = kept {
            map.insert("type".into(), kind);
        }
        return;
    }
    for (key, child) in map.iter_mut() {
        match key.as_str() {
            "properties" => {
                if let Value::Object(properties) = child {
                    properties.values_mut().for_each(|p| cut(p, levels - 1));
                }
            }
            "items" | "additionalProperties" => cut(child, levels - 1),
            _ => cut(child, levels),
        }
    }
}
