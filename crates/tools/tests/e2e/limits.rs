//! Pages that try to take more than a page may: a reply larger than the connection can
//! carry, text of many megabytes, a DOM nested deeper than a stack, downloads without end.
//! Each costs at most its own command, named; fixtures in `fixtures/hostile/`.

use serde_json::json;

use crate::harness::Harness;

/// A page with a 300 MB attribute: its html and text reads come back clipped in the page
/// to their budget, whole characters, with the page's full length.
#[tokio::test]
async fn text_and_html_reads_of_a_page_too_large_to_send_come_back_clipped() {
    // Building 300 MB is one long task of the page's script, seconds long on a loaded
    // machine: past the default probe budget it would rightly be taken for hung. This
    // test is about clipping, so its page is given the time it needs.
    let h = Harness::with(|options| options.unresponsive = std::time::Duration::from_secs(60));
    h.ok(
        "navigate",
        json!({ "url": h.url("hostile/huge-attribute.html") }),
    )
    .await;
    let html = h
        .ok("snapshot", json!({ "mode": "html", "maxChars": 2000 }))
        .await;
    let data = &html["data"];
    let text = data["text"].as_str().unwrap();
    assert_eq!(text.chars().count(), 2000, "{data:#}");
    assert!(text.starts_with("<!DOCTYPE html>"), "{text}");
    assert!(text.contains("data-huge=\"xxxx"), "{text}");
    assert_eq!(data["truncated"], true, "{data:#}");
    assert_eq!(data["chars"], 2000, "{data:#}");
    assert!(
        data["totalChars"].as_u64().unwrap() > 300_000_000,
        "{data:#}"
    );

    let read = h
        .ok("snapshot", json!({ "mode": "text", "maxChars": 2000 }))
        .await;
    let text = read["data"]["text"].as_str().unwrap();
    assert!(text.contains("A page too large to read"), "{read:#}");
    assert!(text.contains("Built 300 MB."), "{read:#}");
    h.shutdown().await;
}

/// What crosses the connection for a text read is its budget, not the page: a page of
/// 3 MB of text read with a budget of 1,000 characters sends no message near its size
/// (read from the CDP tape of the run).
#[tokio::test]
async fn a_text_read_sends_only_its_budget_across_the_connection() {
    let dir = tempfile::tempdir().unwrap();
    let tape = dir.path().join("cdp.jsonl");
    let recorded = tape.clone();
    let h = Harness::with(move |options| options.browser.record_cdp = Some(recorded));
    h.ok(
        "navigate",
        json!({ "url": h.url("hostile/huge-text.html?mb=3") }),
    )
    .await;
    let read = h
        .ok("snapshot", json!({ "mode": "text", "maxChars": 1000 }))
        .await;
    let data = &read["data"];
    assert_eq!(data["truncated"], true, "{data:#}");
    assert_eq!(data["chars"], 1000, "{data:#}");
    assert!(
        data["totalChars"].as_u64().unwrap() >= 3_000_000,
        "{data:#}"
    );
    assert!(
        data["text"]
            .as_str()
            .unwrap()
            .contains("A page with too much text"),
        "{data:#}"
    );
    h.shutdown().await;
    let tape = std::fs::read_to_string(&tape).unwrap();
    let largest = tape
        .lines()
        .filter(|line| line.contains("\"dir\":\"recv\""))
        .map(str::len)
        .max()
        .unwrap();
    assert!(
        largest < 64 * 1024,
        "the browser sent a message of {largest} bytes for a read of 1,000 characters"
    );
}

/// A DOM nested 2,000 levels deep (Chromium's own layout gives up near 3,000) reads
/// like any page: every walk over the tree keeps its own stack, so the depth costs no
/// thread stack. The link at the bottom of the nest gets a ref and can be found.
#[tokio::test]
async fn a_page_nested_thousands_deep_snapshots_finds_and_reads_as_markdown() {
    let h = Harness::new();
    let opened = h
        .ok(
            "navigate",
            json!({ "url": h.url("hostile/deep-nesting.html") }),
        )
        .await;
    assert_eq!(opened["page"]["title"], "Deep nesting", "{opened:#}");
    let snapshot = h.ok("snapshot", json!({})).await;
    let text = snapshot["data"]["text"].as_str().unwrap();
    assert!(text.contains("Built 2000 levels."), "{text}");
    assert!(text.contains("button \"Beside the nest\" ["), "{text}");
    assert!(text.contains("link \"At the bottom\" ["), "{text}");
    let found = h.ok("find", json!({ "text": "At the bottom" })).await;
    assert_eq!(found["data"]["matches"][0]["role"], "link", "{found:#}");
    let markdown = h.ok("snapshot", json!({ "mode": "markdown" })).await;
    assert!(
        markdown["data"]["text"]
            .as_str()
            .unwrap()
            .contains("[At the bottom](#bottom)"),
        "{markdown:#}"
    );
    h.shutdown().await;
}

/// The final report of download `name`: the events of `envelope` and of the commands
/// after it, until it is no longer in progress.
async fn download_of(
    h: &Harness,
    mut envelope: serde_json::Value,
    name: &str,
) -> serde_json::Value {
    let started = std::time::Instant::now();
    loop {
        for download in envelope["events"]["download"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if download["name"] == name && download["state"] != "inProgress" {
                return download.clone();
            }
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{name} never finished"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        envelope = h.ok("tabs", json!({})).await;
    }
}

/// A task's downloads are bounded (config `downloadMaxCount`, `downloadMaxMb`): the one
/// that would pass the bytes, and the one past the count, are canceled and reported with
/// `DOWNLOAD_LIMIT`; the clicks that started them succeed, the files before them stay,
/// and nothing of the canceled ones is left in the task's folder.
#[tokio::test]
async fn downloads_past_the_tasks_count_or_bytes_are_canceled_with_a_named_error() {
    let h = Harness::with(|options| {
        options.downloads = browser::DownloadLimits {
            max_count: 3,
            max_bytes: 1_000_000,
        };
    });
    h.ok(
        "navigate",
        json!({ "url": h.url("hostile/downloads.html") }),
    )
    .await;
    let click = |selector: &'static str| {
        let h = &h;
        async move {
            h.ok("act", json!({ "action": "click", "selector": selector }))
                .await
        }
    };
    let first = download_of(&h, click("#first").await, "report-1.csv").await;
    assert_eq!(first["state"], "completed", "{first:#}");
    let big = download_of(&h, click("#big").await, "big.bin").await;
    assert_eq!(big["state"], "canceled", "{big:#}");
    assert_eq!(big["error"]["code"], "DOWNLOAD_LIMIT", "{big:#}");
    assert_eq!(big["error"]["data"]["maxBytes"], 1_000_000, "{big:#}");
    assert!(
        big["error"]["message"]
            .as_str()
            .unwrap()
            .contains("downloadMaxMb"),
        "{big:#}"
    );
    let second = download_of(&h, click("#second").await, "report-2.csv").await;
    assert_eq!(second["state"], "completed", "{second:#}");
    let third = download_of(&h, click("#third").await, "report-3.csv").await;
    assert_eq!(third["state"], "canceled", "{third:#}");
    assert_eq!(third["error"]["code"], "DOWNLOAD_LIMIT", "{third:#}");
    assert_eq!(third["error"]["data"]["maxDownloads"], 3, "{third:#}");
    assert!(
        third["error"]["hint"]
            .as_str()
            .is_some_and(|hint| !hint.is_empty())
    );

    let folder = std::path::Path::new(first["path"].as_str().unwrap())
        .parent()
        .unwrap()
        .to_path_buf();
    // The browser deletes a canceled download's partial file (`.crdownload`) on its own
    // file thread, after it has reported the cancel: wait for that, within a deadline.
    let listed = || {
        let mut files: Vec<String> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        files
    };
    let started = std::time::Instant::now();
    while listed() != ["report-1.csv", "report-2.csv"]
        && started.elapsed() < std::time::Duration::from_secs(10)
    {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(listed(), ["report-1.csv", "report-2.csv"]);
    h.shutdown().await;
}

/// An event larger than a message may be — a 300 MB string written to the console, which
/// the browser sends whole — is dropped; the browser and the task go on.
#[tokio::test]
async fn a_console_message_too_large_to_send_is_dropped_and_the_task_goes_on() {
    let h = Harness::new();
    h.ok(
        "navigate",
        json!({ "url": h.url("hostile/huge-console.html") }),
    )
    .await;
    let pid = h.engine.browser().await.unwrap().pid();
    // Chromium takes its time to send the string (half a minute and more on a busy
    // machine), its renderer busy meanwhile: the click may be reported as done or as
    // unanswered, and reads are refused until the renderer is back.
    let clicked = h
        .call("act", json!({ "action": "click", "selector": "#log" }))
        .await;
    assert!(
        clicked["ok"] == true || clicked["code"] == "PAGE_UNRESPONSIVE",
        "{clicked:#}"
    );
    let started = std::time::Instant::now();
    loop {
        let read = h.call("snapshot", json!({ "mode": "text" })).await;
        assert!(read["events"].get("recovered").is_none(), "{read:#}");
        assert_ne!(read["code"], "BROWSER_DISCONNECTED", "{read:#}");
        if read["data"]["text"]
            .as_str()
            .is_some_and(|text| text.contains("Logged 300 MB."))
        {
            break;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(240),
            "{read:#}"
        );
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
    assert_eq!(h.engine.browser().await.unwrap().pid(), pid);
    assert!(h.engine.browser().await.unwrap().is_connected());
    h.shutdown().await;
}
