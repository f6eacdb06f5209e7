//! Process lifecycle: candor's browsers must not outlive it. A SIGTERM or SIGINT ends the
//! current job so the engine can shut its browser down; in MCP mode candor also exits
//! when the process that started it dies.

use std::future::Future;

use tokio::signal::unix::{SignalKind, signal};

/// Runs `job` until it ends or the process is asked to stop (SIGTERM, SIGINT, SIGHUP).
/// Either way the caller gets control back to clean up.
pub async fn until_terminated<T, E>(job: impl Future<Output = Result<T, E>>) -> Result<(), E> {
    let (Ok(mut term), Ok(mut int), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::hangup()),
    ) else {
        return job.await.map(drop);
    };
    tokio::select! {
        result = job => result.map(drop),
        _ = term.recv() => { tracing::info!("SIGTERM: shutting down"); Ok(()) }
        _ = int.recv() => { tracing::info!("SIGINT: shutting down"); Ok(()) }
        _ = hup.recv() => { tracing::info!("SIGHUP: shutting down"); Ok(()) }
    }
}

/// Ends the process (through SIGTERM, so the normal shutdown runs) once the process that
/// started us is gone: an MCP server whose client was killed, even with SIGKILL, must not
/// linger with its browser. Polls `getppid` rather than using `PR_SET_PDEATHSIG`, which
/// fires when the parent *thread* exits and so misfires with multi-threaded clients.
pub fn exit_with_parent() {
    // SAFETY: getppid has no preconditions.
    let parent = unsafe { libc::getppid() };
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(std::time::Duration::from_millis(250));
        loop {
            tick.tick().await;
            // SAFETY: as above; raise only sends ourselves a signal.
            if unsafe { libc::getppid() } != parent {
                tracing::info!("the parent process is gone: shutting down");
                unsafe { libc::raise(libc::SIGTERM) };
                return;
            }
        }
    });
}
