//! No orphan Chromium: `candor mcp` takes its browser down when its parent shell is
//! killed with SIGKILL, when it gets SIGTERM, and when its stdin closes — and removes the
//! browser's profile directory each time.

// Helpers outside #[test] functions: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// `(state, ppid)` of a process, from `/proc/PID/stat`.
fn stat(pid: u32) -> Option<(char, u32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may itself contain spaces or parentheses.
    let rest = &text[text.rfind(')')? + 2..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((state, ppid))
}

fn alive(pid: u32) -> bool {
    matches!(stat(pid), Some((state, _)) if state != 'Z' && state != 'X')
}

fn all_pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .map(|dir| {
            dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

fn children(pid: u32) -> Vec<u32> {
    all_pids()
        .into_iter()
        .filter(|p| stat(*p).is_some_and(|(_, ppid)| ppid == pid))
        .collect()
}

fn descendants(pid: u32) -> BTreeSet<u32> {
    let mut found = BTreeSet::new();
    let mut queue = vec![pid];
    while let Some(p) = queue.pop() {
        for child in children(p) {
            if found.insert(child) {
                queue.push(child);
            }
        }
    }
    found
}

fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

/// Waits (polling /proc, bounded) until `done` holds.
fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(
            started.elapsed() < limit,
            "timed out after {limit:?} waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}

struct Running {
    shell: Child,
    stdin: Option<ChildStdin>,
    candor: u32,
    browser_tree: BTreeSet<u32>,
    profile: PathBuf,
    /// Lines candor wrote to stdout.
    lines: mpsc::Receiver<String>,
}

/// Starts `sh -c 'candor mcp; …'` (the shell stays candor's parent), makes candor launch
/// Chromium through one tool call, and records the whole process tree under candor.
fn start() -> Running {
    let binary = env!("CARGO_BIN_EXE_candor");
    let mut shell = Command::new("sh")
        .arg("-c")
        .arg(format!("'{binary}' mcp; echo candor-exited >&2"))
        .env("CANDOR_CHROMIUM", test_support::chromium())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = shell.stdin.take().unwrap();
    let stdout = shell.stdout.take().unwrap();
    let (lines_tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let messages = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"lifecycle-test","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"browser_navigate","arguments":{"url":"about:blank"}}}"#,
    ];
    for message in messages {
        writeln!(stdin, "{message}").unwrap();
    }
    stdin.flush().unwrap();
    let started = Instant::now();
    loop {
        let line = lines
            .recv_timeout(Duration::from_secs(60).saturating_sub(started.elapsed()))
            .expect("candor answered the tool call");
        let message: serde_json::Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: stdout carried {line:?}"));
        if message["id"] == 2 {
            assert_eq!(
                message["result"]["structuredContent"]["ok"], true,
                "{message}"
            );
            break;
        }
    }
    let candor = children(shell.id())
        .into_iter()
        .find(|pid| cmdline(*pid).contains(" mcp"))
        .expect("candor runs under the shell");
    let browser_tree = descendants(candor);
    let profile = browser_tree
        .iter()
        .find_map(|pid| {
            cmdline(*pid)
                .split(' ')
                .find_map(|arg| arg.strip_prefix("--user-data-dir=").map(PathBuf::from))
        })
        .expect("chromium runs under candor with its own profile");
    assert!(
        browser_tree.len() >= 2,
        "chromium and its helpers: {browser_tree:?}"
    );
    assert!(profile.exists());
    Running {
        shell,
        stdin: Some(stdin),
        candor,
        browser_tree,
        profile,
        lines,
    }
}

fn assert_all_gone(running: &Running) {
    wait_until(
        "candor and every Chromium process to exit",
        Duration::from_secs(20),
        || !alive(running.candor) && running.browser_tree.iter().all(|pid| !alive(*pid)),
    );
}

fn assert_profile_removed(profile: &Path) {
    wait_until("the profile to be removed", Duration::from_secs(5), || {
        !profile.exists()
    });
}

#[test]
fn sigkill_of_the_parent_shell_takes_the_browser_down() {
    let mut running = start();
    running.shell.kill().unwrap(); // SIGKILL
    running.shell.wait().unwrap();
    assert_all_gone(&running);
    assert_profile_removed(&running.profile);
    drop(running.stdin.take());
}

#[test]
fn sigterm_takes_the_browser_down() {
    let mut running = start();
    // SAFETY: kill sends a signal to a process this test started.
    let sent = unsafe { libc::kill(running.candor as libc::pid_t, libc::SIGTERM) };
    assert_eq!(sent, 0);
    assert_all_gone(&running);
    assert_profile_removed(&running.profile);
    running.shell.wait().unwrap();
}

#[test]
fn closing_stdin_takes_the_browser_down() {
    let mut running = start();
    drop(running.stdin.take());
    assert_all_gone(&running);
    assert_profile_removed(&running.profile);
    running.shell.wait().unwrap();
}

#[test]
fn closing_stdin_while_a_command_is_stuck_cancels_it_and_ends_the_server() {
    let mut running = start();
    let mut stdin = running.stdin.take().unwrap();
    writeln!(
        stdin,
        r##"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"browser_wait","arguments":{{"selector":"#never","timeoutMs":120000}}}}}}"##
    )
    .unwrap();
    stdin.flush().unwrap();
    // The wait is under way (diagnostics says so) when the client goes away.
    for id in 4.. {
        writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"browser_diagnostics","arguments":{{}}}}}}"#
        )
        .unwrap();
        stdin.flush().unwrap();
        let answer = loop {
            let line = running
                .lines
                .recv_timeout(Duration::from_secs(30))
                .expect("candor answers diagnostics while a command runs");
            let message: serde_json::Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                break message;
            }
        };
        if answer["result"]["structuredContent"]["data"]["active"]["method"] == "wait" {
            break;
        }
    }
    drop(stdin);
    // Without cancelling, the transport would hold the answer of the stuck wait for
    // seconds; the bound is generous for a loaded machine, and well under that.
    wait_until("candor to exit", Duration::from_secs(3), || {
        !alive(running.candor)
    });
    assert_all_gone(&running);
    assert_profile_removed(&running.profile);
    running.shell.wait().unwrap();
}
