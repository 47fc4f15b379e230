//! Errors of a self-play run.

use std::path::PathBuf;

use thiserror::Error;

/// Why a self-play run could not start or go on.
#[derive(Debug, Error)]
pub enum SelfPlayError {
    /// A bad config file or setting.
    #[error("{path}: {source}")]
    Config {
        /// The config file.
        path: PathBuf,
        /// What is wrong.
        source: crate::config::ConfigError,
    },
    /// An output file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The output directory holds something this run cannot continue.
    #[error("{path}: {message}")]
    Output {
        /// The file or directory.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A samples file that does not decode.
    #[error("{path}: {source}")]
    Samples {
        /// The file.
        path: PathBuf,
        /// The decoder's error.
        source: pente_records::SamplesError,
    },
    /// The last game of `games.jsonl` does not parse (a write cut short).
    #[error("{path}: the last game does not parse ({source}); move the file away to start over")]
    LastGame {
        /// The file.
        path: PathBuf,
        /// The parser's error.
        source: serde_json::Error,
    },
    /// The model's metadata (`model.json`) cannot be read.
    #[error("reading the model: {0}")]
    ModelInfo(#[from] pente_nn::ModelDirError),
    /// The evaluator could not be built (e.g. a broken model directory).
    #[error("loading the model: {0}")]
    Model(#[from] pente_search::LoadError),
    /// A worker's thread pool did not start.
    #[error("starting a worker thread pool: {0}")]
    ThreadPool(#[from] rayon::ThreadPoolBuildError),
    /// The store of a distributed run failed.
    #[error(transparent)]
    Store(#[from] pente_store::StoreError),
}

/// Wraps an I/O error with its path.
pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> SelfPlayError + '_ {
    move |source| SelfPlayError::Io { path: path.to_path_buf(), source }
}
