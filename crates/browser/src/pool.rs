//! A pool of CDP endpoints (Browserless-style services, Chromium pods): each new browser
//! connection goes to the least-loaded endpoint that is up. An endpoint that cannot be
//! attached to is marked down and left out for [`RETRY_DOWN_AFTER`], then tried again.
//! The load of an endpoint is the number of browsers attached to it that are still alive
//! (each holds a lease, counted by reference); there is no other bookkeeping to go stale.
//!
//! What happens to a task whose endpoint dies is the engine's crash recovery: the
//! connection closes, the task hears `BROWSER_DISCONNECTED` once, and its next command
//! attaches through the pool again — to another endpoint, since the dead one refuses.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cdp::Deadline;

use crate::browser::Lease;
use crate::{Browser, BrowserOptions, Endpoint, Error};

/// How long an endpoint that failed is left out.
pub const RETRY_DOWN_AFTER: Duration = Duration::from_secs(10);

/// The longest one endpoint may take to attach before the next is tried.
const ATTACH_LIMIT: Duration = Duration::from_secs(10);

/// The endpoints and their state, shared by every task of a process.
#[derive(Debug)]
pub struct EndpointPool {
    members: Mutex<Vec<Member>>,
}

#[derive(Debug)]
struct Member {
    url: String,
    /// One clone per live browser on this endpoint, plus this one.
    load: Arc<()>,
    /// Until when it is left out, and why.
    down: Option<(Instant, String)>,
}

/// What one endpoint looks like now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointState {
    pub url: String,
    /// Browsers attached to it that are still alive.
    pub load: usize,
    /// Why it is left out, while it is.
    pub down: Option<String>,
}

impl EndpointPool {
    pub fn new(urls: impl IntoIterator<Item = String>) -> Self {
        let members = urls
            .into_iter()
            .map(|url| Member {
                url,
                load: Arc::new(()),
                down: None,
            })
            .collect();
        Self {
            members: Mutex::new(members),
        }
    }

    /// Attaches to the least-loaded endpoint that is up (the first listed among equals),
    /// marking each that fails down and trying the next, until one answers or none is
    /// left ([`Error::PoolUnavailable`], naming each endpoint and why).
    pub async fn connect(
        &self,
        record_cdp: Option<std::path::PathBuf>,
        deadline: Deadline,
    ) -> Result<Browser, Error> {
        let mut tried: Vec<String> = Vec::new();
        while let Some((url, lease)) = self.pick(&tried) {
            let options = BrowserOptions {
                endpoint: Endpoint::Attach(url.clone()),
                record_cdp: record_cdp.clone(),
            };
            match Browser::start(options, deadline.within(ATTACH_LIMIT)).await {
                Ok(browser) => {
                    tracing::debug!(endpoint = %url, "attached through the pool");
                    browser.set_lease(Lease::Pool { _load: lease });
                    return Ok(browser);
                }
                Err(err) => {
                    tracing::warn!(endpoint = %url, %err, "CDP endpoint down");
                    drop(lease);
                    self.mark_down(&url, err.to_string());
                    tried.push(url);
                }
            }
            if deadline.expired() {
                break;
            }
        }
        Err(Error::PoolUnavailable {
            endpoints: self
                .states()
                .into_iter()
                .map(|state| {
                    let why = state.down.unwrap_or_else(|| "not tried in time".into());
                    (state.url, why)
                })
                .collect(),
        })
    }

    /// Every endpoint's load and whether it is down.
    pub fn states(&self) -> Vec<EndpointState> {
        let now = Instant::now();
        self.lock()
            .iter()
            .map(|member| EndpointState {
                url: member.url.clone(),
                load: Arc::strong_count(&member.load) - 1,
                down: member
                    .down
                    .as_ref()
                    .filter(|(until, _)| *until > now)
                    .map(|(_, why)| why.clone()),
            })
            .collect()
    }

    /// Leaves `url` out for [`RETRY_DOWN_AFTER`].
    pub fn mark_down(&self, url: &str, why: String) {
        let mut members = self.lock();
        if let Some(member) = members.iter_mut().find(|m| m.url == url) {
            member.down = Some((Instant::now() + RETRY_DOWN_AFTER, why));
        }
    }

    /// The least-loaded endpoint that is up and not yet tried, with a lease on it taken
    /// under the same lock, so two tasks placed at once see each other's load.
    fn pick(&self, tried: &[String]) -> Option<(String, Arc<()>)> {
        let now = Instant::now();
        let members = self.lock();
        members
            .iter()
            .filter(|m| !tried.contains(&m.url))
            .filter(|m| m.down.as_ref().is_none_or(|(until, _)| *until <= now))
            .min_by_key(|m| Arc::strong_count(&m.load))
            .map(|m| (m.url.clone(), m.load.clone()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Member>> {
        self.members.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool() -> EndpointPool {
        EndpointPool::new(["ws://a".to_string(), "ws://b".into(), "ws://c".into()])
    }

    #[test]
    fn the_least_loaded_endpoint_that_is_up_is_picked_first_listed_among_equals() {
        let pool = pool();
        let (first, a) = pool.pick(&[]).expect("an endpoint");
        assert_eq!(first, "ws://a");
        let (second, b) = pool.pick(&[]).expect("an endpoint");
        assert_eq!(second, "ws://b");
        pool.mark_down("ws://c", "refused".into());
        // a and b hold one each, c is down: a again.
        assert_eq!(pool.pick(&[]).map(|p| p.0).as_deref(), Some("ws://a"));
        drop(a);
        assert_eq!(
            pool.states()
                .iter()
                .map(|s| (s.load, s.down.is_some()))
                .collect::<Vec<_>>(),
            [(0, false), (1, false), (0, true)]
        );
        drop(b);
        // Tried ones are skipped: with a and b tried and c down, nothing is left.
        assert!(
            pool.pick(&["ws://a".into(), "ws://b".into()]).is_none(),
            "{:?}",
            pool.states()
        );
    }

    #[test]
    fn a_down_endpoint_is_tried_again_once_its_time_is_up() {
        let pool = pool();
        pool.mark_down("ws://a", "refused".into());
        assert_eq!(pool.pick(&[]).map(|p| p.0).as_deref(), Some("ws://b"));
        if let Some(member) = pool.lock().iter_mut().find(|m| m.url == "ws://a") {
            member.down = Some((Instant::now(), "refused".into()));
        }
        assert_eq!(pool.pick(&[]).map(|p| p.0).as_deref(), Some("ws://a"));
    }
}
