//! Finding and launching Chromium so that it never outlives candor.
//!
//! The browser runs in its own process group with `PR_SET_PDEATHSIG = SIGKILL`, so it
//! dies with the thread that started it even when candor is killed outright; a graceful
//! exit kills the whole group and removes the fresh user-data-dir.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
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
    /// A persistent profile (docs/faces.md#profiles): the user-data directory the browser
    /// runs on, kept when it exits, with extensions allowed. Unset, every launch gets a
    /// fresh temporary one, removed when it exits. The caller holds the profile's lock
    /// ([`crate::ProfileLock`]).
    pub user_data_dir: Option<PathBuf>,
}

impl Default for LaunchOptions {
    fn default() -> Self {
        Self {
            executable: None,
            headless: true,
            args: Vec::new(),
            user_data_dir: None,
        }
    }
}

impl LaunchOptions {
    /// These options for a profile's own browser: on the user-data directory `dir`, and
    /// behind `proxy` (its switches: the browser's default context is the task's).
    pub fn for_profile(&self, dir: &Path, proxy: Option<&crate::Proxy>) -> LaunchOptions {
        let mut options = self.clone();
        options.user_data_dir = Some(dir.to_path_buf());
        options
            .args
            .extend(proxy.map(crate::Proxy::switches).unwrap_or_default());
        options
    }

    /// The Chromium a launch with these options runs: the executable given, when it is
    /// one, else the one [`find_chromium`] finds.
    pub fn chromium(&self) -> Result<PathBuf, Error> {
        match &self.executable {
            Some(path) if is_executable(path) => Ok(path.clone()),
            Some(path) => Err(Error::Launch {
                executable: path.clone(),
                reason: "it is not an executable file".into(),
            }),
            None => find_chromium(),
        }
    }
}

/// The place Debian's `chromium` package installs its executable, tried before `PATH`.
const DEBIAN_CHROMIUM: &str = "/usr/bin/chromium";

/// The executable names tried on `PATH`, in order: what Debian, Ubuntu and Google's
/// packages install. This is the one list of them: the tests (`test_support::chromium`)
/// and the scripts (`scripts/ensure-chromium` runs `candor chromium`) ask this finder
/// rather than keep their own, so a machine with only one of these names runs candor,
/// its tests and its scripts alike.
const CHROMIUM_NAMES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

/// `CANDOR_CHROMIUM` when it is set (an error when it names no executable file: it was
/// asked for, and another browser in its place would surprise), else
/// `/usr/bin/chromium`, else the first of `chromium`, `chromium-browser`, `google-chrome`
/// and `google-chrome-stable` on `PATH`.
pub fn find_chromium() -> Result<PathBuf, Error> {
    find_in(
        std::env::var_os("CANDOR_CHROMIUM"),
        Path::new(DEBIAN_CHROMIUM),
        &std::env::var_os("PATH").unwrap_or_default(),
    )
}

/// [`find_chromium`] given the value of `CANDOR_CHROMIUM`, the fixed place and `PATH`.
fn find_in(named: Option<OsString>, fixed: &Path, path_var: &OsStr) -> Result<PathBuf, Error> {
    if let Some(path) = named.filter(|v| !v.is_empty()) {
        let path = PathBuf::from(path);
        if is_executable(&path) {
            return Ok(path);
        }
        return Err(Error::Launch {
            executable: path,
            reason: "CANDOR_CHROMIUM names it, and it is not an executable file".into(),
        });
    }
    if is_executable(fixed) {
        return Ok(fixed.to_path_buf());
    }
    let mut searched = vec![fixed.to_path_buf()];
    for name in CHROMIUM_NAMES {
        for dir in std::env::split_paths(path_var) {
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
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Switches every launch gets, beside [`QUIET_ARGS`]: the pipe, no first window, and no
/// extensions, keychain or metrics of a desktop profile.
const BASE_ARGS: &[&str] = &[
    "--remote-debugging-pipe",
    "--no-default-browser-check",
    "--no-startup-window",
    "--disable-default-apps",
    "--disable-extensions",
    "--password-store=basic",
    "--use-mock-keychain",
    "--metrics-recording-only",
];

/// Switches every Chromium candor drives gets, launched here or on a grid. The network
/// ones keep a closed network quiet (no component updates, sync or background requests);
/// the others make pages behave the same in background tabs and across runs, and keep
/// an idle tab idle (see `DISABLED_FEATURES`). A caller's own `--disable-features` is
/// merged into ours (`with_switches`), never left to replace it.
pub const QUIET_ARGS: &[&str] = &[
    DISABLED_FEATURES,
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

/// Features a driven browser has no use for. The omnibox popups matter most: Chromium
/// (148 here) preloads their WebUI for every window, and each task's browser context has
/// its own window, so each task had two WebUI pages in a renderer of its own that spent
/// about 0.4 s of CPU per 20 s with nothing open in the tab (measured with 20 idle tasks:
/// 8.7 CPU-s in 20 s, 0.06 without them). A headless browser shows no omnibox.
const DISABLED_FEATURES: &str = "--disable-features=Translate,MediaRouter,OptimizationHints,\
    DialMediaRouteProvider,WebUIOmniboxPopup,WebUIOmniboxAimPopup,PreloadTopChromeWebUI";

/// `ours` then `theirs`, where a `--disable-features=` of theirs joins ours instead of
/// following it: Chromium reads only the last of a repeated switch, so a caller disabling
/// one more feature would otherwise enable the ones candor disables.
pub(crate) fn with_switches<'a>(
    ours: impl IntoIterator<Item = &'a str>,
    theirs: &[String],
) -> Vec<String> {
    const FEATURES: &str = "--disable-features=";
    let mut args: Vec<String> = ours.into_iter().map(str::to_string).collect();
    for arg in theirs {
        let merged = arg.strip_prefix(FEATURES).and_then(|more| {
            let ours = args.iter_mut().find(|a| a.starts_with(FEATURES))?;
            if !more.is_empty() {
                ours.push(',');
                ours.push_str(more);
            }
            Some(())
        });
        if merged.is_none() {
            args.push(arg.clone());
        }
    }
    args
}

/// A running Chromium we launched. Dropping it kills the process group and removes a
/// fresh user-data-dir (a profile's stays).
pub(crate) struct ChromiumProcess {
    child: Child,
    executable: PathBuf,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    user_data_dir: PathBuf,
    // Dropped after the process is dead, so Chromium is not writing into it.
    _fresh_profile: Option<tempfile::TempDir>,
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
        let executable = options.chromium()?;
        let launch_error = |reason: String| Error::Launch {
            executable: executable.clone(),
            reason,
        };
        if !options.headless && std::env::var_os("DISPLAY").is_none() {
            return Err(Error::DisplayUnavailable);
        }
        let (user_data_dir, fresh_profile) = match &options.user_data_dir {
            Some(dir) => (dir.clone(), None),
            None => {
                let fresh = tempfile::Builder::new()
                    .prefix("candor-profile-")
                    .tempdir()
                    .map_err(|e| launch_error(format!("cannot create a user-data-dir: {e}")))?;
                (fresh.path().to_path_buf(), Some(fresh))
            }
        };

        // Browser's fd 3: it reads commands. Browser's fd 4: it writes replies.
        let (browser_reads, to_browser) = pipe().map_err(|e| launch_error(e.to_string()))?;
        let (from_browser, browser_writes) = pipe().map_err(|e| launch_error(e.to_string()))?;

        // A profile is the user's: its extensions run.
        let persistent = options.user_data_dir.is_some();
        let mut ours: Vec<&str> = BASE_ARGS
            .iter()
            .chain(QUIET_ARGS)
            .copied()
            .filter(|arg| !(persistent && *arg == "--disable-extensions"))
            .collect();
        if options.headless {
            ours.extend(["--headless", "--hide-scrollbars"]);
        }
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            ours.push("--no-sandbox");
        }
        let profile = format!("--user-data-dir={}", user_data_dir.display());
        ours.push(&profile);
        let mut command = Command::new(&executable);
        command
            .args(with_switches(ours, &options.args))
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
                user_data_dir,
                _fresh_profile: fresh_profile,
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
        &self.user_data_dir
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_callers_disabled_features_join_ours_and_other_switches_follow() {
        let theirs = [
            "--disable-features=Foo".to_string(),
            "--disable-gpu".to_string(),
            "--disable-features=".to_string(),
        ];
        let args = with_switches(QUIET_ARGS.iter().copied(), &theirs);
        let features: Vec<_> = args
            .iter()
            .filter(|a| a.starts_with("--disable-features="))
            .collect();
        assert_eq!(features.len(), 1, "{args:?}");
        assert!(features[0].contains("WebUIOmniboxPopup,"), "{features:?}");
        assert!(features[0].ends_with(",Foo"), "{features:?}");
        assert_eq!(args.last().map(String::as_str), Some("--disable-gpu"));
        assert_eq!(args.len(), QUIET_ARGS.len() + 1);
        // With nothing of theirs, ours as they are.
        assert_eq!(with_switches(["--a", "--b"], &[]), ["--a", "--b"]);
    }

    /// A directory holding an executable (or, with `mode` 0o644, a plain file) per name.
    fn dir_with(names: &[&str], mode: u32) -> tempfile::TempDir {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        for name in names {
            let path = dir.path().join(name);
            std::fs::write(&path, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        dir
    }

    #[test]
    fn a_machine_with_only_google_chrome_stable_on_path_finds_it() {
        let empty = tempfile::tempdir().unwrap();
        let bin = dir_with(&["google-chrome-stable"], 0o755);
        let path_var = std::env::join_paths([empty.path(), bin.path()]).unwrap();
        let found = find_in(None, &empty.path().join("chromium"), &path_var).unwrap();
        assert_eq!(found, bin.path().join("google-chrome-stable"));
    }

    #[test]
    fn each_name_is_tried_on_every_path_entry_before_the_next_name() {
        let first = dir_with(&["google-chrome"], 0o755);
        let second = dir_with(&["chromium-browser"], 0o755);
        let path_var = std::env::join_paths([first.path(), second.path()]).unwrap();
        let none = first.path().join("no-such-chromium");
        let found = find_in(None, &none, &path_var).unwrap();
        assert_eq!(found, second.path().join("chromium-browser"));
    }

    #[test]
    fn the_fixed_place_comes_before_path_and_candor_chromium_before_both() {
        let fixed = dir_with(&["chromium"], 0o755);
        let named = dir_with(&["my-chrome"], 0o755);
        let bin = dir_with(&["chromium"], 0o755);
        let fixed_path = fixed.path().join("chromium");
        assert_eq!(
            find_in(None, &fixed_path, bin.path().as_os_str()).unwrap(),
            fixed_path
        );
        let mine = named.path().join("my-chrome");
        assert_eq!(
            find_in(
                Some(mine.clone().into()),
                &fixed_path,
                bin.path().as_os_str()
            )
            .unwrap(),
            mine
        );
    }

    #[test]
    fn an_empty_candor_chromium_counts_as_unset() {
        let fixed = dir_with(&["chromium"], 0o755);
        let fixed_path = fixed.path().join("chromium");
        let found = find_in(Some(OsString::new()), &fixed_path, OsStr::new("")).unwrap();
        assert_eq!(found, fixed_path);
    }

    #[test]
    fn a_candor_chromium_that_is_no_executable_is_an_error_naming_it_not_another_browser() {
        let fixed = dir_with(&["chromium"], 0o755);
        let plain = dir_with(&["chromium"], 0o644);
        for named in [plain.path().join("chromium"), plain.path().to_path_buf()] {
            let err = find_in(
                Some(named.clone().into()),
                &fixed.path().join("chromium"),
                OsStr::new(""),
            )
            .unwrap_err();
            let Error::Launch { executable, reason } = &err else {
                panic!("{err:?}");
            };
            assert_eq!(executable, &named);
            assert!(reason.contains("CANDOR_CHROMIUM"), "{err}");
        }
    }

    #[test]
    fn no_browser_anywhere_names_every_place_looked_at() {
        let empty = tempfile::tempdir().unwrap();
        let not_executable = dir_with(CHROMIUM_NAMES, 0o644);
        let fixed = empty.path().join("chromium");
        let err = find_in(None, &fixed, not_executable.path().as_os_str()).unwrap_err();
        let Error::ChromiumNotFound { searched } = &err else {
            panic!("{err:?}");
        };
        let mut expected = vec![fixed];
        expected.extend(
            CHROMIUM_NAMES
                .iter()
                .map(|name| PathBuf::from(format!("{name} on PATH"))),
        );
        assert_eq!(searched, &expected);
    }

    #[test]
    fn an_executable_given_is_launched_only_when_it_is_one() {
        let bin = dir_with(&["chrome"], 0o755);
        let given = |path: PathBuf| LaunchOptions {
            executable: Some(path),
            ..LaunchOptions::default()
        };
        let chrome = bin.path().join("chrome");
        assert_eq!(given(chrome.clone()).chromium().unwrap(), chrome);
        let err = given(bin.path().to_path_buf()).chromium().unwrap_err();
        assert!(
            matches!(&err, Error::Launch { executable, .. } if executable == bin.path()),
            "{err:?}"
        );
    }
}
