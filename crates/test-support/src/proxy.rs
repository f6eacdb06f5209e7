//! A small forwarding HTTP proxy on `127.0.0.1:0` for tests of a task's proxy: plain HTTP
//! forward of absolute-URI requests (no `CONNECT`), one request per connection, with
//! `Proxy-Authorization: Basic` checked when it is made with credentials — a request
//! without them, or with others, is answered `407` with `Proxy-Authenticate: Basic`.
//! It logs every request it forwarded and every request it challenged.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A running forwarding proxy; dropping it stops it.
pub struct ForwardProxy {
    port: u16,
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    /// `Basic …` that is let through, when credentials are asked for.
    expected: Option<String>,
    forwarded: Mutex<Vec<String>>,
    /// The target of every request answered `407` (an absolute URL, or `host:port` of
    /// a `CONNECT`), in order.
    challenged: Mutex<Vec<String>>,
    stop: AtomicBool,
}

impl ForwardProxy {
    /// A proxy that asks for `credentials` (user name, password), or for none.
    pub fn start(credentials: Option<(&str, &str)>) -> ForwardProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port for the proxy");
        let port = listener.local_addr().expect("the proxy's address").port();
        let shared = Arc::new(Shared {
            expected: credentials.map(|(user, password)| {
                format!("Basic {}", base64(format!("{user}:{password}").as_bytes()))
            }),
            ..Shared::default()
        });
        let serving = shared.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if serving.stop.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(stream) = stream else { continue };
                let shared = serving.clone();
                std::thread::spawn(move || {
                    let _ = serve(stream, &shared);
                });
            }
        });
        ForwardProxy { port, shared }
    }

    /// `http://127.0.0.1:PORT`, as a browser names its proxy.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The absolute URLs of the requests forwarded so far, in order.
    pub fn forwarded(&self) -> Vec<String> {
        self.shared
            .forwarded
            .lock()
            .map(|f| f.clone())
            .unwrap_or_default()
    }

    /// How many requests for `url` were answered `407`. Only these count: the browser
    /// also sends requests of its own through a context's proxy (Chromium 148 opens
    /// `CONNECT www.google.com:443`), which are challenged too.
    pub fn challenges_of(&self, url: &str) -> usize {
        self.shared
            .challenged
            .lock()
            .map(|c| c.iter().filter(|target| *target == url).count())
            .unwrap_or_default()
    }
}

impl Drop for ForwardProxy {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread, which then sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve(client: TcpStream, shared: &Shared) -> std::io::Result<()> {
    client.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(client.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
        headers.push(line.trim_end().to_string());
    }
    let header = |name: &str| {
        headers.iter().find_map(|h| {
            let (key, value) = h.split_once(':')?;
            key.eq_ignore_ascii_case(name)
                .then(|| value.trim().to_string())
        })
    };
    let mut client = client;
    if let Some(expected) = &shared.expected
        && header("Proxy-Authorization").as_deref() != Some(expected.as_str())
    {
        let target = request_line.split_whitespace().nth(1).unwrap_or_default();
        if let Ok(mut challenged) = shared.challenged.lock() {
            challenged.push(target.to_string());
        }
        client.write_all(
            b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"candor-test\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        )?;
        return client.shutdown(Shutdown::Both);
    }
    let mut parts = request_line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Ok(());
    };
    let Some((host, path)) = target.strip_prefix("http://").map(|rest| {
        rest.split_once('/')
            .map_or((rest, "/".to_string()), |(h, p)| (h, format!("/{p}")))
    }) else {
        client.write_all(
            b"HTTP/1.1 501 Not Implemented\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        )?;
        return client.shutdown(Shutdown::Both);
    };
    if let Ok(mut forwarded) = shared.forwarded.lock() {
        forwarded.push(target.to_string());
    }
    let mut body = vec![
        0;
        header("Content-Length")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    ];
    reader.read_exact(&mut body)?;
    let mut upstream = TcpStream::connect(host)?;
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    for h in &headers {
        let name = h.split(':').next().unwrap_or_default().to_ascii_lowercase();
        if !name.starts_with("proxy-") && name != "connection" {
            head.push_str(h);
            head.push_str("\r\n");
        }
    }
    head.push_str("Connection: close\r\n\r\n");
    upstream.write_all(head.as_bytes())?;
    upstream.write_all(&body)?;
    std::io::copy(&mut upstream, &mut client)?;
    client.shutdown(Shutdown::Both)
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_the_standard_one() {
        assert_eq!(base64(b"user:secret"), "dXNlcjpzZWNyZXQ=");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b"abc"), "YWJj");
    }
}
