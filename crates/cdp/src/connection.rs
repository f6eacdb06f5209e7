//! One CDP connection: numbered commands, responses routed to their callers, events
//! routed to the subscribers of their flattened session.
//!
//! A reader task owns the incoming half of the transport and a writer task the outgoing
//! half, so a caller never blocks another. Events of one session are delivered in the
//! order the browser sent them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use futures::{SinkExt, StreamExt};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::{mpsc, oneshot, watch};

use crate::protocol::{Command, Event};
use crate::record::{Direction, Recorder};
use crate::{Deadline, Error, Received, Transport};

/// A flattened session id, as Chromium names it in `Target.attachedToTarget`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, Deserialize)]
#[serde(transparent)]
pub struct SessionId(pub String);

/// An event as it came off the wire, with the session it belongs to.
#[derive(Debug, Clone)]
pub struct RawEvent {
    pub session: Option<SessionId>,
    pub method: String,
    pub params: Value,
}

impl RawEvent {
    /// The typed form of this event when it is an `E`. A malformed event is logged and
    /// skipped rather than failing the reader: Chromium adds fields and values freely.
    pub fn parse<E: Event>(&self) -> Option<E> {
        if self.method != E::METHOD {
            return None;
        }
        match serde_json::from_value(self.params.clone()) {
            Ok(event) => Some(event),
            Err(err) => {
                tracing::warn!(method = E::METHOD, %err, "skipping a malformed event");
                None
            }
        }
    }
}

/// A reply's `result`, kept as the raw JSON text: a typed call decodes it once, straight
/// into its reply type (a 10 MB accessibility tree is not built as a `Value` first).
type Reply = Result<Box<RawValue>, Error>;

/// A function called on the reader task for each event of a session, before any later
/// reply is delivered; returns false to unsubscribe itself.
pub type EventHandler = Arc<dyn Fn(&RawEvent) -> bool + Send + Sync>;

enum Subscriber {
    Channel(mpsc::UnboundedSender<RawEvent>),
    Handler(EventHandler),
}

type Subscribers = HashMap<Option<SessionId>, Vec<Subscriber>>;

struct Inner {
    next_id: AtomicU64,
    pending: Mutex<HashMap<u64, oneshot::Sender<Reply>>>,
    outgoing: mpsc::UnboundedSender<String>,
    subscribers: Mutex<Subscribers>,
    /// True once the connection is closed, from either side.
    closed: watch::Sender<bool>,
    /// Set under the `pending` lock by `close`, so no call can register after it.
    shut: AtomicBool,
    recorder: Option<Arc<Recorder>>,
    /// The calls awaiting their reply, by id.
    in_flight: Mutex<HashMap<u64, Call>>,
    /// What the caller noted the browser holds already ([`Connection::holds`]).
    held: Mutex<std::collections::HashSet<String>>,
}

/// At most this many notes are kept ([`Connection::note_held`]); past it they are all
/// forgotten, which costs the caller only sending again what it had sent.
const MAX_HELD: usize = 4096;

/// A call awaiting its reply: its session, its method, and when it was sent.
struct Call {
    session: Option<SessionId>,
    method: String,
    sent: Instant,
}

/// Keeps a call in `in_flight` while its caller waits, however the wait ends (a reply,
/// the deadline, or the caller's future dropped).
struct InFlight<'a> {
    inner: &'a Inner,
    id: u64,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        lock(&self.inner.in_flight).remove(&self.id);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// A live CDP connection. Cheap to clone; the tasks stop when the transport closes.
#[derive(Clone)]
pub struct Connection {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("closed", &self.is_closed())
            .finish()
    }
}

/// What the browser sends: a reply to a command, or an event.
#[derive(Deserialize)]
struct Incoming {
    id: Option<u64>,
    result: Option<Box<RawValue>>,
    error: Option<ProtocolError>,
    method: Option<String>,
    params: Option<Value>,
    #[serde(rename = "sessionId")]
    session_id: Option<SessionId>,
}

#[derive(Deserialize)]
struct ProtocolError {
    code: i64,
    message: String,
    #[serde(default)]
    data: Option<Value>,
}

impl Connection {
    /// Starts the reader and writer tasks over `transport`. Must be called inside a Tokio
    /// runtime; the connection lives as long as that runtime or the transport.
    pub fn start(transport: Box<dyn Transport>, recorder: Option<Arc<Recorder>>) -> Self {
        let (mut sink, mut stream) = transport.split();
        let (outgoing, mut outgoing_rx) = mpsc::unbounded_channel::<String>();
        let (closed, _) = watch::channel(false);
        let inner = Arc::new(Inner {
            next_id: AtomicU64::new(1),
            pending: Mutex::new(HashMap::new()),
            outgoing,
            subscribers: Mutex::new(HashMap::new()),
            closed,
            shut: AtomicBool::new(false),
            recorder,
            in_flight: Mutex::new(HashMap::new()),
            held: Mutex::new(std::collections::HashSet::new()),
        });

        let writer = Arc::downgrade(&inner);
        let writer_recorder = inner.recorder.clone();
        tokio::spawn(async move {
            while let Some(text) = outgoing_rx.recv().await {
                if let Some(recorder) = &writer_recorder {
                    recorder.record(Direction::Send, &text);
                }
                if let Err(err) = sink.send(text).await {
                    tracing::debug!(%err, "CDP transport refused a write");
                    // Nothing sent from now on can be answered: fail the waiting calls.
                    if let Some(inner) = writer.upgrade() {
                        inner.close();
                    }
                    break;
                }
            }
        });

        let reader = Arc::downgrade(&inner);
        tokio::spawn(async move {
            while let Some(message) = stream.next().await {
                let Some(inner) = reader.upgrade() else { break };
                match message {
                    Ok(Received::Message(text)) => inner.dispatch(&text),
                    Ok(Received::TooLarge { size, limit, head }) => {
                        inner.drop_too_large(size, limit, &head);
                    }
                    Err(err) => {
                        tracing::debug!(%err, "CDP transport read failed");
                        break;
                    }
                }
            }
            if let Some(inner) = reader.upgrade() {
                inner.close();
            }
        });

        Self { inner }
    }

    /// The browser-level session (no session id).
    pub fn browser_session(&self) -> Session {
        Session {
            connection: self.clone(),
            id: None,
        }
    }

    /// A handle on a flattened session.
    pub fn session(&self, id: SessionId) -> Session {
        Session {
            connection: self.clone(),
            id: Some(id),
        }
    }

    /// Whether the caller noted that the browser at the other end holds `key` (something
    /// it was sent once and keeps, such as a function installed in a JavaScript world), so
    /// it need not be sent again. Only a hint: what it names may be gone since.
    pub fn holds(&self, key: &str) -> bool {
        self.inner
            .held
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(key)
    }

    /// Notes that the browser holds `key` now ([`Self::holds`]).
    pub fn note_held(&self, key: String) {
        let mut held = self.inner.held.lock().unwrap_or_else(|e| e.into_inner());
        if held.len() >= MAX_HELD {
            held.clear();
        }
        held.insert(key);
    }

    /// Forgets a note of [`Self::note_held`]: the browser was found not to hold `key`.
    pub fn forget_held(&self, key: &str) {
        self.inner
            .held
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(key);
    }

    pub fn is_closed(&self) -> bool {
        self.inner.shut.load(Ordering::Acquire) || *self.inner.closed.borrow()
    }

    /// The methods sent on `session` (`None`: the browser) still awaiting their reply,
    /// oldest first, each with when it was sent.
    pub fn in_flight(&self, session: Option<&SessionId>) -> Vec<(String, Instant)> {
        let mut calls: Vec<(u64, String, Instant)> = lock(&self.inner.in_flight)
            .iter()
            .filter(|(_, call)| call.session.as_ref() == session)
            .map(|(id, call)| (*id, call.method.clone(), call.sent))
            .collect();
        calls.sort_by_key(|(id, _, _)| *id);
        calls
            .into_iter()
            .map(|(_, method, sent)| (method, sent))
            .collect()
    }

    /// Gives the connection up from this side, for a peer known to be gone while its
    /// transport stays open (a proxy may keep it so): every waiting call fails with
    /// `Closed` and nothing more is sent. The transport closes when the connection is
    /// dropped.
    pub fn abandon(&self) {
        self.inner.close();
    }

    /// Resolves once the connection is closed: the transport ended, a write failed, or
    /// it was given up ([`Connection::abandon`]).
    pub async fn closed(&self) {
        self.closing().await;
    }

    /// What [`Connection::closed`] waits for, holding nothing of the connection: it also
    /// resolves when the connection is dropped, and does not keep it open meanwhile.
    pub fn closing(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut closed = self.inner.closed.subscribe();
        async move {
            let _ = closed.wait_for(|closed| *closed).await;
        }
    }

    /// Sends `method` on `session` and waits for its reply until `deadline`.
    pub async fn call_raw(
        &self,
        session: Option<&SessionId>,
        method: &str,
        params: Value,
        deadline: Deadline,
    ) -> Result<Value, Error> {
        let reply = self.call_reply(session, method, params, deadline).await?;
        decode(method, &reply)
    }

    /// Sends `method` with no one waiting for its reply.
    fn send_only(
        &self,
        session: Option<&SessionId>,
        method: &str,
        params: Value,
    ) -> Result<(), Error> {
        if self.is_closed() {
            return Err(Error::Closed);
        }
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let mut message = serde_json::json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = Value::String(session.0.clone());
        }
        self.inner
            .outgoing
            .send(message.to_string())
            .map_err(|_| Error::Closed)
    }

    /// Sends `method` and returns its reply's raw JSON.
    async fn call_reply(
        &self,
        session: Option<&SessionId>,
        method: &str,
        params: Value,
        deadline: Deadline,
    ) -> Result<Box<RawValue>, Error> {
        let started = Instant::now();
        if self.is_closed() {
            return Err(Error::Closed);
        }
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let mut message = serde_json::json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = Value::String(session.0.clone());
        }
        let (reply_tx, reply_rx) = oneshot::channel();
        let call = Call {
            session: session.cloned(),
            method: method.to_string(),
            sent: started,
        };
        lock(&self.inner.in_flight).insert(id, call);
        let _in_flight = InFlight {
            inner: &self.inner,
            id,
        };
        {
            let mut pending = self.inner.lock_pending();
            if self.inner.shut.load(Ordering::Acquire) {
                return Err(Error::Closed);
            }
            pending.insert(id, reply_tx);
        }
        if self.inner.outgoing.send(message.to_string()).is_err() {
            self.inner.lock_pending().remove(&id);
            return Err(Error::Closed);
        }
        let result = deadline
            .run(method, started, async {
                reply_rx.await.unwrap_or(Err(Error::Closed))
            })
            .await;
        if result.is_err() {
            self.inner.lock_pending().remove(&id);
        }
        result.map_err(|err| match err {
            Error::Protocol { code, message, .. } => Error::Protocol {
                method: method.to_string(),
                code,
                message,
            },
            Error::TooLarge { size, limit, .. } => Error::TooLarge {
                method: method.to_string(),
                size,
                limit,
            },
            other => other,
        })
    }

    /// Subscribes to every event of `session` (`None`: browser-level events), from now on,
    /// in order. The receiver ends when the connection closes.
    pub fn subscribe(&self, session: Option<SessionId>) -> mpsc::UnboundedReceiver<RawEvent> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.inner.add_subscriber(session, Subscriber::Channel(tx));
        rx
    }

    /// Calls `handler` for every event of `session` from now on, on the reader task, in
    /// order — and before the reply to any command the browser answered after that
    /// event. State kept this way is never behind a reply its caller has seen. The
    /// handler must be quick and must not wait.
    pub fn on_events(&self, session: Option<SessionId>, handler: EventHandler) {
        self.inner
            .add_subscriber(session, Subscriber::Handler(handler));
    }

    /// Ends every subscription of `session` (its target is gone).
    pub fn unsubscribe(&self, session: &SessionId) {
        self.inner.lock_subscribers().remove(&Some(session.clone()));
    }
}

impl Inner {
    fn add_subscriber(&self, session: Option<SessionId>, subscriber: Subscriber) {
        let mut subscribers = self.lock_subscribers();
        if !self.shut.load(Ordering::Acquire) {
            subscribers.entry(session).or_default().push(subscriber);
        }
    }

    fn lock_pending(&self) -> std::sync::MutexGuard<'_, HashMap<u64, oneshot::Sender<Reply>>> {
        // A poisoned lock means a panic elsewhere while holding it; the map is still valid.
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn lock_subscribers(&self) -> std::sync::MutexGuard<'_, Subscribers> {
        self.subscribers.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn dispatch(&self, text: &str) {
        if let Some(recorder) = &self.recorder {
            recorder.record(Direction::Recv, text);
        }
        let incoming: Incoming = match serde_json::from_str(text) {
            Ok(incoming) => incoming,
            Err(err) => {
                tracing::warn!(%err, "skipping an unreadable CDP message");
                return;
            }
        };
        if let Some(id) = incoming.id {
            let Some(reply) = self.lock_pending().remove(&id) else {
                return; // its caller gave up (deadline) before the reply came
            };
            let result = match incoming.error {
                Some(error) => Err(Error::Protocol {
                    method: String::new(),
                    code: error.code,
                    message: match error.data {
                        Some(Value::String(data)) => format!("{}: {data}", error.message),
                        Some(data) => format!("{}: {data}", error.message),
                        None => error.message,
                    },
                }),
                None => Ok(incoming.result.unwrap_or_else(|| RawValue::NULL.to_owned())),
            };
            let _ = reply.send(result);
        } else if let Some(method) = incoming.method {
            let event = RawEvent {
                session: incoming.session_id,
                method,
                params: incoming.params.unwrap_or(Value::Null),
            };
            let mut handlers = Vec::new();
            if let Some(list) = self.lock_subscribers().get_mut(&event.session) {
                list.retain(|subscriber| match subscriber {
                    Subscriber::Channel(tx) => tx.send(event.clone()).is_ok(),
                    Subscriber::Handler(handler) => {
                        handlers.push(handler.clone());
                        true
                    }
                });
            }
            // Called outside the lock: a handler may subscribe or unsubscribe.
            let mut finished = Vec::new();
            for handler in handlers {
                if !handler(&event) {
                    finished.push(handler);
                }
            }
            if !finished.is_empty()
                && let Some(list) = self.lock_subscribers().get_mut(&event.session)
            {
                list.retain(|subscriber| match subscriber {
                    Subscriber::Handler(handler) => {
                        !finished.iter().any(|f| Arc::ptr_eq(f, handler))
                    }
                    Subscriber::Channel(_) => true,
                });
            }
        }
    }

    /// A message the transport dropped as too large: the call it answers fails with
    /// `TooLarge`, and nothing else changes. An event that large is lost (logged).
    fn drop_too_large(&self, size: usize, limit: usize, head: &str) {
        // Not on the tape: nothing of it was kept to write.
        let waiting = reply_id(head).and_then(|id| self.lock_pending().remove(&id));
        match waiting {
            Some(reply) => {
                let _ = reply.send(Err(Error::TooLarge {
                    method: String::new(),
                    size,
                    limit,
                }));
            }
            None => tracing::warn!(size, head, "dropped a CDP message past the size limit"),
        }
    }

    fn close(&self) {
        let drained: Vec<_> = {
            let mut pending = self.lock_pending();
            self.shut.store(true, Ordering::Release);
            pending.drain().collect()
        };
        for (_, reply) in drained {
            let _ = reply.send(Err(Error::Closed));
        }
        // Taken after `shut` is set, so no subscriber can be added behind this.
        self.lock_subscribers().clear();
        self.closed.send_replace(true);
    }
}

/// A connection plus a session id: the handle every domain call goes through.
#[derive(Clone, Debug)]
pub struct Session {
    connection: Connection,
    id: Option<SessionId>,
}

impl Session {
    pub fn id(&self) -> Option<&SessionId> {
        self.id.as_ref()
    }

    pub fn connection(&self) -> &Connection {
        &self.connection
    }

    /// Sends a typed command and decodes its reply.
    /// Sends `command` and does not wait for its reply (ignored when it comes): for a
    /// step that must be on its way at once, at a deadline. Messages leave in the order
    /// they were sent, so a later call on the connection reaches the browser after it.
    pub fn send<C: Command>(&self, command: &C) -> Result<(), Error> {
        let params = serde_json::to_value(command).map_err(|e| Error::Decode {
            method: C::METHOD.to_string(),
            reason: e.to_string(),
        })?;
        self.connection
            .send_only(self.id.as_ref(), C::METHOD, params)
    }

    pub async fn call<C: Command>(
        &self,
        command: &C,
        deadline: Deadline,
    ) -> Result<C::Response, Error> {
        let params = serde_json::to_value(command).map_err(|e| Error::Decode {
            method: C::METHOD.to_string(),
            reason: e.to_string(),
        })?;
        let reply = self
            .connection
            .call_reply(self.id.as_ref(), C::METHOD, params, deadline)
            .await?;
        decode(C::METHOD, &reply)
    }

    /// The escape hatch: any method, untyped.
    pub async fn call_raw(
        &self,
        method: &str,
        params: Value,
        deadline: Deadline,
    ) -> Result<Value, Error> {
        self.connection
            .call_raw(self.id.as_ref(), method, params, deadline)
            .await
    }

    /// Every event of this session from now on.
    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<RawEvent> {
        self.connection.subscribe(self.id.clone())
    }
}

/// The `id` of a reply from its first bytes: Chromium writes it first
/// (`{"id":12,"result":…`). `None` for an event, or a head that names no whole id.
fn reply_id(head: &str) -> Option<u64> {
    let rest = head
        .trim_start()
        .strip_prefix('{')?
        .trim_start()
        .strip_prefix("\"id\"")?
        .trim_start()
        .strip_prefix(':')?
        .trim_start();
    let end = rest.find(|c: char| !c.is_ascii_digit())?;
    rest[..end].parse().ok()
}

fn decode<T: DeserializeOwned>(method: &str, raw: &RawValue) -> Result<T, Error> {
    serde_json::from_str(raw.get()).map_err(|e| Error::Decode {
        method: method.to_string(),
        reason: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::reply_id;

    #[test]
    fn a_replys_id_is_read_from_its_head_and_an_events_is_not() {
        assert_eq!(reply_id(r#"{"id":12,"result":{"strings":["x"#), Some(12));
        assert_eq!(reply_id(r#" { "id" : 7 , "result""#), Some(7));
        assert_eq!(reply_id(r#"{"method":"DOM.attributeModified","#), None);
        // Cut inside the number: the id is not known whole.
        assert_eq!(reply_id(r#"{"id":1234"#), None);
        assert_eq!(reply_id(r#"{"result":{},"id":3}"#), None);
    }
}
