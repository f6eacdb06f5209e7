//! Folders candor makes from names and writes into: the one place a name becomes a path
//! ([`named`]), and the checks that a folder candor writes secrets into is its own
//! ([`make_private`], [`check_private`]) or new ([`make_temp`]).
//!
//! A name that is not one plain path component (`.`, `..`, anything with `/`) is refused,
//! never cleaned up: `tasks/..` is the state directory itself, and removing a task's
//! folder must never reach past it. A folder that already exists is used only when it is
//! a real directory (not a symbolic link), owned by this process's user, and closed to
//! others' writes — in a shared folder such as `/tmp` or a configured `archiveDir`, anyone
//! could have made it first.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Why a folder cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    #[error("{name:?} is not a folder name: it must be one path component, not . or ..")]
    NotAName { name: String },
    #[error("{} is a symbolic link; candor writes only into a folder of its own", path.display())]
    Link { path: PathBuf },
    #[error("{} is not a folder", path.display())]
    NotAFolder { path: PathBuf },
    #[error("{} belongs to user {owner}, not to this one ({user})", path.display())]
    NotOwned {
        path: PathBuf,
        owner: u32,
        user: u32,
    },
    #[error("{} is open to others (mode {mode:o}); chmod go-w it or remove it", path.display())]
    OpenToOthers { path: PathBuf, mode: u32 },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The folder of `name` in `root`. Every folder candor makes from a name (a task id, an
/// archive's folder) is built here.
pub fn named(root: &Path, name: &str) -> Result<PathBuf, FolderError> {
    let plain = !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains('/')
        && !name.contains('\0');
    if plain {
        Ok(root.join(name))
    } else {
        Err(FolderError::NotAName {
            name: name.to_string(),
        })
    }
}

/// Makes `path` (its parents as needed, itself 0700) unless it exists, then checks it is
/// candor's own ([`check_private`]).
pub fn make_private(path: &Path) -> Result<(), FolderError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(parent)
            .map_err(|source| io(parent, source))?;
    }
    match std::fs::DirBuilder::new().mode(0o700).create(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(source) => return Err(io(path, source)),
    }
    check_private(path)
}

/// Whether `path` is a folder of this user's that others cannot write to — checked on
/// the path itself, never through a symbolic link.
pub fn check_private(path: &Path) -> Result<(), FolderError> {
    let meta = std::fs::symlink_metadata(path).map_err(|source| io(path, source))?;
    if meta.file_type().is_symlink() {
        return Err(FolderError::Link {
            path: path.to_path_buf(),
        });
    }
    if !meta.is_dir() {
        return Err(FolderError::NotAFolder {
            path: path.to_path_buf(),
        });
    }
    let user = effective_user();
    if meta.uid() != user {
        return Err(FolderError::NotOwned {
            path: path.to_path_buf(),
            owner: meta.uid(),
            user,
        });
    }
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(FolderError::OpenToOthers {
            path: path.to_path_buf(),
            mode,
        });
    }
    Ok(())
}

/// A new folder in the system's temporary folder, named `prefix` and random characters,
/// created exclusively (0700): nobody can have made it first. It is not removed here.
pub fn make_temp(prefix: &str) -> Result<PathBuf, FolderError> {
    let base = std::env::temp_dir();
    tempfile::Builder::new()
        .prefix(prefix)
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(&base)
        .map(tempfile::TempDir::keep)
        .map_err(|source| io(&base, source))
}

fn effective_user() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

fn io(path: &Path, source: std::io::Error) -> FolderError {
    FolderError::Io {
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_plain_name_is_a_folder_name() {
        let root = Path::new("/state/tasks");
        for good in ["t", "agent-7.run_2", "...", ".x"] {
            assert_eq!(named(root, good).ok(), Some(root.join(good)), "{good}");
        }
        for bad in ["", ".", "..", "a/b", "/abs", "../x", "a\0b"] {
            assert!(
                matches!(named(root, bad), Err(FolderError::NotAName { .. })),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn a_folder_is_used_only_when_it_is_a_real_one_of_ours_closed_to_others() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let made = dir.path().join("a/b");
        make_private(&made).expect("made with its parents");
        let mode = std::fs::metadata(&made).expect("made").permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        make_private(&made).expect("an existing folder of ours is fine");

        let target = dir.path().join("target");
        std::fs::create_dir(&target).expect("a folder");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).expect("a link");
        assert!(matches!(make_private(&link), Err(FolderError::Link { .. })));

        let open = dir.path().join("open");
        std::fs::create_dir(&open).expect("a folder");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).expect("chmod");
        assert!(matches!(
            make_private(&open),
            Err(FolderError::OpenToOthers { .. })
        ));

        let file = dir.path().join("file");
        std::fs::write(&file, "x").expect("a file");
        assert!(matches!(
            make_private(&file),
            Err(FolderError::NotAFolder { .. })
        ));
    }

    #[test]
    fn temporary_folders_are_new_private_and_unalike() {
        let first = make_temp("candor-test-").expect("made");
        let second = make_temp("candor-test-").expect("made");
        assert_ne!(first, second);
        let meta = std::fs::symlink_metadata(&first).expect("made");
        assert!(meta.is_dir());
        assert_eq!(meta.permissions().mode() & 0o777, 0o700);
        check_private(&first).expect("ours");
        let _ = std::fs::remove_dir(&first);
        let _ = std::fs::remove_dir(&second);
    }
}
