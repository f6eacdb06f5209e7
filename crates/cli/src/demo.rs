//! `candor demo`: candor's main job on the built-in site — read a page as a tree with
//! refs, sign in, act with trusted input and verified outcomes, check out, work with
//! tabs, and show the refusals and failures an agent gets — printing each step's
//! envelope in brief. Every step states the code it must end with; the demo fails if one
//! does not. It ends by exporting its own session as a flow and replaying it on a fresh
//! task, each step checked again (docs/faces.md#flows).

use std::collections::BTreeMap;

use serde_json::{Value, json};
use tools::flow::{self, Flow};
use tools::{Engine, tool};

/// The demo's password: typed into the sign-in form, never written into its flow.
const PASSWORD: &str = "demo-password";

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
            tool::Navigate::NAME,
            json!({ "url": site.url("index.html") }),
            None,
        ),
        step(
            "Read it as a tree with refs",
            tool::Snapshot::NAME,
            json!({ "maxTokens": 400 }),
            None,
        ),
        step(
            "Follow the Sign in link by its ref; expect the URL to change",
            tool::Act::NAME,
            json!({ "action": "click", "ref": "{ref of link \"Sign in\"}", "expect": { "urlMatches": "*/login.html" } }),
            None,
        ),
        step(
            "Fill the user name, found by role and name",
            tool::Act::NAME,
            json!({ "action": "fill", "role": "textbox", "name": "Username", "text": "ada" }),
            None,
        ),
        step(
            "Fill the password: its value is never echoed, and a flow keeps only {{password}}",
            tool::Act::NAME,
            json!({ "action": "fill", "role": "textbox", "name": "Password", "text": PASSWORD }),
            None,
        ),
        step(
            "Log in; verify who is signed in (the page moves to the catalog)",
            tool::Act::NAME,
            json!({ "action": "click", "role": "button", "name": "Log in", "expect": { "text": "Signed in as ada" } }),
            None,
        ),
        step(
            "Read the catalog",
            tool::Snapshot::NAME,
            json!({ "maxTokens": 500 }),
            None,
        ),
        step(
            "Six buttons share a name: refused, with the candidates, before anything is clicked",
            tool::Act::NAME,
            json!({ "action": "click", "role": "button", "name": "Add to cart" }),
            Some("AMBIGUOUS_LOCATOR"),
        ),
        step(
            "Add the first item; verify the cart says so",
            tool::Act::NAME,
            json!({ "action": "click", "role": "button", "name": "Add to cart", "nth": 0, "expect": { "text": "Cart: 1 item" } }),
            None,
        ),
        step(
            "An expectation that does not hold: the click happened, so do not repeat it",
            tool::Act::NAME,
            json!({ "action": "click", "role": "button", "name": "Add to cart", "nth": 1, "expect": { "text": "Cart: 5 items", "timeoutMs": 300 } }),
            Some("EXPECTATION_FAILED"),
        ),
        step(
            "Check out; verify the page shows a total",
            tool::Act::NAME,
            json!({ "action": "click", "role": "link", "name": "Check out", "expect": { "text": "Total: $" } }),
            None,
        ),
        step(
            "Place the order; verify it was placed",
            tool::Act::NAME,
            json!({ "action": "click", "role": "button", "name": "Place order", "expect": { "text": "Order placed" } }),
            None,
        ),
        step(
            "Open the about page in a new tab",
            tool::Tabs::NAME,
            json!({ "action": "new", "url": site.url("about.html") }),
            None,
        ),
        step(
            "Fill the newsletter field, read it back, submit, verify",
            tool::Act::NAME,
            json!({ "action": "fill", "role": "textbox", "name": "Email", "text": "reader@example.com", "submit": true,
                    "expect": { "text": "Subscribed reader@example.com" } }),
            None,
        ),
        step(
            "Back to the first tab",
            tool::Tabs::NAME,
            json!({ "action": "select", "tabId": "tab0" }),
            None,
        ),
        step(
            "Find every price on the page, beyond any budget",
            tool::Find::NAME,
            json!({ "text": "$" }),
            None,
        ),
        step(
            "Go back to the catalog",
            tool::Navigate::NAME,
            json!({ "back": true }),
            None,
        ),
        step(
            "A ref from before the page was left is refused, even on the same URL again — never re-pointed",
            tool::Act::NAME,
            json!({ "action": "click", "ref": "{ref of button \"Add to cart\"}" }),
            Some("STALE_REF"),
        ),
        step(
            "A file: URL is refused before anything runs",
            tool::Navigate::NAME,
            json!({ "url": "file:///etc/passwd" }),
            Some("URL_BLOCKED"),
        ),
        step(
            "A server that is down: the failure is named",
            tool::Navigate::NAME,
            json!({ "url": "http://127.0.0.1:1/" }),
            Some("NAVIGATION_FAILED"),
        ),
        step(
            "The tab list shows that tab as failed",
            tool::Tabs::NAME,
            json!({ "action": "list" }),
            None,
        ),
        step(
            "A failed page is not read as if it were the site",
            tool::Snapshot::NAME,
            json!({ "mode": "text" }),
            Some("PAGE_LOAD_FAILED"),
        ),
        step(
            "What happened, from the journal",
            tool::Diagnostics::NAME,
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
        if step.method == tool::Snapshot::NAME
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
    replay_own_session(engine).await?;
    println!("demo finished: every step reported exactly what happened.");
    Ok(())
}

/// Exports the session just run as a flow and replays it on a fresh task of the same
/// browser: every step located again by identity, every postcondition checked again.
async fn replay_own_session(engine: &Engine) -> anyhow::Result<()> {
    println!("── the session as a flow (browser_flow export; candor flow export TASK)");
    let exported = engine
        .call(tool::Flow::NAME, json!({ "action": "export" }), None)
        .await;
    anyhow::ensure!(exported.ok, "flow export failed: {:?}", exported.message);
    let file = &exported.data["flow"];
    let text = file.to_string();
    anyhow::ensure!(
        !text.contains(PASSWORD),
        "the exported flow holds the password"
    );
    let flow = Flow::parse(file).map_err(|e| anyhow::anyhow!("{}", e.message))?;
    println!(
        "   {} steps kept (reads, refusals and failures left out); variables: {}; the password appears nowhere in it",
        flow.steps.len(),
        flow.variables
            .keys()
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!("── replaying it on a fresh task (candor flow run f.json --var password=…)");
    let mut options = engine.options().clone();
    options.task_id = format!("{}-replay", options.task_id);
    let replay = Engine::with_host(options, engine.host().clone());
    let vars = BTreeMap::from([("password".to_string(), PASSWORD.to_string())]);
    let bound = flow
        .bind(&vars)
        .map_err(|e| anyhow::anyhow!("{}", e.message))?;
    let report = flow::run(&replay, &bound).await;
    replay.shutdown().await;
    for (number, (step, envelope)) in bound.steps.iter().zip(&report.steps).enumerate() {
        let outcome = envelope["code"].as_str().unwrap_or("ok");
        let target = step
            .target
            .as_ref()
            .map(|t| format!("{} {:?}", t.role, t.name))
            .unwrap_or_default();
        println!(
            "   {:>2} {outcome:<18} {} {} {}",
            number + 1,
            step.method,
            step.params["action"].as_str().unwrap_or_default(),
            clip(&target, 60)
        );
    }
    if let Some(failure) = &report.failure {
        anyhow::bail!(
            "the replay stopped at step {}: {} {}",
            failure["step"],
            failure["code"],
            failure["message"]
        );
    }
    println!("   replay green: every step found by identity, every postcondition held again.\n");
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
