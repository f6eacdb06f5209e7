//! What can go wrong on a CDP connection.

use std::time::Duration;

/// A CDP-level failure. Context is data, so upper layers map it without parsing text.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// The browser answered the command with a protocol error.
    #[error("{method} failed: {message} (code {code})")]
    Protocol {
        method: String,
        code: i64,
        message: String,
    },
    /// The deadline passed first. Work already handed to the browser may still complete.
    #[error("timed out after {} ms waiting for {waiting_for}", after.as_millis())]
    Timeout {
        waiting_for: String,
        after: Duration,
    },
    /// The connection is gone: the browser exited, crashed or closed the socket.
    #[error("the browser connection is closed")]
    Closed,
    /// The reply was larger than one message may be (`limit` bytes): it was read and
    /// dropped, and the connection goes on. A page made it so (a huge attribute or text).
    #[error(
        "the reply to {method} was {} MB, more than the {} MB one CDP message may be; it was dropped",
        size / 1_000_000,
        limit / 1_000_000
    )]
    TooLarge {
        method: String,
        size: usize,
        limit: usize,
    },
    /// A response or event did not have the shape the typed subset expects.
    #[error("unexpected reply to {method}: {reason}")]
    Decode { method: String, reason: String },
    /// The transport could not be opened.
    #[error("cannot connect to {endpoint}: {reason}")]
    Connect { endpoint: String, reason: String },
    #[error("i/o error: {0}")]
    Io(String),
}

impl Error {
    /// True when the failure is a protocol error whose message contains `needle`.
    pub fn is_protocol_message(&self, needle: &str) -> bool {
        matches!(self, Error::Protocol { message, .. } if message.contains(needle))
    }
}
