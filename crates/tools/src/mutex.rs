//! The one way a mutex of the engine's is taken: a lock poisoned by a panic elsewhere is
//! still the state to work with (each holder leaves it whole between statements), so a
//! task is not lost to one failed command.

use std::sync::{Mutex, MutexGuard};

/// `mutex` locked, poisoned or not.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
