//! The CLI verbs: `candor [--id TASK] VERB …`. Each sugar verb is one catalogue tool with
//! its params spelled as arguments (docs/faces.md#cli); `run TOOL --params …` is any tool; the
//! daemon-level verbs (`start`, `tasks`, `stop`, `cancel`, `batch`, `job`, `jobs`,
//! `cancel-job`) talk to the registry. Every verb goes through the daemon, which the
//! client starts when none answers.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde_json::{Map, Value, json};
use tools::tool;

use crate::BrowserArgs;
use crate::client::{Session, Started};
use crate::output::{self, OutputArgs};
use crate::records::{self, Record};

/// Flags every verb takes.
#[derive(Debug, Args)]
pub struct CallArgs {
    /// The task to work in (default: $CANDOR_TASK, else "default"); started on first use.
    #[arg(long = "id", global = true, value_name = "TASK")]
    pub task: Option<String>,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Records and the daemon's journal keep only the step, method, ok, code and stage.
    #[arg(long, global = true)]
    pub sensitive: bool,
    /// Write no CLI record of this call.
    #[arg(long, global = true)]
    pub no_record: bool,
}

/// What acting verbs share: the postcondition and where to act.
#[derive(Debug, Args)]
pub struct ActArgs {
    /// Verify that the page's visible text contains this after the action (exit 2 if not).
    #[arg(long, value_name = "TEXT")]
    expect_text: Option<String>,
    /// Verify that the URL equals this after the action (exit 2 if not).
    #[arg(long, value_name = "URL")]
    expect_url: Option<String>,
    /// How long the expectation may take to hold, in ms (default 5000).
    #[arg(long, value_name = "MS")]
    expect_timeout_ms: Option<u64>,
    /// Any expectation as JSON (text, url, urlMatches, selector, js…, all required):
    /// `@FILE`, `-` for stdin, or the JSON itself; --expect-text/--expect-url add to it.
    #[arg(long, value_name = "@FILE|JSON")]
    expect: Option<String>,
    /// A read-only JS expression evaluated after the action (needs eval).
    #[arg(long, value_name = "EXPR")]
    readback: Option<String>,
    /// The action opens a new tab: wait for it and make it current.
    #[arg(long)]
    expect_popup: bool,
    /// Refuse if the element changed since this snapshot.
    #[arg(long, value_name = "ID")]
    snapshot_id: Option<String>,
    #[command(flatten)]
    tab: TabArg,
}

/// The tab a verb works on; every verb that takes one spells it this way.
#[derive(Debug, Default, Args)]
pub struct TabArg {
    /// The tab (default: the current one).
    #[arg(long, value_name = "TAB")]
    tab: Option<String>,
}

impl TabArg {
    fn of(tab: String) -> TabArg {
        TabArg { tab: Some(tab) }
    }

    /// `params` with this tab as the tool's `tabId`.
    fn on(&self, mut params: Value) -> Value {
        if let (Some(tab), Value::Object(map)) = (&self.tab, &mut params) {
            map.insert("tabId".into(), json!(tab));
        }
        params
    }
}

/// The values a tool's schema allows for one of its params, for clap to check.
fn allowed(tool: &str, param: &str) -> clap::builder::PossibleValuesParser {
    let values: Vec<&'static str> = tools::find(tool)
        .and_then(|t| t.input_schema["properties"][param]["enum"].as_array())
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    clap::builder::PossibleValuesParser::new(values)
}

#[derive(Debug, Subcommand)]
pub enum Verb {
    /// Open URL in the current tab (navigate).
    Open {
        url: String,
        /// Open it in a new tab, which becomes current.
        #[arg(long)]
        new_tab: bool,
        #[command(flatten)]
        tab: TabArg,
    },
    /// Go back one history entry (navigate).
    Back {
        #[command(flatten)]
        tab: TabArg,
    },
    /// Go forward one history entry (navigate).
    Forward {
        #[command(flatten)]
        tab: TabArg,
    },
    /// Reload the page (navigate).
    Reload {
        #[arg(long)]
        ignore_cache: bool,
        #[command(flatten)]
        tab: TabArg,
    },
    /// List the tabs, or open, select or close one (tabs).
    Tabs {
        #[command(subcommand)]
        action: Option<TabsAction>,
    },
    /// Read the page: elements with refs (default), text, markdown or html (snapshot).
    Snapshot {
        #[arg(long, value_parser = allowed("snapshot", "mode"))]
        mode: Option<String>,
        #[arg(long)]
        max_tokens: Option<u64>,
        #[arg(long)]
        max_chars: Option<u64>,
        /// Only what changed since this tab's previous snapshot.
        #[arg(long)]
        diff: bool,
        #[command(flatten)]
        tab: TabArg,
    },
    /// Search the whole page for text, a role, or role and name (find).
    Find {
        text: Option<String>,
        #[arg(long)]
        role: Option<String>,
        #[arg(long)]
        name: Option<String>,
        #[arg(long)]
        limit: Option<u64>,
        #[command(flatten)]
        tab: TabArg,
    },
    /// Click an element by ref (act).
    Click {
        #[arg(value_name = "REF")]
        target: String,
        #[command(flatten)]
        act: ActArgs,
    },
    /// Replace a field's value (act fill).
    Fill {
        #[arg(value_name = "REF")]
        target: String,
        text: String,
        /// Press Enter once the value is read back.
        #[arg(long)]
        submit: bool,
        #[command(flatten)]
        act: ActArgs,
    },
    /// Type text at the end of a field (act type).
    Type {
        #[arg(value_name = "REF")]
        target: String,
        text: String,
        #[arg(long)]
        submit: bool,
        #[command(flatten)]
        act: ActArgs,
    },
    /// Press a key or chord, e.g. Enter or Control+A (act press).
    Press {
        keys: String,
        /// The element to focus first (default: whatever has focus).
        #[arg(long = "ref", value_name = "REF")]
        target: Option<String>,
        #[command(flatten)]
        act: ActArgs,
    },
    /// Choose options by value or label (act select).
    Select {
        #[arg(value_name = "REF")]
        target: String,
        #[arg(required = true)]
        values: Vec<String>,
        #[command(flatten)]
        act: ActArgs,
    },
    /// Check a checkbox or radio button (act check).
    Check {
        #[arg(value_name = "REF")]
        target: String,
        #[command(flatten)]
        act: ActArgs,
    },
    /// Uncheck a checkbox (act uncheck).
    Uncheck {
        #[arg(value_name = "REF")]
        target: String,
        #[command(flatten)]
        act: ActArgs,
    },
    /// Move the pointer over an element (act hover).
    Hover {
        #[arg(value_name = "REF")]
        target: String,
        #[command(flatten)]
        act: ActArgs,
    },
    /// Scroll an element into view, or the page by --dx/--dy pixels (act scroll).
    Scroll {
        #[arg(value_name = "REF")]
        target: Option<String>,
        #[arg(long, allow_negative_numbers = true)]
        dx: Option<f64>,
        #[arg(long, allow_negative_numbers = true)]
        dy: Option<f64>,
        #[command(flatten)]
        act: ActArgs,
    },
    /// One screen on, on the page or in a scroll container: what is new, and the coverage
    /// (act scroll_next_screen).
    Next {
        /// A scroll container's ref (default: the page).
        #[arg(value_name = "REF")]
        target: Option<String>,
        #[command(flatten)]
        tab: TabArg,
    },
    /// Upload files (names in the upload folder) through a file input (act upload).
    Upload {
        #[arg(value_name = "REF")]
        target: String,
        #[arg(required = true)]
        files: Vec<String>,
        /// Wait for the response to the request whose URL matches this (a glob with *,
        /// else a substring) and report uploadCompleted.
        #[arg(long, value_name = "PATTERN")]
        response_url: Option<String>,
        #[command(flatten)]
        act: ActArgs,
    },
    /// Wait for a selector, text, URL or JS condition (wait).
    Wait {
        #[arg(long)]
        selector: Option<String>,
        /// visible (default), attached or hidden.
        #[arg(long, value_parser = allowed("wait", "state"))]
        state: Option<String>,
        #[arg(long)]
        text: Option<String>,
        #[arg(long)]
        url: Option<String>,
        #[arg(long)]
        js: Option<String>,
        #[arg(long, value_name = "MS")]
        timeout_ms: Option<u64>,
        #[command(flatten)]
        tab: TabArg,
    },
    /// Capture the viewport or one element (screenshot).
    Screenshot {
        /// Set this viewport preset first: auto, phone, tablet, desktop.
        #[arg(long, value_parser = allowed("screenshot", "preset"))]
        preset: Option<String>,
        #[arg(long)]
        selector: Option<String>,
        /// png (default), jpeg or webp.
        #[arg(long, value_parser = allowed("screenshot", "format"))]
        format: Option<String>,
        #[arg(long)]
        max_width: Option<u64>,
        /// Write the image to FILE.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
        #[command(flatten)]
        tab: TabArg,
    },
    /// Size the tab: auto, phone, tablet, desktop or custom (viewport).
    Viewport {
        #[arg(value_parser = allowed("viewport", "preset"))]
        preset: String,
        #[arg(long)]
        width: Option<u64>,
        #[arg(long)]
        height: Option<u64>,
        #[command(flatten)]
        tab: TabArg,
    },
    /// Run JavaScript in the page, if the operator enabled eval (eval).
    Eval {
        expression: String,
        #[arg(long)]
        max_chars: Option<u64>,
        #[command(flatten)]
        tab: TabArg,
    },
    /// The form controls in scope with their values and validity (form_state).
    FormState {
        /// CSS selector of the form or container (default: the whole page).
        #[arg(long)]
        scope: Option<String>,
        #[command(flatten)]
        tab: TabArg,
    },
    /// Answer the JavaScript dialog that is open: accept or dismiss (dialog).
    Dialog {
        #[arg(value_parser = ["accept", "dismiss"])]
        answer: String,
        /// For a prompt: the text to answer with.
        #[arg(long)]
        prompt_text: Option<String>,
        #[command(flatten)]
        tab: TabArg,
    },
    /// The task's earlier observations: listed, one read by characters, or searched
    /// (recall).
    Recall {
        /// An observation's id (snapshot or command id): its text (default: list them).
        id: Option<String>,
        /// Words to search the observations for (all must appear).
        #[arg(long, conflicts_with = "id")]
        query: Option<String>,
        /// Characters (of a text) or observations (of a list) to skip.
        #[arg(long)]
        offset: Option<usize>,
        /// Characters (1-12000, default 4000) or observations (1-100, default 20).
        #[arg(long)]
        limit: Option<usize>,
    },
    /// The task's checkpoints (every snapshot is one): list them, or restore one by its
    /// full id (checkpoint).
    Checkpoint {
        #[arg(value_parser = allowed("checkpoint", "action"))]
        action: String,
        /// restore: the checkpoint's id, e.g. tab0-s7.1.
        id: Option<String>,
        #[command(flatten)]
        tab: TabArg,
    },
    /// Hand the task to a person: `handoff "reason"` prints the live view's URL; `--status`
    /// reports the mode; `--wait` returns their page when they press Done (handoff).
    Handoff {
        /// What the person should do.
        #[arg(required_unless_present_any = ["status", "wait"])]
        reason: Option<String>,
        #[arg(long, conflicts_with_all = ["reason", "wait"])]
        status: bool,
        #[arg(long, conflicts_with = "reason")]
        wait: bool,
        /// With --wait: most ms to wait.
        #[arg(long, requires = "wait")]
        timeout_ms: Option<u64>,
    },
    /// The running command and the last ones of the task, from memory (diagnostics).
    Diagnose {
        #[arg(long)]
        limit: Option<usize>,
    },
    /// Any tool: `run TOOL --params JSON|@file|-`.
    Run {
        tool: String,
        /// The params: JSON text, @FILE, or - for stdin (UTF-8; a leading BOM is allowed).
        #[arg(long, value_name = "JSON|@FILE|-")]
        params: Option<String>,
    },
    /// Start a task (each task has its own browser context); with --keep-archive its
    /// archive of observations stays after it stops.
    Start,
    /// List the daemon's tasks.
    Tasks,
    /// Stop a task (default: --id) and close its browser context.
    Stop {
        #[arg(value_name = "TASK")]
        task: Option<String>,
    },
    /// Cancel the running command with this id.
    Cancel {
        #[arg(value_name = "COMMAND_ID")]
        command: String,
    },
    /// Run steps in the background: `batch @steps.json` (or a file, or - for stdin).
    Batch {
        /// A flow file (flow.schema.json): `{"steps":[…]}`, or `[{"method":…}, …]`.
        #[arg(value_name = "@FILE|FILE|-")]
        steps: String,
        /// A variable's value: --var password=… (repeatable).
        #[arg(long = "var", value_name = "NAME=VALUE")]
        vars: Vec<String>,
    },
    /// Export a task's flow, or replay one (docs/faces.md#flows).
    Flow {
        #[command(subcommand)]
        action: crate::flows::FlowVerb,
    },
    /// A job's progress, step by step.
    Job {
        #[arg(value_name = "JOB_ID")]
        job: String,
    },
    /// List the jobs.
    Jobs,
    /// Stop a job before its next step.
    CancelJob {
        #[arg(value_name = "JOB_ID")]
        job: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum TabsAction {
    /// List the tabs.
    List,
    /// Open a tab (optionally at URL); it becomes current.
    New { url: Option<String> },
    /// Make a tab current.
    Select { tab: String },
    /// Close tabs (default: the current one).
    Close { tabs: Vec<String> },
}

/// What a verb asks of the daemon.
enum Request {
    /// A catalogue tool on the task.
    Tool {
        method: String,
        params: Value,
    },
    /// Start the task (`keepArchive` if its flag was given).
    Start,
    Tasks,
    Stop(String),
    Cancel(String),
    Diagnose(Option<usize>),
    /// A bound flow run as a job, and what the record keeps of it.
    Batch {
        body: Value,
        record: Value,
        wait: bool,
    },
    /// `flow export`: the task's flow (the task is not started for it).
    FlowExport,
    /// A flow refused before anything was sent.
    Refused(tools::ToolError),
    Job(String),
    Jobs,
    CancelJob(String),
}

impl Request {
    fn method(&self) -> &str {
        match self {
            Request::Tool { method, .. } => method,
            Request::Start => "start",
            Request::Tasks => "tasks",
            Request::Stop(_) => "stop",
            Request::Cancel(_) => "cancel",
            Request::Diagnose(_) => tool::Diagnostics::NAME,
            Request::Batch { wait: false, .. } => "batch",
            Request::Batch { wait: true, .. } => "flow run",
            Request::FlowExport => tool::Flow::NAME,
            Request::Refused(_) => tool::Flow::NAME,
            Request::Job(_) => "job",
            Request::Jobs => "jobs",
            Request::CancelJob(_) => "cancel-job",
        }
    }

    /// What the record keeps of the request (redacted later).
    fn params(&self) -> Value {
        match self {
            Request::Tool { params, .. } => params.clone(),
            Request::Stop(id) => json!({ "task": id }),
            Request::Cancel(id) => json!({ "commandId": id }),
            Request::Diagnose(limit) => json!({ "limit": limit }),
            Request::Batch { record, .. } => record.clone(),
            Request::FlowExport | Request::Refused(_) => json!({}),
            Request::Job(id) | Request::CancelJob(id) => json!({ "jobId": id }),
            Request::Start | Request::Tasks | Request::Jobs => json!({}),
        }
    }
}

/// Exit codes (docs/faces.md#exit-codes).
pub const EXIT_EXPECTATION_FAILED: u8 = 2;
pub const EXIT_USAGE: u8 = 64;

/// Runs one verb and returns the process's exit code.
pub fn run(verb: Verb, call: &CallArgs, browser: &BrowserArgs) -> ExitCode {
    let task = match &verb {
        Verb::Flow {
            action: crate::flows::FlowVerb::Export { task: Some(task) },
        } => Some(task.clone()),
        _ => call.task.clone(),
    }
    .or_else(|| std::env::var("CANDOR_TASK").ok().filter(|t| !t.is_empty()))
    .unwrap_or_else(|| "default".into());
    let (request, image_to) = match request(verb, &task) {
        Ok((Request::Refused(error), _)) => return crate::flows::print_refused(&error),
        Ok(request) => request,
        Err(usage) => {
            eprintln!("candor: {usage}");
            return ExitCode::from(EXIT_USAGE);
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
    if let (Some(path), Some(image)) = (&image_to, envelope.get("image"))
        && let Err(err) = output::write_image(path, image)
    {
        eprintln!("candor: {err:#}");
        return ExitCode::FAILURE;
    }
    let printed = match method.as_str() {
        tool::Flow::NAME => crate::flows::print_export(&envelope, &call.output),
        "flow run" => crate::flows::print_run(&envelope, &call.output),
        _ => output::print(&method, &envelope, &call.output),
    };
    if let Err(err) = printed {
        eprintln!("candor: {err:#}");
        return ExitCode::FAILURE;
    }
    match method.as_str() {
        "flow run" => crate::flows::run_exit_code(&envelope),
        _ => exit_code(&envelope),
    }
}

/// 0 ok, 2 `EXPECTATION_FAILED`, 1 any other error.
pub fn exit_code(envelope: &Value) -> ExitCode {
    if envelope["ok"] == true {
        ExitCode::SUCCESS
    } else if envelope["code"] == "EXPECTATION_FAILED" {
        ExitCode::from(EXIT_EXPECTATION_FAILED)
    } else {
        ExitCode::FAILURE
    }
}

fn send(
    session: &Session,
    task: &str,
    request: &Request,
    call: &CallArgs,
    browser: &BrowserArgs,
) -> anyhow::Result<Value> {
    let client = session.client();
    let answer = match request {
        Request::Tool { method, params } => {
            // A wait for a person gets the command time it asks for.
            let waited = (method == tool::Handoff::NAME)
                .then(|| params["timeoutMs"].as_u64())
                .flatten()
                .map(|ms| ms.saturating_add(1_000));
            let settings = &browser.settings;
            let timeout = settings
                .sources
                .command_timeout_ms
                .is_flag()
                .then_some(settings.command_timeout_ms)
                .or(waited);
            let first = client.command(task, method, params, timeout, call.sensitive)?;
            if first.body["code"] != "TASK_NOT_FOUND" {
                first
            } else {
                match session.start_task(task, browser)? {
                    Started::Running => {
                        client.command(task, method, params, timeout, call.sensitive)?
                    }
                    Started::Refused(envelope) => return Ok(envelope),
                }
            }
        }
        Request::Start => client.start_task(&session.start_body(task, browser))?,
        Request::Tasks => client.tasks()?,
        Request::Stop(id) => client.stop_task(id)?,
        Request::Cancel(id) => client.cancel(id)?,
        Request::Diagnose(limit) => client.diagnostics(task, *limit)?,
        Request::Batch { body, wait, .. } => {
            let post = || match wait {
                true => client.batch_and_wait(task, body),
                false => client.batch(task, body),
            };
            let first = post()?;
            if first.body["code"] != "TASK_NOT_FOUND" {
                first
            } else {
                match session.start_task(task, browser)? {
                    Started::Running => post()?,
                    Started::Refused(envelope) => return Ok(envelope),
                }
            }
        }
        Request::FlowExport => client.command(
            task,
            tool::Flow::NAME,
            &json!({ "action": "export" }),
            None,
            false,
        )?,
        Request::Refused(error) => anyhow::bail!("{}", error.message),
        Request::Job(id) => client.job(id)?,
        Request::Jobs => client.jobs()?,
        Request::CancelJob(id) => client.cancel_job(id)?,
    };
    Ok(answer.body)
}

/// The request a verb makes, and where a screenshot's image goes.
fn request(verb: Verb, task: &str) -> Result<(Request, Option<PathBuf>), String> {
    let call = |method: &str, params: Value| Request::Tool {
        method: method.into(),
        params: strip_nulls(params),
    };
    let request = match verb {
        Verb::Open { url, new_tab, tab } => call(
            tool::Navigate::NAME,
            tab.on(json!({ "url": url, "newTab": new_tab.then_some(true) })),
        ),
        Verb::Back { tab } => call(tool::Navigate::NAME, tab.on(json!({ "back": true }))),
        Verb::Forward { tab } => call(tool::Navigate::NAME, tab.on(json!({ "forward": true }))),
        Verb::Reload { ignore_cache, tab } => call(
            tool::Navigate::NAME,
            tab.on(json!({ "reload": true, "ignoreCache": ignore_cache.then_some(true) })),
        ),
        Verb::Tabs { action } => call(
            tool::Tabs::NAME,
            match action.unwrap_or(TabsAction::List) {
                TabsAction::List => json!({ "action": "list" }),
                TabsAction::New { url } => json!({ "action": "new", "url": url }),
                TabsAction::Select { tab } => TabArg::of(tab).on(json!({ "action": "select" })),
                TabsAction::Close { mut tabs } => match tabs.len() {
                    0 => json!({ "action": "close" }),
                    1 => TabArg::of(tabs.remove(0)).on(json!({ "action": "close" })),
                    _ => json!({ "action": "close", "tabIds": tabs }),
                },
            },
        ),
        Verb::Snapshot {
            mode,
            max_tokens,
            max_chars,
            diff,
            tab,
        } => call(
            tool::Snapshot::NAME,
            tab.on(json!({
                "mode": mode,
                "maxTokens": max_tokens,
                "maxChars": max_chars,
                "diff": diff.then_some(true),
            })),
        ),
        Verb::Find {
            text,
            role,
            name,
            limit,
            tab,
        } => call(
            tool::Find::NAME,
            tab.on(json!({ "text": text, "role": role, "name": name, "limit": limit })),
        ),
        Verb::Click { target, act } => call(
            tool::Act::NAME,
            act.params("click", Some(target), json!({}))?,
        ),
        Verb::Fill {
            target,
            text,
            submit,
            act,
        } => call(
            tool::Act::NAME,
            act.params(
                "fill",
                Some(target),
                json!({ "text": text, "submit": submit.then_some(true) }),
            )?,
        ),
        Verb::Type {
            target,
            text,
            submit,
            act,
        } => call(
            tool::Act::NAME,
            act.params(
                "type",
                Some(target),
                json!({ "text": text, "submit": submit.then_some(true) }),
            )?,
        ),
        Verb::Press { keys, target, act } => call(
            tool::Act::NAME,
            act.params("press", target, json!({ "keys": keys }))?,
        ),
        Verb::Select {
            target,
            values,
            act,
        } => call(
            tool::Act::NAME,
            act.params("select", Some(target), json!({ "values": values }))?,
        ),
        Verb::Check { target, act } => call(
            tool::Act::NAME,
            act.params("check", Some(target), json!({}))?,
        ),
        Verb::Uncheck { target, act } => call(
            tool::Act::NAME,
            act.params("uncheck", Some(target), json!({}))?,
        ),
        Verb::Hover { target, act } => call(
            tool::Act::NAME,
            act.params("hover", Some(target), json!({}))?,
        ),
        Verb::Next { target, tab } => call(
            tool::Act::NAME,
            tab.on(json!({ "action": "scroll_next_screen", "ref": target })),
        ),
        Verb::Scroll {
            target,
            dx,
            dy,
            act,
        } => call(
            tool::Act::NAME,
            act.params("scroll", target, json!({ "dx": dx, "dy": dy }))?,
        ),
        Verb::Upload {
            target,
            files,
            response_url,
            act,
        } => call(
            tool::Act::NAME,
            act.params(
                "upload",
                Some(target),
                json!({ "files": files, "responseUrl": response_url }),
            )?,
        ),
        Verb::Wait {
            selector,
            state,
            text,
            url,
            js,
            timeout_ms,
            tab,
        } => call(
            tool::Wait::NAME,
            tab.on(json!({
                "selector": selector,
                "state": state,
                "text": text,
                "url": url,
                "js": js,
                "timeoutMs": timeout_ms,
            })),
        ),
        Verb::Screenshot {
            preset,
            selector,
            format,
            max_width,
            output,
            tab,
        } => {
            let params = tab.on(json!({
                "preset": preset,
                "selector": selector,
                "format": format,
                "maxWidth": max_width,
            }));
            return Ok((call(tool::Screenshot::NAME, params), output));
        }
        Verb::Viewport {
            preset,
            width,
            height,
            tab,
        } => call(
            tool::Viewport::NAME,
            tab.on(json!({ "preset": preset, "width": width, "height": height })),
        ),
        Verb::Eval {
            expression,
            max_chars,
            tab,
        } => call(
            tool::Eval::NAME,
            tab.on(json!({ "expression": expression, "maxChars": max_chars })),
        ),
        Verb::FormState { scope, tab } => {
            call(tool::FormState::NAME, tab.on(json!({ "scope": scope })))
        }
        Verb::Dialog {
            answer,
            prompt_text,
            tab,
        } => call(
            tool::Dialog::NAME,
            tab.on(json!({ "accept": answer == "accept", "promptText": prompt_text })),
        ),
        Verb::Recall {
            id,
            query,
            offset,
            limit,
        } => call(
            tool::Recall::NAME,
            json!({ "observationId": id, "query": query, "offset": offset, "limit": limit }),
        ),
        Verb::Checkpoint { action, id, tab } => call(
            tool::Checkpoint::NAME,
            tab.on(json!({ "action": action, "stateId": id })),
        ),
        Verb::Handoff {
            reason,
            status,
            wait,
            timeout_ms,
        } => {
            let action = if status {
                "status"
            } else if wait {
                tool::Wait::NAME
            } else {
                "start"
            };
            call(
                tool::Handoff::NAME,
                json!({ "action": action, "reason": reason, "timeoutMs": timeout_ms }),
            )
        }
        Verb::Diagnose { limit } => Request::Diagnose(limit),
        Verb::Run { tool: name, params } => Request::Tool {
            method: name,
            params: match params {
                Some(source) => read_json(&source)?,
                None => json!({}),
            },
        },
        Verb::Start => Request::Start,
        Verb::Tasks => Request::Tasks,
        Verb::Stop { task: id } => Request::Stop(id.unwrap_or_else(|| task.to_string())),
        Verb::Cancel { command } => Request::Cancel(command),
        Verb::Batch { steps, vars } => batch(&steps, &vars, false)?,
        Verb::Flow { action } => match action {
            crate::flows::FlowVerb::Export { .. } => Request::FlowExport,
            crate::flows::FlowVerb::Run { file, vars } => batch(&file, &vars, true)?,
        },
        Verb::Job { job } => Request::Job(job),
        Verb::Jobs => Request::Jobs,
        Verb::CancelJob { job } => Request::CancelJob(job),
    };
    Ok((request, None))
}

impl ActArgs {
    /// The `act` params: the action, the ref, what the verb adds, and the expectation.
    fn params(&self, action: &str, target: Option<String>, extra: Value) -> Result<Value, String> {
        let mut params = self.tab.on(json!({
            "action": action,
            "ref": target,
            "snapshotId": self.snapshot_id,
            "readback": self.readback,
            "expectPopup": self.expect_popup.then_some(true),
        }));
        if let (Value::Object(params), Value::Object(extra)) = (&mut params, extra) {
            params.extend(extra);
        }
        let mut expect = match &self.expect {
            Some(source) => match read_json(source)? {
                Value::Object(map) => map,
                other => return Err(format!("--expect must be a JSON object, not {other}")),
            },
            None => Map::new(),
        };
        for (key, value) in [
            ("text", self.expect_text.as_ref().map(|t| json!(t))),
            ("url", self.expect_url.as_ref().map(|u| json!(u))),
            ("timeoutMs", self.expect_timeout_ms.map(|ms| json!(ms))),
        ] {
            if let Some(value) = value {
                expect.insert(key.into(), value);
            }
        }
        if !expect.is_empty() {
            params["expect"] = Value::Object(expect);
        }
        Ok(strip_nulls(params))
    }
}

/// Drops absent fields, so the daemon sees only what was given.
fn strip_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, strip_nulls(v)))
                .collect::<Map<String, Value>>(),
        ),
        other => other,
    }
}

/// The job a flow file makes, bound with `vars`; refused whole before anything is sent.
fn batch(source: &str, vars: &[String], wait: bool) -> Result<Request, String> {
    match crate::flows::bind(source, vars, read_json) {
        Ok(bound) => Ok(Request::Batch {
            body: bound.body,
            record: bound.record,
            wait,
        }),
        Err(crate::flows::NotSent::Usage(usage)) => Err(usage),
        Err(crate::flows::NotSent::Refused(error)) => Ok(Request::Refused(error)),
    }
}

/// JSON from text, `@FILE`, or `-` (stdin): UTF-8, a leading BOM tolerated.
fn read_json(source: &str) -> Result<Value, String> {
    let text = if source == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read the params from stdin: {e}"))?;
        String::from_utf8(bytes).map_err(|_| "stdin is not UTF-8".to_string())?
    } else if let Some(path) = source.strip_prefix('@') {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        String::from_utf8(bytes).map_err(|_| format!("{path} is not UTF-8"))?
    } else {
        source.to_string()
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    serde_json::from_str(text).map_err(|e| format!("the params are not valid JSON: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

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
                "find", "Save", "--role", "button", "--name", "Save", "--limit", "3", "--tab",
                "tab0",
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
}
