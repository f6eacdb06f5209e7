//! `bench --only acting`: what an acting step costs an agent — a click whose
//! `expect.text` is verified, and a fill read back — on the demo site.

use std::time::Instant;

use serde_json::json;
use static_site::StaticSite;
use tools::Engine;

use crate::{BrowserArgs, report};

pub async fn run(browser_args: &BrowserArgs, site: &StaticSite, runs: usize) -> anyhow::Result<()> {
    let engine = Engine::new(browser_args.engine_options("bench-acting"));
    let opened = engine
        .call("navigate", json!({ "url": site.url("catalog.html") }), None)
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
                "act",
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
    report("act click + verified expect.text", &clicks);

    let opened = engine
        .call("navigate", json!({ "url": site.url("about.html") }), None)
        .await;
    anyhow::ensure!(opened.ok, "navigate failed: {:?}", opened.message);
    let mut fills = Vec::with_capacity(runs);
    for run in 1..=runs {
        let value = format!("reader{run}@example.com");
        let started = Instant::now();
        let filled = engine
            .call(
                "act",
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
    engine.shutdown().await;
    Ok(())
}
