//! `candor flow export TASK` and `candor flow run FILE --var NAME=VALUE` (docs/faces.md#flows), and
//! the variables of `candor batch`: a flow file is read and its variables bound here,
//! before the daemon is asked anything, so a missing variable or an unknown field runs
//! nothing. The daemon runs the bound flow as a job and answers when it has ended.

use std::collections::BTreeMap;
use std::process::ExitCode;

use clap::Subcommand;
use serde_json::{Value, json};
use tools::flow::Flow;
use tools::{ToolError, tool};

use crate::exit;
use crate::output::{self, OutputArgs};

#[derive(Debug, Subcommand)]
pub enum FlowVerb {
    /// Print the task's flow (default: --id): its successful steps, secrets as variables.
    Export {
        #[arg(value_name = "TASK")]
        task: Option<String>,
    },
    /// Replay a flow file on the task, re-checking every step; stops at the first that
    /// fails (exit 2 for a failed postcondition, 1 for anything else).
    Run {
        #[arg(value_name = "FILE|@FILE|-")]
        file: String,
        /// A variable's value: --var password=… (repeatable).
        #[arg(long = "var", value_name = "NAME=VALUE")]
        vars: Vec<String>,
    },
}

/// A flow file read and bound: what is sent, and what a record may keep of it.
pub struct Bound {
    pub body: Value,
    pub record: Value,
}

/// Why a flow was not sent: bad arguments (a usage error), or a flow refused as the
/// daemon would refuse it.
pub enum NotSent {
    Usage(String),
    Refused(ToolError),
}

/// Reads the flow at `source` (a path, `@path`, or `-`), checks it whole and binds
/// `vars` (`NAME=VALUE`).
pub fn bind(
    source: &str,
    vars: &[String],
    read: impl Fn(&str) -> Result<Value, String>,
) -> Result<Bound, NotSent> {
    let source = if source.starts_with('@') || source == "-" {
        source.to_string()
    } else {
        format!("@{source}")
    };
    let json = read(&source).map_err(NotSent::Usage)?;
    let flow = Flow::parse(&json).map_err(NotSent::Refused)?;
    let mut given = BTreeMap::new();
    for var in vars {
        let (name, value) = var
            .split_once('=')
            .ok_or_else(|| NotSent::Usage(format!("--var {var:?} is not NAME=VALUE")))?;
        given.insert(name.to_string(), value.to_string());
    }
    let bound = flow.bind(&given).map_err(NotSent::Refused)?;
    let body = serde_json::to_value(&bound)
        .map_err(|e| NotSent::Usage(format!("the flow cannot be encoded: {e}")))?;
    Ok(Bound {
        body,
        // The record keeps the file's steps with their variables unbound.
        record: json!({
            "file": source.trim_start_matches('@'),
            "steps": bound.steps.len(),
            "vars": given.keys().collect::<Vec<_>>(),
        }),
    })
}

/// Prints a refusal of the flow, made before anything was sent.
pub fn print_refused(error: &ToolError) -> ExitCode {
    eprintln!(
        "candor: {}: {}\nhint: {}",
        error.code.as_str(),
        error.message,
        error.hint
    );
    ExitCode::FAILURE
}

/// `flow export`: the flow file itself on stdout (or the envelope, with --json or on a
/// failure).
pub fn print_export(answer: &Value, args: &OutputArgs) -> anyhow::Result<()> {
    if answer["ok"] != true || args.json || args.out.is_some() {
        return output::print(tool::Flow::NAME, answer, args);
    }
    println!("{}", serde_json::to_string_pretty(&answer["data"]["flow"])?);
    Ok(())
}

/// `flow run`: one line per step, then why it stopped (its page content fenced as
/// untrusted by the one renderer); the whole report with --json.
pub fn print_run(answer: &Value, args: &OutputArgs) -> anyhow::Result<()> {
    let job = &answer["data"];
    if answer["ok"] != true || args.json || args.out.is_some() || !job["steps"].is_array() {
        return output::print("flow run", answer, args);
    }
    let mut text = format!(
        "flow {}: {} of {} steps ran (job {}, task {})\n",
        job["state"].as_str().unwrap_or_default(),
        job["stepsDone"],
        job["stepsTotal"],
        job["jobId"].as_str().unwrap_or_default(),
        job["task"].as_str().unwrap_or_default(),
    );
    for (number, step) in job["steps"].as_array().into_iter().flatten().enumerate() {
        let outcome = step["code"]
            .as_str()
            .unwrap_or_else(|| step["status"].as_str().unwrap_or_default());
        let result = &step["result"];
        text.push_str(&format!(
            "  {:>3} {outcome:<20} {:<10} {} ({} ms)\n",
            number + 1,
            step["method"].as_str().unwrap_or_default(),
            result["page"]["url"].as_str().unwrap_or_default(),
            step["durationMs"].as_u64().unwrap_or_default(),
        ));
    }
    let failure = &job["failure"];
    if failure.is_object() {
        let mut data = failure.clone();
        let mut take = |key: &str| {
            data.as_object_mut()
                .and_then(|m| m.remove(key))
                .unwrap_or(Value::Null)
        };
        let (code, message, hint) = (take("code"), take("message"), take("hint"));
        let step = failure["step"].as_u64().unwrap_or_default() as usize;
        let execution = job["steps"][step.saturating_sub(1)]["result"]["execution"].clone();
        let report = json!({
            "ok": false,
            "code": code,
            "message": message,
            "hint": hint,
            "execution": execution,
            "data": data,
            "untrusted": ["/data/seen", "/data/snapshot"],
        });
        let title = format!("step {}", failure["step"]);
        text.push_str(&tools::render_json(&title, &report));
    }
    print!("{text}");
    Ok(())
}

/// 0 when every step passed; 2 when the run stopped at a postcondition that failed; 1
/// for anything else (a refusal, a step that failed otherwise, a cancelled job).
pub fn run_exit_code(answer: &Value) -> ExitCode {
    if answer["ok"] != true {
        return exit::code(answer);
    }
    let job = &answer["data"];
    if job["state"] == "done" {
        ExitCode::SUCCESS
    } else if job["failure"]["code"] == "EXPECTATION_FAILED" {
        ExitCode::from(exit::EXPECTATION_FAILED)
    } else {
        ExitCode::FAILURE
    }
}
