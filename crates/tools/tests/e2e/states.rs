//! Saved states (`state`): a sign-in saved from one task and loaded into another, on
//! the fixture account site (`fixtures/account-login.html`, `/account`: signed in only
//! with its HttpOnly cookie and its localStorage value both present).

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use serde_json::{Value, json};
use tools::{Engine, EngineOptions, SavedStates, StateKey};

use crate::harness::{Harness, conforms};

/// The folder holding `file`.
fn dir_of(file: &Path) -> &Path {
    file.parent().unwrap()
}

fn options(dir: &Path, key: Option<&str>) -> impl FnOnce(&mut EngineOptions) {
    let states = SavedStates {
        dir: Some(dir.join("states")),
        key: key.map(|k| StateKey(k.to_string())),
    };
    move |options| options.saved_states = states
}

/// Another task's engine like `first`'s (a browser of its own, started on first use),
/// its states opened with `key`.
fn engine(first: &EngineOptions, task: &str, key: Option<&str>) -> Engine {
    let mut options = first.clone();
    options.task_id = task.into();
    options.saved_states.key = key.map(|k| StateKey(k.to_string()));
    Engine::new(options)
}

async fn call(engine: &Engine, method: &str, params: Value) -> Value {
    let envelope = engine.call(method, params, None).await.to_json();
    conforms(method, &envelope);
    envelope
}

async fn ok(engine: &Engine, method: &str, params: Value) -> Value {
    let envelope = call(engine, method, params.clone()).await;
    assert_eq!(envelope["ok"], true, "{method} {params}: {envelope:#}");
    envelope
}

async fn refused(engine: &Engine, params: Value, code: &str) -> Value {
    let envelope = call(engine, "state", params.clone()).await;
    assert_eq!(envelope["code"], code, "{params}: {envelope:#}");
    assert_eq!(envelope["execution"]["actionStatus"], "not-started");
    envelope
}

#[tokio::test]
async fn a_sign_in_saved_from_one_task_signs_in_a_new_task_loaded_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let tapes = [
        dir.path().join("first.jsonl"),
        dir.path().join("second.jsonl"),
    ];
    let tape = tapes[0].clone();
    let h = Harness::with(move |o| {
        options(dir_of(&tape), Some("correct horse battery"))(o);
        o.browser.record_cdp = Some(tape);
    });
    h.ok("navigate", json!({ "url": h.url("/account-login.html") }))
        .await;
    h.ok(
        "act",
        json!({ "action": "fill", "selector": "#user", "text": "Grace" }),
    )
    .await;
    h.ok("act", json!({ "action": "click", "selector": "button" }))
        .await;
    h.ok("wait", json!({ "text": "Signed in as Grace" })).await;

    let saved = h
        .ok("state", json!({ "action": "save", "name": "account" }))
        .await;
    let data = &saved["data"];
    assert_eq!(data["encrypted"], true, "{data:#}");
    assert_eq!(
        data["cookies"],
        json!([{ "domain": "127.0.0.1", "count": 1 }]),
        "{data:#}"
    );
    let origin = h.url("/").trim_end_matches('/').to_string();
    assert_eq!(
        data["origins"],
        json!([{ "origin": origin, "local": 1, "session": 1 }]),
        "{data:#}"
    );
    // The file and its folder are the user's alone, and hold no value in clear.
    let path = Path::new(data["path"].as_str().unwrap());
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(path), 0o600);
    assert_eq!(mode(&dir.path().join("states")), 0o700);
    let bytes = std::fs::read(path).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    for secret in [test_support::ACCOUNT_COOKIE, "Grace", "signed-in"] {
        assert!(!text.contains(secret), "{secret} is in the file: {text}");
    }
    // The journal keeps the call's method and outcome, never its params.
    let journal = h.ok("diagnostics", json!({})).await.to_string();
    assert!(journal.contains("[sensitive]"), "{journal}");
    assert!(!journal.contains(test_support::ACCOUNT_COOKIE));
    let first = h.engine.options().clone();
    h.engine.shutdown().await;

    // A new task (a browser of its own) from the state: signed in.
    let mut taped = first.clone();
    taped.browser.record_cdp = Some(tapes[1].clone());
    let second = engine(&taped, "second", Some("correct horse battery"));
    let loaded = ok(
        &second,
        "state",
        json!({ "action": "load", "name": "account" }),
    )
    .await;
    let data = &loaded["data"];
    assert_eq!(data["encrypted"], true, "{data:#}");
    assert_eq!(
        data["cookies"],
        json!([{ "domain": "127.0.0.1", "count": 1 }])
    );
    // No tab showed the origin: localStorage went through a blank page of it, the
    // sessionStorage (a tab's own) is said not to be set.
    assert_eq!(
        data["origins"],
        json!([{ "origin": origin, "local": 1, "session": 0, "sessionNotSet": 1 }]),
        "{data:#}"
    );
    ok(&second, "navigate", json!({ "url": h.url("/account") })).await;
    let text = ok(&second, "snapshot", json!({ "mode": "text" })).await;
    assert!(text.to_string().contains("Signed in as Grace"), "{text:#}");
    // Loaded again into the tab that shows the origin: both storages set there.
    let again = ok(
        &second,
        "state",
        json!({ "action": "load", "name": "account" }),
    )
    .await;
    assert_eq!(
        again["data"]["origins"],
        json!([{ "origin": origin, "local": 1, "session": 1, "tabId": "tab0" }]),
        "{again:#}"
    );
    second.shutdown().await;
    // The tapes of both tasks saw the cookie and the storage pass, and kept neither.
    for tape in &tapes {
        let text = std::fs::read_to_string(tape).unwrap();
        assert!(text.contains("Storage."), "{}", tape.display());
        assert!(text.contains("secretItems"), "{}", tape.display());
        assert!(
            !text.contains(test_support::ACCOUNT_COOKIE),
            "{}",
            tape.display()
        );
        assert!(
            text.lines()
                .any(|l| l.contains("secretItems") && l.contains(browser::REDACTED)),
            "{}",
            tape.display()
        );
        for line in text.lines().filter(|l| l.contains("secretItems")) {
            assert!(!line.contains("signed-in"), "{line}");
            assert!(!line.contains("\"Grace\""), "{line}");
        }
    }

    // A wrong key, or none, is refused by name and sets nothing.
    let wrong = engine(&first, "wrong", Some("wrong horse"));
    let refusal = refused(
        &wrong,
        json!({ "action": "load", "name": "account" }),
        "STATE_KEY_MISMATCH",
    )
    .await;
    assert!(!refusal.to_string().contains(test_support::ACCOUNT_COOKIE));
    wrong.shutdown().await;
    let keyless = engine(&first, "keyless", None);
    refused(
        &keyless,
        json!({ "action": "load", "name": "account" }),
        "STATE_KEY_MISSING",
    )
    .await;
    keyless.shutdown().await;
    drop(h.server);
}

#[tokio::test]
async fn states_are_listed_and_deleted_by_name_and_a_bad_or_missing_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let h = Harness::with(options(dir.path(), None));
    h.ok(
        "navigate",
        json!({ "url": h.url("/storage.html?set=blue") }),
    )
    .await;
    let saved = h
        .ok("state", json!({ "action": "save", "name": "plain" }))
        .await;
    assert_eq!(saved["data"]["encrypted"], false);
    // Unsealed, the values are in the file (that is what a key is for).
    let path = saved["data"]["path"].as_str().unwrap().to_string();
    assert!(std::fs::read_to_string(&path).unwrap().contains("blue"));
    let listed = h.ok("state", json!({ "action": "list" })).await;
    let states = listed["data"]["states"].as_array().unwrap();
    assert_eq!(states.len(), 1, "{listed:#}");
    assert_eq!(states[0]["name"], "plain");
    assert_eq!(states[0]["encrypted"], false);
    h.ok("state", json!({ "action": "delete", "name": "plain" }))
        .await;
    assert!(!Path::new(&path).exists());
    let listed = h.ok("state", json!({ "action": "list" })).await;
    assert_eq!(listed["data"]["states"], json!([]));
    for action in ["load", "delete"] {
        h.refused(
            "state",
            json!({ "action": action, "name": "plain" }),
            "STATE_NOT_FOUND",
        )
        .await;
    }
    for name in ["../plain", "a/b", "..", ".hidden", ""] {
        h.refused(
            "state",
            json!({ "action": "save", "name": name }),
            "INVALID_PARAMS",
        )
        .await;
    }
    h.refused("state", json!({ "action": "save" }), "INVALID_PARAMS")
        .await;
    h.shutdown().await;
}
