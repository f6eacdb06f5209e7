//! The engine: a Chromium (launched or attached), tasks with their own browser context,
//! tabs with honest load state, and page reads through page-side scripts.
//!
//! This crate knows nothing of MCP, HTTP or the CLI, and its public types are not
//! `Serialize`: each face decides how to render them.

mod actions;
mod browser;
mod buffers;
mod checkpoint;
mod download;
mod error;
mod eval;
mod footprint;
mod form_state;
mod grid;
mod keys;
mod launch;
mod live;
mod logs;
mod page_read;
mod pdf;
mod permission;
mod pool;
mod profile;
mod proxy;
mod refs;
mod screenshot;
mod script;
mod settle;
mod snapshot;
mod storage;
mod structured;
mod tab;
mod task;
mod url_policy;
mod viewport;
mod wait;

pub use actions::{
    ActFailure, ActOptions, ActOutcome, Action, InvalidPressPause, PressPause, ResponseWatch,
    UploadOutcome, UploadResponse, UrlPattern,
};
pub use browser::{Browser, BrowserOptions, Endpoint};
pub use buffers::TabBuffers;
pub use cdp::{Deadline, REDACTED, add_secret_keys, is_secret_key, redact_secrets};
pub use checkpoint::{Checkpoint, Reached, Restoration, Unrestored};
pub use error::Error;
pub use eval::{EvalValue, Evaluated};
pub use footprint::{Footprint, Held};
pub use form_state::{Checked, FormControl, FormState, MAX_CONTROLS, OptionState, Popup};
pub use refs::{ElementIdentity, is_ref};
pub use snapshot::{
    COVERAGE_NOTE, Candidate, Cover, Coverage, ElementSnapshot, FindQuery, Found, ListCount,
    Locator, MAX_MARKS, Mark, MarkdownSnapshot, NextScreen, SnapshotOptions, SnapshotReading, Step,
    ViewportInfo, estimate_tokens,
};
pub use storage::{Cookie, OriginStorage, StorageWritten};
pub use structured::{JsonLd, Meta, StructuredData};

pub use download::{Download, DownloadLimit, DownloadLimits, DownloadState, TaskEvents};
pub use grid::GridOptions;
pub use launch::{LaunchOptions, QUIET_ARGS, find_chromium};
pub use live::{Frame, PersonInput, Screencast};
pub use logs::{
    ConsoleEntry, DEFAULT_LOG_ENTRIES, Dropped, EntryId, Level, NetworkEntry, Problem,
    RequestState, TabLog,
};
pub use page_read::{PageHtml, PageText};
pub use pdf::{Paper, Pdf, PdfOptions, valid_page_ranges};
pub use permission::{PermissionChoice, PermissionDenial, PermissionRequest};
pub use pool::{EndpointPool, EndpointState, RETRY_DOWN_AFTER};
pub use profile::{PROFILE_LOCK_FILE, ProfileLock};
pub use proxy::{Credentials, Proxy};
pub use screenshot::{
    CaptureTarget, CssRect, DEFAULT_MAX_SIDE, ImageFormat, Screenshot, ScreenshotOptions,
};
pub use settle::{DEFAULT_SETTLE, Settled};
pub use tab::dialogs::{DialogRecord, DialogReport, LOG_CAPACITY, REPORT_ENDS};
pub use tab::probe::{DEFAULT_UNRESPONSIVE, Probe, Recovery};
pub use tab::{LoadOutcome, PageState, Tab, Unfinished};
pub use task::{Closed, HistoryMove, Remnant, Reopened, TabId, TabSummary, Task, TaskSetup};
pub use url_policy::{OriginRule, UrlPolicy, check_url};
pub use viewport::{CUSTOM_HEIGHTS, CUSTOM_WIDTHS, Preset, ViewportReport};
pub use wait::{Condition, ElementState, Matcher, WaitOutcome};
