//! Checks the typed subset against the protocol description of the Chromium we target
//! (`protocol/chromium-156.json`, reduced from `/json/protocol` by `protocol/reduce.py`).

use serde_json::Value;

fn protocol() -> Value {
    serde_json::from_str(include_str!("../../protocol/chromium-156.json"))
        .expect("vendored protocol")
}

fn all_commands() -> Vec<(&'static str, Value)> {
    [
        super::accessibility::commands(),
        super::dom::commands(),
        super::dom_snapshot::commands(),
        super::input::commands(),
        super::browser::commands(),
        super::emulation::commands(),
        super::fetch::commands(),
        super::network::commands(),
        super::page::commands(),
        super::performance::commands(),
        super::runtime::commands(),
        super::storage::commands(),
        super::target::commands(),
    ]
    .concat()
}

fn all_events() -> Vec<&'static str> {
    [
        super::browser::EVENTS,
        super::fetch::EVENTS,
        super::inspector::EVENTS,
        super::network::EVENTS,
        super::page::EVENTS,
        super::runtime::EVENTS,
        super::target::EVENTS,
    ]
    .concat()
}

fn lookup<'a>(protocol: &'a Value, kind: &str, name: &str) -> Option<&'a Value> {
    let (domain, member) = name.split_once('.')?;
    protocol["domains"][domain][kind].get(member)
}

#[test]
fn every_typed_command_exists_with_its_required_parameters() {
    let protocol = protocol();
    let mut problems = Vec::new();
    for (method, params) in all_commands() {
        let Some(spec) = lookup(&protocol, "commands", method) else {
            problems.push(format!("{method}: no such command"));
            continue;
        };
        let known = spec["parameters"].as_object().cloned().unwrap_or_default();
        let sent = params.as_object().cloned().unwrap_or_default();
        for key in sent.keys() {
            if !known.contains_key(key) {
                problems.push(format!("{method}: unknown parameter {key}"));
            }
        }
        for (key, optional) in &known {
            if optional == &Value::Bool(false) && !sent.contains_key(key) {
                problems.push(format!(
                    "{method}: required parameter {key} is not always sent"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn every_typed_event_exists() {
    let protocol = protocol();
    let missing: Vec<_> = all_events()
        .into_iter()
        .filter(|event| lookup(&protocol, "events", event).is_none())
        .collect();
    assert!(missing.is_empty(), "{missing:?}");
}

#[test]
fn the_check_itself_catches_a_wrong_name() {
    let protocol = protocol();
    assert!(lookup(&protocol, "commands", "Page.navigate").is_some());
    assert!(lookup(&protocol, "commands", "Page.navigateTo").is_none());
    assert!(lookup(&protocol, "events", "Page.frameNavigated").is_some());
}
