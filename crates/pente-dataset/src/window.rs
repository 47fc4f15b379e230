//! A window of samples held as games, as `pente train`'s replay window holds
//! them: a few bytes a sample, where 26 input planes of a 19x19 sample are
//! 37 KB. The trainer draws its batches from it; Python gets the columns of
//! a batch on demand.

use std::path::PathBuf;

use pente_core::{Game, Position};
use pente_features::Features;
use pente_records::{GameSamples, PositionSample};
use rayon::prelude::*;

use crate::columns::fill_game;
use crate::{Columns, DatasetError, ReadOptions, SampleArrays, SampleChunks};

/// The newest samples of some files.
pub struct SampleWindow {
    games: Vec<GameSamples>,
    /// Each game's last position (the auxiliary targets).
    finals: Vec<Position>,
    /// Every sample in the window: its game and its index there, oldest first.
    index: Vec<(u32, u32)>,
    /// Positions in `index` by board size, the sizes in order of appearance.
    by_size: Vec<(u8, Vec<u32>)>,
}

/// One sample of a window, with its game and the game's last position.
#[derive(Debug, Clone, Copy)]
pub struct WindowSample<'a> {
    /// The game.
    pub game: &'a GameSamples,
    /// The sample: its ply and policy target.
    pub sample: &'a PositionSample,
    /// The game's last position.
    pub last: &'a Position,
}

impl SampleWindow {
    /// Reads `paths` in order (later files are newer) and keeps the newest
    /// `window(total)` samples, `total` being the samples the files hold:
    /// whole games, the oldest kept game losing its first samples. Every
    /// board size is kept unless `options.size` picks one; every game is
    /// replayed once, so that a sample's replay cannot fail later.
    /// `options.features` and `options.columns` are for [`Self::columns`]'s
    /// callers to choose per batch, and are not read here.
    ///
    /// # Errors
    /// The first file that does not read, or a game that does not replay.
    pub fn load(
        paths: &[PathBuf],
        options: ReadOptions,
        window: impl FnOnce(u64) -> usize,
    ) -> Result<SampleWindow, DatasetError> {
        let mut games = Vec::new();
        let mut finals = Vec::new();
        for path in paths {
            let mut chunks = SampleChunks::open(path, options)?;
            chunks.mixed_sizes = options.size.is_none();
            let read = chunks.next_games(usize::MAX)?;
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
        let mut skip = total.saturating_sub(window(total as u64));
        // Whole games older than the window go; the oldest kept may lose its first samples.
        let mut old = 0;
        while games.get(old).is_some_and(|g| g.samples.len() <= skip) {
            skip -= games[old].samples.len();
            old += 1;
        }
        games.drain(..old);
        finals.drain(..old);
        let index: Vec<(u32, u32)> = games
            .iter()
            .enumerate()
            .flat_map(|(g, game)| (0..game.samples.len()).map(move |s| (g as u32, s as u32)))
            .skip(skip)
            .collect();
        let mut by_size: Vec<(u8, Vec<u32>)> = Vec::new();
        for (i, &(g, _)) in index.iter().enumerate() {
            let size = games[g as usize].rules.size();
            match by_size.iter_mut().find(|(s, _)| *s == size) {
                Some((_, list)) => list.push(i as u32),
                None => by_size.push((size, vec![i as u32])),
            }
        }
        Ok(SampleWindow { games, finals, index, by_size })
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

    /// The board sizes of its samples, each with the positions of its
    /// samples in the window, in order of first appearance.
    #[must_use]
    pub fn sizes(&self) -> &[(u8, Vec<u32>)] {
        &self.by_size
    }

    /// Sample `i` (below [`len`](Self::len)).
    ///
    /// # Panics
    /// If `i` is out of range.
    #[must_use]
    pub fn sample(&self, i: usize) -> WindowSample<'_> {
        let (g, s) = self.index[i];
        let game = &self.games[g as usize];
        WindowSample { game, sample: &game.samples[s as usize], last: &self.finals[g as usize] }
    }

    /// The `columns` of the samples at `indices` (repeats allowed), all on
    /// one board size, replayed and encoded in parallel.
    ///
    /// # Panics
    /// If an index is out of range, or the samples are on two board sizes.
    #[must_use]
    pub fn columns(&self, indices: &[usize], columns: Columns, features: Option<Features>) -> SampleArrays {
        let size = indices.first().map_or(pente_core::MAX_SIZE, |&i| self.sample(i).game.rules.size());
        assert!(indices.iter().all(|&i| self.sample(i).game.rules.size() == size), "one board size per batch");
        let samples = indices.iter().map(|&i| self.sample(i).sample);
        let mut arrays = SampleArrays::allocate(size, indices.len(), samples, columns, features);
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
