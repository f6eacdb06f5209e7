//! Which URLs a task may open (SPEC §16): http, https and about:blank; data: only when
//! allowed; never file:, javascript:, chrome:, view-source: or embedded credentials.

use url::Url;

use crate::Error;

/// The navigation policy of a task.
#[derive(Debug, Clone, Default)]
pub struct UrlPolicy {
    /// Allow `data:` URLs (off by default).
    pub allow_data: bool,
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
        let policy = UrlPolicy { allow_data: true };
        assert!(check_url("data:text/html,hi", &policy).is_ok());
    }
}
