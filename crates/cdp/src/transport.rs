//! Transports move whole CDP messages; they know nothing of ids or sessions.
//!
//! Two exist: [`PipeTransport`] for a Chromium launched with `--remote-debugging-pipe`
//! (NUL-delimited JSON on its fds 3 and 4) and [`WebSocketTransport`] for a Chromium
//! reachable at a `ws://` endpoint. Either reads a message past [`MAX_MESSAGE`] to its end
//! and drops it, handing on only its size and first bytes ([`Received::TooLarge`]): a page
//! can make the browser send such a message (a DOM snapshot of a 300 MB attribute), and it
//! must cost the one command it answers, never the connection every task shares.

use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::os::fd::OwnedFd;
use std::pin::Pin;

use futures::{Sink, SinkExt, Stream, StreamExt};
use tokio::net::unix::pipe;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_util::bytes::{Buf, BufMut, BytesMut};
use tokio_util::codec::{Decoder, Encoder, FramedRead, FramedWrite};

use crate::Error;

/// Where outgoing messages go.
pub type MessageSink = Pin<Box<dyn Sink<String, Error = io::Error> + Send>>;
/// Where incoming messages come from; the stream ends when the peer closes.
pub type MessageStream = Pin<Box<dyn Stream<Item = io::Result<Received>> + Send>>;

/// A bidirectional channel of whole CDP messages.
pub trait Transport: Send {
    /// Splits into halves so reading and writing run independently.
    fn split(self: Box<Self>) -> (MessageSink, MessageStream);
}

/// What a transport reads: a whole message, or what is left of one too large to take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Received {
    Message(String),
    /// A message past `limit` bytes, read to its end and dropped: its size, and its first
    /// bytes (64 at most), which name the command it answers — Chromium writes a
    /// reply's `id` first.
    TooLarge {
        size: usize,
        limit: usize,
        head: String,
    },
}

/// The most one message may be. CDP messages can be screenshots of tens of megabytes, a
/// DOM snapshot of a large page more; a larger one is dropped, never buffered further.
pub const MAX_MESSAGE: usize = 256 * 1024 * 1024;

/// How much of a dropped message is kept: enough for `{"id":…,`.
const HEAD: usize = 64;

/// What a WebSocket may deliver at all before the socket itself gives up: messages between
/// [`MAX_MESSAGE`] and this are read whole, then dropped like the pipe's. Chromium's own
/// DevTools server closes a socket whose pending writes pass 256 MiB, so from Chromium none
/// comes near it.
const WEBSOCKET_CEILING: usize = 4 * MAX_MESSAGE;

/// `--remote-debugging-pipe`: we write commands to the browser's fd 3 and read replies
/// and events from its fd 4, each message terminated by a NUL byte.
pub struct PipeTransport {
    to_browser: pipe::Sender,
    from_browser: pipe::Receiver,
    max_message: usize,
}

impl PipeTransport {
    /// Takes our ends of the two pipes (the write end of the browser's fd 3 and the read
    /// end of its fd 4). Must be called inside a Tokio runtime.
    pub fn new(to_browser: OwnedFd, from_browser: OwnedFd) -> io::Result<Self> {
        Ok(Self {
            to_browser: pipe::Sender::from_owned_fd(to_browser)?,
            from_browser: pipe::Receiver::from_owned_fd(from_browser)?,
            max_message: MAX_MESSAGE,
        })
    }

    /// Drops messages past `max` bytes instead of [`MAX_MESSAGE`].
    pub fn with_max_message(mut self, max: usize) -> Self {
        self.max_message = max;
        self
    }
}

impl Transport for PipeTransport {
    fn split(self: Box<Self>) -> (MessageSink, MessageStream) {
        let sink = FramedWrite::new(self.to_browser, NulCodec::new(self.max_message));
        let stream = FramedRead::new(self.from_browser, NulCodec::new(self.max_message));
        (Box::pin(sink), Box::pin(stream))
    }
}

/// NUL-delimited messages. A message that grows past `max` before its NUL is not
/// buffered further: the rest of it is read and discarded up to its NUL (`dropping`), and
/// it comes out as [`Received::TooLarge`]; the next message is read as usual.
struct NulCodec {
    max: usize,
    /// How far the buffer was searched for a NUL already.
    searched: usize,
    dropping: Option<Dropping>,
}

/// A message being discarded: its first bytes and its size so far.
struct Dropping {
    head: Vec<u8>,
    size: usize,
}

impl NulCodec {
    fn new(max: usize) -> Self {
        Self {
            max,
            searched: 0,
            dropping: None,
        }
    }

    fn too_large(&self, dropping: Dropping) -> Received {
        Received::TooLarge {
            size: dropping.size,
            limit: self.max,
            head: String::from_utf8_lossy(&dropping.head).into_owned(),
        }
    }
}

impl Decoder for NulCodec {
    type Item = Received;
    type Error = io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> io::Result<Option<Received>> {
        if let Some(dropping) = &mut self.dropping {
            return Ok(match buf.iter().position(|b| *b == 0) {
                Some(end) => {
                    dropping.size += end;
                    buf.advance(end + 1);
                    self.dropping.take().map(|d| self.too_large(d))
                }
                None => {
                    dropping.size += buf.len();
                    buf.clear();
                    None
                }
            });
        }
        let Some(offset) = buf[self.searched..].iter().position(|b| *b == 0) else {
            if buf.len() > self.max {
                // Past the limit with no end in sight: keep its head, drop the rest as it comes.
                self.dropping = Some(Dropping {
                    head: buf[..HEAD.min(buf.len())].to_vec(),
                    size: buf.len(),
                });
                buf.clear();
                self.searched = 0;
                return self.decode(buf);
            }
            self.searched = buf.len();
            return Ok(None);
        };
        let end = self.searched + offset;
        self.searched = 0;
        let message = buf.split_to(end);
        buf.advance(1);
        if message.len() > self.max {
            return Ok(Some(self.too_large(Dropping {
                head: message[..HEAD.min(message.len())].to_vec(),
                size: message.len(),
            })));
        }
        String::from_utf8(message.to_vec())
            .map(|text| Some(Received::Message(text)))
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }
}

impl Encoder<String> for NulCodec {
    type Error = io::Error;

    fn encode(&mut self, message: String, buf: &mut BytesMut) -> io::Result<()> {
        buf.reserve(message.len() + 1);
        buf.put_slice(message.as_bytes());
        buf.put_u8(0);
        Ok(())
    }
}

/// A WebSocket to `ws://host:port/devtools/browser/…`.
pub struct WebSocketTransport {
    socket: tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>,
}

impl WebSocketTransport {
    /// Connects to a `ws://` endpoint. The host is resolved to an IP first and the
    /// handshake is addressed to that IP, because Chromium refuses a `Host` header that is
    /// a name other than `localhost`. No `Origin` header is sent (Chromium rejects
    /// unknown origins) and permessage-deflate is not offered.
    pub async fn connect(endpoint: &str) -> Result<Self, Error> {
        let connect_error = |reason: String| Error::Connect {
            endpoint: endpoint.to_string(),
            reason,
        };
        let mut url = url::Url::parse(endpoint).map_err(|e| connect_error(e.to_string()))?;
        if url.scheme() != "ws" {
            return Err(connect_error(
                "only ws:// endpoints are supported (wss:// is not)".into(),
            ));
        }
        let address = resolve(&url).map_err(connect_error)?;
        url.set_ip_host(address.ip())
            .map_err(|()| connect_error("cannot address the resolved IP".into()))?;
        let request = url
            .as_str()
            .into_client_request()
            .map_err(|e| connect_error(e.to_string()))?;
        let tcp = tokio::net::TcpStream::connect(address)
            .await
            .map_err(|e| connect_error(e.to_string()))?;
        tcp.set_nodelay(true)
            .map_err(|e| connect_error(e.to_string()))?;
        let config = WebSocketConfig::default()
            .max_message_size(Some(WEBSOCKET_CEILING))
            .max_frame_size(Some(WEBSOCKET_CEILING));
        let (socket, _response) =
            tokio_tungstenite::client_async_with_config(request, tcp, Some(config))
                .await
                .map_err(|e| connect_error(e.to_string()))?;
        Ok(Self { socket })
    }
}

fn resolve(url: &url::Url) -> Result<SocketAddr, String> {
    let host = url.host_str().ok_or("the endpoint has no host")?;
    let port = url
        .port_or_known_default()
        .ok_or("the endpoint has no port")?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    (host, port)
        .to_socket_addrs()
        .map_err(|e| e.to_string())?
        .next()
        .ok_or_else(|| format!("{host} resolves to no address"))
}

impl Transport for WebSocketTransport {
    fn split(self: Box<Self>) -> (MessageSink, MessageStream) {
        let (sink, stream) = self.socket.split();
        let sink = sink
            .sink_map_err(io::Error::other)
            .with(|text: String| futures::future::ready(Ok::<_, io::Error>(Message::text(text))));
        let stream = stream
            .take_while(|message| futures::future::ready(!matches!(message, Ok(Message::Close(_)))))
            .filter_map(|message| {
                futures::future::ready(match message {
                    Ok(Message::Text(text)) => Some(Ok(bounded(text.as_bytes(), MAX_MESSAGE)
                        .unwrap_or_else(|| Received::Message(text.as_str().to_owned())))),
                    Ok(Message::Binary(bytes)) => Some(match bounded(&bytes, MAX_MESSAGE) {
                        Some(too_large) => Ok(too_large),
                        None => String::from_utf8(bytes.to_vec())
                            .map(Received::Message)
                            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e)),
                    }),
                    Ok(_) => None,
                    Err(err) => Some(Err(io::Error::other(err))),
                })
            });
        (Box::pin(sink), Box::pin(stream))
    }
}

/// A whole message past `limit`, as what is kept of it.
fn bounded(message: &[u8], limit: usize) -> Option<Received> {
    (message.len() > limit).then(|| Received::TooLarge {
        size: message.len(),
        limit,
        head: String::from_utf8_lossy(&message[..HEAD.min(message.len())]).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `chunks` to a codec of limit `max` as a pipe would deliver them, and returns
    /// what it decodes.
    fn decode_all(max: usize, chunks: &[&[u8]]) -> Vec<Received> {
        let mut codec = NulCodec::new(max);
        let mut buf = BytesMut::new();
        let mut out = Vec::new();
        for chunk in chunks {
            buf.extend_from_slice(chunk);
            while let Some(item) = codec.decode(&mut buf).expect("decodes") {
                out.push(item);
            }
        }
        out
    }

    fn message(text: &str) -> Received {
        Received::Message(text.to_string())
    }

    #[test]
    fn messages_split_and_joined_across_reads_come_out_whole() {
        let out = decode_all(100, &[b"{\"id\":1}\0{\"id\"", b":2}\0{\"id\":3}", b"\0"]);
        assert_eq!(
            out,
            [
                message("{\"id\":1}"),
                message("{\"id\":2}"),
                message("{\"id\":3}")
            ]
        );
    }

    /// What the codec hands on for `big` past a limit of 100, then `{"id":8}`.
    fn dropped_then_next(big: &str) -> [Received; 2] {
        [
            Received::TooLarge {
                size: big.len(),
                limit: 100,
                head: big[..HEAD].to_string(),
            },
            message("{\"id\":8}"),
        ]
    }

    #[test]
    fn a_message_past_the_limit_is_drained_and_dropped_and_the_next_one_is_read() {
        let big = format!("{{\"id\":7,\"result\":\"{}\"}}", "x".repeat(500));
        let (first, rest) = big.as_bytes().split_at(150);
        let (second, third) = rest.split_at(200);
        let mut last = third.to_vec();
        last.extend_from_slice(b"\0{\"id\":8}\0");
        let out = decode_all(100, &[first, second, &last]);
        assert_eq!(out, dropped_then_next(&big));
    }

    #[test]
    fn a_message_past_the_limit_read_at_once_is_dropped_too() {
        let big = format!("{{\"id\":7,\"result\":\"{}\"}}", "x".repeat(500));
        let mut all = big.clone().into_bytes();
        all.extend_from_slice(b"\0{\"id\":8}\0");
        let out = decode_all(100, &[&all]);
        assert_eq!(out, dropped_then_next(&big));
    }

    #[test]
    fn a_message_at_the_limit_is_whole() {
        let text = format!("{{\"id\":1,\"r\":\"{}\"}}", "y".repeat(85));
        assert_eq!(text.len(), 100);
        let mut bytes = text.clone().into_bytes();
        bytes.push(0);
        assert_eq!(decode_all(100, &[&bytes]), [message(&text)]);
    }
}
