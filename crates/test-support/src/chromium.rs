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
