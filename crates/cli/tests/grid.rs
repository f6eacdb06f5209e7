//! candor on shared browser infrastructure, as a service runs it: `candor serve --grid`
//! against a real Selenium Grid 4 standalone server (started here on a free 127.0.0.1
//! port, with Java 17, Debian's chromedriver and Chromium, which `scripts/ensure-grid`
//! installs before the tests run — a test installs nothing, and one that needs a part
//! that is missing fails naming that command), and `candor serve --cdp-endpoint` (twice)
//! against two local Chromiums. Every process a test starts is gone when it ends: each
//! runs with a TMPDIR of the test's own, and no process naming it may be left.

// Helpers outside #[test] functions: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use test_support::FixtureServer;

/// The Grid 4 standalone jar. `scripts/ensure-grid --check` installs nothing: it prints
/// where the jar is, or names each part of the grid that is missing, and then the test
/// fails with one line saying what installs them.
fn grid_jar() -> PathBuf {
    static JAR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let jar = JAR.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let checked = Command::new(root.join("scripts/ensure-grid"))
            .arg("--check")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run scripts/ensure-grid --check: {e}"))?;
        let said = |bytes: &[u8]| String::from_utf8_lossy(bytes).trim().replace('\n', "; ");
        if !checked.status.success() {
            return Err(said(&checked.stderr));
        }
        Ok(PathBuf::from(said(&checked.stdout)))
    });
    match jar {
        Ok(jar) => jar.clone(),
        Err(why) => panic!(
            "the Selenium Grid's parts are missing ({why}): run scripts/ensure-grid to install them"
        ),
    }
}

/// One real grid at a time: two Java grids and their Chromiums starting together on a
/// small machine make each one's queue deadline a race with the other.
fn one_grid_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static GRIDS: std::sync::Mutex<()> = std::sync::Mutex::new(());
    GRIDS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(10)))
        .build()
        .new_agent()
}

fn get_json(url: &str) -> Option<Value> {
    agent().get(url).call().ok()?.body_mut().read_json().ok()
}

/// Waits for `condition` until `limit`, panicking with `what` past it.
fn wait_for(what: &str, limit: Duration, mut condition: impl FnMut() -> bool) {
    let started = Instant::now();
    while !condition() {
        assert!(started.elapsed() < limit, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Processes, other than this one, whose command line or environment names `path`.
fn processes_naming(path: &Path) -> Vec<String> {
    let needle = path.to_string_lossy().into_owned();
    let me = std::process::id().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().filter_map(Result::ok) {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) || pid == me {
            continue;
        }
        let read = |file: &str| std::fs::read(entry.path().join(file)).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&read("cmdline")).replace('\0', " ");
        let environ = String::from_utf8_lossy(&read("environ")).into_owned();
        if cmdline.contains(&needle) || environ.contains(&needle) {
            found.push(format!("{pid}: {cmdline}"));
        }
    }
    found
}

/// Kills the process group `pgid` (a process this test spawned leads it).
fn kill_group(pgid: u32) {
    // SAFETY: kill signals a process group this test created.
    unsafe {
        libc::kill(-(pgid as libc::pid_t), libc::SIGKILL);
    }
}

/// A process this test started, leading a process group of its own, with a TMPDIR of
/// its own that every process it starts inherits.
struct Group {
    child: Child,
    tmp: tempfile::TempDir,
}

impl Group {
    fn spawn(command: &mut Command, tmp: tempfile::TempDir) -> Group {
        let child = command
            .env("TMPDIR", tmp.path())
            .process_group(0)
            .spawn()
            .unwrap();
        Group { child, tmp }
    }

    /// Kills the group and waits until no process naming its TMPDIR is left.
    fn kill(&mut self, what: &str) {
        kill_group(self.child.id());
        let _ = self.child.wait();
        wait_for(what, Duration::from_secs(10), || {
            processes_naming(self.tmp.path()).is_empty()
        });
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        kill_group(self.child.id());
        let _ = self.child.wait();
    }
}

/// A Selenium Grid 4 standalone server on 127.0.0.1.
struct Grid {
    group: Group,
    port: u16,
}

impl Grid {
    /// Starts a grid whose node runs `max_sessions` Chromium sessions at once and
    /// refuses a request that waited `queue_timeout_s` for a slot.
    fn start(max_sessions: u32, queue_timeout_s: u32) -> Grid {
        let jar = grid_jar();
        let tmp = tempfile::tempdir().unwrap();
        let port = free_port();
        let mut java = Command::new("java");
        java.arg(format!("-Djava.io.tmpdir={}", tmp.path().display()))
            .arg("-jar")
            .arg(&jar)
            .arg("standalone")
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--max-sessions", &max_sessions.to_string()])
            .args(["--override-max-sessions", "true"])
            .args(["--session-request-timeout", &queue_timeout_s.to_string()])
            .args(["--session-request-timeout-period", "1"])
            .args(["--selenium-manager", "false", "--tracing", "false"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(tmp.path().join("grid.log")).unwrap());
        let grid = Grid {
            group: Group::spawn(&mut java, tmp),
            port,
        };
        wait_for("the grid is ready", Duration::from_secs(90), || {
            grid.status()
                .is_some_and(|status| status["value"]["ready"] == true)
        });
        grid
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn status(&self) -> Option<Value> {
        get_json(&format!("{}/status", self.url()))
    }

    /// The sessions the grid holds now, as its `/status` lists them.
    fn sessions(&self) -> usize {
        self.session_ids().len()
    }

    /// Waits until the grid's `/status` lists no session. The grid answers a session's
    /// `DELETE` once its node has ended it, and its `/status` follows a moment later
    /// (the node tells the distributor over the grid's event bus): read at once, a slot
    /// can still show the deleted session.
    fn forgets_every_session(&self) {
        wait_for("the grid lists no session", Duration::from_secs(10), || {
            self.sessions() == 0
        });
    }

    fn session_ids(&self) -> Vec<String> {
        let status = self.status().expect("the grid answers /status");
        status["value"]["nodes"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|node| node["slots"].as_array().into_iter().flatten())
            .filter_map(|slot| slot["session"]["sessionId"].as_str().map(str::to_string))
            .collect()
    }

    /// Ends a session from the grid's side, as when its node goes away.
    fn end_session(&self, id: &str) {
        let answer = agent()
            .delete(&format!("{}/session/{id}", self.url()))
            .call()
            .unwrap();
        assert!(answer.status().is_success(), "{}", answer.status());
    }

    /// The new-session requests waiting in the grid's queue.
    fn queued(&self) -> usize {
        get_json(&format!("{}/se/grid/newsessionqueue/queue", self.url()))
            .and_then(|queue| queue["value"].as_array().map(Vec::len))
            .expect("the grid answers for its queue")
    }

    /// Stops the grid and checks that nothing it started (chromedriver, Chromium) is left.
    fn stop(mut self) {
        self.group.kill("the grid's processes are gone");
    }
}

/// `candor serve` with `args`, in a state directory of its own.
struct Daemon {
    child: Child,
    client: daemon::Client,
    tmp: tempfile::TempDir,
}

impl Daemon {
    fn serve(args: &[&str]) -> Daemon {
        let tmp = tempfile::tempdir().unwrap();
        let state = tmp.path().join("state");
        let child = Command::new(env!("CARGO_BIN_EXE_candor"))
            .arg("serve")
            .args(["--port", "0", "--idle-timeout-ms", "0"])
            .args(args)
            .env("CANDOR_STATE_DIR", &state)
            .env("CANDOR_CHROMIUM", test_support::chromium())
            .env("TMPDIR", tmp.path())
            .env_remove("CANDOR_TASK")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(tmp.path().join("daemon.log")).unwrap())
            .spawn()
            .unwrap();
        let state = daemon::StateDir::new(&state);
        let mut client = None;
        wait_for("the daemon serves", Duration::from_secs(20), || {
            client = daemon::Client::from_state(&state)
                .ok()
                .filter(|c| c.health().is_ok_and(|a| a.status == 200));
            client.is_some()
        });
        Daemon {
            child,
            client: client.unwrap(),
            tmp,
        }
    }

    fn start_task(&self, id: &str, timeout_ms: u64) -> Value {
        self.client
            .start_task(&json!({ "id": id, "timeoutMs": timeout_ms }))
            .unwrap()
            .body
    }

    fn start_ok(&self, id: &str, timeout_ms: u64) {
        let started = self.start_task(id, timeout_ms);
        assert_eq!(started["ok"], true, "start {id}: {started:#}");
    }

    /// Starts `task` and opens `url` in it.
    fn start_at(&self, task: &str, timeout_ms: u64, url: &str) {
        self.start_ok(task, timeout_ms);
        self.ok(task, "navigate", json!({ "url": url }));
    }

    /// Starts `task` on a grid whose queue may refuse it while the grid warms up (its first
    /// session can take longer than the queue waits), asking again until it is placed,
    /// then opens `url` in it.
    fn start_at_when_placed(&self, task: &str, url: &str) {
        wait_for("the grid places the task", Duration::from_secs(120), || {
            let started = self.start_task(task, 60_000);
            if started["ok"] != true {
                assert_eq!(started["code"], "GRID_UNAVAILABLE", "{started:#}");
            }
            started["ok"] == true
        });
        self.ok(task, "navigate", json!({ "url": url }));
    }

    /// Each pool endpoint's load and whether it is down, as `GET /v1/tasks` lists them.
    fn endpoint_loads(&self) -> Vec<(u64, bool)> {
        let listed = self.client.tasks().unwrap().body;
        listed["data"]["endpoints"]
            .as_array()
            .unwrap_or_else(|| panic!("no endpoints in {listed:#}"))
            .iter()
            .map(|e| (e["load"].as_u64().unwrap(), !e["down"].is_null()))
            .collect()
    }

    fn call(&self, task: &str, method: &str, params: Value) -> Value {
        self.client
            .command(task, method, &params, None, false)
            .unwrap()
            .body
    }

    fn ok(&self, task: &str, method: &str, params: Value) -> Value {
        let answer = self.call(task, method, params);
        assert_eq!(answer["ok"], true, "{task} {method}: {answer:#}");
        answer
    }

    fn stop_task(&self, task: &str) {
        let stopped = self.client.stop_task(task).unwrap();
        assert_eq!(stopped.body["ok"], true, "stop {task}: {:#}", stopped.body);
    }

    /// SIGTERM, and waits until the daemon is gone with everything it started.
    fn stop(mut self) {
        // SAFETY: kill sends SIGTERM to the daemon this test started.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let _ = self.child.wait();
        wait_for(
            "the daemon's processes are gone",
            Duration::from_secs(10),
            || processes_naming(self.tmp.path()).is_empty(),
        );
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Clicks Submit on page A and expects its text: the action verified.
fn submit_on_page_a(daemon: &Daemon, task: &str) {
    let acted = daemon.ok(
        task,
        "act",
        json!({ "action": "click", "role": "button", "name": "Submit",
                "expect": { "text": "Submitted on A" } }),
    );
    assert_eq!(acted["verification"]["verified"], true, "{acted:#}");
}

#[test]
fn three_tasks_run_at_once_on_a_grid_each_in_its_own_session_and_leave_none_behind() {
    let _grid = one_grid_at_a_time();
    let server = FixtureServer::start();
    let grid = Grid::start(3, 60);
    let daemon = Daemon::serve(&["--grid", &grid.url()]);
    let page = server.url("page-a.html");
    std::thread::scope(|scope| {
        for task in ["g1", "g2", "g3"] {
            let (daemon, page) = (&daemon, &page);
            scope.spawn(move || {
                daemon.start_at(task, 90_000, page);
                submit_on_page_a(daemon, task);
            });
        }
    });
    // One WebDriver session per task, all at once.
    let sessions = grid.session_ids();
    assert_eq!(sessions.len(), 3, "{:#}", grid.status().unwrap());

    // The grid ends one session under its task: that task hears BROWSER_DISCONNECTED
    // once, then goes on in a new session with its tab back; the others never notice.
    grid.end_session(&sessions[0]);
    let mut lost = None;
    wait_for(
        "a task hears its session ended",
        Duration::from_secs(15),
        || {
            for task in ["g1", "g2", "g3"] {
                let answer = daemon.call(task, "tabs", json!({}));
                if answer["ok"] != true {
                    lost = Some((task, answer));
                    return true;
                }
                assert!(answer["events"]["recovered"].is_null(), "{answer:#}");
            }
            false
        },
    );
    let (task, answer) = lost.unwrap();
    assert_eq!(answer["code"], "BROWSER_DISCONNECTED", "{answer:#}");
    let back = daemon.ok(task, "tabs", json!({}));
    assert_eq!(
        back["events"]["recovered"]["tabs"],
        json!([{ "tabId": "tab0", "url": page }]),
        "{back:#}"
    );
    submit_on_page_a(&daemon, task);
    let now = grid.session_ids();
    assert_eq!(now.len(), 3, "{:#}", grid.status().unwrap());
    assert!(!now.contains(&sessions[0]), "{now:?}");

    for task in ["g1", "g2", "g3"] {
        daemon.stop_task(task);
    }
    // Stopping a task deletes its session before it answers.
    grid.forgets_every_session();
    daemon.stop();
    grid.stop();
}

#[test]
fn a_grid_with_its_only_slot_taken_refuses_a_further_task_by_name_within_its_deadline() {
    let _grid = one_grid_at_a_time();
    let server = FixtureServer::start();
    // The grid gives up on a request that waited 10 s for its one slot (a session's
    // creation counts: the first can take seconds on a busy machine).
    let grid = Grid::start(1, 10);
    let daemon = Daemon::serve(&["--grid", &grid.url()]);
    daemon.start_at_when_placed("holder", &server.url("page-a.html"));

    // The grid's own refusal, with its message, within the task's 30 s.
    let started = Instant::now();
    let refused = daemon.start_task("second", 30_000);
    assert!(started.elapsed() < Duration::from_secs(30), "{refused:#}");
    assert_eq!(refused["code"], "GRID_UNAVAILABLE", "{refused:#}");
    assert_eq!(refused["execution"]["retrySafe"], true, "{refused:#}");
    let said = refused["data"]["gridMessage"].as_str().unwrap();
    assert!(said.contains("New session request timed out"), "{said}");

    // A deadline shorter than the grid's queue: candor gives up at its own deadline.
    let started = Instant::now();
    let refused = daemon.start_task("third", 1_000);
    assert!(started.elapsed() < Duration::from_secs(3), "{refused:#}");
    assert_eq!(refused["code"], "GRID_UNAVAILABLE", "{refused:#}");
    let said = refused["data"]["gridMessage"].as_str().unwrap();
    assert!(said.contains("no session within"), "{said}");

    // Only the holder's session exists. Once it ends, the grid may still hand its slot
    // to the request candor withdrew (it waits in the grid's queue for up to 10 s): that
    // late session is deleted as it arrives, so the queue empties and the slot is free.
    assert_eq!(grid.sessions(), 1, "{:#}", grid.status().unwrap());
    daemon.stop_task("holder");
    wait_for(
        "the grid's queue is empty and no session is left",
        Duration::from_secs(30),
        || grid.queued() == 0 && grid.sessions() == 0,
    );
    daemon.start_at_when_placed("later", &server.url("page-a.html"));
    submit_on_page_a(&daemon, "later");
    daemon.stop_task("later");
    grid.forgets_every_session();
    daemon.stop();
    grid.stop();
}

#[test]
fn a_grid_that_is_not_there_or_not_a_grid_is_refused_by_name() {
    let server = FixtureServer::start();
    let closed = format!("http://127.0.0.1:{}", free_port());
    let daemon = Daemon::serve(&["--grid", &closed]);
    let refused = daemon.start_task("t", 10_000);
    assert_eq!(refused["code"], "GRID_UNAVAILABLE", "{refused:#}");
    assert_eq!(refused["data"]["grid"], closed.as_str(), "{refused:#}");
    daemon.stop();

    // The fixture server answers, but not as a WebDriver server.
    let not_a_grid = server.url("");
    let daemon = Daemon::serve(&["--grid", &not_a_grid]);
    let refused = daemon.start_task("t", 10_000);
    assert_eq!(refused["code"], "GRID_SESSION_FAILED", "{refused:#}");
    assert!(
        refused["data"]["gridMessage"]
            .as_str()
            .is_some_and(|m| m.starts_with("HTTP 4")),
        "{refused:#}"
    );
    daemon.stop();
}

/// A local headless Chromium serving CDP on a free port.
struct Endpoint {
    group: Group,
    port: u16,
}

impl Endpoint {
    fn start() -> Endpoint {
        let tmp = tempfile::tempdir().unwrap();
        let profile = tmp.path().join("profile");
        let group = Group::spawn(&mut test_support::chromium_with_port(&profile), tmp);
        Endpoint {
            group,
            port: test_support::devtools_port(&profile),
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The URLs of the pages this browser shows now.
    fn pages(&self) -> Vec<String> {
        get_json(&format!("{}/json/list", self.url()))
            .and_then(|list| list.as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter(|target| target["type"] == "page")
            .filter_map(|target| target["url"].as_str().map(str::to_string))
            .collect()
    }

    /// Kills this Chromium outright and waits until none of its processes is left.
    fn kill(&mut self) {
        self.group.kill("the killed Chromium is gone");
    }
}

#[test]
fn a_task_whose_pool_endpoint_dies_hears_it_once_and_goes_on_at_the_other_endpoint() {
    let server = FixtureServer::start();
    let (page_a, second) = (server.url("page-a.html"), server.url("second.html"));
    let mut first = Endpoint::start();
    let other = Endpoint::start();
    let daemon = Daemon::serve(&[
        "--cdp-endpoint",
        &first.url(),
        "--cdp-endpoint",
        &other.url(),
    ]);
    // Least load: the first task goes to the first endpoint, the second to the other.
    daemon.start_ok("a", 20_000);
    daemon.start_ok("b", 20_000);
    daemon.ok("a", "navigate", json!({ "url": page_a }));
    daemon.ok("b", "navigate", json!({ "url": second }));
    assert!(first.pages().contains(&page_a), "{:?}", first.pages());
    assert!(!first.pages().contains(&second), "{:?}", first.pages());
    assert!(other.pages().contains(&second), "{:?}", other.pages());
    assert_eq!(daemon.endpoint_loads(), [(1, false), (1, false)]);

    first.kill();
    // Task a hears of it once (when the closed connection shows)...
    let started = Instant::now();
    let mut lost = daemon.call("a", "tabs", json!({}));
    while lost["ok"] == true {
        assert!(started.elapsed() < Duration::from_secs(10), "{lost:#}");
        std::thread::sleep(Duration::from_millis(25));
        lost = daemon.call("a", "tabs", json!({}));
    }
    assert_eq!(lost["code"], "BROWSER_DISCONNECTED", "{lost:#}");
    // ...then goes on at the other endpoint with its tab back at its last URL.
    let back = daemon.ok("a", "tabs", json!({}));
    assert_eq!(
        back["events"]["recovered"]["tabs"],
        json!([{ "tabId": "tab0", "url": page_a }]),
        "{back:#}"
    );
    // The dead endpoint is marked down (for 10 s); both tasks now run at the other.
    assert_eq!(daemon.endpoint_loads(), [(0, true), (2, false)]);
    submit_on_page_a(&daemon, "a");
    assert!(other.pages().contains(&page_a), "{:?}", other.pages());
    // Task b never noticed.
    let untouched = daemon.ok("b", "tabs", json!({}));
    assert!(untouched["events"]["recovered"].is_null(), "{untouched:#}");
    daemon.stop_task("a");
    daemon.stop_task("b");
    daemon.stop();
}
