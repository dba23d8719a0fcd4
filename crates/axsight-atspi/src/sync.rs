//! Locking shared state that a panic elsewhere must not make unreadable: the
//! engine's caches are plain data, always whole between two statements.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex, taking the data even if a panic elsewhere poisoned it.
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
