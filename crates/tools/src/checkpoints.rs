//! The task's checkpoints (docs/faces.md#checkpoints): every element snapshot's restorable state, held in
//! memory by the engine (so a browser relaunch keeps them) and dropped with the task. The
//! oldest go first past [`CAPACITY`]; how many went is counted.

use std::collections::VecDeque;

use browser::Checkpoint;

/// Checkpoints a task holds at most.
pub(crate) const CAPACITY: usize = 100;

#[derive(Debug, Default)]
pub(crate) struct Checkpoints {
    held: VecDeque<Checkpoint>,
    dropped: usize,
}

impl Checkpoints {
    pub(crate) fn keep(&mut self, checkpoint: Checkpoint) {
        self.held.push_back(checkpoint);
        if self.held.len() > CAPACITY {
            self.held.pop_front();
            self.dropped += 1;
        }
    }

    /// The checkpoint with exactly this id.
    pub(crate) fn get(&self, id: &str) -> Option<&Checkpoint> {
        self.held.iter().find(|c| c.id == id)
    }

    /// Newest first.
    pub(crate) fn newest_first(&self) -> impl Iterator<Item = &Checkpoint> {
        self.held.iter().rev()
    }

    pub(crate) fn held(&self) -> usize {
        self.held.len()
    }

    pub(crate) fn dropped(&self) -> usize {
        self.dropped
    }

    /// What the checkpoints held take (`browser::Footprint`).
    pub(crate) fn footprint(&self) -> browser::Held {
        browser::Held::ring(&self.held)
    }
}
