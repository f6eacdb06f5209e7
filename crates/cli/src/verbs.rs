//! The CLI verbs: `candor [--id TASK] VERB …`. Each sugar verb is one catalogue tool with
//! its params spelled as arguments (docs/faces.md#cli); `run TOOL --params …` is any tool; the
//! daemon-level verbs (`start`, `tasks`, `stop`, `cancel`, `batch`, `job`, `jobs`,
//! `cancel-job`) talk to the registry. Every verb goes through the daemon, which the
//! client starts when none answers.
//!
//! The verbs' arguments are `args.rs` (clap), the request each makes is `request.rs`,
//! and sending it to the daemon is `send.rs`; here one verb is run from end to end.

mod args;
mod request;
mod send;

use std::process::ExitCode;

use tools::tool;

pub use args::{CallArgs, Verb};

use crate::BrowserArgs;
use crate::client::Session;
use crate::exit;
use crate::flows::{self, FlowVerb};
use crate::output;
use crate::records::{self, Record};
use request::{Request, request};
use send::send;

/// Runs one verb and returns the process's exit code.
pub fn run(verb: Verb, call: &CallArgs, browser: &BrowserArgs) -> ExitCode {
    let task = match &verb {
        Verb::Flow {
            action: FlowVerb::Export { task: Some(task) },
        }
        | Verb::Watch { task: Some(task) } => Some(task.clone()),
        _ => call.task.clone(),
    }
    .or_else(|| std::env::var("CANDOR_TASK").ok().filter(|t| !t.is_empty()))
    .unwrap_or_else(|| "default".into());
    let (request, output_to) = match request(verb, &task) {
        Ok((Request::Refused(error), _)) => return flows::print_refused(&error),
        Ok(request) => request,
        Err(usage) => {
            eprintln!("candor: {usage}");
            return ExitCode::from(exit::USAGE);
        }
    };
    let started = std::time::Instant::now();
    let method = request.method().to_string();
    let params = request.params();
    let answered = Session::open(browser, &task).and_then(|session| {
        let envelope = send(&session, &task, &request, call, browser)?;
        Ok((session, envelope))
    });
    let (session, envelope) = match answered {
        Ok(answered) => answered,
        Err(err) => {
            eprintln!("candor: {err:#}");
            if !call.no_record {
                records::append(
                    &crate::client::state_dir(),
                    &Record::failed(&task, &method, &params, started.elapsed()),
                    call.sensitive,
                );
            }
            return ExitCode::FAILURE;
        }
    };
    if !call.no_record {
        records::append(
            session.state_dir(),
            &Record::answered(&task, &method, &params, &envelope, started.elapsed()),
            call.sensitive,
        );
    }
    if let Some(path) = &output_to {
        // The daemon wrote a HAR or a PDF into the task's folder, on this machine.
        let file = envelope["data"]["har"]["path"].as_str().or_else(|| {
            (method == tool::Pdf::NAME)
                .then(|| envelope["data"]["path"].as_str())
                .flatten()
        });
        let written = match (envelope.get("image"), file) {
            (Some(image), _) => output::write_image(path, image),
            (None, Some(file)) => output::copy_file(std::path::Path::new(file), path),
            (None, None) => Ok(()),
        };
        if let Err(err) = written {
            eprintln!("candor: {err:#}");
            return ExitCode::FAILURE;
        }
    }
    let printed = match method.as_str() {
        tool::Flow::NAME => flows::print_export(&envelope, &call.output),
        "flow run" => flows::print_run(&envelope, &call.output),
        _ => output::print(&method, &envelope, &call.output),
    };
    if let Err(err) = printed {
        eprintln!("candor: {err:#}");
        return ExitCode::FAILURE;
    }
    match method.as_str() {
        "flow run" => flows::run_exit_code(&envelope),
        _ => exit::code(&envelope),
    }
}

#[cfg(test)]
mod tests;
