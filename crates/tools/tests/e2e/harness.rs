//! Shared by the end-to-end tests: a real headless Chromium behind an [`Engine`], and a
//! fixture server on 127.0.0.1.

use std::time::Duration;

use browser::{BrowserOptions, Endpoint, LaunchOptions};
use serde_json::Value;
use test_support::FixtureServer;
use tools::{Engine, EngineOptions, Envelope};

pub struct Harness {
    pub server: FixtureServer,
    pub engine: Engine,
}

impl Harness {
    pub fn new() -> Self {
        Self::with_timeout(Duration::from_secs(30))
    }

    pub fn with_timeout(command_timeout: Duration) -> Self {
        Self::with(|options| options.command_timeout = command_timeout)
    }

    /// A harness whose operator enabled eval (`CANDOR_ENABLE_EVAL=true`).
    pub fn with_eval() -> Self {
        Self::with(|options| options.enable_eval = true)
    }

    /// A harness whose engine options `configure` adjusts.
    pub fn with(configure: impl FnOnce(&mut EngineOptions)) -> Self {
        let mut options = EngineOptions {
            browser: BrowserOptions {
                endpoint: Endpoint::Launch(LaunchOptions {
                    executable: Some(test_support::chromium()),
                    ..LaunchOptions::default()
                }),
                record_cdp: None,
            },
            task_id: "test".into(),
            ..EngineOptions::default()
        };
        configure(&mut options);
        Self {
            server: FixtureServer::start(),
            engine: Engine::new(options),
        }
    }

    pub fn url(&self, path: &str) -> String {
        self.server.url(path)
    }

    /// The envelope of one call (with its image, which the JSON never carries), held to
    /// the output schema its tool declares (every call of the suite checks the contract).
    pub async fn envelope(&self, method: &str, params: Value) -> Envelope {
        let envelope = self.engine.call(method, params, None).await;
        conforms(method, &envelope.to_json());
        envelope
    }

    /// A call that must be refused with `code` before anything ran; returns its envelope.
    pub async fn refused(&self, method: &str, params: Value, code: &str) -> Envelope {
        let envelope = self.envelope(method, params.clone()).await;
        let json = envelope.to_json();
        assert_eq!(json["ok"], false, "{method} {params}: {json:#}");
        assert_eq!(json["code"], code, "{method} {params}: {json:#}");
        assert_eq!(json["execution"]["actionStatus"], "not-started", "{json:#}");
        assert_eq!(json["execution"]["retrySafe"], true, "{json:#}");
        assert!(json["hint"].as_str().is_some_and(|h| !h.is_empty()));
        assert!(envelope.image.is_none(), "a refusal delivers no image");
        envelope
    }

    /// The envelope of one call, as JSON (what every face sends).
    pub async fn call(&self, method: &str, params: Value) -> Value {
        self.envelope(method, params).await.to_json()
    }

    /// A call that must succeed; returns its envelope.
    pub async fn ok(&self, method: &str, params: Value) -> Value {
        let envelope = self.call(method, params.clone()).await;
        assert_eq!(envelope["ok"], true, "{method} {params}: {envelope:#}");
        assert_eq!(envelope["status"], "success");
        assert_eq!(envelope["task"], "not_evaluated");
        envelope
    }

    /// A call that must fail with `code`; returns its envelope.
    pub async fn fails(&self, method: &str, params: Value, code: &str) -> Value {
        let envelope = self.call(method, params.clone()).await;
        assert_eq!(envelope["ok"], false, "{method} {params}: {envelope:#}");
        assert_eq!(envelope["status"], "error");
        assert_eq!(envelope["code"], code, "{method} {params}: {envelope:#}");
        assert!(envelope["message"].as_str().is_some_and(|m| !m.is_empty()));
        assert!(envelope["hint"].as_str().is_some_and(|h| !h.is_empty()));
        envelope
    }

    pub async fn shutdown(self) {
        self.engine.shutdown().await;
    }
}

/// Panics unless `envelope` is valid under the output schema `method`'s tool declares
/// (any envelope of a method that is no tool: the refusal says so).
pub fn conforms(method: &str, envelope: &Value) {
    let Some(tool) = tools::find(method) else {
        return;
    };
    let validator = match jsonschema::validator_for(&tool.output_schema) {
        Ok(validator) => validator,
        Err(err) => panic!("{method}'s output schema is not a schema: {err}"),
    };
    let errors: Vec<String> = validator
        .iter_errors(envelope)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{method}'s envelope breaks its declared output schema: {errors:?}\n{envelope:#}"
    );
}

/// The page's visible text (a text snapshot).
pub async fn page_text(h: &Harness) -> String {
    let read = h
        .ok("snapshot", serde_json::json!({ "mode": "text" }))
        .await;
    read["data"]["text"].as_str().unwrap().to_string()
}

/// Nothing reached the page: the envelope says so three ways.
pub fn assert_not_started(envelope: &Value) {
    assert_eq!(
        envelope["execution"]["actionStatus"], "not-started",
        "{envelope:#}"
    );
    assert_eq!(
        envelope["execution"]["dispatchStarted"], false,
        "{envelope:#}"
    );
    assert_eq!(envelope["execution"]["retrySafe"], true, "{envelope:#}");
}

/// The ref on the first line of a snapshot's text containing `needle`.
pub fn ref_on(snapshot: &str, needle: &str) -> String {
    let line = snapshot
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle} in\n{snapshot}"));
    let start = line
        .find(" [e")
        .unwrap_or_else(|| panic!("no ref on {line}"))
        + 2;
    let end = start + line[start..].find(']').unwrap();
    line[start..end].to_string()
}
