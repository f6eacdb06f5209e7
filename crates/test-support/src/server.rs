//! The fixture server: `fixtures/` plus a few dynamic routes, on `127.0.0.1:0`.
//!
//! It is the one static server (`static-site`) with the routes below: its own thread and
//! Tokio runtime, so it works the same from a plain `#[test]` and from a `#[tokio::test]`
//! of either flavour; `localhost` on the same port is a second site, which is what
//! cross-origin (out-of-process) iframes need; nothing is cached.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, RawQuery};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use static_site::{Files, StaticSite};
use tokio::sync::watch;

/// The longest `/slow` will wait, so a typo cannot hang a test run.
const SLOWEST: Duration = Duration::from_secs(60);

/// The session cookie `/sign-in` sets (`sid=` this), for tests that look for it where it
/// must not be.
pub const SIGN_IN_COOKIE: &str = "sid-Vq3Lp9XzK1";

/// The `HttpOnly` session cookie `/account/sign-in` sets (`account=` this): the fixture
/// account site's half of being signed in, the other half a localStorage value.
pub const ACCOUNT_COOKIE: &str = "acct-R8wN3kT6yQ";

/// A running fixture server. Dropping it stops the server and frees the port.
#[derive(Debug)]
pub struct FixtureServer {
    site: StaticSite,
    /// Whether `/gate` lets its requests through (see [`FixtureServer::open_gate`]).
    gate: Arc<watch::Sender<bool>>,
}

/// The repository's `fixtures/` folder.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

impl FixtureServer {
    /// Binds `127.0.0.1:0` and serves until dropped. Panics if the server cannot start: a
    /// test cannot go on without it.
    pub fn start() -> Self {
        let gate = Arc::new(watch::Sender::new(false));
        match StaticSite::with_routes(Files::Dir(fixtures_dir()), app(gate.clone())) {
            Ok(site) => Self { site, gate },
            Err(err) => panic!("fixture server: {err}"),
        }
    }

    /// Lets every request `/gate` holds through, and every later one at once.
    pub fn open_gate(&self) {
        self.gate.send_replace(true);
    }

    pub fn port(&self) -> u16 {
        self.site.port()
    }

    /// `http://127.0.0.1:PORT/path`; a leading `/` on `path` is optional.
    pub fn url(&self, path: &str) -> String {
        self.site.url(path)
    }

    /// `http://localhost:PORT/path`: the same server as another site, for cross-origin
    /// and out-of-process iframes.
    pub fn cross_origin_url(&self, path: &str) -> String {
        self.site.cross_origin_url(path)
    }
}

/// The routes; files from `fixtures/` for everything else (the static site's fallback).
fn app(gate: Arc<watch::Sender<bool>>) -> Router {
    Router::new()
        .route("/slow", get(slow))
        .route("/never", get(never))
        .route("/gate", gated(gate))
        .route("/stream", get(stream))
        .route("/status/{code}", get(status))
        // An upload's endpoint: a POST (its body ignored) answered with that status.
        .route("/upload/{code}", axum::routing::post(status))
        .route("/echo-title/{text}", get(echo_title))
        .route("/expires", expires())
        .route("/sign-in", axum::routing::post(sign_in))
        .route("/account/sign-in", axum::routing::post(account_sign_in))
        .route("/account", get(account))
}

/// `/account/sign-in`: a POST (its body ignored; `fixtures/account-login.html` keeps the
/// user's name in localStorage) answered with the `HttpOnly` session cookie and a redirect
/// to `/account`.
async fn account_sign_in() -> Response {
    (
        StatusCode::SEE_OTHER,
        [
            (
                header::SET_COOKIE,
                format!("account={ACCOUNT_COOKIE}; Path=/; HttpOnly; SameSite=Lax"),
            ),
            (header::LOCATION, "/account".to_string()),
        ],
    )
        .into_response()
}

/// `/account`: "Signed in as NAME" only when the request carries the session cookie and
/// the origin's localStorage holds the user's name; "Not signed in" otherwise.
async fn account(headers: axum::http::HeaderMap) -> Html<String> {
    let cookie = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .any(|pair| pair.trim() == format!("account={ACCOUNT_COOKIE}"));
    Html(format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Account</title></head>\
         <body><p id=\"out\">Not signed in</p><script>\
         const user = localStorage.getItem(\"user\");\
         if ({cookie} && user) document.getElementById(\"out\").textContent = \"Signed in as \" + user;\
         </script></body></html>\n"
    ))
}

/// `/sign-in`: a POST (its body ignored) answered with a page and a session cookie.
async fn sign_in() -> Response {
    (
        [(header::SET_COOKIE, format!("sid={SIGN_IN_COOKIE}; Path=/"))],
        page("Signed in", "Signed in."),
    )
        .into_response()
}

/// `/expires`: a page with a field the first time; every later request is sent to
/// `/login.html` (a session that expired), as sites do.
fn expires() -> axum::routing::MethodRouter {
    let served = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    get(move || {
        let served = served.clone();
        async move {
            if served.swap(true, std::sync::atomic::Ordering::SeqCst) {
                axum::response::Redirect::to("/login.html").into_response()
            } else {
                Html(
                    "<!doctype html><title>Account</title>\
                     <label>Display name <input id=\"display\"></label>",
                )
                .into_response()
            }
        }
    })
}

/// `/gate?to=PATH`: held until the test opens the gate ([`FixtureServer::open_gate`]),
/// then sent on to `PATH` (a path on this server; `/` without one). A page that
/// navigates through it stays mid-navigation for exactly as long as the test wants.
fn gated(gate: Arc<watch::Sender<bool>>) -> axum::routing::MethodRouter {
    get(move |RawQuery(query): RawQuery| {
        let mut open = gate.subscribe();
        async move {
            // An error means the server is stopping: nothing is waiting for the answer.
            let _ = open.wait_for(|open| *open).await;
            let to = query
                .as_deref()
                .unwrap_or_default()
                .split('&')
                .find_map(|pair| pair.strip_prefix("to="))
                .filter(|path| path.starts_with('/') && !path.starts_with("//"))
                .unwrap_or("/")
                .to_string();
            axum::response::Redirect::to(&to)
        }
    })
}

/// `/slow?ms=N`: a page titled "Slow", after N milliseconds.
async fn slow(RawQuery(query): RawQuery) -> Html<String> {
    let ms = query
        .as_deref()
        .unwrap_or_default()
        .split('&')
        .find_map(|pair| pair.strip_prefix("ms="))
        .and_then(|ms| ms.parse().ok())
        .unwrap_or(0);
    let delay = Duration::from_millis(ms).min(SLOWEST);
    tokio::time::sleep(delay).await;
    page("Slow", &format!("Answered after {} ms.", delay.as_millis()))
}

/// `/never`: accepts the request and never answers it (until the server stops).
async fn never() -> Response {
    std::future::pending::<()>().await;
    StatusCode::GATEWAY_TIMEOUT.into_response()
}

/// `/stream`: a page titled "Stream" whose body never ends: a paragraph every 200 ms.
async fn stream() -> Response {
    const HEAD: &str =
        "<!doctype html><title>Stream</title><p>The body of this page never ends.</p>\n";
    let chunks = futures::stream::unfold(0u64, |n| async move {
        if n > 0 {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let chunk = if n == 0 {
            HEAD.to_string()
        } else {
            format!("<p>chunk {n}</p>\n")
        };
        Some((Ok::<_, std::convert::Infallible>(chunk), n + 1))
    });
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        axum::body::Body::from_stream(chunks),
    )
        .into_response()
}

/// `/status/{code}`: that status, with a page titled "Status CODE".
async fn status(Path(code): Path<u16>) -> Response {
    match StatusCode::from_u16(code) {
        Ok(status) => {
            let title = format!("Status {code}");
            (status, page(&title, &title)).into_response()
        }
        Err(_) => (StatusCode::BAD_REQUEST, "not an HTTP status code").into_response(),
    }
}

/// `/echo-title/{text}`: a page whose title is `text` (percent-decoded).
async fn echo_title(Path(text): Path<String>) -> Html<String> {
    page(&text, &text)
}

fn page(title: &str, text: &str) -> Html<String> {
    let (title, text) = (escape(title), escape(text));
    Html(format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title></head>\
         <body><p>{text}</p></body></html>\n"
    ))
}

fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use std::net::TcpStream;

    use super::*;

    /// A raw HTTP/1.1 GET to the server's socket with the given `Host`; returns the
    /// status line and the whole response.
    fn get(server: &FixtureServer, host: &str, path: &str) -> (String, String) {
        crate::http_get(&format!("http://{host}:{}{path}", server.port()))
    }

    #[test]
    fn serves_fixture_files_on_both_hosts() {
        let server = FixtureServer::start();
        for host in ["127.0.0.1", "localhost"] {
            let (status, response) = get(&server, host, "/index.html");
            assert_eq!(status, "HTTP/1.1 200 OK", "{host}");
            assert!(response.contains("<title>Fixture home</title>"), "{host}");
            assert!(response.contains("cache-control: no-store"), "{host}");
        }
        let (status, _) = get(&server, "127.0.0.1", "/no-such-page.html");
        assert_eq!(status, "HTTP/1.1 404 Not Found");
    }

    #[test]
    fn urls_name_the_two_sites() {
        let server = FixtureServer::start();
        let port = server.port();
        assert_eq!(
            server.url("/a.html"),
            format!("http://127.0.0.1:{port}/a.html")
        );
        assert_eq!(
            server.cross_origin_url("a.html"),
            format!("http://localhost:{port}/a.html")
        );
    }

    #[test]
    fn dynamic_routes() {
        let server = FixtureServer::start();
        let (status, response) = get(&server, "127.0.0.1", "/status/404");
        assert_eq!(status, "HTTP/1.1 404 Not Found");
        assert!(response.contains("<title>Status 404</title>"));

        let (status, response) = get(&server, "127.0.0.1", "/echo-title/a%20%3Cb%3E");
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert!(response.contains("<title>a &lt;b&gt;</title>"));

        let (status, response) = get(&server, "127.0.0.1", "/slow?ms=5");
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert!(response.contains("<title>Slow</title>"));

        let (status, response) = get(&server, "127.0.0.1", "/expires");
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert!(response.contains("<title>Account</title>"));
        let (status, _) = get(&server, "127.0.0.1", "/expires");
        assert_eq!(status, "HTTP/1.1 303 See Other");
    }

    #[test]
    fn the_gate_holds_a_request_until_it_is_opened_then_sends_it_on() {
        let server = FixtureServer::start();
        let url = format!("http://127.0.0.1:{}/gate?to=/index.html", server.port());
        let held = std::thread::spawn(move || crate::http_get(&url));
        // The request has arrived once its handler waits on the gate.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while server.gate.receiver_count() == 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "the request never arrived"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(!held.is_finished(), "answered before the gate was opened");
        server.open_gate();
        let (status, response) = held.join().expect("the request thread");
        assert_eq!(status, "HTTP/1.1 303 See Other");
        assert!(response.contains("location: /index.html"), "{response}");
        // Once open, it lets requests through at once.
        let (status, _) = get(&server, "127.0.0.1", "/gate");
        assert_eq!(status, "HTTP/1.1 303 See Other");
    }

    #[test]
    fn dropping_the_server_frees_its_port() {
        let server = FixtureServer::start();
        let port = server.port();
        drop(server);
        assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
    }

    #[tokio::test]
    async fn starts_and_stops_inside_a_tokio_test() {
        let server = FixtureServer::start();
        assert_ne!(server.port(), 0);
    }
}
