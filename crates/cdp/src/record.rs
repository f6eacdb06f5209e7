//! The tape hook: every message in both directions, one JSON object per line, redacted
//! (`replay::redact`).

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

/// Writes `{"ms":…,"dir":"send"|"recv","msg":{…}}` lines. Each line is written with a
/// single `write_all`, unbuffered, so a tape survives its process being killed.
#[derive(Debug)]
pub struct Recorder {
    file: Mutex<File>,
    started: Instant,
}

/// Which way a recorded message went.
#[derive(Debug, Clone, Copy)]
pub enum Direction {
    Send,
    Recv,
}

impl Recorder {
    /// Creates (or empties) the tape at `path`, readable by its owner only: a tape is
    /// redacted, but still a whole browsing session.
    pub fn create(path: &Path) -> std::io::Result<Self> {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(path)?;
        // A file that was there keeps its mode through `open`.
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        Ok(Self {
            file: Mutex::new(file),
            started: Instant::now(),
        })
    }

    pub(crate) fn record(&self, dir: Direction, message: &str) {
        let dir = match dir {
            Direction::Send => "send",
            Direction::Recv => "recv",
        };
        // Redacted like every other record (docs/security.md#redaction): secrets by key, secret fields'
        // values and typing never reach the tape.
        let message = match serde_json::from_str::<serde_json::Value>(message) {
            Ok(mut value) => {
                crate::replay::redact(&mut value);
                value.to_string()
            }
            Err(_) => "\"[not JSON]\"".to_string(),
        };
        let line = format!(
            "{{\"ms\":{:.3},\"dir\":\"{dir}\",\"msg\":{message}}}\n",
            self.started.elapsed().as_secs_f64() * 1000.0,
        );
        if let Ok(mut file) = self.file.lock()
            && let Err(err) = file.write_all(line.as_bytes())
        {
            tracing::warn!(%err, "cannot write the CDP tape");
        }
    }
}
