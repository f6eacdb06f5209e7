//! The engine: a Chromium (launched or attached), tasks with their own browser context,
//! tabs with honest load state, and page reads through page-side scripts.
//!
//! This crate knows nothing of MCP, HTTP or the CLI, and its public types are not
//! `Serialize`: each face decides how to render them.

mod browser;
mod error;
mod launch;
mod page_read;
mod script;
mod tab;
mod task;
mod url_policy;

pub use browser::{Browser, BrowserOptions, Endpoint};
pub use cdp::Deadline;
pub use error::Error;
pub use launch::{LaunchOptions, find_chromium};
pub use page_read::{PageHtml, PageText};
pub use tab::{LoadOutcome, PageState, Tab};
pub use task::{HistoryMove, TabId, TabSummary, Task};
pub use url_policy::{UrlPolicy, check_url};
