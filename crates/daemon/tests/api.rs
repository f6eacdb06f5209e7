//! The daemon end to end: a real server on 127.0.0.1:0 in this process, the typed client
//! over a real socket, real headless Chromium, fixture pages served on 127.0.0.1. One
//! test per acceptance item of the daemon (tasks, busy, deadlines, diagnostics, cancel,
//! a page that spins forever, batches, browser configuration, token, idle shutdown).

// Helpers outside #[test] functions: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::future::Future;
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use browser::{BrowserOptions, Endpoint, LaunchOptions};
use daemon::{AppState, Client, DaemonConfig, Server, StateDir};
use serde_json::{Value, json};
use test_support::FixtureServer;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The bound on any one step; a hung daemon fails the test instead of hanging it.
const STEP: Duration = Duration::from_secs(60);

struct Daemon {
    client: Client,
    state: AppState,
    state_dir: StateDir,
    port: u16,
    stop: Option<oneshot::Sender<()>>,
    served: Option<JoinHandle<Result<(), daemon::Error>>>,
    _dir: tempfile::TempDir,
}

fn config(dir: &std::path::Path) -> DaemonConfig {
    DaemonConfig {
        state_dir: dir.join("state"),
        port: 0,
        engine: tools::EngineOptions {
            browser: BrowserOptions {
                endpoint: Endpoint::Launch(LaunchOptions {
                    executable: Some(test_support::chromium()),
                    ..LaunchOptions::default()
                }),
                record_cdp: None,
            },
            command_timeout: Duration::from_secs(30),
            ..tools::EngineOptions::default()
        },
        idle_timeout: None,
        display_available: false,
    }
}

impl Daemon {
    async fn start() -> Daemon {
        Self::start_with(|_| {}).await
    }

    async fn start_with(change: impl FnOnce(&mut DaemonConfig)) -> Daemon {
        let dir = tempfile::tempdir().unwrap();
        let mut config = config(dir.path());
        change(&mut config);
        let state_dir = StateDir::new(config.state_dir.clone());
        let server = Server::bind(config).await.unwrap();
        let port = server.port();
        let state = server.state();
        let (stop, stopped) = oneshot::channel::<()>();
        let served = tokio::spawn(server.run(async {
            let _ = stopped.await;
        }));
        let client = Client::from_state(&state_dir).unwrap();
        Daemon {
            client,
            state,
            state_dir,
            port,
            stop: Some(stop),
            served: Some(served),
            _dir: dir,
        }
    }

    /// Runs a blocking client call off the runtime.
    async fn ask<T: Send + 'static>(
        &self,
        call: impl FnOnce(&Client) -> Result<daemon::Answer, daemon::Error> + Send + 'static,
        then: impl FnOnce(daemon::Answer) -> T + Send + 'static,
    ) -> T {
        let client = self.client.clone();
        within(
            "a daemon call",
            tokio::task::spawn_blocking(move || then(call(&client).unwrap())),
        )
        .await
        .unwrap()
    }

    async fn start_task(&self, id: &str) -> Value {
        let body = json!({ "id": id });
        self.ask(move |c| c.start_task(&body), |a| a.body).await
    }

    async fn call(
        &self,
        task: &str,
        method: &str,
        params: Value,
        timeout_ms: Option<u64>,
    ) -> Value {
        let (task, method) = (task.to_string(), method.to_string());
        self.ask(
            move |c| c.command(&task, &method, &params, timeout_ms, false),
            |a| a.body,
        )
        .await
    }

    async fn ok(&self, task: &str, method: &str, params: Value) -> Value {
        let envelope = self.call(task, method, params.clone(), None).await;
        assert_eq!(envelope["ok"], true, "{method} {params}: {envelope:#}");
        envelope
    }

    async fn diagnostics(&self, task: &str) -> Value {
        let task = task.to_string();
        self.ask(move |c| c.diagnostics(&task, None), |a| a.body)
            .await
    }

    async fn cancel(&self, command_id: &str) -> Value {
        let id = command_id.to_string();
        self.ask(move |c| c.cancel(&id), |a| a.body).await
    }

    /// Polls diagnostics until `task` shows a running command; returns it.
    async fn active(&self, task: &str) -> Value {
        let started = Instant::now();
        loop {
            let diagnostics = self.diagnostics(task).await;
            let active = &diagnostics["data"]["active"];
            if active.is_object() {
                return active.clone();
            }
            assert!(
                started.elapsed() < STEP,
                "no command became active: {diagnostics:#}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(served) = self.served.take() {
            within("the daemon to stop", served).await.unwrap().unwrap();
        }
    }
}

async fn within<T>(what: &str, work: impl Future<Output = T>) -> T {
    tokio::time::timeout(STEP, work)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

fn text_of(envelope: &Value) -> String {
    envelope["data"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The ref of the first element `find` matches with `text`.
async fn ref_of(daemon: &Daemon, task: &str, text: &str) -> String {
    let found = daemon.ok(task, "find", json!({ "text": text })).await;
    found["data"]["matches"][0]["ref"]
        .as_str()
        .unwrap_or_else(|| panic!("nothing matches {text:?}: {found:#}"))
        .to_string()
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let rest = &stat[stat.rfind(')')? + 2..];
            rest.chars().next()
        })
        .is_some_and(|state| state != 'Z' && state != 'X')
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_without_the_token_are_refused_and_the_token_file_is_private() {
    use tower::ServiceExt;
    // Without a socket: the router itself refuses.
    let dir = tempfile::tempdir().unwrap();
    let router = daemon::app(AppState::new(config(dir.path()), "sesame"));
    for header in [
        None,
        Some("Bearer wrong"),
        Some("sesame"),
        Some("Bearer sesame "),
    ] {
        let mut request = axum::http::Request::get("/v1/health");
        if let Some(value) = header {
            request = request.header("authorization", value);
        }
        let response = router
            .clone()
            .oneshot(request.body(axum::body::Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(response.status(), 401, "{header:?}");
    }
    let response = router
        .clone()
        .oneshot(
            axum::http::Request::post("/v1/tasks/t/commands")
                .body(axum::body::Body::from(r#"{"method":"diagnostics"}"#))
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), 401, "every route needs the token");
    let response = router
        .oneshot(
            axum::http::Request::get("/v1/health")
                .header("authorization", "Bearer sesame")
                .body(axum::body::Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), 200);

    // Over a real socket: the token file is 0600, and a request without it is a 401.
    let daemon = Daemon::start().await;
    let mode = std::fs::metadata(daemon.state_dir.token_path())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "token file mode {mode:o}");
    let info = daemon.state_dir.read_info().unwrap();
    assert_eq!(info.port, daemon.port);
    assert_eq!(info.pid, std::process::id());
    let port = daemon.port;
    let anonymous = tokio::task::spawn_blocking(move || {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .new_agent();
        agent
            .get(format!("http://127.0.0.1:{port}/v1/tasks"))
            .call()
            .unwrap()
            .status()
            .as_u16()
    })
    .await
    .unwrap();
    assert_eq!(anonymous, 401);
    let health = daemon.ask(|c| c.health(), |a| a).await;
    assert_eq!(health.status, 200);
    assert_eq!(health.body["ok"], true);
    assert!(health.body.get("memory").is_none(), "only when asked");
    // Asked for, the memory report rides beside the same fields.
    let asked = daemon.ask(|c| c.memory(), |a| a).await;
    assert_eq!(asked.status, 200);
    for field in ["ok", "version", "pid", "tasks"] {
        assert_eq!(asked.body[field], health.body[field], "{field}");
    }
    let memory = &asked.body["memory"];
    if cfg!(all(target_os = "linux", target_env = "gnu")) {
        let in_use = memory["heap"]["inUse"].as_u64().unwrap();
        let held = memory["heap"]["held"].as_u64().unwrap();
        assert!(in_use > 0 && in_use <= held, "{memory:#}");
    }
    assert!(memory["sqlite"]["inUse"].is_u64(), "{memory:#}");
    assert_eq!(memory["tasks"], 0, "{memory:#}");
    assert_eq!(memory["tabs"], 0, "{memory:#}");
    assert_eq!(memory["buffers"]["bytes"], 0, "{memory:#}");
    for buffer in [
        "flowSteps",
        "journal",
        "checkpoints",
        "console",
        "exceptions",
        "network",
        "problems",
        "dialogs",
        "refs",
        "retiredRefs",
    ] {
        assert_eq!(
            memory["buffers"][buffer],
            json!({ "entries": 0, "bytes": 0 }),
            "{buffer}"
        );
    }

    // A client holding another token is told so, not handed an envelope.
    let stranger = Client::new(port, "not-the-token".into(), "elsewhere".into());
    let refused = tokio::task::spawn_blocking(move || stranger.tasks())
        .await
        .unwrap();
    assert!(
        matches!(refused, Err(daemon::Error::Unauthorized { .. })),
        "{refused:?}"
    );
    let state_dir = daemon.state_dir.clone();
    daemon.shutdown().await;
    assert!(
        !state_dir.token_path().exists(),
        "the token goes with the daemon"
    );
    assert!(!state_dir.info_path().exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn tasks_start_list_and_stop_each_in_its_own_browser_context() {
    let server = FixtureServer::start();
    let daemon = Daemon::start().await;

    let started = daemon.start_task("alpha").await;
    assert_eq!(started["ok"], true, "{started:#}");
    assert_eq!(started["data"]["task"], "alpha");
    let again = daemon
        .ask(|c| c.start_task(&json!({ "id": "alpha" })), |a| a)
        .await;
    assert_eq!(again.status, 409);
    assert_eq!(
        again.body["code"], "TASK_ALREADY_EXISTS",
        "{:#}",
        again.body
    );
    assert_eq!(again.body["execution"]["retrySafe"], true);
    assert_eq!(daemon.start_task("beta").await["ok"], true);

    // Storage set in one task is not seen by the other: two browser contexts.
    let set = daemon
        .ok(
            "alpha",
            "navigate",
            json!({ "url": server.url("storage.html?set=alpha") }),
        )
        .await;
    assert_eq!(set["page"]["title"], "Storage");
    let alpha = daemon
        .ok("alpha", "snapshot", json!({ "mode": "text" }))
        .await;
    assert!(text_of(&alpha).contains("mark: alpha"), "{alpha:#}");
    daemon
        .ok(
            "beta",
            "navigate",
            json!({ "url": server.url("storage.html") }),
        )
        .await;
    let beta = daemon
        .ok("beta", "snapshot", json!({ "mode": "text" }))
        .await;
    assert!(text_of(&beta).contains("mark: none"), "{beta:#}");

    // Both tasks in one browser, command ids unique across them.
    let listed = daemon.ask(|c| c.tasks(), |a| a.body).await;
    let ids: Vec<&str> = listed["data"]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["alpha", "beta"]);
    assert!(listed["data"]["browser"]["pid"].is_u64(), "{listed:#}");
    assert_ne!(
        alpha["execution"]["commandId"],
        beta["execution"]["commandId"]
    );

    let unknown = daemon
        .ask(
            |c| c.command("gamma", "snapshot", &json!({}), None, false),
            |a| a,
        )
        .await;
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.body["code"], "TASK_NOT_FOUND");
    assert!(unknown.body["message"].as_str().unwrap().contains("gamma"));

    let stopped = daemon.ask(|c| c.stop_task("alpha"), |a| a.body).await;
    assert_eq!(stopped["ok"], true, "{stopped:#}");
    let gone = daemon.call("alpha", "snapshot", json!({}), None).await;
    assert_eq!(gone["code"], "TASK_NOT_FOUND");
    // Its diagnostics outlive it.
    let kept = daemon.diagnostics("alpha").await;
    assert_eq!(kept["ok"], true, "{kept:#}");
    let methods: Vec<&str> = kept["data"]["last"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["method"].as_str().unwrap())
        .collect();
    assert_eq!(methods, ["navigate", "snapshot"]);
    // The other task goes on in the same browser.
    daemon
        .ok("beta", "snapshot", json!({ "mode": "text" }))
        .await;
    // The memory report counts the buffers of both: the stopped task's are kept with
    // its diagnostics; only the live task has a tab.
    let memory = daemon.ask(|c| c.memory(), |a| a.body).await["memory"].clone();
    assert_eq!(memory["tasks"], 2, "{memory:#}");
    assert_eq!(memory["tabs"], 1, "{memory:#}");
    let buffers = &memory["buffers"];
    assert!(
        buffers["journal"]["entries"].as_u64() >= Some(5),
        "{memory:#}"
    );
    assert!(
        buffers["flowSteps"]["entries"].as_u64() >= Some(2),
        "{memory:#}"
    );
    assert!(
        buffers["network"]["entries"].as_u64() >= Some(1),
        "{memory:#}"
    );
    let total: u64 = buffers
        .as_object()
        .unwrap()
        .iter()
        .filter(|(name, _)| *name != "bytes")
        .map(|(_, held)| held["bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(buffers["bytes"].as_u64(), Some(total));
    daemon.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_command_on_a_busy_task_is_task_busy_at_once_and_never_started() {
    let server = FixtureServer::start();
    let daemon = Daemon::start().await;
    daemon.start_task("t").await;
    let slow = server.url("slow?ms=3000");
    let client = daemon.client.clone();
    let first = tokio::task::spawn_blocking(move || {
        client
            .command("t", "navigate", &json!({ "url": slow }), None, false)
            .unwrap()
            .body
    });
    let running = daemon.active("t").await;
    assert_eq!(running["method"], "navigate");

    let asked = Instant::now();
    let second = daemon
        .ask(
            |c| c.command("t", "snapshot", &json!({ "mode": "text" }), None, false),
            |a| a,
        )
        .await;
    let took = asked.elapsed();
    assert!(took < Duration::from_millis(100), "TASK_BUSY took {took:?}");
    assert_eq!(second.status, 409);
    let busy = second.body;
    assert_eq!(busy["code"], "TASK_BUSY", "{busy:#}");
    assert_eq!(busy["execution"]["started"], false);
    assert_eq!(busy["execution"]["actionStatus"], "not-started");
    assert_eq!(busy["execution"]["retrySafe"], true);
    assert_eq!(busy["data"]["activeCommandId"], running["commandId"]);
    assert!(busy["message"].as_str().unwrap().contains("navigate"));

    let first = within("the first command", first).await.unwrap();
    assert_eq!(first["ok"], true, "{first:#}");
    assert_eq!(first["execution"]["commandId"], running["commandId"]);
    // Free again once it ended.
    daemon.ok("t", "snapshot", json!({ "mode": "text" })).await;
    daemon.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_command_past_its_deadline_ends_at_it_named_and_shows_active_meanwhile() {
    let server = FixtureServer::start();
    let daemon = Daemon::start().await;
    daemon.start_task("t").await;
    daemon
        .ok("t", "navigate", json!({ "url": server.url("index.html") }))
        .await;
    // A page that answers after 10 s, under a 1.5 s deadline.
    let slow = server.url("slow?ms=10000");
    let client = daemon.client.clone();
    let asked = Instant::now();
    let command = tokio::task::spawn_blocking(move || {
        let answer = client
            .command("t", "navigate", &json!({ "url": slow }), Some(1500), false)
            .unwrap();
        (answer.body, asked.elapsed())
    });
    let active = daemon.active("t").await;
    assert_eq!(active["method"], "navigate");
    assert_eq!(active["workerRunning"], true);
    assert_eq!(active["cancelRequested"], false);
    assert!(active["elapsedMs"].as_u64().unwrap() < 1500, "{active:#}");
    for key in ["stage", "dispatchStarted", "actionStatus"] {
        assert!(!active[key].is_null(), "{key} in {active:#}");
    }

    let (envelope, took) = within("the command", command).await.unwrap();
    // A navigation that never commits is named for what it waited for.
    assert_eq!(envelope["code"], "NAVIGATION_TIMEOUT", "{envelope:#}");
    assert!(
        took >= Duration::from_millis(1500) && took <= Duration::from_millis(2500),
        "COMMAND_TIMEOUT after {took:?}"
    );
    let message = envelope["message"].as_str().unwrap();
    // Whichever bound fired (the engine's, or the CDP call's under it), it is named in ms.
    assert!(message.contains(" ms"), "{message}");
    assert!(message.contains("slow?ms=10000"), "{message}");
    assert_eq!(envelope["execution"]["commandId"], active["commandId"]);
    assert_eq!(envelope["execution"]["actionStatus"], "unknown");

    // Finished: no longer active, and last in the journal.
    let after = daemon.diagnostics("t").await;
    assert!(after["data"]["active"].is_null(), "{after:#}");
    let last = after["data"]["last"].as_array().unwrap();
    assert_eq!(last.last().unwrap()["code"], "NAVIGATION_TIMEOUT");
    // A deadline out of range is refused before anything runs.
    let refused = daemon.call("t", "snapshot", json!({}), Some(900_001)).await;
    assert_eq!(refused["code"], "INVALID_PARAMS", "{refused:#}");
    daemon.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wait_for_a_selector_that_never_appears_is_command_timeout_at_its_deadline() {
    let server = FixtureServer::start();
    let daemon = Daemon::start().await;
    daemon.start_task("t").await;
    daemon
        .ok("t", "navigate", json!({ "url": server.url("index.html") }))
        .await;
    let client = daemon.client.clone();
    let asked = Instant::now();
    let command = tokio::task::spawn_blocking(move || {
        let answer = client
            .command(
                "t",
                "wait",
                &json!({ "selector": "#never-there", "timeoutMs": 60000 }),
                Some(1500),
                false,
            )
            .unwrap();
        (answer.body, asked.elapsed())
    });
    let active = daemon.active("t").await;
    assert_eq!(active["method"], "wait");
    let (envelope, took) = within("the wait", command).await.unwrap();
    assert_eq!(envelope["code"], "COMMAND_TIMEOUT", "{envelope:#}");
    assert!(
        took >= Duration::from_millis(1500) && took <= Duration::from_millis(2500),
        "COMMAND_TIMEOUT after {took:?}"
    );
    assert!(
        envelope["message"]
            .as_str()
            .unwrap()
            .contains("#never-there"),
        "{envelope:#}"
    );
    assert_eq!(envelope["execution"]["commandId"], active["commandId"]);
    daemon.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cancel_stops_only_the_running_command_which_ends_cancelled() {
    let server = FixtureServer::start();
    let daemon = Daemon::start().await;
    daemon.start_task("t").await;
    daemon
        .ok("t", "navigate", json!({ "url": server.url("index.html") }))
        .await;
    // A wait for a selector that never appears.
    let never = json!({ "selector": "#never-there", "timeoutMs": 60_000 });
    let client = daemon.client.clone();
    let asked = Instant::now();
    let command = tokio::task::spawn_blocking(move || {
        let answer = client
            .command("t", "wait", &never, Some(30_000), false)
            .unwrap();
        (answer.body, asked.elapsed())
    });
    let active = daemon.active("t").await;
    assert_eq!(active["method"], "wait", "{active:#}");
    assert_eq!(active["dispatchStarted"], false, "{active:#}");
    assert_eq!(active["actionStatus"], "not-started", "{active:#}");
    let id = active["commandId"].as_str().unwrap().to_string();

    let stale = daemon.cancel("c-999999").await;
    assert_eq!(stale["data"]["accepted"], false, "{stale:#}");
    let accepted = daemon.cancel(&id).await;
    assert_eq!(accepted["data"]["accepted"], true, "{accepted:#}");
    assert_eq!(accepted["data"]["task"], "t");

    let (envelope, took) = within("the cancelled command", command).await.unwrap();
    assert_eq!(envelope["code"], "COMMAND_CANCELLED", "{envelope:#}");
    assert_eq!(envelope["execution"]["cancelled"], true);
    assert_eq!(envelope["execution"]["commandId"], id.as_str());
    assert!(took < Duration::from_secs(10), "cancel took {took:?}");
    assert!(
        envelope["message"]
            .as_str()
            .unwrap()
            .contains("worker has exited")
    );
    // Nothing of a wait reaches the page, and that is what the envelope says.
    assert_eq!(envelope["execution"]["actionStatus"], "not-started");
    let after = daemon.diagnostics("t").await;
    assert!(after["data"]["active"].is_null(), "{after:#}");
    let last = after["data"]["last"].as_array().unwrap();
    assert_eq!(last.last().unwrap()["code"], "COMMAND_CANCELLED");

    // The finished command's id cancels nothing, not even the command running now.
    let next_url = server.url("slow?ms=1500");
    let client = daemon.client.clone();
    let next = tokio::task::spawn_blocking(move || {
        client
            .command("t", "navigate", &json!({ "url": next_url }), None, false)
            .unwrap()
            .body
    });
    let running = daemon.active("t").await;
    assert_ne!(running["commandId"], id.as_str());
    let late = daemon.cancel(&id).await;
    assert_eq!(late["data"]["accepted"], false, "{late:#}");
    let next = within("the next command", next).await.unwrap();
    assert_eq!(next["ok"], true, "{next:#}");
    assert!(next["execution"].get("cancelled").is_none(), "{next:#}");
    daemon.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_that_spins_forever_costs_its_task_a_deadline_and_other_tasks_nothing() {
    let server = FixtureServer::start();
    let daemon = Daemon::start().await;
    daemon.start_task("stuck").await;
    daemon.start_task("fine").await;
    daemon
        .ok(
            "stuck",
            "navigate",
            json!({ "url": server.url("busy.html") }),
        )
        .await;
    let spin = ref_of(&daemon, "stuck", "Spin forever").await;

    let clicked = daemon
        .call(
            "stuck",
            "act",
            json!({ "action": "click", "ref": spin }),
            Some(3000),
        )
        .await;
    assert!(
        clicked["execution"]["durationMs"].as_u64().unwrap() <= 3500,
        "{clicked:#}"
    );
    assert_eq!(clicked["code"], "PAGE_UNRESPONSIVE", "{clicked:#}");
    assert_eq!(
        clicked["execution"]["actionStatus"], "unknown",
        "{clicked:#}"
    );

    // The next command on that task ends within its deadline with a named error.
    let asked = Instant::now();
    let next = daemon
        .call("stuck", "snapshot", json!({ "mode": "text" }), Some(2000))
        .await;
    let took = asked.elapsed();
    assert_eq!(next["ok"], false, "{next:#}");
    assert_eq!(next["code"], "PAGE_UNRESPONSIVE", "{next:#}");
    assert!(took < Duration::from_millis(3000), "took {took:?}");

    // The other task is served meanwhile, in the same browser.
    daemon
        .ok(
            "fine",
            "navigate",
            json!({ "url": server.url("second.html") }),
        )
        .await;
    let read = daemon
        .ok("fine", "snapshot", json!({ "mode": "text" }))
        .await;
    assert!(
        text_of(&read).contains("This is the second page."),
        "{read:#}"
    );
    let listed = daemon.ask(|c| c.tasks(), |a| a.body).await;
    assert_eq!(listed["data"]["tasks"].as_array().unwrap().len(), 2);
    daemon.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_batch_runs_in_the_background_holds_the_task_and_stops_between_steps() {
    let server = FixtureServer::start();
    let daemon = Daemon::start().await;
    daemon.start_task("t").await;

    let steps = json!({ "steps": [
        { "method": "navigate", "params": { "url": server.url("page-a.html") } },
        { "method": "navigate", "params": { "url": server.url("slow?ms=1500") } },
        { "method": "snapshot", "params": { "mode": "text" } },
        { "method": "navigate", "params": { "url": server.url("page-b.html") } },
    ]});
    let queued = daemon.ask(move |c| c.batch("t", &steps), |a| a.body).await;
    assert_eq!(queued["ok"], true, "{queued:#}");
    let job = queued["data"]["jobId"].as_str().unwrap().to_string();

    // The job holds the task.
    let busy = daemon.call("t", "snapshot", json!({}), None).await;
    assert_eq!(busy["code"], "TASK_BUSY", "{busy:#}");
    assert_eq!(busy["execution"]["started"], false);

    // Cancel while the slow step runs: it finishes, the rest never start.
    let started = Instant::now();
    loop {
        let id = job.clone();
        let view = daemon.ask(move |c| c.job(&id), |a| a.body).await;
        if view["data"]["steps"][1]["status"] == "running" {
            break;
        }
        assert!(started.elapsed() < STEP, "{view:#}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let id = job.clone();
    let cancelled = daemon.ask(move |c| c.cancel_job(&id), |a| a.body).await;
    assert_eq!(cancelled["data"]["accepted"], true, "{cancelled:#}");
    let view = loop {
        let id = job.clone();
        let view = daemon.ask(move |c| c.job(&id), |a| a.body).await;
        if view["data"]["state"] != "running" {
            break view;
        }
        assert!(started.elapsed() < STEP, "{view:#}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let statuses: Vec<&str> = view["data"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert_eq!(view["data"]["state"], "cancelled", "{view:#}");
    assert_eq!(statuses, ["ok", "ok", "cancelled", "cancelled"]);
    assert_eq!(view["data"]["steps"][1]["result"]["page"]["title"], "Slow");
    let id = job.clone();
    let again = daemon.ask(move |c| c.cancel_job(&id), |a| a.body).await;
    assert_eq!(again["data"]["accepted"], false);

    // The task is free again; a batch that runs to its end shows every result.
    let steps = json!({ "steps": [
        { "method": "navigate", "params": { "url": server.url("second.html") } },
        { "method": "snapshot", "params": { "mode": "text" } },
    ]});
    let queued = daemon.ask(move |c| c.batch("t", &steps), |a| a.body).await;
    let job = queued["data"]["jobId"].as_str().unwrap().to_string();
    let view = loop {
        let id = job.clone();
        let view = daemon.ask(move |c| c.job(&id), |a| a.body).await;
        if view["data"]["state"] != "running" {
            break view;
        }
        assert!(started.elapsed() < STEP, "{view:#}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(view["data"]["state"], "done", "{view:#}");
    assert_eq!(view["data"]["stepsDone"], 2);
    let text = view["data"]["steps"][1]["result"]["data"]["text"]
        .as_str()
        .unwrap();
    assert!(text.contains("This is the second page."), "{text}");
    let listed = daemon.ask(|c| c.jobs(), |a| a.body).await;
    assert_eq!(listed["data"]["jobs"].as_array().unwrap().len(), 2);

    // A batch naming a tool that does not exist is refused whole.
    let bad = json!({ "steps": [ { "method": "snapshot" }, { "method": "fly" } ] });
    let refused = daemon.ask(move |c| c.batch("t", &bad), |a| a).await;
    assert_eq!(refused.status, 400);
    assert!(
        refused.body["message"].as_str().unwrap().contains("step 2"),
        "{:#}",
        refused.body
    );
    daemon.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_flow_run_with_wait_answers_when_it_ends_and_names_the_step_that_failed() {
    let server = FixtureServer::start();
    let daemon = Daemon::start().await;
    daemon.start_task("t").await;

    // A variable left unbound is refused whole: nothing runs.
    let unbound = json!({ "steps": [
        { "method": "navigate", "params": { "url": server.url("page-a.html") } },
        { "method": "act", "params": { "action": "fill", "selector": "input", "text": "{{password}}" } },
    ]});
    let refused = daemon
        .ask(move |c| c.batch_and_wait("t", &unbound), |a| a)
        .await;
    assert_eq!(refused.status, 400, "{:#}", refused.body);
    assert_eq!(
        refused.body["data"]["missingVariables"],
        json!(["password"])
    );
    let journal = daemon.ask(|c| c.diagnostics("t", None), |a| a.body).await;
    assert_eq!(journal["data"]["last"], json!([]), "{journal:#}");

    // The second step's element is not there: the run stops at it, with a snapshot.
    let flow = json!({ "steps": [
        { "method": "navigate", "params": { "url": server.url("page-a.html") },
          "expect": { "url": server.url("page-a.html") } },
        { "method": "act", "params": { "action": "click" },
          "target": { "role": "button", "name": "Nowhere", "containers": [] } },
        { "method": "snapshot" },
    ]});
    let ended = daemon
        .ask(move |c| c.batch_and_wait("t", &flow), |a| a.body)
        .await;
    let job = &ended["data"];
    assert_eq!(job["state"], "failed", "{ended:#}");
    let statuses: Vec<&str> = job["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["ok", "error", "skipped"]);
    assert_eq!(job["steps"][0]["result"]["verification"]["verified"], true);
    let failure = &job["failure"];
    assert_eq!(failure["step"], 2, "{failure:#}");
    assert_eq!(failure["code"], "ELEMENT_NOT_FOUND");
    assert_eq!(failure["expected"], "button \"Nowhere\"");
    assert!(failure["snapshot"].as_str().is_some_and(|s| !s.is_empty()));
    let untrusted = ended["untrusted"].as_array().unwrap();
    assert!(
        untrusted.contains(&json!("/data/failure/snapshot")),
        "{ended:#}"
    );
    daemon.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_asking_for_another_browser_is_refused_while_others_share_it() {
    let daemon = Daemon::start().await;
    assert_eq!(daemon.start_task("first").await["ok"], true);

    let body = json!({ "id": "second", "browser": { "args": ["--lang=fr"] } });
    let conflict = daemon.ask(move |c| c.start_task(&body), |a| a).await;
    assert_eq!(conflict.status, 409);
    assert_eq!(
        conflict.body["code"], "BROWSER_CONFIG_CONFLICT",
        "{:#}",
        conflict.body
    );
    assert!(
        conflict.body["message"]
            .as_str()
            .unwrap()
            .contains("--lang=fr")
    );

    // Headed without a display is refused as such, whatever runs.
    let body = json!({ "id": "third", "browser": { "headless": false } });
    let headed = daemon.ask(move |c| c.start_task(&body), |a| a.body).await;
    assert_eq!(headed["code"], "DISPLAY_UNAVAILABLE", "{headed:#}");

    // Asking for what runs is no conflict.
    let body = json!({ "id": "fourth", "browser": { "headless": true } });
    let same = daemon.ask(move |c| c.start_task(&body), |a| a.body).await;
    assert_eq!(same["ok"], true, "{same:#}");

    // With no task left, a task may bring its own configuration.
    for task in ["first", "fourth"] {
        let stopped = daemon.ask(move |c| c.stop_task(task), |a| a.body).await;
        assert_eq!(stopped["ok"], true);
    }
    let old = daemon.state.browser_pid().unwrap();
    let body = json!({ "id": "second", "browser": { "args": ["--lang=fr"] } });
    let own = daemon.ask(move |c| c.start_task(&body), |a| a.body).await;
    assert_eq!(own["ok"], true, "{own:#}");
    assert_ne!(daemon.state.browser_pid(), Some(old));
    daemon.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_idle_daemon_shuts_down_and_takes_its_browser_with_it() {
    let daemon = Daemon::start_with(|config| {
        config.idle_timeout = Some(Duration::from_millis(1500));
    })
    .await;
    assert_eq!(daemon.start_task("t").await["ok"], true);
    let pid = daemon.state.browser_pid().unwrap();
    assert!(alive(pid));
    let mut daemon = daemon;
    let served = daemon.served.take().unwrap();
    let ended = Instant::now();
    within("idle shutdown", served).await.unwrap().unwrap();
    assert!(ended.elapsed() >= Duration::from_millis(1000));
    let started = Instant::now();
    while alive(pid) {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "chromium {pid} outlived the daemon"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(!daemon.state_dir.token_path().exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_killed_browser_leaves_the_daemon_serving_and_every_task_gets_its_tabs_back() {
    let server = FixtureServer::start();
    let daemon = Daemon::start().await;
    for (task, page) in [("a", "page-a.html"), ("b", "second.html")] {
        daemon.start_task(task).await;
        daemon
            .ok(task, "navigate", json!({ "url": server.url(page) }))
            .await;
    }
    let pid = daemon.state.browser_pid().unwrap();
    // SAFETY: kill sends a signal to a browser this test's daemon started.
    assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) }, 0);
    let started = Instant::now();
    while alive(pid) {
        assert!(started.elapsed() < Duration::from_secs(10), "{pid} lives");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    // Each task hears of it once, then goes on in a new browser with its tab back.
    for (task, page) in [("a", "page-a.html"), ("b", "second.html")] {
        let mut lost = daemon.call(task, "tabs", json!({}), None).await;
        // The death may not have reached the connection yet: wait for it to show.
        while lost["ok"] == true {
            assert!(started.elapsed() < Duration::from_secs(10), "{lost:#}");
            tokio::time::sleep(Duration::from_millis(25)).await;
            lost = daemon.call(task, "tabs", json!({}), None).await;
        }
        assert_eq!(lost["code"], "BROWSER_DISCONNECTED", "{lost:#}");
        let back = daemon.ok(task, "tabs", json!({})).await;
        assert_eq!(
            back["events"]["recovered"]["tabs"],
            json!([{ "tabId": "tab0", "url": server.url(page) }]),
            "{back:#}"
        );
    }
    assert_ne!(daemon.state.browser_pid(), Some(pid));
    let listed = daemon.ask(|c| c.tasks(), |a| a.body).await;
    assert_eq!(listed["data"]["tasks"].as_array().unwrap().len(), 2);
    daemon.shutdown().await;
}

#[tokio::test]
async fn a_tasks_archive_goes_with_it_on_stop_unless_kept_and_a_kept_one_is_reopened() {
    let server = FixtureServer::start();
    let shared = tempfile::tempdir().unwrap();
    let state = shared.path().join("state");
    let at = state.clone();
    let daemon = Daemon::start_with(move |config| config.state_dir = at).await;
    let url = server.url("page-a.html");
    let mut kept_id = String::new();
    for (task, keep) in [("gone", false), ("kept", true)] {
        let body = json!({ "id": task, "keepArchive": keep });
        let started = daemon.ask(move |c| c.start_task(&body), |a| a.body).await;
        assert_eq!(started["ok"], true, "{started:#}");
        daemon
            .ok(task, "navigate", json!({ "url": url.clone() }))
            .await;
        let read = daemon.ok(task, "snapshot", json!({ "mode": "text" })).await;
        // A recall runs after the writes queued before it.
        let listed = daemon.ok(task, "recall", json!({})).await;
        assert_eq!(listed["data"]["total"], 1, "{listed:#}");
        assert!(
            state
                .join("tasks")
                .join(task)
                .join(tools::ARCHIVE_FILE)
                .exists()
        );
        kept_id = read["execution"]["commandId"].as_str().unwrap().to_string();
    }
    for task in ["gone", "kept"] {
        let stopped = daemon.ask(move |c| c.stop_task(task), |a| a.body).await;
        assert_eq!(stopped["ok"], true, "{stopped:#}");
    }
    assert!(!state.join("tasks/gone").exists(), "removed with its task");
    assert!(state.join("tasks/kept").join(tools::ARCHIVE_FILE).exists());
    daemon.shutdown().await;

    // A new daemon on the same state directory: the kept task's archive is there again.
    let at = state.clone();
    let daemon = Daemon::start_with(move |config| config.state_dir = at).await;
    let body = json!({ "id": "kept", "keepArchive": true });
    let started = daemon.ask(move |c| c.start_task(&body), |a| a.body).await;
    assert_eq!(started["ok"], true, "{started:#}");
    let listed = daemon.ok("kept", "recall", json!({})).await;
    assert_eq!(
        listed["data"]["observations"][0]["id"],
        kept_id.as_str(),
        "{listed:#}"
    );
    let window = daemon
        .ok("kept", "recall", json!({ "observationId": kept_id }))
        .await;
    assert!(text_of(&window).contains("Submit"), "{window:#}");
    daemon.shutdown().await;
    assert!(state.join("tasks/kept").join(tools::ARCHIVE_FILE).exists());
}

/// A hand-off over the daemon: its live view is served on the daemon's own port, needs
/// the hand-off's token (never the daemon's), locks the task, and ends with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_off_serves_its_live_view_on_the_daemon_and_locks_the_task() {
    let daemon = Daemon::start().await;
    let server = test_support::FixtureServer::start();
    daemon.start_task("h").await;
    daemon
        .ok(
            "h",
            "navigate",
            json!({ "url": server.url("handoff.html") }),
        )
        .await;
    let started = daemon
        .ok("h", "handoff", json!({ "reason": "Solve the puzzle" }))
        .await;
    let url = started["data"]["liveView"].as_str().unwrap().to_string();
    let prefix = format!("http://127.0.0.1:{}/live/h?token=", daemon.port);
    assert!(url.starts_with(&prefix), "{url}");
    let get = |url: String| async move {
        within(
            "a live view request",
            tokio::task::spawn_blocking(move || test_support::http_get(&url).1),
        )
        .await
        .expect("answered")
    };
    let page = get(url.clone()).await;
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(page.contains("Done — hand back to the agent"), "{page}");
    let daemon_token = std::fs::read_to_string(daemon.state_dir.token_path()).expect("the token");
    let wrong = get(format!("{prefix}{daemon_token}")).await;
    assert!(
        wrong.starts_with("HTTP/1.1 401"),
        "the daemon's token is not the hand-off's: {wrong}"
    );
    let locked = daemon.call("h", "snapshot", json!({}), None).await;
    assert_eq!(locked["code"], "HANDOFF_LOCKED", "{locked:#}");
    let status = daemon
        .ok("h", "handoff", json!({ "action": "status" }))
        .await;
    assert_eq!(status["data"]["liveView"], url.as_str());
    // A wait the person does not answer in time is named, and the hand-off goes on.
    let waited = daemon
        .call(
            "h",
            "handoff",
            json!({ "action": "wait", "timeoutMs": 300 }),
            None,
        )
        .await;
    assert_eq!(waited["code"], "HANDOFF_TIMEOUT", "{waited:#}");
    let status = daemon
        .ok("h", "handoff", json!({ "action": "status" }))
        .await;
    assert_eq!(status["data"]["mode"], "WAITING_HUMAN");
    // The task's end ends the hand-off: the page is gone with it.
    daemon.ask(|c| c.stop_task("h"), |a| a.body).await;
    let gone = get(url).await;
    assert!(gone.starts_with("HTTP/1.1 401"), "{gone}");
    daemon.shutdown().await;
}

/// A task id names a folder of the state directory (`tasks/<id>`), so one that is not a
/// plain name — `.` and `..` are the folder itself and its parent — is refused by name on
/// every route, before anything is created or removed: stopping task `..` once deleted
/// the whole state directory (token, lock, every kept archive) under a running daemon.
#[tokio::test(flavor = "multi_thread")]
async fn task_ids_that_name_no_folder_of_their_own_are_refused_and_nothing_is_deleted() {
    let server = FixtureServer::start();
    let daemon = Daemon::start().await;
    let body = json!({ "id": "kept", "keepArchive": true });
    let started = daemon.ask(move |c| c.start_task(&body), |a| a.body).await;
    assert_eq!(started["ok"], true, "{started:#}");
    daemon
        .ok(
            "kept",
            "navigate",
            json!({ "url": server.url("page-a.html") }),
        )
        .await;
    daemon
        .ok("kept", "snapshot", json!({ "mode": "text" }))
        .await;
    // A recall runs after the writes queued before it: the archive is on disk.
    daemon.ok("kept", "recall", json!({})).await;
    let root = daemon.state_dir.root().to_path_buf();
    let archive = root.join("tasks/kept").join(tools::ARCHIVE_FILE);
    assert!(archive.exists());

    for id in [".", "..", "a/b"] {
        let body = json!({ "id": id, "keepArchive": false });
        let start = daemon.ask(move |c| c.start_task(&body), |a| a).await;
        assert_eq!(start.status, 400, "start {id:?}: {:#}", start.body);
        assert_eq!(start.body["code"], "INVALID_PARAMS", "{:#}", start.body);
        let stop = daemon.ask(move |c| c.stop_task(id), |a| a).await;
        assert_eq!(stop.status, 400, "stop {id:?}: {:#}", stop.body);
        assert_eq!(stop.body["code"], "INVALID_PARAMS", "{:#}", stop.body);
        let command = daemon
            .ask(
                move |c| c.command(id, "diagnostics", &json!({}), None, false),
                |a| a,
            )
            .await;
        assert_eq!(command.body["code"], "INVALID_PARAMS", "{:#}", command.body);
        let diagnostics = daemon.ask(move |c| c.diagnostics(id, None), |a| a).await;
        assert_eq!(
            diagnostics.body["code"], "INVALID_PARAMS",
            "{:#}",
            diagnostics.body
        );
    }
    assert!(daemon.state_dir.token_path().exists(), "the token is kept");
    assert!(daemon.state_dir.lock_path().exists(), "the lock is kept");
    assert!(archive.exists(), "the kept archive is kept");
    let listed = daemon.ask(|c| c.tasks(), |a| a.body).await;
    assert_eq!(
        listed["data"]["tasks"].as_array().unwrap().len(),
        1,
        "{listed:#}"
    );
    daemon.shutdown().await;
}

/// A page too large to read — a 300 MB attribute, past what one CDP message may carry —
/// fails its own task's snapshot by name (`PAGE_TOO_LARGE`). The browser's connection
/// stays up, so another task in the same browser goes on meanwhile and afterwards with
/// its page and its storage, nothing is relaunched, and the big page's task goes on too.
#[tokio::test(flavor = "multi_thread")]
async fn a_page_too_large_to_read_fails_its_own_snapshot_and_no_other_task_notices() {
    let server = FixtureServer::start();
    // Building 300 MB is one long task of the page's script, seconds long on a loaded
    // machine, which the default probe budget would rightly take for hung; this test is
    // about the read that follows, so the page is given the time it needs.
    let daemon =
        Daemon::start_with(|config| config.engine.unresponsive = Duration::from_secs(60)).await;
    daemon.start_task("calm").await;
    daemon.start_task("huge").await;
    daemon
        .ok(
            "calm",
            "navigate",
            json!({ "url": server.url("storage.html?set=kept") }),
        )
        .await;
    let pid = daemon.state.browser_pid().unwrap();
    let opened = daemon
        .ok(
            "huge",
            "navigate",
            json!({ "url": server.url("hostile/huge-attribute.html") }),
        )
        .await;
    assert_eq!(opened["page"]["title"], "Huge attribute", "{opened:#}");

    let client = daemon.client.clone();
    let huge = tokio::task::spawn_blocking(move || {
        client
            .command("huge", "snapshot", &json!({}), Some(300_000), false)
            .unwrap()
            .body
    });
    daemon.active("huge").await;
    // Meanwhile the other task is served, in the same browser, with its own state.
    daemon
        .ok(
            "calm",
            "navigate",
            json!({ "url": server.url("storage.html") }),
        )
        .await;
    let read = daemon
        .ok("calm", "snapshot", json!({ "mode": "text" }))
        .await;
    assert!(text_of(&read).contains("mark: kept"), "{read:#}");

    let snapshot = tokio::time::timeout(Duration::from_secs(300), huge)
        .await
        .expect("the big page's snapshot to end")
        .unwrap();
    assert_eq!(snapshot["code"], "PAGE_TOO_LARGE", "{snapshot:#}");
    assert!(
        snapshot["message"]
            .as_str()
            .unwrap()
            .contains("DOMSnapshot.captureSnapshot"),
        "{snapshot:#}"
    );
    assert_eq!(snapshot["execution"]["actionStatus"], "not-started");

    // Afterwards: the same browser, the other task's page and storage as they were.
    let after = daemon
        .ok("calm", "snapshot", json!({ "mode": "text" }))
        .await;
    assert!(text_of(&after).contains("mark: kept"), "{after:#}");
    assert!(after["events"].get("recovered").is_none(), "{after:#}");
    assert_eq!(daemon.state.browser_pid(), Some(pid));
    // The big page's task goes on: a bounded read of the same page works.
    let text = daemon
        .ok("huge", "snapshot", json!({ "mode": "text" }))
        .await;
    assert!(
        text_of(&text).contains("A page too large to read"),
        "{text:#}"
    );
    assert!(text["events"].get("recovered").is_none(), "{text:#}");
    daemon.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_started_from_a_saved_state_is_signed_in_and_a_missing_state_starts_nothing() {
    let fixtures = FixtureServer::start();
    let daemon = Daemon::start_with(|config| {
        config.engine.saved_states = tools::SavedStates {
            dir: Some(config.state_dir.join("states")),
            key: Some(tools::StateKey("daemon key".into())),
        };
    })
    .await;
    let started = daemon.start_task("first").await;
    assert_eq!(started["ok"], true, "{started:#}");
    daemon
        .ok(
            "first",
            "navigate",
            json!({ "url": fixtures.url("/account-login.html") }),
        )
        .await;
    daemon
        .ok(
            "first",
            "act",
            json!({ "action": "fill", "selector": "#user", "text": "Ada" }),
        )
        .await;
    daemon
        .ok(
            "first",
            "act",
            json!({ "action": "click", "selector": "button" }),
        )
        .await;
    daemon
        .ok("first", "wait", json!({ "text": "Signed in as Ada" }))
        .await;
    daemon
        .ok("first", "state", json!({ "action": "save", "name": "ada" }))
        .await;
    daemon
        .ask(|c| c.stop_task("first"), |a| assert_eq!(a.body["ok"], true))
        .await;

    let body = json!({ "id": "second", "state": "ada" });
    let started = daemon.ask(move |c| c.start_task(&body), |a| a.body).await;
    assert_eq!(started["ok"], true, "{started:#}");
    assert_eq!(
        started["data"]["state"]["cookies"],
        json!([{ "domain": "127.0.0.1", "count": 1 }]),
        "{started:#}"
    );
    daemon
        .ok(
            "second",
            "navigate",
            json!({ "url": fixtures.url("/account") }),
        )
        .await;
    let read = daemon
        .ok("second", "snapshot", json!({ "mode": "text" }))
        .await;
    assert!(text_of(&read).contains("Signed in as Ada"), "{read:#}");

    // A state that is not there is named, and no task is left started.
    let body = json!({ "id": "third", "state": "nobody" });
    let refused = daemon.ask(move |c| c.start_task(&body), |a| a.body).await;
    assert_eq!(refused["code"], "STATE_NOT_FOUND", "{refused:#}");
    let tasks = daemon.ask(|c| c.tasks(), |a| a.body).await;
    assert!(!tasks.to_string().contains("third"), "{tasks:#}");
}
