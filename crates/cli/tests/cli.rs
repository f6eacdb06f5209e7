//! The CLI as a shell agent uses it: `candor` processes, each one call, against a daemon
//! the first call starts (on port 0, in a state directory of the test's own), driving a
//! real headless Chromium on fixture pages.

// Helpers outside #[test] functions: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use test_support::FixtureServer;

/// One state directory (so one daemon) and a fixture server.
struct Shell {
    state: tempfile::TempDir,
    server: FixtureServer,
}

impl Shell {
    fn new() -> Shell {
        Shell {
            state: tempfile::tempdir().unwrap(),
            server: FixtureServer::start(),
        }
    }

    fn url(&self, path: &str) -> String {
        self.server.url(path)
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_candor"));
        command
            .args(args)
            .env("CANDOR_STATE_DIR", self.state.path())
            .env("CANDOR_PORT", "0")
            .env("CANDOR_CHROMIUM", test_support::chromium())
            .env_remove("CANDOR_TASK")
            .stdin(Stdio::null());
        command
    }

    /// Runs `candor ARGS` to its end.
    fn run(&self, args: &[&str]) -> Run {
        Run::from(self.command(args).output().unwrap())
    }

    /// Runs `candor ARGS` with `input` on stdin.
    fn run_with_stdin(&self, args: &[&str], input: &str) -> Run {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        Run::from(child.wait_with_output().unwrap())
    }

    /// `candor --json ARGS`, which must succeed; its envelope.
    fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let run = self.run(&all);
        assert_eq!(run.code, 0, "{args:?}: {run:?}");
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"))
    }

    /// `candor --json ARGS`, which must fail with exit 1; its envelope.
    fn json_failure(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let run = self.run(&all);
        assert_eq!(run.code, 1, "{args:?}: {run:?}");
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"))
    }

    /// The ref of the only match of `candor find ARGS`.
    fn ref_of(&self, args: &[&str]) -> String {
        let mut all = vec!["--id", "t", "find"];
        all.extend_from_slice(args);
        let found = self.json(&all);
        found["data"]["matches"][0]["ref"]
            .as_str()
            .unwrap_or_else(|| panic!("no match for {args:?}: {found:#}"))
            .to_string()
    }

    /// Every file under the state directory, with its bytes.
    fn state_files(&self) -> Vec<(PathBuf, Vec<u8>)> {
        fn walk(dir: &Path, found: &mut Vec<(PathBuf, Vec<u8>)>) {
            for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, found);
                } else {
                    found.push((path.clone(), std::fs::read(&path).unwrap()));
                }
            }
        }
        let mut found = Vec::new();
        walk(self.state.path(), &mut found);
        found
    }

    fn records(&self) -> Vec<Value> {
        std::fs::read_to_string(self.state.path().join("records.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }
}

impl Drop for Shell {
    /// Stops the daemon the CLI started, and waits until it is gone.
    fn drop(&mut self) {
        let info = std::fs::read_to_string(self.state.path().join("daemon.json"));
        let Some(pid) = info
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .and_then(|info| info["pid"].as_u64())
        else {
            return;
        };
        // SAFETY: kill sends SIGTERM to the daemon this test's CLI started.
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGTERM);
        }
        let started = Instant::now();
        while Path::new(&format!("/proc/{pid}")).exists()
            && started.elapsed() < Duration::from_secs(10)
        {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// What one `candor` process did.
#[derive(Debug)]
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl From<Output> for Run {
    fn from(output: Output) -> Run {
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
        }
    }
}

#[test]
fn the_first_call_starts_the_daemon_and_says_so_and_state_lives_between_calls() {
    let shell = Shell::new();
    let opened = shell.run(&["--id", "t", "open", &shell.url("second.html")]);
    assert_eq!(opened.code, 0, "{opened:?}");
    assert!(
        opened.stderr.contains("no daemon answered; started one"),
        "{opened:?}"
    );
    assert!(opened.stderr.contains("started task t"), "{opened:?}");
    assert!(opened.stdout.starts_with("ok navigate"), "{opened:?}");
    // The page is named (its title fenced) when it changed: here, the first answer.
    assert!(
        opened.stdout.contains("page.title: Second page"),
        "{opened:?}"
    );

    // The same daemon, the same task, the same tab: nothing is started again.
    let read = shell.run(&["--id", "t", "snapshot", "--mode", "text"]);
    assert_eq!(read.code, 0, "{read:?}");
    assert_eq!(read.stderr, "", "{read:?}");
    // The same page as the last answer's: not named again.
    assert!(!read.stdout.contains("page.title"), "{read:?}");
    assert!(
        read.stdout
            .contains("<untrusted>\nThis is the second page."),
        "{read:?}"
    );

    let envelope = shell.json(&["--id", "t", "snapshot", "--mode", "text"]);
    assert_eq!(envelope["ok"], true);
    assert_eq!(envelope["task"], "not_evaluated");
    assert_eq!(envelope["page"]["title"], "Second page");
    assert!(
        envelope["execution"]["commandId"]
            .as_str()
            .is_some_and(|id| id.starts_with("c-"))
    );

    // --compact cuts long fields and says so; --out keeps everything.
    shell.run(&["--id", "t", "open", &shell.url("article.html")]);
    let full = shell.state.path().join("full.json");
    let compact = shell.run(&[
        "--id",
        "t",
        "--compact",
        "--out",
        full.to_str().unwrap(),
        "snapshot",
        "--mode",
        "text",
    ]);
    assert_eq!(compact.code, 0, "{compact:?}");
    assert!(
        compact
            .stdout
            .contains("(--compact: 1 field(s) cut at 600 characters"),
        "{compact:?}"
    );
    assert!(compact.stdout.lines().all(|l| l.chars().count() <= 700));
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&full).unwrap()).unwrap();
    assert_eq!(
        written["data"]["text"].as_str().unwrap().chars().count(),
        20_000
    );

    let tasks = shell.json(&["tasks"]);
    assert_eq!(tasks["data"]["tasks"][0]["id"], "t");
    let diagnosed = shell.json(&["--id", "t", "diagnose", "--limit", "2"]);
    assert_eq!(diagnosed["data"]["last"].as_array().unwrap().len(), 2);
    let stopped = shell.run(&["stop", "t"]);
    assert_eq!(stopped.code, 0, "{stopped:?}");
    let gone = shell.run(&["--id", "t", "tabs"]);
    assert_eq!(gone.code, 0, "a stopped task starts again on use: {gone:?}");
    assert!(gone.stderr.contains("started task t"), "{gone:?}");
}

#[test]
fn run_takes_params_as_json_a_file_or_stdin_and_exit_codes_follow_the_outcome() {
    let shell = Shell::new();
    let opened = shell.run(&["--id", "t", "open", &shell.url("second.html")]);
    assert_eq!(opened.code, 0, "{opened:?}");

    let inline = shell.json(&[
        "--id",
        "t",
        "run",
        "snapshot",
        "--params",
        r#"{"mode":"text"}"#,
    ]);
    assert!(
        inline["data"]["text"]
            .as_str()
            .unwrap()
            .contains("second page")
    );

    let file = shell.state.path().join("params.json");
    std::fs::write(&file, "\u{feff}{\"mode\": \"html\", \"maxChars\": 15}").unwrap();
    let at = format!("@{}", file.display());
    let from_file = shell.json(&["--id", "t", "run", "snapshot", "--params", &at]);
    assert_eq!(from_file["data"]["mode"], "html");
    assert_eq!(
        from_file["data"]["text"].as_str().unwrap().chars().count(),
        15
    );

    let from_stdin = shell.run_with_stdin(
        &["--json", "--id", "t", "run", "find", "--params", "-"],
        "\u{feff}{\"text\": \"Back home\"}",
    );
    assert_eq!(from_stdin.code, 0, "{from_stdin:?}");
    let found: Value = serde_json::from_str(&from_stdin.stdout).unwrap();
    assert_eq!(
        found["data"]["matches"][0]["name"], "Back home",
        "{found:#}"
    );

    // Exit 1: the daemon refused or the command failed, with the code on stdout.
    let unknown = shell.run(&["--id", "t", "run", "fly"]);
    assert_eq!(unknown.code, 1, "{unknown:?}");
    assert!(
        unknown.stdout.starts_with("INVALID_PARAMS fly"),
        "{unknown:?}"
    );
    let blocked = shell.run(&["--id", "t", "open", "file:///etc/passwd"]);
    assert_eq!(blocked.code, 1, "{blocked:?}");
    assert!(
        blocked.stdout.starts_with("URL_BLOCKED navigate"),
        "{blocked:?}"
    );

    // Exit 64: the command line itself is wrong; nothing reaches the daemon.
    let before = shell.records().len();
    for usage in [
        vec!["--id", "t", "run", "snapshot", "--params", "{bad"],
        vec!["--id", "t", "click"],
        vec!["frobnicate"],
        vec!["--id", "t", "snapshot", "--mode", "pictures"],
    ] {
        let run = shell.run(&usage);
        assert_eq!(run.code, 64, "{usage:?}: {run:?}");
        assert!(!run.stderr.is_empty(), "{usage:?}");
    }
    assert_eq!(shell.records().len(), before, "usage errors are not calls");
}

#[test]
fn typing_a_password_leaves_no_trace_in_any_record_file() {
    let shell = Shell::new();
    let opened = shell.run(&["--id", "t", "open", &shell.url("login.html")]);
    assert_eq!(opened.code, 0, "{opened:?}");
    let user = shell.ref_of(&["--role", "textbox", "--name", "User"]);
    let password = shell.ref_of(&["--role", "textbox", "--name", "Password"]);
    let secrets = ["hunter2-fill", "hunter2-type", "hunter2-sensitive"];

    let filled = shell.run(&["--id", "t", "fill", &user, "ada"]);
    assert_eq!(filled.code, 0, "{filled:?}");
    let filled = shell.run(&["--id", "t", "fill", &password, secrets[0]]);
    assert_eq!(filled.code, 0, "{filled:?}");
    assert!(!filled.stdout.contains(secrets[0]), "{filled:?}");
    let typed = shell.run_with_stdin(
        &["--id", "t", "run", "act", "--params", "-"],
        &format!(
            r#"{{"action":"type","ref":"{password}","text":"{}"}}"#,
            secrets[1]
        ),
    );
    assert_eq!(typed.code, 0, "{typed:?}");
    let sensitive = shell.run(&["--id", "t", "--sensitive", "fill", &password, secrets[2]]);
    assert_eq!(sensitive.code, 0, "{sensitive:?}");
    let before = shell.records().len();
    let unrecorded = shell.run(&["--id", "t", "--no-record", "snapshot", "--mode", "text"]);
    assert_eq!(unrecorded.code, 0, "{unrecorded:?}");
    assert_eq!(shell.records().len(), before, "--no-record writes nothing");

    // The daemon's journal (what diagnose shows) keeps no typed text either.
    let diagnosed = shell.run(&["--json", "--id", "t", "diagnose"]);
    assert_eq!(diagnosed.code, 0, "{diagnosed:?}");
    for secret in secrets {
        assert!(!diagnosed.stdout.contains(secret), "{secret} in diagnose");
        for (path, bytes) in shell.state_files() {
            let text = String::from_utf8_lossy(&bytes);
            assert!(!text.contains(secret), "{secret} in {}", path.display());
        }
    }

    let records = shell.records();
    let fill = records
        .iter()
        .find(|r| r["method"] == "act" && r["params"]["ref"] == password.as_str())
        .unwrap();
    assert_eq!(fill["params"]["text"], "[typed text]", "{fill:#}");
    assert_eq!(fill["task"], "t");
    assert!(fill["durationMs"].is_u64() && fill["time"].is_u64());
    let kept: Vec<&str> = records
        .last()
        .unwrap()
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(kept.len(), 9, "a normal record: {kept:?}");
    let sensitive = records
        .iter()
        .find(|r| r.get("time").is_none())
        .expect("the --sensitive record");
    let mut keys: Vec<&str> = sensitive
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, ["code", "method", "ok", "stage", "step"]);
}

#[test]
fn click_with_an_expected_text_that_never_appears_exits_2() {
    let shell = Shell::new();
    let opened = shell.run(&["--id", "t", "open", &shell.url("login.html")]);
    assert_eq!(opened.code, 0, "{opened:?}");
    let user = shell.ref_of(&["--role", "textbox", "--name", "User"]);
    let sign_in = shell.ref_of(&["--role", "button", "--name", "Sign in"]);
    assert_eq!(shell.run(&["--id", "t", "fill", &user, "ada"]).code, 0);

    let missed = shell.run(&[
        "--id",
        "t",
        "click",
        &sign_in,
        "--expect-text",
        "Welcome back",
        "--expect-timeout-ms",
        "500",
    ]);
    assert_eq!(missed.code, 2, "{missed:?}");
    assert!(
        missed.stdout.starts_with("EXPECTATION_FAILED act"),
        "{missed:?}"
    );
    assert!(
        missed.stdout.contains("actionStatus=completed"),
        "{missed:?}"
    );

    let held = shell.run(&[
        "--id",
        "t",
        "click",
        &sign_in,
        "--expect-text",
        "Signed in as ada",
    ]);
    assert_eq!(held.code, 0, "{held:?}");
    assert!(held.stdout.contains("verified=true"), "{held:?}");
}

#[test]
fn daemons_of_two_state_directories_each_take_a_free_port_by_default() {
    let (first, second) = (Shell::new(), Shell::new());
    for shell in [&first, &second] {
        let opened = shell
            .command(&["--id", "t", "open", &shell.url("second.html")])
            .env_remove("CANDOR_PORT")
            .output()
            .unwrap();
        let run = Run::from(opened);
        assert_eq!(run.code, 0, "{run:?}");
    }
    let port = |shell: &Shell| {
        let info = std::fs::read_to_string(shell.state.path().join("daemon.json")).unwrap();
        serde_json::from_str::<Value>(&info).unwrap()["port"].clone()
    };
    assert_ne!(port(&first), port(&second));
    for shell in [&first, &second] {
        assert_eq!(shell.run(&["stop", "t"]).code, 0);
    }
}

#[test]
fn eval_form_state_and_the_acting_flags_round_trip_through_the_daemon() {
    let shell = Shell::new();
    // The daemon the first call starts runs with eval enabled (its environment).
    let opened = shell
        .command(&["--id", "t", "open", &shell.url("act-form.html")])
        .env("CANDOR_ENABLE_EVAL", "true")
        .output()
        .unwrap();
    assert_eq!(Run::from(opened).code, 0);
    let evaluated = shell.json(&["--id", "t", "eval", "document.title"]);
    assert_eq!(evaluated["data"]["value"], "Act form", "{evaluated:#}");
    shell.run(&[
        "--id",
        "t",
        "fill",
        &shell.ref_of(&["--role", "textbox", "--name", "Name"]),
        "Ada",
    ]);
    let form = shell.json(&["--id", "t", "form-state"]);
    assert!(
        form["data"]["controls"].to_string().contains("Ada"),
        "{form:#}"
    );

    let send = shell.ref_of(&["--role", "button", "--name", "Send"]);
    let expect = shell.state.path().join("expect.json");
    std::fs::write(
        &expect,
        format!(
            r#"{{"text":"Submitted Ada","url":"{}"}}"#,
            shell.url("act-form.html")
        ),
    )
    .unwrap();
    let at = format!("@{}", expect.display());
    let clicked = shell.json(&[
        "--id",
        "t",
        "click",
        &send,
        "--expect",
        &at,
        "--readback",
        "document.getElementById('out').textContent",
    ]);
    assert_eq!(clicked["verification"]["verified"], true, "{clicked:#}");
    assert_eq!(
        clicked["verification"]["expect"]["conditions"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(clicked["data"]["readback"], "Submitted Ada");
    let failed = shell.run(&[
        "--id",
        "t",
        "click",
        &send,
        "--expect",
        r#"{"text":"Nowhere","timeoutMs":200}"#,
    ]);
    assert_eq!(failed.code, 2, "{failed:?}");
}

#[test]
fn the_dialog_policy_reaches_tasks_of_an_auto_started_daemon_and_dialog_answers() {
    let shell = Shell::new();
    let opened = shell
        .command(&["--id", "t", "open", &shell.url("dialogs.html")])
        .env("CANDOR_DIALOG_POLICY", "ask")
        .output()
        .unwrap();
    assert_eq!(Run::from(opened).code, 0);
    // Under `ask` the confirm stays open for the dialog verb (it was answered at once
    // before: the daemon dropped the policy).
    let delete = shell.ref_of(&["--role", "button", "--name", "Delete"]);
    let clicked = shell.json(&["--id", "t", "click", &delete]);
    assert_eq!(clicked["data"]["dialogOpen"], true, "{clicked:#}");
    let answered = shell.json(&["--id", "t", "dialog", "accept"]);
    assert_eq!(answered["ok"], true, "{answered:#}");
    let text = shell.json(&["--id", "t", "snapshot", "--mode", "text"]);
    assert!(
        text["data"]["text"].as_str().unwrap().contains("Deleted"),
        "{text:#}"
    );
}

/// A kept task's archive outlives a daemon killed with SIGKILL: the next daemon, starting
/// the task again, recalls what the first one archived.
#[test]
fn a_profile_given_by_flag_is_its_tasks_alone_and_another_task_on_it_is_refused_by_name() {
    let shell = Shell::new();
    let profiles = tempfile::tempdir().unwrap();
    let profile = profiles.path().join("shop");
    let dir = profile.to_str().unwrap();
    let opened = shell.run(&[
        "--id",
        "a",
        "--profile",
        dir,
        "open",
        &shell.url("second.html"),
    ]);
    assert_eq!(opened.code, 0, "{opened:?}");
    // The task's own Chromium runs on it.
    assert!(profile.join("SingletonLock").symlink_metadata().is_ok());
    // The daemon that verb started was not given the profile: a task without it starts.
    let other = shell.run(&["--id", "plain", "open", &shell.url("second.html")]);
    assert_eq!(other.code, 0, "{other:?}");
    let refused = shell.json_failure(&["--id", "b", "--profile", dir, "start"]);
    assert_eq!(refused["code"], "PROFILE_IN_USE", "{refused:#}");
    let message = refused["message"].as_str().unwrap_or_default();
    assert!(message.contains("task a"), "{message}");
    assert_eq!(shell.run(&["stop", "a"]).code, 0);
    let again = shell.run(&["--id", "b", "--profile", dir, "start"]);
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(shell.run(&["stop", "b"]).code, 0);
}

#[test]
fn a_kept_archive_outlives_a_killed_daemon() {
    let shell = Shell::new();
    assert_eq!(shell.run(&["--id", "k", "start", "--keep-archive"]).code, 0);
    assert_eq!(
        shell
            .run(&["--id", "k", "open", &shell.url("second.html")])
            .code,
        0
    );
    assert_eq!(shell.run(&["--id", "k", "snapshot"]).code, 0);
    let before = shell.json(&["--id", "k", "recall"]);
    let listed = before["data"]["observations"].as_array().unwrap().clone();
    assert!(!listed.is_empty(), "{before:#}");

    let info = std::fs::read_to_string(shell.state.path().join("daemon.json")).unwrap();
    let pid = serde_json::from_str::<Value>(&info).unwrap()["pid"]
        .as_u64()
        .unwrap();
    // SAFETY: kill sends SIGKILL to the daemon this test's CLI started.
    assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) }, 0);
    let started = Instant::now();
    while Path::new(&format!("/proc/{pid}")).exists() && started.elapsed() < Duration::from_secs(10)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "the daemon outlived SIGKILL"
    );

    assert_eq!(shell.run(&["--id", "k", "start", "--keep-archive"]).code, 0);
    let after = shell.json(&["--id", "k", "recall"]);
    let ids = |list: &[Value]| -> Vec<Value> { list.iter().map(|o| o["id"].clone()).collect() };
    let now = after["data"]["observations"].as_array().unwrap();
    for id in ids(&listed) {
        assert!(ids(now).contains(&id), "{id} lost: {after:#}");
    }
    assert_eq!(shell.run(&["stop", "k"]).code, 0);
}

#[test]
fn a_flow_exported_by_the_cli_replays_on_another_task_and_its_exit_codes_follow_the_run() {
    let shell = Shell::new();
    let secret = "hunter2-flow";
    assert_eq!(
        shell
            .run(&["--id", "t", "open", &shell.url("login.html")])
            .code,
        0
    );
    let user = shell.ref_of(&["--role", "textbox", "--name", "User"]);
    let password = shell.ref_of(&["--role", "textbox", "--name", "Password"]);
    let sign_in = shell.ref_of(&["--role", "button", "--name", "Sign in"]);
    assert_eq!(shell.run(&["--id", "t", "fill", &user, "ada"]).code, 0);
    assert_eq!(shell.run(&["--id", "t", "fill", &password, secret]).code, 0);
    let signed = shell.run(&[
        "--id",
        "t",
        "click",
        &sign_in,
        "--expect-text",
        "Signed in as ada",
    ]);
    assert_eq!(signed.code, 0, "{signed:?}");

    let exported = shell.run(&["flow", "export", "t"]);
    assert_eq!(exported.code, 0, "{exported:?}");
    assert!(!exported.stdout.contains(secret), "{}", exported.stdout);
    let flow: Value = serde_json::from_str(&exported.stdout).unwrap();
    assert_eq!(flow["steps"].as_array().unwrap().len(), 4, "{flow:#}");
    let file = shell.state.path().join("signin.flow.json");
    std::fs::write(&file, &exported.stdout).unwrap();
    let file = file.to_str().unwrap();

    // Without its variable: refused before the first step, in a task that stays empty.
    let refused = shell.run(&["--id", "fresh", "flow", "run", file]);
    assert_eq!(refused.code, 1, "{refused:?}");
    assert!(refused.stderr.contains("INVALID_PARAMS"), "{refused:?}");
    assert!(refused.stderr.contains("--var password="), "{refused:?}");

    let replayed = shell.run(&[
        "--id",
        "fresh",
        "flow",
        "run",
        file,
        "--var",
        &format!("password={secret}"),
    ]);
    assert_eq!(replayed.code, 0, "{replayed:?}");
    assert!(
        replayed.stdout.starts_with("flow done: 4 of 4 steps ran"),
        "{replayed:?}"
    );
    assert!(!replayed.stdout.contains(secret));
    let report = shell.run(&[
        "--json",
        "--id",
        "fresh2",
        "flow",
        "run",
        file,
        "--var",
        &format!("password={secret}"),
    ]);
    assert_eq!(report.code, 0, "{report:?}");
    let report: Value = serde_json::from_str(&report.stdout).unwrap();
    assert_eq!(report["data"]["state"], "done");
    assert_eq!(report["data"]["steps"].as_array().unwrap().len(), 4);

    // A postcondition that no longer holds: exit 2, the step named.
    let mut changed = flow.clone();
    changed["steps"][3]["params"]["expect"]["text"] = "Signed in as bob".into();
    changed["steps"][3]["params"]["expect"]["timeoutMs"] = 300.into();
    let changed_file = shell.state.path().join("changed.flow.json");
    std::fs::write(&changed_file, changed.to_string()).unwrap();
    let failed = shell.run(&[
        "--id",
        "fresh3",
        "flow",
        "run",
        changed_file.to_str().unwrap(),
        "--var",
        &format!("password={secret}"),
    ]);
    assert_eq!(failed.code, 2, "{failed:?}");
    assert!(
        failed.stdout.contains("EXPECTATION_FAILED step 4"),
        "{failed:?}"
    );
    assert!(failed.stdout.contains(tools::FENCE_OPEN), "{failed:?}");

    // `batch` runs the same file in the background.
    let queued = shell.run(&[
        "--json",
        "--id",
        "fresh4",
        "batch",
        file,
        "--var",
        &format!("password={secret}"),
    ]);
    assert_eq!(queued.code, 0, "{queued:?}");
    for (path, bytes) in shell.state_files() {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(secret),
            "the password is in {}",
            path.display()
        );
    }
}

/// `candor config`: every key once, with its value and where it came from — default, the
/// file, the environment, a flag — and the configuration's errors name what is wrong.
#[test]
fn config_prints_each_value_with_its_source_and_errors_name_key_value_and_source() {
    let shell = Shell::new();
    let file = shell.state.path().join("candor.toml");
    std::fs::write(
        &file,
        "blockOrigins = [\"ads.example.com\"]\nsettleMs = 250\nreadMaxChars = 99\n",
    )
    .unwrap();
    let file_arg = file.to_str().unwrap();
    let shown = Run::from(
        shell
            .command(&[
                "--config",
                file_arg,
                "--screenshot-max-width",
                "800",
                "--enable-eval",
                "config",
            ])
            .env("CANDOR_READ_MAX_CHARS", "1234")
            .output()
            .unwrap(),
    );
    assert_eq!(shown.code, 0, "{shown:?}");
    let line = |key: &str| {
        shown
            .stdout
            .lines()
            .find(|line| line.starts_with(&format!("{key} = ")))
            .unwrap_or_else(|| panic!("no {key} in {}", shown.stdout))
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(
        shown.stdout.lines().next(),
        Some(format!("# config file: {file_arg}").as_str())
    );
    assert_eq!(
        line("blockOrigins"),
        format!("blockOrigins = [\"ads.example.com\"] # file {file_arg}")
    );
    assert_eq!(
        line("settleMs"),
        format!("settleMs = 250 # file {file_arg}")
    );
    assert_eq!(
        line("readMaxChars"),
        "readMaxChars = 1234 # env CANDOR_READ_MAX_CHARS"
    );
    assert_eq!(
        line("screenshotMaxWidth"),
        "screenshotMaxWidth = 800 # flag --screenshot-max-width"
    );
    assert_eq!(line("enableEval"), "enableEval = true # flag --enable-eval");
    assert_eq!(line("keepArchive"), "keepArchive = false # default");
    assert_eq!(shown.stdout.lines().count(), 32, "{}", shown.stdout);
    let as_json = Run::from(
        shell
            .command(&["--json", "--config", file_arg, "config"])
            .env("CANDOR_READ_MAX_CHARS", "1234")
            .output()
            .unwrap(),
    );
    assert_eq!(as_json.code, 0, "{as_json:?}");
    let report: Value = serde_json::from_str(&as_json.stdout).unwrap();
    assert_eq!(report["file"], file_arg);
    let key = |name: &str| {
        report["keys"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["key"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} in {report:#}"))
    };
    assert_eq!(
        key("readMaxChars"),
        serde_json::json!({ "key": "readMaxChars", "value": 1234, "source": "env CANDOR_READ_MAX_CHARS" })
    );
    assert_eq!(
        key("blockOrigins")["value"],
        serde_json::json!(["ads.example.com"])
    );
    assert_eq!(key("uploadDir")["value"], Value::Null);

    std::fs::write(&file, "keepArchive = true\nscreenshotMaxWidht = 800\n").unwrap();
    let unknown = shell.run(&["--config", file_arg, "config"]);
    assert_eq!(unknown.code, 64, "{unknown:?}");
    assert!(
        unknown
            .stderr
            .contains("unknown key \"screenshotMaxWidht\"")
            && unknown.stderr.contains(file_arg)
            && unknown.stderr.contains("did you mean screenshotMaxWidth?"),
        "{unknown:?}"
    );
    let bad = Run::from(
        shell
            .command(&["tabs"])
            .env("CANDOR_SETTLE_MS", "soon")
            .output()
            .unwrap(),
    );
    assert_eq!(bad.code, 64, "{bad:?}");
    assert!(
        bad.stderr
            .contains("bad value for settleMs: \"soon\" (env CANDOR_SETTLE_MS)"),
        "{bad:?}"
    );
    assert!(
        !shell.state.path().join("daemon.json").exists(),
        "a bad configuration starts no daemon"
    );
}

/// The configuration reaches the tasks of a daemon the CLI starts: an origin on the
/// block-list is refused with the rule named, for a navigation and for a new tab, and
/// the tab stays where it was in Chromium; the environment's read budget applies.
#[test]
fn a_block_listed_origin_is_refused_naming_its_rule_and_the_tab_stays_where_it_was() {
    let shell = Shell::new();
    let allowed = shell.url("second.html");
    let blocked = shell.server.cross_origin_url("second.html");
    let opened = Run::from(
        shell
            .command(&["--block-origin", "localhost", "--id", "t", "open", &allowed])
            .env("CANDOR_READ_MAX_CHARS", "15")
            .output()
            .unwrap(),
    );
    assert_eq!(opened.code, 0, "{opened:?}");

    let refused = shell.json_failure(&["--id", "t", "open", &blocked]);
    assert_eq!(refused["code"], "URL_BLOCKED", "{refused:#}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("blocked by the blockOrigins rule \"localhost\""),
        "{refused:#}"
    );
    let new_tab = shell.json_failure(&["--id", "t", "tabs", "new", &blocked]);
    assert_eq!(new_tab["code"], "URL_BLOCKED", "{new_tab:#}");

    let tabs = shell.json(&["--id", "t", "tabs"]);
    let listed = tabs["data"]["tabs"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{tabs:#}");
    assert_eq!(listed[0]["url"], allowed.as_str(), "{tabs:#}");
    let text = shell.json(&["--id", "t", "snapshot", "--mode", "text"]);
    assert_eq!(
        text["data"]["text"].as_str().unwrap().chars().count(),
        15,
        "readMaxChars from the environment: {text:#}"
    );
}

/// `archiveDir` (here from the environment of the CLI call that starts the daemon) is
/// where the daemon's tasks keep their archives: a kept one stays there after its task.
#[test]
fn a_configured_archive_folder_holds_each_tasks_archive() {
    let shell = Shell::new();
    let archives = shell.state.path().join("archives");
    // The first call starts the daemon with this environment; the tasks share it.
    for task in ["k", "m"] {
        let opened = Run::from(
            shell
                .command(&["--id", task, "open", &shell.url("second.html")])
                .env("CANDOR_ARCHIVE_DIR", &archives)
                .env("CANDOR_KEEP_ARCHIVE", "true")
                .output()
                .unwrap(),
        );
        assert_eq!(opened.code, 0, "{task}: {opened:?}");
        assert_eq!(shell.run(&["--id", task, "snapshot"]).code, 0, "{task}");
        let recalled = shell.json(&["--id", task, "recall"]);
        assert!(
            !recalled["data"]["observations"]
                .as_array()
                .unwrap()
                .is_empty(),
            "{task}: {recalled:#}"
        );
    }
    for task in ["k", "m"] {
        assert_eq!(shell.run(&["stop", task]).code, 0, "{task}");
        let kept: Vec<PathBuf> = std::fs::read_dir(archives.join(task))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        assert!(
            kept.iter().any(|path| path.ends_with("archive.sqlite3")),
            "{task}: {kept:?}"
        );
        assert!(
            !shell.state.path().join("tasks").join(task).exists(),
            "{task}: not in the state folder"
        );
    }
}

#[test]
fn chromium_prints_the_browser_candor_launches_and_refuses_a_named_file_that_is_not_one() {
    let shell = Shell::new();
    let found = shell.run(&["chromium"]);
    assert_eq!(found.code, 0, "{found:?}");
    assert_eq!(
        found.stdout,
        format!("{}\n", test_support::chromium().display()),
        "{found:?}"
    );

    let plain = shell.state.path().join("not-chromium");
    std::fs::write(&plain, "").unwrap();
    let plain_arg = plain.to_str().unwrap();
    let refused = shell.run(&["--chromium", plain_arg, "chromium"]);
    assert_eq!(refused.code, 64, "{refused:?}");
    assert_eq!(refused.stdout, "", "{refused:?}");
    assert!(
        refused.stderr.contains(plain_arg) && refused.stderr.contains("not an executable"),
        "{refused:?}"
    );
}

/// `candor logs`: the page's console and requests a line each, filtered by its flags,
/// one entry in full by `--entry`, and the task's requests as HAR with `--har FILE`.
#[test]
fn logs_lists_filters_shows_an_entry_and_writes_a_har() {
    let shell = Shell::new();
    shell.run(&["--id", "l", "open", &shell.url("logs.html")]);
    shell.run(&["--id", "l", "wait", "--text", "Loaded."]);
    let errors = shell.run(&["--id", "l", "logs", "errors"]);
    assert_eq!(errors.code, 0, "{errors:?}");
    assert!(errors.stdout.contains("GET 404 /status/404"), "{errors:?}");
    assert!(errors.stdout.contains("Uncaught Error: boom"), "{errors:?}");
    assert!(!errors.stdout.contains("GET 200"), "{errors:?}");
    let failed = shell.json(&["--id", "l", "logs", "network", "--status", "5xx"]);
    let lines = failed["data"]["entries"].as_str().unwrap();
    assert_eq!(lines.lines().count(), 1, "{failed:#}");
    let id = lines.split(' ').next().unwrap();
    let entry = shell.json(&["--id", "l", "logs", "--entry", id]);
    assert_eq!(entry["data"]["entry"]["status"], 500, "{entry:#}");
    let har = shell.state.path().join("task.har");
    let written = shell.run(&["--id", "l", "logs", "--har", har.to_str().unwrap()]);
    assert_eq!(written.code, 0, "{written:?}");
    let text = std::fs::read_to_string(&har).unwrap();
    let parsed: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(parsed["log"]["version"], "1.2");
    assert!(!text.contains("sekret-token"));
}

/// The acting verbs' `--snapshot-id` and `--expect-popup` reach the daemon as the
/// contract spells them: a ref replaced since the snapshot named is refused
/// (`STALE_SNAPSHOT`, nothing done), and a link that opens a tab leaves that tab current.
#[test]
fn acting_verbs_spell_snapshot_id_and_expect_popup() {
    let shell = Shell::new();
    shell.run(&["--id", "t", "open", &shell.url("rerender-list.html")]);
    let snapshot = shell.json(&["--id", "t", "snapshot"]);
    let id = snapshot["data"]["snapshotId"].as_str().unwrap().to_string();
    let alice = shell.ref_of(&["--role", "button", "--name", "Delete Alice"]);
    let shuffle = shell.ref_of(&["--role", "button", "--name", "Shuffle"]);
    shell.json(&["--id", "t", "click", &shuffle]);
    let refused = shell.json_failure(&["--id", "t", "click", &alice, "--snapshot-id", &id]);
    assert_eq!(refused["code"], "STALE_SNAPSHOT", "{refused:#}");
    assert_eq!(refused["execution"]["actionStatus"], "not-started");
    let text = shell.json(&["--id", "t", "snapshot", "--mode", "text"]);
    assert!(text.to_string().contains("Nothing deleted yet"), "{text:#}");

    shell.run(&["--id", "t", "open", &shell.url("popup.html")]);
    let link = shell.ref_of(&["--role", "link", "--name", "Open second"]);
    let clicked = shell.json(&["--id", "t", "click", &link, "--expect-popup"]);
    assert_eq!(clicked["events"]["newTab"]["current"], true, "{clicked:#}");
    let tab = clicked["events"]["newTab"]["tabId"].as_str().unwrap();
    assert_eq!(clicked["page"]["tabId"], tab, "{clicked:#}");
}

/// `candor watch TASK` prints the task's watch view, served by the daemon: its token
/// opens the page once, and the agent keeps driving meanwhile.
#[test]
fn watch_prints_a_read_only_view_of_a_task_that_opens_once() {
    let shell = Shell::new();
    shell.run(&["--id", "w", "open", &shell.url("page-a.html")]);
    let watching = shell.json(&["watch", "w"]);
    assert_eq!(watching["data"]["mode"], "AGENT_DRIVING", "{watching:#}");
    let url = watching["data"]["liveView"].as_str().unwrap().to_string();
    assert!(url.contains("/live/w/watch?token="), "{url}");
    let (status, page) = test_support::http_get(&url);
    assert!(status.contains("200"), "{status}");
    assert!(page.contains("Take over"), "{page}");
    let (status, _) = test_support::http_get(&url);
    assert!(status.contains("401"), "the token is spent: {status}");
    let next = shell.run(&["--id", "w", "snapshot", "--mode", "text"]);
    assert_eq!(next.code, 0, "the agent drives on: {next:?}");
}

/// `candor pdf -o FILE` prints the page and copies the PDF out of the task's folder.
#[test]
fn pdf_writes_the_printed_page_to_the_file_asked() {
    let shell = Shell::new();
    shell.run(&["--id", "p", "open", &shell.url("article.html")]);
    let folder = tempfile::tempdir().unwrap();
    let out = folder.path().join("article.pdf");
    let printed = shell.json(&[
        "--id",
        "p",
        "pdf",
        "--paper",
        "a4",
        "--pages",
        "1",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(printed["data"]["pages"], 1, "{printed:#}");
    let bytes = std::fs::read(&out).unwrap();
    assert!(bytes.starts_with(b"%PDF-"));
    assert_eq!(printed["data"]["bytes"], bytes.len(), "{printed:#}");
    let refused = shell.run(&["--id", "p", "pdf", "--paper", "a3"]);
    assert_eq!(refused.code, 64, "{refused:?}");
}

/// `--timeout SECONDS` is the client's own wait: past it the CLI gives up and says so
/// (exit 1), but the command goes on at the daemon — `diagnose` still shows it running —
/// until cancelled. A wait of no seconds is a usage error.
#[test]
fn the_clients_timeout_gives_up_waiting_without_cancelling_the_command() {
    let shell = Shell::new();
    shell.run(&["--id", "t", "open", &shell.url("index.html")]);
    let given_up = shell.run(&[
        "--id",
        "t",
        "--timeout",
        "1.5",
        "wait",
        "--text",
        "Never on this page",
        "--timeout-ms",
        "60000",
    ]);
    assert_eq!(given_up.code, 1, "{given_up:?}");
    assert!(
        given_up
            .stderr
            .contains("no answer within 1.5 s (--timeout)")
            && given_up.stderr.contains("not cancelled"),
        "{given_up:?}"
    );
    let seen = shell.json(&["--id", "t", "diagnose"]);
    let id = seen["data"]["active"]["commandId"]
        .as_str()
        .unwrap_or_else(|| panic!("the wait runs on: {seen:#}"))
        .to_string();
    assert_eq!(seen["data"]["active"]["method"], "wait", "{seen:#}");
    let cancel = shell.run(&["cancel", &id]);
    assert_eq!(cancel.code, 0, "{cancel:?}");
    let next = shell.run(&["--id", "t", "snapshot", "--mode", "text"]);
    assert_eq!(next.code, 0, "{next:?}");
    let refused = shell.run(&["--id", "t", "--timeout", "0", "tabs"]);
    assert_eq!(refused.code, 64, "{refused:?}");
    assert!(refused.stderr.contains("out of range"), "{refused:?}");
}

/// `candor cancel ID`: a wait whose condition never holds, running in another process,
/// ends `COMMAND_CANCELLED` once cancelled by the id `diagnose` shows, and the task's
/// next command runs.
#[test]
fn cancel_ends_a_running_wait_by_its_id_and_the_task_goes_on() {
    let shell = Shell::new();
    shell.run(&["--id", "c", "open", &shell.url("index.html")]);
    let waiting = shell
        .command(&[
            "--id",
            "c",
            "--json",
            "wait",
            "--text",
            "Never on this page",
            "--timeout-ms",
            "60000",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let id = loop {
        let seen = shell.json(&["--id", "c", "diagnose"]);
        if let Some(id) = seen["data"]["active"]["commandId"].as_str() {
            break id.to_string();
        }
        assert!(started.elapsed() < Duration::from_secs(20), "{seen:#}");
        std::thread::sleep(Duration::from_millis(50));
    };
    let cancelled_at = Instant::now();
    let cancel = shell.run(&["cancel", &id]);
    assert_eq!(cancel.code, 0, "{cancel:?}");
    let ended = Run::from(waiting.wait_with_output().unwrap());
    assert!(
        cancelled_at.elapsed() < Duration::from_secs(10),
        "the wait outlived its cancel"
    );
    let envelope: Value = serde_json::from_str(&ended.stdout).unwrap();
    assert_eq!(envelope["code"], "COMMAND_CANCELLED", "{envelope:#}");
    assert_ne!(ended.code, 0);
    let next = shell.run(&["--id", "c", "snapshot", "--mode", "text"]);
    assert_eq!(next.code, 0, "{next:?}");
}

#[test]
fn state_save_and_list_then_start_from_it_signs_in_a_new_task() {
    let shell = Shell::new();
    let run = |args: &[&str]| {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let output = shell
            .command(&all)
            .env("CANDOR_STATE_KEY", "cli state key")
            .output()
            .unwrap();
        let run = Run::from(output);
        assert_eq!(run.code, 0, "{args:?}: {run:?}");
        serde_json::from_str::<Value>(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"))
    };
    run(&["--id", "a", "open", &shell.url("account-login.html")]);
    let act = |params: &str| run(&["--id", "a", "run", "act", "--params", params]);
    act(r##"{"action":"fill","selector":"#user","text":"Lin"}"##);
    act(r##"{"action":"click","selector":"button"}"##);
    run(&["--id", "a", "wait", "--text", "Signed in as Lin"]);

    let saved = run(&["--id", "a", "state", "save", "lin"]);
    assert_eq!(saved["data"]["encrypted"], true, "{saved:#}");
    let file = shell.state.path().join("states/lin.json");
    assert_eq!(Path::new(saved["data"]["path"].as_str().unwrap()), file);
    let listed = run(&["--id", "a", "state", "list"]);
    assert_eq!(listed["data"]["states"][0]["name"], "lin", "{listed:#}");
    run(&["stop", "a"]);

    let started = run(&["--id", "b", "start", "--state", "lin"]);
    assert_eq!(
        started["data"]["state"]["cookies"][0]["count"], 1,
        "{started:#}"
    );
    run(&["--id", "b", "open", &shell.url("account")]);
    let read = run(&["--id", "b", "snapshot", "--mode", "text"]);
    assert!(
        read["data"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("Signed in as Lin")),
        "{read:#}"
    );
    // Nothing candor wrote holds the session cookie or the stored name in clear.
    for (path, bytes) in shell.state_files() {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(test_support::ACCOUNT_COOKIE),
            "{}",
            path.display()
        );
    }
}
