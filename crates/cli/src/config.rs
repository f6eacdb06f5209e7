//! The configuration file (SPEC §19): `candor.toml` in the working directory, or the file
//! `--config` (or `$CANDOR_CONFIG`) names. Every key can be overridden by a `CANDOR_*`
//! environment variable, and some by flags. Unknown keys are errors.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;

/// The keys of `candor.toml`; all optional.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Config {
    /// Let callers run JavaScript (`eval`, `expect.js`, `readback`). Default false.
    pub enable_eval: Option<bool>,
    /// Allow `data:` URLs. Default false.
    pub allow_data: Option<bool>,
    /// The folder uploads are taken from.
    pub upload_dir: Option<PathBuf>,
    /// `auto` (answer dialogs as they open, the default) or `ask` (leave them to the
    /// `dialog` tool).
    pub dialog_policy: Option<DialogPolicy>,
    /// The deadline of a command that names none, in milliseconds. Default 30000.
    pub command_timeout_ms: Option<u64>,
    /// How long a page may take to answer a probe before it is `PAGE_UNRESPONSIVE`, in
    /// milliseconds. Default 2000.
    pub unresponsive_ms: Option<u64>,
    /// The Chromium executable.
    pub chromium: Option<PathBuf>,
    /// Run Chromium headless. Default true.
    pub headless: Option<bool>,
    /// How long a press (mouse button, touch) is held before its release: `"MIN,MAX"`
    /// in milliseconds, drawn anew for each press (default `"30,80"`), or one number
    /// (`0`: released at once).
    #[serde(default, deserialize_with = "press_pause")]
    pub press_pause_ms: Option<browser::PressPause>,
    /// Keep a task's archive of observations when the task ends. Default false.
    pub keep_archive: Option<bool>,
}

/// `pressPauseMs`: a number or a `"MIN,MAX"` string.
fn press_pause<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<browser::PressPause>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Ms(u64),
        Text(String),
    }
    let text = match Raw::deserialize(deserializer)? {
        Raw::Ms(ms) => ms.to_string(),
        Raw::Text(text) => text,
    };
    browser::PressPause::parse(&text)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DialogPolicy {
    Auto,
    Ask,
}

impl Config {
    /// Reads `path`, else `$CANDOR_CONFIG`, else `./candor.toml` if there is one, then
    /// applies the `CANDOR_*` environment over it.
    pub fn load(path: Option<&Path>) -> anyhow::Result<Config> {
        let path = path
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os("CANDOR_CONFIG").map(PathBuf::from))
            .or_else(|| Some(PathBuf::from("candor.toml")).filter(|p| p.is_file()));
        let mut config = match &path {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read the config file {}", path.display()))?;
                toml::from_str(&text)
                    .with_context(|| format!("the config file {} is not valid", path.display()))?
            }
            None => Config::default(),
        };
        config.apply_env(|name| std::env::var(name).ok())?;
        Ok(config)
    }

    fn apply_env(&mut self, var: impl Fn(&str) -> Option<String>) -> anyhow::Result<()> {
        if let Some(value) = var("CANDOR_ENABLE_EVAL") {
            self.enable_eval = Some(boolean("CANDOR_ENABLE_EVAL", &value)?);
        }
        if let Some(value) = var("CANDOR_ALLOW_DATA") {
            self.allow_data = Some(boolean("CANDOR_ALLOW_DATA", &value)?);
        }
        if let Some(value) = var("CANDOR_UPLOAD_DIR").filter(|v| !v.is_empty()) {
            self.upload_dir = Some(PathBuf::from(value));
        }
        if let Some(value) = var("CANDOR_DIALOG_POLICY") {
            self.dialog_policy = Some(match value.trim().to_ascii_lowercase().as_str() {
                "auto" => DialogPolicy::Auto,
                "ask" => DialogPolicy::Ask,
                other => anyhow::bail!("CANDOR_DIALOG_POLICY is {other:?}; it takes auto or ask"),
            });
        }
        if let Some(value) = var("CANDOR_COMMAND_TIMEOUT_MS") {
            self.command_timeout_ms = Some(value.trim().parse().with_context(|| {
                format!("CANDOR_COMMAND_TIMEOUT_MS is {value:?}, not a number of milliseconds")
            })?);
        }
        if let Some(value) = var("CANDOR_UNRESPONSIVE_MS") {
            let ms: u64 = value.trim().parse().with_context(|| {
                format!("CANDOR_UNRESPONSIVE_MS is {value:?}, not a number of milliseconds")
            })?;
            self.unresponsive_ms = Some(ms);
        }
        if let Some(value) = var("CANDOR_KEEP_ARCHIVE") {
            self.keep_archive = Some(boolean("CANDOR_KEEP_ARCHIVE", &value)?);
        }
        if let Some(value) = var("CANDOR_HEADLESS") {
            self.headless = Some(boolean("CANDOR_HEADLESS", &value)?);
        }
        if let Some(value) = var("CANDOR_PRESS_PAUSE_MS") {
            self.press_pause_ms = Some(
                browser::PressPause::parse(&value)
                    .with_context(|| "CANDOR_PRESS_PAUSE_MS takes MIN,MAX or one number")?,
            );
        }
        Ok(())
    }
}

/// `true`/`1`/`yes`/`on` or `false`/`0`/`no`/`off`; anything else is an error naming the
/// variable, so a typo never silently leaves a setting as it was.
fn boolean(name: &str, value: &str) -> anyhow::Result<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" | "" => Ok(false),
        other => anyhow::bail!("{name} is {other:?}; it takes true or false"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_is_read_and_unknown_keys_are_errors() {
        let config: Config =
            toml::from_str("enableEval = true\nuploadDir = \"/srv/up\"\ndialogPolicy = \"ask\"")
                .unwrap();
        assert_eq!(config.enable_eval, Some(true));
        assert_eq!(config.upload_dir, Some(PathBuf::from("/srv/up")));
        assert_eq!(config.dialog_policy, Some(DialogPolicy::Ask));
        let config: Config = toml::from_str("keepArchive = true").unwrap();
        assert_eq!(config.keep_archive, Some(true));
        let config: Config = toml::from_str("unresponsiveMs = 1500").unwrap();
        assert_eq!(config.unresponsive_ms, Some(1500));
        let config: Config = toml::from_str("pressPauseMs = \"30,80\"").unwrap();
        assert_eq!(config.press_pause_ms, Some(browser::PressPause::HUMAN));
        let config: Config = toml::from_str("pressPauseMs = 0").unwrap();
        assert_eq!(config.press_pause_ms, Some(browser::PressPause::NONE));
        let err = toml::from_str::<Config>("pressPauseMs = \"80,30\"")
            .unwrap_err()
            .to_string();
        assert!(err.contains("80,30"), "{err}");
        let err = toml::from_str::<Config>("enableEvil = true")
            .unwrap_err()
            .to_string();
        assert!(err.contains("enableEvil"), "{err}");
    }

    #[test]
    fn the_environment_overrides_the_file_and_typos_are_errors() {
        let mut config: Config = toml::from_str("enableEval = false").unwrap();
        config
            .apply_env(|name| (name == "CANDOR_ENABLE_EVAL").then(|| "yes".to_string()))
            .unwrap();
        assert_eq!(config.enable_eval, Some(true));
        let err = config
            .apply_env(|name| (name == "CANDOR_ENABLE_EVAL").then(|| "ture".to_string()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("CANDOR_ENABLE_EVAL"), "{err}");
        assert!(
            config
                .apply_env(|n| (n == "CANDOR_DIALOG_POLICY").then(|| "sometimes".into()))
                .is_err()
        );
        config
            .apply_env(|n| (n == "CANDOR_PRESS_PAUSE_MS").then(|| "0".into()))
            .unwrap();
        assert_eq!(config.press_pause_ms, Some(browser::PressPause::NONE));
        assert!(
            config
                .apply_env(|n| (n == "CANDOR_PRESS_PAUSE_MS").then(|| "slow".into()))
                .is_err()
        );
    }
}
