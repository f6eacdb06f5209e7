//! What each tool declares of how everything around it treats it (its [`Policy`]): the
//! archive, a recorded flow, the journal, the engine's checks, a hand-off. The modules
//! that treat tools differently read a tool's policy from here, handed to them with the
//! call; none of them names a tool or looks one up.

use serde_json::Value;

/// How everything around a tool treats it — the archive, flows, records, the engine's
/// checks, a hand-off. Each tool declares its own on itself (no default: a tool that
/// forgets one does not compile), and every place that treats tools differently reads it
/// here rather than matching on tool names.
#[derive(Debug, Clone, Copy)]
pub struct Policy {
    /// What the archive keeps of a call that did not fail.
    pub archive: Archived,
    /// What a flow being recorded makes of a call that succeeded.
    pub flow: InFlow,
    /// The params that carry text typed into the page: never kept in a record, since
    /// the field may be a password input and nothing before the call can tell.
    pub typed_params: &'static [&'static str],
    /// Whether the call acts on an element, so may name one to verify (a target).
    pub takes_target: bool,
    /// Whether the agent may call it while a person holds the task (a hand-off), without
    /// taking the task back.
    pub during_handoff: bool,
    /// What a person's successful call of it adds to the hand-off's summary.
    pub noted: Noted,
    /// Whether its answer says what went wrong in the page during it (docs/logs.md#events).
    pub problems: Problems,
    /// Whether every call of it runs as sensitive (`CallOptions::sensitive`): what it
    /// handles is secret by nature (a saved state's cookies), so the journal keeps only
    /// its method and outcome and the archive nothing, however it was called.
    pub sensitive: bool,
}

/// What a tool's answer says of the page's console errors, exceptions and failed
/// requests that happened during the call (`events.logs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problems {
    /// Nothing: a read, or what does not touch the page.
    Unsaid,
    /// What went wrong during the call, once it ended.
    Said,
    /// The same, after waiting (within the settle budget) for the requests the call
    /// started to end: what an action's request answered is part of what it did.
    SaidAfterRequests,
}

/// What the archive keeps of a tool's call (`recall` finds it again).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Archived {
    /// Nothing: the call observes nothing worth finding again.
    Nothing,
    /// The text read, in the mode it was read, under the snapshot's id.
    Read,
    /// What an action changed: the new content of a screen scrolled on, else the diff.
    Change,
    /// The data, as JSON, in a mode named after the tool.
    Data,
}

/// What a flow being recorded makes of a tool's successful call.
#[derive(Debug, Clone, Copy)]
pub enum InFlow {
    /// Left out: a read, or what belongs to the task alone, which no replay could
    /// restore.
    Never,
    /// A step.
    Step,
    /// A step that always navigates: it checks the URL it reached.
    Navigation,
    /// A step, unless its params make this call a read.
    StepUnless(fn(&Value) -> bool),
}

/// What a person's call in the live view adds to the summary the agent gets back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Noted {
    Nothing,
    /// The page it reached.
    Navigation,
    /// The dialog answered, and how.
    Dialog,
}

impl Policy {
    /// A tool nothing treats apart: not archived, left out of flows, typing nothing, no
    /// target, refused during a hand-off, not noted.
    pub(crate) const PLAIN: Policy = Policy {
        archive: Archived::Nothing,
        flow: InFlow::Never,
        typed_params: &[],
        takes_target: false,
        during_handoff: false,
        noted: Noted::Nothing,
        problems: Problems::Unsaid,
        sensitive: false,
    };
    /// Like [`Policy::PLAIN`], but a step of a flow.
    pub(crate) const STEP: Policy = Policy {
        flow: InFlow::Step,
        ..Policy::PLAIN
    };
}
