//! Page-side scripts: real JavaScript files under `js/`, compiled in, called through
//! `Runtime.callFunctionOn` with JSON arguments — never assembled from strings. Every
//! script is declared with [`script!`] beside the type of its reply, in the module that
//! calls it; this module is only the mechanism: [`call`] is the one way a script is
//! called, maps a page exception one way, and decodes the reply into that type, so a
//! script whose reply changed shape fails by name instead of reading as zeros.
//!
//! Each script also says which JavaScript world it runs in ([`World`]): candor's own
//! isolated world, where the page's redefinitions of globals and prototypes cannot reach,
//! unless it must see the page's own functions (see ARCHITECTURE.md, "Worlds").

use std::marker::PhantomData;

use cdp::protocol::{page, runtime};
use cdp::{Deadline, Session};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::Error;

/// One page-side function; its file holds a single function declaration. `R` is what it
/// answers, as [`call`] decodes it ([`InPage`] for an answer only ever kept in the page).
pub(crate) struct Script<R> {
    pub name: &'static str,
    pub source: &'static str,
    /// Where it runs.
    pub world: World,
    reply: PhantomData<fn() -> R>,
}

/// A JavaScript world of a document: each has its own globals and prototypes over the one
/// DOM they share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum World {
    /// candor's isolated world (`Page.createIsolatedWorld`, one per document): what candor
    /// reads, verifies and watches there uses the browser's own functions, whatever the
    /// page redefined in its world.
    Candor,
    /// The page's own world, for what must see or wrap the page's own functions: the
    /// agent's code (`eval`, `js` conditions), the settle watcher's timers, the permission
    /// watcher's wrappers.
    Page,
}

impl World {
    /// The name of candor's isolated world.
    pub const CANDOR_NAME: &'static str = "candor";

    /// The world name CDP takes: empty for the page's own.
    pub fn name(self) -> &'static str {
        match self {
            World::Candor => Self::CANDOR_NAME,
            World::Page => "",
        }
    }
}

impl<R> Clone for Script<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R> Copy for Script<R> {}

impl<R> std::fmt::Debug for Script<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Script").field("name", &self.name).finish()
    }
}

impl<R> Script<R> {
    /// A script named `name` (its file, `js/name.js`), of `source`, run in `world`: use
    /// [`script!`], which reads the file.
    pub const fn new(name: &'static str, source: &'static str, world: World) -> Self {
        Script {
            name,
            source,
            world,
            reply: PhantomData,
        }
    }

    /// The source as an init script: the function, called at once.
    pub fn init_source(&self) -> String {
        format!("({})();", self.source)
    }

    /// Installs the script in every new document of `session`'s page, in its world, before
    /// the page's own scripts.
    pub async fn install(&self, session: &Session, deadline: Deadline) -> Result<(), Error> {
        let script = page::AddScriptToEvaluateOnNewDocument {
            source: self.init_source(),
            world_name: self.world.name().to_string(),
        };
        session.call(&script, deadline).await?;
        Ok(())
    }
}

/// The answer of a script that is kept in the page as a remote object
/// ([`call_for_object`]) and never decoded: there is no value of it, so [`call`] cannot
/// be asked for one.
#[derive(Debug)]
pub(crate) enum InPage {}

/// Declares a page script beside the type of its reply: `script!("name" => Reply)` runs
/// `js/name.js` in candor's world; `script!("name" => Reply, in Page)` in the page's.
macro_rules! script {
    ($name:literal => $reply:ty) => {
        $crate::script::script!($name => $reply, in Candor)
    };
    ($name:literal => $reply:ty, in $world:ident) => {
        $crate::script::Script::<$reply>::new(
            $name,
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/js/", $name, ".js")),
            $crate::script::World::$world,
        )
    };
}
pub(crate) use script;

/// An execution context: its id, and the id unique across processes when known (which
/// world's it is, `tab/world.rs` keeps).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Context {
    pub id: i64,
    pub unique: Option<String>,
}

/// What `this` is for a call, and so the world the call runs in.
#[derive(Debug, Clone, Copy)]
pub(crate) enum This<'a> {
    /// The global object of an execution context.
    Context(&'a Context),
    /// A remote object (a resolved DOM node, an array a script returned): the call runs
    /// in the world the object belongs to, which the second field names when known (see
    /// `tab::world::Resolved`).
    Object(&'a str, Option<&'a str>),
}

/// Calls `script` with JSON `arguments` and decodes its reply (awaiting a promise).
pub(crate) async fn call<R: DeserializeOwned>(
    session: &Session,
    script: &Script<R>,
    this: This<'_>,
    arguments: Vec<Value>,
    deadline: Deadline,
) -> Result<R, Error> {
    let object = call_remote(session, script, this, arguments, None, deadline).await?;
    decode(script, object.value.unwrap_or(Value::Null))
}

/// Calls `script` and keeps its reply in the page as a remote object of `group` (release
/// the group when done).
pub(crate) async fn call_for_object<R>(
    session: &Session,
    script: &Script<R>,
    this: This<'_>,
    arguments: Vec<Value>,
    group: &str,
    deadline: Deadline,
) -> Result<runtime::RemoteObject, Error> {
    call_remote(session, script, this, arguments, Some(group), deadline).await
}

async fn call_remote<R>(
    session: &Session,
    script: &Script<R>,
    this: This<'_>,
    arguments: Vec<Value>,
    group: Option<&str>,
    deadline: Deadline,
) -> Result<runtime::RemoteObject, Error> {
    // A function of candor's world is sent whole once per execution context, and kept
    // there; later calls in that context name it (see `Installed`).
    let world = match this {
        This::Context(Context {
            unique: Some(unique),
            ..
        }) => Some(unique.as_str()),
        This::Object(_, world) => world,
        This::Context(_) => None,
    };
    let installed = world
        .filter(|_| script.world == World::Candor)
        .map(|world| Installed::new(session, world, script.name));
    if let Some(installed) = &installed
        && installed.held()
    {
        let short = call_function(
            session,
            installed.call_source(),
            this,
            arguments.clone(),
            group,
            deadline,
        )
        .await?;
        if short.exception_details.is_none() && short.result.value.as_ref() != Some(&MISSING.into())
        {
            return Ok(short.result);
        }
        if let Some(details) = short.exception_details {
            return Err(exception(script.name, details));
        }
        installed.forget();
    }
    let source = match &installed {
        Some(installed) => installed.install_source(script.source),
        None => script.source.to_string(),
    };
    let reply = call_function(session, source, this, arguments, group, deadline).await?;
    if let Some(details) = reply.exception_details {
        return Err(exception(script.name, details));
    }
    if let Some(installed) = installed {
        installed.note();
    }
    Ok(reply.result)
}

/// What a call of an installed function answers when its context does not hold it (a
/// note that outlived its context): the call is made again with the whole source.
const MISSING: &str = "\u{0}candor: function not installed";

/// Where candor's world keeps the functions it was sent, by name.
const INSTALLED_KEY: &str = "candor.functions";

/// One script in one execution context of candor's world: sent whole the first time
/// (which installs it under its name), named afterwards. The connection notes which
/// contexts hold which scripts (`cdp::Connection::holds`); a call that finds its function
/// missing after all answers [`MISSING`] and is made again whole. So a snapshot's
/// settle, revision and checkpoint scripts — tens of KB — cross the browser process once
/// per document, not with every call.
struct Installed<'a> {
    session: &'a Session,
    key: String,
    name: &'static str,
}

impl<'a> Installed<'a> {
    fn new(session: &'a Session, context: &str, name: &'static str) -> Self {
        Installed {
            session,
            key: format!("function {name} in {context}"),
            name,
        }
    }

    fn held(&self) -> bool {
        self.session.connection().holds(&self.key)
    }

    fn note(self) {
        self.session.connection().note_held(self.key);
    }

    fn forget(&self) {
        self.session.connection().forget_held(&self.key);
    }

    /// Calls the installed function with `this` and the arguments, or answers [`MISSING`].
    fn call_source(&self) -> String {
        format!(
            "function(...args) {{ const f = globalThis[Symbol.for({key:?})]?.get({name:?}); return f ? f.apply(this, args) : {MISSING:?}; }}",
            key = INSTALLED_KEY,
            name = self.name,
        )
    }

    /// Installs `source` under the script's name (once: a concurrent call may have) and
    /// calls it.
    fn install_source(&self, source: &str) -> String {
        format!(
            "function(...args) {{ const key = Symbol.for({key:?}); const functions = globalThis[key] || (globalThis[key] = new Map()); let f = functions.get({name:?}); if (!f) {{ f = ({source}\n); functions.set({name:?}, f); }} return f.apply(this, args); }}",
            key = INSTALLED_KEY,
            name = self.name,
        )
    }
}

/// One `Runtime.callFunctionOn` of `source` on `this`.
// A context's unique id where known: its plain id may name another context (another
// world) once a cross-process navigation has reused it.
async fn call_function(
    session: &Session,
    source: String,
    this: This<'_>,
    arguments: Vec<Value>,
    group: Option<&str>,
    deadline: Deadline,
) -> Result<runtime::Evaluated, Error> {
    let (execution_context_id, unique_context_id, object_id) = match this {
        This::Context(context) => match &context.unique {
            Some(unique) => (None, Some(unique.clone()), None),
            None => (Some(context.id), None, None),
        },
        This::Object(id, _) => (None, None, Some(id.to_string())),
    };
    let call = runtime::CallFunctionOn {
        function_declaration: source,
        execution_context_id,
        unique_context_id,
        object_id,
        arguments: arguments
            .into_iter()
            .map(|value| runtime::CallArgument {
                value: Some(value),
                object_id: None,
            })
            .collect(),
        return_by_value: Some(group.is_none()),
        await_promise: group.is_none().then_some(true),
        object_group: group.map(str::to_string),
    };
    Ok(session.call(&call, deadline).await?)
}

/// `value` as `script`'s reply type, or an error naming the script and what was wrong.
pub(crate) fn decode<R: DeserializeOwned>(script: &Script<R>, value: Value) -> Result<R, Error> {
    serde_json::from_value(value).map_err(|err| Error::ScriptReply {
        script: script.name,
        reason: err.to_string(),
    })
}

/// An exception the page threw into one of candor's scripts that the script caught and
/// reported (`{class, message}`): the caller's code, in `eval` and `js` conditions.
#[derive(Debug, Clone, serde::Deserialize)]
pub(crate) struct Thrown {
    pub class: String,
    pub message: String,
}

impl From<Thrown> for Error {
    fn from(thrown: Thrown) -> Self {
        Error::Script {
            class: thrown.class,
            message: thrown.message,
        }
    }
}

/// A page exception during a script: its class and the first line of its description.
fn exception(script: &str, details: runtime::ExceptionDetails) -> Error {
    let exception = details.exception.as_ref();
    let class = exception
        .and_then(|e| e.class_name.clone())
        .unwrap_or_else(|| "Error".into());
    let message = exception
        .and_then(|e| e.description.clone())
        .map(|d| d.lines().next().unwrap_or_default().to_string())
        .unwrap_or(details.text);
    tracing::debug!(script, %class, %message, "page script threw");
    Error::Script { class, message }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::actions::ELEMENT_SET_CHECKED;
    use crate::actions::ELEMENT_VALUE;
    use crate::actions::forms::ELEMENT_FILES;
    use crate::actions::forms::ELEMENT_SELECT_OPTIONS;
    use crate::actions::pointer::ELEMENT_LABEL;
    use crate::actions::pointer::ELEMENT_MOTION;
    use crate::actions::pointer::SCROLL_POSITION;
    use crate::eval::EVAL;
    use crate::page_read::PING;
    use crate::screenshot::CAPTURE_RECT;
    use crate::settle::SETTLE_QUIET;
    use crate::snapshot::region::REGION_FACTS;
    use crate::wait::WAIT_FOR;

    /// A script whose reply changed shape fails by name; it never reads as zeros (a
    /// screenshot clipped 0×0).
    #[test]
    fn a_reply_of_another_shape_is_an_error_naming_the_script() {
        let renamed = json!({"width": 800, "height": 600, "dpr": 1, "zoom": 1,
            "rect": {"x": 0, "y": 0, "width": 800, "height": 600}, "clipped": false});
        match decode(&CAPTURE_RECT, renamed) {
            Err(Error::ScriptReply { script, reason }) => {
                assert_eq!(script, "capture_rect");
                assert!(reason.contains("pageWidth"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        let whole = json!({"pageWidth": 800, "pageHeight": 600, "dpr": 2, "zoom": 1,
            "rect": {"x": 0, "y": 10, "width": 800, "height": 600}, "clipped": true});
        assert!(decode(&CAPTURE_RECT, whole).is_ok());
        assert!(matches!(
            decode(&SETTLE_QUIET, json!({"quiet": true})),
            Err(Error::ScriptReply {
                script: "settle_quiet",
                ..
            })
        ));
        assert!(matches!(
            decode(&PING, json!(null)),
            Err(Error::ScriptReply { script: "ping", .. })
        ));
    }

    /// Each shape of a reply that has several decodes as the one it is.
    #[test]
    fn replies_with_several_shapes_decode_as_theirs() {
        use crate::settle::QuietReply;
        use crate::wait::WaitReply;
        assert!(matches!(
            decode(&SETTLE_QUIET, json!({"unwatched": true})),
            Ok(QuietReply::Unwatched { .. })
        ));
        assert!(matches!(
            decode(
                &SETTLE_QUIET,
                json!({"quiet": false, "waitedMs": 40, "region": "div#a"})
            ),
            Ok(QuietReply::Verdict {
                quiet: false,
                waited_ms: 40,
                region: Some(_),
                unchanged: false,
            })
        ));
        assert!(matches!(
            decode(
                &SETTLE_QUIET,
                json!({"quiet": true, "waitedMs": 20, "region": null, "unchanged": true})
            ),
            Ok(QuietReply::Verdict {
                quiet: true,
                unchanged: true,
                ..
            })
        ));
        assert!(matches!(
            decode(&WAIT_FOR, json!({"invalidSelector": "bad"})),
            Ok(WaitReply::InvalidSelector { .. })
        ));
        assert!(matches!(
            decode(
                &WAIT_FOR,
                json!({"invalidExpression": {"class": "SyntaxError", "message": "x"}})
            ),
            Ok(WaitReply::InvalidExpression { .. })
        ));
        assert!(matches!(
            decode(
                &WAIT_FOR,
                json!({"met": false, "actual": {"threw": "E: x"}, "threw": {"class": "E", "message": "x"}})
            ),
            Ok(WaitReply::Checked {
                met: false,
                threw: Some(_),
                ..
            })
        ));
        assert!(matches!(
            decode(
                &EVAL,
                json!({"ran": false, "threw": {"class": "SyntaxError", "message": "x"}})
            ),
            Ok(crate::eval::EvalReply::Threw { ran: false, .. })
        ));
        assert!(matches!(
            decode(
                &EVAL,
                json!({"ran": true, "mode": "expression", "pending": true})
            ),
            Ok(crate::eval::EvalReply::Pending { .. })
        ));
        assert!(matches!(
            decode(
                &EVAL,
                json!({"ran": true, "mode": "body", "type": "number", "value": 3, "truncated": false, "chars": 1})
            ),
            Ok(crate::eval::EvalReply::Value { .. })
        ));
        let facts = json!([{"parent": -1, "box": [0, 0, 10, 10], "tag": "a", "href": "/x",
            "type": null, "onclick": false, "pointer": true, "clips": false, "scrolls": false,
            "borders": [0, 0], "unread": [0, 0], "hidden": false,
            "content": [["t", "Go", 0, 0, 10, 10, 2], ["e", 1]]}]);
        assert!(decode(&REGION_FACTS, facts).is_ok());
        let bad_tag = json!([{"parent": -1, "box": [0, 0, 10, 10], "tag": "a", "href": null,
            "type": null, "onclick": false, "pointer": false, "clips": false, "scrolls": false,
            "borders": [0, 0], "unread": [0, 0], "hidden": false,
            "content": [["x", 1]]}]);
        assert!(decode(&REGION_FACTS, bad_tag).is_err());
    }

    /// The replies of the element scripts decode as the scripts send them, each shape of
    /// a select's as the one it is.
    #[test]
    fn element_replies_decode_as_their_scripts_send_them() {
        use crate::actions::{SelectReply, SelectedOption};
        let field = decode(
            &ELEMENT_VALUE,
            json!({"tag": "input", "type": "date", "value": "2015-03-10", "checked": null,
                "editable": true, "connected": true}),
        )
        .unwrap();
        assert_eq!(
            (field.r#type.as_str(), field.value.as_deref(), field.checked),
            ("date", Some("2015-03-10"), None)
        );
        // A secret field's value comes under its own key (a record drops it).
        let card = decode(
            &ELEMENT_VALUE,
            json!({"tag": "input", "type": "text", "value": null, "secretValue": "4242",
                "checked": null, "editable": true, "connected": true}),
        )
        .unwrap();
        assert_eq!((card.held(), card.secret()), (Some("4242"), true));
        assert!(!field.secret());
        let link = decode(
            &ELEMENT_VALUE,
            json!({"tag": "a", "type": "", "value": null, "checked": true,
                "editable": false, "connected": true}),
        )
        .unwrap();
        assert_eq!(
            (link.value, link.checked, link.editable),
            (None, Some(true), false)
        );
        match decode(
            &ELEMENT_SELECT_OPTIONS,
            json!({"selected": [{"value": "g", "label": "Green"}]}),
        ) {
            Ok(SelectReply::Selected { selected }) => assert_eq!(
                selected,
                [SelectedOption {
                    value: "g".into(),
                    label: "Green".into()
                }]
            ),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            decode(
                &ELEMENT_SELECT_OPTIONS,
                json!({"error": "missing", "missing": ["Mauve"], "available": ["Red", "Green"]})
            ),
            Ok(SelectReply::Missing { missing, .. }) if missing == ["Mauve"]
        ));
        assert!(matches!(
            decode(&ELEMENT_SELECT_OPTIONS, json!({"error": "not-select"})),
            Ok(SelectReply::NotSelect)
        ));
        assert!(matches!(
            decode(&ELEMENT_SELECT_OPTIONS, json!({"error": "single"})),
            Ok(SelectReply::Single)
        ));
        let files = decode(
            &ELEMENT_FILES,
            json!({"connected": true, "count": 1, "names": ["a.txt"], "sizes": [12]}),
        )
        .unwrap();
        assert_eq!((files.count, files.sizes), (1, vec![12]));
        let scroll = decode(&SCROLL_POSITION, json!({"x": 0, "y": 120.5})).unwrap();
        assert_eq!((scroll.x, scroll.y), (0.0, 120.5));
        assert_eq!(
            decode(&ELEMENT_LABEL, json!("button#go \"Go\"")).unwrap(),
            "button#go \"Go\""
        );
        assert!(decode(&ELEMENT_MOTION, json!(false)).is_ok_and(|moving| !moving));
        assert_eq!(
            decode(&ELEMENT_SET_CHECKED, json!(true)).unwrap(),
            Some(true)
        );
        assert_eq!(decode(&ELEMENT_SET_CHECKED, json!(null)).unwrap(), None);
    }

    /// A reply missing a field, or of an unknown shape, fails naming its script: it never
    /// reads as a default (a field not editable, a file input holding nothing, a scroll at
    /// the top, an element at rest).
    #[test]
    fn an_element_reply_missing_a_field_is_an_error_naming_its_script() {
        let failure = |result: Result<(), Error>| match result {
            Err(Error::ScriptReply { script, reason }) => (script, reason),
            other => panic!("{other:?}"),
        };
        let (script, reason) = failure(
            decode(
                &ELEMENT_VALUE,
                json!({"tag": "input", "type": "text", "value": "", "checked": null,
                    "connected": true}),
            )
            .map(drop),
        );
        assert_eq!(script, "element_value");
        assert!(reason.contains("editable"), "{reason}");
        let (script, reason) = failure(
            decode(
                &ELEMENT_FILES,
                json!({"connected": true, "length": 1, "names": ["a.txt"], "sizes": [12]}),
            )
            .map(drop),
        );
        assert_eq!(script, "element_files");
        assert!(reason.contains("count"), "{reason}");
        let (script, _) = failure(decode(&SCROLL_POSITION, json!({"scrollY": 120})).map(drop));
        assert_eq!(script, "scroll_position");
        let (script, _) =
            failure(decode(&ELEMENT_SELECT_OPTIONS, json!({"error": "disabled"})).map(drop));
        assert_eq!(script, "element_select_options");
        let (script, _) = failure(decode(&ELEMENT_MOTION, json!(null)).map(drop));
        assert_eq!(script, "element_motion");
    }
}
