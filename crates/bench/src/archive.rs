//! `bench --only archive`: what the task's archive costs a snapshot (medians with
//! archiving on and off, one engine each, on the fixture article), and what recalling a
//! 12,000-character window of an archived observation takes.

use std::time::Instant;

use serde_json::json;
use static_site::{Files, StaticSite};
use tools::{Engine, tool};

use crate::BrowserArgs;

pub async fn run(browser_args: &BrowserArgs, runs: usize) -> anyhow::Result<()> {
    let runs = runs.max(10);
    let fixtures = crate::fixtures_dir();
    anyhow::ensure!(
        fixtures.is_dir(),
        "no fixtures/ folder at {}",
        fixtures.display()
    );
    let server = StaticSite::start(Files::Dir(fixtures))?;
    let url = server.url("article.html");
    for enabled in [false, true] {
        let mut options = browser_args.engine_options("bench-archive");
        options.archive.enabled = enabled;
        let engine = Engine::new(options);
        let opened = engine
            .call(tool::Navigate::NAME, json!({ "url": url }), None)
            .await;
        anyhow::ensure!(opened.ok, "navigate failed: {:?}", opened.message);
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs {
            let started = Instant::now();
            let snapshot = engine.call(tool::Snapshot::NAME, json!({}), None).await;
            times.push(started.elapsed().as_secs_f64() * 1000.0);
            anyhow::ensure!(snapshot.ok, "snapshot failed: {:?}", snapshot.message);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{:<52} {:>8.2} ms",
            format!(
                "snapshot, fixtures/article.html, archive {}",
                if enabled { "on" } else { "off" }
            ),
            crate::median(&times)
        );
        if enabled {
            recall_window(&engine, runs).await?;
        }
        engine.shutdown().await;
    }
    Ok(())
}

/// `recall {observationId, limit: 12000}` on a whole text snapshot of the article.
async fn recall_window(engine: &Engine, runs: usize) -> anyhow::Result<()> {
    let read = engine
        .call(
            tool::Snapshot::NAME,
            json!({ "mode": "text", "maxChars": 200000 }),
            None,
        )
        .await;
    anyhow::ensure!(read.ok, "snapshot failed: {:?}", read.message);
    let id = read.execution.command_id.clone();
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        let window = engine
            .call(
                tool::Recall::NAME,
                json!({ "observationId": id, "offset": 4000, "limit": 12000 }),
                None,
            )
            .await;
        times.push(started.elapsed().as_secs_f64() * 1000.0);
        anyhow::ensure!(window.ok, "recall failed: {:?}", window.message);
        let chars = window.data["text"]
            .as_str()
            .map_or(0, |t| t.chars().count());
        anyhow::ensure!(chars == 12000, "recall returned {chars} characters");
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{:<52} {:>8.2} ms",
        "recall, a 12,000-character window",
        crate::median(&times)
    );
    Ok(())
}
