//! What is secret, decided once (docs/security.md#secrets). Everything that keeps or shows what passed
//! through the browser reads it from here: tapes ([`crate::redact`]), the engine's
//! journal and archive and the CLI's records (by key), and, in `browser`, the page-side
//! scripts and the snapshot (by field).
//!
//! Two faces of one definition:
//! - a **key** (a JSON field, a header) is secret when its name contains one of
//!   [`SECRET_NAMES`] or a name the configuration adds (`redactKeys`), in any case;
//! - a **field** of a page is secret when it is a password input, when its
//!   `autocomplete` holds one of [`SECRET_AUTOCOMPLETE`]'s tokens, or when it is an input
//!   or a textarea whose `name` or `id` is a secret key's.
//!
//! Page-side scripts get the field rule as an argument, a CSS selector built here
//! ([`secret_field_selector`]), never a copy of the lists; Rust-side readers of DOM
//! attributes ask [`is_secret_field`].
//!
//! This is the one piece of process-wide state of this crate: what else counts as secret
//! is a property of the deployment, set once at start ([`add_secret_keys`]).

use std::sync::OnceLock;

use serde_json::Value;

/// Names that make a key secret wherever they occur in it (`X-Api-Key`, `set-cookie`,
/// `postDataEntries`, `accessToken`).
pub const SECRET_NAMES: &[&str] = &[
    "password",
    "passwd",
    "secret",
    "token",
    "authorization",
    "cookie",
    "apikey",
    "api_key",
    "api-key",
    "postdata",
];

/// `autocomplete` tokens of credentials and payment cards: a field holding one of them
/// (among others: `billing cc-number`) is secret.
pub const SECRET_AUTOCOMPLETE: &[&str] = &[
    "current-password",
    "new-password",
    "one-time-code",
    "cc-number",
    "cc-csc",
    "cc-exp",
    "cc-exp-month",
    "cc-exp-year",
];

/// What a secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// The names the configuration added (`redactKeys`), lowercase.
static EXTRA_SECRET_NAMES: OnceLock<Vec<String>> = OnceLock::new();

/// Adds names to [`SECRET_NAMES`] for the rest of the process (config `redactKeys`): keys
/// and fields named with one of them are secret too. Only the first call counts; a
/// later one returns false.
pub fn add_secret_keys(keys: &[String]) -> bool {
    EXTRA_SECRET_NAMES
        .set(keys.iter().map(|k| k.to_ascii_lowercase()).collect())
        .is_ok()
}

/// Every secret name: the built-in ones, then the configured ones.
fn names() -> impl Iterator<Item = &'static str> {
    SECRET_NAMES.iter().copied().chain(
        EXTRA_SECRET_NAMES
            .get()
            .into_iter()
            .flatten()
            .map(String::as_str),
    )
}

/// Whether a key named `key` is secret: its name contains a secret name, in any case.
pub fn is_secret_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    names().any(|name| key.contains(name))
}

/// Whether an element is a secret field: `tag` is its local name, `attribute` reads its
/// attributes by name (in any case). What [`secret_field_selector`] matches page-side.
pub fn is_secret_field(tag: &str, attribute: impl Fn(&str) -> Option<String>) -> bool {
    let input = tag.eq_ignore_ascii_case("input");
    if input && attribute("type").is_some_and(|t| t.trim().eq_ignore_ascii_case("password")) {
        return true;
    }
    if attribute("autocomplete").is_some_and(|tokens| {
        tokens.split_ascii_whitespace().any(|token| {
            SECRET_AUTOCOMPLETE
                .iter()
                .any(|s| token.eq_ignore_ascii_case(s))
        })
    }) {
        return true;
    }
    (input || tag.eq_ignore_ascii_case("textarea"))
        && ["name", "id"]
            .into_iter()
            .any(|a| attribute(a).is_some_and(|value| is_secret_key(&value)))
}

/// The field rule as a CSS selector, for page-side scripts (`element.matches(selector)`):
/// the same fields as [`is_secret_field`].
pub fn secret_field_selector() -> String {
    let quoted = |text: &str| text.replace('\\', "\\\\").replace('"', "\\\"");
    let mut parts = vec![r#"input[type="password" i]"#.to_string()];
    parts.extend(
        SECRET_AUTOCOMPLETE
            .iter()
            .map(|token| format!(r#"[autocomplete~="{token}" i]"#)),
    );
    for name in names() {
        for attribute in ["name", "id"] {
            parts.push(format!(
                r#":is(input, textarea)[{attribute}*="{}" i]"#,
                quoted(name)
            ));
        }
    }
    parts.join(", ")
}

/// Replaces every secret in `value` by key, at any depth: the value of a secret key;
/// the `value` of a `{name, value}` pair whose name is secret (header lists); and, in
/// raw header text (`headersText`), the value of each secret header line.
pub fn redact_secrets(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                if is_secret_key(key) {
                    *value = Value::String(REDACTED.into());
                } else if key.to_ascii_lowercase().ends_with("headerstext")
                    && let Value::String(text) = value
                {
                    *text = redact_header_text(text);
                } else {
                    redact_secrets(value);
                }
            }
            if map
                .get("name")
                .and_then(Value::as_str)
                .is_some_and(is_secret_key)
                && let Some(value) = map.get_mut("value")
            {
                *value = Value::String(REDACTED.into());
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_secrets),
        _ => {}
    }
}

/// `Set-Cookie: sid=1\r\nAccept: */*` → `Set-Cookie: [redacted]\r\nAccept: */*`.
fn redact_header_text(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| match line.split_once(':') {
            Some((name, _)) if is_secret_key(name.trim()) => {
                let end = &line[line.trim_end_matches(['\r', '\n']).len()..];
                format!("{name}: {REDACTED}{end}")
            }
            _ => line.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_key_is_secret_when_a_secret_name_is_in_it_in_any_case() {
        for secret in [
            "password",
            "X-Api-Key",
            "set-cookie",
            "Cookie",
            "postDataEntries",
            "accessToken",
            "Proxy-Authorization",
        ] {
            assert!(is_secret_key(secret), "{secret}");
        }
        for plain in ["url", "sessionId", "value", "name", "headers"] {
            assert!(!is_secret_key(plain), "{plain}");
        }
    }

    #[test]
    fn secrets_are_redacted_by_key_in_pairs_and_in_raw_header_text() {
        let mut message = json!({
            "request": {
                "headers": { "X-Api-Key": "k-1", "Accept": "*/*" },
                "postDataEntries": [{ "bytes": "dXNlcj1h" }],
            },
            "pairs": [{ "name": "Set-Cookie", "value": "sid=2" }, { "name": "Accept", "value": "a" }],
            "headersText": "HTTP/1.1 200 OK\r\nSet-Cookie: sid=3; Path=/\r\nContent-Type: text/html\r\n\r\n",
        });
        redact_secrets(&mut message);
        let text = message.to_string();
        for secret in ["k-1", "dXNlcj1h", "sid=2", "sid=3"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert_eq!(
            message["headersText"],
            "HTTP/1.1 200 OK\r\nSet-Cookie: [redacted]\r\nContent-Type: text/html\r\n\r\n"
        );
        assert_eq!(message["pairs"][1]["value"], "a");
        assert_eq!(message["request"]["headers"]["Accept"], "*/*");
    }

    /// The field rule: Rust-side, and as the selector page-side scripts get.
    #[test]
    fn a_field_is_secret_by_type_by_autocomplete_token_or_by_name() {
        let field = |tag: &str, attributes: &[(&str, &str)]| {
            let attributes: Vec<(String, String)> = attributes
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            is_secret_field(tag, |name| {
                attributes
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(name))
                    .map(|(_, v)| v.clone())
            })
        };
        assert!(field("input", &[("type", "Password")]));
        assert!(field("input", &[("autocomplete", "billing cc-number")]));
        assert!(field("input", &[("autocomplete", "ONE-TIME-CODE")]));
        assert!(field("input", &[("autocomplete", "cc-exp-month")]));
        assert!(field("textarea", &[("name", "recovery_secret")]));
        assert!(field("input", &[("id", "apiKey")]));
        assert!(!field("input", &[("autocomplete", "billing cc-name")]));
        assert!(!field(
            "input",
            &[("autocomplete", "off"), ("name", "user")]
        ));
        assert!(!field("select", &[("name", "token_type")]));
        assert!(!field("div", &[("type", "password")]));
        let selector = secret_field_selector();
        assert!(
            selector.starts_with(r#"input[type="password" i], "#),
            "{selector}"
        );
        assert!(
            selector.contains(r#"[autocomplete~="cc-number" i]"#),
            "{selector}"
        );
        assert!(
            selector.contains(r#":is(input, textarea)[id*="apikey" i]"#),
            "{selector}"
        );
    }
}
