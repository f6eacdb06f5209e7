//! The typed subset of CDP that candor uses.
//!
//! Each command is a params struct implementing [`Command`] (its method name and reply
//! type); each event a struct implementing [`Event`]. Enums are lenient: a value this
//! code does not know becomes `Other` instead of failing the message, because Chromium
//! adds values between versions. Methods not typed here go through
//! [`crate::Session::call_raw`]. A test checks every name and field against the protocol
//! description Chromium serves (vendored in `protocol/`).

use serde::Serialize;
use serde::de::DeserializeOwned;

pub mod accessibility;
pub mod browser;
pub mod dom;
pub mod dom_snapshot;
pub mod emulation;
pub mod fetch;
pub mod input;

pub mod inspector;
pub mod network;
pub mod page;
pub mod performance;
pub mod runtime;
pub mod storage;
pub mod target;

/// A CDP command: its params are the struct's fields.
pub trait Command: Serialize {
    const METHOD: &'static str;
    type Response: DeserializeOwned;
}

/// A CDP event: its params are the struct's fields.
pub trait Event: DeserializeOwned {
    const METHOD: &'static str;
}

/// A reply with no fields we read.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct Empty {}

/// Declares `Command` for params structs: `command!(Type => "Domain.method", Reply);`.
macro_rules! command {
    ($($ty:ty => $method:literal, $response:ty;)*) => {
        $(impl $crate::protocol::Command for $ty {
            const METHOD: &'static str = $method;
            type Response = $response;
        })*
        /// The methods typed in this module with their default params, for the protocol
        /// check.
        #[cfg(test)]
        pub(crate) fn commands() -> Vec<(&'static str, serde_json::Value)> {
            vec![$(($method, serde_json::to_value(<$ty>::default()).unwrap_or_default())),*]
        }
    };
}

/// Declares `Event` for event structs: `event!(Type => "Domain.event";)`.
macro_rules! event {
    ($($ty:ty => $method:literal;)*) => {
        $(impl $crate::protocol::Event for $ty {
            const METHOD: &'static str = $method;
        })*
        /// The events typed in this module, for the protocol check.
        #[cfg(test)]
        pub(crate) const EVENTS: &[&str] = &[$($method),*];
    };
}

pub(crate) use {command, event};

#[cfg(test)]
mod check;
