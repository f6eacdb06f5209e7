//! `candor demo`: candor's main job on the built-in site — read a page as a tree with
//! refs, act on it with trusted input and verified outcomes, work with tabs, and show the
//! refusals and failures an agent gets — printing each step's envelope in brief. Every
//! step states the code it must end with; the demo fails if one does not.

use serde_json::{Value, json};
use tools::Engine;

/// Lines of each step's text form to print; the rest is summarised.
const LINES_PER_STEP: usize = 10;

/// One step: what it shows, the tool, its params, and the code it must end with.
struct Step {
    title: &'static str,
    method: &'static str,
    params: Value,
    expect: Option<&'static str>,
}

fn step(
    title: &'static str,
    method: &'static str,
    params: Value,
    expect: Option<&'static str>,
) -> Step {
    Step {
        title,
        method,
        params,
        expect,
    }
}

pub async fn run(engine: &Engine) -> anyhow::Result<()> {
    let site = crate::site::start()?;
    println!("candor demo: the built-in site is at {}\n", site.url(""));
    // `{ref of …}` in a param is filled from the last element snapshot: the ref on the
    // line that starts with that text.
    let steps = vec![
        step(
            "Open the home page",
            "navigate",
            json!({ "url": site.url("index.html") }),
            None,
        ),
        step(
            "Read it as a tree with refs",
            "snapshot",
            json!({ "maxTokens": 400 }),
            None,
        ),
        step(
            "Follow the Catalog link by its ref; expect the URL to change",
            "act",
            json!({ "action": "click", "ref": "{ref of link \"Catalog\"}", "expect": { "urlMatches": "*/catalog.html" } }),
            None,
        ),
        step(
            "Read the catalog",
            "snapshot",
            json!({ "maxTokens": 500 }),
            None,
        ),
        step(
            "Six buttons share a name: refused, with the candidates, before anything is clicked",
            "act",
            json!({ "action": "click", "role": "button", "name": "Add to cart" }),
            Some("AMBIGUOUS_LOCATOR"),
        ),
        step(
            "Add the first item; verify the cart says so",
            "act",
            json!({ "action": "click", "role": "button", "name": "Add to cart", "nth": 0, "expect": { "text": "Cart: 1 item" } }),
            None,
        ),
        step(
            "An expectation that does not hold: the click happened, so do not repeat it",
            "act",
            json!({ "action": "click", "role": "button", "name": "Add to cart", "nth": 1, "expect": { "text": "Cart: 5 items", "timeoutMs": 300 } }),
            Some("EXPECTATION_FAILED"),
        ),
        step(
            "Open the about page in a new tab",
            "tabs",
            json!({ "action": "new", "url": site.url("about.html") }),
            None,
        ),
        step(
            "Fill the newsletter field, read it back, submit, verify",
            "act",
            json!({ "action": "fill", "role": "textbox", "name": "Email", "text": "reader@example.com", "submit": true,
                    "expect": { "text": "Subscribed reader@example.com" } }),
            None,
        ),
        step(
            "Back to the first tab",
            "tabs",
            json!({ "action": "select", "tabId": "tab0" }),
            None,
        ),
        step(
            "Find every price on the page, beyond any budget",
            "find",
            json!({ "text": "$" }),
            None,
        ),
        step(
            "Go back to the home page",
            "navigate",
            json!({ "back": true }),
            None,
        ),
        step(
            "A ref from the catalog is refused on another page, never re-pointed",
            "act",
            json!({ "action": "click", "ref": "{ref of button \"Add to cart\"}" }),
            Some("STALE_REF"),
        ),
        step(
            "A file: URL is refused before anything runs",
            "navigate",
            json!({ "url": "file:///etc/passwd" }),
            Some("URL_BLOCKED"),
        ),
        step(
            "A server that is down: the failure is named",
            "navigate",
            json!({ "url": "http://127.0.0.1:1/" }),
            Some("NAVIGATION_FAILED"),
        ),
        step(
            "The tab list shows that tab as failed",
            "tabs",
            json!({ "action": "list" }),
            None,
        ),
        step(
            "A failed page is not read as if it were the site",
            "snapshot",
            json!({ "mode": "text" }),
            Some("PAGE_LOAD_FAILED"),
        ),
        step(
            "What happened, from the journal",
            "diagnostics",
            json!({ "limit": 4 }),
            None,
        ),
    ];
    let mut failures = 0;
    let mut last_snapshot = String::new();
    for (number, step) in steps.into_iter().enumerate() {
        let params = fill_refs(step.params, &last_snapshot);
        println!("── step {}: {}", number + 1, step.title);
        println!("   {} {params}", step.method);
        let envelope = engine.call(step.method, params, None).await;
        let code = envelope.code.map(tools::Code::as_str);
        if code.as_deref() != step.expect {
            failures += 1;
            println!(
                "   !! expected {}, got {}",
                step.expect.unwrap_or("success"),
                code.as_deref().unwrap_or("success")
            );
        }
        if step.method == "snapshot"
            && envelope.data["mode"] == "elements"
            && let Some(text) = envelope.data["text"].as_str()
        {
            last_snapshot = text.to_string();
        }
        let text = tools::render_text(step.method, &envelope);
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

/// Replaces `{ref of <line start>}` strings with the ref on that line of `snapshot`.
fn fill_refs(params: Value, snapshot: &str) -> Value {
    match params {
        Value::String(s) if s.starts_with("{ref of ") && s.ends_with('}') => {
            let line = &s["{ref of ".len()..s.len() - 1];
            let found = snapshot
                .lines()
                .map(str::trim_start)
                .filter_map(|l| l.strip_prefix("- "))
                .find_map(|l| {
                    l.strip_prefix(line)?
                        .trim_start()
                        .strip_prefix('[')?
                        .split(']')
                        .next()
                });
            Value::String(found.unwrap_or("e0").to_string())
        }
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, fill_refs(v, snapshot)))
                .collect(),
        ),
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| fill_refs(v, snapshot)).collect())
        }
        other => other,
    }
}

fn clip(line: &str, max: usize) -> String {
    match line.char_indices().nth(max) {
        Some((index, _)) => format!("{}…", &line[..index]),
        None => line.to_string(),
    }
}
