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
