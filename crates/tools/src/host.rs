//! The browser the tasks of one process share: started on the first command that needs
//! it, replaced when it dies, closed at shutdown; and the counter that makes command ids
//! unique per process. On a Selenium Grid or a pool of CDP endpoints, tasks share no
//! browser: each is placed on a browser of its own ([`BrowserHost::place`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use browser::{Browser, BrowserOptions, Deadline, Endpoint, EndpointPool, EndpointState};

use crate::mutex::lock;

/// What the tasks of one process share: one browser, started on the first command that
/// needs it and replaced when it dies, and the counter that numbers commands.
pub struct BrowserHost {
    options: Mutex<BrowserOptions>,
    /// One launch at a time: two tasks' first commands must not start two browsers.
    launching: tokio::sync::Mutex<()>,
    /// Reachable without waiting for a command, so shutdown never waits on one.
    running: Mutex<Option<Browser>>,
    /// The endpoints' load and state, when the endpoint is a pool.
    pool: Mutex<Option<Arc<EndpointPool>>>,
    next_command: AtomicU64,
}

impl std::fmt::Debug for BrowserHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrowserHost")
            .field("running", &self.browser().is_some())
            .finish()
    }
}

impl BrowserHost {
    pub fn new(options: BrowserOptions) -> Self {
        Self {
            pool: Mutex::new(pool_of(&options)),
            options: Mutex::new(options),
            launching: tokio::sync::Mutex::new(()),
            running: Mutex::new(None),
            next_command: AtomicU64::new(1),
        }
    }

    /// How the next browser will be started.
    pub fn options(&self) -> BrowserOptions {
        lock(&self.options).clone()
    }

    /// Changes how the next browser is started, and hands back the running one (the
    /// caller closes it): the next command that needs a browser starts a new one.
    pub fn reconfigure(&self, options: BrowserOptions) -> Option<Browser> {
        *lock(&self.pool) = pool_of(&options);
        *lock(&self.options) = options;
        lock(&self.running).take()
    }

    /// The browser, when one was started and not closed (it may have died since).
    pub fn browser(&self) -> Option<Browser> {
        lock(&self.running).clone()
    }

    /// The browser is running and connected.
    pub fn is_running(&self) -> bool {
        self.browser().is_some_and(|b| b.is_connected())
    }

    /// A fresh command id, `c-N`, unique within this host.
    pub fn next_command_id(&self) -> String {
        format!("c-{}", self.next_command.fetch_add(1, Ordering::Relaxed))
    }

    /// Whether tasks share one browser (launched, attached or played back), rather than
    /// each being placed on a browser of its own (a grid session, a pool endpoint).
    pub fn shares_browser(&self) -> bool {
        !matches!(
            lock(&self.options).endpoint,
            Endpoint::Grid(_) | Endpoint::Pool(_)
        )
    }

    /// The pool's endpoints, their load and which are down, when the endpoint is a pool.
    pub fn pool_states(&self) -> Option<Vec<EndpointState>> {
        lock(&self.pool).as_ref().map(|pool| pool.states())
    }

    /// The browser a task runs on, for its first command or after its browser died: the
    /// shared one (started when there is none or it died), or on a grid or a pool a new
    /// one of its own — a grid session, or the least-loaded pool endpoint that is up. The
    /// grid queues and places; nothing is queued here.
    pub(crate) async fn place(&self, deadline: Deadline) -> Result<Browser, browser::Error> {
        let options = self.options();
        match &options.endpoint {
            Endpoint::Grid(_) => Browser::start(options, deadline).await,
            Endpoint::Pool(_) => {
                let pool = lock(&self.pool).clone();
                match pool {
                    Some(pool) => pool.connect(options.record_cdp, deadline).await,
                    None => Err(browser::Error::PoolUnavailable {
                        endpoints: Vec::new(),
                    }),
                }
            }
            Endpoint::Launch(_) | Endpoint::Attach(_) | Endpoint::Replay(_) => {
                self.connected(deadline).await
            }
        }
    }

    /// A browser of the task's own on the profile `dir` (its lock held by the caller),
    /// behind `proxy`: launched as the host launches, never shared. Only a browser candor
    /// launches has a profile it chooses.
    pub(crate) async fn place_profile(
        &self,
        dir: &std::path::Path,
        proxy: Option<&browser::Proxy>,
        deadline: Deadline,
    ) -> Result<Browser, browser::Error> {
        let options = self.options();
        let Endpoint::Launch(launch) = &options.endpoint else {
            return Err(browser::Error::InvalidParams {
                what: "profile".into(),
                reason: "a persistent profile needs a browser candor launches, not one it attaches to, a grid's, a pool's or a tape".into(),
            });
        };
        let options = BrowserOptions {
            endpoint: Endpoint::Launch(launch.for_profile(dir, proxy)),
            record_cdp: options.record_cdp,
        };
        Browser::start(options, deadline).await
    }

    /// The running browser, or a new one when there is none or it died.
    async fn connected(&self, deadline: Deadline) -> Result<Browser, browser::Error> {
        let _launching = self.launching.lock().await;
        if let Some(browser) = self.browser()
            && browser.is_connected()
        {
            return Ok(browser);
        }
        let browser = Browser::start(self.options(), deadline).await?;
        *lock(&self.running) = Some(browser.clone());
        Ok(browser)
    }

    /// Closes the browser, if one is running.
    pub async fn close(&self, deadline: Deadline) {
        let browser = lock(&self.running).take();
        if let Some(browser) = browser {
            browser.close(deadline).await;
        }
    }
}

fn pool_of(options: &BrowserOptions) -> Option<Arc<EndpointPool>> {
    match &options.endpoint {
        Endpoint::Pool(urls) => Some(Arc::new(EndpointPool::new(urls.iter().cloned()))),
        _ => None,
    }
}
