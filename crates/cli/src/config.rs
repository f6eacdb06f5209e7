//! The configuration (docs/faces.md#configuration): one table of keys, [`KEYS`], from which everything else
//! is derived — reading `candor.toml` (or the file `--config` / `$CANDOR_CONFIG` names),
//! the `CANDOR_*` environment over it, the flags over that, the errors for unknown keys
//! and bad values, `candor config`, and the README's table (checked by a test). A key is
//! declared once, in the `keys!` invocation below; its typed field is what the rest of
//! the binary reads.
//!
//! Precedence: default < file < environment < flag. An unknown key in the file is an
//! error naming the key and the file; a bad value names the key, the value and where it
//! came from.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::Context;
use browser::{OriginRule, PressPause};
use clap::{Arg, ArgAction, ArgMatches};
use serde_json::{Value, json};

/// One key of the configuration, as the table declares it.
#[derive(Debug)]
pub struct Key {
    /// Its name in `candor.toml` (camelCase).
    pub name: &'static str,
    /// The environment variable that overrides it.
    pub env: &'static str,
    /// The flag that overrides it, without its dashes; a list's flag is repeated.
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

/// A Chromium command-line switch (`--lang=fr`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserArg(pub String);

/// The URL of a browser endpoint (a grid, a CDP endpoint).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointUrl(pub String);

/// A field name to redact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldName(pub String);

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
}

impl Config {
    /// The configuration of this run: the defaults, then the file (`file`, else
    /// `$CANDOR_CONFIG`, else `./candor.toml` if there is one), then the `CANDOR_*`
    /// environment, then `flags`.
    pub fn load(file: Option<&Path>, flags: &Flags) -> anyhow::Result<Config> {
        let file = file
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os("CANDOR_CONFIG").map(PathBuf::from))
            .or_else(|| Some(PathBuf::from("candor.toml")).filter(|p| p.is_file()));
        let mut config = Config::default();
        if let Some(path) = file {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read the config file {}", path.display()))?;
            config.apply_file(&path, &text)?;
        }
        config.apply_env(|name| std::env::var(name).ok())?;
        config.apply_flags(flags)?;
        config.check_placement()?;
        Ok(config)
    }

    /// A grid and a pool of CDP endpoints both say where tasks run: given both, neither
    /// is silently preferred.
    fn check_placement(&self) -> anyhow::Result<()> {
        if self.grid.is_some() && !self.cdp_endpoints.is_empty() {
            anyhow::bail!(
                "grid ({}) and cdpEndpoints ({}) both say where tasks run; set one of them",
                self.sources.grid,
                self.sources.cdp_endpoints
            );
        }
        Ok(())
    }

    /// The keys of a file's text, over what is set.
    fn apply_file(&mut self, path: &Path, text: &str) -> anyhow::Result<()> {
        let table: toml::Table = text
            .parse()
            .with_context(|| format!("the config file {} is not valid TOML", path.display()))?;
        for (name, value) in &table {
            if !KEYS.iter().any(|key| key.name == name) {
                anyhow::bail!(
                    "unknown key {name:?} in the config file {}{}; `candor config` lists the keys",
                    path.display(),
                    suggestion(name)
                );
            }
            let source = Source::File(path.to_path_buf());
            self.set(name, Raw::Toml(value), source.clone())
                .map_err(|reason| bad_value(name, &value.to_string(), &source, &reason))?;
        }
        self.file = Some(path.to_path_buf());
        Ok(())
    }

    /// The `CANDOR_*` variables `var` finds, over what is set; an empty one counts as
    /// unset.
    fn apply_env(&mut self, var: impl Fn(&str) -> Option<String>) -> anyhow::Result<()> {
        for key in KEYS {
            if let Some(text) = var(key.env).filter(|text| !text.trim().is_empty()) {
                let source = Source::Env(key.env);
                self.set(key.name, Raw::Text(&text), source.clone())
                    .map_err(|reason| {
                        bad_value(key.name, &format!("{text:?}"), &source, &reason)
                    })?;
            }
        }
        Ok(())
    }

    /// The flags given, over what is set.
    pub(crate) fn apply_flags(&mut self, flags: &Flags) -> anyhow::Result<()> {
        for given in &flags.given {
            let source = Source::Flag(given.flag);
            self.set(given.key.name, Raw::Flags(&given.values), source.clone())
                .map_err(|reason| {
                    bad_value(
                        given.key.name,
                        &format!("{:?}", given.values.join(" ")),
                        &source,
                        &reason,
                    )
                })?;
        }
        Ok(())
    }

    /// What `candor config` prints: the file read, then each key's value and source.
    pub fn report(&self) -> String {
        let mut out = match &self.file {
            Some(path) => format!("# config file: {}\n", path.display()),
            None => "# config file: none (candor.toml, $CANDOR_CONFIG or --config)\n".into(),
        };
        let rows: Vec<(String, &Source)> = KEYS
            .iter()
            .filter_map(|key| {
                self.shown(key.name)
                    .map(|(value, source)| (format!("{} = {value}", key.name), source))
            })
            .collect();
        let width = rows.iter().map(|(row, _)| row.len()).max().unwrap_or(0);
        for (row, source) in rows {
            out.push_str(&format!("{row:width$}  # {source}\n"));
        }
        out
    }
}

impl Config {
    /// `candor --json config`: the file read, then each key's value and source.
    pub fn report_json(&self) -> Value {
        let keys: Vec<Value> = KEYS
            .iter()
            .map(|key| {
                let source = self
                    .shown(key.name)
                    .map(|(_, source)| source.to_string())
                    .unwrap_or_default();
                json!({ "key": key.name, "value": self.json_of(key.name), "source": source })
            })
            .collect();
        json!({ "file": self.file.as_ref().map(|p| p.display().to_string()), "keys": keys })
    }
}

/// A bad value's error: the key, the value and where it came from, then why.
fn bad_value(name: &str, value: &str, source: &Source, reason: &str) -> anyhow::Error {
    let takes = KEYS
        .iter()
        .find(|key| key.name == name)
        .map(|key| format!("; {name} takes {}", key.takes()))
        .unwrap_or_default();
    anyhow::anyhow!("bad value for {name}: {value} ({source}): {reason}{takes}")
}

/// ` (did you mean enableEval?)` when a known key is spelled alike.
fn suggestion(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    KEYS.iter()
        .map(|key| (distance(&lower, &key.name.to_ascii_lowercase()), key.name))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, key)| format!(" (did you mean {key}?)"))
        .unwrap_or_default()
}

/// The edit distance of two words.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != *cb))
                .min(above + 1)
                .min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

/// A value as it arrives: from the file, an environment variable, or the flags given.
enum Raw<'a> {
    Toml(&'a toml::Value),
    Text(&'a str),
    Flags(&'a [String]),
}

/// A type a key can hold.
trait Setting: Sized {
    /// What the key takes.
    const TAKES: &'static str;
    /// The flag's value name in `--help`.
    const VALUE_NAME: &'static str;
    /// True or false: the flag may stand alone.
    const SWITCH: bool = false;
    fn from_toml(value: &toml::Value) -> Result<Self, String>;
    fn from_text(text: &str) -> Result<Self, String>;
    /// The flags given: the last counts (a list takes each as one item).
    fn from_flags(values: &[String]) -> Result<Self, String> {
        Self::from_text(values.last().map_or("", String::as_str))
    }
    /// The value as TOML.
    fn show(&self) -> String;
    /// The value as JSON.
    fn json(&self) -> Value;
    /// A number, for its bounds.
    fn number(&self) -> Option<u64> {
        None
    }

    fn read(raw: Raw<'_>) -> Result<Self, String> {
        match raw {
            Raw::Toml(value) => Self::from_toml(value),
            Raw::Text(text) => Self::from_text(text),
            Raw::Flags(values) => Self::from_flags(values),
        }
    }
}

/// The text of a TOML string, or why not.
fn toml_text(value: &toml::Value) -> Result<&str, String> {
    value
        .as_str()
        .ok_or_else(|| "it is not a string".to_string())
}

fn quoted(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

impl Setting for bool {
    const TAKES: &'static str = "true or false";
    const VALUE_NAME: &'static str = "BOOL";
    const SWITCH: bool = true;
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        value
            .as_bool()
            .ok_or_else(|| "it is not true or false".into())
    }
    /// `true`/`1`/`yes`/`on` or `false`/`0`/`no`/`off`: anything else is an error, so a
    /// typo never silently leaves a setting as it was.
    fn from_text(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Ok(true),
            "false" | "0" | "no" | "off" => Ok(false),
            _ => Err("it is not true or false".into()),
        }
    }
    fn show(&self) -> String {
        self.to_string()
    }
    fn json(&self) -> Value {
        Value::Bool(*self)
    }
}

impl Setting for u64 {
    const TAKES: &'static str = "a whole number";
    const VALUE_NAME: &'static str = "N";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        value
            .as_integer()
            .and_then(|n| u64::try_from(n).ok())
            .ok_or_else(|| "it is not a whole number".into())
    }
    fn from_text(text: &str) -> Result<Self, String> {
        text.trim()
            .parse()
            .map_err(|_| "it is not a whole number".into())
    }
    fn show(&self) -> String {
        self.to_string()
    }
    fn json(&self) -> Value {
        Value::from(*self)
    }
    fn number(&self) -> Option<u64> {
        Some(*self)
    }
}

impl Setting for PathBuf {
    const TAKES: &'static str = "a path";
    const VALUE_NAME: &'static str = "PATH";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_text(toml_text(value)?)
    }
    fn from_text(text: &str) -> Result<Self, String> {
        if text.trim().is_empty() {
            return Err("it is empty".into());
        }
        Ok(PathBuf::from(text))
    }
    fn show(&self) -> String {
        quoted(&self.display().to_string())
    }
    fn json(&self) -> Value {
        Value::String(self.display().to_string())
    }
}

impl Setting for DialogPolicy {
    const TAKES: &'static str = "auto or ask";
    const VALUE_NAME: &'static str = "auto|ask";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_text(toml_text(value)?)
    }
    fn from_text(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(DialogPolicy::Auto),
            "ask" => Ok(DialogPolicy::Ask),
            _ => Err("it is not auto or ask".into()),
        }
    }
    fn show(&self) -> String {
        quoted(self.name())
    }
    fn json(&self) -> Value {
        Value::String(self.name().into())
    }
}

impl Setting for PressPause {
    const TAKES: &'static str = "\"MIN,MAX\" or one number of milliseconds (at most 1000)";
    const VALUE_NAME: &'static str = "MIN,MAX";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        match value {
            toml::Value::Integer(ms) => Self::from_text(&ms.to_string()),
            toml::Value::String(text) => Self::from_text(text),
            _ => Err("it is not a number or a string".into()),
        }
    }
    fn from_text(text: &str) -> Result<Self, String> {
        PressPause::parse(text).map_err(|e| e.reason.to_string())
    }
    fn show(&self) -> String {
        let (min, max) = (self.min().as_millis(), self.max().as_millis());
        if min == max {
            min.to_string()
        } else {
            quoted(&format!("{min},{max}"))
        }
    }
    fn json(&self) -> Value {
        let (min, max) = (self.min().as_millis(), self.max().as_millis());
        if min == max {
            Value::from(min as u64)
        } else {
            Value::String(format!("{min},{max}"))
        }
    }
}

impl<T: Setting> Setting for Option<T> {
    const TAKES: &'static str = T::TAKES;
    const VALUE_NAME: &'static str = T::VALUE_NAME;
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        T::from_toml(value).map(Some)
    }
    fn from_text(text: &str) -> Result<Self, String> {
        T::from_text(text).map(Some)
    }
    fn show(&self) -> String {
        self.as_ref().map_or_else(|| "(unset)".into(), T::show)
    }
    fn json(&self) -> Value {
        self.as_ref().map_or(Value::Null, T::json)
    }
}

/// An item of a list key.
trait Item: Sized {
    const TAKES: &'static str;
    const VALUE_NAME: &'static str;
    /// What separates items in an environment variable (`None`: white space).
    const SEPARATOR: Option<char>;
    fn parse(text: &str) -> Result<Self, String>;
    fn text(&self) -> String;
}

impl<T: Item> Setting for Vec<T> {
    const TAKES: &'static str = T::TAKES;
    const VALUE_NAME: &'static str = T::VALUE_NAME;
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        let items = value
            .as_array()
            .ok_or_else(|| "it is not a list".to_string())?;
        items
            .iter()
            .map(|item| T::parse(toml_text(item)?))
            .collect()
    }
    fn from_text(text: &str) -> Result<Self, String> {
        let items: Vec<&str> = match T::SEPARATOR {
            Some(separator) => text.split(separator).collect(),
            None => text.split_whitespace().collect(),
        };
        items
            .into_iter()
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(T::parse)
            .collect()
    }
    fn from_flags(values: &[String]) -> Result<Self, String> {
        values.iter().map(|value| T::parse(value)).collect()
    }
    fn show(&self) -> String {
        let items: Vec<String> = self.iter().map(|item| quoted(&item.text())).collect();
        format!("[{}]", items.join(", "))
    }
    fn json(&self) -> Value {
        self.iter().map(|item| Value::String(item.text())).collect()
    }
}

impl Item for BrowserArg {
    const TAKES: &'static str = "a list of Chromium switches";
    const VALUE_NAME: &'static str = "SWITCH";
    const SEPARATOR: Option<char> = None;
    fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if !text.starts_with("--") || text.len() < 3 || text.contains(char::is_whitespace) {
            return Err(format!(
                "{text:?} is not a Chromium switch (--name or --name=value)"
            ));
        }
        Ok(BrowserArg(text.to_string()))
    }
    fn text(&self) -> String {
        self.0.clone()
    }
}

impl Item for EndpointUrl {
    const TAKES: &'static str = "a list of ws://, wss://, http:// or https:// URLs";
    const VALUE_NAME: &'static str = "URL";
    const SEPARATOR: Option<char> = Some(',');
    fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        match text.split_once("://") {
            Some(("ws" | "wss" | "http" | "https", rest))
                if !rest.is_empty()
                    && !rest.starts_with('/')
                    && !rest.contains(char::is_whitespace) =>
            {
                Ok(EndpointUrl(text.to_string()))
            }
            _ => Err(format!(
                "{text:?} is not a ws://, wss://, http:// or https:// URL"
            )),
        }
    }
    fn text(&self) -> String {
        self.0.clone()
    }
}

/// One URL (`grid`): the same as a list's item.
impl Setting for EndpointUrl {
    const TAKES: &'static str = "an http:// or https:// URL";
    const VALUE_NAME: &'static str = "URL";
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        Self::from_text(toml_text(value)?)
    }
    fn from_text(text: &str) -> Result<Self, String> {
        let url = <EndpointUrl as Item>::parse(text)?;
        if url.0.starts_with("ws") {
            return Err(format!("{:?} is not an http:// or https:// URL", url.0));
        }
        Ok(url)
    }
    fn show(&self) -> String {
        quoted(&self.0)
    }
    fn json(&self) -> Value {
        Value::String(self.0.clone())
    }
}

impl Item for OriginRule {
    const TAKES: &'static str =
        "a list of origins (`scheme://host[:port]`, `host[:port]` or `*.host`)";
    const VALUE_NAME: &'static str = "ORIGIN";
    const SEPARATOR: Option<char> = Some(',');
    fn parse(text: &str) -> Result<Self, String> {
        OriginRule::parse(text)
    }
    fn text(&self) -> String {
        self.to_string()
    }
}

impl Item for FieldName {
    const TAKES: &'static str = "a list of field names";
    const VALUE_NAME: &'static str = "NAME";
    const SEPARATOR: Option<char> = Some(',');
    fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.len() < 3 || text.contains(char::is_whitespace) {
            return Err(format!(
                "{text:?} is not a field name (at least 3 characters, no spaces)"
            ));
        }
        Ok(FieldName(text.to_string()))
    }
    fn text(&self) -> String {
        self.0.clone()
    }
}

/// The `--headed` shorthand: `--headless=false`.
const HEADED: &str = "headed";

/// The configuration flags given on the command line, one per key (`--enable-eval`,
/// `--allow-origin URL`…), global to every subcommand; made from [`KEYS`].
#[derive(Debug, Clone, Default)]
pub struct Flags {
    given: Vec<Given>,
}

#[derive(Debug, Clone)]
struct Given {
    key: &'static Key,
    /// As spelled, without its dashes.
    flag: &'static str,
    values: Vec<String>,
}

impl Flags {
    /// These flags as arguments again (`--name=value`), for a daemon this process starts.
    pub fn to_args(&self) -> Vec<OsString> {
        let mut args = Vec::new();
        for given in &self.given {
            if given.flag == HEADED {
                args.push(format!("--{HEADED}").into());
                continue;
            }
            for value in &given.values {
                args.push(format!("--{}={value}", given.flag).into());
            }
        }
        args
    }
}

impl clap::FromArgMatches for Flags {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut given = Vec::new();
        for key in KEYS {
            if key.name == "headless" && matches.get_flag(HEADED) {
                given.push(Given {
                    key,
                    flag: HEADED,
                    values: vec!["false".into()],
                });
            }
            if let Some(values) = matches.get_many::<String>(key.name) {
                given.push(Given {
                    key,
                    flag: key.flag,
                    values: values.cloned().collect(),
                });
            }
        }
        Ok(Flags { given })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl clap::Args for Flags {
    fn augment_args(command: clap::Command) -> clap::Command {
        let command = KEYS.iter().fold(command, |command, key| {
            let arg = Arg::new(key.name)
                .long(key.flag)
                .global(true)
                .value_name(key.value_name)
                .action(ArgAction::Append)
                .help(format!("{} [{}]", key.summary(), key.env));
            let arg = if key.switch {
                arg.num_args(0..=1)
                    .require_equals(true)
                    .default_missing_value("true")
            } else {
                arg
            };
            command.arg(arg)
        });
        command.arg(
            Arg::new(HEADED)
                .long(HEADED)
                .global(true)
                .action(ArgAction::SetTrue)
                .help("Show the browser window (needs a display): --headless=false"),
        )
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}

#[cfg(test)]
mod tests;
