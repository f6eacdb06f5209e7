//! Wall-clock times as the daemon's answers give them.

use std::time::SystemTime;

/// Milliseconds since the Unix epoch (0 for a time before it).
pub(crate) fn epoch_ms(time: SystemTime) -> u64 {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or_default()
}
