//! What can go wrong with a store.

use std::path::Path;

/// An error of a store, naming the file, object or setting concerned.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The store's address cannot be used.
    #[error("store {spec}: {message}")]
    Spec {
        /// The address as given.
        spec: String,
        /// Why.
        message: String,
    },
    /// A local file could not be read or written.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The system's reason.
        message: String,
    },
    /// A request to the object store failed.
    #[error("{url}: {message}")]
    Object {
        /// The object.
        url: String,
        /// The store's reason.
        message: String,
    },
    /// The store holds something it should not.
    #[error("{key}: {message}")]
    Corrupt {
        /// The object.
        key: String,
        /// What is wrong with it.
        message: String,
    },
    /// A name that cannot be part of a key.
    #[error("{0}")]
    Name(String),
}

impl StoreError {
    /// Maps an I/O error on `path`.
    pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
        move |e| StoreError::Io { path: path.display().to_string(), message: e.to_string() }
    }
}
