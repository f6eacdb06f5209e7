//! A tool is named in one place: its own catalogue file. Everything else names it through
//! its constant (`tools::tool::Navigate::NAME`) and asks its policy of the catalogue, so a
//! tool renamed or added cannot leave a list of name strings behind.
//!
//! This walks `crates/*/src/**/*.rs` of every crate that can see the catalogue (`tools`
//! and the crates that depend on it; a crate below it, such as `browser`, cannot name a
//! tool, and its `"dialog"` is an ARIA role) and fails on a string literal that spells a
//! tool's name, except:
//! - in the tool's own file `crates/tools/src/catalogue/NAME.rs`;
//! - in test code: an item under `#[cfg(test)]` (a `mod tests { … }`, a test-only
//!   function) and the files such a `mod x;` declares — tests spell what a face is sent;
//!   integration tests (`crates/*/tests/`) are not walked at all;
//! - as a JSON key (`json!({ "tabs": … })`) or a lookup (`data["flow"]`, `.get("tabs")`):
//!   a field of data, which happens to share a word with a tool;
//! - inside an attribute (`#[arg(requires = "wait")]` names a CLI flag);
//! - on a line that says `// not a tool name`.

use std::path::{Path, PathBuf};

const MARKER: &str = "// not a tool name";

#[test]
fn no_tool_name_is_spelled_outside_its_own_catalogue_file() {
    let names: Vec<&str> = tools::catalogue().iter().map(|tool| tool.name).collect();
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    let mut walked = 0;
    let mut crate_dirs: Vec<PathBuf> = std::fs::read_dir(&crates)
        .expect("the crates directory")
        .map(|entry| entry.expect("a crate directory entry").path())
        .collect();
    crate_dirs.sort();
    for dir in crate_dirs {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
        let sees_catalogue = dir.ends_with("tools")
            || manifest.lines().any(|line| {
                let line = line.trim_start();
                line.starts_with("tools.") || line.starts_with("tools =")
            });
        if !sees_catalogue {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&dir.join("src"), &mut files);
        let test_files = test_only_files(&files);
        for file in &files {
            if test_files.contains(file) {
                continue;
            }
            walked += 1;
            let source = std::fs::read_to_string(file).expect("a source file");
            let own = own_tool(file);
            for literal in literals(&source) {
                if names.contains(&literal.text.as_str()) && own != Some(literal.text.as_str()) {
                    let line = source[..literal.start].matches('\n').count() + 1;
                    let text = source.lines().nth(line - 1).unwrap_or_default();
                    if !text.contains(MARKER) {
                        let shown = file.strip_prefix(&crates).unwrap_or(file);
                        found.push(format!("{}:{line}: {}", shown.display(), text.trim()));
                    }
                }
            }
        }
    }
    assert!(walked > 20, "walked only {walked} files");
    assert!(
        found.is_empty(),
        "tool names spelled as strings (use tools::tool::X::NAME):\n{}",
        found.join("\n")
    );
}

/// The checker itself sees what it should, and passes over what it should.
#[test]
fn literals_are_found_outside_tests_keys_lookups_and_attributes() {
    let source = r####"
        #[arg(requires = "wait")]
        fn f<'a>(x: &'a str) -> char {
            call("navigate", json!({ "tabs": data["flow"], "k": v.get("find") }));
            let _ = r#"raw "act" "#; // "dialog" in a comment
            let q = '"'; let e = '\''; /* "eval" */
            'x'
        }
        #[cfg(test)]
        fn only_in_tests() { let _ = "snapshot"; }
        #[cfg(test)]
        mod tests {
            fn g() { "recall" }
        }
        const AFTER: &str = "checkpoint";
    "####;
    let texts: Vec<String> = literals(source).into_iter().map(|l| l.text).collect();
    assert_eq!(texts, ["navigate", "raw \"act\" ", "checkpoint"]);
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// The tool whose own file this is, if any.
fn own_tool(file: &Path) -> Option<&'static str> {
    let parent = file.parent()?;
    // A tool's file is `catalogue/NAME.rs`, or `catalogue/NAME/mod.rs` when it has rooms.
    let stem = if parent.ends_with("tools/src/catalogue") {
        file.file_stem()?.to_str()?
    } else if parent.parent()?.ends_with("tools/src/catalogue") && file.ends_with("mod.rs") {
        parent.file_name()?.to_str()?
    } else {
        return None;
    };
    tools::find(stem).map(|tool| tool.name)
}

/// The files declared by `#[cfg(test)] mod x;` (or with `#[path = "…"]`) in `files`.
fn test_only_files(files: &[PathBuf]) -> Vec<PathBuf> {
    let mut tests = Vec::new();
    for file in files {
        let source = std::fs::read_to_string(file).expect("a source file");
        let dir = file.parent().expect("a file's directory");
        let stem = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let nested = if matches!(stem, "mod" | "lib" | "main") {
            dir.to_path_buf()
        } else {
            dir.join(stem)
        };
        for declared in scan(&source).test_modules {
            match declared {
                Declared::Path(path) => tests.push(dir.join(path)),
                Declared::Module(name) => {
                    tests.push(nested.join(format!("{name}.rs")));
                    tests.push(nested.join(&name).join("mod.rs"));
                }
            }
        }
    }
    tests
}

#[derive(Debug)]
struct Literal {
    text: String,
    start: usize,
}

#[derive(Debug)]
enum Declared {
    Module(String),
    Path(String),
}

#[derive(Debug, Default)]
struct Scan {
    literals: Vec<Literal>,
    test_modules: Vec<Declared>,
}

/// The string literals of `source` that count: outside comments, attributes, test code,
/// JSON keys and lookups.
fn literals(source: &str) -> Vec<Literal> {
    scan(source).literals
}

/// A small lexer: enough of Rust's tokens to tell strings, chars, lifetimes, comments,
/// attributes and test-only items apart.
fn scan(source: &str) -> Scan {
    let bytes = source.as_bytes();
    let mut out = Scan::default();
    let mut i = 0;
    // After `#[cfg(test)]`: the item it guards, skipped whole.
    let mut pending_test = false;
    let mut pending_path: Option<String> = None;
    let mut parens = 0usize;
    let mut words: Vec<String> = Vec::new();
    while i < bytes.len() {
        let c = bytes[i];
        let prev_ident = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if source[i..].starts_with("//") {
            i = source[i..].find('\n').map_or(bytes.len(), |n| i + n);
        } else if source[i..].starts_with("/*") {
            let mut depth = 0;
            while i < bytes.len() {
                if source[i..].starts_with("/*") {
                    depth += 1;
                    i += 2;
                } else if source[i..].starts_with("*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == b'#' && (source[i..].starts_with("#[") || source[i..].starts_with("#![")) {
            let end = attribute_end(source, i);
            let attribute: String = source[i..end]
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            if attribute == "#[cfg(test)]" {
                pending_test = true;
                parens = 0;
                words.clear();
            } else if pending_test && let Some(path) = attribute.strip_prefix("#[path=\"") {
                pending_path = path.strip_suffix("\"]").map(str::to_string);
            }
            i = end;
        } else if c == b'"'
            || (!prev_ident && (c == b'r' || c == b'b') && raw_or_byte_string(source, i))
        {
            let (start, text, end) = string_at(source, i);
            if !pending_test && !is_key_or_lookup(source, i, end) {
                out.literals.push(Literal { text, start });
            }
            i = end;
        } else if c == b'\'' {
            i = char_or_lifetime_end(source, i);
        } else if pending_test && c == b'{' {
            i = matching_brace(source, i);
            pending_test = false;
            pending_path = None;
        } else if pending_test && (c == b';' || c == b',' && parens == 0) {
            if c == b';'
                && let [.., module, name] = words.as_slice()
                && module == "mod"
            {
                out.test_modules.push(match pending_path.take() {
                    Some(path) => Declared::Path(path),
                    None => Declared::Module(name.clone()),
                });
            }
            pending_test = false;
            pending_path = None;
            i += 1;
        } else {
            if pending_test {
                match c {
                    b'(' => parens += 1,
                    b')' => parens = parens.saturating_sub(1),
                    _ => {}
                }
                if c.is_ascii_alphanumeric() || c == b'_' {
                    let end = source[i..]
                        .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                        .map_or(bytes.len(), |n| i + n);
                    words.push(source[i..end].to_string());
                    i = end;
                    continue;
                }
            }
            i += 1;
        }
    }
    out
}

/// Whether a raw (`r"`, `r#"`) or byte (`b"`, `br"`) string starts at `i`.
fn raw_or_byte_string(source: &str, i: usize) -> bool {
    let rest = source[i..].trim_start_matches(['b', 'r']);
    let prefix = &source[i..source.len() - rest.len()];
    matches!(prefix, "r" | "b" | "br") && rest.trim_start_matches('#').starts_with('"')
}

/// The literal at `i`: where its text starts, the text, and the index past its end.
fn string_at(source: &str, i: usize) -> (usize, String, usize) {
    let bytes = source.as_bytes();
    let mut j = i;
    while bytes[j] == b'b' || bytes[j] == b'r' {
        j += 1;
    }
    let raw = source[i..j].contains('r');
    let hashes = source[j..].len() - source[j..].trim_start_matches('#').len();
    j += hashes + 1;
    let start = j;
    if raw {
        let close = format!("\"{}", "#".repeat(hashes));
        let end = source[j..].find(&close).map_or(source.len(), |n| j + n);
        return (start, source[start..end].to_string(), end + close.len());
    }
    let mut text = String::new();
    while j < bytes.len() && bytes[j] != b'"' {
        if bytes[j] == b'\\' {
            j += 1;
        }
        let ch = source[j..].chars().next().unwrap_or('\0');
        text.push(ch);
        j += ch.len_utf8().max(1);
    }
    (start, text, j + 1)
}

/// A literal that is a JSON key (`"k":`, not `"k"::`) or a lookup (`["k"]`, `get("k")`).
fn is_key_or_lookup(source: &str, start: usize, end: usize) -> bool {
    let before = source[..start].trim_end();
    let after = source[end..].trim_start();
    (after.starts_with(':') && !after.starts_with("::"))
        || (before.ends_with('[') && after.starts_with(']'))
        || before.ends_with("get(")
}

/// The index past the attribute starting at `i` (brackets balanced, strings skipped).
fn attribute_end(source: &str, i: usize) -> usize {
    let bytes = source.as_bytes();
    let mut depth = 0;
    let mut j = i;
    while j < bytes.len() {
        match bytes[j] {
            b'"' => {
                j = string_at(source, j).2;
                continue;
            }
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    bytes.len()
}

/// The index past a char literal (`'x'`, `'\''`) or a lifetime (`'a`) at `i`.
fn char_or_lifetime_end(source: &str, i: usize) -> usize {
    let rest = &source[i + 1..];
    if let Some(escaped) = rest.strip_prefix('\\') {
        // An escape: the closing quote follows the escaped character (or `\u{…}`).
        let skip = escaped.chars().next().map_or(0, char::len_utf8);
        return escaped[skip..]
            .find('\'')
            .map_or(source.len(), |n| i + 2 + skip + n + 1);
    }
    let mut chars = rest.chars();
    match (chars.next(), chars.next()) {
        (Some(ch), Some('\'')) => i + 1 + ch.len_utf8() + 1,
        _ => i + 1,
    }
}

/// The index past the brace matching the `{` at `i` (strings, chars and comments
/// skipped).
fn matching_brace(source: &str, i: usize) -> usize {
    let bytes = source.as_bytes();
    let mut depth = 0;
    let mut j = i;
    while j < bytes.len() {
        let prev_ident = j > 0 && (bytes[j - 1].is_ascii_alphanumeric() || bytes[j - 1] == b'_');
        if source[j..].starts_with("//") {
            j = source[j..].find('\n').map_or(bytes.len(), |n| j + n);
            continue;
        }
        if source[j..].starts_with("/*") {
            j = source[j..].find("*/").map_or(bytes.len(), |n| j + n + 2);
            continue;
        }
        match bytes[j] {
            b'"' => {
                j = string_at(source, j).2;
                continue;
            }
            b'r' | b'b' if !prev_ident && raw_or_byte_string(source, j) => {
                j = string_at(source, j).2;
                continue;
            }
            b'\'' => {
                j = char_or_lifetime_end(source, j);
                continue;
            }
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    bytes.len()
}
