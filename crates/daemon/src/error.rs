//! The daemon crate's one error type: failures of the server's setup and of the client's
//! transport. What a command did is never an error here: it is an envelope.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot listen on 127.0.0.1:{port}: {source}")]
    Bind {
        port: u16,
        #[source]
        source: std::io::Error,
    },
    /// The state directory is not this user's own (a link, another's, open to others).
    #[error("the state directory cannot be used: {0}")]
    StateDir(#[from] tools::folders::FolderError),
    #[error("another daemon is serving {}", state_dir.display())]
    AlreadyServing { state_dir: PathBuf },
    #[error("no daemon answers at {url}: {reason}")]
    Unreachable { url: String, reason: String },
    /// The client's own wait (`--timeout`) ended first; the command goes on.
    #[error(
        "no answer within {seconds} s (--timeout); the command was not cancelled and may still be running: `candor diagnose` shows it, `candor cancel ID` stops it"
    )]
    NoAnswerInTime { seconds: f64 },
    #[error("the daemon refused the token (401); is {} from this daemon?", token_path.display())]
    Unauthorized { token_path: PathBuf },
    #[error("the daemon's answer to {what} is not JSON: {reason}")]
    BadAnswer { what: String, reason: String },
    #[error("the server stopped with an error: {0}")]
    Serve(std::io::Error),
}

impl Error {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
