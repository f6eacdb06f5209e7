//! Page-side scripts: real JavaScript files under `js/`, compiled in, called through
//! `Runtime.callFunctionOn` with JSON arguments — never assembled from strings.

/// One page-side function; its file holds a single function declaration.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Script {
    pub name: &'static str,
    pub source: &'static str,
}

macro_rules! script {
    ($name:literal) => {
        Script {
            name: $name,
            source: include_str!(concat!("../js/", $name, ".js")),
        }
    };
}

/// `{text, url, title}`: the visible text of the document (`innerText`).
pub(crate) const PAGE_TEXT: Script = script!("page_text");
/// `{html, url, title}`: the serialised document.
pub(crate) const PAGE_HTML: Script = script!("page_html");
/// On an element: `{tag, type, value, checked, editable, connected}`.
pub(crate) const ELEMENT_VALUE: Script = script!("element_value");
/// On a text field: select its contents so typing replaces them.
pub(crate) const ELEMENT_SELECT_CONTENTS: Script = script!("element_select_contents");
/// On a text field: caret to the end so typing appends.
pub(crate) const ELEMENT_CARET_TO_END: Script = script!("element_caret_to_end");
/// On a non-text input (date, color…): set its value and fire input/change.
pub(crate) const ELEMENT_SET_VALUE: Script = script!("element_set_value");
/// On a `<select>`: choose options by value or label.
pub(crate) const ELEMENT_SELECT_OPTIONS: Script = script!("element_select_options");
/// On a file input: `{connected, count, names, sizes}`.
pub(crate) const ELEMENT_FILES: Script = script!("element_files");
/// On a node: `tag#id.class "text"`, for messages.
pub(crate) const ELEMENT_LABEL: Script = script!("element_label");
/// `{x, y}`: the page's scroll position.
pub(crate) const SCROLL_POSITION: Script = script!("scroll_position");
/// The elements near the viewport of a large page (by reference; see `region.rs`).
pub(crate) const REGION_ELEMENTS: Script = script!("region_elements");
/// On that array: what a snapshot needs of each element.
pub(crate) const REGION_FACTS: Script = script!("region_facts");
/// `1`: the cheapest possible round trip into the page (benchmarks, liveness).
pub(crate) const PING: Script = script!("ping");
/// `{met, actual}` or `{invalidSelector}`: polls one wait condition for a slice of time.
pub(crate) const WAIT_FOR: Script = script!("wait_for");
/// Runs the caller's code (browser_eval): `{ran, mode, type, value}` or `{threw}` or `{pending}`.
pub(crate) const EVAL: Script = script!("eval");
/// `{controls, total, hiddenInputs, scopeMatched}`: every form control in scope, secrets masked.
pub(crate) const FORM_STATE: Script = script!("form_state");
/// `{quiet, waitedMs, region}`: waits until the page stops changing (see `settle.rs`).
pub(crate) const SETTLE_QUIET: Script = script!("settle_quiet");
/// Installs the mutation watcher in the document (also an init script; see `settle.rs`).
pub(crate) const SETTLE_WATCH: Script = script!("settle_watch");
