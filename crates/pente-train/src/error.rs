//! Errors of training, arenas and the loop.

use thiserror::Error;

/// Why training, an arena or the loop stopped.
#[derive(Debug, Error)]
pub enum TrainError {
    /// A bad setting.
    #[error("bad config: {0}")]
    Config(String),
    /// Training data that cannot be used.
    #[error("training data: {0}")]
    Data(String),
    /// A model that cannot be loaded or saved.
    #[error("model: {0}")]
    Model(String),
    /// A file that cannot be read or written.
    #[error("{0}")]
    Io(String),
    /// An arena's records file holds games of another match, or broken ones.
    #[error("{0}")]
    Resume(String),
    /// An external program failed or disagreed with our rules.
    #[error("external program: {0}")]
    External(String),
    /// A self-play stage failed.
    #[error(transparent)]
    SelfPlay(#[from] pente_selfplay::SelfPlayError),
    /// The store of a distributed run failed.
    #[error(transparent)]
    Store(#[from] pente_store::StoreError),
}
