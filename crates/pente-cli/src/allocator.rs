//! The binary's allocator: mimalloc, which keeps freed tensor memory for
//! reuse (glibc's malloc returned burn's large, short-lived tensors to the
//! system and faulted them in again at every training step). Setting its
//! option is the binary's only `unsafe`.
#![allow(unsafe_code)]

use mimalloc::MiMalloc;

#[global_allocator]
static ALLOCATOR: MiMalloc = MiMalloc;

/// `mi_option_purge_delay` in mimalloc's `mimalloc.h`.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Tells mimalloc never to return freed memory to the system. Its default
/// returns memory idle for a second, and a training step (a second or more
/// on one thread) frees and takes back the same hundreds of megabytes: the
/// kernel faulted in and zeroed about 9 500 pages a step, a fifth of a
/// one-thread step. A `MIMALLOC_PURGE_DELAY` in the environment still wins.
pub(crate) fn keep_freed_memory() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    // SAFETY: `mi_option_set` only stores the option's value, and -1
    // ("never purge") is a documented value of this option.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, -1) }
}
