//! JSON Schema for tool params, trimmed for size: every schema is sent to the agent on
//! every turn, so titles and the meta-schema line are dropped and subschemas inlined.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

pub(crate) fn params_schema<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            s.inline_subschemas = true;
        })
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    strip_titles(&mut schema);
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

            // A boolean flag is false unless given; saying so costs tokens on every turn.
            if map.get("default") == Some(&Value::Bool(false)) {
                map.remove("default");
            }
            // A property that is itself called `title` is an object, not a string.
            if map.get("title").is_some_and(Value::is_string) {
                map.remove("title");
            }
            // `format: uint`, `double` and friends are noise to a model; so is a minimum
            // of 0 on a count.
            if map.get("format").and_then(Value::as_str).is_some_and(|f| {
                f.starts_with("uint") || f.starts_with("int") || f == "double" || f == "float"
            }) {
                map.remove("format");
            }
            if map.get("minimum") == Some(&Value::from(0)) {
                map.remove("minimum");
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
