//! The page's structured data (`snapshot {mode:"data"}`): JSON-LD, microdata and meta
//! (OpenGraph, Twitter, description, canonical), so an agent reads a price or a date as
//! the page states it. A JSON-LD block that does not parse is reported on its own.

use cdp::Deadline;
use serde_json::Value;

use crate::{Error, Tab};

/// The most blocks, items and meta tags read; the most characters of one value.
const MAX_ITEMS: usize = 50;
const MAX_CHARS: usize = 20_000;

/// What `structured_data.js` answers.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Reply {
    json_ld: Vec<String>,
    microdata: Vec<Value>,
    meta: Vec<Meta>,
}

/// One `<meta>` (or the canonical link).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Meta {
    pub key: String,
    pub content: String,
}

/// One JSON-LD block: its value, or why it does not parse.
#[derive(Debug, Clone)]
pub struct JsonLd {
    /// 1-based, in document order.
    pub index: usize,
    pub result: Result<Value, String>,
}

impl JsonLd {
    /// The block's `@type` (the first one of a `@graph` when it has no own).
    pub fn kind(&self) -> Option<String> {
        let value = self.result.as_ref().ok()?;
        let own = |v: &Value| match v.get("@type") {
            Some(Value::String(t)) => Some(t.clone()),
            Some(Value::Array(types)) => types.first().and_then(Value::as_str).map(str::to_string),
            _ => None,
        };
        own(value).or_else(|| value.get("@graph")?.as_array()?.iter().find_map(own))
    }
}

/// The structured data of a page.
#[derive(Debug, Clone)]
pub struct StructuredData {
    pub json_ld: Vec<JsonLd>,
    /// Top-level microdata items: `{type, properties}`.
    pub microdata: Vec<Value>,
    pub meta: Vec<Meta>,
}

impl Tab {
    /// Reads the main document's structured data.
    pub async fn structured_data(&self, deadline: Deadline) -> Result<StructuredData, Error> {
        let reply = self
            .call_script(
                &STRUCTURED_DATA,
                vec![serde_json::json!(MAX_ITEMS), serde_json::json!(MAX_CHARS)],
                deadline,
            )
            .await?;
        Ok(parse(reply))
    }
}

fn parse(reply: Reply) -> StructuredData {
    StructuredData {
        json_ld: reply
            .json_ld
            .iter()
            .enumerate()
            .map(|(i, text)| JsonLd {
                index: i + 1,
                result: serde_json::from_str(text).map_err(|e| e.to_string()),
            })
            .collect(),
        microdata: reply.microdata,
        meta: reply.meta,
    }
}

/// `{jsonLd, microdata, meta}`: the page's structured data (see `structured.rs`).
pub(crate) const STRUCTURED_DATA: crate::script::Script<crate::structured::Reply> =
    crate::script::script!("structured_data" => crate::structured::Reply);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_block_is_reported_alone_and_types_are_found() {
        let data = parse(Reply {
            json_ld: vec![
                r#"{"@type": "Product", "offers": {"price": "19.99"}}"#.into(),
                r#"{"@type": "Product", "name": "#.into(),
                r#"{"@context": "https://schema.org", "@graph": [{"@type": ["Article", "Thing"]}]}"#
                    .into(),
            ],
            microdata: Vec::new(),
            meta: Vec::new(),
        });
        assert_eq!(data.json_ld[0].kind().as_deref(), Some("Product"));
        assert!(data.json_ld[1].result.is_err());
        assert_eq!(data.json_ld[1].index, 2);
        assert_eq!(data.json_ld[2].kind().as_deref(), Some("Article"));
    }
}
