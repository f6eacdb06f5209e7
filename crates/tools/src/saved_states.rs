//! Saved states on disk (docs/security.md#saved-state): `states/NAME.json` in candor's
//! state directory, the folder 0700 and each file 0600, sealed when a key is configured
//! (config `stateKey`). The `state` tool reads and writes them through [`Store`]; nothing
//! else does, and no value of a state ever leaves this module but into the browser.
//!
//! A name is one plain file name (letters, digits, `-`, `_`, `.`, not starting with a
//! dot, at most 100 characters), refused otherwise, never cleaned up. A file is written
//! beside its final name and renamed over it, so a state is whole or absent.
//!
//! Sealing: ChaCha20-Poly1305 (an AEAD: a wrong key or a changed byte fails to open, it
//! never reads as other values) under a key derived from the configured text by Argon2id
//! with a random salt per file. Argon2id rather than HKDF because the configured text is
//! a passphrase a person chose, not a random key: guessing it from a stolen file must
//! cost memory and time, and HKDF adds neither.

use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use chacha20poly1305::aead::Aead as _;
use chacha20poly1305::{ChaCha20Poly1305, KeyInit as _, Nonce};
use serde::{Deserialize, Serialize};

use crate::error::{Code, ToolError};
use crate::folders;

/// Where saved states live and the key that seals them (config `stateKey`).
#[derive(Debug, Clone, Default)]
pub struct SavedStates {
    /// `states/` in the state directory; `None`: the `state` tool has nowhere to keep them.
    pub dir: Option<PathBuf>,
    pub key: Option<StateKey>,
}

/// The configured key text; never shown by `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct StateKey(pub String);

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StateKey([set])")
    }
}

/// A state as saved: the task's cookies and its origins' storage.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Saved {
    /// Milliseconds since the Unix epoch.
    pub saved_at: u64,
    pub cookies: Vec<SavedCookie>,
    pub origins: Vec<SavedOrigin>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct SavedCookie {
    pub name: String,
    pub value: String,
    pub domain: String,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<f64>,
    pub http_only: bool,
    pub secure: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_site: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct SavedOrigin {
    pub origin: String,
    pub local_storage: Vec<(String, String)>,
    pub session_storage: Vec<(String, String)>,
}

impl From<browser::Cookie> for SavedCookie {
    fn from(c: browser::Cookie) -> Self {
        SavedCookie {
            name: c.name,
            value: c.value,
            domain: c.domain,
            path: c.path,
            expires: c.expires,
            http_only: c.http_only,
            secure: c.secure,
            same_site: c.same_site,
        }
    }
}

impl From<&SavedCookie> for browser::Cookie {
    fn from(c: &SavedCookie) -> Self {
        browser::Cookie {
            name: c.name.clone(),
            value: c.value.clone(),
            domain: c.domain.clone(),
            path: c.path.clone(),
            expires: c.expires,
            http_only: c.http_only,
            secure: c.secure,
            same_site: c.same_site.clone(),
        }
    }
}

impl From<browser::OriginStorage> for SavedOrigin {
    fn from(o: browser::OriginStorage) -> Self {
        SavedOrigin {
            origin: o.origin,
            local_storage: o.local,
            session_storage: o.session,
        }
    }
}

impl From<&SavedOrigin> for browser::OriginStorage {
    fn from(o: &SavedOrigin) -> Self {
        browser::OriginStorage {
            origin: o.origin.clone(),
            local: o.local_storage.clone(),
            session: o.session_storage.clone(),
        }
    }
}

/// A state in the folder, as `list` shows it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Listed {
    pub name: String,
    pub encrypted: bool,
    /// When it was last written, in milliseconds since the Unix epoch.
    pub modified: u64,
}

/// The file: a version, and the state in clear or sealed.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StateFile {
    candor_state: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    state: Option<Saved>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sealed: Option<Sealed>,
}

/// A sealed state: what opens it (the KDF's salt, the AEAD's nonce) and the ciphertext,
/// each in hex.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Sealed {
    kdf: String,
    cipher: String,
    salt: String,
    nonce: String,
    data: String,
}

const VERSION: u32 = 1;
const KDF: &str = "argon2id";
const CIPHER: &str = "chacha20poly1305";

/// The saved states of one folder, opened with one key.
#[derive(Debug)]
pub(crate) struct Store<'a> {
    dir: &'a Path,
    key: Option<&'a StateKey>,
}

impl<'a> Store<'a> {
    /// The store the configuration names; none configured is `INVALID_PARAMS`.
    pub fn of(config: &'a SavedStates) -> Result<Self, ToolError> {
        let dir = config.dir.as_deref().ok_or_else(|| {
            ToolError::invalid_params("saved states need a state directory, and none is set")
        })?;
        Ok(Store {
            dir,
            key: config.key.as_ref(),
        })
    }

    /// Writes `saved` as `name` (replacing one of that name); the file's path, and
    /// whether it is sealed.
    pub fn save(&self, name: &str, saved: &Saved) -> Result<(PathBuf, bool), ToolError> {
        let path = self.path(name)?;
        folders::make_private(self.dir).map_err(|e| write_failed(self.dir, &e.to_string()))?;
        let file = match self.key {
            Some(key) => StateFile {
                candor_state: VERSION,
                state: None,
                sealed: Some(seal(key, saved)?),
            },
            None => StateFile {
                candor_state: VERSION,
                state: Some(saved.clone()),
                sealed: None,
            },
        };
        let bytes =
            serde_json::to_vec_pretty(&file).map_err(|e| write_failed(&path, &e.to_string()))?;
        let mut nonce = [0u8; 8];
        random(&mut nonce)?;
        let temporary = self.dir.join(format!(".{name}.{}.tmp", hex(&nonce)));
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temporary)
            .and_then(|mut f| f.write_all(&bytes).and_then(|()| f.sync_all()))
            .and_then(|()| std::fs::rename(&temporary, &path));
        if let Err(err) = written {
            let _ = std::fs::remove_file(&temporary);
            return Err(write_failed(&path, &err.to_string()));
        }
        Ok((path, self.key.is_some()))
    }

    /// The state saved as `name`, and whether it was sealed.
    pub fn load(&self, name: &str) -> Result<(Saved, bool), ToolError> {
        let path = self.path(name)?;
        let bytes = std::fs::read(&path).map_err(|err| match err.kind() {
            std::io::ErrorKind::NotFound => not_found(name),
            _ => unreadable(name, &err.to_string()),
        })?;
        let file: StateFile =
            serde_json::from_slice(&bytes).map_err(|e| unreadable(name, &e.to_string()))?;
        if file.candor_state != VERSION {
            return Err(unreadable(
                name,
                &format!("it is of version {}", file.candor_state),
            ));
        }
        match (file.state, file.sealed) {
            (Some(saved), None) => Ok((saved, false)),
            (None, Some(sealed)) => {
                let key = self.key.ok_or_else(|| {
                    ToolError::new(
                        Code::StateKeyMissing,
                        format!("saved state {name:?} is encrypted, and no state key is set"),
                        "set the key it was saved with (config stateKey, or CANDOR_STATE_KEY)",
                    )
                })?;
                Ok((open(name, key, &sealed)?, true))
            }
            _ => Err(unreadable(
                name,
                "it holds neither a state nor a sealed one",
            )),
        }
    }

    /// Every saved state, by name.
    pub fn list(&self) -> Result<Vec<Listed>, ToolError> {
        let entries = match std::fs::read_dir(self.dir) {
            Ok(entries) => entries,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(err) => return Err(unreadable_dir(self.dir, &err.to_string())),
        };
        let mut listed = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| unreadable_dir(self.dir, &e.to_string()))?;
            let file_name = entry.file_name();
            let Some(name) = file_name
                .to_str()
                .and_then(|n| n.strip_suffix(".json"))
                .filter(|n| check_name(n).is_ok())
            else {
                continue;
            };
            let modified = entry
                .metadata()
                .and_then(|m| m.modified())
                .map(crate::journal::epoch_ms)
                .unwrap_or_default();
            let encrypted = std::fs::read(entry.path())
                .ok()
                .and_then(|bytes| serde_json::from_slice::<StateFile>(&bytes).ok())
                .is_some_and(|file| file.sealed.is_some());
            listed.push(Listed {
                name: name.to_string(),
                encrypted,
                modified,
            });
        }
        listed.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(listed)
    }

    /// Removes the state saved as `name`.
    pub fn delete(&self, name: &str) -> Result<(), ToolError> {
        let path = self.path(name)?;
        std::fs::remove_file(&path).map_err(|err| match err.kind() {
            std::io::ErrorKind::NotFound => not_found(name),
            _ => write_failed(&path, &err.to_string()),
        })
    }

    fn path(&self, name: &str) -> Result<PathBuf, ToolError> {
        check_name(name)?;
        folders::named(self.dir, &format!("{name}.json"))
            .map_err(|e| ToolError::invalid_params(e.to_string()))
    }
}

/// Whether `name` may name a saved state (see the module's comment); `INVALID_PARAMS`
/// otherwise.
pub(crate) fn check_name(name: &str) -> Result<(), ToolError> {
    let plain = !name.is_empty()
        && name.len() <= 100
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if plain {
        Ok(())
    } else {
        Err(ToolError::invalid_params(format!(
            "{name:?} is not a state name: use letters, digits, -, _ and . (not first), at most 100"
        )))
    }
}

fn seal(key: &StateKey, saved: &Saved) -> Result<Sealed, ToolError> {
    let mut salt = [0u8; 16];
    let mut nonce = [0u8; 12];
    random(&mut salt)?;
    random(&mut nonce)?;
    let plain = serde_json::to_vec(saved)
        .map_err(|e| ToolError::invalid_params(format!("the state cannot be encoded: {e}")))?;
    let cipher = ChaCha20Poly1305::new(&derive(key, &salt)?.into());
    let data = cipher
        .encrypt(Nonce::from_slice(&nonce), plain.as_slice())
        .map_err(|_| ToolError::invalid_params("the state could not be encrypted"))?;
    Ok(Sealed {
        kdf: KDF.into(),
        cipher: CIPHER.into(),
        salt: hex(&salt),
        nonce: hex(&nonce),
        data: hex(&data),
    })
}

fn open(name: &str, key: &StateKey, sealed: &Sealed) -> Result<Saved, ToolError> {
    if sealed.kdf != KDF || sealed.cipher != CIPHER {
        return Err(unreadable(
            name,
            &format!("it is sealed with {} and {}", sealed.kdf, sealed.cipher),
        ));
    }
    let bad = || unreadable(name, "its sealed parts are not hex of the right length");
    let salt = unhex(&sealed.salt).ok_or_else(bad)?;
    let nonce = unhex(&sealed.nonce)
        .filter(|n| n.len() == 12)
        .ok_or_else(bad)?;
    let data = unhex(&sealed.data).ok_or_else(bad)?;
    let cipher = ChaCha20Poly1305::new(&derive(key, &salt)?.into());
    let plain = cipher
        .decrypt(Nonce::from_slice(&nonce), data.as_slice())
        .map_err(|_| {
            ToolError::new(
                Code::StateKeyMismatch,
                format!(
                    "saved state {name:?} does not open with the state key set: another key sealed it, or the file was changed"
                ),
                "set the key it was saved with, or save the state again",
            )
        })?;
    serde_json::from_slice(&plain).map_err(|e| unreadable(name, &e.to_string()))
}

/// The 256-bit key of `key`'s text and `salt` (Argon2id, its default costs).
fn derive(key: &StateKey, salt: &[u8]) -> Result<[u8; 32], ToolError> {
    let mut out = [0u8; 32];
    argon2::Argon2::default()
        .hash_password_into(key.0.as_bytes(), salt, &mut out)
        .map_err(|e| ToolError::invalid_params(format!("the state key cannot be used: {e}")))?;
    Ok(out)
}

fn random(buf: &mut [u8]) -> Result<(), ToolError> {
    getrandom::fill(buf).map_err(|e| {
        ToolError::new(
            Code::WriteFailed,
            format!("no random bytes for a saved state: {e}"),
            "call again",
        )
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

fn not_found(name: &str) -> ToolError {
    ToolError::new(
        Code::StateNotFound,
        format!("there is no saved state {name:?}"),
        "state {action:\"list\"} lists them",
    )
}

fn unreadable(name: &str, why: &str) -> ToolError {
    ToolError::invalid_params(format!("saved state {name:?} cannot be read: {why}"))
}

fn unreadable_dir(dir: &Path, why: &str) -> ToolError {
    ToolError::invalid_params(format!("{} cannot be read: {why}", dir.display()))
}

fn write_failed(path: &Path, why: &str) -> ToolError {
    ToolError::new(
        Code::WriteFailed,
        format!("{} could not be written: {why}", path.display()),
        "check the state directory is this user's and has room, then call again",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    fn saved() -> Saved {
        Saved {
            saved_at: 1,
            cookies: vec![SavedCookie {
                name: "sid".into(),
                value: "cookie-value-Zq81".into(),
                domain: "127.0.0.1".into(),
                path: "/".into(),
                expires: None,
                http_only: true,
                secure: false,
                same_site: None,
            }],
            origins: vec![SavedOrigin {
                origin: "http://127.0.0.1:9".into(),
                local_storage: vec![("user".into(), "local-value-Pw42".into())],
                session_storage: Vec::new(),
            }],
        }
    }

    fn store(dir: &Path, key: Option<&str>) -> SavedStates {
        SavedStates {
            dir: Some(dir.join("states")),
            key: key.map(|k| StateKey(k.into())),
        }
    }

    #[test]
    fn only_plain_names_name_a_state() {
        for good in ["shop", "a.b-c_1", "X"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["", ".", "..", ".hidden", "a/b", "../x", "a\\b", "a b", "é"] {
            let err = check_name(bad).expect_err(bad);
            assert_eq!(err.code, Code::InvalidParams, "{bad}");
        }
        assert!(check_name(&"x".repeat(101)).is_err());
    }

    #[test]
    fn a_sealed_state_holds_no_value_in_clear_and_opens_only_with_its_key() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let config = store(dir.path(), Some("correct horse"));
        let (path, sealed) = Store::of(&config)
            .and_then(|s| s.save("shop", &saved()))
            .expect("saved");
        assert!(sealed);
        let bytes = std::fs::read(&path).expect("written");
        let text = String::from_utf8_lossy(&bytes);
        for secret in ["cookie-value-Zq81", "local-value-Pw42", "sid", "127.0.0.1"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        let mode = |p: &Path| std::fs::metadata(p).expect("there").permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir.path().join("states")), 0o700);

        let (back, was_sealed) = Store::of(&config)
            .and_then(|s| s.load("shop"))
            .expect("opened");
        assert!(was_sealed);
        assert_eq!(back.cookies[0].value, "cookie-value-Zq81");

        let wrong = store(dir.path(), Some("wrong horse"));
        let err = Store::of(&wrong)
            .and_then(|s| s.load("shop"))
            .expect_err("a wrong key");
        assert_eq!(err.code, Code::StateKeyMismatch);
        let none = store(dir.path(), None);
        let err = Store::of(&none)
            .and_then(|s| s.load("shop"))
            .expect_err("no key");
        assert_eq!(err.code, Code::StateKeyMissing);
    }

    #[test]
    fn list_and_delete_see_saved_states_and_a_missing_one_is_named() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let config = store(dir.path(), None);
        let states = Store::of(&config).expect("a store");
        assert!(states.list().expect("listed").is_empty());
        states.save("b", &saved()).expect("saved");
        states.save("a", &saved()).expect("saved");
        let names: Vec<_> = states
            .list()
            .expect("listed")
            .into_iter()
            .map(|l| (l.name, l.encrypted))
            .collect();
        assert_eq!(names, [("a".into(), false), ("b".to_string(), false)]);
        states.delete("a").expect("deleted");
        assert_eq!(states.list().expect("listed").len(), 1);
        for err in [
            states.delete("a").expect_err("gone"),
            states.load("a").expect_err("gone"),
        ] {
            assert_eq!(err.code, Code::StateNotFound);
        }
    }
}
