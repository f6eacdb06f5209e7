//! Loading the configuration: the defaults, then the file, then the `CANDOR_*`
//! environment, then the flags, each value checked as it is set; and the errors that name
//! an unknown key (with the key it was perhaps meant to be) or a bad value (with the key,
//! the value and where it came from).

use std::path::{Path, PathBuf};

use anyhow::Context;

use super::flags::Flags;
use super::value::Raw;
use super::{Config, KEYS, Source};

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
    /// is silently preferred. A proxy's user name, password and bypass list need the
    /// proxy (and a password its user name).
    pub(super) fn check_placement(&self) -> anyhow::Result<()> {
        if self.grid.is_some() && !self.cdp_endpoints.is_empty() {
            anyhow::bail!(
                "grid ({}) and cdpEndpoints ({}) both say where tasks run; set one of them",
                self.sources.grid,
                self.sources.cdp_endpoints
            );
        }
        if self.proxy_password.is_some() && self.proxy_username.is_none() {
            anyhow::bail!(
                "proxyPassword ({}) is set and proxyUsername is not; a password needs its user name",
                self.sources.proxy_password
            );
        }
        if self.proxy.is_none() && (self.proxy_username.is_some() || self.proxy_bypass.is_some()) {
            anyhow::bail!(
                "proxyUsername or proxyBypass is set and proxy is not; set the proxy they are for"
            );
        }
        Ok(())
    }

    /// The proxy the keys describe, if any.
    pub fn proxy_setting(&self) -> Option<browser::Proxy> {
        let server = self.proxy.as_ref()?;
        Some(browser::Proxy {
            server: server.0.clone(),
            bypass: self.proxy_bypass.as_ref().map(|b| b.0.clone()),
            credentials: self
                .proxy_username
                .as_ref()
                .map(|user| browser::Credentials {
                    username: user.0.clone(),
                    password: self
                        .proxy_password
                        .as_ref()
                        .map(|p| p.0.clone())
                        .unwrap_or_default(),
                }),
        })
    }

    /// The keys of a file's text, over what is set.
    pub(super) fn apply_file(&mut self, path: &Path, text: &str) -> anyhow::Result<()> {
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
    pub(super) fn apply_env(&mut self, var: impl Fn(&str) -> Option<String>) -> anyhow::Result<()> {
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
