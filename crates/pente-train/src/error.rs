//! Errors of training, arenas and the loop.
//!
//! Each variant keeps its cause as a source, and its message shows the
//! cause's text too, for callers that print only the top message.

use std::path::{Path, PathBuf};

use pente_core::{Point, ReplayError};
use thiserror::Error;

/// Why training, an arena or the loop stopped.
#[derive(Debug, Error)]
pub enum TrainError {
    /// A bad setting, as a settings check words it.
    #[error("bad config: {0}")]
    Config(String),
    /// A config file that cannot be read.
    #[error("bad config: {path}: {source}")]
    ConfigRead {
        /// The config file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A config file that is not TOML of the settings.
    #[error("bad config: {path}: {source}")]
    ConfigParse {
        /// The config file.
        path: PathBuf,
        /// The parser's error.
        source: toml::de::Error,
    },
    /// A config file whose settings a check refused.
    #[error("bad config: {path}: {message}")]
    ConfigCheck {
        /// The config file.
        path: PathBuf,
        /// The check's message.
        message: String,
    },
    /// A file that cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A state file (`loop.json`, a checkpoint's `trainer.json`) that is not
    /// JSON of its state.
    #[error("{path}: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// The parser's error.
        source: serde_json::Error,
    },
    /// The loop state a store keeps (`run/loop.json`) is not JSON of one.
    #[error("{store}: run/loop.json: {source}")]
    StoreState {
        /// The store, as given.
        store: String,
        /// The parser's error.
        source: serde_json::Error,
    },
    /// A model directory that cannot be read or written.
    #[error("model: {0}")]
    ModelDir(#[from] pente_nn::ModelDirError),
    /// A network the backend cannot load.
    #[error("model: {0}")]
    Load(#[from] pente_search::LoadError),
    /// A checkpoint's optimizer state that cannot be read or written.
    #[error("model: {path}: {source}")]
    Optimizer {
        /// The optimizer file.
        path: PathBuf,
        /// burn's error.
        source: burn::store::RecordError,
    },
    /// A samples file that cannot be read, or a game of it that does not replay.
    #[error("training data: {0}")]
    Data(#[from] pente_dataset::DatasetError),
    /// A directory of samples that cannot be listed.
    #[error("training data: {path}: {source}")]
    SamplesDir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A samples path that is neither a file nor a directory.
    #[error("training data: {path}: no such file or directory")]
    NoSuchSamples {
        /// The path as given.
        path: PathBuf,
    },
    /// Sample files that hold no sample (or no file at all).
    #[error("training data: {}", no_samples(.files))]
    NoSamples {
        /// The files read.
        files: Vec<PathBuf>,
    },
    /// An external program failed.
    #[error("external program: {0}")]
    External(#[from] pente_external::ExternalError),
    /// A player (an external program) made a move our rules refuse.
    #[error("external program: {player} played {point}, which our rules refuse: {source}")]
    RefusedMove {
        /// The player's name.
        player: String,
        /// Its move.
        point: Point,
        /// Why the rules refuse it.
        source: ReplayError,
    },
    /// An arena's records file holds games of another match, or broken ones.
    #[error("{path} line {line}: {message}")]
    Resume {
        /// The records file.
        path: PathBuf,
        /// The game's line (1-based).
        line: usize,
        /// What is wrong with the game.
        message: String,
    },
    /// An arena's records file has a line that is not a game.
    #[error("{path}: {source}")]
    ResumeParse {
        /// The records file.
        path: PathBuf,
        /// The parser's error, naming the line.
        source: pente_records::ParseError,
    },
    /// A game of an arena's records file that does not replay.
    #[error("{path} line {line}: game {game}: {source}")]
    ResumeMove {
        /// The records file.
        path: PathBuf,
        /// The game's line (1-based).
        line: usize,
        /// The game's id.
        game: u64,
        /// The move that does not replay.
        source: ReplayError,
    },
    /// A self-play stage failed.
    #[error(transparent)]
    SelfPlay(#[from] pente_selfplay::SelfPlayError),
    /// The store of a distributed run failed.
    #[error(transparent)]
    Store(#[from] pente_store::StoreError),
}

/// The message of [`TrainError::NoSamples`].
fn no_samples(files: &[PathBuf]) -> String {
    if files.is_empty() {
        return "no samples.bin files found".into();
    }
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    format!("no training samples in {}", names.join(", "))
}

/// Wraps an I/O error with its path.
pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> TrainError + '_ {
    move |source| TrainError::Io { path: path.to_path_buf(), source }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    /// The message names the file and shows the cause, which stays
    /// reachable as the source for a chain printer.
    #[test]
    fn an_io_error_names_its_file_and_keeps_its_cause() {
        let cause = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        let error = io(Path::new("runs/ci/loop.json"))(cause);
        assert_eq!(error.to_string(), "runs/ci/loop.json: gone");
        assert_eq!(error.source().map(ToString::to_string).as_deref(), Some("gone"));
    }

    #[test]
    fn no_samples_names_the_files_read() {
        assert_eq!(TrainError::NoSamples { files: vec![] }.to_string(), "training data: no samples.bin files found");
        let files = vec![PathBuf::from("a/samples.bin"), PathBuf::from("b/samples.bin")];
        assert_eq!(
            TrainError::NoSamples { files }.to_string(),
            "training data: no training samples in a/samples.bin, b/samples.bin"
        );
    }
}
