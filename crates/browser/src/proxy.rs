//! A task's proxy (docs/faces.md#proxies): the server its browser context sends requests
//! through, and the answer to the proxy's challenge with the task's credentials.
//!
//! The server goes to `Target.createBrowserContext` (or, for a profile's own browser, to
//! its `--proxy-server` switch). Credentials are answered through the browser's own
//! challenge: a tab of a task with credentials has `Fetch` enabled with
//! `handleAuthRequests` (Chromium 156 refuses that without a pattern, so every request
//! of the tab is held and continued at once — a cost only such tasks pay; tasks without
//! credentials enable nothing). A proxy's challenge is answered once per request; asked
//! again, the credentials were wrong: the challenge is cancelled, never answered in a
//! loop, and the tab's next failed navigation is [`Error::ProxyAuthFailed`]. A site's own
//! challenge gets the browser's default answer. Requests of out-of-process frames and
//! workers are not held: they use what the context's network stack learned from the
//! tab's first answer.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use cdp::Deadline;
use cdp::protocol::{Event, fetch, inspector};

use crate::Error;

/// A proxy a task's requests go through.
#[derive(Clone, PartialEq, Eq)]
pub struct Proxy {
    /// `http://host:port`, `https://…`, `socks4://…`, `socks5://…`, or `host:port` (HTTP).
    pub server: String,
    /// Chromium's bypass list (`*.internal;10.0.0.0/8`; `<-loopback>` sends loopback
    /// hosts through the proxy too, which Chromium otherwise never does).
    pub bypass: Option<String>,
    /// Answered when the proxy asks (`407`).
    pub credentials: Option<Credentials>,
}

/// A proxy's user name and password. The password is a secret: it is never shown
/// (`Debug` writes `REDACTED`), and the tape keeps it redacted like every `password` key.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    pub username: String,
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("username", &self.username)
            .field("password", &cdp::REDACTED)
            .finish()
    }
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy")
            .field("server", &self.server)
            .field("bypass", &self.bypass)
            .field("credentials", &self.credentials)
            .finish()
    }
}

impl Proxy {
    /// Checks a proxy server as written: a scheme Chromium takes, or none (HTTP), a host
    /// and a port, and no credentials in it (they go in [`Credentials`], where they are
    /// kept secret).
    pub fn check_server(server: &str) -> Result<(), String> {
        let rest = match server.split_once("://") {
            Some((scheme, rest)) => {
                if !["http", "https", "socks4", "socks5"].contains(&scheme) {
                    return Err(format!(
                        "{server:?} is not a proxy: the scheme is http, https, socks4 or socks5"
                    ));
                }
                rest
            }
            None => server,
        };
        let rest = rest.trim_end_matches('/');
        if rest.contains('@') {
            return Err(
                "a proxy's user name and password are not written in its URL: give them as proxyUsername and proxyPassword"
                    .into(),
            );
        }
        if rest.is_empty() || rest.contains(['/', ' ', ';', ',']) || rest.contains(char::is_control)
        {
            return Err(format!(
                "{server:?} is not a proxy: write scheme://host:port or host:port"
            ));
        }
        Ok(())
    }

    /// The switches of a launched browser whose default context uses this proxy.
    pub(crate) fn switches(&self) -> Vec<String> {
        let mut args = vec![format!("--proxy-server={}", self.server)];
        if let Some(bypass) = &self.bypass {
            args.push(format!("--proxy-bypass-list={bypass}"));
        }
        args
    }
}

/// What a tab knows of its task's proxy, for the errors of its navigations.
#[derive(Debug)]
pub(crate) struct Route {
    pub(crate) server: String,
    /// The proxy asked again after the credentials were given: they are wrong.
    pub(crate) rejected: AtomicBool,
}

impl Route {
    pub(crate) fn new(server: &str) -> Arc<Route> {
        Arc::new(Route {
            server: server.to_string(),
            rejected: AtomicBool::new(false),
        })
    }

    /// The error of a navigation to `url` that failed with `error_text`, naming the proxy
    /// when the proxy is what failed.
    pub(crate) fn navigation_failed(&self, url: &str, error_text: String) -> Error {
        if self.rejected.swap(false, Ordering::SeqCst) {
            return Error::ProxyAuthFailed {
                proxy: self.server.clone(),
                url: url.to_string(),
            };
        }
        if error_text.contains("PROXY") || error_text.contains("TUNNEL") {
            return Error::ProxyFailed {
                proxy: self.server.clone(),
                url: url.to_string(),
                error_text,
            };
        }
        Error::NavigationFailed {
            url: url.to_string(),
            error_text,
        }
    }
}

/// How many challenged requests a tab remembers (ids are never reused; the oldest are let
/// go of).
const REMEMBERED: usize = 1_000;

/// Answers the proxy challenges of a tab's `session` with `credentials` (registered
/// before `Fetch.enable`, which the caller sends with `handleAuthRequests`).
pub(crate) fn answer_challenges(
    session: &cdp::Session,
    credentials: Credentials,
    route: Arc<Route>,
) {
    let answering = session.clone();
    let answered: Mutex<HashSet<String>> = Mutex::default();
    session.connection().on_events(
        session.id().cloned(),
        Arc::new(move |event| {
            if let Some(challenge) = event.parse::<fetch::AuthRequired>() {
                let from_proxy = challenge.auth_challenge.source.as_deref() == Some("Proxy");
                let first = {
                    let mut answered = answered.lock().unwrap_or_else(|e| e.into_inner());
                    if answered.len() >= REMEMBERED {
                        answered.clear();
                    }
                    answered.insert(challenge.request_id.clone())
                };
                let response = match (from_proxy, first) {
                    (true, true) => fetch::AuthChallengeResponse {
                        response: "ProvideCredentials".into(),
                        username: Some(credentials.username.clone()),
                        password: Some(credentials.password.clone()),
                    },
                    (true, false) => {
                        tracing::info!(proxy = %route.server, "the proxy refused the credentials");
                        route.rejected.store(true, Ordering::SeqCst);
                        fetch::AuthChallengeResponse {
                            response: "CancelAuth".into(),
                            ..Default::default()
                        }
                    }
                    // A site's own challenge: what the browser does without candor.
                    (false, _) => fetch::AuthChallengeResponse {
                        response: "Default".into(),
                        ..Default::default()
                    },
                };
                let answer = fetch::ContinueWithAuth {
                    request_id: challenge.request_id,
                    auth_challenge_response: response,
                };
                let session = answering.clone();
                // This runs on the connection's reader, which must not wait for a reply.
                tokio::spawn(async move {
                    let limit = Deadline::after(Duration::from_secs(5));
                    if let Err(err) = session.call(&answer, limit).await {
                        tracing::debug!(%err, "a challenge could not be answered");
                    }
                });
            }
            event.method != inspector::Detached::METHOD
        }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proxy_server_is_a_host_and_port_with_a_known_scheme_or_none_and_no_credentials() {
        for good in [
            "http://127.0.0.1:3128",
            "socks5://proxy.internal:1080",
            "proxy:8080",
            "https://p.example:443/",
        ] {
            assert_eq!(Proxy::check_server(good), Ok(()), "{good}");
        }
        for bad in ["ftp://p:21", "", "http://", "a b:1", "http://h:1/path"] {
            assert!(Proxy::check_server(bad).is_err(), "{bad}");
        }
        let said = Proxy::check_server("http://user:hunter2@p:3128").unwrap_err();
        assert!(said.contains("proxyPassword"), "{said}");
        assert!(!said.contains("hunter2"), "{said}");
    }

    #[test]
    fn a_proxys_password_is_never_in_its_debug_form() {
        let proxy = Proxy {
            server: "http://p:3128".into(),
            bypass: None,
            credentials: Some(Credentials {
                username: "ann".into(),
                password: "hunter2".into(),
            }),
        };
        let shown = format!("{proxy:?}");
        assert!(
            shown.contains("ann") && !shown.contains("hunter2"),
            "{shown}"
        );
    }

    #[test]
    fn a_failure_at_the_proxy_names_it_and_a_rejection_is_said_once() {
        let route = Route::new("http://p:3128");
        let err = route.navigation_failed("http://a/", "net::ERR_PROXY_CONNECTION_FAILED".into());
        assert!(matches!(&err, Error::ProxyFailed { proxy, .. } if proxy == "http://p:3128"));
        let err = route.navigation_failed("http://a/", "net::ERR_NAME_NOT_RESOLVED".into());
        assert!(matches!(err, Error::NavigationFailed { .. }), "{err:?}");
        route.rejected.store(true, Ordering::SeqCst);
        let err = route.navigation_failed("http://a/", "net::ERR_FAILED".into());
        assert!(matches!(err, Error::ProxyAuthFailed { .. }), "{err:?}");
        let err = route.navigation_failed("http://a/", "net::ERR_FAILED".into());
        assert!(matches!(err, Error::NavigationFailed { .. }), "{err:?}");
    }
}
