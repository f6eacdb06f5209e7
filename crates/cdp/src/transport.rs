//! Transports move whole CDP messages; they know nothing of ids or sessions.
//!
//! Two exist: [`PipeTransport`] for a Chromium launched with `--remote-debugging-pipe`
//! (NUL-delimited JSON on its fds 3 and 4) and [`WebSocketTransport`] for a Chromium
//! reachable at a `ws://` endpoint.

use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::os::fd::OwnedFd;
use std::pin::Pin;

use futures::{Sink, SinkExt, Stream, StreamExt};
use tokio::net::unix::pipe;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_util::codec::{AnyDelimiterCodec, FramedRead, FramedWrite};

use crate::Error;

/// Where outgoing messages go.
pub type MessageSink = Pin<Box<dyn Sink<String, Error = io::Error> + Send>>;
/// Where incoming messages come from; the stream ends when the peer closes.
pub type MessageStream = Pin<Box<dyn Stream<Item = io::Result<String>> + Send>>;

/// A bidirectional channel of whole CDP messages.
pub trait Transport: Send {
    /// Splits into halves so reading and writing run independently.
    fn split(self: Box<Self>) -> (MessageSink, MessageStream);
}

/// CDP messages can be screenshots of tens of megabytes; this bounds one message.
const MAX_MESSAGE: usize = 256 * 1024 * 1024;

/// `--remote-debugging-pipe`: we write commands to the browser's fd 3 and read replies
/// and events from its fd 4, each message terminated by a NUL byte.
pub struct PipeTransport {
    to_browser: pipe::Sender,
    from_browser: pipe::Receiver,
}

impl PipeTransport {
    /// Takes our ends of the two pipes (the write end of the browser's fd 3 and the read
    /// end of its fd 4). Must be called inside a Tokio runtime.
    pub fn new(to_browser: OwnedFd, from_browser: OwnedFd) -> io::Result<Self> {
        Ok(Self {
            to_browser: pipe::Sender::from_owned_fd(to_browser)?,
            from_browser: pipe::Receiver::from_owned_fd(from_browser)?,
        })
    }
}

fn nul_codec() -> AnyDelimiterCodec {
    AnyDelimiterCodec::new_with_max_length(vec![0], vec![0], MAX_MESSAGE)
}

fn codec_error(err: tokio_util::codec::AnyDelimiterCodecError) -> io::Error {
    io::Error::other(err.to_string())
}

impl Transport for PipeTransport {
    fn split(self: Box<Self>) -> (MessageSink, MessageStream) {
        let sink = SinkExt::<String>::sink_map_err(
            FramedWrite::new(self.to_browser, nul_codec()),
            codec_error,
        );
        let stream = FramedRead::new(self.from_browser, nul_codec()).map(|frame| {
            let bytes = frame.map_err(codec_error)?;
            String::from_utf8(bytes.to_vec())
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
        });
        (Box::pin(sink), Box::pin(stream))
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
            .max_message_size(Some(MAX_MESSAGE))
            .max_frame_size(Some(MAX_MESSAGE));
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
                    Ok(Message::Text(text)) => Some(Ok(text.as_str().to_owned())),
                    Ok(Message::Binary(bytes)) => Some(
                        String::from_utf8(bytes.to_vec())
                            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e)),
                    ),
                    Ok(_) => None,
                    Err(err) => Some(Err(io::Error::other(err))),
                })
            });
        (Box::pin(sink), Box::pin(stream))
    }
}
