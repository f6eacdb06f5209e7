//! `bench --only snapshots`: element snapshots of real, heavy pages — the Rust
//! documentation that ships with the toolchain — and of the fixtures: tokens, refs,
//! what was left out, and the median time; the first snapshot after navigating to each
//! of them and to a small fixture (with how much of it was waiting for the page to stop
//! changing); and what reads the whole page on the heavy ones (`find`, and locating a
//! ref for an action), with `find "fold"` on the Iterator page checked end to end.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use browser::{Browser, Deadline, SnapshotOptions, Task};

use serde_json::{Value, json};
use tools::{Engine, tool};

use static_site::{Files, StaticSite};

use crate::BrowserArgs;

/// The Rust documentation pages measured, relative to the docs root.
const DOC_PAGES: &[&str] = &[
    "std/index.html",
    "std/iter/trait.Iterator.html",
    "book/ch04-01-what-is-ownership.html",
];

/// Pages `find` and locating are measured on, with the text found: the link an action
/// then locates by its ref.
const WHOLE_PAGE_READS: &[(&str, &str)] = &[
    ("std/index.html", "Primitive Types"),
    ("std/iter/trait.Iterator.html", "fold"),
    (
        "book/ch04-01-what-is-ownership.html",
        "References and Borrowing",
    ),
];

/// The small fixture of "first snapshot after navigating".
const SMALL_FIXTURE: &str = "index.html";

/// Fixture pages measured, relative to `fixtures/`.
const FIXTURE_PAGES: &[&str] = &[
    "index.html",
    "article.html",
    "pruning.html",
    "rerender-list.html",
    "frame-host.html",
];

/// With `peers` (and the peers installed), the first snapshot after navigating and the
/// next ones are measured beside them too (`snapshot_peers.rs`), candor through
/// `candor mcp` (`candor`, else the one beside this executable).
pub async fn run(
    browser_args: &BrowserArgs,
    runs: usize,
    peers: bool,
    candor: Option<PathBuf>,
) -> anyhow::Result<()> {
    let runs = runs.max(10);
    let engine = Engine::new(browser_args.engine_options("bench-snapshots"));
    println!("element snapshots (default budget 4096 tokens), {runs} runs each, median time");
    println!(
        "{:<44} {:>7} {:>7} {:>5} {:>8} {:>9} {:>9}",
        "page",
        "tokens",
        "chars",
        "refs",
        "omitted",
        "viewport", // not a tool name
        "median ms"
    );
    let docs = docs_root();
    match &docs {
        Some(root) => {
            let server = StaticSite::start(Files::Dir(root.clone()))?;
            for page in DOC_PAGES {
                measure(
                    &engine,
                    &format!("rust-docs/{page}"),
                    &server.url(page),
                    runs,
                )
                .await?;
            }
            for page in DOC_PAGES {
                first_snapshot(
                    &engine,
                    &format!("rust-docs/{page}"),
                    &server.url(page),
                    runs,
                )
                .await?;
            }
            println!();
            println!("reading the whole page, {runs} runs each, median time");
            for (page, text) in WHOLE_PAGE_READS {
                whole_page_reads(&engine, page, &server.url(page), text, runs).await?;
            }
            find_fold(&engine, &server.url("std/iter/trait.Iterator.html")).await?;
            checkpoint_share(
                browser_args,
                "rust-docs/std/iter/trait.Iterator.html",
                &server.url("std/iter/trait.Iterator.html"),
                runs,
            )
            .await?;
        }
        None => println!(
            "(the Rust documentation is not installed: `rustup component add rust-docs` adds it; its pages were skipped)"
        ),
    }
    let fixtures = crate::fixtures_dir();
    if fixtures.is_dir() {
        let server = StaticSite::start(Files::Dir(fixtures))?;
        first_snapshot(
            &engine,
            &format!("fixtures/{SMALL_FIXTURE}"),
            &server.url(SMALL_FIXTURE),
            runs,
        )
        .await?;
        for page in FIXTURE_PAGES {
            measure(
                &engine,
                &format!("fixtures/{page}"),
                &server.url(page),
                runs,
            )
            .await?;
        }
        checkpoint_share(
            browser_args,
            "fixtures/checkpoint-form.html",
            &server.url("checkpoint-form.html"),
            runs,
        )
        .await?;
    } else {
        println!(
            "(no fixtures/ folder at {}: its pages were skipped)",
            fixtures.display()
        );
    }
    engine.shutdown().await;
    if peers {
        beside_peers(browser_args, docs, candor, runs).await?;
    }
    Ok(())
}

/// The first snapshot after navigating to each Rust documentation page and to the small
/// fixture, and the next ones, for candor and each peer.
async fn beside_peers(
    browser_args: &BrowserArgs,
    docs: Option<PathBuf>,
    candor: Option<PathBuf>,
    runs: usize,
) -> anyhow::Result<()> {
    let Some(installed) = crate::many_tasks::peers::Installed::find(browser_args)? else {
        return Ok(());
    };
    let Some(executable) =
        crate::warm_daemon::candor_executable(candor, true, "snapshots --peers")?
    else {
        return Ok(());
    };
    let mut servers = Vec::new();
    let mut pages = Vec::new();
    if let Some(root) = docs {
        let server = StaticSite::start(Files::Dir(root))?;
        pages.extend(DOC_PAGES.iter().map(|page| crate::snapshot_peers::Page {
            label: format!("rust-docs/{page}"),
            url: server.url(page),
        }));
        servers.push(server);
    }
    let server = StaticSite::start(Files::Dir(crate::fixtures_dir()))?;
    pages.push(crate::snapshot_peers::Page {
        label: format!("fixtures/{SMALL_FIXTURE}"),
        url: server.url(SMALL_FIXTURE),
    });
    servers.push(server);
    crate::snapshot_peers::run(&executable, &installed, &pages, runs).await
}

/// `$(rustc --print sysroot)/share/doc/rust/html`, when present.
fn docs_root() -> Option<PathBuf> {
    let output = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .ok()?;
    let sysroot = String::from_utf8(output.stdout).ok()?;
    let root = PathBuf::from(sysroot.trim()).join("share/doc/rust/html");
    root.join("std/iter/trait.Iterator.html")
        .is_file()
        .then_some(root)
}

async fn measure(engine: &Engine, label: &str, url: &str, runs: usize) -> anyhow::Result<()> {
    let opened = engine
        .call(tool::Navigate::NAME, json!({ "url": url }), None)
        .await;
    anyhow::ensure!(opened.ok, "{label}: navigate failed: {:?}", opened.message);
    let mut times = Vec::with_capacity(runs);
    let mut last = Value::Null;
    for _ in 0..runs {
        let started = Instant::now();
        let snapshot = engine.call(tool::Snapshot::NAME, json!({}), None).await;
        times.push(started.elapsed().as_secs_f64() * 1000.0);
        anyhow::ensure!(
            snapshot.ok,
            "{label}: snapshot failed: {:?}",
            snapshot.message
        );
        last = snapshot.data;
    }
    times.sort_by(f64::total_cmp);
    let chars = last["text"].as_str().map_or(0, |t| t.chars().count());
    let complete = if last["truncated"] == false {
        "complete"
    } else {
        "TRUNCATED"
    };
    let number = |key: &str| last[key].as_u64().unwrap_or_default();
    println!(
        "{label:<44} {:>7} {chars:>7} {:>5} {:>8} {complete:>9} {:>9.1}",
        number("tokens"),
        number("refs"),
        number("elementsOmitted"),
        times[times.len() / 2]
    );
    Ok(())
}

/// The first element snapshot of a page just navigated to: each run navigates again, so
/// nothing of the previous document is reused.
async fn first_snapshot(
    engine: &Engine,
    label: &str,
    url: &str,
    runs: usize,
) -> anyhow::Result<()> {
    let mut times = Vec::with_capacity(runs);
    let mut settling = Vec::with_capacity(runs);
    for _ in 0..runs {
        let opened = engine
            .call(tool::Navigate::NAME, json!({ "url": url }), None)
            .await;
        anyhow::ensure!(opened.ok, "{label}: navigate failed: {:?}", opened.message);
        let started = Instant::now();
        let snapshot = engine.call(tool::Snapshot::NAME, json!({}), None).await;
        times.push(started.elapsed().as_secs_f64() * 1000.0);
        anyhow::ensure!(
            snapshot.ok,
            "{label}: snapshot failed: {:?}",
            snapshot.message
        );
        // How long of it was waiting for the page to stop changing (absent: no wait).
        settling.push(snapshot.data["settleMs"].as_f64().unwrap_or(0.0));
    }
    times.sort_by(f64::total_cmp);
    settling.sort_by(f64::total_cmp);
    println!(
        "{:<85} {:>9.1}  (settle wait median {:.0} ms, max {:.0})",
        format!("first snapshot after navigating, {label}"),
        crate::median(&times),
        crate::median(&settling),
        settling.last().copied().unwrap_or(0.0),
    );
    Ok(())
}

/// `find` on a heavy page, and locating the ref it returned for an action (a hover):
/// both read the whole page, whatever a snapshot's budget would show.
async fn whole_page_reads(
    engine: &Engine,
    page: &str,
    url: &str,
    text: &str,
    runs: usize,
) -> anyhow::Result<()> {
    let opened = engine
        .call(tool::Navigate::NAME, json!({ "url": url }), None)
        .await;
    anyhow::ensure!(opened.ok, "{page}: navigate failed: {:?}", opened.message);
    let mut finds = Vec::with_capacity(runs);
    let mut hovers = Vec::with_capacity(runs);
    let mut matches = Value::Null;
    for _ in 0..runs {
        let started = Instant::now();
        let found = engine
            .call(tool::Find::NAME, json!({ "text": text }), None)
            .await;
        finds.push(started.elapsed().as_secs_f64() * 1000.0);
        anyhow::ensure!(found.ok, "{page}: find failed: {:?}", found.message);
        matches = found.data["total"].clone();
        let link = found.data["matches"]
            .as_array()
            .and_then(|all| all.iter().find(|m| m["role"] == "link"))
            .and_then(|m| m["ref"].as_str())
            .map(str::to_string)
            .ok_or_else(|| anyhow::anyhow!("{page}: find {text:?} returned no link"))?;
        let started = Instant::now();
        let hovered = engine
            .call(
                tool::Act::NAME,
                json!({ "action": "hover", "ref": link }),
                None,
            )
            .await;
        hovers.push(started.elapsed().as_secs_f64() * 1000.0);
        anyhow::ensure!(hovered.ok, "{page}: hover failed: {:?}", hovered.message);
    }
    finds.sort_by(f64::total_cmp);
    hovers.sort_by(f64::total_cmp);
    println!(
        "{:<85} {:>9.1}",
        format!("find {text:?} ({matches} matches), rust-docs/{page}"),
        crate::median(&finds)
    );
    println!(
        "{:<85} {:>9.1}",
        format!("act hover by ref (locating reads the page), rust-docs/{page}"),
        crate::median(&hovers)
    );
    Ok(())
}

/// What the checkpoint an element snapshot takes costs it (docs/faces.md#checkpoints): the snapshot's
/// median with the capture and without, taken in turn on one tab.
async fn checkpoint_share(
    browser_args: &BrowserArgs,
    label: &str,
    url: &str,
    runs: usize,
) -> anyhow::Result<()> {
    let deadline = Deadline::after(Duration::from_secs(60));
    let browser = Browser::start(browser_args.engine_options("bench").browser, deadline).await?;
    let mut task = Task::create(&browser, "bench", deadline).await?;
    let (_, tab) = task.open_tab(deadline).await?;
    let url = task.check_url(url)?;
    tab.navigate(&url, deadline).await?;
    let mut with = Vec::with_capacity(runs);
    let mut without = Vec::with_capacity(runs);
    let mut alone = Vec::with_capacity(runs);
    for run in 0..runs * 2 {
        if run % 2 == 0 {
            let deadline = Deadline::after(Duration::from_secs(30));
            let started = Instant::now();
            tab.checkpoint("bench".into(), deadline).await?;
            alone.push(started.elapsed().as_secs_f64() * 1000.0);
        }
        let checkpoint = run % 2 == 0;
        let options = SnapshotOptions {
            max_tokens: 4_096,
            diff: false,
            checkpoint,
        };
        let deadline = Deadline::after(Duration::from_secs(30));
        let started = Instant::now();
        let snapshot = tab.snapshot(&options, deadline).await?;
        let took = started.elapsed().as_secs_f64() * 1000.0;
        if checkpoint {
            anyhow::ensure!(
                matches!(snapshot.checkpoint, Some(Ok(_))),
                "{label}: no checkpoint was taken"
            );
            with.push(took);
        } else {
            without.push(took);
        }
    }
    browser.close(deadline).await;
    for samples in [&mut with, &mut without, &mut alone] {
        samples.sort_by(f64::total_cmp);
    }
    let (with, without, alone) = (
        crate::median(&with),
        crate::median(&without),
        crate::median(&alone),
    );
    let share = if with > 0.0 {
        alone / with * 100.0
    } else {
        0.0
    };
    println!(
        "checkpoint, {label}: snapshot {with:.1} ms with it, {without:.1} ms without; the capture alone {alone:.1} ms ({share:.0} % of the snapshot)"
    );
    Ok(())
}

/// The acceptance check of `find`: on the Iterator page, "fold" finds the method's link,
/// and its ref works.
async fn find_fold(engine: &Engine, url: &str) -> anyhow::Result<()> {
    engine
        .call(tool::Navigate::NAME, json!({ "url": url }), None)
        .await;
    let found = engine
        .call(tool::Find::NAME, json!({ "text": "fold" }), None)
        .await;
    anyhow::ensure!(found.ok, "find failed: {:?}", found.message);
    let matches = found.data["matches"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let link = matches
        .iter()
        .find(|m| m["role"] == "link" && m["name"] == "fold")
        .ok_or_else(|| anyhow::anyhow!("find \"fold\" returned no link named fold: {matches:?}"))?;
    let r = link["ref"].as_str().unwrap_or_default();
    let clicked = engine
        .call(
            tool::Act::NAME,
            json!({ "action": "click", "ref": r }),
            None,
        )
        .await;
    let landed = clicked
        .page
        .as_ref()
        .map(|p| p.url.clone())
        .unwrap_or_default();
    println!(
        "find \"fold\" on the Iterator page: {} matches; link \"fold\" [{r}] in {:?}; click → {} ({})",
        found.data["total"],
        link["path"]
            .as_array()
            .map(|p| p
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" › "))
            .unwrap_or_default(),
        landed.rsplit('/').next().unwrap_or_default(),
        if clicked.ok { "ok" } else { "FAILED" }
    );
    Ok(())
}
