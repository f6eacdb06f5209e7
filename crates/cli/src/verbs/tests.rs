use clap::Parser;
use serde_json::json;

use super::args::{ActArgs, TabArg};
use super::request::read_json;
use super::*;

#[derive(Debug, Parser)]
struct Line {
    #[command(subcommand)]
    verb: Verb,
}

/// Every sugar verb, with every flag it has, makes params its tool's schema accepts:
/// the verbs cannot drift from the catalogue's spelling.
#[test]
fn every_verbs_params_validate_against_its_tools_schema() {
    let lines: &[&[&str]] = &[
        &["open", "http://127.0.0.1/", "--new-tab", "--tab", "tab1"],
        &["back", "--tab", "tab1"],
        &["forward"],
        &["reload", "--ignore-cache", "--tab", "tab0"],
        &["tabs"],
        &["tabs", "new", "http://127.0.0.1/"],
        &["tabs", "select", "tab1"],
        &["tabs", "close", "tab1"],
        &["tabs", "close", "tab1", "tab2"],
        &[
            "snapshot",
            "--mode",
            "markdown",
            "--max-chars",
            "100",
            "--tab",
            "tab0",
        ],
        &["snapshot", "--max-tokens", "500", "--diff"],
        &[
            "find", "Save", "--role", "button", "--name", "Save", "--limit", "3", "--tab", "tab0",
        ],
        &[
            "click",
            "e4k2",
            "--expect-text",
            "Saved",
            "--expect-url",
            "http://x/",
            "--expect-timeout-ms",
            "100",
            "--snapshot-id",
            "tab0-s1",
            "--tab",
            "tab0",
        ],
        &["fill", "e4k2", "hello", "--submit"],
        &[
            "click",
            "e4k2",
            "--expect",
            r##"{"selector":"#done","state":"visible","js":"1","equals":1}"##,
            "--expect-text",
            "Done",
            "--readback",
            "document.title",
            "--expect-popup",
        ],
        &["type", "e4k2", "hello"],
        &["press", "Enter", "--ref", "e4k2"],
        &["press", "Control+A"],
        &["select", "e4k2", "a", "b"],
        &["check", "e4k2"],
        &["uncheck", "e4k2"],
        &["hover", "e4k2"],
        &["scroll", "--dy", "-200"],
        &["scroll", "e4k2"],
        &["next"],
        &["next", "e4k2", "--tab", "tab1"],
        &["upload", "e4k2", "a.txt"],
        &["upload", "e4k2", "a.txt", "--response-url", "*/api/upload*"],
        &[
            "wait",
            "--selector",
            "#x",
            "--state",
            "hidden",
            "--timeout-ms",
            "100",
            "--tab",
            "tab0",
        ],
        &["wait", "--text", "Saved"],
        &["wait", "--url", "http://x/"],
        &["wait", "--js", "1"],
        &[
            "screenshot",
            "--preset",
            "phone",
            "--selector",
            "#x",
            "--format",
            "jpeg",
            "--max-width",
            "800",
        ],
        &["viewport", "custom", "--width", "800", "--height", "600"],
        &["viewport"],
        &["state", "save", "shop"],
        &["state", "list"],
        &[
            "logs",
            "network",
            "--url-matches",
            "/api/",
            "--status",
            "4xx",
            "--method",
            "POST",
            "--since",
            "12",
            "--limit",
            "5",
            "--tab",
            "tab0",
        ],
        &["logs", "--level", "warning"],
        &["logs", "--entry", "n14"],
        &[
            "eval",
            "document.title",
            "--max-chars",
            "100",
            "--tab",
            "tab0",
        ],
        &["form-state", "--scope", "form"],
        &["dialog", "accept", "--prompt-text", "yes"],
        &["dialog", "dismiss"],
        &["recall"],
        &["recall", "tab0-s3", "--offset", "4000", "--limit", "12000"],
        &["recall", "--query", "blue heron", "--limit", "5"],
        &["checkpoint", "list"],
        &["checkpoint", "restore", "tab0-s7.1", "--tab", "tab1"],
        &["handoff", "Solve the CAPTCHA"],
        &["handoff", "--status"],
        &["handoff", "--wait", "--timeout-ms", "600000"],
    ];
    let mut tools_seen = std::collections::BTreeSet::new();
    for argv in lines {
        let parsed = Line::try_parse_from(std::iter::once(&"candor").chain(argv.iter()))
            .unwrap_or_else(|e| panic!("{argv:?}: {e}"));
        let (request, _) = request(parsed.verb, "t").unwrap();
        let Request::Tool { method, params } = request else {
            panic!("{argv:?} is a tool verb");
        };
        let tool = tools::find(&method).unwrap_or_else(|| panic!("no tool {method}"));
        let validator = jsonschema::validator_for(&tool.input_schema).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&params)
            .map(|e| e.to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "{argv:?} -> {method} {params}: {errors:?}"
        );
        tools_seen.insert(method);
    }
    // Every tool with sugar is covered above.
    for tool in [
        "navigate",
        "tabs",
        "snapshot",
        "find",
        "act",
        "wait",
        "screenshot",
        "viewport",
        "eval",
        "form_state",
        "dialog",
        "recall",
        "checkpoint",
        "handoff",
    ] {
        assert!(tools_seen.contains(tool), "{tool} has no line above");
    }
}

#[test]
fn choices_come_from_the_schema() {
    for (argv, ok) in [
        (&["snapshot", "--mode", "html"][..], true),
        (&["snapshot", "--mode", "pdf"][..], false),
        (&["wait", "--selector", "#x", "--state", "gone"][..], false),
        (&["viewport", "huge"][..], false),
    ] {
        let parsed = Line::try_parse_from(std::iter::once(&"candor").chain(argv.iter()));
        assert_eq!(parsed.is_ok(), ok, "{argv:?}");
    }
}

/// `run TOOL -p key=value`: each value typed by the tool's schema, over `--params`.
#[test]
fn run_takes_params_one_by_one_typed_by_the_schema() {
    let line = Line::try_parse_from([
        "candor",
        "run",
        "snapshot",
        "--params",
        r#"{"mode":"html","diff":false}"#,
        "-p",
        "mode=text",
        "-p",
        "maxChars=300",
        "-p",
        "diff=true",
    ])
    .expect("parses");
    let (Request::Tool { method, params }, _) = request(line.verb, "t").expect("a request") else {
        panic!("not a tool call");
    };
    assert_eq!(method, "snapshot");
    assert_eq!(
        params,
        json!({ "mode": "text", "maxChars": 300, "diff": true })
    );
    let line = Line::try_parse_from([
        "candor",
        "run",
        "act",
        "-p",
        "action=select",
        "-p",
        r#"values=["a","b"]"#,
    ])
    .expect("parses");
    let (Request::Tool { params, .. }, _) = request(line.verb, "t").expect("a request") else {
        panic!("not a tool call");
    };
    assert_eq!(params, json!({ "action": "select", "values": ["a", "b"] }));
    for bad in [
        ["-p", "maxChars=lots"],
        ["-p", "diff=yes"],
        ["-p", "novalue"],
        ["-p", "=1"],
    ] {
        let line = Line::try_parse_from(["candor", "run", "snapshot"].into_iter().chain(bad))
            .expect("parses");
        assert!(request(line.verb, "t").is_err(), "{bad:?}");
    }
}

/// The seed's `save.json` through `run`: `--params @file` with the act's `timeoutMs`,
/// `--expect @file` and `--readback @file` land where the tool takes them; a
/// `commandTimeoutMs` among the params is refused saying where it belongs.
#[test]
fn run_takes_the_expectation_and_the_readback_from_files() {
    let dir = tempfile::tempdir().expect("a folder");
    let expect = dir.path().join("expect.json");
    std::fs::write(&expect, r#"{"js":"1","equals":1,"timeoutMs":3000}"#).expect("written");
    let readback = dir.path().join("readback.js");
    std::fs::write(&readback, "\u{feff}document.title").expect("written");
    let save = dir.path().join("save.json");
    std::fs::write(
        &save,
        r#"{"action":"click","role":"button","name":"Save","exact":true,"timeoutMs":2000}"#,
    )
    .expect("written");
    let at = |path: &std::path::Path| format!("@{}", path.display());
    let line = Line::try_parse_from([
        "candor".to_string(),
        "run".into(),
        "act".into(),
        "--params".into(),
        at(&save),
        "--expect".into(),
        at(&expect),
        "--readback".into(),
        at(&readback),
    ])
    .expect("parses");
    let (Request::Tool { params, .. }, _) = request(line.verb, "t").expect("a request") else {
        panic!("not a tool call");
    };
    assert_eq!(params["expect"]["equals"], 1);
    assert_eq!(params["readback"], "document.title");
    assert_eq!(params["timeoutMs"], 2000);
    let schema = &tools::find("act").expect("act").input_schema;
    assert!(schema["properties"].get("actionTimeoutMs").is_some());

    std::fs::write(&save, r#"{"action":"click","commandTimeoutMs":8000}"#).expect("written");
    let line = Line::try_parse_from([
        "candor".to_string(),
        "run".into(),
        "act".into(),
        "--params".into(),
        at(&save),
    ])
    .expect("parses");
    let refused = request(line.verb, "t").err().expect("refused");
    assert!(refused.contains("--command-timeout-ms"), "{refused}");

    let line =
        Line::try_parse_from(["candor".to_string(), "eval".into(), at(&readback)]).expect("parses");
    let (Request::Tool { params, .. }, _) = request(line.verb, "t").expect("a request") else {
        panic!("not a tool call");
    };
    assert_eq!(params["expression"], "document.title");
}

#[test]
fn params_text_may_start_with_a_bom() {
    assert_eq!(
        read_json("\u{feff}{\"mode\":\"text\"}").expect("valid"),
        json!({ "mode": "text" })
    );
    assert!(read_json("{mode}").is_err());
    assert!(read_json("@/no/such/file.json").is_err());
}

#[test]
fn act_verbs_carry_the_expectation_and_only_what_was_given() {
    let act = ActArgs {
        expect_text: Some("Saved".into()),
        expect_url: None,
        expect_timeout_ms: None,
        expect: None,
        readback: None,
        expect_popup: false,
        snapshot_id: None,
        tab: TabArg::default(),
    };
    let params = act.params("click", Some("e4k2".into()), json!({})).unwrap();
    assert_eq!(
        params,
        json!({ "action": "click", "ref": "e4k2", "expect": { "text": "Saved" } })
    );
}
