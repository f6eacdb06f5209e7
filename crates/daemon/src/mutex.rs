//! Locking the daemon's shared state.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, taking the data even if a thread panicked while holding it: the state
/// behind it is plain data that a panic leaves consistent, and one failed request must
/// not make every later one fail.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
