//! `Runtime` domain: execution contexts and calling page-side functions.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Empty, command, event};

#[derive(Debug, Clone, Default, Serialize)]
pub struct Enable {}

#[derive(Debug, Clone, Default, Serialize)]
pub struct RunIfWaitingForDebugger {}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluate {
    pub expression: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub return_by_value: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub await_promise: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub silent: Option<bool>,
}

/// Calls a function in a context with JSON arguments: the way page-side scripts run,
/// so no JavaScript is ever assembled from strings.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallFunctionOn {
    pub function_declaration: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution_context_id: Option<i64>,
    /// Names the context instead of `execution_context_id`, never another one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unique_context_id: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<CallArgument>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub return_by_value: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub await_promise: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_group: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallArgument {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_id: Option<String>,
}

/// The reply of `evaluate` and `callFunctionOn`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluated {
    pub result: RemoteObject,
    #[serde(default)]
    pub exception_details: Option<ExceptionDetails>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteObject {
    #[serde(default)]
    pub r#type: String,
    #[serde(default)]
    pub subtype: Option<String>,
    #[serde(default)]
    pub class_name: Option<String>,
    #[serde(default)]
    pub value: Option<Value>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub object_id: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionDetails {
    #[serde(default)]
    pub text: String,
    #[serde(default)]
    pub exception: Option<RemoteObject>,
    /// The script's URL, when the exception came from one.
    #[serde(default)]
    pub url: Option<String>,
    /// 0-based.
    #[serde(default)]
    pub line_number: Option<i64>,
    #[serde(default)]
    pub stack_trace: Option<StackTrace>,
}

/// Where a console call or an exception came from: the innermost frame first.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StackTrace {
    #[serde(default)]
    pub call_frames: Vec<CallFrame>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallFrame {
    #[serde(default)]
    pub function_name: String,
    #[serde(default)]
    pub url: String,
    /// 0-based.
    #[serde(default)]
    pub line_number: i64,
    /// 0-based.
    #[serde(default)]
    pub column_number: i64,
}

/// The page called a `console` method (`log`, `error`, `warn`, …). (A tab's log reads
/// these params where they lie, since the page decides how long its arguments are.)
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleApiCalled {
    /// `log`, `debug`, `info`, `error`, `warning`, `assert`, `trace`, `table`, …
    pub r#type: String,
    #[serde(default)]
    pub args: Vec<RemoteObject>,
    #[serde(default)]
    pub stack_trace: Option<StackTrace>,
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub timestamp: f64,
}

/// An exception went uncaught, or a promise was rejected with no handler. (Read as
/// [`ConsoleApiCalled`] is, by a tab's log.)
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionThrown {
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub timestamp: f64,
    pub exception_details: ExceptionDetails,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ExecutionContextCreated {
    pub context: ExecutionContextDescription,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionContextDescription {
    pub id: i64,
    /// The security origin of the context's document, as the browser knows it.
    #[serde(default)]
    pub origin: String,
    /// Unique across processes, where `id` is not: after a cross-process navigation another
    /// context may have this one's `id`.
    #[serde(default)]
    pub unique_id: Option<String>,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub aux_data: Option<Value>,
}

impl ExecutionContextDescription {
    /// The frame this context belongs to, and whether it is the frame's main world.
    pub fn frame(&self) -> Option<(&str, bool)> {
        let aux = self.aux_data.as_ref()?;
        let frame = aux.get("frameId")?.as_str()?;
        let is_default = aux
            .get("isDefault")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        Some((frame, is_default))
    }

    /// Whether this is the isolated world `name` of a frame (`Page.createIsolatedWorld`,
    /// or an init script given that world).
    pub fn is_isolated_world(&self, name: &str) -> bool {
        self.name == name
            && self
                .aux_data
                .as_ref()
                .and_then(|aux| aux.get("type"))
                .and_then(Value::as_str)
                == Some("isolated")
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionContextDestroyed {
    pub execution_context_id: i64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ExecutionContextsCleared {}

/// Adds `window[name]`, a function whose calls arrive as `Runtime.bindingCalled`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AddBinding {
    pub name: String,
}

/// A page called a binding added with [`AddBinding`]; `payload` is the string it passed.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BindingCalled {
    pub name: String,
    pub payload: String,
    pub execution_context_id: i64,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetProperties {
    pub object_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub own_properties: Option<bool>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Properties {
    pub result: Vec<PropertyDescriptor>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PropertyDescriptor {
    pub name: String,
    #[serde(default)]
    pub value: Option<RemoteObject>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseObjectGroup {
    pub object_group: String,
}

/// Stops the script running in the page now (a loop that never returns); handled
/// between the script's steps, so it works while the page answers nothing else.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TerminateExecution {}

command! {
    TerminateExecution => "Runtime.terminateExecution", Empty;
    GetProperties => "Runtime.getProperties", Properties;
    ReleaseObjectGroup => "Runtime.releaseObjectGroup", Empty;
    AddBinding => "Runtime.addBinding", Empty;
    Enable => "Runtime.enable", Empty;
    RunIfWaitingForDebugger => "Runtime.runIfWaitingForDebugger", Empty;
    Evaluate => "Runtime.evaluate", Evaluated;
    CallFunctionOn => "Runtime.callFunctionOn", Evaluated;
}

event! {
    BindingCalled => "Runtime.bindingCalled";
    ConsoleApiCalled => "Runtime.consoleAPICalled";
    ExceptionThrown => "Runtime.exceptionThrown";
    ExecutionContextCreated => "Runtime.executionContextCreated";
    ExecutionContextDestroyed => "Runtime.executionContextDestroyed";
    ExecutionContextsCleared => "Runtime.executionContextsCleared";
}
