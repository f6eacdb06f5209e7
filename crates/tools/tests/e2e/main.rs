//! End-to-end tests of the catalogue: real headless Chromium, fixture pages served on
//! 127.0.0.1, and sequences of tool calls checked against their envelopes. One binary,
//! one module per area.

// Helpers outside #[test] functions: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

mod acting;
mod archive;
mod capture;
mod catalogue;
mod checkpoints;
mod conditions;
mod coverage;
mod flows;
mod harness;
mod hostile;
mod inputs;
mod isolation;
mod limits;
mod lists;
mod logs;
mod navigation;
mod pointing;
mod react;
mod refs;
mod seeds;
mod settling;
mod snapshot;
mod states;
mod structured;
mod untuned;
mod waits;
mod widgets;
