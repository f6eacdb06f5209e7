//! What an event's values read as: a console call's arguments as the console writes
//! them, stack frames, headers, file names, clipped text and sizes.

use cdp::protocol::runtime;

use super::{MAX_HEADER_VALUE, MAX_HEADERS, MAX_STACK};

/// A console call's arguments as the console shows them: a first argument with `%s`,
/// `%d`, `%i`, `%f`, `%o`, `%O` takes the next arguments in its place (`%c`, a style,
/// takes one and shows nothing); the rest follow, separated by spaces.
pub(super) fn console_text(args: &[runtime::RemoteObject]) -> String {
    let mut rest = args.iter();
    let mut parts = Vec::new();
    if let Some(first) = args.first()
        && first.r#type == "string"
    {
        rest.next();
        let format = first.value.as_ref().and_then(|v| v.as_str()).unwrap_or("");
        let mut out = String::new();
        let mut chars = format.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            match chars.peek().copied() {
                Some('%') => {
                    chars.next();
                    out.push('%');
                }
                Some(spec @ ('s' | 'd' | 'i' | 'f' | 'o' | 'O' | 'c')) => {
                    chars.next();
                    match rest.next() {
                        Some(_) if spec == 'c' => {}
                        Some(arg) => out.push_str(&object_text(arg)),
                        None => {
                            out.push('%');
                            out.push(spec);
                        }
                    }
                }
                _ => out.push('%'),
            }
        }
        parts.push(out);
    }
    parts.extend(rest.map(object_text));
    parts.join(" ")
}

/// One value as the console writes it.
pub(super) fn object_text(object: &runtime::RemoteObject) -> String {
    match object.r#type.as_str() {
        "undefined" => "undefined".into(),
        "string" => object
            .value
            .as_ref()
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string(),
        _ if object.subtype.as_deref() == Some("null") => "null".into(),
        _ => object
            .value
            .as_ref()
            .filter(|v| !v.is_object() && !v.is_array())
            .map(value_text)
            .or_else(|| object.description.clone())
            .unwrap_or_else(|| object.r#type.clone()),
    }
}

pub(super) fn value_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

pub(super) fn stack_lines(frames: &[runtime::CallFrame]) -> Vec<String> {
    frames
        .iter()
        .take(MAX_STACK)
        .map(|f| {
            let name = if f.function_name.is_empty() {
                "(anonymous)"
            } else {
                f.function_name.as_str()
            };
            format!(
                "{name} ({}:{}:{})",
                f.url,
                f.line_number.max(0) + 1,
                f.column_number.max(0) + 1
            )
        })
        .collect()
}

pub(super) fn headers(map: &serde_json::Map<String, serde_json::Value>) -> Vec<(String, String)> {
    map.iter()
        .take(MAX_HEADERS)
        .map(|(name, value)| {
            let value = value_text(value);
            (name.clone(), clip_owned(value, MAX_HEADER_VALUE).0)
        })
        .collect()
}

/// The last segment of a URL's path (`app.js`), or the URL when it has none.
pub(super) fn file_name(url: &str) -> &str {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    match path.rsplit('/').next() {
        Some(name) if !name.is_empty() => name,
        _ => url,
    }
}

/// `text` cut to `max` characters, `…` marking the cut.
pub(super) fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// `text` cut to `max` characters, and how many were cut.
pub(super) fn clip_owned(mut text: String, max: usize) -> (String, usize) {
    match text.char_indices().nth(max) {
        Some((at, _)) => {
            let cut = text[at..].chars().count();
            text.truncate(at);
            (text, cut)
        }
        None => (text, 0),
    }
}

/// `812 B`, `1.2 KB`, `3.4 MB`.
pub(super) fn size(bytes: u64) -> String {
    match bytes {
        0..1_000 => format!("{bytes} B"),
        1_000..1_000_000 => format!("{:.1} KB", bytes as f64 / 1e3),
        _ => format!("{:.1} MB", bytes as f64 / 1e6),
    }
}
