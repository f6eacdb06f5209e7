//! Persistent profiles and per-task proxies through the daemon, end to end: a real server
//! on 127.0.0.1:0, the typed client over a real socket, real headless Chromium, fixture
//! pages served on 127.0.0.1 and a forwarding proxy of the test's own
//! (`test_support::ForwardProxy`) that checks `Proxy-Authorization`.

// Helpers outside #[test] functions: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::future::Future;
use std::time::{Duration, Instant};

use browser::{BrowserOptions, Endpoint, LaunchOptions};
use daemon::{Client, DaemonConfig, Server};
use serde_json::{Value, json};
use test_support::{FixtureServer, ForwardProxy};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The bound on any one step; a hung daemon fails the test instead of hanging it.
const STEP: Duration = Duration::from_secs(60);

struct Daemon {
    client: Client,
    stop: Option<oneshot::Sender<()>>,
    served: Option<JoinHandle<Result<(), daemon::Error>>>,
    dir: tempfile::TempDir,
}

impl Daemon {
    async fn start() -> Daemon {
        Self::recording(None).await
    }

    /// A daemon whose browser's CDP traffic is written to the tape `record` names (a
    /// file name in the daemon's folder).
    async fn recording(record: Option<&str>) -> Daemon {
        let dir = tempfile::tempdir().unwrap();
        let config = DaemonConfig {
            state_dir: dir.path().join("state"),
            port: 0,
            engine: tools::EngineOptions {
                browser: BrowserOptions {
                    endpoint: Endpoint::Launch(LaunchOptions {
                        executable: Some(test_support::chromium()),
                        ..LaunchOptions::default()
                    }),
                    record_cdp: record.map(|name| dir.path().join(name)),
                },
                command_timeout: Duration::from_secs(30),
                enable_eval: true,
                ..tools::EngineOptions::default()
            },
            idle_timeout: None,
            display_available: false,
        };
        let state_dir = daemon::StateDir::new(config.state_dir.clone());
        let server = Server::bind(config).await.unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let served = tokio::spawn(server.run(async {
            let _ = stopped.await;
        }));
        Daemon {
            client: Client::from_state(&state_dir).unwrap(),
            stop: Some(stop),
            served: Some(served),
            dir,
        }
    }

    /// Runs a blocking client call off the runtime; the answer's body.
    async fn ask(
        &self,
        call: impl FnOnce(&Client) -> Result<daemon::Answer, daemon::Error> + Send + 'static,
    ) -> Value {
        let client = self.client.clone();
        within(
            "a daemon call",
            tokio::task::spawn_blocking(move || call(&client).unwrap().body),
        )
        .await
        .unwrap()
    }

    async fn start_task(&self, body: Value) -> Value {
        self.ask(move |c| c.start_task(&body)).await
    }

    async fn stop_task(&self, task: &str) -> Value {
        let task = task.to_string();
        self.ask(move |c| c.stop_task(&task)).await
    }

    async fn call(&self, task: &str, method: &str, params: Value) -> Value {
        let (task, method) = (task.to_string(), method.to_string());
        self.ask(move |c| c.command(&task, &method, &params, None, false))
            .await
    }

    async fn ok(&self, task: &str, method: &str, params: Value) -> Value {
        let envelope = self.call(task, method, params.clone()).await;
        assert_eq!(envelope["ok"], true, "{method} {params}: {envelope:#}");
        envelope
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

/// A task's proxy on the test's proxy; `<-loopback>` sends the fixture's 127.0.0.1
/// through it (Chromium 156 never proxies loopback otherwise).
fn proxied(proxy: &ForwardProxy, password: &str) -> Value {
    json!({
        "server": proxy.url(),
        "bypass": "<-loopback>",
        "username": "ann",
        "password": password,
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tasks_requests_go_through_its_proxy_with_its_credentials_and_other_tasks_do_not() {
    let fixtures = FixtureServer::start();
    let proxy = ForwardProxy::start(Some(("ann", "hunter2")));
    let daemon = Daemon::recording(Some("tape.jsonl")).await;
    let started = daemon
        .start_task(json!({ "id": "via", "proxy": proxied(&proxy, "hunter2") }))
        .await;
    assert_eq!(started["ok"], true, "{started:#}");
    daemon.start_task(json!({ "id": "direct" })).await;

    let page = fixtures.url("/article.html");
    let opened = daemon.ok("via", "navigate", json!({ "url": page })).await;
    assert_eq!(opened["page"]["url"], page, "{opened:#}");
    assert!(proxy.forwarded().contains(&page), "{:?}", proxy.forwarded());
    // Challenged once, answered once: later requests carry what the browser learned.
    assert_eq!(proxy.challenges_of(&page), 1);

    let other = fixtures.url("/form.html");
    daemon
        .ok("direct", "navigate", json!({ "url": other }))
        .await;
    assert!(
        !proxy.forwarded().contains(&other),
        "{:?}",
        proxy.forwarded()
    );

    // The password is nowhere the daemon answers with.
    for task in ["via", "direct"] {
        let task = task.to_string();
        let diagnostics = daemon.ask(move |c| c.diagnostics(&task, None)).await;
        assert!(!diagnostics.to_string().contains("hunter2"));
    }
    let tasks = daemon.ask(|c| c.tasks()).await;
    assert!(!tasks.to_string().contains("hunter2"));
    // Nor in the tape of what passed through the browser, which holds the answer.
    let tape = std::fs::read_to_string(daemon.dir.path().join("tape.jsonl")).unwrap();
    assert!(
        tape.contains("Fetch.continueWithAuth"),
        "the answer is recorded"
    );
    assert!(tape.contains("ProvideCredentials"));
    assert!(!tape.contains("hunter2"), "the password is in the tape");
    // Only the proxied task's one tab held its requests: the other task paid nothing.
    let enabled = tape
        .lines()
        .filter(|line| line.contains("\"dir\":\"send\"") && line.contains("\"Fetch.enable\""))
        .count();
    assert_eq!(enabled, 1, "{tape}");
    daemon.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_proxy_password_is_proxy_auth_failed_and_the_challenge_is_answered_only_once() {
    let fixtures = FixtureServer::start();
    let proxy = ForwardProxy::start(Some(("ann", "hunter2")));
    let daemon = Daemon::start().await;
    daemon
        .start_task(json!({ "id": "t", "proxy": proxied(&proxy, "wrong") }))
        .await;
    let page = fixtures.url("/article.html");
    let failed = daemon.call("t", "navigate", json!({ "url": page })).await;
    assert_eq!(failed["code"], "PROXY_AUTH_FAILED", "{failed:#}");
    assert_eq!(failed["data"]["proxy"], proxy.url(), "{failed:#}");
    let message = failed["message"].as_str().unwrap_or_default();
    assert!(message.contains(&proxy.url()), "{message}");
    assert!(!failed.to_string().contains("wrong"), "{failed:#}");
    // Asked without credentials, then with the wrong ones: never again in a loop.
    assert_eq!(proxy.challenges_of(&page), 2);
    assert!(proxy.forwarded().is_empty(), "{:?}", proxy.forwarded());
    daemon.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_proxy_that_cannot_be_reached_is_navigation_failed_naming_it() {
    let fixtures = FixtureServer::start();
    let daemon = Daemon::start().await;
    // Port 1: nothing listens there (candor's launcher allows it).
    let server = "http://127.0.0.1:1";
    daemon
        .start_task(json!({ "id": "t", "proxy": { "server": server, "bypass": "<-loopback>" } }))
        .await;
    let failed = daemon
        .call(
            "t",
            "navigate",
            json!({ "url": fixtures.url("/article.html") }),
        )
        .await;
    assert_eq!(failed["code"], "NAVIGATION_FAILED", "{failed:#}");
    assert_eq!(failed["data"]["proxy"], server, "{failed:#}");
    let message = failed["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("through the proxy http://127.0.0.1:1"),
        "{message}"
    );
    daemon.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_task_on_a_held_profile_is_profile_in_use_at_once_naming_the_holder() {
    let daemon = Daemon::start().await;
    let profile = daemon.dir.path().join("profile");
    let first = daemon
        .start_task(json!({ "id": "first", "profile": profile }))
        .await;
    assert_eq!(first["ok"], true, "{first:#}");

    let asked = Instant::now();
    let second = daemon
        .start_task(json!({ "id": "second", "profile": profile }))
        .await;
    // Refused before anything is launched or waited for: a hang would run to the
    // command's deadline (30 s). How quickly is a figure, printed rather than asserted
    // (a loaded machine delays any answer).
    let elapsed = asked.elapsed();
    eprintln!("PROFILE_IN_USE answered in {elapsed:?}");
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    assert_eq!(second["code"], "PROFILE_IN_USE", "{second:#}");
    let message = second["message"].as_str().unwrap_or_default();
    assert!(message.contains("task first"), "{message}");

    // Once the first lets go, the profile is free again.
    daemon.stop_task("first").await;
    let third = daemon
        .start_task(json!({ "id": "third", "profile": profile }))
        .await;
    assert_eq!(third["ok"], true, "{third:#}");
    daemon.stop_task("third").await;

    // Another process's hold (here this one's own, through another open of the lock).
    let held = browser::ProfileLock::acquire(&profile, "task elsewhere").unwrap();
    let refused = daemon
        .start_task(json!({ "id": "fourth", "profile": profile }))
        .await;
    assert_eq!(refused["code"], "PROFILE_IN_USE", "{refused:#}");
    assert_eq!(
        refused["data"]["holder"]
            .as_str()
            .map(|h| h.starts_with("task elsewhere")),
        Some(true),
        "{refused:#}"
    );
    drop(held);
    daemon.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_profiles_cookie_and_local_storage_last_from_one_run_to_the_next() {
    let fixtures = FixtureServer::start();
    let daemon = Daemon::start().await;
    let profile = daemon.dir.path().join("profile");
    let page = fixtures.url("/article.html");
    let read = "document.cookie + '|' + localStorage.getItem('kept')";

    daemon
        .start_task(json!({ "id": "run1", "profile": profile }))
        .await;
    daemon.ok("run1", "navigate", json!({ "url": page })).await;
    let before = daemon
        .ok("run1", "eval", json!({ "expression": read }))
        .await;
    assert_eq!(before["data"]["value"], "|null", "{before:#}");
    daemon
        .ok(
            "run1",
            "eval",
            json!({ "expression": "document.cookie = 'kept=yes; max-age=3600'; localStorage.setItem('kept', 'also'); 1" }),
        )
        .await;
    let stopped = daemon.stop_task("run1").await;
    assert_eq!(stopped["ok"], true, "{stopped:#}");

    daemon
        .start_task(json!({ "id": "run2", "profile": profile }))
        .await;
    daemon.ok("run2", "navigate", json!({ "url": page })).await;
    let after = daemon
        .ok("run2", "eval", json!({ "expression": read }))
        .await;
    assert_eq!(after["data"]["value"], "kept=yes|also", "{after:#}");

    // A task without the profile sees neither.
    daemon.start_task(json!({ "id": "fresh" })).await;
    daemon.ok("fresh", "navigate", json!({ "url": page })).await;
    let fresh = daemon
        .ok("fresh", "eval", json!({ "expression": read }))
        .await;
    assert_eq!(fresh["data"]["value"], "|null", "{fresh:#}");
    daemon.shutdown().await;
}
