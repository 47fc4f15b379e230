//! A window of samples held as games, its columns made on demand: batches
//! for a training loop without the input planes of every sample in memory
//! (26 planes of a 19x19 sample are 37 KB; its game's share is a few bytes).

use std::path::PathBuf;

use pente_core::{Game, Position};
use pente_features::Features;
use pente_records::GameSamples;
use rayon::prelude::*;

use crate::columns::fill_game;
use crate::{Columns, DatasetError, ReadOptions, SampleArrays, SampleChunks};

/// The newest samples of some files, one board size, as `pente train`'s
/// replay window holds them.
pub struct SampleWindow {
    size: u8,
    games: Vec<GameSamples>,
    /// Each game's last position (the auxiliary targets).
    finals: Vec<Position>,
    /// Every sample in the window: its game and its index there, oldest first.
    index: Vec<(u32, u32)>,
}

impl SampleWindow {
    /// Reads `paths` in order and keeps the newest `window` samples (whole
    /// games, the oldest game's first samples dropped); `options.features`
    /// is ignored (planes are asked for per batch).
    ///
    /// # Errors
    /// The first file that does not read, or a game that does not replay.
    pub fn load(paths: &[PathBuf], options: ReadOptions, window: usize) -> Result<SampleWindow, DatasetError> {
        let mut games = Vec::new();
        let mut finals = Vec::new();
        let mut size = options.size;
        for path in paths {
            let mut chunks = SampleChunks::open(path, ReadOptions { features: None, ..options })?;
            // The first file's size holds for the others: another is an error, as within a file.
            chunks.size = size;
            let read = chunks.next_games(usize::MAX)?;
            size = chunks.size();
            let ends = read
                .par_iter()
                .map(|game| {
                    Game::from_moves(game.rules, game.moves.iter().copied())
                        .map(|g| g.position().clone())
                        .map_err(|source| DatasetError::Replay { path: path.clone(), game: game.game_id, source })
                })
                .collect::<Result<Vec<_>, _>>()?;
            games.extend(read);
            finals.extend(ends);
        }
        let total: usize = games.iter().map(|g| g.samples.len()).sum();
        let mut skip = total.saturating_sub(window);
        // Whole games older than the window go; the oldest kept may lose its first samples.
        let mut old = 0;
        while games.get(old).is_some_and(|g| g.samples.len() <= skip) {
            skip -= games[old].samples.len();
            old += 1;
        }
        games.drain(..old);
        finals.drain(..old);
        let index = games
            .iter()
            .enumerate()
            .flat_map(|(g, game)| (0..game.samples.len()).map(move |s| (g as u32, s as u32)))
            .skip(skip)
            .collect();
        Ok(SampleWindow { size: size.unwrap_or(pente_core::MAX_SIZE), games, finals, index })
    }

    /// Samples in the window.
    #[must_use]
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether it holds none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The board side of its samples.
    #[must_use]
    pub fn size(&self) -> u8 {
        self.size
    }

    /// The `columns` of the samples at `indices` (each below [`len`](Self::len);
    /// repeats allowed), replayed and encoded in parallel.
    ///
    /// # Panics
    /// If an index is out of range.
    #[must_use]
    pub fn columns(&self, indices: &[usize], columns: Columns, features: Option<Features>) -> SampleArrays {
        let samples = indices.iter().map(|&i| {
            let (g, s) = self.index[i];
            &self.games[g as usize].samples[s as usize]
        });
        let mut arrays = SampleArrays::allocate(self.size, samples, columns, features);
        let rows = arrays.rows_by_game(&vec![1; indices.len()]);
        rows.into_par_iter().zip(indices).for_each(|(mut rows, &i)| {
            let (g, s) = self.index[i];
            let g = g as usize;
            fill_game(&self.games[g], &[s as usize], Some(&self.finals[g]), &mut rows)
                .expect("every game replayed when the window was loaded");
        });
        arrays
    }
}
