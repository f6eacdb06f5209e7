//! What a tool's processes cost, read from `/proc`: the process trees below the processes a
//! figure started (a `candor serve` daemon, a peer's MCP server), each process's CPU time by
//! kind — the server itself, and Chromium's browser, GPU, renderer and other processes, told
//! by the `--type=` switch on their command line — and their proportional memory (PSS).
//! Linux only, like the figures that read it.

use std::collections::BTreeMap;

/// What a process of a tool's tree is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A process the figure started (the daemon, a peer's server) and anything below it
    /// that is not Chromium.
    Server,
    /// Chromium's browser process (no `--type=`).
    Browser,
    Gpu,
    Renderer,
    /// Chromium's utility processes (network, storage…), zygotes and the rest.
    Other,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Server,
        Kind::Browser,
        Kind::Gpu,
        Kind::Renderer,
        Kind::Other,
    ];

    /// The kind of `pid`, one of whose ancestors is among the figure's `roots`.
    fn of(pid: u32, roots: &[u32]) -> Kind {
        if roots.contains(&pid) {
            return Kind::Server;
        }
        // A zygote's children rewrite their command line as one string, so switches are
        // separated by spaces or by NULs.
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline);
        match cmdline
            .split(['\0', ' '])
            .find_map(|arg| arg.strip_prefix("--type="))
        {
            Some("gpu-process") => Kind::Gpu,
            Some("renderer") => Kind::Renderer,
            Some(_) => Kind::Other,
            None if is_chromium(pid) => Kind::Browser,
            None => Kind::Server,
        }
    }
}

/// CPU time in milliseconds, by kind of process.
#[derive(Debug, Default, Clone, Copy)]
pub struct Cpu([u64; Kind::ALL.len()]);

impl Cpu {
    pub fn of(&self, kind: Kind) -> u64 {
        self.0[kind as usize]
    }

    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
}

/// The processes of some trees at one moment: each one's kind and CPU time so far.
#[derive(Debug, Default)]
pub struct Sample {
    by_pid: BTreeMap<u32, (Kind, u64)>,
}

impl Sample {
    /// Every process below `roots` (the roots included).
    pub fn read(roots: &[u32]) -> Sample {
        let children = children();
        Sample {
            by_pid: roots
                .iter()
                .flat_map(|&root| tree_of(&children, root))
                .filter_map(|pid| Some((pid, (Kind::of(pid, roots), cpu_ms(pid)?))))
                .collect(),
        }
    }

    /// What was spent since `before`, by kind: a process that began in between counts
    /// whole, one that ended is lost (its time went with it).
    pub fn since(&self, before: &Sample) -> Cpu {
        let mut spent = Cpu::default();
        for (pid, (kind, ms)) in &self.by_pid {
            let earlier = before.by_pid.get(pid).map_or(0, |&(_, ms)| ms);
            spent.0[*kind as usize] += ms.saturating_sub(earlier);
        }
        spent
    }

    /// The summed PSS of the processes in kB: the server's and Chromium's (every other
    /// kind), and how many Chromium processes there are.
    pub fn memory(&self) -> Memory {
        let mut memory = Memory::default();
        for (pid, (kind, _)) in &self.by_pid {
            let pss = pss_kb(*pid).unwrap_or(0);
            if *kind == Kind::Server {
                memory.server_kb += pss;
            } else {
                memory.chromium_kb += pss;
                memory.chromium_procs += 1;
            }
        }
        memory
    }
}

/// Proportional memory of a tool's processes.
#[derive(Debug, Default, Clone, Copy)]
pub struct Memory {
    pub server_kb: u64,
    pub chromium_kb: u64,
    pub chromium_procs: usize,
}

impl Memory {
    pub fn total_kb(&self) -> u64 {
        self.server_kb + self.chromium_kb
    }
}

/// Processes whose command line holds `needle` (a folder of the figure's own, such as
/// the one its Chromiums' profiles are in).
pub fn with_in_cmdline(needle: &str) -> Vec<u32> {
    all_pids()
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmdline| String::from_utf8_lossy(&cmdline).contains(needle))
        })
        .collect()
}

/// The parent of `pid`, from `/proc/PID/stat`.
fn parent_of(pid: u32) -> Option<u32> {
    stat_fields(pid)?.get(1)?.parse().ok()
}

/// Whether `pid` runs a Chromium executable (`chromium`, `chrome`, `headless_shell`…).
fn is_chromium(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .is_ok_and(|comm| comm.starts_with("chrom") || comm.starts_with("headless"))
}

/// Processes by parent pid, from `/proc/*/stat`.
fn children() -> BTreeMap<u32, Vec<u32>> {
    let mut tree: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for pid in all_pids() {
        if let Some(parent) = parent_of(pid) {
            tree.entry(parent).or_default().push(pid);
        }
    }
    tree
}

pub fn all_pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .collect()
}

/// The fields of `/proc/PID/stat` after the command name: state (0), ppid (1), process
/// group (2), …, utime (11), stime (12), …, start time (19).
pub fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    Some(after_name.split_whitespace().map(str::to_string).collect())
}

/// `root` and every process below it, now.
pub fn tree(root: u32) -> Vec<u32> {
    tree_of(&children(), root)
}

/// The summed PSS of `root`'s process tree in kB, and how many processes it has.
pub fn tree_pss_kb(root: u32) -> (u64, usize) {
    let pids = tree(root);
    let pss = pids.iter().filter_map(|&pid| pss_kb(pid)).sum();
    (pss, pids.len())
}

/// `root` and every process below it.
fn tree_of(children: &BTreeMap<u32, Vec<u32>>, root: u32) -> Vec<u32> {
    let mut found = vec![root];
    let mut next = 0;
    while next < found.len() {
        found.extend(children.get(&found[next]).into_iter().flatten());
        next += 1;
    }
    found
}

/// CPU time (user + system) of `pid` so far, in ms.
fn cpu_ms(pid: u32) -> Option<u64> {
    // SAFETY: sysconf has no preconditions.
    let ticks = (unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).max(1) as u64;
    let fields = stat_fields(pid)?;
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) * 1000 / ticks)
}

/// `Pss` of `pid` in kB.
fn pss_kb(pid: u32) -> Option<u64> {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    rollup
        .lines()
        .find_map(|line| line.strip_prefix("Pss:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_its_own_trees_server() {
        let me = std::process::id();
        let sample = Sample::read(&[me]);
        assert_eq!(
            sample.by_pid.get(&me).map(|&(kind, _)| kind),
            Some(Kind::Server)
        );
        let memory = sample.memory();
        assert!(memory.server_kb > 0, "{memory:?}");
        assert_eq!(memory.total_kb(), memory.server_kb + memory.chromium_kb);
    }

    #[test]
    fn cpu_spent_is_counted_by_kind_and_never_negative() {
        let before = Sample {
            by_pid: BTreeMap::from([(1, (Kind::Server, 100)), (2, (Kind::Renderer, 50))]),
        };
        let after = Sample {
            by_pid: BTreeMap::from([
                (1, (Kind::Server, 130)),
                // A pid reused by a process that began with less time than the old one.
                (2, (Kind::Renderer, 20)),
                (3, (Kind::Gpu, 7)),
            ]),
        };
        let spent = after.since(&before);
        assert_eq!(spent.of(Kind::Server), 30);
        assert_eq!(spent.of(Kind::Renderer), 0);
        assert_eq!(spent.of(Kind::Gpu), 7);
        assert_eq!(spent.total(), 37);
    }
}
