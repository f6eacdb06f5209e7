//! The control renderer: a blank page that runs no page script, one per browser, against
//! which a probe that went unanswered is judged when the page's own CPU time cannot be
//! read (docs/faults.md#probe, `probe.rs`).
//!
//! A page that does not answer within the probe budget is either hung (its script never
//! returns) or slow: a task that does end, on a machine with no CPU to spare, or a
//! browser that is itself stopped. One round trip into a renderer with nothing to do
//! tells the machine's part: quick when the browser and the machine answer, slow when
//! they do not. It goes the way a probe goes (CDP to the browser process, on to a
//! renderer, into V8), so it works wherever the browser does — launched, attached or on a
//! grid — without reading its process table. A waking renderer is scheduled ahead of busy
//! ones, so it stays quick on a loaded machine: it says the browser answers, not how much
//! CPU a busy page gets, which is why the page's own CPU time is read first.
//!
//! It is made when a verdict first needs it (`Reading::Unmade` meanwhile: no reading,
//! neither health nor starvation, and no probe waits for it, since its making is a new
//! renderer's start and says nothing of the machine), and kept while the browser lives,
//! in a browser context of its own: no task sees it among its tabs, and no page shares
//! its renderer. Not at launch: a window in a context of its own costs Chromium 156 three
//! renderers (the blank page and two of the browser's own UI pages), about 85 MB, which a
//! browser whose pages answer or give their CPU time never needs.

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
    /// It answered after this long.
    Answered(Duration),
    /// It did not answer within the time given.
    Silent,
    /// It is not made yet (being made now): no reading.
    Unmade,
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

    /// One round trip into the control by `by`; a control not made yet is started and
    /// is no reading.
    pub(crate) async fn read(self: &Arc<Control>, by: Deadline) -> Reading {
        let made = self.made.borrow().clone();
        let session = match made {
            Made::Ready(session) => session,
            Made::Refused => return Reading::Absent,
            Made::Not => {
                self.prepare();
                return Reading::Unmade;
            }
        };
        let started = Instant::now();
        match session.call(&crate::tab::probe::probe_call(), by).await {
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
                        ..Default::default()
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
            session.call(&crate::tab::probe::probe_call(), by).await?;
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
