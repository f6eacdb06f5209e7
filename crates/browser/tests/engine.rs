//! Engine behaviour in real Chromium: launch and cleanup, the CDP tape, attaching over
//! a WebSocket, a crashed renderer, what a page whose script never returns still tells,
//! the requests a page may keep waiting, and the browser UI a task must not start.

// Helpers outside #[test] functions: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use browser::{Browser, BrowserOptions, Deadline, Endpoint, Error, LaunchOptions, Task};
use test_support::FixtureServer;

fn launch_options() -> BrowserOptions {
    BrowserOptions {
        endpoint: Endpoint::Launch(LaunchOptions {
            executable: Some(test_support::chromium()),
            ..LaunchOptions::default()
        }),
        record_cdp: None,
    }
}

fn deadline() -> Deadline {
    Deadline::after(Duration::from_secs(30))
}

fn process_exists(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

#[tokio::test]
async fn closing_the_browser_ends_its_process_and_removes_its_profile() {
    let browser = Browser::start(launch_options(), deadline()).await.unwrap();
    let pid = browser.pid().expect("a launched browser has a pid");
    let profile = browser.user_data_dir().expect("and a profile");
    assert!(process_exists(pid));
    assert!(profile.exists());
    browser.close(deadline()).await;
    assert!(!process_exists(pid), "chromium {pid} survived close");
    assert!(!profile.exists(), "{} survived close", profile.display());
}

#[tokio::test]
async fn dropping_the_last_handle_kills_the_browser_too() {
    let browser = Browser::start(launch_options(), deadline()).await.unwrap();
    let pid = browser.pid().unwrap();
    let profile = browser.user_data_dir().unwrap();
    drop(browser);
    assert!(!process_exists(pid), "chromium {pid} survived drop");
    assert!(!profile.exists());
}

/// A browser candor gives up on (its connection closed: a read failed, a peer went
/// silent) is killed at once with its profile, even while tasks still hold it — not left
/// running beside the browser that replaces it.
#[tokio::test]
async fn a_browser_whose_connection_is_given_up_is_killed_while_still_held() {
    let browser = Browser::start(launch_options(), deadline()).await.unwrap();
    let pid = browser.pid().unwrap();
    let profile = browser.user_data_dir().unwrap();
    browser.connection().abandon();
    assert!(!browser.is_connected());
    let started = Instant::now();
    while process_exists(pid) || profile.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "chromium {pid} lives on after its connection was given up (profile there: {})",
            profile.exists()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(browser);
}

#[tokio::test]
async fn a_missing_executable_is_a_launch_error_naming_it() {
    let options = BrowserOptions {
        endpoint: Endpoint::Launch(LaunchOptions {
            executable: Some("/nonexistent/chromium".into()),
            ..LaunchOptions::default()
        }),
        record_cdp: None,
    };
    let err = Browser::start(options, deadline()).await.unwrap_err();
    assert!(matches!(err, Error::Launch { .. }), "{err:?}");
    assert!(err.to_string().contains("/nonexistent/chromium"), "{err}");
}

#[tokio::test]
async fn the_cdp_tape_records_every_message_of_a_run() {
    let server = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    let tape = dir.path().join("run.jsonl");
    let options = BrowserOptions {
        record_cdp: Some(tape.clone()),
        ..launch_options()
    };
    let browser = Browser::start(options, deadline()).await.unwrap();
    let mut task = Task::create(&browser, "tape", deadline()).await.unwrap();
    let (_, tab) = task.open_tab(deadline()).await.unwrap();
    let url = task.check_url(&server.url("second.html")).unwrap();
    tab.navigate(&url, deadline()).await.unwrap();
    // A probe the navigation sent may still be on its way when it returns; the page
    // answers a tab's calls in order, so once this one is answered, so is every earlier
    // one, and closing the browser leaves no command unanswered on the tape.
    tab.evaluate_one(deadline()).await.unwrap();
    browser.close(deadline()).await;

    let text = std::fs::read_to_string(&tape).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    let sent: Vec<_> = lines.iter().filter(|l| l["dir"] == "send").collect();
    let received: Vec<_> = lines.iter().filter(|l| l["dir"] == "recv").collect();
    for method in [
        "Browser.getVersion",
        "Target.createBrowserContext",
        "Target.attachToTarget",
        "Page.navigate",
    ] {
        assert!(
            sent.iter().any(|l| l["msg"]["method"] == method),
            "{method} not recorded"
        );
    }
    // Every command sent has its reply on the tape, and events are there too.
    for command in &sent {
        let id = &command["msg"]["id"];
        assert!(
            received.iter().any(|l| &l["msg"]["id"] == id),
            "no reply to {command}"
        );
    }
    assert!(
        received
            .iter()
            .any(|l| l["msg"]["method"] == "Page.frameNavigated")
    );
    assert!(
        lines
            .windows(2)
            .all(|w| w[0]["ms"].as_f64() <= w[1]["ms"].as_f64())
    );
}

/// Starts a Chromium with a debugging port, the way a user would expose one, and returns
/// it with its `http://127.0.0.1:PORT` endpoint.
async fn chromium_with_port(profile: &Path) -> (std::process::Child, u16) {
    let child = test_support::chromium_with_port(profile).spawn().unwrap();
    (child, test_support::devtools_port(profile))
}

#[tokio::test]
async fn attaching_over_a_websocket_drives_an_existing_browser() {
    let server = FixtureServer::start();
    let profile = tempfile::tempdir().unwrap();
    let (mut chromium, port) = chromium_with_port(profile.path()).await;
    // By name (resolved to an IP before the handshake) through /json/version.
    for endpoint in [
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
    ] {
        let options = BrowserOptions {
            endpoint: Endpoint::Attach(endpoint.clone()),
            record_cdp: None,
        };
        let browser = Browser::start(options, deadline())
            .await
            .unwrap_or_else(|e| panic!("{endpoint}: {e}"));
        assert!(
            browser.pid().is_none(),
            "an attached browser is not ours to kill"
        );
        let mut task = Task::create(&browser, "attached", deadline())
            .await
            .unwrap();
        let (_, tab) = task.open_tab(deadline()).await.unwrap();
        let url = task.check_url(&server.url("second.html")).unwrap();
        tab.navigate(&url, deadline()).await.unwrap();
        let text = tab.read_text(1000, deadline()).await.unwrap();
        assert!(text.text.contains("This is the second page."), "{endpoint}");
        task.close(deadline()).await.unwrap();
        browser.close(deadline()).await;
    }
    // Disconnecting left the browser running.
    assert!(chromium.try_wait().unwrap().is_none());
    chromium.kill().unwrap();
    chromium.wait().unwrap();
}

#[tokio::test]
async fn a_crashed_renderer_is_reported_and_reload_recovers() {
    let server = FixtureServer::start();
    let browser = Browser::start(launch_options(), deadline()).await.unwrap();
    let mut task = Task::create(&browser, "crash", deadline()).await.unwrap();
    let (_, tab) = task.open_tab(deadline()).await.unwrap();
    let url = task.check_url(&server.url("second.html")).unwrap();
    tab.navigate(&url, deadline()).await.unwrap();

    // Page.crash never answers; the crash arrives as an event.
    let _ = tab
        .session()
        .call_raw(
            "Page.crash",
            serde_json::json!({}),
            Deadline::after(Duration::from_millis(200)),
        )
        .await;
    tab.wait_state("the crash", deadline(), Instant::now(), |s| s.crashed)
        .await
        .unwrap();
    let err = tab.read_text(100, deadline()).await.unwrap_err();
    assert!(matches!(err, Error::TargetCrashed { .. }), "{err:?}");
    assert!(task.list()[0].state.crashed);

    tab.reload(false, deadline()).await.unwrap();
    assert!(!tab.state().crashed);
    let text = tab.read_text(1000, deadline()).await.unwrap();
    assert!(text.text.contains("This is the second page."));
    browser.close(deadline()).await;
}

#[tokio::test]
async fn a_page_that_cannot_run_script_is_unverified_not_timed_out() {
    let server = FixtureServer::start();
    let browser = Browser::start(launch_options(), deadline()).await.unwrap();
    let mut task = Task::create(&browser, "hung", deadline()).await.unwrap();
    let (_, tab) = task.open_tab(deadline()).await.unwrap();
    let url = task.check_url(&server.url("second.html")).unwrap();
    tab.navigate(&url, deadline()).await.unwrap();
    assert!(!tab.state().unverified);

    // Occupy the page's only thread for good; this evaluation never answers.
    let _ = tab
        .session()
        .call_raw(
            "Runtime.evaluate",
            serde_json::json!({ "expression": "for (;;) {}" }),
            Deadline::after(Duration::from_millis(100)),
        )
        .await;
    let started = Instant::now();
    let err = tab
        .read_text(100, Deadline::after(Duration::from_secs(2)))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::PageUnverified { .. }), "{err:?}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "the read left time to report"
    );
    assert!(tab.state().unverified);
    assert!(!tab.state().crashed);
    assert!(task.list()[0].state.unverified);
    browser.close(deadline()).await;
}

/// The main thread's CPU time of `tab`'s page, in seconds, as the probe reads it.
async fn thread_time(tab: &browser::Tab) -> f64 {
    let metrics = tab
        .session()
        .call_raw(
            "Performance.getMetrics",
            serde_json::json!({}),
            Deadline::after(Duration::from_secs(10)),
        )
        .await
        .unwrap();
    metrics["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "ThreadTime")
        .and_then(|m| m["value"].as_f64())
        .unwrap_or_else(|| panic!("no ThreadTime in {metrics}"))
}

#[tokio::test]
async fn a_page_whose_script_never_returns_still_tells_its_cpu_time_and_it_advances() {
    // The probe's evidence of a hang (`probe.rs`): Chromium answers Performance.getMetrics
    // at a V8 interrupt, so a page spinning in script gives the CPU time it keeps running,
    // while a probe waits behind that script.
    let server = FixtureServer::start();
    let browser = Browser::start(launch_options(), deadline()).await.unwrap();
    let mut task = Task::create(&browser, "spin", deadline()).await.unwrap();
    let (_, tab) = task.open_tab(deadline()).await.unwrap();
    let url = task.check_url(&server.url("second.html")).unwrap();
    tab.navigate(&url, deadline()).await.unwrap();

    let _ = tab
        .session()
        .call_raw(
            "Runtime.evaluate",
            serde_json::json!({ "expression": "for (;;) {}" }),
            Deadline::after(Duration::from_millis(100)),
        )
        .await;
    let first = thread_time(&tab).await;
    let started = Instant::now();
    while thread_time(&tab).await - first < 0.1 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the spinning page's CPU time did not advance"
        );
    }
    let probe = tab
        .session()
        .call_raw(
            "Runtime.evaluate",
            serde_json::json!({ "expression": "0" }),
            Deadline::after(Duration::from_millis(200)),
        )
        .await;
    assert!(probe.is_err(), "the spinning page answered {probe:?}");
    browser.close(deadline()).await;
}

/// The page's text once it contains `needle` (bounded: the page is expected to get there).
async fn text_until(tab: &browser::Tab, needle: &str) -> String {
    let started = Instant::now();
    loop {
        let text = tab.read_text(1000, deadline()).await.unwrap().text;
        if text.contains(needle) {
            return text;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the page never said {needle:?}: {text:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// During a hand-off a page's permission requests wait for the person — at most 20 at a
/// time: a page asking 50 times gets 30 answers (denied) at once, the person the first
/// request, and the rest their answers when the hand-off ends.
#[tokio::test]
async fn a_page_asking_for_permissions_in_a_flood_keeps_only_a_few_waiting() {
    let server = FixtureServer::start();
    let browser = Browser::start(launch_options(), deadline()).await.unwrap();
    let mut task = Task::create(&browser, "flood", deadline()).await.unwrap();
    task.hold_permissions(deadline()).await.unwrap();
    let (_, tab) = task.open_tab(deadline()).await.unwrap();
    let url = task
        .check_url(&server.url("hostile/permission-flood.html"))
        .unwrap();
    tab.navigate(&url, deadline()).await.unwrap();
    text_until(&tab, "Answered: 30").await;
    let waiting = task.pending_permission().expect("a request waits");
    assert_eq!(waiting.permission, "notifications");
    task.release_permissions(deadline()).await.unwrap();
    text_until(&tab, "Answered: 50").await;
    browser.close(deadline()).await;
}

/// The processes below `root`, by `/proc`'s parent links.
fn process_tree(root: u32) -> Vec<u32> {
    let mut parents = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let after_name = &stat[stat.rfind(')').unwrap() + 1..];
        let parent: u32 = after_name
            .split_whitespace()
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        parents.push((pid, parent));
    }
    let mut tree = vec![root];
    let mut next = 0;
    while next < tree.len() {
        let of = tree[next];
        tree.extend(
            parents
                .iter()
                .filter(|(_, p)| *p == of)
                .map(|(pid, _)| *pid),
        );
        next += 1;
    }
    tree
}

/// Each task is a browser context with a window of its own; Chromium would preload the
/// omnibox popup's WebUI for each window, a renderer per task that spends CPU while the
/// task's tab sits idle. A driven browser runs none (docs/faces.md#tasks).
#[tokio::test]
async fn tasks_start_no_browser_ui_renderers() {
    let server = FixtureServer::start();
    let browser = Browser::start(launch_options(), deadline()).await.unwrap();
    let pid = browser.pid().unwrap();
    let mut tasks = Vec::new();
    let mut tabs = Vec::new();
    for name in ["ui-a", "ui-b", "ui-c"] {
        let mut task = Task::create(&browser, name, deadline()).await.unwrap();
        let (_, tab) = task.open_tab(deadline()).await.unwrap();
        let url = task.check_url(&server.url("second.html")).unwrap();
        tab.navigate(&url, deadline()).await.unwrap();
        tab.read_text(100, deadline()).await.unwrap();
        tasks.push(task);
        tabs.push(tab);
    }
    // Every target of the browser, the browser's own UI included.
    let listed = tabs[0]
        .session()
        .call_raw(
            "Target.getTargets",
            serde_json::json!({ "filter": [{}] }),
            deadline(),
        )
        .await
        .unwrap();
    let kinds: Vec<String> = listed["targetInfos"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| format!("{} {}", t["type"], t["url"]))
        .collect();
    assert!(
        kinds.iter().all(|k| !k.starts_with("\"browser_ui\"")),
        "{kinds:#?}"
    );
    let webui: Vec<u32> = process_tree(pid)
        .into_iter()
        .filter(|p| {
            std::fs::read(format!("/proc/{p}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains("--top-chrome-webui"))
        })
        .collect();
    assert!(webui.is_empty(), "browser UI renderers: {webui:?}");
    browser.close(deadline()).await;
}

/// A tab candor opened and closed is not a page the browser opened for the task: once
/// its handle is gone and the browser's tab list forgot it, the next adoption of new
/// tabs (each click asks for one) finds nothing, instead of failing to attach to it.
#[tokio::test]
async fn a_tab_opened_and_closed_is_never_adopted_as_a_page_the_browser_opened() {
    let browser = Browser::start(launch_options(), deadline()).await.unwrap();
    let mut task = Task::create(&browser, "closed", deadline()).await.unwrap();
    let (_, first) = task.open_tab(deadline()).await.unwrap();
    let (opened, tab) = task.open_tab(deadline()).await.unwrap();
    drop(tab);
    let closed = task
        .close_tabs(&[opened.to_string()], deadline())
        .await
        .unwrap();
    assert_eq!(closed.closed, vec![opened]);
    // Opening another tab makes the browser forget the closed one's handle.
    let (_, _third) = task.open_tab(deadline()).await.unwrap();
    let adopted = task.adopt_new_tabs(false, deadline()).await.unwrap();
    assert!(
        adopted.is_empty(),
        "adopted {:?}",
        adopted.iter().map(|(id, _)| id).collect::<Vec<_>>()
    );
    drop(first);
    browser.close(deadline()).await;
}
