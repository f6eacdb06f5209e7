//! A plain blocking HTTP/1.1 GET for tests that check what a server answers (status line
//! and all), with nothing between the test and the socket.

use std::io::{Read, Write};
use std::net::TcpStream;

/// GETs `http://host:port/path` and returns (status line, whole response). Panics if the
/// server cannot be reached: the test cannot go on without it.
pub fn http_get(url: &str) -> (String, String) {
    let rest = url
        .strip_prefix("http://")
        .unwrap_or_else(|| panic!("not an http URL: {url}"));
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let mut stream =
        TcpStream::connect(host).unwrap_or_else(|e| panic!("cannot connect to {host}: {e}"));
    let request = format!("GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .expect("the request is written");
    let mut response = String::new();
    stream
        .read_to_string(&mut response)
        .expect("the response is read");
    let status = response.lines().next().unwrap_or_default().to_string();
    (status, response)
}

/// Sends `request` (a whole HTTP/1.1 request head, `\r\n`-terminated lines and the blank
/// line) to `host` (`127.0.0.1:PORT`) and returns the response's head (status line and
/// headers) with the connection, still open: a WebSocket handshake's answer is followed
/// by the socket itself. Panics if the server cannot be reached.
pub fn http_exchange(host: &str, request: &str) -> (String, TcpStream) {
    let mut stream =
        TcpStream::connect(host).unwrap_or_else(|e| panic!("cannot connect to {host}: {e}"));
    stream
        .write_all(request.as_bytes())
        .expect("the request is written");
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => break,
        }
    }
    (String::from_utf8_lossy(&head).into_owned(), stream)
}
