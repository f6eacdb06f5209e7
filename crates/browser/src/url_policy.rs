//! Which URLs a task may open (docs/security.md#url-policy): http, https and about:blank; data: only when
//! allowed; never file:, javascript:, chrome:, view-source: or embedded credentials; and,
//! when configured, only origins an allow-list admits and none a block-list names.
//!
//! A host is matched by one canonical spelling ([`canonical_host`]), for the rule and the
//! URL alike: a host can be written many ways that reach the same place (`localhost.`,
//! `[::ffff:127.0.0.1]`, `2130706433`, `ＬＯＣＡＬＨＯＳＴ`), and a block-list that
//! compared spellings would let every other way through.

use std::sync::Arc;
use std::time::Duration;

use cdp::Deadline;
use cdp::protocol::{Event, fetch, inspector};
use url::Url;

use crate::{Error, Tab};

/// The navigation policy of a task.
#[derive(Debug, Clone, Default)]
pub struct UrlPolicy {
    /// Allow `data:` URLs (off by default).
    pub allow_data: bool,
    /// When not empty, an http(s) URL must match one of these (config `allowOrigins`).
    pub allow_origins: Vec<OriginRule>,
    /// An http(s) URL matching one of these is refused, allow-list or not (config
    /// `blockOrigins`).
    pub block_origins: Vec<OriginRule>,
}

/// One entry of an origin allow-list or block-list: an origin (`https://example.com`,
/// `http://127.0.0.1:8080`: that scheme, host and port), or a host alone with an optional
/// port (`example.com`, `localhost:3000`: http or https). A host written
/// `*.example.com` matches `example.com` and every subdomain of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginRule {
    /// The rule as written, for messages.
    text: String,
    scheme: Option<String>,
    host: String,
    subdomains: bool,
    port: Option<u16>,
}

impl OriginRule {
    /// Parses one rule; the error says what is wrong with it.
    pub fn parse(text: &str) -> Result<OriginRule, String> {
        let text = text.trim();
        let (scheme, rest) = match text.split_once("://") {
            Some((scheme, rest)) => (Some(scheme.to_ascii_lowercase()), rest),
            None => (None, text),
        };
        if let Some(scheme) = &scheme
            && scheme != "http"
            && scheme != "https"
        {
            return Err(format!(
                "{text:?} is not an origin rule: only http and https origins can be listed"
            ));
        }
        let (subdomains, rest) = match rest.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, rest),
        };
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let parsed = Url::parse(&format!("{}://{rest}", scheme.as_deref().unwrap_or("http")))
            .ok()
            .filter(|url| {
                url.path() == "/"
                    && url.query().is_none()
                    && url.fragment().is_none()
                    && url.username().is_empty()
                    && url.password().is_none()
                    && !rest.is_empty()
            })
            .ok_or_else(|| {
                format!(
                    "{text:?} is not an origin rule: write scheme://host[:port], host[:port] \
                     or *.host"
                )
            })?;
        let host = parsed.host().map(canonical_host).unwrap_or_default();
        let port = match scheme {
            Some(_) => parsed.port_or_known_default(),
            None => parsed.port(),
        };
        Ok(OriginRule {
            text: text.to_string(),
            scheme,
            host,
            subdomains,
            port,
        })
    }

    /// Whether `url` (http or https) is of an origin this rule names.
    pub fn matches(&self, url: &Url) -> bool {
        let Some(host) = url.host().map(canonical_host) else {
            return false;
        };
        let host = host.as_str();
        let host_matches = host == self.host
            || (self.subdomains
                && host
                    .strip_suffix(self.host.as_str())
                    .is_some_and(|sub| sub.ends_with('.')));
        host_matches
            && self.scheme.as_deref().is_none_or(|s| s == url.scheme())
            && self
                .port
                .is_none_or(|port| url.port_or_known_default() == Some(port))
    }
}

/// The one spelling of a host that origin rules compare. The `url` crate has already
/// done what the URL standard does to a host — IDN to ASCII (UTS 46, so full-width and
/// upper-case letters fold), IPv4 in any of its forms (`2130706433`, `0x7f.1`) to dotted
/// decimal, IPv6 compressed — and this adds what it leaves: a domain's trailing dots (the
/// DNS root: `localhost.` is `localhost`), and an IPv6 address that carries an IPv4 one
/// (mapped `::ffff:a.b.c.d`, and the deprecated compatible `::a.b.c.d`) as that IPv4
/// address. Any other IPv6 address is written in brackets, as a URL writes it.
pub(crate) fn canonical_host(host: url::Host<&str>) -> String {
    match host {
        url::Host::Domain(domain) => {
            let trimmed = domain.trim_end_matches('.');
            // Without its dot the name may parse as something else (`127.0.0.1.` was an
            // address already; a name is folded again, which changes nothing).
            match url::Host::parse(trimmed) {
                Ok(url::Host::Domain(name)) => name,
                Ok(url::Host::Ipv4(ip)) => ip.to_string(),
                Ok(url::Host::Ipv6(ip)) => canonical_ipv6(ip),
                Err(_) => trimmed.to_ascii_lowercase(),
            }
        }
        url::Host::Ipv4(ip) => ip.to_string(),
        url::Host::Ipv6(ip) => canonical_ipv6(ip),
    }
}

fn canonical_ipv6(ip: std::net::Ipv6Addr) -> String {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return v4.to_string();
    }
    // `::a.b.c.d`, but not `::` and `::1`, which are IPv6's own.
    let compatible =
        ip.segments()[..6].iter().all(|s| *s == 0) && !ip.is_unspecified() && !ip.is_loopback();
    match ip.to_ipv4() {
        Some(v4) if compatible => v4.to_string(),
        _ => format!("[{ip}]"),
    }
}

impl std::fmt::Display for OriginRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// Schemes that are written without `//`, so `host:port` is not mistaken for one.
const OPAQUE_SCHEMES: &[&str] = &[
    "about",
    "data",
    "javascript",
    "mailto",
    "blob",
    "view-source",
];

/// Parses and checks `input`. A bare `host[:port]/path` is taken as `http://`.
pub fn check_url(input: &str, policy: &UrlPolicy) -> Result<Url, Error> {
    let input = input.trim();
    let blocked = |reason: &str| Error::UrlBlocked {
        url: redact(input),
        reason: reason.to_string(),
    };
    let parsed = match Url::parse(input) {
        Ok(url) if input.contains("://") || OPAQUE_SCHEMES.contains(&url.scheme()) => url,
        _ => Url::parse(&format!("http://{input}")).map_err(|e| Error::InvalidParams {
            what: format!("url {:?}", redact(input)),
            reason: e.to_string(),
        })?,
    };
    match parsed.scheme() {
        "http" | "https" => {
            if !parsed.username().is_empty() || parsed.password().is_some() {
                return Err(blocked(
                    "URLs with embedded credentials are refused; log in through the page instead",
                ));
            }
            if let Some(rule) = policy.block_origins.iter().find(|r| r.matches(&parsed)) {
                return Err(blocked(&format!(
                    "its origin is blocked by the blockOrigins rule \"{rule}\""
                )));
            }
            if !policy.allow_origins.is_empty()
                && !policy.allow_origins.iter().any(|r| r.matches(&parsed))
            {
                let rules: Vec<String> = policy
                    .allow_origins
                    .iter()
                    .map(|r| format!("\"{r}\""))
                    .collect();
                return Err(blocked(&format!(
                    "its origin matches no allowOrigins rule ({})",
                    rules.join(", ")
                )));
            }
            Ok(parsed)
        }
        "about" if parsed.as_str() == "about:blank" => Ok(parsed),
        "data" if policy.allow_data => Ok(parsed),
        "data" => Err(blocked(
            "data: URLs are off (allowData = true enables them)",
        )),
        scheme => Err(blocked(&format!(
            "the {scheme}: scheme is refused; only http, https and about:blank are allowed"
        ))),
    }
}

impl UrlPolicy {
    /// Whether an origin list is configured.
    pub fn lists_origins(&self) -> bool {
        !self.allow_origins.is_empty() || !self.block_origins.is_empty()
    }
}

/// Holds every document request of `tab` — a link followed, a form sent, a script's
/// navigation, a redirect, a frame — to the origin lists: one they refuse fails as
/// `BlockedByClient`, so the tab shows an error page instead of the origin. With
/// `credentials` (a task's proxy's), the tab's proxy challenges are answered too
/// (`proxy.rs`), which holds every request of the tab: each is continued at once, and
/// only documents are held to the lists. With neither, nothing is enabled (no round trip,
/// no change to the calls a tab makes).
pub(crate) async fn guard(
    tab: &Tab,
    policy: &UrlPolicy,
    credentials: Option<(&crate::proxy::Credentials, Arc<crate::proxy::Route>)>,
    deadline: Deadline,
) -> Result<(), Error> {
    if !policy.lists_origins() && credentials.is_none() {
        return Ok(());
    }
    let session = tab.session().clone();
    let policy = policy.clone();
    let answering = session.clone();
    session.connection().on_events(
        session.id().cloned(),
        Arc::new(move |event| {
            if let Some(paused) = event.parse::<fetch::RequestPaused>() {
                let refused = (paused.resource_type == "Document")
                    .then(|| check_url(&paused.request.url, &policy).err())
                    .flatten();
                let session = answering.clone();
                // This runs on the connection's reader, which must not wait for a reply.
                tokio::spawn(async move {
                    let limit = Deadline::after(Duration::from_secs(5));
                    let request_id = paused.request_id;
                    let answered = match refused {
                        Some(refusal) => {
                            tracing::info!(%refusal, "a document request was refused");
                            let fail = fetch::FailRequest {
                                request_id,
                                error_reason: "BlockedByClient".into(),
                            };
                            session.call(&fail, limit).await.map(drop)
                        }
                        None => session
                            .call(&fetch::ContinueRequest { request_id }, limit)
                            .await
                            .map(drop),
                    };
                    if let Err(err) = answered {
                        tracing::debug!(%err, "a held request could not be answered");
                    }
                });
            }
            event.method != inspector::Detached::METHOD
        }),
    );
    let answers = credentials.is_some();
    if let Some((credentials, route)) = credentials {
        crate::proxy::answer_challenges(&session, credentials.clone(), route);
    }
    let held = fetch::Enable {
        patterns: vec![fetch::RequestPattern {
            url_pattern: Some("*".into()),
            resource_type: (!answers).then(|| "Document".into()),
        }],
        handle_auth_requests: answers.then_some(true),
    };
    session.call(&held, deadline).await?;
    Ok(())
}

/// The URL with any password replaced, for messages.
fn redact(input: &str) -> String {
    match Url::parse(input) {
        Ok(mut url) if url.password().is_some() => {
            let _ = url.set_password(Some("***"));
            url.to_string()
        }
        _ => input.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(input: &str) -> Result<String, String> {
        check_url(input, &UrlPolicy::default())
            .map(|url| url.to_string())
            .map_err(|err| err.to_string())
    }

    #[test]
    fn web_urls_pass_and_bare_hosts_become_http() {
        assert_eq!(
            check("https://example.com/a?b=1").as_deref(),
            Ok("https://example.com/a?b=1")
        );
        assert_eq!(
            check("127.0.0.1:8080/x").as_deref(),
            Ok("http://127.0.0.1:8080/x")
        );
        assert_eq!(
            check("localhost:3000").as_deref(),
            Ok("http://localhost:3000/")
        );
        assert_eq!(check("about:blank").as_deref(), Ok("about:blank"));
    }

    #[test]
    fn dangerous_schemes_are_blocked() {
        for url in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "chrome://settings",
            "view-source:http://example.com",
            "about:version",
            "data:text/html,hi",
            "ftp://example.com/",
        ] {
            let err = check(url).expect_err(url);
            assert!(err.contains("not allowed"), "{url}: {err}");
        }
    }

    #[test]
    fn credentials_are_blocked_without_echoing_the_password() {
        let err = check("http://user:pw@127.0.0.1/").expect_err("credentials");
        assert!(err.contains("credentials"), "{err}");
        assert!(!err.contains(":pw@"), "{err}");
        assert!(check("http://user@127.0.0.1/").is_err());
    }

    #[test]
    fn a_refused_url_is_quoted_as_given_with_only_its_password_masked() {
        assert_eq!(
            check("http://user:pw@127.0.0.1/"),
            Err(
                "http://user:***@127.0.0.1/ is not allowed: URLs with embedded credentials are \
                 refused; log in through the page instead"
                    .into()
            )
        );
        let err = check("http://user@127.0.0.1/").expect_err("a user name");
        assert!(
            err.starts_with("http://user@127.0.0.1/ is not allowed"),
            "{err}"
        );
        let err = check("ftp://example.com/").expect_err("ftp");
        assert!(
            err.starts_with("ftp://example.com/ is not allowed"),
            "{err}"
        );
    }

    #[test]
    fn data_urls_follow_the_setting() {
        let policy = UrlPolicy {
            allow_data: true,
            ..UrlPolicy::default()
        };
        assert!(check_url("data:text/html,hi", &policy).is_ok());
    }

    fn rules(texts: &[&str]) -> Vec<OriginRule> {
        texts
            .iter()
            .map(|t| OriginRule::parse(t).unwrap())
            .collect()
    }

    #[test]
    fn origin_rules_match_scheme_host_and_port_as_written() {
        for (rule, url, expected) in [
            ("https://example.com", "https://example.com/a", true),
            ("https://example.com", "https://example.com:443/", true),
            ("https://example.com", "http://example.com/", false),
            ("https://example.com", "https://example.com:8443/", false),
            ("https://example.com", "https://www.example.com/", false),
            ("example.com", "http://example.com:8080/", true),
            ("example.com", "https://example.com/", true),
            ("*.example.com", "https://a.b.example.com/", true),
            ("*.example.com", "https://example.com/", true),
            ("*.example.com", "https://badexample.com/", false),
            ("127.0.0.1:8080", "http://127.0.0.1:8080/x", true),
            ("127.0.0.1:8080", "http://127.0.0.1:8081/x", false),
            (
                "http://localhost:3000/",
                "http://localhost:3000/q?x=1",
                true,
            ),
        ] {
            let parsed = Url::parse(url).unwrap();
            assert_eq!(
                OriginRule::parse(rule).unwrap().matches(&parsed),
                expected,
                "{rule} against {url}"
            );
        }
    }

    #[test]
    fn hosts_are_matched_in_one_spelling() {
        for (written, canonical) in [
            ("http://localhost./", "localhost"),
            ("http://LocalHost../", "localhost"),
            ("http://Example.COM./a", "example.com"),
            ("http://127.0.0.1./", "127.0.0.1"),
            ("http://2130706433/", "127.0.0.1"),
            ("http://0x7f.1/", "127.0.0.1"),
            ("http://[::ffff:127.0.0.2]/", "127.0.0.2"),
            ("http://[::ffff:7f00:2]/", "127.0.0.2"),
            ("http://[0:0:0:0:0:ffff:127.0.0.2]/", "127.0.0.2"),
            ("http://[::127.0.0.2]/", "127.0.0.2"),
            ("http://[::1]/", "[::1]"),
            ("http://[::]/", "[::]"),
            ("http://[2001:db8::1]/", "[2001:db8::1]"),
            ("http://bücher.example/", "xn--bcher-kva.example"),
            ("http://BÜCHER.example./", "xn--bcher-kva.example"),
            ("http://ｌｏｃａｌｈｏｓｔ/", "localhost"),
        ] {
            let url = Url::parse(written).unwrap();
            assert_eq!(
                url.host().map(canonical_host).as_deref(),
                Some(canonical),
                "{written}"
            );
        }
    }

    #[test]
    fn a_block_listed_host_written_another_way_is_refused() {
        let policy = UrlPolicy {
            block_origins: rules(&[
                "localhost",
                "127.0.0.2",
                "[::ffff:10.0.0.1]",
                "*.bücher.example",
                "example.org.",
            ]),
            ..UrlPolicy::default()
        };
        for url in [
            "http://localhost.:8080/",
            "http://LOCALHOST/",
            "http://ｌｏｃａｌｈｏｓｔ/",
            "http://[::ffff:127.0.0.2]/",
            "http://[::127.0.0.2]/",
            "http://127.0.0.2./",
            "http://2130706434/",
            "http://10.0.0.1/",
            "http://shop.xn--bcher-kva.example./",
            "https://BÜCHER.example/",
            "http://example.org/",
        ] {
            let refused = check_url(url, &policy).map_err(|e| e.to_string());
            assert!(
                refused.as_ref().is_err_and(|e| e.contains("blockOrigins")),
                "{url}: {refused:?}"
            );
        }
        for url in ["http://127.0.0.1/", "http://[::1]/", "http://example.com/"] {
            assert!(check_url(url, &policy).is_ok(), "{url}");
        }
    }

    #[test]
    fn an_allow_listed_host_is_admitted_however_it_is_written() {
        let policy = UrlPolicy {
            allow_origins: rules(&["127.0.0.1:8080", "localhost"]),
            ..UrlPolicy::default()
        };
        for url in ["http://[::ffff:127.0.0.1]:8080/", "http://localhost./"] {
            assert!(check_url(url, &policy).is_ok(), "{url}");
        }
        assert!(check_url("http://127.0.0.1:8081/", &policy).is_err());
    }

    #[test]
    fn a_malformed_origin_rule_is_refused_with_what_to_write() {
        for rule in [
            "",
            "ftp://example.com",
            "https://example.com/path",
            "example.com?q",
            "user@example.com",
        ] {
            let err = OriginRule::parse(rule).expect_err(rule);
            assert!(err.contains("origin"), "{rule}: {err}");
        }
    }

    #[test]
    fn the_block_list_wins_and_the_allow_list_admits_only_its_origins_naming_the_rule() {
        let policy = UrlPolicy {
            allow_origins: rules(&["*.example.com"]),
            block_origins: rules(&["https://ads.example.com"]),
            ..UrlPolicy::default()
        };
        let check = |url: &str| check_url(url, &policy).map_err(|e| e.to_string());
        assert!(check("https://www.example.com/").is_ok());
        assert!(check("about:blank").is_ok());
        let err = check("https://ads.example.com/x").unwrap_err();
        assert!(
            err.contains("blockOrigins rule \"https://ads.example.com\""),
            "{err}"
        );
        let err = check("https://other.org/").unwrap_err();
        assert!(
            err.contains("matches no allowOrigins rule (\"*.example.com\")"),
            "{err}"
        );
    }
}
