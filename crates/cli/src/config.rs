//! The configuration (docs/faces.md#configuration): one table of keys, [`KEYS`], from which everything else
//! is derived — reading `candor.toml` (or the file `--config` / `$CANDOR_CONFIG` names),
//! the `CANDOR_*` environment over it, the flags over that, the errors for unknown keys
//! and bad values, `candor config`, and the README's table (checked by a test). A key is
//! declared once, in the `keys!` invocation below; its typed field is what the rest of
//! the binary reads.
//!
//! Precedence: default < file < environment < flag. An unknown key in the file is an
//! error naming the key and the file; a bad value names the key, the value and where it
//! came from.//!
//! Here are the table and the types its keys hold; `value.rs` reads and shows a value of
//! each type, `load.rs` applies the sources in order, `flags.rs` makes the flags and
//! `report.rs` is `candor config`.

mod flags;
mod load;
mod report;
mod value;

use std::path::PathBuf;

use browser::{OriginRule, PressPause};
use serde_json::Value;

pub use flags::Flags;
use value::{Raw, Setting};

/// One key of the configuration, as the table declares it.
#[derive(Debug)]
pub struct Key {
    /// Its name in `candor.toml` (camelCase).
    pub name: &'static str,
    /// The environment variable that overrides it.
    pub env: &'static str,
    /// The flag that overrides it, without its dashes; a list's flag is repeated. Empty
    /// for a secret, which has none.
    pub flag: &'static str,
    /// What it does (the doc comment of its field).
    pub doc: &'static str,
    /// What it takes, for messages, `--help` and the README.
    pub takes: &'static str,
    value_name: &'static str,
    /// A true-or-false key: its flag may stand alone (`--enable-eval`).
    switch: bool,
    /// The bounds of a number.
    range: Option<(u64, u64)>,
}

impl Key {
    /// The doc comment, on one line.
    pub fn summary(&self) -> String {
        self.doc.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// What it takes, with the bounds of a number.
    pub fn takes(&self) -> String {
        match self.range {
            Some((lo, hi)) => format!("{} from {lo} to {hi}", self.takes),
            None => self.takes.to_string(),
        }
    }

    /// Its default, as `candor config` shows it.
    #[cfg(test)]
    pub fn default_shown(&self) -> String {
        Config::default()
            .shown(self.name)
            .map(|(value, _)| value)
            .unwrap_or_default()
    }
}

/// Where a value came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Source {
    #[default]
    Default,
    File(PathBuf),
    Env(&'static str),
    /// The flag as it was spelled, without its dashes.
    Flag(&'static str),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::File(path) => write!(f, "file {}", path.display()),
            Source::Env(name) => write!(f, "env {name}"),
            Source::Flag(flag) => write!(f, "flag --{flag}"),
        }
    }
}

impl Source {
    pub fn is_flag(&self) -> bool {
        matches!(self, Source::Flag(_))
    }
}

/// How dialogs are dealt with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DialogPolicy {
    Auto,
    Ask,
}

impl DialogPolicy {
    fn name(self) -> &'static str {
        match self {
            DialogPolicy::Auto => "auto",
            DialogPolicy::Ask => "ask",
        }
    }
}

/// The viewport preset a new tab opens at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DefaultViewport(pub browser::Preset);

/// A Chromium command-line switch (`--lang=fr`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserArg(pub String);

/// The URL of a browser endpoint (a grid, a CDP endpoint).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointUrl(pub String);

/// A field name to redact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldName(pub String);

/// A proxy server (`http://host:port`, `socks5://host:port`, `host:port`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyServer(pub String);

/// A line of text a key holds as written (a bypass list, a user name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text(pub String);

/// A secret (a password): read like [`Text`], never shown — `candor config` writes
/// `cdp::REDACTED` in its place — and given no flag, so it is never in a process's
/// arguments.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(browser::REDACTED)
    }
}

/// Declares the keys: for each, its doc comment, field and type, default, name in the
/// file, environment variable, flag, and for a number its bounds. Yields [`Config`] (the
/// typed values), [`Sources`] (where each came from) and [`KEYS`].
macro_rules! keys {
    ($(
        $(#[doc = $doc:literal])+
        $field:ident: $ty:ty = $default:expr,
            $name:literal, $env:literal, $flag:literal $(, range $range:expr)?;
    )+) => {
        /// The effective configuration: every key's value, defaults filled in.
        #[derive(Debug, Clone)]
        pub struct Config {
            $( $(#[doc = $doc])+ pub $field: $ty, )+
            /// Where each value came from.
            pub sources: Sources,
            /// The file read, if any.
            pub file: Option<PathBuf>,
        }

        /// Where each key's value came from, field for field.
        #[derive(Debug, Clone, Default)]
        pub struct Sources {
            $( pub $field: Source, )+
        }

        impl Default for Config {
            fn default() -> Self {
                Config {
                    $( $field: $default, )+
                    sources: Sources::default(),
                    file: None,
                }
            }
        }

        /// Every key, in the order `candor config` and the README list them.
        pub const KEYS: &[Key] = &[ $( Key {
            name: $name,
            env: $env,
            flag: $flag,
            doc: concat!($($doc),+),
            takes: <$ty as Setting>::TAKES,
            value_name: <$ty as Setting>::VALUE_NAME,
            switch: <$ty as Setting>::SWITCH,
            range: keys!(@range $($range)?),
        } ),+ ];

        impl Config {
            /// Sets the key `name` from `raw`, checked; the error says what is wrong with
            /// the value (the caller adds the key, the value and the source).
            fn set(&mut self, name: &str, raw: Raw<'_>, source: Source) -> Result<(), String> {
                match name {
                    $( $name => {
                        let value = <$ty as Setting>::read(raw)?;
                        let range: Option<(u64, u64)> = keys!(@range $($range)?);
                        if let (Some((lo, hi)), Some(n)) = (range, value.number())
                            && !(lo..=hi).contains(&n)
                        {
                            return Err(format!("{n} is out of bounds"));
                        }
                        self.$field = value;
                        self.sources.$field = source;
                    } )+
                    _ => return Err(format!("{name} is not a key")),
                }
                Ok(())
            }

            /// The value of the key `name` as shown (TOML), and where it came from.
            pub fn shown(&self, name: &str) -> Option<(String, &Source)> {
                match name {
                    $( $name => Some((self.$field.show(), &self.sources.$field)), )+
                    _ => None,
                }
            }

            /// The value of the key `name` as JSON (unset: null).
            fn json_of(&self, name: &str) -> Value {
                match name {
                    $( $name => self.$field.json(), )+
                    _ => Value::Null,
                }
            }
        }
    };
    (@range) => { None };
    (@range $range:expr) => { Some($range) };
}

/// `(lo, hi)` of a range of the tools' budgets, as whole numbers.
macro_rules! bounds {
    ($range:expr) => {
        (*$range.start() as u64, *$range.end() as u64)
    };
}

keys! {
    /// The Chromium executable (unset: the one `candor chromium` finds).
    chromium: Option<PathBuf> = None,
        "chromium", "CANDOR_CHROMIUM", "chromium";
    /// Run Chromium headless (--headed is --headless=false).
    headless: bool = true,
        "headless", "CANDOR_HEADLESS", "headless";
    /// Extra Chromium switches, after candor's own (the environment variable separates
    /// them with spaces).
    browser_args: Vec<BrowserArg> = Vec::new(),
        "browserArgs", "CANDOR_BROWSER_ARGS", "browser-arg";
    /// CDP endpoints (ws:// or http://) tasks are placed on, as a pool.
    cdp_endpoints: Vec<EndpointUrl> = Vec::new(),
        "cdpEndpoints", "CANDOR_CDP_ENDPOINTS", "cdp-endpoint";
    /// A Selenium Grid 4 (http://host:4444) each task opens a session on.
    grid: Option<EndpointUrl> = None,
        "grid", "CANDOR_GRID", "grid";
    /// The deadline of a command that names none, in milliseconds.
    command_timeout_ms: u64 = 30_000,
        "commandTimeoutMs", "CANDOR_COMMAND_TIMEOUT_MS", "command-timeout-ms",
        range (1, tools::MAX_COMMAND_TIMEOUT.as_millis() as u64);
    /// How long a page may take to answer a probe before it is PAGE_UNRESPONSIVE, in
    /// milliseconds.
    unresponsive_ms: u64 = browser::DEFAULT_UNRESPONSIVE.as_millis() as u64,
        "unresponsiveMs", "CANDOR_UNRESPONSIVE_MS", "unresponsive-ms", range (100, 60_000);
    /// How long snapshot and act wait for a page to stop changing when the call names
    /// no settleMs, in milliseconds (0: not at all).
    settle_ms: u64 = tools::defaults::CallDefaults::default().settle.as_millis() as u64,
        "settleMs", "CANDOR_SETTLE_MS", "settle-ms",
        range bounds!(tools::defaults::SETTLE_MS);
    /// The token budget of an elements snapshot that names no maxTokens.
    snapshot_max_tokens: u64 =
        tools::defaults::CallDefaults::default().snapshot_max_tokens as u64,
        "snapshotMaxTokens", "CANDOR_SNAPSHOT_MAX_TOKENS", "snapshot-max-tokens",
        range bounds!(tools::defaults::SNAPSHOT_MAX_TOKENS);
    /// The character budget of a text, markdown or html read that names no maxChars.
    read_max_chars: u64 = tools::defaults::CallDefaults::default().read_max_chars as u64,
        "readMaxChars", "CANDOR_READ_MAX_CHARS", "read-max-chars",
        range bounds!(tools::defaults::READ_MAX_CHARS);
    /// The longest side of a screenshot that names no maxWidth, in pixels.
    screenshot_max_width: u64 =
        tools::defaults::CallDefaults::default().screenshot_max_width as u64,
        "screenshotMaxWidth", "CANDOR_SCREENSHOT_MAX_WIDTH", "screenshot-max-width",
        range bounds!(tools::defaults::SCREENSHOT_MAX_WIDTH);
    /// How long a press (mouse button, touch) is held: "MIN,MAX" in milliseconds, drawn
    /// anew for each press, or one number (0: released at once).
    press_pause_ms: PressPause = PressPause::HUMAN,
        "pressPauseMs", "CANDOR_PRESS_PAUSE_MS", "press-pause-ms";
    /// How many downloads a task may begin; one more is canceled as it begins
    /// (DOWNLOAD_LIMIT in events.download).
    download_max_count: u64 = browser::DownloadLimits::default().max_count as u64,
        "downloadMaxCount", "CANDOR_DOWNLOAD_MAX_COUNT", "download-max-count",
        range bounds!(tools::defaults::DOWNLOAD_MAX_COUNT);
    /// How many megabytes a task's downloads may take together; the download that would
    /// pass it is canceled, and its file removed (DOWNLOAD_LIMIT in events.download).
    download_max_mb: u64 = browser::DownloadLimits::default().max_bytes / 1_000_000,
        "downloadMaxMb", "CANDOR_DOWNLOAD_MAX_MB", "download-max-mb",
        range bounds!(tools::defaults::DOWNLOAD_MAX_MB);
    /// How many entries each of a tab's logs keeps: console messages, exceptions,
    /// requests and problems, each; older ones are let go of and counted.
    log_max_entries: u64 = browser::DEFAULT_LOG_ENTRIES as u64,
        "logMaxEntries", "CANDOR_LOG_MAX_ENTRIES", "log-max-entries",
        range bounds!(tools::defaults::LOG_MAX_ENTRIES);
    /// Let callers run JavaScript (eval, expect.js, readback).
    enable_eval: bool = false,
        "enableEval", "CANDOR_ENABLE_EVAL", "enable-eval";
    /// Allow data: URLs.
    allow_data: bool = false,
        "allowData", "CANDOR_ALLOW_DATA", "allow-data";
    /// When not empty, only these origins may be opened: `scheme://host[:port]`,
    /// `host[:port]` (http or https), or `*.host` (the host and its subdomains).
    allow_origins: Vec<OriginRule> = Vec::new(),
        "allowOrigins", "CANDOR_ALLOW_ORIGINS", "allow-origin";
    /// Origins that may never be opened (URL_BLOCKED names the rule); written as for
    /// allowOrigins, and checked before it.
    block_origins: Vec<OriginRule> = Vec::new(),
        "blockOrigins", "CANDOR_BLOCK_ORIGINS", "block-origin";
    /// The viewport preset a new tab opens at: auto, phone, tablet or desktop.
    default_viewport: DefaultViewport = DefaultViewport(browser::Preset::Auto),
        "defaultViewport", "CANDOR_DEFAULT_VIEWPORT", "default-viewport";
    /// auto (answer dialogs as they open) or ask (leave them to the dialog tool).
    dialog_policy: DialogPolicy = DialogPolicy::Auto,
        "dialogPolicy", "CANDOR_DIALOG_POLICY", "dialog-policy";
    /// The folder uploads are taken from.
    upload_dir: Option<PathBuf> = None,
        "uploadDir", "CANDOR_UPLOAD_DIR", "upload-dir";
    /// The folder each task's archive folder goes in (unset: the daemon's state folder,
    /// or a temporary one).
    archive_dir: Option<PathBuf> = None,
        "archiveDir", "CANDOR_ARCHIVE_DIR", "archive-dir";
    /// Keep a task's archive of observations when the task ends.
    keep_archive: bool = false,
        "keepArchive", "CANDOR_KEEP_ARCHIVE", "keep-archive";
    /// More names of secrets, besides password, passwd, secret, token, authorization,
    /// cookie, api key and postdata: keys containing one (ignoring case) are redacted in
    /// tapes, journals, archives and CLI records, and inputs named with one are secret
    /// fields.
    redact_keys: Vec<FieldName> = Vec::new(),
        "redactKeys", "CANDOR_REDACT_KEYS", "redact-key";
    /// A persistent profile: the user-data folder a task's browser runs on, so its
    /// logins, history and extensions last from one run to the next; one task holds it at
    /// a time (PROFILE_IN_USE for another). Unset: a fresh profile per task.
    profile: Option<PathBuf> = None,
        "profile", "CANDOR_PROFILE", "profile";
    /// The proxy tasks' requests go through: http://host:port, https://, socks4:// or
    /// socks5://, or host:port.
    proxy: Option<ProxyServer> = None,
        "proxy", "CANDOR_PROXY", "proxy";
    /// Hosts the proxy is not used for, Chromium's bypass list (`*.internal;10.0.0.0/8`;
    /// `<-loopback>` sends loopback through the proxy too).
    proxy_bypass: Option<Text> = None,
        "proxyBypass", "CANDOR_PROXY_BYPASS", "proxy-bypass";
    /// The user name given when the proxy asks for one.
    proxy_username: Option<Text> = None,
        "proxyUsername", "CANDOR_PROXY_USERNAME", "proxy-username";
    /// The proxy's password, from the file or the environment only (no flag: arguments
    /// are visible to other users); never shown.
    proxy_password: Option<Secret> = None,
        "proxyPassword", "CANDOR_PROXY_PASSWORD", "";
    /// The passphrase saved states are encrypted with (unset: saved in clear), from the
    /// file or the environment only (no flag: arguments are visible to other users);
    /// never shown.
    state_key: Option<Secret> = None,
        "stateKey", "CANDOR_STATE_KEY", "";
}

#[cfg(test)]
mod tests;
