//! The daemon's state directory: the token (0600), `daemon.json` (pid and port, so
//! clients find a daemon on any port), the lock that lets one daemon serve a directory,
//! the log of a daemon that a client started, and each task's folder (`tasks/<id>`:
//! its archive). It must be this user's own: a real directory, owned by them, closed to
//! others' writes — the fallback in `/tmp` could otherwise have been made by anyone first,
//! and whoever owns it reads the token and can point clients at a server of theirs.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tools::folders::{self, FolderError};

use crate::Error;

/// Where a daemon keeps its state: `$CANDOR_STATE_DIR`, else `$XDG_STATE_HOME/candor`,
/// else `~/.local/state/candor`, else `/tmp/candor-UID` (used only if this user owns it:
/// [`StateDir::create`], [`StateDir::check`]).
pub fn default_state_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CANDOR_STATE_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_STATE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("candor");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(home).join(".local/state/candor");
    }
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    PathBuf::from(format!("/tmp/candor-{uid}"))
}

/// What a running daemon publishes about itself in `daemon.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DaemonInfo {
    pub pid: u32,
    pub port: u16,
    pub version: String,
}

/// The files of one state directory.
#[derive(Debug, Clone)]
pub struct StateDir {
    root: PathBuf,
}

impl StateDir {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn token_path(&self) -> PathBuf {
        self.root.join("token")
    }

    pub fn info_path(&self) -> PathBuf {
        self.root.join("daemon.json")
    }

    pub fn lock_path(&self) -> PathBuf {
        self.root.join("daemon.lock")
    }

    /// Where a daemon started by a client writes its log.
    pub fn log_path(&self) -> PathBuf {
        self.root.join("daemon.log")
    }

    /// The folder of task `id`'s own files (its archive, `tools::ARCHIVE_FILE`), removed
    /// with the task unless its archive is kept. An id that is no plain name (`..`) has
    /// none.
    pub fn task_dir(&self, id: &str) -> Result<PathBuf, FolderError> {
        folders::named(&self.root.join("tasks"), id)
    }

    /// Creates the directory (0700) if it is missing, and checks it is this user's own.
    pub fn create(&self) -> Result<(), Error> {
        Ok(folders::make_private(&self.root)?)
    }

    /// Checks the directory is this user's own before a client trusts what it holds (the
    /// token it sends, the port it connects to).
    pub fn check(&self) -> Result<(), Error> {
        Ok(folders::check_private(&self.root)?)
    }

    /// Takes the directory's lock for as long as the returned file is open: one daemon
    /// per state directory.
    pub(crate) fn lock(&self) -> Result<File, Error> {
        let path = self.lock_path();
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        // SAFETY: flock on a descriptor we own; no memory is involved.
        let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if locked != 0 {
            return Err(Error::AlreadyServing {
                state_dir: self.root.clone(),
            });
        }
        Ok(file)
    }

    /// Writes a fresh random token to `token`, readable by the owner only.
    pub(crate) fn write_token(&self) -> Result<String, Error> {
        let token = tools::random_token().map_err(|e| Error::io(Path::new("/dev/urandom"), e))?;
        let path = self.token_path();
        let _ = std::fs::remove_file(&path);
        let mut file = OpenOptions::new()
            .create_new(true)
            .write(true)
            .mode(0o600)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        file.write_all(token.as_bytes())
            .map_err(|e| Error::io(&path, e))?;
        Ok(token)
    }

    pub fn read_token(&self) -> Result<String, Error> {
        let path = self.token_path();
        std::fs::read_to_string(&path)
            .map(|t| t.trim().to_string())
            .map_err(|e| Error::io(&path, e))
    }

    pub(crate) fn write_info(&self, info: &DaemonInfo) -> Result<(), Error> {
        let path = self.info_path();
        let temp = self.root.join("daemon.json.tmp");
        let text = serde_json::to_string(info).map_err(|e| Error::io(&path, e.into()))?;
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .mode(0o600)
            .open(&temp)
            .map_err(|e| Error::io(&temp, e))?;
        file.write_all(text.as_bytes())
            .map_err(|e| Error::io(&temp, e))?;
        std::fs::rename(&temp, &path).map_err(|e| Error::io(&path, e))
    }

    pub fn read_info(&self) -> Result<DaemonInfo, Error> {
        let path = self.info_path();
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        serde_json::from_str(&text).map_err(|e| Error::io(&path, e.into()))
    }

    /// Removes `daemon.json` and the token, if they are still this process's.
    pub(crate) fn remove_own(&self) {
        let ours = self
            .read_info()
            .is_ok_and(|info| info.pid == std::process::id());
        if ours {
            let _ = std::fs::remove_file(self.info_path());
            let _ = std::fs::remove_file(self.token_path());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn the_token_is_random_and_readable_by_the_owner_only() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let state = StateDir::new(dir.path().join("state"));
        state.create().expect("created");
        let first = state.write_token().expect("written");
        let mode = std::fs::metadata(state.token_path())
            .expect("the token file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(first.len(), 64);
        assert_eq!(state.read_token().expect("read"), first);
        let second = state.write_token().expect("written again");
        assert_ne!(first, second);
        let dir_mode = std::fs::metadata(state.root())
            .expect("the dir")
            .permissions()
            .mode();
        assert_eq!(dir_mode & 0o777, 0o700);
    }

    /// A state directory someone could have made first — a link, or a directory others
    /// may write to — is refused before the token is written into it.
    #[test]
    fn a_state_directory_that_is_not_this_users_own_is_refused() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let target = dir.path().join("target");
        std::fs::create_dir(&target).expect("a folder");
        std::os::unix::fs::symlink(&target, dir.path().join("link")).expect("a link");
        let open = dir.path().join("open");
        std::fs::create_dir(&open).expect("a folder");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).expect("chmod");
        for root in [dir.path().join("link"), open] {
            let state = StateDir::new(&root);
            assert!(
                matches!(state.create(), Err(Error::StateDir(_))),
                "{}",
                root.display()
            );
            assert!(matches!(state.check(), Err(Error::StateDir(_))));
        }
    }

    #[test]
    fn one_daemon_per_state_directory() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let state = StateDir::new(dir.path());
        let held = state.lock().expect("the first lock");
        assert!(matches!(state.lock(), Err(Error::AlreadyServing { .. })));
        drop(held);
        state.lock().expect("free again once the first is closed");
    }
}
