//! Training samples as columns of arrays: every sample's position, the
//! targets `pente train` derives from its game (policy, value, the
//! opponent's reply, the last position) and, on request, its input planes.
//! The Python package hands these columns to NumPy without a copy;
//! `pente export samples --format npz` writes them as a NumPy `.npz`.
//!
//! Files are read in chunks of whole games ([`SampleChunks`]), so a file
//! larger than memory streams; positions are replayed in parallel.

use std::path::PathBuf;

use pente_core::{Color, Point, Position, ReplayError};
use pente_features::Features;
use pente_records::SamplesError;
use thiserror::Error;

mod chunks;
mod columns;
mod window;

pub use chunks::SampleChunks;
pub use columns::{Columns, Policy, SampleArrays};
pub use window::{SampleWindow, WindowSample};

/// A samples file that cannot be read into columns, naming the file.
#[derive(Debug, Error)]
pub enum DatasetError {
    /// The file does not open.
    #[error("{}: {source}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a samples file, is cut short, or is corrupt.
    #[error("{}: {source}", path.display())]
    Samples {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where.
        source: SamplesError,
    },
    /// Games on two board sizes where one was expected.
    #[error(
        "{}: byte {offset}: game {game} is on a {size}x{size} board, the file's first on {first}x{first}: \
         read one size at a time (`--size` of pente export, `size=` in Python)",
        path.display()
    )]
    MixedSizes {
        /// The file.
        path: PathBuf,
        /// Where the game's chunk starts.
        offset: u64,
        /// Its id.
        game: u64,
        /// Its size.
        size: u8,
        /// The first game's size.
        first: u8,
    },
    /// A game whose moves do not replay.
    #[error("{}: game {game}: {source}", path.display())]
    Replay {
        /// The file.
        path: PathBuf,
        /// The game's id.
        game: u64,
        /// The illegal move.
        source: ReplayError,
    },
}

/// What to read of a samples file.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOptions {
    /// The input planes to encode, if any.
    pub features: Option<Features>,
    /// Only games on this board size (the others are skipped); `None`: the
    /// first game's, and another size is [`DatasetError::MixedSizes`].
    pub size: Option<u8>,
    /// Whether a last game cut short (a writer killed mid-game) ends the
    /// file quietly instead of being an error.
    pub allow_truncated: bool,
    /// Which of the large columns to build.
    pub columns: Columns,
}

/// The dense index of a board point, -1 for a colour choice.
#[must_use]
pub fn dense_or_minus_one(point: Point, size: u8) -> i32 {
    if point.is_choice() { -1 } else { point.dense_index(size) as i32 }
}

/// A colour in the columns: 1 White, -1 Black.
#[must_use]
pub fn color_code(color: Color) -> i8 {
    if color == Color::White { 1 } else { -1 }
}

/// Writes the stones of `position` (1 White, -1 Black) into `out`, `area` long.
pub fn fill_board(position: &Position, out: &mut [i8]) {
    let size = position.rules().size();
    for (i, cell) in out.iter_mut().enumerate() {
        let p = Point::from_dense_index(i, size).expect("a point of the board");
        *cell = position.stone_at(p).map_or(0, color_code);
    }
}
