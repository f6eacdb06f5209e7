//! The daemon's memory report (`GET /v1/health?memory=true`, docs/faces.md#memory): what
//! the allocator holds and what of it the program uses, what SQLite has allocated, and
//! what candor's bounded buffers hold, summed over tasks and tabs — so a long run tells
//! buffers filling up to their bounds from memory the allocator keeps after it was freed,
//! and both from a leak.
//!
//! Asked for by name, not on every health check: the CLI checks health before each verb,
//! and the walk over every buffer is not free.

use browser::{Held, TabBuffers};
use serde_json::{Map, Value, json};
use tools::TaskBuffers;

use crate::registry::Registry;

/// The report, as `memory` in the health answer.
pub(crate) fn report(registry: &Registry) -> Value {
    let engines = registry.engines();
    let mut tasks = TaskBuffers::default();
    for engine in &engines {
        tasks += engine.buffers();
    }
    let tabs = registry
        .host
        .browser()
        .map(|browser| browser.tab_buffers())
        .unwrap_or_default();
    json!({
        "heap": heap().map(|heap| json!({ "inUse": heap.in_use, "held": heap.held })),
        "sqlite": { "inUse": tools::sqlite_memory() },
        "tasks": engines.len(),
        "tabs": tabs.tabs,
        "buffers": buffers(&tasks, &tabs),
    })
}

/// Each buffer by its name in the report, and `bytes`, their sum.
fn buffers(tasks: &TaskBuffers, tabs: &TabBuffers) -> Value {
    let named: [(&str, Held); 10] = [
        ("flowSteps", tasks.flow_steps),
        ("journal", tasks.journal),
        ("checkpoints", tasks.checkpoints),
        ("console", tabs.console),
        ("exceptions", tabs.exceptions),
        ("network", tabs.network),
        ("problems", tabs.problems),
        ("dialogs", tabs.dialogs),
        ("refs", tabs.refs),
        ("retiredRefs", tabs.retired_refs),
    ];
    let mut out = Map::new();
    out.insert(
        "bytes".into(),
        named
            .iter()
            .map(|(_, held)| held.bytes)
            .sum::<usize>()
            .into(),
    );
    for (name, held) in named {
        out.insert(
            name.into(),
            json!({ "entries": held.entries, "bytes": held.bytes }),
        );
    }
    Value::Object(out)
}

/// The allocator's view of the process's heap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Heap {
    /// Bytes in blocks the program has allocated and not freed.
    pub in_use: u64,
    /// Bytes the allocator has from the system: in use, and freed but kept (in its
    /// arenas, for reuse, or stranded between blocks still in use).
    pub held: u64,
}

/// The heap as glibc counts it (`mallinfo2`): blocks in the arenas plus those mapped on
/// their own, in use and held.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) fn heap() -> Option<Heap> {
    // SAFETY: mallinfo2 takes no arguments and returns a struct by value; it locks each
    // arena itself while it reads it, so it may be called from any thread at any time.
    let info = unsafe { libc::mallinfo2() };
    Some(Heap {
        in_use: (info.uordblks + info.hblkhd) as u64,
        held: (info.arena + info.hblkhd) as u64,
    })
}

/// Other allocators are not asked.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn heap() -> Option<Heap> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_buffer_is_named_once_and_bytes_is_their_sum() {
        let tasks = TaskBuffers {
            flow_steps: Held {
                entries: 3,
                bytes: 300,
            },
            journal: Held {
                entries: 2,
                bytes: 20,
            },
            ..TaskBuffers::default()
        };
        let tabs = TabBuffers {
            tabs: 1,
            retired_refs: Held {
                entries: 5,
                bytes: 5,
            },
            ..TabBuffers::default()
        };
        let report = buffers(&tasks, &tabs);
        assert_eq!(report["bytes"], 325);
        assert_eq!(report["flowSteps"], json!({ "entries": 3, "bytes": 300 }));
        assert_eq!(report["retiredRefs"], json!({ "entries": 5, "bytes": 5 }));
        assert_eq!(report["console"], json!({ "entries": 0, "bytes": 0 }));
        assert_eq!(report.as_object().map(Map::len), Some(11));
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn the_heap_in_use_is_within_what_the_allocator_holds() {
        let kept = vec![0u8; 1 << 20];
        let heap = heap().expect("glibc reports its heap");
        std::hint::black_box(&kept);
        assert!(heap.in_use >= kept.len() as u64, "{heap:?}");
        assert!(heap.in_use <= heap.held, "{heap:?}");
    }
}
