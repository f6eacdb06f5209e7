//! The engine's errors. Context is data; the faces map each variant to a stable code.

use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    #[error(
        "Chromium was not found (looked at {}); install it with `apt-get install -y chromium` or set CANDOR_CHROMIUM",
        searched.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    ChromiumNotFound { searched: Vec<PathBuf> },
    #[error("Chromium at {executable} failed to start: {reason}")]
    Launch { executable: PathBuf, reason: String },
    #[error("a headed browser needs a display, and DISPLAY is not set")]
    DisplayUnavailable,
    #[error("{url} is not allowed: {reason}")]
    UrlBlocked { url: String, reason: String },
    #[error("{what} is not valid: {reason}")]
    InvalidParams { what: String, reason: String },
    #[error("navigation to {url} failed: {error_text}")]
    NavigationFailed { url: String, error_text: String },
    #[error("there is no tab {tab}")]
    TabNotFound { tab: String },
    #[error("the renderer of {tab} crashed")]
    TargetCrashed { tab: String },
    #[error("{tab} did not answer a page-side read within {} ms", after.as_millis())]
    PageUnverified { tab: String, after: Duration },
    #[error(
        "{tab} did not answer a probe within {} ms: its page runs script that never returns, or is otherwise hung",
        after.as_millis()
    )]
    PageUnresponsive { tab: String, after: Duration },
    #[error(
        "the navigation to {url} did not commit within {} ms{}",
        after.as_millis(),
        if *stopped { "; it was stopped, and the tab keeps the page it showed before" } else { "" }
    )]
    NavigationTimeout {
        url: String,
        after: Duration,
        /// The pending navigation was stopped, so it no longer holds the tab.
        stopped: bool,
    },
    /// The page's script threw (its class and message are the page's).
    #[error("the page's script threw an exception")]
    Script { class: String, message: String },
    #[error("candor's page script {script} answered in an unexpected shape: {reason}")]
    ScriptReply {
        script: &'static str,
        reason: String,
    },
    #[error("timed out after {} ms waiting for {waiting_for}", after.as_millis())]
    Timeout {
        waiting_for: String,
        after: Duration,
    },
    #[error("the browser is gone (its process exited or the connection closed)")]
    Disconnected,
    /// The grid gave no session: unreachable, or no free slot within the deadline.
    #[error("the Selenium Grid at {grid} has no browser for this task: {message}")]
    GridUnavailable { grid: String, message: String },
    /// The grid tried and failed to create the session.
    #[error("the Selenium Grid at {grid} did not create a session: {message}")]
    GridSessionFailed { grid: String, message: String },
    /// No endpoint of a pool of CDP endpoints could be attached to.
    #[error(
        "no CDP endpoint of the pool is up: {}",
        endpoints.iter().map(|(url, why)| format!("{url} ({why})")).collect::<Vec<_>>().join("; ")
    )]
    PoolUnavailable { endpoints: Vec<(String, String)> },
    #[error("the browser refused {method}: {message}")]
    Protocol { method: String, message: String },
    /// The browser's reply to a read of the page was larger than one CDP message may be;
    /// it was dropped, and the connection goes on.
    #[error(
        "the page is too large to read this way: the browser's reply to {method} was {} MB, more than the {} MB one message may carry",
        size / 1_000_000,
        limit / 1_000_000
    )]
    PageTooLarge {
        method: String,
        size: usize,
        limit: usize,
    },
    #[error("{tab} shows an error page: loading {url} failed with {error_text}")]
    PageLoadFailed {
        tab: String,
        url: String,
        error_text: String,
    },
    #[error("{selector:?} is not a valid CSS selector: {reason}")]
    InvalidSelector { selector: String, reason: String },
    #[error("no element found for {locator}: {reason}")]
    ElementNotFound { locator: String, reason: String },
    /// A `<select>` has no option of some of the values asked for. `available` (the
    /// first options' labels) is the page's; `missing` is the caller's.
    #[error("{locator} has no option {missing:?}; the options it has are in the data")]
    OptionNotFound {
        locator: String,
        missing: Vec<String>,
        available: Vec<String>,
    },
    #[error(
        "{matched} elements match {locator}; a locator must name exactly one (give nth, scope, or a ref)"
    )]
    AmbiguousLocator {
        locator: String,
        matched: usize,
        candidates: Vec<crate::snapshot::Candidate>,
    },
    #[error("{locator} is disabled")]
    ElementDisabled { locator: String },
    /// `covering` is the page's (a label of the element on top).
    #[error("{locator} is covered by another element at the point it would be clicked")]
    ElementOccluded { locator: String, covering: String },
    /// `actual` is the page's.
    #[error("the value read back differs from what was typed")]
    InputMismatch { expected: String, actual: String },
    #[error("{what} failed after the action was dispatched: {reason}")]
    ReadbackFailed { what: String, reason: String },
    #[error("{locator} is not visible: {reason}")]
    ElementNotVisible { locator: String, reason: String },
    /// `message` is the page's.
    #[error("a {kind} dialog is open on {tab}; the page waits for its answer")]
    DialogOpen {
        tab: String,
        kind: String,
        message: String,
    },
    /// `reason` is candor's; the element the ref named (`button "Delete Bob"`), the
    /// page's, is beside it.
    #[error("stale ref {ref}: {reason}")]
    StaleRef {
        r#ref: String,
        reason: String,
        element: Option<String>,
    },
    #[error(
        "restoring the checkpoint reached {reached}, not its page {expected}; nothing was restored"
    )]
    CheckpointUrlChanged { expected: String, reached: String },
    #[error("stale snapshot {snapshot}: {reason}")]
    StaleSnapshot { snapshot: String, reason: String },
    /// A download canceled because the task passed a limit. Reported with the download
    /// (which names the file), not as a command's failure.
    #[error(
        "a download was canceled: {}",
        match limit {
            crate::DownloadLimit::Count { max } =>
                format!("the task had begun {max} downloads, as many as it may (downloadMaxCount)"),
            crate::DownloadLimit::Bytes { max } =>
                format!("the task's downloads would take more than {} MB (downloadMaxMb)", max / 1_000_000),
        }
    )]
    DownloadLimit { limit: crate::DownloadLimit },
    /// A persistent profile another task, candor process or Chromium holds.
    #[error("the profile {} is in use by {holder}", dir.display())]
    ProfileInUse { dir: PathBuf, holder: String },
    #[error("the profile {} cannot be used: {reason}", dir.display())]
    ProfileUnusable { dir: PathBuf, reason: String },
    /// A navigation that failed at the task's proxy: refused, unreachable, or failing.
    #[error("navigation to {url} through the proxy {proxy} failed: {error_text}")]
    ProxyFailed {
        proxy: String,
        url: String,
        error_text: String,
    },
    /// The proxy asked for credentials again after candor gave the task's: they are wrong.
    #[error(
        "the proxy {proxy} refused the task's credentials (it asked again after they were given) while loading {url}"
    )]
    ProxyAuthFailed { proxy: String, url: String },
}

impl From<cdp::Error> for Error {
    fn from(err: cdp::Error) -> Self {
        match err {
            cdp::Error::Timeout { waiting_for, after } => Error::Timeout { waiting_for, after },
            cdp::Error::Closed => Error::Disconnected,
            cdp::Error::Protocol {
                method, message, ..
            } => Error::Protocol { method, message },
            cdp::Error::TooLarge {
                method,
                size,
                limit,
            } => Error::PageTooLarge {
                method,
                size,
                limit,
            },
            cdp::Error::Decode { method, reason } => Error::Protocol {
                method,
                message: format!("unexpected reply: {reason}"),
            },
            cdp::Error::Connect { endpoint, reason } => Error::Launch {
                executable: PathBuf::from(endpoint),
                reason,
            },
            cdp::Error::Io(reason) => Error::Protocol {
                method: "transport".into(),
                message: reason,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_chromium_names_where_it_looked_and_how_to_install_it() {
        let err = Error::ChromiumNotFound {
            searched: vec![
                PathBuf::from("/usr/bin/chromium"),
                PathBuf::from("chromium on PATH"),
            ],
        };
        let message = err.to_string();
        assert!(message.contains("apt-get install -y chromium"), "{message}");
        assert!(
            message.contains("/usr/bin/chromium, chromium on PATH"),
            "{message}"
        );
        assert!(message.contains("CANDOR_CHROMIUM"), "{message}");
    }
}
