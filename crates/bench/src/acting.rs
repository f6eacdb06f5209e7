//! `bench --only acting`: what an acting step costs an agent — a click whose
//! `expect.text` is verified, and a fill read back — on the demo site; and one
//! `scroll_next_screen` through the fixtures' virtual list.

use std::time::{Duration, Instant};

use serde_json::json;
use static_site::{Files, StaticSite};
use tools::{Engine, Envelope, tool};

use crate::{BrowserArgs, report};

pub async fn run(browser_args: &BrowserArgs, site: &StaticSite, runs: usize) -> anyhow::Result<()> {
    let engine = Engine::new(browser_args.engine_options("bench-acting"));
    let paused = clicks(&engine, site, runs).await?;
    report("act click + verified expect.text", &paused);
    // The same clicks released at once: what the dispatch and its verification cost,
    // beside the human pause between press and release (pressPauseMs, 30–80 ms).
    let mut options = browser_args.engine_options("bench-acting-no-pause");
    options.press_pause = browser::PressPause::NONE;
    let unpaused = Engine::new(options);
    let quick = clicks(&unpaused, site, runs).await?;
    report("act click + verified expect.text, pressPauseMs 0", &quick);
    unpaused.shutdown().await;

    let opened = engine
        .call(
            tool::Navigate::NAME,
            json!({ "url": site.url("about.html") }),
            None,
        )
        .await;
    anyhow::ensure!(opened.ok, "navigate failed: {:?}", opened.message);
    let mut fills = Vec::with_capacity(runs);
    for run in 1..=runs {
        let value = format!("reader{run}@example.com");
        let started = Instant::now();
        let filled = engine
            .call(
                tool::Act::NAME,
                json!({ "action": "fill", "role": "textbox", "name": "Email", "text": value }),
                None,
            )
            .await;
        fills.push(started.elapsed());
        anyhow::ensure!(
            filled.ok && filled.data["inputValueVerified"] == true,
            "fill run {run} not read back: {:?}",
            filled.message
        );
    }
    report("act fill + read-back", &fills);
    scroll_next_screen(&engine, runs).await?;
    engine.shutdown().await;
    Ok(())
}

/// `runs` clicks on the catalog's first "Add to cart", each verified by the cart's text.
async fn clicks(engine: &Engine, site: &StaticSite, runs: usize) -> anyhow::Result<Vec<Duration>> {
    let opened = engine
        .call(
            tool::Navigate::NAME,
            json!({ "url": site.url("catalog.html") }),
            None,
        )
        .await;
    anyhow::ensure!(opened.ok, "navigate failed: {:?}", opened.message);
    let mut clicks = Vec::with_capacity(runs);
    for run in 1..=runs {
        let items = if run == 1 {
            "1 item".to_string()
        } else {
            format!("{run} items")
        };
        let started = Instant::now();
        let clicked = engine
            .call(
                tool::Act::NAME,
                json!({ "action": "click", "role": "button", "name": "Add to cart", "nth": 0,
                        "expect": { "text": format!("Cart: {items}") } }),
                None,
            )
            .await;
        clicks.push(started.elapsed());
        anyhow::ensure!(
            clicked.ok && clicked.verification.verified == Some(true),
            "click run {run} not verified: {:?}",
            clicked.message
        );
    }
    Ok(clicks)
}

const NEXT_SCREEN: &str = "act scroll_next_screen on the virtual list";

/// One `scroll_next_screen` of the 600px container of `fixtures/coverage/virtual-list.html`
/// (1,000 rows, 30 recycled nodes), started again from the top when it reports the end.
/// A refusal prints the figure as unavailable rather than ending the bench.
async fn scroll_next_screen(engine: &Engine, runs: usize) -> anyhow::Result<()> {
    let fixtures = crate::fixtures_dir();
    if !fixtures.is_dir() {
        println!(
            "(no fixtures/ folder at {}: {NEXT_SCREEN} skipped)",
            fixtures.display()
        );
        return Ok(());
    }
    let server = StaticSite::start(Files::Dir(fixtures))?;
    let url = server.url("coverage/virtual-list.html");
    match next_screens(engine, &url, runs).await? {
        Ok(samples) => report(NEXT_SCREEN, &samples),
        Err(why) => println!("{NEXT_SCREEN:<52} unavailable: {why}"),
    }
    Ok(())
}

/// `runs` timed calls, or why the engine refused one.
async fn next_screens(
    engine: &Engine,
    url: &str,
    runs: usize,
) -> anyhow::Result<Result<Vec<Duration>, String>> {
    let mut list = match open_list(engine, url).await? {
        Ok(list) => list,
        Err(why) => return Ok(Err(why)),
    };
    let mut samples = Vec::with_capacity(runs);
    while samples.len() < runs {
        let started = Instant::now();
        let next = engine
            .call(
                tool::Act::NAME,
                json!({ "action": "scroll_next_screen", "ref": list }),
                None,
            )
            .await;
        let took = started.elapsed();
        if !next.ok {
            return Ok(Err(refusal(&next)));
        }
        samples.push(took);
        if next.data["atEnd"] == true {
            list = match open_list(engine, url).await? {
                Ok(list) => list,
                Err(why) => return Ok(Err(why)),
            };
        }
    }
    Ok(Ok(samples))
}

/// Opens the virtual list; the ref its snapshot line gives the container (`- list "Rows"
/// [e7k2]`), or why not.
async fn open_list(engine: &Engine, url: &str) -> anyhow::Result<Result<String, String>> {
    let opened = engine
        .call(tool::Navigate::NAME, json!({ "url": url }), None)
        .await;
    anyhow::ensure!(opened.ok, "navigate failed: {:?}", opened.message);
    let read = engine.call(tool::Snapshot::NAME, json!({}), None).await;
    if !read.ok {
        return Ok(Err(refusal(&read)));
    }
    let text = read.data["text"].as_str().unwrap_or_default();
    let list = text
        .lines()
        .find(|line| line.contains("list \"Rows\" ["))
        .and_then(|line| line.split('[').nth(1)?.split(']').next())
        .map(str::to_string);
    Ok(list.ok_or_else(|| "the snapshot gives the list no ref".to_string()))
}

fn refusal(envelope: &Envelope) -> String {
    let json = envelope.to_json();
    format!(
        "{} ({})",
        json["code"].as_str().unwrap_or("error"),
        json["message"].as_str().unwrap_or_default()
    )
}
