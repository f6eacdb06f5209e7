//! The built-in demo site: a few pages compiled into the binary and served on
//! 127.0.0.1, so `candor demo` and `candor bench` need no network.

use std::net::SocketAddr;

use axum::Router;
use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use tokio::sync::oneshot;

const PAGES: &[(&str, &str)] = &[
    ("index.html", include_str!("../site/index.html")),
    ("catalog.html", include_str!("../site/catalog.html")),
    ("about.html", include_str!("../site/about.html")),
    ("stuck.html", include_str!("../site/stuck.html")),
];

/// A running site; stops when dropped.
pub struct Site {
    address: SocketAddr,
    _stop: oneshot::Sender<()>,
}

impl Site {
    pub async fn start() -> anyhow::Result<Site> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let app = Router::new()
            .route("/", get(|| page(Path("index.html".to_string()))))
            .route("/{name}", get(page));
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let server = axum::serve(listener, app).with_graceful_shutdown(async {
                let _ = stopped.await;
            });
            if let Err(err) = server.await {
                tracing::warn!(%err, "the demo site stopped");
            }
        });
        Ok(Site {
            address,
            _stop: stop,
        })
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}/{}", self.address, path.trim_start_matches('/'))
    }
}

async fn page(Path(name): Path<String>) -> impl IntoResponse {
    match PAGES.iter().find(|(page, _)| *page == name) {
        Some((_, html)) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            *html,
        ),
        None => (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            "<!doctype html><title>Not found</title><p>Not found.</p>",
        ),
    }
}
