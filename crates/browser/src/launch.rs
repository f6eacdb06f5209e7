//! Finding and launching Chromium so that it never outlives candor.
//!
//! The browser runs in its own process group with `PR_SET_PDEATHSIG = SIGKILL`, so it
//! dies with the thread that started it even when candor is killed outright; a graceful
//! exit kills the whole group and removes the fresh user-data-dir.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use crate::Error;

/// How to launch a local Chromium.
#[derive(Debug, Clone)]
pub struct LaunchOptions {
    /// The executable; found by [`find_chromium`] when absent.
    pub executable: Option<PathBuf>,
    pub headless: bool,
    /// Extra command-line switches, appended after candor's own.
    pub args: Vec<String>,
}

impl Default for LaunchOptions {
    fn default() -> Self {
        Self {
            executable: None,
            headless: true,
            args: Vec::new(),
        }
    }
}

/// `CANDOR_CHROMIUM`, then `/usr/bin/chromium`, then the usual names on `PATH`.
pub fn find_chromium() -> Result<PathBuf, Error> {
    let mut searched = Vec::new();
    if let Some(path) = std::env::var_os("CANDOR_CHROMIUM") {
        let path = PathBuf::from(path);
        if is_executable(&path) {
            return Ok(path);
        }
        searched.push(path);
    }
    let fixed = PathBuf::from("/usr/bin/chromium");
    if is_executable(&fixed) {
        return Ok(fixed);
    }
    searched.push(fixed);
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    for name in [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ] {
        for dir in std::env::split_paths(&path_var) {
            let candidate = dir.join(name);
            if is_executable(&candidate) {
                return Ok(candidate);
            }
        }
        searched.push(PathBuf::from(format!("{name} on PATH")));
    }
    Err(Error::ChromiumNotFound { searched })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Switches every launch gets, beside [`QUIET_ARGS`]: the pipe, no first window, and no
/// extensions, keychain or metrics of a desktop profile.
const BASE_ARGS: &[&str] = &[
    "--remote-debugging-pipe",
    "--no-default-browser-check",
    "--no-startup-window",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider",
    "--password-store=basic",
    "--use-mock-keychain",
    "--metrics-recording-only",
];

/// Switches every Chromium candor drives gets, launched here or on a grid. The network
/// ones keep a closed network quiet (no component updates, sync or background requests);
/// the others make pages behave the same in background tabs and across runs.
pub(crate) const QUIET_ARGS: &[&str] = &[
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--disable-breakpad",
    "--disable-crash-reporter",
    "--disable-dev-shm-usage",
    "--disable-back-forward-cache",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
    "--mute-audio",
    "--window-size=1280,800",
    // Port 1 (tcpmux) is where nothing listens: the conventional target for "connection
    // refused". Chromium bans it as unsafe, which would hide the refusal behind
    // ERR_UNSAFE_PORT; no other banned port is opened.
    "--explicitly-allowed-ports=1",
];

/// A running Chromium we launched. Dropping it kills the process group and removes the
/// user-data-dir.
pub(crate) struct ChromiumProcess {
    child: Child,
    executable: PathBuf,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    // Dropped after the process is dead, so Chromium is not writing into it.
    _user_data_dir: tempfile::TempDir,
}

impl std::fmt::Debug for ChromiumProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChromiumProcess")
            .field("pid", &self.child.id())
            .finish()
    }
}

/// Our ends of the debugging pipe: write commands to `to_browser`, read `from_browser`.
pub(crate) struct PipeEnds {
    pub to_browser: OwnedFd,
    pub from_browser: OwnedFd,
}

impl ChromiumProcess {
    pub(crate) fn spawn(options: &LaunchOptions) -> Result<(Self, PipeEnds), Error> {
        let executable = match &options.executable {
            Some(path) => path.clone(),
            None => find_chromium()?,
        };
        let launch_error = |reason: String| Error::Launch {
            executable: executable.clone(),
            reason,
        };
        if !options.headless && std::env::var_os("DISPLAY").is_none() {
            return Err(Error::DisplayUnavailable);
        }
        let user_data_dir = tempfile::Builder::new()
            .prefix("candor-profile-")
            .tempdir()
            .map_err(|e| launch_error(format!("cannot create a user-data-dir: {e}")))?;

        // Browser's fd 3: it reads commands. Browser's fd 4: it writes replies.
        let (browser_reads, to_browser) = pipe().map_err(|e| launch_error(e.to_string()))?;
        let (from_browser, browser_writes) = pipe().map_err(|e| launch_error(e.to_string()))?;

        let mut command = Command::new(&executable);
        command.args(BASE_ARGS).args(QUIET_ARGS);
        if options.headless {
            command.args(["--headless", "--hide-scrollbars"]);
        }
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            command.arg("--no-sandbox");
        }
        command
            .arg(format!(
                "--user-data-dir={}",
                user_data_dir.path().display()
            ))
            .args(&options.args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());

        let reads_fd = browser_reads.as_raw_fd();
        let writes_fd = browser_writes.as_raw_fd();
        // SAFETY: getpid has no preconditions.
        let parent = unsafe { libc::getpid() };
        // SAFETY: the closure runs in the forked child before exec and only calls
        // async-signal-safe functions (fcntl, dup2, setpgid, prctl, getppid, _exit).
        unsafe {
            command.pre_exec(move || {
                // Move both ends out of the way first: one of them may already be fd 3
                // or 4, and dup2 onto it would clobber the other.
                let reads = libc::fcntl(reads_fd, libc::F_DUPFD_CLOEXEC, 10);
                let writes = libc::fcntl(writes_fd, libc::F_DUPFD_CLOEXEC, 10);
                if reads < 0 || writes < 0 || libc::dup2(reads, 3) < 0 || libc::dup2(writes, 4) < 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                libc::setpgid(0, 0);
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                if libc::getppid() != parent {
                    libc::_exit(1); // candor died before we got here
                }
                Ok(())
            });
        }
        let mut child = command
            .spawn()
            .map_err(|e| launch_error(format!("cannot execute: {e}")))?;
        drop(browser_reads);
        drop(browser_writes);

        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        if let Some(stderr) = child.stderr.take() {
            let tail = stderr_tail.clone();
            // Chromium's stderr is noise unless it fails to start; keep the last lines.
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    tracing::trace!(target: "chromium", "{line}");
                    if let Ok(mut tail) = tail.lock() {
                        if tail.len() == 20 {
                            tail.pop_front();
                        }
                        tail.push_back(line);
                    }
                }
            });
        }
        Ok((
            Self {
                child,
                executable,
                stderr_tail,
                _user_data_dir: user_data_dir,
            },
            PipeEnds {
                to_browser,
                from_browser,
            },
        ))
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    pub(crate) fn user_data_dir(&self) -> &Path {
        self._user_data_dir.path()
    }

    /// Why the browser did not come up: its exit status and last stderr lines.
    pub(crate) fn failure(&mut self, reason: &str) -> Error {
        let status = match self.child.try_wait() {
            Ok(Some(status)) => format!("; exited with {status}"),
            _ => String::new(),
        };
        let tail = self
            .stderr_tail
            .lock()
            .map(|t| t.iter().cloned().collect::<Vec<_>>().join("\n"))
            .unwrap_or_default();
        Error::Launch {
            executable: self.executable.clone(),
            reason: format!("{reason}{status}\n{tail}").trim_end().to_string(),
        }
    }
}

impl Drop for ChromiumProcess {
    fn drop(&mut self) {
        // The process group holds the browser and any helper that did not start its own
        // session; renderers and the zygote exit when their browser's pipes close.
        let pgid = self.child.id() as libc::pid_t;
        // SAFETY: kill has no memory-safety preconditions; a stale group is ESRCH.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: fds is a valid two-element array for pipe2 to fill.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: pipe2 succeeded, so both are fresh descriptors that we own.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}
