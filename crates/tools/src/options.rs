//! How an engine runs: the options it is made with ([`EngineOptions`]) and those of one
//! command ([`CallOptions`]). Read by the engine and, through a command's `Ctx`, by the
//! tools.

use std::time::Duration;

use browser::BrowserOptions;
use serde_json::Value;

use crate::archive::ArchiveOptions;

/// How an engine gets its browser and bounds its commands.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// The browser of an engine made with [`Engine::new`](crate::Engine::new); an engine on a shared
    /// [`BrowserHost`](crate::BrowserHost) uses the host's.
    pub browser: BrowserOptions,
    pub task_id: String,
    /// The deadline of a command that names none.
    pub command_timeout: Duration,
    pub url_policy: browser::UrlPolicy,
    /// Run caller JavaScript (`eval`, `expect.js`, `readback`): off unless configured.
    pub enable_eval: bool,
    /// Dialog policy `ask`: JavaScript dialogs stay open for the `dialog` tool instead
    /// of being answered at once (policy `auto`, the default).
    pub ask_dialogs: bool,
    /// The folder uploads are taken from; files named for an upload must be inside it.
    pub upload_dir: Option<std::path::PathBuf>,
    /// How long a page may take to answer a probe before it is `PAGE_UNRESPONSIVE`
    /// (config `unresponsiveMs`).
    pub unresponsive: Duration,
    /// How long five consecutive failures keep the task's circuit open.
    pub circuit_open: Duration,
    /// How long a press (mouse button, touch) is held before its release (config
    /// `pressPauseMs`, default 30–80 ms).
    pub press_pause: browser::PressPause,
    /// The task's archive of observations (docs/faces.md#archive): whether, where, and kept or not.
    pub archive: ArchiveOptions,
    /// The budgets of a call that names none (read budgets, screenshot size, settle).
    pub defaults: crate::defaults::CallDefaults,
    /// How much a task may download (config `downloadMaxCount`, `downloadMaxMb`).
    pub downloads: browser::DownloadLimits,
    /// How many entries each ring of a tab's log keeps (config `logMaxEntries`).
    pub log_max_entries: usize,
    /// The viewport preset a new tab opens at (config `defaultViewport`).
    pub default_viewport: browser::Preset,
    /// Where the `state` tool keeps saved states, and the key that seals them (config
    /// `stateKey`).
    pub saved_states: crate::SavedStates,
    /// A persistent profile (config `profile`): the task runs in a browser of its own on
    /// this user-data directory, which it holds while it lives (`PROFILE_IN_USE` for
    /// another).
    pub profile: Option<std::path::PathBuf>,
    /// The proxy the task's requests go through (config `proxy`, `proxyBypass`,
    /// `proxyUsername`, `proxyPassword`).
    pub proxy: Option<browser::Proxy>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        Self {
            browser: BrowserOptions::default(),
            task_id: "default".into(),
            command_timeout: Duration::from_secs(30),
            url_policy: browser::UrlPolicy::default(),
            enable_eval: false,
            ask_dialogs: false,
            upload_dir: None,
            unresponsive: browser::DEFAULT_UNRESPONSIVE,
            circuit_open: crate::resilience::DEFAULT_CIRCUIT_OPEN,
            press_pause: browser::PressPause::default(),
            archive: ArchiveOptions::default(),
            defaults: crate::defaults::CallDefaults::default(),
            downloads: browser::DownloadLimits::default(),
            log_max_entries: browser::DEFAULT_LOG_ENTRIES,
            default_viewport: browser::Preset::Auto,
            saved_states: crate::SavedStates::default(),
            profile: None,
            proxy: None,
        }
    }
}

/// How one command is to be run, beyond its method and params.
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    /// The command's deadline (clamped to 1–900000 ms); the engine's default when absent.
    pub timeout: Option<Duration>,
    /// Keep only the method, outcome, code and stage in the journal (docs/security.md#redaction).
    pub sensitive: bool,
    /// The element an acting command works on, by identity instead of a locator in its
    /// params (a flow's step, replayed in a tab that never issued its ref).
    pub target: Option<browser::ElementIdentity>,
    /// Conditions checked after the tool ran, all required, as act's `expect` (a flow
    /// step's postcondition): unmet is `EXPECTATION_FAILED`.
    pub expect: Option<Value>,
    /// Made by the person in a hand-off's live view: not refused by its lock.
    pub person: bool,
    /// Cancels this call when requested, as `Engine::cancel` does, whether it runs or
    /// still waits for the task (an MCP client's cancellation).
    pub cancel: Option<std::sync::Arc<crate::CancelSignal>>,
}

/// The most a command may ask for (docs/waiting.md#deadlines).
pub const MAX_COMMAND_TIMEOUT: Duration = Duration::from_millis(900_000);
