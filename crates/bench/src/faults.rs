//! `bench --only faults`: what a hung page costs an agent — a click whose handler
//! never returns, until it is named `PAGE_UNRESPONSIVE`; a read of the hung tab, until it
//! is refused; and `navigate` / `reload` on it, until the tab answers again.

use std::time::{Duration, Instant};

use serde_json::json;
use static_site::StaticSite;
use tools::{Engine, Envelope, tool};

use crate::{BrowserArgs, report};

/// Each run hangs a page for about the probe budget: ten runs give a median.
const MOST_RUNS: usize = 10;

pub async fn run(browser_args: &BrowserArgs, site: &StaticSite, runs: usize) -> anyhow::Result<()> {
    let engine = Engine::new(browser_args.engine_options("bench-faults"));
    let stuck = site.url("stuck.html");
    let mut unresponsive = Vec::new();
    let mut refused = Vec::new();
    let mut navigated = Vec::new();
    let mut reloaded = Vec::new();
    for run in 0..runs.min(MOST_RUNS) {
        let opened = engine
            .call(tool::Navigate::NAME, json!({ "url": stuck }), None)
            .await;
        ensure_ok(&opened, tool::Navigate::NAME)?;
        let (clicked, took) = timed(
            &engine,
            tool::Act::NAME,
            json!({ "action": "click", "selector": "#stick" }),
        )
        .await;
        ensure_code(&clicked, "PAGE_UNRESPONSIVE", "the hung click")?;
        unresponsive.push(took);
        let (read, took) = timed(&engine, tool::Snapshot::NAME, json!({ "mode": "text" })).await;
        ensure_code(&read, "PAGE_UNRESPONSIVE", "the read of a hung tab")?;
        refused.push(took);
        // Alternate the two ways back: to another page, and a reload of the hung one.
        if run % 2 == 0 {
            let (moved, took) = timed(
                &engine,
                tool::Navigate::NAME,
                json!({ "url": site.url("about.html") }),
            )
            .await;
            ensure_ok(&moved, "navigate on a hung tab")?;
            navigated.push(took);
        } else {
            let (moved, took) =
                timed(&engine, tool::Navigate::NAME, json!({ "reload": true })).await;
            ensure_ok(&moved, "reload of a hung tab")?;
            reloaded.push(took);
        }
    }
    report("hung click → PAGE_UNRESPONSIVE", &unresponsive);
    report("read of a hung tab → PAGE_UNRESPONSIVE refusal", &refused);
    report("navigate on a hung tab → recovered, loaded", &navigated);
    report("reload of a hung tab → recovered, loaded", &reloaded);
    engine.shutdown().await;
    Ok(())
}

async fn timed(engine: &Engine, method: &str, params: serde_json::Value) -> (Envelope, Duration) {
    let started = Instant::now();
    let envelope = engine.call(method, params, None).await;
    (envelope, started.elapsed())
}

fn ensure_ok(envelope: &Envelope, what: &str) -> anyhow::Result<()> {
    anyhow::ensure!(envelope.ok, "{what} failed: {:?}", envelope.message);
    Ok(())
}

fn ensure_code(envelope: &Envelope, code: &str, what: &str) -> anyhow::Result<()> {
    let got = envelope.code.map(tools::Code::as_str);
    anyhow::ensure!(
        got.as_deref() == Some(code),
        "{what} was {got:?}, not {code}: {:?}",
        envelope.message
    );
    Ok(())
}
