//! Helpers for writing to stdout.

use std::io;

/// Whether `error` comes from writing to a closed pipe (`pente ... | head`),
/// which is not a failure.
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| cause.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe))
}
