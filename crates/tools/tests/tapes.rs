//! Tape replay (docs/faults.md#tapes): recorded sessions of fixture pages played back to the engine
//! with no browser, each compared with the transcript of its recording — the full
//! snapshot text with its refs, codes, URLs, verification and dialogs. These run without
//! Chromium (`CANDOR_CHROMIUM=/nonexistent` changes nothing).
//!
//! `CANDOR_RECORD_TAPES=1 cargo test -p tools --test tapes` records them again against
//! real Chromium and the fixture server, rewriting `fixtures/tapes/`.

// Helpers outside #[test] functions: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::time::Duration;

use browser::{BrowserOptions, Endpoint, LaunchOptions};
use serde_json::{Value, json};
use tools::{Engine, EngineOptions};

/// One step: a method, its params with `{base}` for the fixture server, and its own
/// deadline in ms, if any.
type Step = (&'static str, Value, Option<u64>);

fn tapes_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/tapes")
}

/// What a step's envelope is compared on: everything that does not depend on timing.
fn transcript(method: &str, envelope: &Value) -> Value {
    json!({
        "method": method,
        "ok": envelope["ok"],
        "status": envelope["status"],
        "code": envelope["code"],
        "url": envelope["page"]["url"],
        "snapshotId": envelope["data"]["snapshotId"],
        "text": envelope["data"]["text"],
        "refs": envelope["data"]["refs"],
        "verified": envelope["verification"]["verified"],
        "dialog": envelope["events"]["dialog"],
    })
}

fn with_base(params: &Value, base: &str) -> Value {
    serde_json::from_str(&params.to_string().replace("{base}", base)).unwrap()
}

async fn run_steps(engine: &Engine, steps: &[Step], base: &str) -> Vec<Value> {
    let mut transcripts = Vec::new();
    for (method, params, timeout_ms) in steps {
        let envelope = engine
            .call(
                method,
                with_base(params, base),
                timeout_ms.map(Duration::from_millis),
            )
            .await
            .to_json();
        if envelope["code"] == "BROWSER_UNAVAILABLE" {
            eprintln!("UNAVAILABLE {}", envelope["message"]);
        }
        transcripts.push(transcript(method, &envelope));
    }
    transcripts
}

/// Records the session (with `CANDOR_RECORD_TAPES=1`), then replays its tape with no
/// browser and compares the transcripts.
async fn check(name: &str, steps: &[Step]) {
    let tape = tapes_dir().join(format!("{name}.jsonl"));
    let expected_path = tapes_dir().join(format!("{name}.expected.json"));
    if std::env::var_os("CANDOR_RECORD_TAPES").is_some() {
        record(&tape, &expected_path, steps).await;
    }
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(&expected_path).unwrap()).unwrap();
    let base = expected["base"].as_str().unwrap();
    let engine = Engine::new(EngineOptions {
        browser: BrowserOptions {
            endpoint: Endpoint::Replay(tape.clone()),
            record_cdp: None,
        },
        task_id: "tape".into(),
        ..EngineOptions::default()
    });
    let replayed = run_steps(&engine, steps, base).await;
    engine.shutdown().await;
    let recorded = expected["steps"].as_array().unwrap();
    assert_eq!(replayed.len(), recorded.len());
    for (replayed, recorded) in replayed.iter().zip(recorded) {
        assert_eq!(
            replayed, recorded,
            "{name}: replayed (left) vs recorded (right)"
        );
    }
}

async fn record(tape: &std::path::Path, expected: &std::path::Path, steps: &[Step]) {
    std::fs::create_dir_all(tapes_dir()).unwrap();
    let server = test_support::FixtureServer::start();
    let base = server.url("");
    let base = base.trim_end_matches('/');
    let engine = Engine::new(EngineOptions {
        browser: BrowserOptions {
            endpoint: Endpoint::Launch(LaunchOptions {
                executable: Some(test_support::chromium()),
                ..LaunchOptions::default()
            }),
            record_cdp: Some(tape.to_path_buf()),
        },
        task_id: "tape".into(),
        ..EngineOptions::default()
    });
    let transcripts = run_steps(&engine, steps, base).await;
    engine.shutdown().await;
    let file = json!({ "base": base, "steps": transcripts });
    std::fs::write(
        expected,
        serde_json::to_string_pretty(&file).unwrap() + "\n",
    )
    .unwrap();
}

#[tokio::test]
async fn a_recorded_snapshot_session_replays_to_the_same_text_and_refs() {
    check(
        "snapshot",
        &[
            ("navigate", json!({ "url": "{base}/form.html" }), None),
            ("snapshot", json!({}), None),
            ("snapshot", json!({ "mode": "text" }), None),
        ],
    )
    .await;
}

#[tokio::test]
async fn a_recorded_act_with_expect_replays_verified() {
    check(
        "act-expect",
        &[
            ("navigate", json!({ "url": "{base}/saves.html" }), None),
            ("snapshot", json!({}), None),
            (
                "act",
                json!({ "action": "click", "role": "button", "name": "Save", "nth": 0,
                        "expect": { "text": "Saved profile" } }),
                None,
            ),
            ("snapshot", json!({ "mode": "text" }), None),
        ],
    )
    .await;
}

#[tokio::test]
async fn a_recorded_session_with_frames_replays_their_content() {
    check(
        "frames",
        &[
            ("navigate", json!({ "url": "{base}/frames.html" }), None),
            ("snapshot", json!({}), None),
        ],
    )
    .await;
}

#[tokio::test]
async fn a_recorded_dialog_replays_answered_and_reported() {
    check(
        "dialog",
        &[
            ("navigate", json!({ "url": "{base}/dialogs.html" }), None),
            (
                "act",
                json!({ "action": "click", "selector": "#alert" }),
                None,
            ),
            ("snapshot", json!({ "mode": "text" }), None),
        ],
    )
    .await;
}

#[tokio::test]
async fn a_recorded_navigation_timeout_replays_named() {
    check(
        "fault",
        &[
            ("navigate", json!({ "url": "{base}/second.html" }), None),
            ("navigate", json!({ "url": "{base}/never" }), Some(1500)),
            ("snapshot", json!({ "mode": "text" }), None),
        ],
    )
    .await;
}

#[tokio::test]
async fn a_request_missing_from_the_tape_is_an_error_naming_it() {
    let engine = Engine::new(EngineOptions {
        browser: BrowserOptions {
            endpoint: Endpoint::Replay(tapes_dir().join("snapshot.jsonl")),
            record_cdp: None,
        },
        task_id: "tape".into(),
        ..EngineOptions::default()
    });
    // The tape navigated to form.html; this session asks for another page.
    let envelope = engine
        .call(
            "navigate",
            json!({ "url": "http://127.0.0.1:9/elsewhere.html" }),
            Some(Duration::from_secs(2)),
        )
        .await
        .to_json();
    assert_eq!(envelope["ok"], false, "{envelope:#}");
    let message = envelope["message"].as_str().unwrap();
    assert!(
        message.contains("not on the tape: Page.navigate"),
        "{message}"
    );
    assert!(message.contains("elsewhere.html"), "{message}");
    engine.shutdown().await;
}
