//! What an event's values read as: a console call's arguments as the console writes
//! them, stack frames, headers, file names, clipped text and sizes.

use cdp::protocol::runtime;
use serde_json::Value;

use super::{MAX_HEADER_VALUE, MAX_HEADERS, MAX_STACK};

/// Text built up to a number of characters: what would pass it is counted, never copied,
/// so a page that logs a string of hundreds of megabytes costs a scan of it, not a copy.
pub(super) struct Bounded {
    text: String,
    chars: usize,
    max: usize,
    /// Characters left out past `max`.
    pub(super) cut: usize,
}

impl Bounded {
    pub(super) fn new(max: usize) -> Self {
        Bounded {
            text: String::new(),
            chars: 0,
            max,
            cut: 0,
        }
    }

    pub(super) fn push_str(&mut self, text: &str) {
        let room = self.max - self.chars;
        match text.char_indices().nth(room) {
            None => {
                self.chars += text.chars().count();
                self.text.push_str(text);
            }
            Some((at, _)) => {
                self.text.push_str(&text[..at]);
                self.chars = self.max;
                self.cut += text[at..].chars().count();
            }
        }
    }

    pub(super) fn push(&mut self, c: char) {
        if self.chars < self.max {
            self.text.push(c);
            self.chars += 1;
        } else {
            self.cut += 1;
        }
    }

    pub(super) fn into_parts(self) -> (String, usize) {
        (self.text, self.cut)
    }
}

/// A console call's arguments (`Runtime.consoleAPICalled`'s `args`, read where they lie in
/// the event) as the console shows them: a first argument with `%s`, `%d`, `%i`, `%f`,
/// `%o`, `%O` takes the next arguments in its place (`%c`, a style, takes one and shows
/// nothing); the rest follow, separated by spaces.
pub(super) fn console_text(args: &[Value], out: &mut Bounded) {
    let mut rest = args.iter();
    let mut first_part = true;
    if let Some(first) = args.first()
        && first["type"] == "string"
    {
        rest.next();
        first_part = false;
        let format = first["value"].as_str().unwrap_or("");
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
                        Some(arg) => object_text(arg, out),
                        None => {
                            out.push('%');
                            out.push(spec);
                        }
                    }
                }
                _ => out.push('%'),
            }
        }
    }
    for arg in rest {
        if !first_part {
            out.push(' ');
        }
        first_part = false;
        object_text(arg, out);
    }
}

/// One value (a `RemoteObject`) as the console writes it.
pub(super) fn object_text(object: &Value, out: &mut Bounded) {
    let kind = object["type"].as_str().unwrap_or_default();
    match (kind, &object["value"]) {
        ("undefined", _) => out.push_str("undefined"),
        (_, Value::String(text)) => out.push_str(text),
        _ if object["subtype"] == "null" => out.push_str("null"),
        (_, value @ (Value::Number(_) | Value::Bool(_))) => out.push_str(&value.to_string()),
        _ => match object["unserializableValue"]
            .as_str()
            .or(object["description"].as_str())
        {
            Some(text) => out.push_str(text),
            None => out.push_str(kind),
        },
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
