//! The replay window: the most recent training samples of one or more
//! `samples.bin` files, and random augmented batches drawn from it.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pente_core::{Color, Game, Point, Position, Symmetry};
use pente_records::{GameResult, GameSamples, SamplesReader};
use rand::rngs::SmallRng;
use rand::{Rng, RngExt};

use crate::error::TrainError;

/// One training position, ready to encode.
#[derive(Debug, Clone)]
pub struct TrainingPosition {
    /// The position.
    pub position: Position,
    /// Its policy target.
    pub policy: Vec<(Point, f32)>,
    /// The game's result for the side to move: 1, 0 or -1.
    pub result: f32,
}

/// Samples kept in memory for training.
pub struct ReplayWindow {
    games: Vec<Arc<GameSamples>>,
    /// (game, sample) of every sample in the window, oldest first.
    index: Vec<(u32, u32)>,
    /// Indices into `index` by board size, for one-size batches.
    by_size: Vec<(u8, Vec<u32>)>,
}

/// `samples.bin` files named by `paths`: a file, or a directory searched
/// (one level deep, sorted) for `samples.bin`.
///
/// # Errors
/// [`TrainError::Data`] for a path that does not exist.
pub fn sample_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, TrainError> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_file() {
            files.push(path.clone());
        } else if path.is_dir() {
            if path.join("samples.bin").is_file() {
                files.push(path.join("samples.bin"));
            }
            let mut dirs: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| TrainError::Data(format!("{}: {e}", path.display())))?
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| p.join("samples.bin").is_file())
                .collect();
            dirs.sort();
            files.extend(dirs.into_iter().map(|d| d.join("samples.bin")));
        } else {
            return Err(TrainError::Data(format!("{}: no such file or directory", path.display())));
        }
    }
    Ok(files)
}

impl ReplayWindow {
    /// Loads the last `window` samples of `files` (in file order, so later
    /// files are more recent). A file cut short by a killed writer is read
    /// up to its last complete game.
    ///
    /// # Errors
    /// [`TrainError::Data`] naming a file that cannot be read or holds no samples.
    pub fn load(files: &[PathBuf], window: usize) -> Result<ReplayWindow, TrainError> {
        let mut games = Vec::new();
        for path in files {
            games.extend(read_samples(path)?);
        }
        // Keep the newest games holding `window` samples.
        let mut kept = 0;
        let mut first = games.len();
        while first > 0 && kept < window {
            first -= 1;
            kept += games[first].samples.len();
        }
        let games: Vec<Arc<GameSamples>> = games.into_iter().skip(first).map(Arc::new).collect();
        let mut index = Vec::new();
        for (g, game) in games.iter().enumerate() {
            for s in 0..game.samples.len() {
                index.push((g as u32, s as u32));
            }
        }
        // Drop the oldest samples of the first game beyond the window.
        let excess = index.len().saturating_sub(window);
        index.drain(..excess);
        if index.is_empty() {
            let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
            return Err(TrainError::Data(if names.is_empty() {
                "no samples.bin files found".into()
            } else {
                format!("no training samples in {}", names.join(", "))
            }));
        }
        let mut by_size: Vec<(u8, Vec<u32>)> = Vec::new();
        for (i, &(g, _)) in index.iter().enumerate() {
            let size = games[g as usize].rules.size();
            match by_size.iter_mut().find(|(s, _)| *s == size) {
                Some((_, list)) => list.push(i as u32),
                None => by_size.push((size, vec![i as u32])),
            }
        }
        Ok(ReplayWindow { games, index, by_size })
    }

    /// Samples in the window.
    #[must_use]
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether the window is empty (never, once loaded).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// A batch of `size` random samples of one board size (drawn in
    /// proportion to the sizes' shares), each seen through a random symmetry
    /// when `augment` is set.
    pub fn batch<R: Rng>(&self, size: usize, augment: bool, rng: &mut R) -> Vec<TrainingPosition> {
        // Pick the board size of a uniformly random sample, then samples of that size.
        let anchor = rng.random_range(0..self.index.len());
        let (g, _) = self.index[anchor];
        let board = self.games[g as usize].rules.size();
        let pool = &self.by_size.iter().find(|(s, _)| *s == board).expect("every size is listed").1;
        (0..size)
            .map(|_| {
                let (g, s) = self.index[pool[rng.random_range(0..pool.len())] as usize];
                let symmetry = if augment { Symmetry::ALL[rng.random_range(0..8)] } else { Symmetry::IDENTITY };
                self.position(g as usize, s as usize, symmetry)
            })
            .collect()
    }

    fn position(&self, game: usize, sample: usize, symmetry: Symmetry) -> TrainingPosition {
        let game = &self.games[game];
        let sample = &game.samples[sample];
        let replayed = Game::from_moves(game.rules, game.moves[..sample.ply as usize].iter().copied())
            .expect("samples were written from legal games");
        let size = game.rules.size();
        let position = replayed.position().transformed(symmetry);
        let policy = sample.policy.iter().map(|&(p, w)| (symmetry.apply(p, size), w)).collect();
        let result = match (game.result, position.to_move()) {
            (GameResult::Draw, _) => 0.0,
            (GameResult::White, Color::White) | (GameResult::Black, Color::Black) => 1.0,
            _ => -1.0,
        };
        TrainingPosition { position, policy, result }
    }
}

/// Every complete game of a samples file.
fn read_samples(path: &Path) -> Result<Vec<GameSamples>, TrainError> {
    let file = File::open(path).map_err(|e| TrainError::Data(format!("{}: {e}", path.display())))?;
    let mut games = Vec::new();
    for game in SamplesReader::new(BufReader::new(file)) {
        match game {
            Ok(game) => games.push(game),
            // A writer killed mid-game leaves a short last chunk: use what is complete.
            Err(pente_records::SamplesError::Truncated { .. }) => break,
            Err(error) => return Err(TrainError::Data(format!("{}: {error}", path.display()))),
        }
    }
    // The first sample's replay must succeed: check legality once per game.
    for game in &games {
        Game::from_moves(game.rules, game.moves.iter().copied())
            .map_err(|e| TrainError::Data(format!("{}: game {}: {e}", path.display(), game.game_id)))?;
    }
    Ok(games)
}

/// A seeded generator for batches.
#[must_use]
pub fn batch_rng(seed: u64, step: u64) -> SmallRng {
    rand::SeedableRng::seed_from_u64(seed ^ step.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}
