//! The daemon's memory report (`GET /v1/health?memory=true`, docs/faces.md#memory), read
//! once a minute: the heap the allocator counts in use and holds, what SQLite has
//! allocated, and what each bounded buffer holds. Beside the daemon's RSS it tells the
//! three stories apart — buffers filling to their bounds (their bytes rise, then stay),
//! the allocator keeping freed memory (held rises, in use does not), and memory nothing
//! names (`other`, in use less the buffers and SQLite).
//!
//! The buffers' names are the report's own: this module keeps no list of them.

use serde_json::Value;

/// One minute's report.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Memory {
    /// `None` where the daemon's allocator is not glibc's.
    pub heap_in_use: Option<u64>,
    pub heap_held: Option<u64>,
    pub sqlite: u64,
    /// The engines (live and kept for diagnostics) and tabs whose buffers were counted.
    pub tasks: u64,
    pub tabs: u64,
    /// Every buffer's estimated bytes, summed.
    pub buffers: u64,
    /// Each buffer, in the report's order: name, entries, bytes.
    pub each: Vec<(String, u64, u64)>,
}

impl Memory {
    /// Asks the daemon; `None` when it does not answer with a report.
    pub(super) fn read(client: &daemon::Client) -> Option<Memory> {
        Memory::of(&client.memory().ok()?.body["memory"])
    }

    /// The report's `memory` object, read.
    fn of(report: &Value) -> Option<Memory> {
        let buffers = report["buffers"].as_object()?;
        let each = buffers
            .iter()
            .filter(|(name, _)| *name != "bytes")
            .map(|(name, held)| {
                Some((
                    name.clone(),
                    held["entries"].as_u64()?,
                    held["bytes"].as_u64()?,
                ))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Memory {
            heap_in_use: report["heap"]["inUse"].as_u64(),
            heap_held: report["heap"]["held"].as_u64(),
            sqlite: report["sqlite"]["inUse"].as_u64()?,
            tasks: report["tasks"].as_u64()?,
            tabs: report["tabs"].as_u64()?,
            buffers: buffers.get("bytes")?.as_u64()?,
            each,
        })
    }

    /// The heap in use that neither the buffers nor SQLite account for.
    pub(super) fn other(&self) -> Option<u64> {
        let named = self.buffers + self.sqlite;
        self.heap_in_use.map(|in_use| in_use.saturating_sub(named))
    }
}

/// The second table: each buffer's megabytes and entries, minute by minute, then SQLite,
/// the heap nothing names, and how many tasks and tabs were counted.
pub(super) fn print_table(minutes: &[(usize, Option<&Memory>)]) {
    let Some(names) = minutes
        .iter()
        .find_map(|(_, memory)| memory.map(|m| m.each.iter().map(|(name, ..)| name.clone())))
    else {
        println!("\nmemory by buffer: the daemon gave no memory report");
        return;
    };
    let names: Vec<String> = names.collect();
    println!(
        "\nmemory by buffer, MB (entries), summed over the daemon's tasks and tabs; \
         other = heap in use − buffers − SQLite"
    );
    let mut header = format!("{:>6}", "minute");
    for name in names.iter().map(String::as_str).chain(TAIL) {
        header.push_str(&format!(" {name:>width$}", width = width(name)));
    }
    println!("{header}");
    for (minute, memory) in minutes {
        println!("{}", line(*minute, *memory, &names));
    }
}

/// The columns after the buffers.
const TAIL: [&str; 4] = ["sqlite", "other", "tasks", "tabs"]; // not a tool name

/// One minute of the table; a minute without a report is dashes.
fn line(minute: usize, memory: Option<&Memory>, names: &[String]) -> String {
    let mut line = format!("{minute:>6}");
    let cells: Vec<String> = match memory {
        Some(memory) => names
            .iter()
            .map(|name| {
                memory
                    .each
                    .iter()
                    .find(|(n, ..)| n == name)
                    .map_or_else(|| "–".into(), |(_, n, b)| format!("{} ({n})", mb(*b)))
            })
            .chain([
                mb(memory.sqlite),
                memory.other().map_or_else(|| "–".into(), mb),
                memory.tasks.to_string(),
                memory.tabs.to_string(),
            ])
            .collect(),
        None => vec!["–".into(); names.len() + TAIL.len()],
    };
    for (name, cell) in names.iter().map(String::as_str).chain(TAIL).zip(cells) {
        line.push_str(&format!(" {cell:>width$}", width = width(name)));
    }
    line
}

/// A column as wide as its name, and at least as wide as `123.45 (1000)`.
fn width(name: &str) -> usize {
    name.chars().count().max(13)
}

/// Bytes as megabytes to a hundredth.
fn mb(bytes: u64) -> String {
    format!("{:.2}", bytes as f64 / (1024.0 * 1024.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report() -> Value {
        json!({
            "heap": { "inUse": 40 << 20, "held": 60 << 20 },
            "sqlite": { "inUse": 4 << 20 },
            "tasks": 2,
            "tabs": 3,
            "buffers": {
                "bytes": 6 << 20,
                "journal": { "entries": 100, "bytes": 2 << 20 },
                "console": { "entries": 1000, "bytes": 4 << 20 }
            }
        })
    }

    #[test]
    fn the_report_is_read_with_its_buffers_in_order_and_the_rest_is_other() {
        let memory = Memory::of(&report()).expect("a report");
        assert_eq!(memory.heap_held, Some(60 << 20));
        assert_eq!(memory.buffers, 6 << 20);
        assert_eq!(
            memory.each,
            [
                ("journal".to_string(), 100, 2 << 20),
                ("console".to_string(), 1000, 4 << 20)
            ]
        );
        assert_eq!(memory.other(), Some(30 << 20));
        let row = line(7, Some(&memory), &["journal".into(), "console".into()]);
        assert!(row.contains("2.00 (100)") && row.contains("30.00"), "{row}");
    }

    #[test]
    fn a_daemon_without_glibc_has_no_heap_and_no_other() {
        let mut without = report();
        without["heap"] = Value::Null;
        let memory = Memory::of(&without).expect("a report");
        assert_eq!((memory.heap_in_use, memory.other()), (None, None));
        assert_eq!(Memory::of(&json!({})), None);
    }
}
