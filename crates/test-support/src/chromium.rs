//! The Chromium that browser tests launch: the one candor itself would launch.

use std::path::{Path, PathBuf};

/// The Chromium for tests, found as candor finds it ([`browser::find_chromium`]:
/// `$CANDOR_CHROMIUM`, else `/usr/bin/chromium`, else the usual names on `PATH`).
///
/// Panics, with the reason and its fix, when there is none or `CANDOR_CHROMIUM` names
/// no executable: a browser test cannot run without one, and skipping silently would
/// hide that.
pub fn chromium() -> PathBuf {
    match browser::find_chromium() {
        Ok(path) => path,
        Err(err @ browser::Error::ChromiumNotFound { .. }) => panic!(
            "the browser tests need Chromium: {err}; `scripts/ensure-chromium` installs \
             Debian's chromium when no known browser is found"
        ),
        Err(err) => panic!(
            "the browser tests need Chromium: {err}; set CANDOR_CHROMIUM to a Chromium \
             executable, or unset it to use the one found on PATH"
        ),
    }
}

/// A headless Chromium serving CDP on a port of its choosing, the way a user exposes
/// one (an endpoint to attach to), with its profile in `profile`; spawn it, then
/// [`devtools_port`] says the port.
pub fn chromium_with_port(profile: &Path) -> std::process::Command {
    let mut command = std::process::Command::new(chromium());
    command
        .args(["--headless", "--no-sandbox", "--remote-debugging-port=0"])
        // The switches candor's own launch passes, so a browser attached to is as quiet.
        .args(browser::QUIET_ARGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("about:blank")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    command
}

/// The port a Chromium started by [`chromium_with_port`] on `profile` listens on, once
/// it does (it writes `DevToolsActivePort` then). Panics after 30 s.
pub fn devtools_port(profile: &Path) -> u16 {
    let port_file = profile.join("DevToolsActivePort");
    let started = std::time::Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(&port_file)
            && let Some(port) = text.lines().next().and_then(|l| l.trim().parse().ok())
        {
            return port;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "no {} within 30 s",
            port_file.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
