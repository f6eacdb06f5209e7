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
/// `1`: the cheapest possible round trip into the page (benchmarks, liveness).
pub(crate) const PING: Script = script!("ping");
