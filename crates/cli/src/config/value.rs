//! A key's value by its type: how it is read from the file (TOML), from an environment
//! variable's text and from its flags, what a bad one is, and how it is shown (TOML for
//! `candor config`, JSON for `--json`). A type a key holds is a [`Setting`]; a list's item
//! is an [`Item`].

use std::path::PathBuf;

use browser::{OriginRule, PressPause};
use serde_json::Value;

use super::{
    BrowserArg, DefaultViewport, DialogPolicy, EndpointUrl, FieldName, ProxyServer, Secret, Text,
};

/// A value as it arrives: from the file, an environment variable, or the flags given.
pub(super) enum Raw<'a> {
    Toml(&'a toml::Value),
    Text(&'a str),
    Flags(&'a [String]),
}

/// A type a key can hold.
pub(super) trait Setting: Sized {
    /// What the key takes.
    const TAKES: &'static str;
    /// The flag's value name in `--help`.
    const VALUE_NAME: &'static str;
    /// True or false: the flag may stand alone.
    const SWITCH: bool = false;
    fn from_toml(value: &toml::Value) -> Result<Self, String>;
    fn from_text(text: &str) -> Result<Self, String>;
    /// The flags given: the last counts (a list takes each as one item).
    fn from_flags(values: &[String]) -> Result<Self, String> {
        Self::from_text(values.last().map_or("", String::as_str))
    }
    /// The value as TOML.
    fn show(&self) -> String;
    /// The value as JSON.
    fn json(&self) -> Value;
    /// A number, for its bounds.
    fn number(&self) -> Option<u64> {
        None
    }

    fn read(raw: Raw<'_>) -> Result<Self, String> {
        match raw {
            Raw::Toml(value) => Self::from_toml(value),
            Raw::Text(text) => Self::from_text(text),
            Raw::Flags(values) => Self::from_flags(values),
        }
    }
}

/// The text of a TOML string, or why not.
fn toml_text(value: &toml::Value) -> Result<&str, String> {
    value
        .as_str()
        .ok_or_else(|| "it is not a string".to_string())
}

fn quoted(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

impl Setting for bool {
    const TAKES: &'static str = "true or false";
    const VALUE_NAME: &'static str = "BOOL";
    const SWITCH: bool = true;
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        value
            .as_bool()
            .ok_or_else(|| "it is not true or false".into())
    }
    /// `true`/`1`/`yes`/`on` or `false`/`0`/`no`/`off`: anything else is an error, so a
    /// typo never silently leaves a setting as it was.
    fn from_text(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Ok(true),
            "false" | "0" | "no" | "off" => Ok(false),
            _ => Err("it is not true or false".into()),
        }
    }
    fn show(&self) -> String {
        self.to_string()
    }
    fn json(&self) -> Value {
        Value::Bool(*self)
    }
}

impl Setting for u64 {
    const TAKES: &'static str = "a whole number";
    const VALUE_NAME: &'static str = "N";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        value
            .as_integer()
            .and_then(|n| u64::try_from(n).ok())
            .ok_or_else(|| "it is not a whole number".into())
    }
    fn from_text(text: &str) -> Result<Self, String> {
        text.trim()
            .parse()
            .map_err(|_| "it is not a whole number".into())
    }
    fn show(&self) -> String {
        self.to_string()
    }
    fn json(&self) -> Value {
        Value::from(*self)
    }
    fn number(&self) -> Option<u64> {
        Some(*self)
    }
}

impl Setting for PathBuf {
    const TAKES: &'static str = "a path";
    const VALUE_NAME: &'static str = "PATH";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_text(toml_text(value)?)
    }
    fn from_text(text: &str) -> Result<Self, String> {
        if text.trim().is_empty() {
            return Err("it is empty".into());
        }
        Ok(PathBuf::from(text))
    }
    fn show(&self) -> String {
        quoted(&self.display().to_string())
    }
    fn json(&self) -> Value {
        Value::String(self.display().to_string())
    }
}

impl Setting for DialogPolicy {
    const TAKES: &'static str = "auto or ask";
    const VALUE_NAME: &'static str = "auto|ask";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_text(toml_text(value)?)
    }
    fn from_text(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(DialogPolicy::Auto),
            "ask" => Ok(DialogPolicy::Ask),
            _ => Err("it is not auto or ask".into()),
        }
    }
    fn show(&self) -> String {
        quoted(self.name())
    }
    fn json(&self) -> Value {
        Value::String(self.name().into())
    }
}

impl Setting for DefaultViewport {
    const TAKES: &'static str = "auto, phone, tablet or desktop";
    const VALUE_NAME: &'static str = "auto|phone|tablet|desktop";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_text(toml_text(value)?)
    }
    fn from_text(text: &str) -> Result<Self, String> {
        let preset = match text.trim().to_ascii_lowercase().as_str() {
            "auto" => browser::Preset::Auto,
            "phone" => browser::Preset::Phone,
            "tablet" => browser::Preset::Tablet,
            "desktop" => browser::Preset::Desktop,
            _ => return Err("it is not auto, phone, tablet or desktop".into()),
        };
        Ok(DefaultViewport(preset))
    }
    fn show(&self) -> String {
        quoted(self.0.name())
    }
    fn json(&self) -> Value {
        Value::String(self.0.name().into())
    }
}

impl Setting for PressPause {
    const TAKES: &'static str = "\"MIN,MAX\" or one number of milliseconds (at most 1000)";
    const VALUE_NAME: &'static str = "MIN,MAX";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        match value {
            toml::Value::Integer(ms) => Self::from_text(&ms.to_string()),
            toml::Value::String(text) => Self::from_text(text),
            _ => Err("it is not a number or a string".into()),
        }
    }
    fn from_text(text: &str) -> Result<Self, String> {
        PressPause::parse(text).map_err(|e| e.reason.to_string())
    }
    fn show(&self) -> String {
        let (min, max) = (self.min().as_millis(), self.max().as_millis());
        if min == max {
            min.to_string()
        } else {
            quoted(&format!("{min},{max}"))
        }
    }
    fn json(&self) -> Value {
        let (min, max) = (self.min().as_millis(), self.max().as_millis());
        if min == max {
            Value::from(min as u64)
        } else {
            Value::String(format!("{min},{max}"))
        }
    }
}

impl<T: Setting> Setting for Option<T> {
    const TAKES: &'static str = T::TAKES;
    const VALUE_NAME: &'static str = T::VALUE_NAME;
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        T::from_toml(value).map(Some)
    }
    fn from_text(text: &str) -> Result<Self, String> {
        T::from_text(text).map(Some)
    }
    fn show(&self) -> String {
        self.as_ref().map_or_else(|| "(unset)".into(), T::show)
    }
    fn json(&self) -> Value {
        self.as_ref().map_or(Value::Null, T::json)
    }
}

/// An item of a list key.
pub(super) trait Item: Sized {
    const TAKES: &'static str;
    const VALUE_NAME: &'static str;
    /// What separates items in an environment variable (`None`: white space).
    const SEPARATOR: Option<char>;
    fn parse(text: &str) -> Result<Self, String>;
    fn text(&self) -> String;
}

impl<T: Item> Setting for Vec<T> {
    const TAKES: &'static str = T::TAKES;
    const VALUE_NAME: &'static str = T::VALUE_NAME;
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        let items = value
            .as_array()
            .ok_or_else(|| "it is not a list".to_string())?;
        items
            .iter()
            .map(|item| T::parse(toml_text(item)?))
            .collect()
    }
    fn from_text(text: &str) -> Result<Self, String> {
        let items: Vec<&str> = match T::SEPARATOR {
            Some(separator) => text.split(separator).collect(),
            None => text.split_whitespace().collect(),
        };
        items
            .into_iter()
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(T::parse)
            .collect()
    }
    fn from_flags(values: &[String]) -> Result<Self, String> {
        values.iter().map(|value| T::parse(value)).collect()
    }
    fn show(&self) -> String {
        let items: Vec<String> = self.iter().map(|item| quoted(&item.text())).collect();
        format!("[{}]", items.join(", "))
    }
    fn json(&self) -> Value {
        self.iter().map(|item| Value::String(item.text())).collect()
    }
}

impl Item for BrowserArg {
    const TAKES: &'static str = "a list of Chromium switches";
    const VALUE_NAME: &'static str = "SWITCH";
    const SEPARATOR: Option<char> = None;
    fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if !text.starts_with("--") || text.len() < 3 || text.contains(char::is_whitespace) {
            return Err(format!(
                "{text:?} is not a Chromium switch (--name or --name=value)"
            ));
        }
        Ok(BrowserArg(text.to_string()))
    }
    fn text(&self) -> String {
        self.0.clone()
    }
}

impl Item for EndpointUrl {
    const TAKES: &'static str = "a list of ws://, wss://, http:// or https:// URLs";
    const VALUE_NAME: &'static str = "URL";
    const SEPARATOR: Option<char> = Some(',');
    fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        match text.split_once("://") {
            Some(("ws" | "wss" | "http" | "https", rest))
                if !rest.is_empty()
                    && !rest.starts_with('/')
                    && !rest.contains(char::is_whitespace) =>
            {
                Ok(EndpointUrl(text.to_string()))
            }
            _ => Err(format!(
                "{text:?} is not a ws://, wss://, http:// or https:// URL"
            )),
        }
    }
    fn text(&self) -> String {
        self.0.clone()
    }
}

/// One URL (`grid`): the same as a list's item.
impl Setting for EndpointUrl {
    const TAKES: &'static str = "an http:// or https:// URL";
    const VALUE_NAME: &'static str = "URL";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_text(toml_text(value)?)
    }
    fn from_text(text: &str) -> Result<Self, String> {
        let url = <EndpointUrl as Item>::parse(text)?;
        if url.0.starts_with("ws") {
            return Err(format!("{:?} is not an http:// or https:// URL", url.0));
        }
        Ok(url)
    }
    fn show(&self) -> String {
        quoted(&self.0)
    }
    fn json(&self) -> Value {
        Value::String(self.0.clone())
    }
}

impl Item for OriginRule {
    const TAKES: &'static str =
        "a list of origins (`scheme://host[:port]`, `host[:port]` or `*.host`)";
    const VALUE_NAME: &'static str = "ORIGIN";
    const SEPARATOR: Option<char> = Some(',');
    fn parse(text: &str) -> Result<Self, String> {
        OriginRule::parse(text)
    }
    fn text(&self) -> String {
        self.to_string()
    }
}

impl Item for FieldName {
    const TAKES: &'static str = "a list of field names";
    const VALUE_NAME: &'static str = "NAME";
    const SEPARATOR: Option<char> = Some(',');
    fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.len() < 3 || text.contains(char::is_whitespace) {
            return Err(format!(
                "{text:?} is not a field name (at least 3 characters, no spaces)"
            ));
        }
        Ok(FieldName(text.to_string()))
    }
    fn text(&self) -> String {
        self.0.clone()
    }
}

impl Setting for ProxyServer {
    const TAKES: &'static str = "a proxy server";
    const VALUE_NAME: &'static str = "URL";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_text(toml_text(value)?)
    }
    fn from_text(text: &str) -> Result<Self, String> {
        let text = text.trim();
        browser::Proxy::check_server(text)?;
        Ok(ProxyServer(text.to_string()))
    }
    fn show(&self) -> String {
        quoted(&self.0)
    }
    fn json(&self) -> Value {
        Value::String(self.0.clone())
    }
}

/// Text as written, but not empty.
fn text(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        return Err("it is empty".into());
    }
    Ok(text.to_string())
}

impl Setting for Text {
    const TAKES: &'static str = "text";
    const VALUE_NAME: &'static str = "TEXT";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_text(toml_text(value)?)
    }
    fn from_text(value: &str) -> Result<Self, String> {
        text(value).map(Text)
    }
    fn show(&self) -> String {
        quoted(&self.0)
    }
    fn json(&self) -> Value {
        Value::String(self.0.clone())
    }
}

impl Setting for Secret {
    const TAKES: &'static str = "text, a secret";
    const VALUE_NAME: &'static str = "SECRET";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_text(toml_text(value)?)
    }
    fn from_text(value: &str) -> Result<Self, String> {
        text(value).map(Secret)
    }
    fn show(&self) -> String {
        quoted(browser::REDACTED)
    }
    fn json(&self) -> Value {
        Value::String(browser::REDACTED.into())
    }
}
