//! The tape hook: every message in both directions, one JSON object per line.

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
    pub fn create(path: &Path) -> std::io::Result<Self> {
        Ok(Self {
            file: Mutex::new(File::create(path)?),
            started: Instant::now(),
        })
    }

    pub(crate) fn record(&self, dir: Direction, message: &str) {
        let dir = match dir {
            Direction::Send => "send",
            Direction::Recv => "recv",
        };
        // The message is already one JSON value, so it is embedded as is rather than
        // parsed and re-serialised on the hot path.
        let line = format!(
            "{{\"ms\":{:.3},\"dir\":\"{dir}\",\"msg\":{}}}\n",
            self.started.elapsed().as_secs_f64() * 1000.0,
            message.trim()
        );
        if let Ok(mut file) = self.file.lock()
            && let Err(err) = file.write_all(line.as_bytes())
        {
            tracing::warn!(%err, "cannot write the CDP tape");
        }
    }
}
