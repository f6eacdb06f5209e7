//! The exit codes of the `candor` process (docs/faces.md#exit-codes), and the one mapping
//! of an answer to its code. The verbs and `flow run` both end here.

use std::process::ExitCode;

use serde_json::Value;

/// A postcondition the call named did not hold (`EXPECTATION_FAILED`).
pub const EXPECTATION_FAILED: u8 = 2;
/// A usage error, or a bad configuration (before any daemon is started).
pub const USAGE: u8 = 64;

/// The exit code of an envelope: 0 ok, 2 `EXPECTATION_FAILED`, 1 any other error.
pub fn code(envelope: &Value) -> ExitCode {
    if envelope["ok"] == true {
        ExitCode::SUCCESS
    } else if envelope["code"] == "EXPECTATION_FAILED" {
        ExitCode::from(EXPECTATION_FAILED)
    } else {
        ExitCode::FAILURE
    }
}
