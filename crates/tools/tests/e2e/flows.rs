//! Flows (docs/faces.md#flows): an agent-style session on the demo shop (sign in, add two items,
//! check out, each with an expect) is exported and replayed on fresh tasks — as it
//! was, on a site that re-ordered its products and changed every element id, and on
//! sites whose button was renamed or whose price changed, where the replay must stop at
//! the right step with the right code. The shop is the demo's own pages, copied into a
//! folder the test can change under the server (`fixtures/flows/` holds the variants).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use static_site::{Files, StaticSite};
use tools::flow::{self, Flow};

use crate::harness::Harness;

const PASSWORD: &str = "correct-horse-42";

/// The demo shop, served from a folder of its own.
struct Shop {
    dir: tempfile::TempDir,
    site: StaticSite,
}

impl Shop {
    fn new() -> Shop {
        let dir = tempfile::tempdir().unwrap();
        copy_pages(&repo().join("crates/cli/site"), dir.path());
        let site = StaticSite::start(Files::Dir(dir.path().to_path_buf())).unwrap();
        Shop { dir, site }
    }

    /// The shop as the variant `name` of `fixtures/flows/` changes it.
    fn vary(self, name: &str) -> Shop {
        copy_pages(
            &test_support::fixtures_dir().join("flows").join(name),
            self.dir.path(),
        );
        self
    }

    fn url(&self, path: &str) -> String {
        self.site.url(path)
    }
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn copy_pages(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "html") {
            std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
        }
    }
}

/// The ref on the line of `snapshot` that starts with `line` (`button "Log in"`).
fn ref_of(snapshot: &Value, line: &str) -> String {
    let text = snapshot["data"]["text"].as_str().unwrap();
    text.lines()
        .map(str::trim_start)
        .filter_map(|l| l.strip_prefix("- "))
        .find_map(|l| {
            l.strip_prefix(line)?
                .trim_start()
                .strip_prefix('[')?
                .split(']')
                .next()
                .map(str::to_string)
        })
        .unwrap_or_else(|| panic!("no line {line:?} in\n{text}"))
}

/// The session an agent would have: reads, a refused click, and acts with expects.
async fn shop_session(h: &Harness, shop: &Shop) -> Value {
    h.ok("navigate", json!({ "url": shop.url("login.html") }))
        .await;
    let page = h.ok("snapshot", json!({})).await;
    h.ok(
        "act",
        json!({ "action": "fill", "ref": ref_of(&page, "textbox \"Username\""), "text": "ada" }),
    )
    .await;
    h.ok(
        "act",
        json!({ "action": "fill", "ref": ref_of(&page, "textbox \"Password\""), "text": PASSWORD }),
    )
    .await;
    h.ok(
        "act",
        json!({ "action": "click", "ref": ref_of(&page, "button \"Log in\""),
                "expect": { "text": "Signed in as ada" } }),
    )
    .await;
    let catalog = h.ok("snapshot", json!({})).await;
    // Refused before anything ran: a flow leaves it out.
    h.fails(
        "act",
        json!({ "action": "click", "role": "button", "name": "Add to cart" }),
        "AMBIGUOUS_LOCATOR",
    )
    .await;
    h.ok(
        "act",
        json!({ "action": "click", "ref": ref_of(&catalog, "button \"Add to cart\""),
                "expect": { "text": "Cart: 1 item (Brass lantern)" } }),
    )
    .await;
    // By position this time: the flow keeps the identity behind it, never the position.
    h.ok(
        "act",
        json!({ "action": "click", "role": "button", "name": "Add to cart", "nth": 1,
                "expect": { "text": "Cart: 2 items (Brass lantern, Wool blanket)" } }),
    )
    .await;
    h.ok("find", json!({ "text": "Check out" })).await;
    h.ok(
        "act",
        json!({ "action": "click", "role": "link", "name": "Check out",
                "expect": { "text": "Total: $82.50" } }),
    )
    .await;
    h.ok(
        "act",
        json!({ "action": "click", "role": "button", "name": "Place order",
                "expect": { "text": "Order placed: 2 items, $82.50" } }),
    )
    .await;
    let exported = h.ok("flow", json!({ "action": "export" })).await;
    exported["data"]["flow"].clone()
}

/// Panics unless `flow` is valid under the published schema file.
fn valid_under_published_schema(flow: &Value) {
    let text = std::fs::read_to_string(repo().join(flow::SCHEMA_FILE)).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(flow)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{flow:#}");
}

/// Replays `flow` with the password on a fresh task.
async fn replay(flow: &Value, task: &str) -> flow::Report {
    let h = Harness::with(|o| o.task_id = task.into());
    let vars = BTreeMap::from([("password".to_string(), PASSWORD.to_string())]);
    let bound = Flow::parse(flow).unwrap().bind(&vars).unwrap();
    let report = flow::run(&h.engine, &bound).await;
    for (step, envelope) in bound.steps.iter().zip(&report.steps) {
        crate::harness::conforms(&step.method, envelope);
    }
    h.shutdown().await;
    report
}

async fn recorded_flow(shop: &Shop) -> Value {
    let h = Harness::with(|o| o.task_id = "agent".into());
    let flow = shop_session(&h, shop).await;
    h.shutdown().await;
    flow
}

#[tokio::test]
async fn a_shop_session_exports_without_its_password_and_replays_green_on_a_fresh_task() {
    let shop = Shop::new();
    let flow = recorded_flow(&shop).await;
    valid_under_published_schema(&flow);
    let text = flow.to_string();
    assert!(
        !text.contains(PASSWORD),
        "the password is in the flow: {flow:#}"
    );
    assert!(text.contains("{{password}}"), "{flow:#}");
    assert_eq!(flow["variables"]["password"]["sensitive"], true, "{flow:#}");
    let steps = flow["steps"].as_array().unwrap();
    let methods: Vec<&str> = steps
        .iter()
        .map(|s| s["method"].as_str().unwrap())
        .collect();
    // The reads and the refused click are left out.
    assert_eq!(
        methods,
        ["navigate", "act", "act", "act", "act", "act", "act", "act"],
        "{flow:#}"
    );
    assert_eq!(steps[0]["expect"]["url"], shop.url("login.html"));
    assert_eq!(steps[1]["params"]["text"], "ada");
    assert_eq!(steps[1]["url"], shop.url("login.html"));
    let login = &steps[3];
    assert_eq!(login["target"]["role"], "button");
    assert_eq!(login["target"]["name"], "Log in");
    assert!(login["target"]["ref"].as_str().is_some(), "{login:#}");
    assert_eq!(
        login["target"]["containers"],
        json!([{ "role": "main", "name": "" }, { "role": "form", "name": "Sign in" }])
    );
    assert_eq!(login["params"]["expect"]["text"], "Signed in as ada");
    assert_eq!(
        login["expect"]["url"],
        shop.url("catalog.html"),
        "the URL reached"
    );
    let second = &steps[5];
    assert_eq!(second["params"]["nth"], 1, "the params as given");
    assert_eq!(second["target"]["heading"], "Wool blanket", "{second:#}");
    assert!(
        second["target"]["containers"]
            .as_array()
            .unwrap()
            .contains(&json!({ "role": "listitem", "name": "Wool blanket" })),
        "{second:#}"
    );

    let report = replay(&flow, "fresh").await;
    assert!(report.ok(), "{:#?}", report.failure);
    assert_eq!(report.steps.len(), steps.len());
    let last = report.steps.last().unwrap();
    assert_eq!(last["verification"]["verified"], true, "{last:#}");
    // The journal of the replay never held the password either.
    assert!(
        !report
            .steps
            .iter()
            .any(|s| s.to_string().contains(PASSWORD))
    );
}

#[tokio::test]
async fn a_flow_replays_by_identity_when_the_products_are_reordered_and_every_id_changed() {
    let shop = Shop::new();
    let flow = recorded_flow(&shop).await;
    let shop = shop.vary("reordered");
    let report = replay(&flow, "reordered").await;
    // By position the second click would have added the compass; the total says it was
    // the blanket.
    assert!(report.ok(), "{:#?}", report.failure);
    assert_eq!(report.steps.len(), 8);
    drop(shop);
}

#[tokio::test]
async fn a_renamed_button_stops_the_replay_at_its_step_with_element_not_found() {
    let shop = Shop::new();
    let flow = recorded_flow(&shop).await;
    let shop = shop.vary("renamed");
    let report = replay(&flow, "renamed").await;
    let failure = report.failure.expect("the replay must stop");
    assert_eq!(failure["step"], 5, "{failure:#}");
    assert_eq!(failure["code"], "ELEMENT_NOT_FOUND", "{failure:#}");
    assert_eq!(report.steps.len(), 5, "nothing ran after it");
    assert!(
        failure["expected"]
            .as_str()
            .unwrap()
            .starts_with("button \"Add to cart\" in listitem \"Brass lantern\""),
        "{failure:#}"
    );
    assert_eq!(failure["recordedUrl"], shop.url("catalog.html"));
    let snapshot = failure["snapshot"].as_str().unwrap();
    assert!(snapshot.contains("Add to basket"), "{snapshot}");
}

#[tokio::test]
async fn a_changed_price_stops_the_replay_at_the_checkout_with_expectation_failed() {
    let shop = Shop::new();
    let flow = recorded_flow(&shop).await;
    let _shop = shop.vary("repriced");
    let report = replay(&flow, "repriced").await;
    let failure = report.failure.expect("the replay must stop");
    assert_eq!(failure["step"], 7, "{failure:#}");
    assert_eq!(failure["code"], "EXPECTATION_FAILED", "{failure:#}");
    assert_eq!(failure["expected"]["text"], "Total: $82.50", "{failure:#}");
    assert!(
        failure["seen"].to_string().contains("$85.00"),
        "{failure:#}"
    );
    assert!(
        failure["snapshot"]
            .as_str()
            .unwrap()
            .contains("Total: $85.00")
    );
}

#[tokio::test]
async fn a_missing_variable_is_refused_before_the_first_step() {
    let shop = Shop::new();
    let flow = recorded_flow(&shop).await;
    let parsed = Flow::parse(&flow).unwrap();
    let refused = parsed.bind(&BTreeMap::new()).unwrap_err();
    assert_eq!(refused.code, tools::Code::InvalidParams);
    assert!(
        refused.message.contains("\"password\""),
        "{}",
        refused.message
    );
    assert!(refused.hint.contains("--var password="), "{}", refused.hint);
}

#[tokio::test]
async fn a_replayed_step_keeps_the_secret_out_of_the_journal_and_the_new_flow() {
    let shop = Shop::new();
    let flow = recorded_flow(&shop).await;
    let h = Harness::with(|o| o.task_id = "again".into());
    let vars = BTreeMap::from([("password".to_string(), PASSWORD.to_string())]);
    let bound = Flow::parse(&flow).unwrap().bind(&vars).unwrap();
    assert!(
        bound.steps[2].sensitive,
        "the password's step runs sensitive"
    );
    let report = flow::run(&h.engine, &bound).await;
    assert!(report.ok(), "{:#?}", report.failure);
    let journal = h.ok("diagnostics", json!({ "limit": 100 })).await;
    assert!(!journal.to_string().contains(PASSWORD));
    // A replay is itself a session: its export is the same flow again, minus secrets.
    let again = h.ok("flow", json!({ "action": "export" })).await["data"]["flow"].clone();
    valid_under_published_schema(&again);
    assert!(!again.to_string().contains(PASSWORD), "{again:#}");
    assert_eq!(
        again["steps"].as_array().unwrap().len(),
        flow["steps"].as_array().unwrap().len()
    );
    h.shutdown().await;
}

#[tokio::test]
async fn a_step_target_with_a_locator_or_on_a_tool_that_acts_on_no_element_is_refused() {
    let h = Harness::new();
    let target = browser::ElementIdentity {
        role: "button".into(),
        name: "Go".into(),
        containers: Vec::new(),
        heading: String::new(),
        ordinal: 0,
    };
    let options = tools::CallOptions {
        target: Some(target.clone()),
        ..tools::CallOptions::default()
    };
    let refused = h
        .engine
        .call_with("navigate", json!({ "url": "about:blank" }), options.clone())
        .await;
    assert_eq!(refused.code, Some(tools::Code::InvalidParams));
    let both = h
        .engine
        .call_with(
            "act",
            json!({ "action": "click", "selector": "button" }),
            options,
        )
        .await;
    assert_eq!(both.code, Some(tools::Code::InvalidParams));
    let bad_expect = tools::CallOptions {
        expect: Some(json!({ "text": " " })),
        ..tools::CallOptions::default()
    };
    let empty = h
        .engine
        .call_with("navigate", json!({ "url": "about:blank" }), bad_expect)
        .await;
    assert_eq!(empty.code, Some(tools::Code::EmptyCondition));
    h.shutdown().await;
}

#[tokio::test]
async fn a_wait_is_kept_other_reads_are_not_and_a_sensitive_commands_values_become_variables() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("login.html") }))
        .await;
    h.ok("snapshot", json!({ "mode": "text" })).await;
    h.ok("wait", json!({ "text": "Not signed in" })).await;
    h.ok("tabs", json!({ "action": "list" })).await;
    let sensitive = tools::CallOptions {
        sensitive: true,
        ..tools::CallOptions::default()
    };
    // Its expect may spell the secret: a flow keeps the step, not the expect.
    let filled = h
        .engine
        .call_with(
            "act",
            json!({ "action": "fill", "role": "textbox", "name": "User", "text": "secret-user",
                    "expect": { "text": "Not signed in" } }),
            sensitive,
        )
        .await;
    assert!(filled.ok, "{:#}", filled.to_json());
    let flow = h.ok("flow", json!({ "action": "export" })).await["data"]["flow"].clone();
    valid_under_published_schema(&flow);
    let steps = flow["steps"].as_array().unwrap();
    let methods: Vec<&str> = steps
        .iter()
        .map(|s| s["method"].as_str().unwrap())
        .collect();
    assert_eq!(methods.first(), Some(&"navigate"), "{flow:#}");
    assert_eq!(methods[1], "wait", "{flow:#}");
    assert!(
        !methods.contains(&"snapshot") && !methods.contains(&"tabs"),
        "{flow:#}"
    );
    let last = steps.last().unwrap();
    assert_eq!(last["sensitive"], true);
    assert_eq!(last["params"]["text"], "{{user}}", "{last:#}");
    assert!(last["params"].get("expect").is_none(), "{last:#}");
    assert!(
        last.get("url").is_none(),
        "a sensitive step says nowhere it ran"
    );
    assert!(!flow.to_string().contains("secret-user"), "{flow:#}");
    assert_eq!(flow["variables"]["user"]["sensitive"], true);
    h.shutdown().await;
}

#[tokio::test]
async fn an_identity_shared_by_two_elements_is_resolved_only_by_its_full_identity_never_guessed() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("flows/twins.html") }))
        .await;
    let save = |ordinal| tools::CallOptions {
        target: Some(browser::ElementIdentity {
            role: "button".into(),
            name: "Save".into(),
            containers: vec![("main".into(), String::new())],
            heading: String::new(),
            ordinal,
        }),
        ..tools::CallOptions::default()
    };
    // The whole identity, its place among equals included (docs/observation.md#refs), names one.
    let second = h
        .engine
        .call_with(
            "act",
            json!({ "action": "click", "expect": { "text": "second" } }),
            save(1),
        )
        .await;
    assert!(second.ok, "{:#}", second.to_json());
    assert_eq!(second.data["relocated"], false);
    // No element has that identity, and two could stand in for it: refused, not guessed.
    let ambiguous = h
        .engine
        .call_with("act", json!({ "action": "click" }), save(5))
        .await
        .to_json();
    assert_eq!(ambiguous["code"], "AMBIGUOUS_LOCATOR", "{ambiguous:#}");
    assert_eq!(ambiguous["data"]["matched"], 2, "{ambiguous:#}");
    assert_eq!(ambiguous["execution"]["actionStatus"], "not-started");
    h.shutdown().await;
}
