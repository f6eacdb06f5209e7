//! `Connection` against a fake peer: routing of replies and events, errors, deadlines,
//! closing, and the tape. No browser; the peer is an in-memory transport driven by the
//! test, and every wait is on an actual message, never a sleep.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use cdp::protocol::target::{AttachedToTarget, CreateTarget, DetachedFromTarget, TargetType};
use cdp::{
    Connection, Deadline, Error, MessageSink, MessageStream, PipeTransport, RawEvent, Received,
    Recorder, SessionId, Transport,
};
use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

/// Long enough never to fire in a test that expects a reply.
const PATIENT: Duration = Duration::from_secs(10);

/// The connection's half of the in-memory transport.
struct FakeTransport {
    to_peer: mpsc::UnboundedSender<String>,
    from_peer: mpsc::UnboundedReceiver<io::Result<Received>>,
}

impl Transport for FakeTransport {
    fn split(self: Box<Self>) -> (MessageSink, MessageStream) {
        let sink = self.to_peer.sink_map_err(io::Error::other);
        (Box::pin(sink), Box::pin(self.from_peer))
    }
}

/// The browser's side: reads what the connection sent, sends replies and events.
struct Peer {
    from_connection: mpsc::UnboundedReceiver<String>,
    to_connection: Option<mpsc::UnboundedSender<io::Result<Received>>>,
}

impl Peer {
    /// The next command the connection sent, parsed.
    async fn command(&mut self) -> Value {
        let text = self
            .from_connection
            .next()
            .await
            .expect("the connection stopped writing");
        serde_json::from_str(&text).expect("the connection sent invalid JSON")
    }

    fn send(&self, message: Value) {
        self.send_text(message.to_string());
    }

    fn send_text(&self, text: String) {
        self.deliver(Received::Message(text));
    }

    fn deliver(&self, received: Received) {
        self.to_connection
            .as_ref()
            .expect("peer already closed")
            .unbounded_send(Ok(received))
            .expect("the connection stopped reading");
    }

    /// What a transport hands on of a message too large to take: its size and head.
    fn too_large(&self, message: Value) {
        let text = message.to_string();
        self.deliver(Received::TooLarge {
            size: 300_000_000,
            limit: 268_435_456,
            head: text[..text.len().min(64)].to_string(),
        });
    }

    fn reply(&self, command: &Value, result: Value) {
        self.send(json!({ "id": command["id"], "result": result }));
    }

    fn event(&self, session: Option<&str>, method: &str, params: Value) {
        let mut event = json!({ "method": method, "params": params });
        if let Some(session) = session {
            event["sessionId"] = json!(session);
        }
        self.send(event);
    }

    /// Ends the stream the connection reads, as a browser exiting would.
    fn close(&mut self) {
        self.to_connection = None;
    }
}

fn connect(recorder: Option<Arc<Recorder>>) -> (Connection, Peer) {
    let (to_peer, from_connection) = mpsc::unbounded();
    let (to_connection, from_peer) = mpsc::unbounded();
    let transport = FakeTransport { to_peer, from_peer };
    let connection = Connection::start(Box::new(transport), recorder);
    let peer = Peer {
        from_connection,
        to_connection: Some(to_connection),
    };
    (connection, peer)
}

fn session(id: &str) -> SessionId {
    SessionId(id.to_string())
}

/// Every event until the receiver ends, as (method, params.n) pairs.
async fn drain(mut events: UnboundedReceiver<RawEvent>) -> Vec<(String, Value)> {
    let mut seen = Vec::new();
    while let Some(event) = events.recv().await {
        seen.push((event.method, event.params["n"].clone()));
    }
    seen
}

fn pairs(expected: &[(&str, i64)]) -> Vec<(String, Value)> {
    expected
        .iter()
        .map(|(method, n)| (method.to_string(), json!(n)))
        .collect()
}

#[tokio::test]
async fn replies_reach_their_callers_when_answered_out_of_order() {
    let (connection, mut peer) = connect(None);
    let browser = connection.browser_session();
    let page = connection.session(session("S1"));

    let peer_script = async {
        let first = peer.command().await;
        let second = peer.command().await;
        let third = peer.command().await;
        for command in [&third, &first, &second] {
            peer.reply(command, json!({ "method": command["method"] }));
        }
        [first, second, third]
    };
    let (a, b, c, commands) = tokio::join!(
        browser.call_raw("Test.a", json!({ "x": 1 }), Deadline::after(PATIENT)),
        page.call_raw("Test.b", json!({}), Deadline::after(PATIENT)),
        browser.call_raw("Test.c", json!({}), Deadline::after(PATIENT)),
        peer_script,
    );

    assert_eq!(a.expect("a"), json!({ "method": "Test.a" }));
    assert_eq!(b.expect("b"), json!({ "method": "Test.b" }));
    assert_eq!(c.expect("c"), json!({ "method": "Test.c" }));

    let ids: Vec<_> = commands.iter().map(|c| c["id"].as_u64()).collect();
    assert!(
        ids.iter().all(Option::is_some),
        "every command has an id: {ids:?}"
    );
    assert_ne!(ids[0], ids[1]);
    assert_ne!(ids[1], ids[2]);
    assert_ne!(ids[0], ids[2]);
    let by_method = |m: &str| {
        commands
            .iter()
            .find(|c| c["method"] == m)
            .expect("command sent")
    };
    assert_eq!(by_method("Test.a")["params"], json!({ "x": 1 }));
    assert_eq!(by_method("Test.a").get("sessionId"), None);
    assert_eq!(by_method("Test.b")["sessionId"], json!("S1"));
}

#[tokio::test]
async fn typed_calls_send_their_params_and_decode_their_reply() {
    let (connection, mut peer) = connect(None);
    let command = CreateTarget {
        url: "about:blank".into(),
        ..CreateTarget::default()
    };
    let browser = connection.browser_session();
    let peer_script = async {
        let sent = peer.command().await;
        peer.reply(&sent, json!({ "targetId": "T1" }));
        sent
    };
    let (reply, sent) = tokio::join!(
        browser.call(&command, Deadline::after(PATIENT)),
        peer_script,
    );
    assert_eq!(reply.expect("reply").target_id, "T1");
    assert_eq!(sent["method"], "Target.createTarget");
    assert_eq!(sent["params"], json!({ "url": "about:blank" }));
}

#[tokio::test]
async fn a_reply_of_the_wrong_shape_is_a_decode_error_naming_the_method() {
    let (connection, mut peer) = connect(None);
    let browser = connection.browser_session();
    let command = CreateTarget::default();
    let peer_script = async {
        let sent = peer.command().await;
        peer.reply(&sent, json!({ "unexpected": true }));
    };
    let (reply, ()) = tokio::join!(
        browser.call(&command, Deadline::after(PATIENT)),
        peer_script,
    );
    match reply {
        Err(Error::Decode { method, .. }) => assert_eq!(method, "Target.createTarget"),
        other => panic!("expected a decode error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_protocol_error_reply_names_the_method() {
    let (connection, mut peer) = connect(None);
    let peer_script = async {
        let without_data = peer.command().await;
        let with_data = peer.command().await;
        peer.send(json!({
            "id": without_data["id"],
            "error": { "code": -32601, "message": "'Nope.nothing' wasn't found" },
        }));
        peer.send(json!({
            "id": with_data["id"],
            "error": { "code": -32000, "message": "Invalid parameters", "data": "url: string value expected" },
        }));
    };
    let session = connection.session(session("S1"));
    let (without_data, with_data, ()) = tokio::join!(
        session.call_raw("Nope.nothing", json!({}), Deadline::after(PATIENT)),
        session.call_raw("Page.navigate", json!({}), Deadline::after(PATIENT)),
        peer_script,
    );

    match without_data {
        Err(Error::Protocol {
            method,
            code,
            message,
        }) => {
            assert_eq!(method, "Nope.nothing");
            assert_eq!(code, -32601);
            assert_eq!(message, "'Nope.nothing' wasn't found");
        }
        other => panic!("expected a protocol error, got {other:?}"),
    }
    let err = with_data.expect_err("protocol error");
    assert!(
        matches!(&err, Error::Protocol { method, code: -32000, .. } if method == "Page.navigate")
    );
    assert!(
        err.is_protocol_message("url: string value expected"),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "Page.navigate failed: Invalid parameters: url: string value expected (code -32000)"
    );
}

#[tokio::test]
async fn events_go_to_the_subscribers_of_their_session_only_in_order() {
    let (connection, mut peer) = connect(None);
    let s1 = connection.session(session("S1")).subscribe();
    let s1_again = connection.subscribe(Some(session("S1")));
    let s2 = connection.subscribe(Some(session("S2")));
    let browser = connection.browser_session().subscribe();

    peer.event(Some("S1"), "Page.a", json!({ "n": 1 }));
    peer.event(None, "Target.b", json!({ "n": 2 }));
    peer.event(Some("S2"), "Page.c", json!({ "n": 3 }));
    peer.event(Some("S1"), "Page.d", json!({ "n": 4 }));
    peer.event(Some("S3"), "Page.nobody", json!({ "n": 5 }));
    peer.event(Some("S1"), "Page.e", json!({ "n": 6 }));
    peer.event(None, "Target.f", json!({ "n": 7 }));
    // Closing ends every receiver after the events already sent, so draining them shows
    // exactly what each subscriber got.
    peer.close();

    let s1_expected = pairs(&[("Page.a", 1), ("Page.d", 4), ("Page.e", 6)]);
    assert_eq!(drain(s1).await, s1_expected);
    assert_eq!(drain(s1_again).await, s1_expected);
    assert_eq!(drain(s2).await, pairs(&[("Page.c", 3)]));
    assert_eq!(
        drain(browser).await,
        pairs(&[("Target.b", 2), ("Target.f", 7)])
    );
}

#[tokio::test]
async fn a_subscriber_sees_only_events_sent_after_it_subscribed() {
    let (connection, mut peer) = connect(None);
    let early = connection.subscribe(None);
    peer.event(None, "Test.before", json!({ "n": 1 }));
    let mut early_probe = connection.subscribe(None);
    // Once the event has reached a subscriber, it has been dispatched to all of them.
    early_probe.recv().await.expect("an event");
    let late = connection.subscribe(None);
    peer.event(None, "Test.after", json!({ "n": 2 }));
    peer.close();

    assert_eq!(
        drain(early).await,
        pairs(&[("Test.before", 1), ("Test.after", 2)])
    );
    assert_eq!(drain(late).await, pairs(&[("Test.after", 2)]));
}

#[tokio::test]
async fn unsubscribing_a_session_ends_its_receivers_only() {
    let (connection, peer) = connect(None);
    let gone = connection.subscribe(Some(session("S1")));
    let mut other = connection.subscribe(Some(session("S2")));
    connection.unsubscribe(&session("S1"));
    peer.event(Some("S1"), "Page.dropped", json!({ "n": 1 }));
    peer.event(Some("S2"), "Page.kept", json!({ "n": 2 }));

    assert_eq!(drain(gone).await, []);
    let kept = other.recv().await.expect("an event");
    assert_eq!(kept.method, "Page.kept");
}

#[tokio::test]
async fn raw_events_parse_into_their_typed_form() {
    let (connection, peer) = connect(None);
    let mut events = connection.subscribe(None);
    peer.event(
        None,
        "Target.attachedToTarget",
        json!({
            "sessionId": "S9",
            "targetInfo": { "targetId": "T9", "type": "page", "title": "", "url": "about:blank", "attached": true },
            "waitingForDebugger": false,
        }),
    );
    let event = events.recv().await.expect("an event");
    assert_eq!(event.session, None);
    let attached = event.parse::<AttachedToTarget>().expect("typed event");
    assert_eq!(attached.session_id, session("S9"));
    assert_eq!(attached.target_info.r#type, TargetType::Page);
    assert!(event.parse::<DetachedFromTarget>().is_none());

    // The right method with the wrong shape is skipped, not a failure.
    peer.event(None, "Target.attachedToTarget", json!({ "sessionId": 3 }));
    let malformed = events.recv().await.expect("an event");
    assert!(malformed.parse::<AttachedToTarget>().is_none());
}

#[tokio::test]
async fn a_call_whose_reply_never_comes_times_out_naming_the_method() {
    let (connection, mut peer) = connect(None);
    let browser = connection.browser_session();
    let (result, sent) = tokio::join!(
        browser.call_raw(
            "Page.neverAnswered",
            json!({}),
            Deadline::after(Duration::from_millis(50))
        ),
        peer.command(),
    );
    match result {
        Err(Error::Timeout { waiting_for, after }) => {
            assert_eq!(waiting_for, "Page.neverAnswered");
            // `after` counts from the call's start, a moment after the deadline was made.
            assert!(after >= Duration::from_millis(40), "{after:?}");
        }
        other => panic!("expected a timeout, got {other:?}"),
    }

    // The late reply is dropped and the connection carries on.
    peer.reply(&sent, json!({ "late": true }));
    let next = async {
        let sent = peer.command().await;
        peer.reply(&sent, json!({ "on": "time" }));
    };
    let (result, ()) = tokio::join!(
        browser.call_raw("Page.answered", json!({}), Deadline::after(PATIENT)),
        next,
    );
    assert_eq!(result.expect("reply"), json!({ "on": "time" }));
}

#[tokio::test]
async fn an_unreadable_message_is_skipped_and_the_connection_carries_on() {
    let (connection, mut peer) = connect(None);
    let peer_script = async {
        let sent = peer.command().await;
        peer.send_text("this is not JSON".into());
        peer.reply(&sent, json!({ "ok": true }));
    };
    let (result, ()) = tokio::join!(
        connection.call_raw(None, "Test.call", json!({}), Deadline::after(PATIENT)),
        peer_script,
    );
    assert_eq!(result.expect("reply"), json!({ "ok": true }));
    assert!(!connection.is_closed());
}

#[tokio::test]
async fn a_reply_too_large_fails_only_its_call_by_name_and_the_connection_carries_on() {
    let (connection, mut peer) = connect(None);
    let browser = connection.browser_session();
    let mut events = browser.subscribe();
    let peer_script = async {
        let big = peer.command().await;
        let other = peer.command().await;
        // An event too large is lost; the events around it arrive.
        peer.event(None, "Test.before", json!({ "n": 1 }));
        peer.too_large(json!({ "method": "Test.huge", "params": { "v": "x".repeat(100) } }));
        peer.too_large(json!({ "id": big["id"], "result": { "v": "x".repeat(100) } }));
        peer.event(None, "Test.after", json!({ "n": 2 }));
        peer.reply(&other, json!({ "small": true }));
    };
    let (big, other, ()) = tokio::join!(
        browser.call_raw(
            "DOMSnapshot.captureSnapshot",
            json!({}),
            Deadline::after(PATIENT)
        ),
        browser.call_raw("Test.other", json!({}), Deadline::after(PATIENT)),
        peer_script,
    );
    match big {
        Err(Error::TooLarge {
            method,
            size,
            limit,
        }) => {
            assert_eq!(method, "DOMSnapshot.captureSnapshot");
            assert_eq!((size, limit), (300_000_000, 268_435_456));
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
    assert_eq!(other.expect("reply"), json!({ "small": true }));
    assert_eq!(events.recv().await.expect("an event").method, "Test.before");
    assert_eq!(events.recv().await.expect("an event").method, "Test.after");
    assert!(!connection.is_closed());
    let next = async {
        let sent = peer.command().await;
        peer.reply(&sent, json!({ "still": "here" }));
    };
    let (result, ()) = tokio::join!(
        browser.call_raw("Test.next", json!({}), Deadline::after(PATIENT)),
        next,
    );
    assert_eq!(result.expect("reply"), json!({ "still": "here" }));
}

/// The pipe end to end: a reply far larger than the limit (and than the pipe's buffer)
/// is drained as it comes and dropped; its call fails by name, the next reply is read.
#[tokio::test]
async fn a_pipe_drains_a_reply_past_its_limit_and_reads_the_next() {
    use std::io::{BufRead, BufReader, Write};
    let (to_browser_reader, to_browser) = std::io::pipe().expect("a pipe");
    let (from_browser, from_browser_writer) = std::io::pipe().expect("a pipe");
    let transport = PipeTransport::new(to_browser.into(), from_browser.into())
        .expect("pipe transport")
        .with_max_message(1000);
    let connection = Connection::start(Box::new(transport), None);
    // The browser: answers the first command with 1 MB, the next with a few bytes, and
    // stays until the connection goes.
    let browser_side = std::thread::spawn(move || {
        let mut commands = BufReader::new(to_browser_reader);
        let mut writer = from_browser_writer;
        for answer in 0.. {
            let mut command = Vec::new();
            if commands.read_until(0, &mut command).expect("a command") == 0 {
                return;
            }
            command.pop();
            let command: Value = serde_json::from_slice(&command).expect("JSON");
            let result = if answer == 0 {
                json!({ "v": "x".repeat(1_000_000) })
            } else {
                json!({ "small": true })
            };
            let reply = json!({ "id": command["id"], "result": result }).to_string();
            writer.write_all(reply.as_bytes()).expect("written");
            writer.write_all(b"\0").expect("written");
        }
    });
    let browser = connection.browser_session();
    let big = browser
        .call_raw("Test.big", json!({}), Deadline::after(PATIENT))
        .await;
    assert!(
        matches!(&big, Err(Error::TooLarge { method, size, limit: 1000 })
            if method == "Test.big" && *size > 1_000_000),
        "{big:?}"
    );
    let small = browser
        .call_raw("Test.small", json!({}), Deadline::after(PATIENT))
        .await;
    assert_eq!(small.expect("reply"), json!({ "small": true }));
    assert!(!connection.is_closed());
    drop((browser, connection));
    tokio::task::spawn_blocking(move || browser_side.join())
        .await
        .expect("joined")
        .expect("the browser side ran");
}

#[tokio::test]
async fn when_the_peer_closes_pending_calls_fail_closed_and_subscriptions_end() {
    let (connection, mut peer) = connect(None);
    let browser = connection.browser_session();
    let page = connection.session(session("S1"));
    let mut browser_events = browser.subscribe();
    let mut page_events = page.subscribe();

    let peer_script = async {
        peer.command().await;
        peer.command().await;
        peer.close();
    };
    let (a, b, ()) = tokio::join!(
        browser.call_raw("Test.a", json!({}), Deadline::after(PATIENT)),
        page.call_raw("Test.b", json!({}), Deadline::after(PATIENT)),
        peer_script,
    );
    assert!(matches!(a, Err(Error::Closed)), "{a:?}");
    assert!(matches!(b, Err(Error::Closed)), "{b:?}");
    assert!(browser_events.recv().await.is_none());
    assert!(page_events.recv().await.is_none());

    connection.closed().await;
    assert!(connection.is_closed());
    let after = browser
        .call_raw("Test.after", json!({}), Deadline::after(PATIENT))
        .await;
    assert!(matches!(after, Err(Error::Closed)), "{after:?}");
    assert!(connection.subscribe(None).recv().await.is_none());
}

#[tokio::test]
async fn a_transport_read_error_closes_the_connection() {
    let (connection, mut peer) = connect(None);
    let peer_script = async {
        peer.command().await;
        peer.to_connection
            .as_ref()
            .expect("open")
            .unbounded_send(Err(io::Error::other("pipe broke")))
            .expect("the connection is reading");
    };
    let (result, ()) = tokio::join!(
        connection.call_raw(None, "Test.call", json!({}), Deadline::after(PATIENT)),
        peer_script,
    );
    assert!(matches!(result, Err(Error::Closed)), "{result:?}");
    connection.closed().await;
}

#[tokio::test]
async fn the_recorder_writes_every_message_in_order() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tape = dir.path().join("tape.jsonl");
    let recorder = Arc::new(Recorder::create(&tape).expect("create tape"));
    let (connection, mut peer) = connect(Some(recorder));

    let peer_script = async {
        let sent = peer.command().await;
        peer.event(
            Some("S1"),
            "Page.loadEventFired",
            json!({ "timestamp": 1.5 }),
        );
        peer.reply(&sent, json!({ "frameId": "F1" }));
        let sent = peer.command().await;
        peer.reply(&sent, json!({}));
    };
    let calls = async {
        let page = connection.session(session("S1"));
        let first = page
            .call_raw(
                "Page.navigate",
                json!({ "url": "http://127.0.0.1/" }),
                Deadline::after(PATIENT),
            )
            .await;
        let second = page
            .call_raw("Page.reload", json!({}), Deadline::after(PATIENT))
            .await;
        (first, second)
    };
    let ((first, second), ()) = tokio::join!(calls, peer_script);
    first.expect("first reply");
    second.expect("second reply");
    peer.close();
    connection.closed().await;

    let text = std::fs::read_to_string(&tape).expect("read tape");
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect();
    let summary: Vec<(&str, &str)> = lines
        .iter()
        .map(|line| {
            let dir = line["dir"].as_str().expect("dir");
            let msg = &line["msg"];
            let what = msg["method"]
                .as_str()
                .or_else(|| msg.get("result").map(|_| "reply"))
                .expect("a method or a result");
            (dir, what)
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("send", "Page.navigate"),
            ("recv", "Page.loadEventFired"),
            ("recv", "reply"),
            ("send", "Page.reload"),
            ("recv", "reply"),
        ]
    );
    assert_eq!(lines[0]["msg"]["sessionId"], "S1");
    assert_eq!(lines[0]["msg"]["params"]["url"], "http://127.0.0.1/");
    assert_eq!(lines[2]["msg"]["id"], lines[0]["msg"]["id"]);
    let times: Vec<f64> = lines
        .iter()
        .map(|line| line["ms"].as_f64().expect("ms"))
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
}
