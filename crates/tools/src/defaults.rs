//! What a call that names no budget gets (config `snapshotMaxTokens`, `readMaxChars`,
//! `screenshotMaxWidth`, `settleMs`), and the bounds each budget keeps — and those of a
//! task's download limits (`downloadMaxCount`, `downloadMaxMb`; their defaults are
//! `browser::DownloadLimits`'): one place for the tools that check their params and for
//! the configuration that checks its keys.

use std::ops::RangeInclusive;
use std::time::Duration;

/// An elements snapshot's token budget.
pub const SNAPSHOT_MAX_TOKENS: RangeInclusive<usize> = 100..=200_000;
/// A text, markdown or html read's character budget.
pub const READ_MAX_CHARS: RangeInclusive<usize> = 1..=2_000_000;
/// The longest side of a screenshot, in pixels.
pub const SCREENSHOT_MAX_WIDTH: RangeInclusive<u32> = 64..=7680;
/// How long a page is waited for to stop changing, in milliseconds.
pub const SETTLE_MS: RangeInclusive<u64> = 0..=60_000;
/// How many downloads a task may begin (0: none).
pub const DOWNLOAD_MAX_COUNT: RangeInclusive<usize> = 0..=100_000;
/// How many megabytes a task's downloads may take together (0: none).
pub const DOWNLOAD_MAX_MB: RangeInclusive<u64> = 0..=1_000_000;
/// How many entries each ring of a tab's log keeps (`logMaxEntries`).
pub const LOG_MAX_ENTRIES: RangeInclusive<usize> = 10..=100_000;

/// The budgets of a call that names none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallDefaults {
    /// `snapshot` mode elements: `maxTokens`.
    pub snapshot_max_tokens: usize,
    /// `snapshot` modes text, markdown, html: `maxChars`.
    pub read_max_chars: usize,
    /// `screenshot`: `maxWidth`.
    pub screenshot_max_width: u32,
    /// `snapshot` and `act`: `settleMs`.
    pub settle: Duration,
}

impl Default for CallDefaults {
    fn default() -> Self {
        Self {
            snapshot_max_tokens: 4_096,
            read_max_chars: 20_000,
            screenshot_max_width: browser::DEFAULT_MAX_SIDE,
            settle: browser::DEFAULT_SETTLE,
        }
    }
}

impl CallDefaults {
    /// Each default under its configuration key. A param's doc comment cites one as
    /// `{snapshotMaxTokens}`, and the tool list a running engine gives ([`fill`]) reads
    /// its value there, so what a model is told is what this deployment does.
    ///
    /// [`fill`]: CallDefaults::fill
    pub fn by_key(&self) -> [(&'static str, u64); 4] {
        [
            ("snapshotMaxTokens", self.snapshot_max_tokens as u64),
            ("readMaxChars", self.read_max_chars as u64),
            ("screenshotMaxWidth", u64::from(self.screenshot_max_width)),
            ("settleMs", self.settle.as_millis() as u64),
        ]
    }

    /// `text` with each `{key}` of [`by_key`](CallDefaults::by_key) replaced by its value.
    pub fn fill(&self, text: &str) -> String {
        self.by_key()
            .iter()
            .fold(text.to_string(), |text, (key, value)| {
                text.replace(&format!("{{{key}}}"), &value.to_string())
            })
    }
}
