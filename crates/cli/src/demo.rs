//! `candor demo`: candor's main job on the built-in site — open pages, read them, work
//! with tabs, and show the refusals and failures an agent gets — printing each step's
//! envelope in brief.

use serde_json::{Value, json};
use tools::Engine;

use crate::site::Site;

/// Lines of each step's text form to print; the rest is summarised.
const LINES_PER_STEP: usize = 8;

pub async fn run(engine: &Engine) -> anyhow::Result<()> {
    let site = Site::start().await?;
    println!("candor demo: the built-in site is at {}\n", site.url(""));
    // Each step with the code it must end with (None: success).
    let steps: Vec<(&str, &str, Value, Option<&str>)> = vec![
        (
            "Open the home page",
            "navigate",
            json!({ "url": site.url("index.html") }),
            None,
        ),
        (
            "Read it as text",
            "snapshot",
            json!({ "mode": "text", "maxChars": 300 }),
            None,
        ),
        (
            "Open the catalog in a new tab",
            "tabs",
            json!({ "action": "new", "url": site.url("catalog.html") }),
            None,
        ),
        (
            "Read the catalog, clipped to 200 characters",
            "snapshot",
            json!({ "mode": "text", "maxChars": 200 }),
            None,
        ),
        (
            "Go back to the first tab",
            "tabs",
            json!({ "action": "select", "tabId": "tab0" }),
            None,
        ),
        (
            "Follow to the about page",
            "navigate",
            json!({ "url": site.url("about.html") }),
            None,
        ),
        ("Go back", "navigate", json!({ "back": true }), None),
        (
            "A file: URL is refused before anything runs",
            "navigate",
            json!({ "url": "file:///etc/passwd" }),
            Some("URL_BLOCKED"),
        ),
        (
            "A server that is down: the failure is named",
            "navigate",
            json!({ "url": "http://127.0.0.1:1/" }),
            Some("NAVIGATION_FAILED"),
        ),
        (
            "The tab list shows that tab as failed",
            "tabs",
            json!({ "action": "list" }),
            None,
        ),
        (
            "A failed page is not read as if it were the site",
            "snapshot",
            json!({ "mode": "text" }),
            Some("PAGE_LOAD_FAILED"),
        ),
        (
            "What happened, from the journal",
            "diagnostics",
            json!({ "limit": 4 }),
            None,
        ),
    ];
    let mut failures = 0;
    for (number, (title, method, params, expected)) in steps.into_iter().enumerate() {
        println!("── step {}: {title}", number + 1);
        println!("   {method} {params}");
        let envelope = engine.call(method, params, None).await;
        let code = envelope.code.map(tools::Code::as_str);
        if code.as_deref() != expected {
            failures += 1;
            println!(
                "   !! expected {}, got {}",
                expected.unwrap_or("success"),
                code.as_deref().unwrap_or("success")
            );
        }
        let text = tools::render_text(method, &envelope);
        let lines: Vec<&str> = text.lines().collect();
        for line in lines.iter().take(LINES_PER_STEP) {
            println!("   {}", clip(line, 160));
        }
        if lines.len() > LINES_PER_STEP {
            println!("   … {} more lines", lines.len() - LINES_PER_STEP);
        }
        println!();
    }
    if failures > 0 {
        anyhow::bail!("{failures} demo steps did not end as expected");
    }
    println!("demo finished: every step reported exactly what happened.");
    Ok(())
}

fn clip(line: &str, max: usize) -> String {
    match line.char_indices().nth(max) {
        Some((index, _)) => format!("{}…", &line[..index]),
        None => line.to_string(),
    }
}
