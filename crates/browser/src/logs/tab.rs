//! The tab's side of its log: reading it, bounding it, waiting for the requests a command
//! began to be answered, and a response's body.

use std::time::Duration;

use cdp::Deadline;
use cdp::protocol::network;

use super::{ConsoleEntry, NetworkEntry, TabLog};
use crate::footprint::Held;
use crate::{Error, Tab};

crate::footprint!(ConsoleEntry {
    seq,
    last,
    level,
    exception,
    text,
    clipped,
    url,
    line,
    stack,
    count,
    at_ms,
});

crate::footprint!(NetworkEntry {
    seq,
    last,
    request_id,
    method,
    url,
    resource_type,
    frame_id,
    main_frame,
    started_ms,
    started,
    waited_ms,
    duration_ms,
    status,
    status_text,
    mime_type,
    protocol,
    failure,
    canceled,
    from_cache,
    bytes,
    request_headers,
    response_headers,
    has_post_data,
    redirected,
});

crate::footprint!(owns_nothing: super::Level, super::Problem);

/// What each of a log's rings holds (`footprint.rs`).
pub(crate) struct Rings {
    pub console: Held,
    pub exceptions: Held,
    /// The requests not ended yet included.
    pub network: Held,
    pub problems: Held,
}

impl TabLog {
    /// What the log's rings hold.
    pub(crate) fn footprint(&self) -> Rings {
        let mut network = Held::ring(&self.network);
        network.bytes += crate::Footprint::heap_bytes(&self.open);
        Rings {
            console: Held::ring(&self.console),
            exceptions: Held::ring(&self.exceptions),
            network,
            problems: Held::ring(&self.problems),
        }
    }
}

impl Tab {
    /// Keeps at most `max` entries in each of the log's rings from now on.
    pub(crate) fn set_log_max_entries(&self, max: usize) {
        self.shared
            .log
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .max_entries = max.max(1);
    }

    /// Reads the tab's log.
    pub fn read_log<R>(&self, read: impl FnOnce(&TabLog) -> R) -> R {
        let log = self
            .shared
            .log
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        read(&log)
    }

    /// The tab's last log number (see [`TabLog::cursor`]).
    pub fn log_cursor(&self) -> u64 {
        self.read_log(TabLog::cursor)
    }

    /// Waits, at most `budget` and within `deadline`, until every `xhr`/`fetch` request
    /// the page began after `since` has been answered or has failed. Returns how many
    /// are still unanswered.
    pub async fn requests_answered(
        &self,
        since: u64,
        budget: Duration,
        deadline: Deadline,
    ) -> usize {
        let until = tokio::time::Instant::now() + budget.min(deadline.remaining());
        loop {
            let (open, ended) =
                self.read_log(|log| (log.unanswered_since(since), log.ended.clone()));
            if open == 0 {
                return 0;
            }
            let notified = ended.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            // Ended between the read and arming the wait: read again.
            if self.read_log(|log| log.unanswered_since(since)) == 0 {
                return 0;
            }
            if tokio::time::timeout_at(until, notified).await.is_err() {
                return self.read_log(|log| log.unanswered_since(since));
            }
        }
    }

    /// The body of request `request_id`, as the browser still has it: text, or base64 for
    /// a binary body (`true`).
    pub async fn response_body(
        &self,
        request_id: &str,
        deadline: Deadline,
    ) -> Result<(String, bool), Error> {
        let body = self
            .session()
            .call(
                &network::GetResponseBody {
                    request_id: request_id.to_string(),
                },
                deadline,
            )
            .await?;
        Ok((body.body, body.base64_encoded))
    }
}
