//! The catalogue: every tool defined once — params (with their JSON Schema), output,
//! handler — plus the result envelope every face returns (docs/envelope.md, docs/faces.md#catalogue).
//!
//! The MCP tool list, the CLI and (later) the HTTP routes are all derived from
//! [`catalogue()`]; this crate knows no transport. [`Engine`] runs one task's commands:
//! it numbers them, gives each one deadline, maps every failure to a stable code, and
//! keeps the journal that `diagnostics` reads.

mod archive;
mod catalogue;
mod checkpoints;
mod command;
mod ctx;
pub mod defaults;
mod engine;
mod envelope;
mod error;
pub mod flow;
mod flow_file;
pub mod folders;
pub mod handoff;
mod host;
mod journal;
mod logs;
mod mutex;
mod options;
mod policy;
mod render;
mod resilience;
mod saved_states;
mod schema;
mod state;
mod untrusted;

pub use archive::{ARCHIVE_FILE, ArchiveOptions, sqlite_memory};
pub use catalogue::{Annotations, PageGuard, ToolDef, catalogue, find, redact_command, tool};
pub use command::{ActiveCommand, CancelSignal};
pub use engine::Engine;
pub use envelope::{Envelope, Events, Execution, Image, PageInfo, Status, Verification};
pub use error::{ActionStatus, Code, ToolError};
pub use handoff::{random_token, same_secret};
pub use host::BrowserHost;
pub use options::{CallOptions, EngineOptions, MAX_COMMAND_TIMEOUT};
pub use policy::{Archived, InFlow, Noted, Policy};
pub use render::{FENCE_CLOSE, FENCE_CLOSE_ESCAPED, FENCE_OPEN, render_json, render_text};
pub use resilience::DEFAULT_CIRCUIT_OPEN;
pub use saved_states::{SavedStates, StateKey};
pub use state::TaskBuffers;
