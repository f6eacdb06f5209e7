//! The verbs as clap parses them: each verb, its arguments and their help, and the flags
//! every verb or every acting verb shares. Only what the command line says; what a verb
//! asks of the daemon is `request.rs`.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde_json::Value;

use crate::output::OutputArgs;

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
    /// How long this client waits for the daemon's answer, in seconds. Past it the CLI
    /// gives up (exit 1) but the command is not cancelled: `candor diagnose` shows it
    /// running, `candor cancel ID` stops it. Its deadline is --command-timeout-ms.
    #[arg(long, global = true, value_name = "SECONDS", value_parser = client_wait)]
    pub timeout: Option<std::time::Duration>,
}

/// `--timeout`: whole or fractional seconds, more than 0 and at most a day.
fn client_wait(given: &str) -> Result<std::time::Duration, String> {
    let seconds: f64 = given
        .parse()
        .map_err(|_| format!("{given:?} is not a number of seconds"))?;
    if !(seconds > 0.0 && seconds <= 86_400.0) {
        return Err(format!(
            "{given} s is out of range: more than 0, at most 86400"
        ));
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}

/// What acting verbs share: the postcondition and where to act.
#[derive(Debug, Args)]
pub struct ActArgs {
    /// Verify that the page's visible text contains this after the action (exit 2 if not).
    #[arg(long, value_name = "TEXT")]
    pub(super) expect_text: Option<String>,
    /// Verify that the URL equals this after the action (exit 2 if not).
    #[arg(long, value_name = "URL")]
    pub(super) expect_url: Option<String>,
    /// How long the expectation may take to hold, in ms (default 5000).
    #[arg(long, value_name = "MS")]
    pub(super) expect_timeout_ms: Option<u64>,
    /// Any expectation as JSON (text, url, urlMatches, selector, js…, all required):
    /// `@FILE`, `-` for stdin, or the JSON itself; --expect-text/--expect-url add to it.
    #[arg(long, value_name = "@FILE|JSON")]
    pub(super) expect: Option<String>,
    /// A read-only JS expression evaluated after the action (needs eval): the
    /// expression, @FILE, or - for stdin.
    #[arg(long, value_name = "EXPR|@FILE|-")]
    pub(super) readback: Option<String>,
    /// The action opens a new tab: wait for it and make it current.
    #[arg(long)]
    pub(super) expect_popup: bool,
    /// Refuse if the element changed since this snapshot.
    #[arg(long, value_name = "ID")]
    pub(super) snapshot_id: Option<String>,
    #[command(flatten)]
    pub(super) tab: TabArg,
}

/// The tab a verb works on; every verb that takes one spells it this way.
#[derive(Debug, Default, Args)]
pub struct TabArg {
    /// The tab (default: the current one).
    #[arg(long, value_name = "TAB")]
    pub(super) tab: Option<String>,
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
        /// Label each ref on the image (set-of-marks); the answer maps label to ref.
        #[arg(long)]
        marks: bool,
        /// Write the image to FILE.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
        #[command(flatten)]
        tab: TabArg,
    },
    /// Print the page to PDF in the task's folder; --output copies it to FILE (pdf).
    Pdf {
        /// letter (default), a4 or legal.
        #[arg(long, value_parser = allowed("pdf", "paper"))]
        paper: Option<String>,
        #[arg(long)]
        landscape: bool,
        /// Print background colours and images.
        #[arg(long)]
        background: bool,
        /// Which pages, e.g. 1-3,5 (default all).
        #[arg(long)]
        pages: Option<String>,
        /// Write the PDF to FILE.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
        #[command(flatten)]
        tab: TabArg,
    },
    /// Size the tab: auto, phone, tablet, desktop or custom; without one, read it (viewport).
    Viewport {
        #[arg(value_parser = allowed("viewport", "preset"))]
        preset: Option<String>,
        #[arg(long)]
        width: Option<u64>,
        #[arg(long)]
        height: Option<u64>,
        #[command(flatten)]
        tab: TabArg,
    },
    /// Run JavaScript in the page, if the operator enabled eval (eval).
    Eval {
        /// The expression, @FILE, or - for stdin.
        expression: String,
        #[arg(long)]
        max_chars: Option<u64>,
        #[command(flatten)]
        tab: TabArg,
    },
    /// What the page logged, threw and fetched, one line each (logs).
    Logs {
        /// console (default), network or errors.
        #[arg(value_parser = allowed("logs", "kind"))]
        kind: Option<String>,
        /// console: the least level listed: debug, info, warning, error.
        #[arg(long)]
        level: Option<String>,
        /// Only entries whose URL holds this (a glob with `*`).
        #[arg(long)]
        url_matches: Option<String>,
        /// network: 404, 400-499, 4xx, failed; comma-separated.
        #[arg(long)]
        status: Option<String>,
        /// network: GET, POST…
        #[arg(long)]
        method: Option<String>,
        /// Only what began or changed after this cursor (an earlier answer's).
        #[arg(long)]
        since: Option<u64>,
        #[arg(long)]
        limit: Option<u64>,
        /// One entry in full: c12, x13, n14 (--id names the task).
        #[arg(long, value_name = "ID")]
        entry: Option<String>,
        /// Write the task's requests as HAR 1.2 to FILE.
        #[arg(long, value_name = "FILE")]
        har: Option<PathBuf>,
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
    /// The task's cookies and web storage saved under a name, loaded back, listed or
    /// deleted (state; docs/security.md#saved-state).
    State {
        #[arg(value_parser = allowed("state", "action"))]
        action: String,
        /// save, load, delete: the state's name.
        name: Option<String>,
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
    /// Watch a task as the agent drives it: prints a read-only live view's URL (one-time
    /// token inside) whose Take over begins a hand-off (handoff, action watch).
    Watch {
        /// The task to watch (default: --id, else $CANDOR_TASK, else "default").
        task: Option<String>,
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
        /// One param, typed by the tool's schema (a number, true/false, JSON for a list or
        /// an object, else text); repeatable, and over --params.
        #[arg(short = 'p', long = "param", value_name = "KEY=VALUE")]
        param: Vec<String>,
        /// The `expect` param: JSON, @FILE, or - for stdin.
        #[arg(long, value_name = "JSON|@FILE|-")]
        expect: Option<String>,
        /// The `readback` param: an expression, @FILE, or - for stdin.
        #[arg(long, value_name = "EXPR|@FILE|-")]
        readback: Option<String>,
    },
    /// Start a task (each task has its own browser context); with --keep-archive its
    /// archive of observations stays after it stops; with --state it begins from a saved
    /// state.
    Start {
        /// A saved state to load into the task before anything else.
        #[arg(long, value_name = "NAME")]
        state: Option<String>,
    },
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
