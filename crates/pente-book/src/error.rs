//! What can go wrong with a book.

use std::path::PathBuf;

use thiserror::Error;

/// A book error.
#[derive(Debug, Error)]
pub enum BookError {
    /// The SQLite file could not be opened, read or written.
    #[error("{path}: {source}")]
    Sqlite {
        /// The book.
        path: PathBuf,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// The file is not a book of this format.
    #[error("{path}: {reason}")]
    Format {
        /// The book.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// Settings that cannot build a book.
    #[error("{path}: {reason}")]
    Settings {
        /// The settings file (or the book holding them).
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A move sequence the rules refuse.
    #[error("{moves}: move {number} is illegal: {reason}")]
    IllegalMove {
        /// The sequence.
        moves: String,
        /// Its 1-based number.
        number: usize,
        /// The rules' reason.
        reason: String,
    },
    /// A move list that does not parse.
    #[error("{0}")]
    MoveList(String),
    /// The evaluator could not be made for a worker.
    #[error("loading the player: {0}")]
    Player(String),
    /// The store of a shared build failed.
    #[error(transparent)]
    Store(#[from] pente_store::StoreError),
    /// A shared build that cannot go on (a bad task, a bad batch size).
    #[error("{0}")]
    Shared(String),
    /// A worker thread could not be started.
    #[error("starting the workers: {0}")]
    Threads(String),
}

impl BookError {
    /// Wraps a SQLite error with the book's path.
    pub(crate) fn sqlite(path: &std::path::Path) -> impl FnOnce(rusqlite::Error) -> BookError + '_ {
        move |source| BookError::Sqlite { path: path.to_path_buf(), source }
    }
}
