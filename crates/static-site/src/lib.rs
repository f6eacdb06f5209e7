//! candor's one static file server: a folder on disk or a set of files compiled into the
//! binary, on `127.0.0.1:0`, with optional extra routes. The test suite (`test-support`'s
//! `FixtureServer`: `fixtures/` plus its fault routes), the demo site (`candor demo`, pages
//! compiled in) and the benchmarks (`crates/bench`) all serve through it.
//!
//! It is a library of its own, not part of `test-support`, because the shipped binary
//! needs it (the demo) and test-only code must not ship; and not part of a face's crate,
//! because serving files is no face's business.
//!
//! A server runs on its own thread with its own Tokio runtime, so it works the same from
//! plain code, a `#[test]`, and a Tokio runtime of either flavour, and a caller that
//! blocks its own runtime cannot starve it. `localhost` on the same port is a second site
//! ([`StaticSite::cross_origin_url`]), which cross-origin (out-of-process) iframes need.
//! Every response says `Cache-Control: no-store`: the same pages are loaded again and
//! again, and a cached copy would change what the browser reports (no request, no body)
//! and what a measurement measures.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::thread::JoinHandle;
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use tokio::sync::watch;
use tower_http::services::ServeDir;

/// How long in-flight requests may keep a dropped server alive; a request still hanging
/// (a route that never answers) or a peer holding one open is cut off after it.
const GRACE: Duration = Duration::from_secs(1);

/// What a [`StaticSite`] serves at every path its extra routes do not take.
#[derive(Debug, Clone)]
pub enum Files {
    /// A folder on disk: `/` and folders serve their `index.html`, content types follow
    /// the extension, a missing file is 404.
    Dir(PathBuf),
    /// Files compiled into the binary, as (path relative to the root, contents): `/` and
    /// paths ending in `/` serve `index.html`, content types follow the extension, a
    /// missing file is a small 404 page.
    Embedded(&'static [(&'static str, &'static str)]),
}

/// Why a server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot bind 127.0.0.1:0: {0}")]
    Bind(#[source] std::io::Error),
    #[error("cannot build the server's Tokio runtime: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("cannot register the server's socket with its runtime: {0}")]
    Register(#[source] std::io::Error),
    #[error("cannot spawn the server's thread: {0}")]
    Thread(#[source] std::io::Error),
}

/// A running server on `127.0.0.1`. Dropping it stops the server and frees the port.
#[derive(Debug)]
pub struct StaticSite {
    addr: SocketAddr,
    stop: watch::Sender<bool>,
    thread: Option<JoinHandle<()>>,
}

impl StaticSite {
    /// Serves `files` on `127.0.0.1:0` until dropped.
    pub fn start(files: Files) -> Result<Self, StartError> {
        Self::with_routes(files, Router::new())
    }

    /// Serves `routes` first and `files` at every other path, on `127.0.0.1:0`, until
    /// dropped. `routes` must not set a fallback of its own (the files are the fallback).
    pub fn with_routes(files: Files, routes: Router) -> Result<Self, StartError> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.set_nonblocking(true).map(|()| listener))
            .map_err(StartError::Bind)?;
        let addr = listener.local_addr().map_err(StartError::Bind)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(StartError::Runtime)?;
        let listener = {
            let _entered = runtime.enter();
            tokio::net::TcpListener::from_std(listener).map_err(StartError::Register)?
        };
        let app = app(files, routes);
        let (stop, stopped) = watch::channel(false);
        let thread = std::thread::Builder::new()
            .name(format!("static-site-{}", addr.port()))
            .spawn(move || runtime.block_on(serve(listener, app, stopped)))
            .map_err(StartError::Thread)?;
        Ok(Self {
            addr,
            stop,
            thread: Some(thread),
        })
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://127.0.0.1:PORT/path`; a leading `/` on `path` is optional.
    pub fn url(&self, path: &str) -> String {
        format!(
            "http://127.0.0.1:{}/{}",
            self.port(),
            path.trim_start_matches('/')
        )
    }

    /// `http://localhost:PORT/path`: the same server as another site, for cross-origin
    /// and out-of-process iframes.
    pub fn cross_origin_url(&self, path: &str) -> String {
        format!(
            "http://localhost:{}/{}",
            self.port(),
            path.trim_start_matches('/')
        )
    }
}

impl Drop for StaticSite {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        if let Some(thread) = self.thread.take() {
            // A panic on the server thread was already printed; re-raising it in a drop
            // would abort a caller that is itself unwinding.
            let _ = thread.join();
        }
    }
}

/// The extra routes, then the files; nothing cached.
fn app(files: Files, routes: Router) -> Router {
    let app = match files {
        Files::Dir(root) => routes.fallback_service(ServeDir::new(root)),
        Files::Embedded(files) => {
            routes.fallback(move |uri: Uri| async move { embedded(files, uri.path()) })
        }
    };
    app.layer(axum::middleware::map_response(no_store))
}

async fn serve(listener: tokio::net::TcpListener, app: Router, stopped: watch::Receiver<bool>) {
    let stop_signal = wait_for_stop(stopped.clone());
    let server = axum::serve(listener, app).with_graceful_shutdown(stop_signal);
    let grace_over = async {
        wait_for_stop(stopped).await;
        tokio::time::sleep(GRACE).await;
    };
    // Graceful shutdown waits for open connections; after the grace period they are cut.
    tokio::select! {
        result = server => {
            if let Err(err) = result {
                eprintln!("static site stopped with an error: {err}");
            }
        }
        () = grace_over => {}
    }
}

async fn wait_for_stop(mut stopped: watch::Receiver<bool>) {
    let _ = stopped.wait_for(|stopped| *stopped).await;
}

async fn no_store(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The embedded file at `path` (`index.html` for `/` and folders), or a 404 page.
fn embedded(files: &'static [(&'static str, &'static str)], path: &str) -> Response {
    let mut name = path.trim_start_matches('/').to_string();
    if name.is_empty() || name.ends_with('/') {
        name.push_str("index.html");
    }
    match files.iter().find(|(file, _)| *file == name) {
        Some((file, contents)) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, content_type(file))],
            *contents,
        )
            .into_response(),
        None => (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            "<!doctype html><title>Not found</title><p>Not found.</p>",
        )
            .into_response(),
    }
}

/// The content type of an embedded file, by its extension.
fn content_type(file: &str) -> &'static str {
    match file.rsplit_once('.').map(|(_, extension)| extension) {
        Some("html" | "htm") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpStream;

    use axum::routing::get;

    use super::*;

    const PAGES: &[(&str, &str)] = &[
        ("index.html", "<title>Home</title>"),
        ("docs/index.html", "<title>Docs</title>"),
        ("style.css", "p {}"),
    ];

    /// A raw HTTP/1.1 GET with the given `Host`; returns the status line and the whole
    /// response.
    fn get_raw(site: &StaticSite, host: &str, path: &str) -> (String, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", site.port())).expect("connect");
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: {host}:{}\r\nConnection: close\r\n\r\n",
            site.port()
        );
        stream.write_all(request.as_bytes()).expect("write");
        let mut response = String::new();
        stream.read_to_string(&mut response).expect("read");
        let status = response.lines().next().unwrap_or_default().to_string();
        (status, response)
    }

    #[test]
    fn embedded_files_index_types_and_not_found() {
        let site = StaticSite::start(Files::Embedded(PAGES)).expect("start");
        for (path, title) in [("/", "Home"), ("/index.html", "Home"), ("/docs/", "Docs")] {
            let (status, response) = get_raw(&site, "127.0.0.1", path);
            assert_eq!(status, "HTTP/1.1 200 OK", "{path}");
            assert!(
                response.contains(&format!("<title>{title}</title>")),
                "{path}"
            );
            assert!(
                response.contains("content-type: text/html; charset=utf-8"),
                "{path}"
            );
            assert!(response.contains("cache-control: no-store"), "{path}");
        }
        let (_, response) = get_raw(&site, "localhost", "/style.css");
        assert!(response.contains("content-type: text/css; charset=utf-8"));
        let (status, response) = get_raw(&site, "127.0.0.1", "/missing.html");
        assert_eq!(status, "HTTP/1.1 404 Not Found");
        assert!(response.contains("cache-control: no-store"));
    }

    #[test]
    fn a_folder_with_extra_routes_before_its_files() {
        let root = std::env::temp_dir().join(format!("static-site-test-{}", std::process::id()));
        std::fs::create_dir_all(&root).expect("create the folder");
        std::fs::write(root.join("index.html"), "<title>On disk</title>").expect("write");
        std::fs::write(root.join("hello"), "from the file").expect("write");
        let routes = Router::new().route("/hello", get(|| async { "from the route" }));
        let site = StaticSite::with_routes(Files::Dir(root.clone()), routes).expect("start");
        let (status, response) = get_raw(&site, "127.0.0.1", "/");
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert!(response.contains("<title>On disk</title>"));
        assert!(response.contains("cache-control: no-store"));
        let (_, response) = get_raw(&site, "localhost", "/hello");
        assert!(response.ends_with("from the route"), "{response}");
        let (status, _) = get_raw(&site, "127.0.0.1", "/missing.html");
        assert_eq!(status, "HTTP/1.1 404 Not Found");
        drop(site);
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn urls_name_the_two_sites() {
        let site = StaticSite::start(Files::Embedded(PAGES)).expect("start");
        let port = site.port();
        assert_eq!(
            site.url("/a.html"),
            format!("http://127.0.0.1:{port}/a.html")
        );
        assert_eq!(site.url(""), format!("http://127.0.0.1:{port}/"));
        assert_eq!(
            site.cross_origin_url("a.html"),
            format!("http://localhost:{port}/a.html")
        );
    }

    #[test]
    fn dropping_the_site_frees_its_port() {
        let site = StaticSite::start(Files::Embedded(PAGES)).expect("start");
        let port = site.port();
        drop(site);
        assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
    }

    #[test]
    fn starts_and_stops_inside_a_tokio_runtime() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async {
            let site = StaticSite::start(Files::Embedded(PAGES)).expect("start");
            assert_ne!(site.port(), 0);
        });
    }
}
