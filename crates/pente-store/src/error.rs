//! What can go wrong with a store.

use std::path::{Path, PathBuf};

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
    /// The store's address is not a URL.
    #[error("store {spec}: {source}")]
    Address {
        /// The address as given.
        spec: String,
        /// Why it does not parse.
        source: url::ParseError,
    },
    /// `object_store` cannot make a store of the address.
    #[error("store {spec}: {source}")]
    Connect {
        /// The address as given.
        spec: String,
        /// The store's reason.
        source: object_store::Error,
    },
    /// The runtime that drives an object store's requests did not start.
    #[error("store {spec}: starting the I/O runtime: {source}")]
    Runtime {
        /// The address as given.
        spec: String,
        /// The system's reason.
        source: std::io::Error,
    },
    /// A local file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// A request to the object store failed.
    #[error("{url}: {source}")]
    Object {
        /// The object.
        url: String,
        /// The store's reason.
        source: object_store::Error,
    },
    /// The store holds something it should not.
    #[error("{key}: {message}")]
    Corrupt {
        /// The object.
        key: String,
        /// What is wrong with it.
        message: String,
    },
    /// An object that should be JSON the store wrote does not read as such.
    #[error("{key}: {source}")]
    BadJson {
        /// The object.
        key: String,
        /// What serde_json says.
        source: serde_json::Error,
    },
    /// An object that should be text is not UTF-8.
    #[error("{key}: {source}")]
    NotText {
        /// The object.
        key: String,
        /// Where the text breaks.
        source: std::string::FromUtf8Error,
    },
    /// A name that cannot be part of a key.
    #[error("{0}")]
    Name(String),
}

impl StoreError {
    /// Maps an I/O error on `path`.
    pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
        move |source| StoreError::Io { path: path.to_path_buf(), source }
    }
}
