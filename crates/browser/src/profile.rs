//! Persistent profiles (docs/faces.md#profiles): the lock that keeps a second browser off a
//! user-data directory a task keeps between runs.
//!
//! Two locks are looked at, and neither is waited on. candor's own is an advisory lock
//! on `candor.lock` in the directory (`flock`, released by the kernel when its holder
//! exits, however it exits), holding the name of its holder; it refuses another task of
//! the same daemon (each lock is its own open file) and another candor process alike.
//! Chromium's is the `SingletonLock` symbolic link it leaves in the directory, pointing
//! at `HOST-PID`: a Chromium that still runs there — one a person opened, or one of
//! another tool — holds the profile, and one that is gone left a stale link that
//! Chromium itself takes over.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use crate::Error;

/// The name of candor's lock file inside a profile.
pub const PROFILE_LOCK_FILE: &str = "candor.lock";

/// A profile held for one task: its directory is the task's alone until this is dropped.
#[derive(Debug)]
pub struct ProfileLock {
    dir: PathBuf,
    // Held, never read: closing it releases the lock.
    _file: File,
}

impl ProfileLock {
    /// Takes the profile `dir` (made when missing) for `holder` (a task's words: "task
    /// t1"), or refuses at once with [`Error::ProfileInUse`] naming who holds it.
    pub fn acquire(dir: &Path, holder: &str) -> Result<ProfileLock, Error> {
        let failed = |reason: String| Error::ProfileUnusable {
            dir: dir.to_path_buf(),
            reason,
        };
        std::fs::create_dir_all(dir).map_err(|e| failed(format!("cannot create it: {e}")))?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(dir.join(PROFILE_LOCK_FILE))
            .map_err(|e| failed(format!("cannot open {PROFILE_LOCK_FILE}: {e}")))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut said = String::new();
                let _ = file.read_to_string(&mut said);
                let said = said.trim();
                return Err(Error::ProfileInUse {
                    dir: dir.to_path_buf(),
                    holder: if said.is_empty() {
                        "another candor process".into()
                    } else {
                        said.chars().take(200).collect()
                    },
                });
            }
            Err(TryLockError::Error(e)) => {
                return Err(failed(format!("cannot lock {PROFILE_LOCK_FILE}: {e}")));
            }
        }
        if let Some(chromium) = running_chromium(dir) {
            return Err(Error::ProfileInUse {
                dir: dir.to_path_buf(),
                holder: chromium,
            });
        }
        let written = file
            .set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| write!(file, "{holder} (candor pid {})", std::process::id()))
            .and_then(|()| file.flush());
        if let Err(e) = written {
            tracing::debug!(%e, dir = %dir.display(), "the profile's holder could not be written");
        }
        Ok(ProfileLock {
            dir: dir.to_path_buf(),
            _file: file,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// The Chromium that holds `dir` by its `SingletonLock` (`HOST-PID`), in words, when it
/// still runs: on this host a process of that pid lives; on another, it is believed.
fn running_chromium(dir: &Path) -> Option<String> {
    let target = std::fs::read_link(dir.join("SingletonLock")).ok()?;
    let target = target.to_string_lossy();
    let (host, pid) = target.rsplit_once('-')?;
    let pid: i32 = pid.parse().ok().filter(|pid| *pid > 0)?;
    if host != this_host() {
        return Some(format!("a Chromium on host {host} (pid {pid})"));
    }
    // SAFETY: kill with signal 0 sends nothing; it only asks whether the process exists.
    let alive = unsafe { libc::kill(pid, 0) } == 0
        || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    alive.then(|| format!("Chromium pid {pid}"))
}

fn this_host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_a_held_profile_is_refused_naming_the_holder_and_a_released_one_is_taken() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("profile");
        let first = ProfileLock::acquire(&dir, "task t1").unwrap();
        assert_eq!(first.dir(), dir);
        let refused = ProfileLock::acquire(&dir, "task t2").unwrap_err();
        let Error::ProfileInUse { holder, .. } = &refused else {
            panic!("{refused:?}");
        };
        assert!(holder.starts_with("task t1 (candor pid "), "{holder}");
        drop(first);
        let again = ProfileLock::acquire(&dir, "task t2").unwrap();
        drop(again);
    }

    #[test]
    fn a_live_chromiums_singleton_lock_holds_the_profile_and_a_dead_ones_does_not() {
        let root = tempfile::tempdir().unwrap();
        let link = root.path().join("SingletonLock");
        let host = this_host();
        std::os::unix::fs::symlink(format!("{host}-{}", std::process::id()), &link).unwrap();
        let refused = ProfileLock::acquire(root.path(), "task t1").unwrap_err();
        assert!(
            refused
                .to_string()
                .contains(&format!("Chromium pid {}", std::process::id())),
            "{refused}"
        );
        std::fs::remove_file(&link).unwrap();
        // The highest pid Linux gives is below 2^22.
        std::os::unix::fs::symlink(format!("{host}-{}", 1 << 23), &link).unwrap();
        ProfileLock::acquire(root.path(), "task t1").unwrap();
    }
}
