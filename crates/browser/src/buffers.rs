//! What a tab's bounded buffers hold now (docs/faces.md#memory), and their sum over every
//! tab of a browser: each buffer measured in its own module, under its own lock
//! (`footprint.rs` says how), gathered here.

use std::sync::Weak;

use crate::footprint::Held;
use crate::logs::{Rings, TabLog};
use crate::{Browser, Tab};

/// What the tabs' bounded buffers hold, summed over `tabs` tabs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TabBuffers {
    pub tabs: usize,
    /// The log's rings (`logs/`, config `logMaxEntries` each); the requests not ended yet
    /// count with `network`.
    pub console: Held,
    pub exceptions: Held,
    pub network: Held,
    pub problems: Held,
    /// The dialog log ([`crate::LOG_CAPACITY`] kept).
    pub dialogs: Held,
    /// The ref registry's refs kept whole (the last three URL epochs'), and the names of
    /// older ones, which are kept so that none is given out again.
    pub refs: Held,
    pub retired_refs: Held,
}

impl std::ops::AddAssign for TabBuffers {
    fn add_assign(&mut self, other: TabBuffers) {
        self.tabs += other.tabs;
        self.console += other.console;
        self.exceptions += other.exceptions;
        self.network += other.network;
        self.problems += other.problems;
        self.dialogs += other.dialogs;
        self.refs += other.refs;
        self.retired_refs += other.retired_refs;
    }
}

impl Tab {
    /// What this tab's buffers hold now. Each buffer's lock is taken in turn, and only
    /// for the walk over it.
    pub fn buffers(&self) -> TabBuffers {
        let Rings {
            console,
            exceptions,
            network,
            problems,
        } = self.read_log(TabLog::footprint);
        let (refs, retired_refs) = self.memory().ref_footprint();
        TabBuffers {
            tabs: 1,
            console,
            exceptions,
            network,
            problems,
            dialogs: crate::tab::dialogs::footprint(&self.shared.dialog_log),
            refs,
            retired_refs,
        }
    }
}

impl Browser {
    /// What the buffers of every tab open in this browser hold, whichever task it is
    /// of: read through the browser's own list of its tabs, so no task is waited for.
    pub fn tab_buffers(&self) -> TabBuffers {
        let mut sum = TabBuffers::default();
        for shared in self.tab_list().iter().filter_map(Weak::upgrade) {
            sum += Tab { shared }.buffers();
        }
        sum
    }
}
