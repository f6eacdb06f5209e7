//! A hand-off end to end (docs/faces.md#handoff): the agent hands the task to a person, who
//! works through the live view **in a second real Chromium** — sees frames arrive and
//! change, clicks and types into the streamed page, answers its confirm, is refused a URL
//! the policy forbids, and presses Done; the agent's pending wait returns the page as the
//! person left it. Meanwhile every other agent command is `HANDOFF_LOCKED`, and the live
//! view without its token is 401.

use std::sync::Arc;
use std::time::Duration;

use browser::{BrowserOptions, Endpoint, LaunchOptions};
use serde_json::{Value, json};
use test_support::FixtureServer;
use tools::{Engine, EngineOptions};

fn engine(task: &str, eval: bool) -> Engine {
    Engine::new(EngineOptions {
        browser: BrowserOptions {
            endpoint: Endpoint::Launch(LaunchOptions {
                executable: Some(test_support::chromium()),
                ..LaunchOptions::default()
            }),
            record_cdp: None,
        },
        task_id: task.into(),
        enable_eval: eval,
        ..EngineOptions::default()
    })
}

/// The agent's engine for `task`, its live views served on a loopback port of their own
/// (as `candor mcp` serves them).
fn agent(task: &'static str) -> Arc<Engine> {
    let agent = Arc::new(engine(task, false));
    let weak = Arc::downgrade(&agent);
    let lookup: live::Lookup =
        Arc::new(move |id: &str| (id == task).then(|| weak.upgrade()).flatten());
    agent.set_live_views(Arc::new(live::Lazy::new(lookup)));
    agent
}

async fn ok(engine: &Engine, method: &str, params: Value) -> Value {
    let envelope = engine.call(method, params.clone(), None).await.to_json();
    assert_eq!(envelope["ok"], true, "{method} {params}: {envelope:#}");
    envelope
}

/// The agent's wait for the person's hand-back, running beside the test (five minutes
/// at most).
fn waits_for_the_person(agent: &Arc<Engine>) -> tokio::task::JoinHandle<Value> {
    let agent = agent.clone();
    tokio::spawn(async move {
        agent
            .call(
                "handoff",
                json!({ "action": "wait" }),
                Some(Duration::from_secs(300)),
            )
            .await
            .to_json()
    })
}

/// A person's own browser (`task` names its engine) with the view at `url` open and
/// painting.
async fn opens_the_view(task: &str, url: &str) -> Engine {
    let person = engine(task, true);
    ok(&person, "navigate", json!({ "url": url })).await;
    until(
        &person,
        "Number(document.getElementById('screen').dataset.frames || 0) > 0",
    )
    .await;
    person
}

/// The status line of a plain GET.
fn status_of(url: &str) -> String {
    test_support::http_get(url).0
}

/// Waits in the person's browser until `condition` (JavaScript) holds in the live view.
async fn until(person: &Engine, condition: &str) {
    ok(
        person,
        "wait",
        json!({ "js": condition, "timeoutMs": 15000 }),
    )
    .await;
}

/// The task's page says the permission was granted (read as the person's live view
/// would show it: the agent is locked out).
async fn granted(agent: &Engine) {
    let seen = agent
        .person_call(
            "wait",
            json!({ "text": "Notifications granted", "timeoutMs": 10000 }),
        )
        .await
        .to_json();
    assert_eq!(seen["ok"], true, "{seen:#}");
}

fn origin(server: &FixtureServer) -> String {
    server.url("").trim_end_matches('/').to_string()
}

async fn read(person: &Engine, expression: &str) -> Value {
    ok(person, "eval", json!({ "expression": expression })).await["data"]["value"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_finishes_the_page_in_the_live_view_and_the_agent_gets_it_back() {
    let server = FixtureServer::start();
    let agent = agent("handoff");
    ok(
        &agent,
        "navigate",
        json!({ "url": server.url("handoff.html") }),
    )
    .await;
    // A second tab, for the person's tab switcher; the first stays current.
    ok(
        &agent,
        "navigate",
        json!({ "url": server.url("page-a.html"), "newTab": true }),
    )
    .await;
    ok(
        &agent,
        "tabs",
        json!({ "action": "select", "tabId": "tab0" }),
    )
    .await;

    let started = ok(
        &agent,
        "handoff",
        json!({ "reason": "Type the code and save it" }),
    )
    .await;
    assert_eq!(started["data"]["mode"], "WAITING_HUMAN", "{started:#}");
    let url = started["data"]["liveView"].as_str().unwrap().to_string();

    // The agent is locked out, nothing dispatched; status and diagnostics still answer.
    let locked = agent
        .call(
            "act",
            json!({ "action": "click", "selector": "#start" }),
            None,
        )
        .await
        .to_json();
    assert_eq!(locked["code"], "HANDOFF_LOCKED", "{locked:#}");
    assert_eq!(locked["execution"]["dispatchStarted"], false, "{locked:#}");
    assert_eq!(
        locked["execution"]["actionStatus"], "not-started",
        "{locked:#}"
    );
    let status = ok(&agent, "handoff", json!({ "action": "status" })).await;
    assert_eq!(status["data"]["mode"], "WAITING_HUMAN");
    ok(&agent, "diagnostics", json!({})).await;

    // No token, or another, is no page.
    let (without, _) = url.split_once("?token=").unwrap();
    assert!(status_of(without).contains("401"), "{}", status_of(without));
    assert!(status_of(&format!("{without}?token=nope")).contains("401"));

    // The agent waits for the person, as an agent would.
    let waiting = waits_for_the_person(&agent);

    // The person's own browser.
    let person = opens_the_view("person", &url).await;
    let reason = read(&person, "document.getElementById('reason').textContent").await;
    assert_eq!(reason, "The agent asks: Type the code and save it");
    // The tab switcher shows the other tab, and comes back.
    for tab in ["tab1", "tab0"] {
        let frames = read(
            &person,
            "Number(document.getElementById('screen').dataset.frames)",
        )
        .await;
        ok(
            &person,
            "act",
            json!({ "action": "select", "selector": "#tabs", "values": [tab], "snapshot": false }),
        )
        .await;
        until(
            &person,
            &format!(
                "document.getElementById('tabs').value === '{tab}' && Number(document.getElementById('screen').dataset.frames) > {frames}"
            ),
        )
        .await;
    }
    let before = read(&person, "document.getElementById('screen').src").await;

    // A click on the streamed image lands on the page's button; the frames change.
    ok(
        &person,
        "act",
        json!({ "action": "click", "selector": "#screen", "snapshot": false }),
    )
    .await;
    let changed = format!(
        "document.getElementById('screen').src !== {}",
        serde_json::to_string(&before).unwrap()
    );
    until(&person, &changed).await;
    // Keys typed once the image was clicked (the view's keyboard has the focus) reach
    // the page's focused field.
    for key in ["4", "2", "Enter"] {
        ok(
            &person,
            "act",
            json!({ "action": "press", "selector": "#keys", "keys": key, "snapshot": false }),
        )
        .await;
    }
    // The page's confirm comes to the person, who accepts it.
    until(
        &person,
        "document.getElementById('dialog').style.display === 'block'",
    )
    .await;
    let asked = read(
        &person,
        "document.getElementById('dialog-text').textContent",
    )
    .await;
    assert_eq!(asked, "The page asks (confirm): Save the code?");
    ok(
        &person,
        "act",
        json!({ "action": "click", "selector": "#dialog-accept", "snapshot": false }),
    )
    .await;
    until(
        &person,
        "document.getElementById('dialog').style.display === 'none'",
    )
    .await;

    let saved = agent
        .person_call("wait", json!({ "text": "Saved 42", "timeoutMs": 10000 }))
        .await
        .to_json();
    assert_eq!(saved["ok"], true, "{saved:#}");
    // Then the page asks to notify: the person allows it this time.
    until(
        &person,
        "document.getElementById('permission').style.display === 'block'",
    )
    .await;
    let asked = read(
        &person,
        "document.getElementById('permission-text').textContent",
    )
    .await;
    assert_eq!(
        asked,
        format!("{} asks for notifications:", origin(&server))
    );
    ok(
        &person,
        "act",
        json!({ "action": "click", "selector": "#permission-once", "snapshot": false }),
    )
    .await;
    until(
        &person,
        "document.getElementById('permission').style.display === 'none'",
    )
    .await;
    granted(&agent).await;
    // Asked again on another page of the site, the person always allows it; a third ask
    // is answered without them.
    for (page, choice) in [
        ("handoff.html?ask=1", Some("#permission-always")),
        ("handoff.html?ask=2", None),
    ] {
        ok(&person, "act", json!({ "action": "fill", "selector": "#address", "text": server.url(page), "snapshot": false })).await;
        ok(
            &person,
            "act",
            json!({ "action": "click", "selector": "#go", "snapshot": false }),
        )
        .await;
        if let Some(choice) = choice {
            until(
                &person,
                "document.getElementById('permission').style.display === 'block'",
            )
            .await;
            ok(
                &person,
                "act",
                json!({ "action": "click", "selector": choice, "snapshot": false }),
            )
            .await;
        }
        granted(&agent).await;
    }
    // Back one page: it asks again as it loads, and is answered without the person.
    ok(
        &person,
        "act",
        json!({ "action": "click", "selector": "#back", "snapshot": false }),
    )
    .await;
    granted(&agent).await;

    // A URL the task's policy refuses is refused in the address field too.
    ok(&person, "act", json!({ "action": "fill", "selector": "#address", "text": "file:///etc/passwd", "snapshot": false })).await;
    ok(
        &person,
        "act",
        json!({ "action": "click", "selector": "#go", "snapshot": false }),
    )
    .await;
    until(
        &person,
        "document.getElementById('error').textContent.startsWith('URL_BLOCKED')",
    )
    .await;

    // What the person sees, kept for a look.
    let shot = person.call("screenshot", json!({}), None).await;
    let image = shot.image.as_ref().expect("a screenshot of the live view");
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target");
    std::fs::create_dir_all(&target).unwrap();
    use base64::Engine as _;
    let png = base64::engine::general_purpose::STANDARD
        .decode(&image.data)
        .expect("base64");
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    std::fs::write(target.join("live-view.png"), png).unwrap();

    // Done hands back: the agent's wait returns the page as the person left it.
    let back = hands_back(&person, waiting).await;
    assert_eq!(back["data"]["mode"], "HANDOFF_COMPLETE", "{back:#}");
    let text = back["data"]["text"].as_str().unwrap();
    assert!(text.contains("Notifications granted"), "{text}");
    assert!(
        back["data"]["summary"]["navigations"][1]
            .as_str()
            .unwrap_or_default()
            .ends_with("?ask=2"),
        "{back:#}"
    );
    assert_eq!(
        back["data"]["summary"]["dialogs"],
        json!(["confirm accepted"]),
        "{back:#}"
    );
    let site = origin(&server);
    assert_eq!(
        back["data"]["summary"]["permissions"],
        json!([
            format!("notifications for {site}: allowed for this hand-off"),
            format!("notifications for {site}: always allowed"),
        ]),
        "{back:#}"
    );
    assert!(
        !back.to_string().contains("\"keys\""),
        "no keys are reported: {back:#}"
    );
    until(
        &person,
        "document.getElementById('ended').style.display === 'block'",
    )
    .await;

    // The token is spent; the agent drives again.
    assert!(status_of(&url).contains("401"));
    ok(&agent, "snapshot", json!({})).await;
    let status = ok(&agent, "handoff", json!({ "action": "status" })).await;
    assert_eq!(status["data"]["mode"], "AGENT_DRIVING");
    // Alone, the agent's page is denied what the person allowed, and told so (with the
    // command during which the page asked).
    let opened = ok(
        &agent,
        "navigate",
        json!({ "url": server.url("handoff.html?ask=3") }),
    )
    .await;
    let denied = ok(&agent, "wait", json!({ "text": "Notifications denied" })).await;
    let reported = [&opened, &denied]
        .iter()
        .any(|e| e["events"]["permission"][0]["permission"] == "notifications");
    assert!(reported, "{opened:#} {denied:#}");
    person.shutdown().await;
    agent.shutdown().await;
}

/// Clicks `selector` in the person's live view.
async fn click(person: &Engine, selector: &str) {
    ok(
        person,
        "act",
        json!({ "action": "click", "selector": selector, "snapshot": false }),
    )
    .await;
}

/// Goes to `url` through the live view's address field.
async fn go(person: &Engine, url: &str) {
    ok(
        person,
        "act",
        json!({ "action": "fill", "selector": "#address", "text": url, "snapshot": false }),
    )
    .await;
    click(person, "#go").await;
}

/// Waits, as the person (the agent is locked out), until the task's page shows `text`.
async fn page_shows(person: &Engine, agent: &Engine, text: &str) {
    let seen = agent
        .person_call("wait", json!({ "text": text, "timeoutMs": 15000 }))
        .await
        .to_json();
    if seen["ok"] != true {
        panic!("{text}: {seen:#}\n{}", explain(person, agent).await);
    }
}

/// Goes to `url` in the live view, waits until its load indicator shows `state`
/// (`loading`, `unanswering`), presses Stop, and waits until it shows the page loaded and
/// the task's page shows `text`.
async fn stops(person: &Engine, agent: &Engine, url: &str, state: &str, text: &str) {
    let load_is =
        |state: &str| format!("document.getElementById('load').dataset.state === {state:?}");
    go(person, url).await;
    until_shown(person, agent, &load_is(state)).await;
    click(person, "#stop").await;
    until_shown(person, agent, &load_is("loaded")).await;
    page_shows(person, agent, text).await;
}

/// Presses Done in the live view; the agent's pending wait (`waiting`), which must
/// return ok within a minute.
async fn hands_back(person: &Engine, waiting: tokio::task::JoinHandle<Value>) -> Value {
    click(person, "#done").await;
    let back = tokio::time::timeout(Duration::from_secs(60), waiting)
        .await
        .expect("the wait returns")
        .expect("the wait ran");
    assert_eq!(back["ok"], true, "{back:#}");
    back
}

/// Dispatches `events` (JavaScript constructing each) at the live view's keyboard, as
/// the person's browser does for a paste or an input method: a headless person has
/// neither a system clipboard nor an input method of their own.
async fn at_keyboard(person: &Engine, events: &str) {
    read(
        person,
        &format!(
            "(() => {{ const keys = document.getElementById('keys'); keys.focus(); for (const event of [{events}]) keys.dispatchEvent(event); return true; }})()"
        ),
    )
    .await;
}

/// The person's side of a hand-off beyond clicks and keys, each through the live view in
/// a second real Chromium and each seen on the task's page and in the summary: a pasted
/// 40-character string, an input method's composition committed, a key chord that
/// downloads a file, touch under the phone preset, find in page, a slow load stopped, a
/// link followed and a popup opened — then Done.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_pastes_composes_touches_finds_stops_and_manages_tabs_in_the_live_view() {
    let server = FixtureServer::start();
    let agent = agent("by-hand");
    ok(
        &agent,
        "navigate",
        json!({ "url": server.url("handoff-person.html") }),
    )
    .await;
    let started = ok(&agent, "handoff", json!({ "reason": "Finish the notes" })).await;
    let url = started["data"]["liveView"].as_str().unwrap().to_string();
    let waiting = waits_for_the_person(&agent);
    let person = opens_the_view("person-by-hand", &url).await;
    // A click near the centre focuses the page's field, and the view's keyboard.
    click(&person, "#screen").await;
    until_shown(&person, &agent, "document.activeElement.id === 'keys'").await;

    // A paste arrives whole, as one insertion.
    let pasted = "Paste: 0123456789 abcdefghij KLMNOPQRST!";
    assert_eq!(pasted.chars().count(), 40);
    at_keyboard(
        &person,
        &format!(
            "(() => {{ const data = new DataTransfer(); data.setData('text/plain', {}); return new ClipboardEvent('paste', {{ clipboardData: data, bubbles: true, cancelable: true }}); }})()",
            serde_json::to_string(pasted).unwrap()
        ),
    )
    .await;
    page_shows(&person, &agent, &format!("Field: {pasted}")).await;

    // An input method's composition: shown as it is composed, then committed as text.
    at_keyboard(
        &person,
        "new CompositionEvent('compositionstart', { data: '' }), \
         new CompositionEvent('compositionupdate', { data: 'にほん' }), \
         new CompositionEvent('compositionend', { data: '日本' })",
    )
    .await;
    page_shows(&person, &agent, &format!("Field: {pasted}日本")).await;
    page_shows(&person, &agent, "Composition: start").await;

    // A key chord: the page saves the field as a download, which the view lists.
    ok(
        &person,
        "act",
        json!({ "action": "press", "selector": "#keys", "keys": "Control+s", "snapshot": false }),
    )
    .await;
    page_shows(&person, &agent, "Saved as draft.txt").await;
    until_shown(
        &person,
        &agent,
        "document.getElementById('downloads').textContent.includes('draft.txt (completed)')",
    )
    .await;

    // Under the phone preset the person's pointer is a finger: a drag upward is a touch
    // path on the page.
    ok(
        &person,
        "act",
        json!({ "action": "select", "selector": "#viewport", "values": ["phone"], "snapshot": false }),
    )
    .await;
    until_shown(
        &person,
        &agent,
        "document.getElementById('viewport').value === 'phone' && document.getElementById('screen').naturalWidth === 390",
    )
    .await;
    ok(
        &person,
        "act",
        json!({ "action": "drag", "selector": "#screen", "to": { "selector": "#reason" }, "snapshot": false }),
    )
    .await;
    page_shows(&person, &agent, "Touches: start 1").await;
    page_shows(&person, &agent, ", end 1, upward").await;

    // Find in page: the word far below is selected and scrolled to.
    ok(
        &person,
        "act",
        json!({ "action": "fill", "selector": "#find", "text": "zeppelin", "snapshot": false }),
    )
    .await;
    click(&person, "#find-next").await;
    until_shown(
        &person,
        &agent,
        "document.getElementById('found').textContent === '1 match'",
    )
    .await;
    page_shows(&person, &agent, "Selected: zeppelin").await;

    // A load that never ends is shown loading, and stopped.
    stops(
        &person,
        &agent,
        &server.url("stream"),
        "loading",
        "The body of this page never ends.",
    )
    .await;

    let tabs = "document.getElementById('tabs').options.length";
    assert_eq!(read(&person, tabs).await, 1);
    // A link the person follows, and a popup they open, which is shown at once.
    go(&person, &server.url("handoff-person.html?links")).await;
    until_shown(
        &person,
        &agent,
        "document.getElementById('address').value.endsWith('?links')",
    )
    .await;
    // The person clicks the link they see: the page has drawn it.
    page_shows(&person, &agent, "Go on to page A").await;
    click(&person, "#screen").await;
    until_shown(
        &person,
        &agent,
        "document.getElementById('address').value.endsWith('page-a.html')",
    )
    .await;
    go(&person, &server.url("handoff-person.html?popup")).await;
    until_shown(
        &person,
        &agent,
        "document.getElementById('address').value.endsWith('?popup')",
    )
    .await;
    page_shows(&person, &agent, "Open page B in a new tab").await;
    click(&person, "#screen").await;
    until_shown(
        &person,
        &agent,
        &format!(
            "{tabs} === 2 && document.getElementById('address').value.endsWith('page-b.html')"
        ),
    )
    .await;

    let back = hands_back(&person, waiting).await;
    let summary = &back["data"]["summary"];
    let navigations: Vec<&str> = summary["navigations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for (i, page) in [
        "/stream",
        "?links",
        "/page-a.html",
        "?popup",
        "/page-b.html",
    ]
    .iter()
    .enumerate()
    {
        assert!(
            navigations.iter().any(|n| n.ends_with(page)),
            "navigation {i} to {page}: {summary:#}"
        );
    }
    let position = |end: &str| navigations.iter().position(|n| n.ends_with(end));
    assert!(
        position("?links") < position("/page-a.html"),
        "the link followed after its page: {summary:#}"
    );
    assert_eq!(
        summary["tabsOpened"].as_array().map(Vec::len),
        Some(1),
        "the popup: {summary:#}"
    );
    assert_eq!(summary["downloads"][0]["name"], "draft.txt", "{summary:#}");
    assert_eq!(summary["downloads"][0]["state"], "completed", "{summary:#}");
    assert_eq!(
        summary["input"]["text"], 2,
        "a paste and a composition: {summary:#}"
    );
    assert_eq!(summary["input"]["finds"], 1, "{summary:#}");
    assert!(
        summary["input"]["keystrokes"].as_u64() >= Some(1),
        "{summary:#}"
    );
    assert!(
        summary["input"]["pointer"].as_u64() >= Some(4),
        "{summary:#}"
    );
    let said = back.to_string();
    for private in [pasted, "日本", "zeppelin"] {
        assert!(
            !said.contains(&format!("\"{private}")),
            "{private} kept private: {back:#}"
        );
    }
    person.shutdown().await;
    agent.shutdown().await;
}

/// What the live view and the task show, for a step that did not come: the view's tabs,
/// load state and error line, the command holding the task and the task's own tabs.
async fn explain(person: &Engine, agent: &Engine) -> String {
    let view = person
        .call(
            "eval",
            json!({ "expression": "JSON.stringify({ tabs: [...document.getElementById('tabs').options].map((o) => o.textContent), load: document.getElementById('load').dataset.state, reopen: !document.getElementById('reopen').disabled, address: document.getElementById('address').value, error: document.getElementById('error').textContent, socket: document.body.dataset.socket })" }),
            None,
        )
        .await
        .to_json();
    format!(
        "view: {}\nholding the task: {:?}\nthe task's tabs: {:?}",
        view["data"]["value"],
        agent.active().map(|a| (a.method, a.command_id)),
        agent.tabs_now().await.map(|tabs| tabs
            .iter()
            .map(|t| (t.id.to_string(), t.state.url.clone(), t.active))
            .collect::<Vec<_>>()),
    )
}

/// [`until`], explaining what the view and the task show when `condition` does not come.
async fn until_shown(person: &Engine, agent: &Engine, condition: &str) {
    let waited = person
        .call("wait", json!({ "js": condition, "timeoutMs": 15000 }), None)
        .await
        .to_json();
    if waited["ok"] != true {
        panic!("{condition}: {waited:#}\n{}", explain(person, agent).await);
    }
}

/// The person's tabs and a page that hangs, through the live view in a second real
/// Chromium: a tab opened, sent somewhere, closed and reopened where it was; a page whose
/// script never returns shown as not answering, then stopped — each seen in the summary.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_opens_closes_and_reopens_a_tab_and_stops_a_hung_page_in_the_live_view() {
    let server = FixtureServer::start();
    let agent = agent("tabs-by-hand");
    ok(
        &agent,
        "navigate",
        json!({ "url": server.url("handoff-person.html") }),
    )
    .await;
    let started = ok(&agent, "handoff", json!({ "reason": "Look around" })).await;
    let url = started["data"]["liveView"].as_str().unwrap().to_string();
    let waiting = waits_for_the_person(&agent);
    let person = opens_the_view("person-tabs-by-hand", &url).await;

    let tabs = "document.getElementById('tabs').options.length";
    assert_eq!(read(&person, tabs).await, 1);
    click(&person, "#new-tab").await;
    until_shown(&person, &agent, &format!("{tabs} === 2")).await;
    go(&person, &server.url("page-b.html")).await;
    page_shows(&person, &agent, "Not submitted").await;
    until_shown(
        &person,
        &agent,
        "document.getElementById('address').value.endsWith('page-b.html')",
    )
    .await;
    click(&person, "#close-tab").await;
    until_shown(
        &person,
        &agent,
        &format!("{tabs} === 1 && !document.getElementById('reopen').disabled"),
    )
    .await;
    click(&person, "#reopen").await;
    until_shown(
        &person,
        &agent,
        &format!(
            "{tabs} === 2 && document.getElementById('address').value.endsWith('page-b.html') && document.getElementById('reopen').disabled"
        ),
    )
    .await;

    // A page whose script never returns is shown as not answering; Stop ends the script
    // and the page answers again.
    stops(
        &person,
        &agent,
        &server.url("hang.html"),
        "unanswering",
        "This page stops answering.",
    )
    .await;

    let back = hands_back(&person, waiting).await;
    let summary = &back["data"]["summary"];
    let navigations = summary["navigations"].to_string();
    for page in ["/page-b.html", "/hang.html"] {
        assert!(navigations.contains(page), "{page}: {summary:#}");
    }
    assert_eq!(
        summary["tabsOpened"].as_array().map(Vec::len),
        Some(2),
        "the new tab and its reopening: {summary:#}"
    );
    assert_eq!(
        summary["tabsClosed"].as_array().map(Vec::len),
        Some(1),
        "{summary:#}"
    );
    assert!(
        summary["tabsClosed"][0]
            .as_str()
            .unwrap_or_default()
            .ends_with("/page-b.html"),
        "{summary:#}"
    );
    person.shutdown().await;
    agent.shutdown().await;
}

/// A person watches the agent drive, in a second real Chromium: frames arrive and follow
/// the agent's navigation, the strip shows its commands, nothing the watcher sends reaches
/// the page, and Take over begins a hand-off — the agent is locked out and the watcher
/// has the live view — until Done.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_sees_the_agent_drive_sends_nothing_and_takes_over() {
    let server = FixtureServer::start();
    let agent = agent("watched");
    ok(
        &agent,
        "navigate",
        json!({ "url": server.url("page-a.html") }),
    )
    .await;
    let watching = ok(&agent, "handoff", json!({ "action": "watch" })).await;
    assert_eq!(watching["data"]["mode"], "AGENT_DRIVING", "{watching:#}");
    let url = watching["data"]["liveView"].as_str().unwrap().to_string();
    assert!(url.contains("/watch?token="), "{url}");

    let watcher = engine("watcher", true);
    ok(&watcher, "navigate", json!({ "url": url })).await;
    until(
        &watcher,
        "Number(document.getElementById('screen').dataset.frames || 0) > 0 && document.getElementById('where').textContent.includes('Page A')",
    )
    .await;
    // The token is spent: the same URL opens nothing for anyone else.
    assert!(status_of(&url).contains("401"), "{}", status_of(&url));

    // The agent drives on; the view follows and lists its commands.
    ok(
        &agent,
        "navigate",
        json!({ "url": server.url("page-b.html") }),
    )
    .await;
    until(
        &watcher,
        "document.getElementById('where').textContent.includes('Page B') && document.getElementById('strip').textContent.includes('navigate ok')",
    )
    .await;
    assert_eq!(
        read(&watcher, "document.getElementById('mode').textContent").await,
        "The agent drives"
    );

    // Input from the watcher is refused, and nothing reaches the page.
    read(
        &watcher,
        "socket.send(JSON.stringify({ type: 'key', key: 'Enter' })) || true",
    )
    .await;
    until(
        &watcher,
        "document.getElementById('error').textContent.startsWith('this view only watches')",
    )
    .await;
    let snapshot = ok(&agent, "snapshot", json!({})).await;
    assert!(
        snapshot["data"]["text"]
            .as_str()
            .unwrap()
            .contains("Not submitted"),
        "{snapshot:#}"
    );

    // Take over: a hand-off begins, the agent is locked out, the watcher has the live view.
    click(&watcher, "#take-over").await;
    until(
        &watcher,
        "!!document.getElementById('done') && Number(document.getElementById('screen').dataset.frames || 0) > 0",
    )
    .await;
    let locked = agent.call("snapshot", json!({}), None).await.to_json();
    assert_eq!(locked["code"], "HANDOFF_LOCKED", "{locked:#}");
    let status = ok(&agent, "handoff", json!({ "action": "status" })).await;
    assert_eq!(status["data"]["mode"], "WAITING_HUMAN", "{status:#}");
    assert_eq!(
        status["data"]["reason"], "The person watching took over",
        "{status:#}"
    );
    click(&watcher, "#done").await;
    let back = ok(
        &agent,
        "handoff",
        json!({ "action": "wait", "timeoutMs": 30000 }),
    )
    .await;
    assert_eq!(back["data"]["mode"], "HANDOFF_COMPLETE", "{back:#}");
    ok(&agent, "snapshot", json!({})).await;
    watcher.shutdown().await;
    agent.shutdown().await;
}

/// The parts of a raw request to the live view: the path and query, then extra header
/// lines. `Host` is the view's own unless a line gives another.
fn request(host: &str, target: &str, headers: &[String]) -> String {
    let mut lines = vec![format!("GET {target} HTTP/1.1")];
    if !headers
        .iter()
        .any(|h| h.to_ascii_lowercase().starts_with("host:"))
    {
        lines.push(format!("Host: {host}"));
    }
    lines.extend(headers.iter().cloned());
    if !headers
        .iter()
        .any(|h| h.to_ascii_lowercase().starts_with("connection:"))
    {
        lines.push("Connection: close".into());
    }
    lines.join("\r\n") + "\r\n\r\n"
}

/// The header lines of a WebSocket handshake.
fn upgrade(extra: &[String]) -> Vec<String> {
    let mut lines: Vec<String> = [
        "Upgrade: websocket",
        "Connection: Upgrade",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version: 13",
    ]
    .map(String::from)
    .to_vec();
    lines.extend(extra.iter().cloned());
    lines
}

/// The value of header `name` in a response head.
fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

/// The live view's token opens one person's session, once: the first page load spends it
/// for a cookie, and nothing else gets in with it — not a second load of the same URL,
/// not a second socket while the person's is open, not a request that names another
/// host (a DNS-rebinding page) or comes from another origin (any page on 127.0.0.1 is the
/// same site). Nothing of it is cached, framed or sent on as a referrer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_view_opens_once_for_one_person_on_its_own_address_only() {
    let server = FixtureServer::start();
    let agent = agent("door");
    ok(
        &agent,
        "navigate",
        json!({ "url": server.url("handoff.html") }),
    )
    .await;
    let started = ok(&agent, "handoff", json!({ "reason": "Sign in" })).await;
    let url = started["data"]["liveView"].as_str().unwrap().to_string();
    let rest = url.strip_prefix("http://").unwrap();
    let (host, target) = rest.split_once('/').unwrap();
    let (host, target) = (host.to_string(), format!("/{target}"));
    let path = target.split_once('?').unwrap().0.to_string();
    let socket_path = format!("{path}/ws");
    let origin = format!("Origin: http://{host}");

    tokio::task::spawn_blocking(move || {
        let send = |target: &str, headers: &[String]| {
            test_support::http_exchange(&host, &request(&host, target, headers))
        };
        // Another name for the address (a rebinding page's own) is refused, and spends
        // nothing.
        let (head, _) = send(&target, &["Host: rebound.example".to_string()]);
        assert!(head.starts_with("HTTP/1.1 403"), "{head}");

        // The first load opens the session: a cookie for the view's path only, kept from
        // scripts, never sent by another site; the page is not stored, framed or referred.
        let (head, _) = send(&target, &[]);
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        let cookie = header(&head, "set-cookie")
            .expect("a session cookie")
            .to_string();
        for part in ["HttpOnly", "SameSite=Strict", &format!("Path={path}")] {
            assert!(cookie.contains(part), "{part} in {cookie}");
        }
        let session = cookie.split(';').next().unwrap().to_string();
        assert!(
            !session.contains(target.split("token=").nth(1).unwrap()),
            "{session}"
        );
        assert_eq!(header(&head, "cache-control"), Some("no-store"), "{head}");
        assert_eq!(
            header(&head, "referrer-policy"),
            Some("no-referrer"),
            "{head}"
        );
        assert!(
            header(&head, "content-security-policy")
                .is_some_and(|csp| csp.contains("frame-ancestors 'none'")),
            "{head}"
        );

        // The token is spent: a second load with it alone is refused (and says so as
        // privately); with the cookie, the person's reload is the page again.
        let (head, _) = send(&target, &[]);
        assert!(head.starts_with("HTTP/1.1 401"), "{head}");
        assert_eq!(header(&head, "cache-control"), Some("no-store"), "{head}");
        let with_cookie = format!("Cookie: {session}");
        let (head, _) = send(&target, std::slice::from_ref(&with_cookie));
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");

        // The socket: the cookie, from the view's own origin, to its own host.
        for (why, headers, status) in [
            ("no cookie", vec![origin.clone()], "401"),
            ("no origin", vec![with_cookie.clone()], "403"),
            (
                "another origin",
                vec![with_cookie.clone(), "Origin: http://127.0.0.1:1".into()],
                "403",
            ),
            (
                "another host",
                vec![
                    with_cookie.clone(),
                    origin.clone(),
                    "Host: rebound.example".into(),
                ],
                "403",
            ),
        ] {
            let (head, _) = send(&socket_path, &upgrade(&headers));
            assert!(
                head.starts_with(&format!("HTTP/1.1 {status}")),
                "{why}: {head}"
            );
        }
        let (head, _) = send(
            &format!("{socket_path}?{}", target.split_once('?').unwrap().1),
            &upgrade(std::slice::from_ref(&origin)),
        );
        assert!(
            head.starts_with("HTTP/1.1 401"),
            "the spent token opens no socket: {head}"
        );
        let (head, first) = send(
            &socket_path,
            &upgrade(&[with_cookie.clone(), origin.clone()]),
        );
        assert!(head.starts_with("HTTP/1.1 101"), "{head}");
        // One person, one socket: a second is refused while the first is open.
        let (head, _) = send(
            &socket_path,
            &upgrade(&[with_cookie.clone(), origin.clone()]),
        );
        assert!(head.starts_with("HTTP/1.1 409"), "a second socket: {head}");
        drop(first);
    })
    .await
    .unwrap();
    agent.shutdown().await;
}
