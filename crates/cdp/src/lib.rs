//! The Chrome DevTools Protocol connection, and nothing about pages.
//!
//! A [`Transport`] moves whole JSON messages (a pipe to a Chromium we launched, or a
//! WebSocket to one we attach to). A [`Connection`] runs on top of it: it numbers
//! commands, routes responses back to their callers and events to the subscribers of
//! their flattened session, and can record every message to a JSONL tape, which
//! [`ReplayTransport`] plays back with no browser.
//! [`protocol`] is the typed subset of CDP that candor uses; anything else goes through
//! [`Session::call_raw`].

mod connection;
mod deadline;
mod error;
pub mod protocol;
mod record;
mod replay;
mod secrets;
mod transport;

pub use connection::{Connection, EventHandler, RawEvent, Session, SessionId};
pub use deadline::Deadline;
pub use error::Error;
pub use record::Recorder;
pub use replay::{ReplayTransport, redact};
pub use secrets::{
    REDACTED, SECRET_AUTOCOMPLETE, SECRET_NAMES, add_secret_keys, is_secret_field, is_secret_key,
    redact_secrets, secret_field_selector,
};
pub use transport::{
    MAX_MESSAGE, MessageSink, MessageStream, PipeTransport, Received, Transport, WebSocketTransport,
};
