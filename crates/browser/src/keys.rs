//! Keys and chords (`Enter`, `Control+A`, `Shift+Tab`) as CDP key events.

use crate::Error;

/// One key as `Input.dispatchKeyEvent` wants it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Key {
    pub key: String,
    pub code: String,
    pub key_code: i64,
    /// The text the key types, if any.
    pub text: Option<String>,
}

/// A chord: modifiers held while one key is pressed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Chord {
    /// CDP's bit mask: Alt 1, Control 2, Meta 4, Shift 8.
    pub modifiers: i64,
    pub modifier_keys: Vec<Key>,
    pub key: Key,
}

/// Named keys: (name, code, keyCode, text).
const NAMED: &[(&str, &str, i64, Option<&str>)] = &[
    ("Enter", "Enter", 13, Some("\r")),
    ("Tab", "Tab", 9, None),
    ("Escape", "Escape", 27, None),
    ("Backspace", "Backspace", 8, None),
    ("Delete", "Delete", 46, None),
    ("Space", "Space", 32, Some(" ")),
    ("ArrowUp", "ArrowUp", 38, None),
    ("ArrowDown", "ArrowDown", 40, None),
    ("ArrowLeft", "ArrowLeft", 37, None),
    ("ArrowRight", "ArrowRight", 39, None),
    ("Home", "Home", 36, None),
    ("End", "End", 35, None),
    ("PageUp", "PageUp", 33, None),
    ("PageDown", "PageDown", 34, None),
    ("Insert", "Insert", 45, None),
    ("F1", "F1", 112, None),
    ("F2", "F2", 113, None),
    ("F3", "F3", 114, None),
    ("F4", "F4", 115, None),
    ("F5", "F5", 116, None),
    ("F6", "F6", 117, None),
    ("F7", "F7", 118, None),
    ("F8", "F8", 119, None),
    ("F9", "F9", 120, None),
    ("F10", "F10", 121, None),
    ("F11", "F11", 122, None),
    ("F12", "F12", 123, None),
];

/// Modifier names: (names, key, code, keyCode, mask).
const MODIFIERS: &[(&[&str], &str, &str, i64, i64)] = &[
    (&["alt", "option"], "Alt", "AltLeft", 18, 1),
    (&["control", "ctrl"], "Control", "ControlLeft", 17, 2),
    (
        &["meta", "cmd", "command", "super"],
        "Meta",
        "MetaLeft",
        91,
        4,
    ),
    (&["shift"], "Shift", "ShiftLeft", 16, 8),
];

/// The key that types `c` (no modifiers).
pub(crate) fn char_key(c: char) -> Key {
    let (code, key_code) = match c {
        'a'..='z' => (
            format!("Key{}", c.to_ascii_uppercase()),
            c.to_ascii_uppercase() as i64,
        ),
        'A'..='Z' => (format!("Key{c}"), c as i64),
        '0'..='9' => (format!("Digit{c}"), c as i64),
        ' ' => ("Space".to_string(), 32),
        _ => (String::new(), 0),
    };
    Key {
        key: c.to_string(),
        code,
        key_code,
        text: Some(c.to_string()),
    }
}

/// Parses `Enter`, `a`, `Control+A`, `Shift+Tab`, `Control+Shift+ArrowLeft`.
pub(crate) fn parse_chord(input: &str) -> Result<Chord, Error> {
    let invalid = |reason: String| Error::InvalidParams {
        what: format!("key {input:?}"),
        reason,
    };
    // `+` itself is a key: `Control++`, or just `+`.
    let parts: Vec<&str> = if input == "+" {
        vec!["+"]
    } else if let Some(head) = input.strip_suffix("++") {
        head.split('+').chain(std::iter::once("+")).collect()
    } else {
        input.split('+').collect()
    };
    let Some((last, modifiers)) = parts.split_last() else {
        return Err(invalid("empty".into()));
    };
    let mut chord = Chord {
        modifiers: 0,
        modifier_keys: Vec::new(),
        key: key_named(last).ok_or_else(|| invalid(format!("unknown key {last:?}")))?,
    };
    for name in modifiers {
        let lower = name.trim().to_ascii_lowercase();
        let (_, key, code, key_code, mask) = MODIFIERS
            .iter()
            .find(|(names, ..)| names.contains(&lower.as_str()))
            .ok_or_else(|| {
                invalid(format!(
                    "unknown modifier {name:?} (Alt, Control, Meta, Shift)"
                ))
            })?;
        chord.modifiers |= mask;
        chord.modifier_keys.push(Key {
            key: key.to_string(),
            code: code.to_string(),
            key_code: *key_code,
            text: None,
        });
    }
    // With Control, Alt or Meta held, a character key types nothing.
    if chord.modifiers & 7 != 0 {
        chord.key.text = None;
    }
    Ok(chord)
}

fn key_named(name: &str) -> Option<Key> {
    if let Some((key, code, key_code, text)) =
        NAMED.iter().find(|(n, ..)| n.eq_ignore_ascii_case(name))
    {
        return Some(Key {
            key: if *key == "Space" {
                " ".into()
            } else {
                key.to_string()
            },
            code: code.to_string(),
            key_code: *key_code,
            text: text.map(str::to_string),
        });
    }
    let mut chars = name.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Some(char_key(c)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chords_parse_into_modifiers_and_a_key() {
        let chord = parse_chord("Control+A").unwrap();
        assert_eq!(chord.modifiers, 2);
        assert_eq!(chord.key.key, "A");
        assert_eq!(chord.key.code, "KeyA");
        assert_eq!(chord.key.text, None, "a chord types nothing");
        let chord = parse_chord("Shift+Tab").unwrap();
        assert_eq!(chord.modifiers, 8);
        assert_eq!(chord.key.key, "Tab");
        let chord = parse_chord("ctrl+shift+ArrowLeft").unwrap();
        assert_eq!(chord.modifiers, 10);
        assert_eq!(chord.modifier_keys.len(), 2);
        let enter = parse_chord("Enter").unwrap();
        assert_eq!(enter.key.text.as_deref(), Some("\r"));
        assert_eq!(parse_chord("Control++").unwrap().key.key, "+");
        assert_eq!(parse_chord("x").unwrap().key.text.as_deref(), Some("x"));
    }

    #[test]
    fn unknown_keys_and_modifiers_are_refused() {
        assert!(parse_chord("Hyper+A").is_err());
        assert!(parse_chord("NotAKey").is_err());
        assert!(parse_chord("").is_err());
    }

    #[test]
    fn a_character_key_has_the_code_and_key_code_of_its_physical_key() {
        let key = |c| {
            let key = char_key(c);
            (key.code, key.key_code, key.text)
        };
        assert_eq!(key('a'), ("KeyA".into(), 65, Some("a".into())));
        assert_eq!(key('Z'), ("KeyZ".into(), 90, Some("Z".into())));
        assert_eq!(key('7'), ("Digit7".into(), 55, Some("7".into())));
        assert_eq!(key(' '), ("Space".into(), 32, Some(" ".into())));
        assert_eq!(key('é'), (String::new(), 0, Some("é".into())));
    }
}
