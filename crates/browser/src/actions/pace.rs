//! The human pace of pointer input (docs/acting.md#trusted-input): a press held for a few tens of
//! milliseconds before its release, the length drawn anew for each press. Pages that
//! tell people from scripts look at how long a button was held; zero is allowed and
//! releases at once.

use std::time::Duration;

use cdp::Deadline;

/// How long a press is held before its release: a length drawn uniformly from
/// `min..=max` for each press (mouse button or touch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PressPause {
    min: Duration,
    max: Duration,
}

/// Why a press pause was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("press pause {text:?}: {reason}")]
pub struct InvalidPressPause {
    pub text: String,
    pub reason: &'static str,
}

impl PressPause {
    /// 30–80 ms, the default.
    pub const HUMAN: PressPause = PressPause {
        min: Duration::from_millis(30),
        max: Duration::from_millis(80),
    };
    /// Released at once.
    pub const NONE: PressPause = PressPause {
        min: Duration::ZERO,
        max: Duration::ZERO,
    };
    /// The longest pause that may be configured.
    pub const MAX: Duration = Duration::from_millis(1_000);

    /// A pause of `min..=max`; `min` at most `max`, and `max` at most [`Self::MAX`].
    pub fn new(min: Duration, max: Duration) -> Result<Self, &'static str> {
        if min > max {
            return Err("its least is more than its most");
        }
        if max > Self::MAX {
            return Err("at most 1000 ms");
        }
        Ok(Self { min, max })
    }

    /// `"MIN,MAX"` in milliseconds (`"30,80"`), or one number for a fixed pause (`"0"`:
    /// no pause).
    pub fn parse(text: &str) -> Result<Self, InvalidPressPause> {
        let invalid = |reason| InvalidPressPause {
            text: text.to_string(),
            reason,
        };
        let ms = |part: &str| {
            part.trim()
                .parse::<u64>()
                .map(Duration::from_millis)
                .map_err(|_| invalid("give milliseconds as MIN,MAX (30,80) or one number (0)"))
        };
        let (min, max) = match text.split_once(',') {
            Some((min, max)) => (ms(min)?, ms(max)?),
            None => {
                let fixed = ms(text)?;
                (fixed, fixed)
            }
        };
        Self::new(min, max).map_err(invalid)
    }

    pub fn min(&self) -> Duration {
        self.min
    }

    pub fn max(&self) -> Duration {
        self.max
    }

    /// One press's pause, drawn from the range.
    pub fn draw(&self) -> Duration {
        if self.min == self.max {
            return self.min;
        }
        let ms = fastrand::u64(self.min.as_millis() as u64..=self.max.as_millis() as u64);
        Duration::from_millis(ms)
    }

    /// One press's hold, timed from now (never past `deadline`): started once the browser
    /// has taken the press and awaited before the release, so the page never sees a
    /// press held shorter than the pause (a press that waited in a busy browser's queue
    /// would otherwise eat into it). `None` when there is no pause.
    pub(super) fn start(&self, deadline: Deadline) -> Option<tokio::time::Sleep> {
        let pause = self.draw().min(deadline.remaining());
        (!pause.is_zero()).then(|| tokio::time::sleep(pause))
    }
}

impl Default for PressPause {
    fn default() -> Self {
        Self::HUMAN
    }
}

impl std::fmt::Display for PressPause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},{}", self.min.as_millis(), self.max.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_a_fixed_pause_and_zero_parse_and_nonsense_is_refused() {
        assert_eq!(PressPause::parse("30,80"), Ok(PressPause::HUMAN));
        assert_eq!(PressPause::parse(" 0 "), Ok(PressPause::NONE));
        let fixed = PressPause::parse("50").unwrap_or(PressPause::NONE);
        assert_eq!(
            (fixed.min(), fixed.max()),
            (Duration::from_millis(50), Duration::from_millis(50))
        );
        for bad in ["80,30", "fast", "30,", "-5", "0,5000"] {
            assert!(PressPause::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(PressPause::HUMAN.to_string(), "30,80");
    }

    #[test]
    fn every_drawn_pause_lies_in_the_range_and_they_vary() {
        let drawn: Vec<Duration> = (0..200).map(|_| PressPause::HUMAN.draw()).collect();
        assert!(
            drawn
                .iter()
                .all(|d| (PressPause::HUMAN.min()..=PressPause::HUMAN.max()).contains(d))
        );
        assert!(drawn.iter().any(|d| *d != drawn[0]), "never varied");
        assert_eq!(PressPause::NONE.draw(), Duration::ZERO);
    }
}
