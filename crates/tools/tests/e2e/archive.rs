//! The task's archive and `recall` (docs/faces.md#archive): every observation kept, listed
//! with paging, read back by character windows that reassemble the exact text, searched
//! with FTS5; it survives a killed browser, holds no typed password, and goes with the
//! task unless kept.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::harness::Harness;

/// The text of observation `id`, read back in windows of `limit` characters.
async fn reassemble(h: &Harness, id: &str, limit: usize) -> String {
    let mut text = String::new();
    let mut offset = 0;
    loop {
        let window = h
            .ok(
                "recall",
                json!({ "observationId": id, "offset": offset, "limit": limit }),
            )
            .await;
        let data = &window["data"];
        let part = data["text"].as_str().unwrap();
        assert!(part.chars().count() <= limit, "{window:#}");
        text.push_str(part);
        // What came from the page is fenced: the text and the title.
        let fenced = window["untrusted"].as_array().unwrap();
        assert!(fenced.contains(&json!("/data/text")), "{window:#}");
        match data["nextOffset"].as_u64() {
            Some(next) => {
                assert_eq!(next as usize, offset + limit, "{window:#}");
                offset = next as usize;
            }
            None => {
                assert!(data["nextOffset"].is_null(), "{window:#}");
                return text;
            }
        }
    }
}

/// Every observation listed, newest first, `page` at a time.
async fn list_all(h: &Harness, page: usize) -> Vec<Value> {
    let mut all = Vec::new();
    let mut offset = 0;
    loop {
        let listed = h
            .ok(
                "recall",
                json!({ "mode": "bundles", "offset": offset, "limit": page }),
            )
            .await;
        let data = &listed["data"];
        let observations = data["observations"].as_array().unwrap();
        assert!(observations.len() <= page, "{listed:#}");
        all.extend(observations.iter().cloned());
        match data["nextOffset"].as_u64() {
            Some(next) => offset = next as usize,
            None => {
                assert_eq!(data["total"], all.len(), "{listed:#}");
                return all;
            }
        }
    }
}

/// One observation of `tab`: a snapshot in one of the modes, by turn.
async fn observe(h: &Harness, n: usize, tab: &str) -> (String, String) {
    let mode = ["text", "elements", "markdown", "html"][n % 4];
    let read = h
        .ok("snapshot", json!({ "mode": mode, "tabId": tab }))
        .await;
    let id = read["data"]["snapshotId"]
        .as_str()
        .unwrap_or_else(|| read["execution"]["commandId"].as_str().unwrap())
        .to_string();
    (id, read["data"]["text"].as_str().unwrap().to_string())
}

#[tokio::test]
async fn fifty_observations_on_two_tabs_are_listed_recalled_exactly_and_searched() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("page-a.html") }))
        .await;
    h.ok(
        "tabs",
        json!({ "action": "new", "url": h.url("unicode.html") }),
    )
    .await;
    let mut seen: Vec<(String, String, String)> = Vec::new();
    for n in 0..9 {
        let tab = if n % 2 == 0 { "tab0" } else { "tab1" };
        let (id, text) = observe(&h, n, tab).await;
        seen.push((id, tab.to_string(), text));
    }
    // The tenth: a long article, read whole, then left.
    h.ok(
        "navigate",
        json!({ "url": h.url("article.html"), "tabId": "tab0" }),
    )
    .await;
    let article = h
        .ok(
            "snapshot",
            json!({ "mode": "text", "maxChars": 200000, "tabId": "tab0" }),
        )
        .await;
    let article_id = article["execution"]["commandId"]
        .as_str()
        .unwrap()
        .to_string();
    let article_text = article["data"]["text"].as_str().unwrap().to_string();
    assert!(article_text.chars().count() > 20_000);
    seen.push((article_id.clone(), "tab0".into(), article_text.clone()));
    h.ok(
        "navigate",
        json!({ "url": h.url("page-a.html"), "tabId": "tab0" }),
    )
    .await;
    for n in 10..50 {
        let tab = if n % 2 == 0 { "tab0" } else { "tab1" };
        let (id, text) = observe(&h, n, tab).await;
        seen.push((id, tab.to_string(), text));
    }
    assert_eq!(seen.len(), 50);

    // Listed newest first, in pages, every one of them, on both tabs.
    let listed = list_all(&h, 7).await;
    assert_eq!(listed.len(), 50);
    let ids: Vec<&str> = listed.iter().map(|o| o["id"].as_str().unwrap()).collect();
    let expected: Vec<&str> = seen.iter().rev().map(|(id, _, _)| id.as_str()).collect();
    assert_eq!(ids, expected);
    for (listed, (_, tab, text)) in listed.iter().zip(seen.iter().rev()) {
        assert_eq!(listed["tabId"], tab.as_str(), "{listed:#}");
        assert_eq!(listed["chars"], text.chars().count(), "{listed:#}");
        assert!(listed["url"].as_str().unwrap().starts_with("http://"));
    }
    let times: Vec<u64> = listed.iter().map(|o| o["time"].as_u64().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "{times:?}");

    // Read back by windows, the exact text: the long article at the most a window
    // holds, and a page of many scripts in windows that split nothing.
    assert_eq!(reassemble(&h, &article_id, 12_000).await, article_text);
    let (unicode_id, _, unicode_text) = &seen[1];
    assert!(unicode_text.chars().count() != unicode_text.len());
    assert_eq!(&reassemble(&h, unicode_id, 7).await, unicode_text);
    for (id, _, text) in seen.iter().step_by(9) {
        assert_eq!(&reassemble(&h, id, 4_000).await, text, "{id}");
    }

    // Search finds the article, forty observations back, with an excerpt.
    let found = h.ok("recall", json!({ "query": "Eddystone rocks" })).await;
    let observations = found["data"]["observations"].as_array().unwrap();
    assert_eq!(observations.len(), 1, "{found:#}");
    assert_eq!(observations[0]["id"], article_id.as_str());
    let excerpt = observations[0]["excerpt"].as_str().unwrap();
    assert!(excerpt.contains("[Eddystone]"), "{excerpt}");
    let fenced = found["untrusted"].as_array().unwrap();
    assert!(
        fenced.contains(&json!("/data/observations/0/excerpt")),
        "{found:#}"
    );

    // The snapshot reminds of what the archive holds of its tab.
    let tab0_before = seen.iter().filter(|(_, tab, _)| tab == "tab0").count();
    let elements = h.ok("snapshot", json!({ "tabId": "tab0" })).await;
    let text = elements["data"]["text"].as_str().unwrap();
    assert!(
        text.ends_with(&format!(
            "# earlier: {tab0_before} observations — browser_recall\n"
        )),
        "{text}"
    );

    h.fails(
        "recall",
        json!({ "observationId": "tab9-s999" }),
        "OBSERVATION_NOT_FOUND",
    )
    .await;
    h.fails(
        "recall",
        json!({ "observationId": article_id, "limit": 12_001 }),
        "INVALID_PARAMS",
    )
    .await;
    h.fails(
        "recall",
        json!({ "observationId": article_id, "query": "x" }),
        "INVALID_PARAMS",
    )
    .await;
    let health = h.ok("diagnostics", json!({})).await;
    assert_eq!(health["data"]["archive"]["writeFailures"], 0, "{health:#}");
    h.shutdown().await;
}

#[tokio::test]
async fn the_archive_outlives_a_killed_browser_and_recall_answers_at_once() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("page-a.html") }))
        .await;
    let (id, text) = observe(&h, 0, "tab0").await;
    let browser = h.engine.browser().await.unwrap();
    let pid = browser.pid().unwrap();
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let started = Instant::now();
    while browser.is_connected() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "still connected"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(browser);
    // No browser needed: the archive is the task's, not the browser's.
    assert_eq!(reassemble(&h, &id, 4_000).await, text);
    h.fails("snapshot", json!({}), "BROWSER_DISCONNECTED").await;
    // The next browser's observations join the same archive.
    let (second, _) = observe(&h, 1, "tab0").await;
    let listed = list_all(&h, 20).await;
    let ids: Vec<&str> = listed.iter().map(|o| o["id"].as_str().unwrap()).collect();
    assert_eq!(ids, vec![second.as_str(), id.as_str()]);
    h.shutdown().await;
}

/// Every file of the archive: the database and its write-ahead log.
fn archive_bytes(path: &str) -> Vec<u8> {
    let mut bytes = Vec::new();
    for suffix in ["", "-wal", "-journal"] {
        if let Ok(read) = std::fs::read(format!("{path}{suffix}")) {
            bytes.extend(read);
        }
    }
    bytes
}

fn holds(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

#[tokio::test]
async fn a_typed_password_is_nowhere_in_the_archive_file() {
    const PASSWORD: &str = "hunter2-Zq8xVw";
    const USER: &str = "ada-lovelace-77";
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("login.html") }))
        .await;
    h.ok(
        "act",
        json!({ "action": "fill", "selector": "#user", "text": USER }),
    )
    .await;
    h.ok(
        "act",
        json!({ "action": "fill", "selector": "#password", "text": PASSWORD }),
    )
    .await;
    h.ok(
        "act",
        json!({ "action": "type", "selector": "#password", "text": "!" }),
    )
    .await;
    for mode in ["elements", "text", "markdown", "html"] {
        h.ok("snapshot", json!({ "mode": mode })).await;
    }
    h.ok("form_state", json!({})).await;
    h.ok("find", json!({ "role": "textbox" })).await;
    h.ok(
        "act",
        json!({ "action": "click", "role": "button", "name": "Sign in" }),
    )
    .await;
    h.ok("snapshot", json!({ "mode": "text" })).await;
    // A recall runs after every write queued before it: the file holds them all.
    let listed = list_all(&h, 100).await;
    assert!(listed.len() >= 8, "{listed:#?}");
    let health = h.ok("diagnostics", json!({})).await;
    let path = health["data"]["archive"]["path"]
        .as_str()
        .unwrap()
        .to_string();
    let bytes = archive_bytes(&path);
    assert!(
        holds(&bytes, USER),
        "the archive holds what was typed elsewhere"
    );
    assert!(!holds(&bytes, PASSWORD), "the password is in {path}");
    assert!(
        !holds(&bytes, "hunter2"),
        "part of the password is in {path}"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn the_archive_goes_with_the_task_unless_kept() {
    let kept_dir = tempfile::tempdir().unwrap();
    for keep in [false, true] {
        let dir = kept_dir.path().join(format!("task-{keep}"));
        let folder = dir.clone();
        let h = Harness::with(move |options| {
            options.archive.dir = Some(folder);
            options.archive.keep = keep;
        });
        h.ok("navigate", json!({ "url": h.url("page-a.html") }))
            .await;
        observe(&h, 0, "tab0").await;
        list_all(&h, 5).await;
        let file: PathBuf = dir.join(tools::ARCHIVE_FILE);
        assert!(file.exists());
        h.shutdown().await;
        assert_eq!(file.exists(), keep, "keep {keep}");
        assert_eq!(dir.exists(), keep, "keep {keep}");
    }
}

#[tokio::test]
async fn an_engine_without_an_archive_answers_recall_with_a_code_and_adds_no_reminder() {
    let h = Harness::with(|options| options.archive.enabled = false);
    h.ok("navigate", json!({ "url": h.url("page-a.html") }))
        .await;
    observe(&h, 0, "tab0").await;
    let elements = h.ok("snapshot", json!({})).await;
    assert!(
        !elements["data"]["text"]
            .as_str()
            .unwrap()
            .contains("# earlier:")
    );
    h.fails("recall", json!({}), "OBSERVATION_NOT_FOUND").await;
    h.shutdown().await;
}

#[tokio::test]
async fn the_earlier_line_is_said_once_per_url_the_tab_shows() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("page-a.html") }))
        .await;
    let text =
        |envelope: &serde_json::Value| envelope["data"]["text"].as_str().unwrap().to_string();
    let first = h.ok("snapshot", json!({})).await;
    assert!(
        !text(&first).contains("# earlier:"),
        "nothing earlier: {first:#}"
    );
    let second = h.ok("snapshot", json!({})).await;
    assert!(
        text(&second).ends_with("# earlier: 1 observation — browser_recall\n"),
        "{second:#}"
    );
    // Told already, the page the same: not again.
    let third = h.ok("snapshot", json!({})).await;
    assert!(!text(&third).contains("# earlier:"), "{third:#}");
    // Another page: what the tab showed before is out of sight, so it is said again.
    h.ok("navigate", json!({ "url": h.url("page-b.html") }))
        .await;
    let other = h.ok("snapshot", json!({})).await;
    assert!(
        text(&other).ends_with("# earlier: 3 observations — browser_recall\n"),
        "{other:#}"
    );
    h.shutdown().await;
}
