//! The control renderer: a blank page that runs no page script, one per browser, against
//! which a probe that went unanswered is judged (SPEC §15, `probe.rs`).
//!
//! A page that does not answer within the probe budget is either hung (its script never
//! returns) or starved (the machine has no CPU to spare for it, as when many tasks share
//! a small one). One round trip into a renderer with nothing to do tells them apart: it is
//! quick when the machine is fine, and slow when it is starved. It goes the way a probe
//! goes (CDP to the browser process, on to a renderer, into V8), so it works wherever the
//! browser does — launched, attached or on a grid — without reading its process table.
//!
//! The control is made at the first probe that goes unanswered, not sooner (a probe
//! that is answered costs nothing more, and a new renderer started beside a page that is
//! merely slow, such as one in a storm of dialogs, would slow it further), and kept while
//! the browser lives, in a browser context of its own: no task sees it among its tabs,
//! and no page shares its renderer.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use cdp::protocol::target;
use cdp::{Connection, Deadline, Session};
use tokio::sync::watch;

/// How long making the control may take in all, whoever waits for it.
const MAKE_BUDGET: Duration = Duration::from_secs(30);

/// What is known of the browser's control renderer.
#[derive(Clone)]
enum Made {
    /// Not asked for yet, or being made.
    Not,
    /// Made and answering once: this session is its page's.
    Ready(Session),
    /// The browser would not make one (a tape without it, a browser that refuses):
    /// probes judge as if the machine were fine.
    Refused,
}

/// A browser's control renderer, shared by its tabs.
pub(crate) struct Control {
    connection: Connection,
    making: AtomicBool,
    made: watch::Sender<Made>,
    /// The control's browser context, once made: its targets are not pages to adopt.
    context: std::sync::Mutex<Option<String>>,
}

/// How a round trip into the control went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// It answered after this long (making it, the first time, not counted).
    Answered(Duration),
    /// It did not answer (or was not made) within the time given.
    Silent,
    /// There is no control: the browser refused to make one.
    Absent,
}

impl Control {
    pub(crate) fn new(connection: Connection) -> Arc<Control> {
        Arc::new(Control {
            connection,
            making: AtomicBool::new(false),
            made: watch::Sender::new(Made::Not),
            context: std::sync::Mutex::new(None),
        })
    }

    /// Whether `context` is the control's browser context.
    pub(crate) fn owns_context(&self, context: &str) -> bool {
        self.context
            .lock()
            .map(|ours| ours.as_deref() == Some(context))
            .unwrap_or(false)
    }

    /// One round trip into the control by `by`, making it first if it is not made yet.
    pub(crate) async fn read(self: &Arc<Control>, by: Deadline) -> Reading {
        let session = match self.session(by).await {
            Some(Made::Ready(session)) => session,
            Some(Made::Refused) => return Reading::Absent,
            Some(Made::Not) | None => return Reading::Silent,
        };
        let started = Instant::now();
        match session.call(&crate::probe::probe_call(), by).await {
            Ok(_) | Err(cdp::Error::Protocol { .. } | cdp::Error::Decode { .. }) => {
                Reading::Answered(started.elapsed())
            }
            Err(cdp::Error::Timeout { .. }) => Reading::Silent,
            // Gone (crashed, closed): made again next time.
            Err(_) => {
                self.made.send_replace(Made::Not);
                self.making.store(false, Ordering::Release);
                Reading::Silent
            }
        }
    }

    /// Starts making the control unless it is made or being made: in its own task, so
    /// a probe that stops waiting does not leave it half made.
    fn prepare(self: &Arc<Control>) {
        if !self.making.swap(true, Ordering::AcqRel) {
            let control = Arc::clone(self);
            tokio::spawn(async move {
                let made = control.make(Deadline::after(MAKE_BUDGET)).await;
                control.made.send_replace(made);
            });
        }
    }

    /// The control as made by `by` (made first, if need be).
    async fn session(self: &Arc<Control>, by: Deadline) -> Option<Made> {
        self.prepare();
        let mut made = self.made.subscribe();
        let ready = made.wait_for(|made| !matches!(made, Made::Not));
        match tokio::time::timeout_at(by.at().into(), ready).await {
            Ok(Ok(made)) => Some(made.clone()),
            _ => None,
        }
    }

    /// Makes the control: a blank page in a browser context of its own, attached, and
    /// answering once (a new renderer's first answer includes its start, which is not
    /// what a reading measures).
    async fn make(&self, by: Deadline) -> Made {
        let browser = self.connection.browser_session();
        let made = async {
            let context = browser
                .call(
                    &target::CreateBrowserContext {
                        dispose_on_detach: Some(true),
                    },
                    by,
                )
                .await?
                .browser_context_id;
            if let Ok(mut ours) = self.context.lock() {
                *ours = Some(context.clone());
            }
            let created = browser
                .call(
                    &target::CreateTarget {
                        url: "about:blank".into(),
                        browser_context_id: Some(context),
                        background: None,
                    },
                    by,
                )
                .await?;
            let attached = browser
                .call(
                    &target::AttachToTarget {
                        target_id: created.target_id,
                        flatten: true,
                    },
                    by,
                )
                .await?;
            let session = self.connection.session(attached.session_id);
            session.call(&crate::probe::probe_call(), by).await?;
            Ok::<_, cdp::Error>(session)
        };
        match made.await {
            Ok(session) => Made::Ready(session),
            // Too starved to make it in time: made again next time.
            Err(cdp::Error::Timeout { .. }) => {
                self.making.store(false, Ordering::Release);
                Made::Not
            }
            Err(err) => {
                tracing::debug!(%err, "no control renderer: probes judge as on an idle machine");
                Made::Refused
            }
        }
    }
}
