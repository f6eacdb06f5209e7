//! Finding the Chromium binary that browser tests launch.

use std::path::{Path, PathBuf};

/// Names tried on `PATH`, in order, when no explicit binary is given.
const NAMES: &[&str] = &["chromium", "chromium-browser", "google-chrome"];

/// The Chromium for tests: `$CANDOR_CHROMIUM`, else `/usr/bin/chromium`, else the first of
/// `chromium`, `chromium-browser`, `google-chrome` on `PATH`.
///
/// Panics with install instructions when none exists: a browser test cannot run without
/// one, and skipping silently would hide that.
pub fn chromium() -> PathBuf {
    if let Some(explicit) = std::env::var_os("CANDOR_CHROMIUM").filter(|v| !v.is_empty()) {
        let explicit = PathBuf::from(explicit);
        assert!(
            is_executable(&explicit),
            "CANDOR_CHROMIUM={} is not an executable file",
            explicit.display()
        );
        return explicit;
    }
    let default = Path::new("/usr/bin/chromium");
    if is_executable(default) {
        return default.to_path_buf();
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    NAMES
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| is_executable(candidate))
        .unwrap_or_else(|| {
            panic!(
                "no Chromium found for the browser tests: install it with \
                 `apt-get install -y chromium`, or set CANDOR_CHROMIUM to its path"
            )
        })
}

/// A headless Chromium serving CDP on a port of its choosing, the way a user exposes
/// one (an endpoint to attach to), with its profile in `profile`; spawn it, then
/// [`devtools_port`] says the port.
pub fn chromium_with_port(profile: &Path) -> std::process::Command {
    let mut command = std::process::Command::new(chromium());
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--remote-debugging-port=0",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-quic",
            "--disable-breakpad",
        ])
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

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_executable_rejects_directories_and_missing_files() {
        assert!(!is_executable(Path::new("/")));
        assert!(!is_executable(Path::new("/no/such/chromium")));
        assert!(is_executable(Path::new("/bin/sh")));
    }
}
