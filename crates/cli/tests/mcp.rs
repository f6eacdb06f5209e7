//! End-to-end test of the MCP face: the real `candor mcp` process, driven by rmcp's
//! client over its stdin/stdout, against fixture pages in a real headless Chromium.
//!
//! The child's stdout is copied line by line on its way to the client, so the test can
//! check that it carried nothing but JSON-RPC frames (rmcp's reader skips lines that are
//! not JSON, so a stray print would otherwise go unnoticed).

use std::future::Future;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use test_support::FixtureServer;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::process::{Child, ChildStdout, Command};
use tokio::task::JoinHandle;

/// The bound on any one step; a hung server fails the test instead of hanging it.
const STEP: Duration = Duration::from_secs(60);

#[tokio::test]
async fn mcp_session_over_stdio_navigates_reads_refuses_and_exits_on_eof() {
    let server = FixtureServer::start();
    let candor = Candor::start().await;

    let info = candor
        .client
        .peer_info()
        .expect("the server's initialize result");
    assert_eq!(
        info.server_info.as_ref().map(|s| s.name.as_str()),
        Some("candor")
    );
    assert!(
        info.instructions
            .as_deref()
            .is_some_and(|i| i.contains("untrusted")),
        "{info:?}"
    );

    let listed = within("tools/list", candor.client.list_all_tools())
        .await
        .expect("tools/list");
    for name in [
        "browser_navigate",
        "browser_tabs",
        "browser_snapshot",
        "browser_diagnostics",
    ] {
        let tool = listed
            .iter()
            .find(|tool| tool.name == name)
            .unwrap_or_else(|| panic!("{name} is not listed"));
        assert_eq!(
            tool.input_schema.get("type"),
            Some(&json!("object")),
            "{name}"
        );
        assert!(tool.description.as_deref().is_some_and(|d| !d.is_empty()));
        let annotations = tool.annotations.as_ref().expect("annotations");
        assert!(annotations.title.is_some(), "{name}");
    }
    let snapshot = listed.iter().find(|tool| tool.name == "browser_snapshot");
    assert_eq!(
        snapshot.and_then(|tool| tool.annotations.as_ref()?.read_only_hint),
        Some(true)
    );

    let (result, envelope) = candor
        .call(
            "browser_navigate",
            json!({"url": server.url("second.html")}),
        )
        .await;
    assert_eq!(result.is_error, Some(false), "{envelope:#}");
    assert_eq!(envelope["ok"], true);
    assert_eq!(envelope["page"]["title"], "Second page", "{envelope:#}");

    let (result, envelope) = candor
        .call("browser_snapshot", json!({"mode": "text"}))
        .await;
    assert_eq!(result.is_error, Some(false), "{envelope:#}");
    let text = envelope["data"]["text"].as_str().unwrap_or_default();
    assert!(text.contains("This is the second page."), "{envelope:#}");
    let block = text_block(&result);
    assert!(block.contains(tools::FENCE_OPEN), "{block}");
    assert!(block.contains("This is the second page."), "{block}");

    let (result, envelope) = candor
        .call("browser_navigate", json!({"url": "file:///etc/passwd"}))
        .await;
    assert_eq!(result.is_error, Some(true), "{envelope:#}");
    assert_eq!(envelope["ok"], false);
    assert_eq!(envelope["code"], "URL_BLOCKED", "{envelope:#}");
    assert_eq!(envelope["execution"]["actionStatus"], "not-started");
    assert!(text_block(&result).starts_with("URL_BLOCKED navigate"));

    // The session so far as a flow: the navigation that worked, with the URL it reached.
    let (result, envelope) = candor
        .call("browser_flow", json!({"action": "export"}))
        .await;
    assert_eq!(result.is_error, Some(false), "{envelope:#}");
    let steps = envelope["data"]["flow"]["steps"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(steps.len(), 1, "{envelope:#}");
    assert_eq!(steps[0]["expect"]["url"], server.url("second.html"));

    // A hand-off: the live view on a loopback port candor mcp opened for it, behind its
    // token; the task is the person's until they press Done.
    let (result, envelope) = candor
        .call("browser_handoff", json!({"reason": "Sign in for me"}))
        .await;
    assert_eq!(result.is_error, Some(false), "{envelope:#}");
    let live = envelope["data"]["liveView"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(live.starts_with("http://127.0.0.1:"), "{envelope:#}");
    let status = tokio::task::spawn_blocking(move || test_support::http_get(&live).0)
        .await
        .expect("a live view request");
    assert_eq!(status, "HTTP/1.1 200 OK");
    let (_, envelope) = candor.call("browser_snapshot", json!({})).await;
    assert_eq!(envelope["code"], "HANDOFF_LOCKED", "{envelope:#}");

    // An unknown tool is a tool error the agent can read, not a protocol error.
    let (result, envelope) = candor.call("browser_teleport", json!({})).await;
    assert_eq!(result.is_error, Some(true), "{envelope:#}");
    assert_eq!(envelope["code"], "INVALID_PARAMS");
    let message = envelope["message"].as_str().unwrap_or_default();
    assert!(message.contains("browser_snapshot"), "{message}");

    let (status, frames) = candor.close().await;
    assert!(status.success(), "candor mcp exited with {status}");
    assert!(frames.len() >= 6, "{frames:?}");
    for frame in &frames {
        let message: Value = serde_json::from_slice(frame).unwrap_or_else(|err| {
            panic!(
                "stdout carried a non-JSON line ({err}): {}",
                String::from_utf8_lossy(frame)
            )
        });
        assert_eq!(message["jsonrpc"], "2.0", "{message}");
    }
}

#[tokio::test]
async fn mcp_server_outlives_a_killed_browser_and_the_tabs_come_back() {
    let server = FixtureServer::start();
    let candor = Candor::start().await;
    let page = server.url("second.html");
    let (_, envelope) = candor
        .call("browser_navigate", json!({ "url": page }))
        .await;
    assert_eq!(envelope["ok"], true, "{envelope:#}");
    let candor_pid = candor.child.id().expect("candor runs");
    let (browser, profile) = browser_of(candor_pid).expect("candor's Chromium");
    // SAFETY: kill sends a signal to the browser this test's server started.
    assert_eq!(
        unsafe { libc::kill(browser as libc::pid_t, libc::SIGKILL) },
        0
    );

    let started = std::time::Instant::now();
    let lost = loop {
        let (_, envelope) = candor.call("browser_tabs", json!({})).await;
        if envelope["ok"] != true {
            break envelope;
        }
        assert!(started.elapsed() < STEP, "the death never showed");
        tokio::time::sleep(Duration::from_millis(25)).await;
    };
    assert_eq!(lost["code"], "BROWSER_DISCONNECTED", "{lost:#}");
    let (_, back) = candor.call("browser_tabs", json!({})).await;
    assert_eq!(back["ok"], true, "{back:#}");
    assert_eq!(
        back["events"]["recovered"]["tabs"],
        json!([{ "tabId": "tab0", "url": page }]),
        "{back:#}"
    );
    // Nothing of the killed browser is left behind.
    while processes_naming(&profile) > 0 {
        assert!(started.elapsed() < STEP, "processes of {profile} left");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (status, _) = candor.close().await;
    assert!(status.success(), "candor mcp exited with {status}");
}

/// `candor mcp` keeps its archive in a folder made for it alone: a random name (never
/// one a local user could work out from the pid and plant first), created exclusively,
/// 0700. In a configured `archiveDir`, a folder someone planted for it — a symbolic link
/// to a place they read, or a folder open to everyone — is refused: the archive is not
/// written, and diagnostics say why.
#[tokio::test]
async fn mcp_archives_into_a_private_folder_of_its_own_and_never_through_a_planted_one() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let server = FixtureServer::start();
    let temp = tempfile::tempdir().expect("a temp dir");
    let candor = Candor::start_with(&[("TMPDIR", temp.path().as_os_str())]).await;
    let pid = candor.child.id().expect("candor runs");
    let path = candor.archive_after_a_read(&server).await["path"]
        .as_str()
        .expect("the archive's path")
        .to_string();
    let folder = std::path::Path::new(&path)
        .parent()
        .expect("the archive's folder");
    assert_eq!(folder.parent(), Some(temp.path()), "{path}");
    let name = folder.file_name().unwrap_or_default().to_string_lossy();
    assert!(
        !name.contains(&pid.to_string()),
        "the folder's name is not made from the pid: {name}"
    );
    let meta = std::fs::symlink_metadata(folder).expect("the folder");
    assert!(meta.is_dir(), "{path}");
    assert_eq!(meta.permissions().mode() & 0o777, 0o700, "{path}");
    // SAFETY: geteuid has no preconditions.
    assert_eq!(meta.uid(), unsafe { libc::geteuid() }, "{path}");
    assert!(std::path::Path::new(&path).exists(), "{path}");
    let (status, _) = candor.close().await;
    assert!(status.success(), "candor mcp exited with {status}");
    assert!(
        !folder.exists(),
        "the archive goes with the session: {path}"
    );

    // A planted link, and a folder anyone may write to, where the archive would go.
    let elsewhere = tempfile::tempdir().expect("a temp dir");
    let planted = tempfile::tempdir().expect("a temp dir");
    std::os::unix::fs::symlink(elsewhere.path(), planted.path().join("mcp")).expect("a link");
    let open = tempfile::tempdir().expect("a temp dir");
    std::fs::create_dir(open.path().join("mcp")).expect("a folder");
    std::fs::set_permissions(
        open.path().join("mcp"),
        std::fs::Permissions::from_mode(0o777),
    )
    .expect("chmod");
    for (root, what) in [(planted.path(), "link"), (open.path(), "others")] {
        let candor = Candor::start_with(&[("CANDOR_ARCHIVE_DIR", root.as_os_str())]).await;
        let archive = candor.archive_after_a_read(&server).await;
        assert!(
            archive["writeFailures"].as_u64().unwrap_or_default() >= 1,
            "{archive:#}"
        );
        let failure = archive["lastFailure"].as_str().unwrap_or_default();
        assert!(failure.contains(what), "{failure}");
        let (status, _) = candor.close().await;
        assert!(status.success(), "candor mcp exited with {status}");
    }
    let written: Vec<_> = std::fs::read_dir(elsewhere.path())
        .expect("the link's target")
        .collect();
    assert!(
        written.is_empty(),
        "nothing written through the link: {written:?}"
    );
    let written: Vec<_> = std::fs::read_dir(open.path().join("mcp"))
        .expect("the open folder")
        .collect();
    assert!(
        written.is_empty(),
        "nothing written into the open folder: {written:?}"
    );
}

/// The browser process among `parent`'s children (the one without `--type=`), and its
/// `--user-data-dir`.
fn browser_of(parent: u32) -> Option<(u32, String)> {
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid: u32 = entry.file_name().to_string_lossy().parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let ppid: u32 = stat[stat.rfind(')')? + 2..]
                .split(' ')
                .nth(1)?
                .parse()
                .ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let args: Vec<String> = cmdline
                .split(|b| *b == 0)
                .map(|a| String::from_utf8_lossy(a).to_string())
                .collect();
            if ppid != parent || args.iter().any(|a| a.starts_with("--type=")) {
                return None;
            }
            let profile = args
                .iter()
                .find_map(|a| a.strip_prefix("--user-data-dir="))?
                .to_string();
            Some((pid, profile))
        })
}

/// How many live processes name `profile` on their command line.
fn processes_naming(profile: &str) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter(|entry| {
            let path = entry.path();
            let zombie = std::fs::read_to_string(path.join("stat"))
                .ok()
                .and_then(|s| s.rfind(')').map(|i| s[i + 2..].starts_with('Z')))
                .unwrap_or(true);
            !zombie
                && std::fs::read(path.join("cmdline"))
                    .is_ok_and(|c| String::from_utf8_lossy(&c).contains(profile))
        })
        .count()
}

/// The tool list states the defaults this deployment runs with, not the built-in ones:
/// configured `snapshotMaxTokens = 8000`, browser_snapshot's maxTokens says 8000.
/// A client's `notifications/cancelled` for a running `wait` (rmcp's client, the official
/// Rust SDK, sends it): the call ends `COMMAND_CANCELLED` long before its own deadline,
/// and the task's next call runs at once instead of queueing behind it.
#[tokio::test]
async fn a_client_cancellation_ends_the_running_call_and_the_next_one_runs() {
    let server = FixtureServer::start();
    let candor = Candor::start().await;
    let (_, opened) = candor
        .call(
            "browser_navigate",
            json!({"url": server.url("second.html")}),
        )
        .await;
    assert_eq!(opened["ok"], true, "{opened:#}");
    let peer = candor.client.peer().clone();
    let Value::Object(arguments) = json!({"text": "Never on this page", "timeoutMs": 60_000})
    else {
        unreachable!()
    };
    let request = rmcp::model::ClientRequest::CallToolRequest(rmcp::model::Request::new(
        CallToolRequestParams::new("browser_wait").with_arguments(arguments),
    ));
    let handle = within(
        "sending the wait",
        peer.send_request_with_option(request, Default::default()),
    )
    .await
    .expect("the wait is sent");
    // Cancelled once it runs: diagnostics answers beside it and shows it.
    loop {
        let (_, seen) = candor.call("browser_diagnostics", json!({})).await;
        if seen["data"]["active"]["method"] == "wait" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let cancelled_at = std::time::Instant::now();
    let cancel = rmcp::model::CancelledNotificationParam::new(
        Some(handle.id.clone()),
        Some("the agent gave up".into()),
    );
    within("sending the cancel", peer.notify_cancelled(cancel))
        .await
        .expect("the cancel is sent");
    // The client gives the call up at once (it ignores any answer now, as the protocol
    // says); the server's journal tells how the call ended.
    let given_up = within("the client's side of the cancel", handle.await_response()).await;
    assert!(
        matches!(given_up, Err(rmcp::ServiceError::Cancelled { .. })),
        "{given_up:?}"
    );
    let ended = loop {
        let (_, seen) = candor.call("browser_diagnostics", json!({})).await;
        let wait = seen["data"]["last"]
            .as_array()
            .and_then(|last| last.iter().rev().find(|c| c["method"] == "wait").cloned());
        if let Some(wait) = wait {
            break wait;
        }
        assert!(cancelled_at.elapsed() < Duration::from_secs(30), "{seen:#}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let took = cancelled_at.elapsed();
    assert_eq!(ended["code"], "COMMAND_CANCELLED", "{ended:#}");
    eprintln!(
        "cancel to COMMAND_CANCELLED in the journal: {} ms (the wait ran {} ms of its 60,000)",
        took.as_millis(),
        ended["durationMs"]
    );
    assert!(
        ended["durationMs"].as_u64().unwrap() < 10_000,
        "{ended:#}: it ran as long as its deadline"
    );
    // The task is free: the next call runs, not queued behind a 60 s wait.
    let next_at = std::time::Instant::now();
    let (_, read) = candor
        .call("browser_snapshot", json!({"mode": "text"}))
        .await;
    assert_eq!(read["ok"], true, "{read:#}");
    eprintln!("the next snapshot: {} ms", next_at.elapsed().as_millis());
    assert!(next_at.elapsed() < Duration::from_secs(10));
    candor.close().await;
}

#[tokio::test]
async fn tools_list_cites_the_configured_defaults() {
    let candor = Candor::start_with(&[
        ("CANDOR_SNAPSHOT_MAX_TOKENS", "8000".as_ref()),
        ("CANDOR_SETTLE_MS", "750".as_ref()),
    ])
    .await;
    let listed = within("tools/list", candor.client.list_all_tools())
        .await
        .expect("tools/list");
    let described = |name: &str, param: &str| {
        let tool = listed
            .iter()
            .find(|listed| listed.name == name)
            .unwrap_or_else(|| panic!("{name} is not listed"));
        tool.input_schema["properties"][param]["description"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}.{param} has no description"))
            .to_string()
    };
    let max_tokens = described("browser_snapshot", "maxTokens");
    assert!(max_tokens.contains("(default 8000)"), "{max_tokens}");
    let settle = described("browser_act", "settleMs");
    assert!(settle.contains("(default 750)"), "{settle}");
    // What is not configured is the built-in default.
    let max_chars = described("browser_snapshot", "maxChars");
    assert!(max_chars.contains("(default 20000)"), "{max_chars}");
    let (status, _) = candor.close().await;
    assert!(status.success(), "{status}");
}

/// `candor mcp` as a child process, with an rmcp client on its stdin/stdout.
struct Candor {
    child: Child,
    client: RunningService<RoleClient, ()>,
    /// Copies the child's stdout to the client; returns every line it saw.
    stdout: JoinHandle<Vec<Vec<u8>>>,
    /// Each listed tool's declared output schema, by name.
    output_schemas: std::collections::HashMap<String, Value>,
}

impl Candor {
    async fn start() -> Self {
        Self::start_with(&[]).await
    }

    /// `candor mcp` with `env` added to its environment.
    async fn start_with(env: &[(&str, &std::ffi::OsStr)]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_candor"));
        command
            .arg("--chromium")
            .arg(test_support::chromium())
            .arg("mcp")
            .env_remove("CANDOR_LOG")
            .env_remove("CANDOR_ARCHIVE_DIR");
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn candor mcp");
        let stdin = child.stdin.take().expect("the child's stdin");
        let stdout = child.stdout.take().expect("the child's stdout");
        let (to_client, from_child) = tokio::io::duplex(1 << 16);
        let stdout = tokio::spawn(copy_lines(stdout, to_client));
        let client = within("initialize", ().serve((from_child, stdin)))
            .await
            .expect("initialize");
        let listed = within("tools/list", client.list_all_tools())
            .await
            .expect("tools/list");
        let output_schemas = listed
            .into_iter()
            .map(|tool| {
                let schema = tool
                    .output_schema
                    .unwrap_or_else(|| panic!("{} declares no output schema", tool.name));
                (tool.name.to_string(), Value::Object((*schema).clone()))
            })
            .collect();
        Self {
            child,
            client,
            stdout,
            output_schemas,
        }
    }

    /// Calls `name`; returns the result and its `structuredContent` (the envelope), after
    /// checking the shape every call shares: one text block and an envelope whose `ok`
    /// agrees with `isError`, valid under the output schema the tool declared.
    async fn call(&self, name: &str, arguments: Value) -> (CallToolResult, Value) {
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object: {arguments}");
        };
        let params = CallToolRequestParams::new(name.to_string()).with_arguments(arguments);
        let result = within(name, self.client.call_tool(params))
            .await
            .unwrap_or_else(|err| panic!("{name}: {err}"));
        assert_eq!(result.content.len(), 1, "{name}: {result:?}");
        let envelope = result
            .structured_content
            .clone()
            .unwrap_or_else(|| panic!("{name} has no structuredContent: {result:?}"));
        assert_eq!(
            envelope["ok"].as_bool(),
            result.is_error.map(|is_error| !is_error),
            "{name}: {envelope:#}"
        );
        assert_eq!(envelope["task"], "not_evaluated");
        if let Some(schema) = self.output_schemas.get(name) {
            let validator = jsonschema::validator_for(schema)
                .unwrap_or_else(|err| panic!("{name}'s output schema: {err}"));
            let errors: Vec<String> = validator
                .iter_errors(&envelope)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{name}: {errors:?} in {envelope:#}");
        }
        (result, envelope)
    }

    /// Navigates and reads a page (an observation for the archive), recalls (which runs
    /// after the archive's writes), and returns the archive's part of diagnostics.
    async fn archive_after_a_read(&self, server: &FixtureServer) -> Value {
        let (_, envelope) = self
            .call(
                "browser_navigate",
                json!({"url": server.url("second.html")}),
            )
            .await;
        assert_eq!(envelope["ok"], true, "{envelope:#}");
        let (_, envelope) = self.call("browser_snapshot", json!({"mode": "text"})).await;
        assert_eq!(envelope["ok"], true, "{envelope:#}");
        self.call("browser_recall", json!({})).await;
        let (_, envelope) = self.call("browser_diagnostics", json!({})).await;
        envelope["data"]["archive"].clone()
    }

    /// Closes the client (which closes the child's stdin) and waits for the child to exit
    /// on its own; returns its status and every line it wrote to stdout.
    async fn close(mut self) -> (ExitStatus, Vec<Vec<u8>>) {
        within("closing the client", self.client.cancel())
            .await
            .expect("close the client");
        let status = within("candor to exit after stdin closed", self.child.wait())
            .await
            .expect("wait for candor");
        let frames = within("candor's stdout to end", self.stdout)
            .await
            .expect("the stdout copier");
        (status, frames)
    }
}

/// Forwards `stdout` to the client line by line and keeps a copy of each line. Ends when
/// the child closes stdout; dropping `to_client` then ends the client's input too.
async fn copy_lines(stdout: ChildStdout, mut to_client: DuplexStream) -> Vec<Vec<u8>> {
    let mut stdout = BufReader::new(stdout);
    let mut lines = Vec::new();
    loop {
        let mut line = Vec::new();
        match stdout.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return lines,
            Ok(_) => {}
        }
        // A client that already went away does not stop the copy: the rest of stdout
        // must still be checked.
        let _ = to_client.write_all(&line).await;
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        lines.push(line);
    }
}

fn text_block(result: &CallToolResult) -> &str {
    result.content[0]
        .as_text()
        .map(|text| text.text.as_str())
        .unwrap_or_else(|| panic!("the block is not text: {result:?}"))
}

async fn within<T>(what: &str, step: impl Future<Output = T>) -> T {
    tokio::time::timeout(STEP, step)
        .await
        .unwrap_or_else(|_| panic!("{what} took longer than {STEP:?}"))
}
