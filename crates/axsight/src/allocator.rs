//! How the long-running server's allocator treats big buffers. One message can be
//! megabytes; glibc's malloc raises its mmap threshold each time such a buffer is
//! freed, so the next ones come from the heap and stay in the process once freed
//! (measured: about 8 MB more after ten 3 MB lines, for good). A fixed threshold
//! keeps every buffer of 128 KiB or more in a mapping of its own, which goes back
//! to the system when it is freed. Nothing else about allocation is changed here.

/// glibc's own default threshold, fixed instead of raised.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 128 * 1024;

/// Makes freed big buffers go back to the system (glibc only; elsewhere nothing).
pub fn return_big_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallopt only sets a parameter of glibc's malloc, which takes its
        // own lock; it touches no memory of ours.
        let done = unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD) };
        if done != 1 {
            tracing::debug!("mallopt(M_MMAP_THRESHOLD) was refused");
        }
    }
}
