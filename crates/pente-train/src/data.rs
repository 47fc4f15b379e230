//! The replay window: the most recent training samples of one or more
//! `samples.bin` files, and random augmented batches drawn from it.

use std::path::PathBuf;

use pente_core::{Game, Point, Position, Symmetry};
use pente_dataset::{ReadOptions, SampleWindow, WindowSample};
use pente_records::{reply_to, value_for};
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
    /// The game's later course, for the auxiliary heads, when asked for.
    pub later: Option<LaterCourse>,
}

/// What happened after a training position: the auxiliary heads' targets.
#[derive(Debug, Clone)]
pub struct LaterCourse {
    /// The opponent's reply to the move played, if the game went on.
    pub reply: Option<Point>,
    /// The game's last position, through the position's symmetry.
    pub final_position: Position,
}

/// Samples kept in memory for training: a [`SampleWindow`] of the newest
/// samples, and random augmented batches drawn from it.
pub struct ReplayWindow {
    window: SampleWindow,
}

/// `samples.bin` files named by `paths`: a file, or a directory searched
/// (one level deep, sorted) for `samples.bin`.
///
/// # Errors
/// [`TrainError::NoSuchSamples`] for a path that does not exist,
/// [`TrainError::SamplesDir`] for a directory that cannot be listed.
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
                .map_err(|source| TrainError::SamplesDir { path: path.clone(), source })?
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| p.join("samples.bin").is_file())
                .collect();
            dirs.sort();
            files.extend(dirs.into_iter().map(|d| d.join("samples.bin")));
        } else {
            return Err(TrainError::NoSuchSamples { path: path.clone() });
        }
    }
    Ok(files)
}

impl ReplayWindow {
    /// Loads the last `window(total)` samples of `files` (in file order, so
    /// later files are more recent), `total` being the samples they hold. A
    /// file cut short by a killed writer is read up to its last complete game.
    ///
    /// # Errors
    /// [`TrainError::Data`] naming a file that cannot be read or a game that
    /// does not replay, [`TrainError::NoSamples`] if the files hold no samples.
    pub fn load(files: &[PathBuf], window: impl Fn(u64) -> usize) -> Result<ReplayWindow, TrainError> {
        let options = ReadOptions { allow_truncated: true, ..ReadOptions::default() };
        let window = SampleWindow::load(files, options, window)?;
        if window.is_empty() {
            return Err(TrainError::NoSamples { files: files.to_vec() });
        }
        Ok(ReplayWindow { window })
    }

    /// Samples in the window.
    #[must_use]
    pub fn len(&self) -> usize {
        self.window.len()
    }

    /// Whether the window is empty (never, once loaded).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.window.is_empty()
    }

    /// A batch of `size` random samples of one board size (drawn in
    /// proportion to the sizes' shares), each seen through a random symmetry
    /// when `augment` is set, with the game's later course when `later` is.
    pub fn batch<R: Rng>(&self, size: usize, augment: bool, later: bool, rng: &mut R) -> Vec<TrainingPosition> {
        // Pick the board size of a uniformly random sample, then samples of that size.
        let anchor = rng.random_range(0..self.window.len());
        let board = self.window.sample(anchor).game.rules.size();
        let pool = &self.window.sizes().iter().find(|(s, _)| *s == board).expect("every size is listed").1;
        (0..size)
            .map(|_| {
                let i = pool[rng.random_range(0..pool.len())] as usize;
                let symmetry = if augment { Symmetry::ALL[rng.random_range(0..8)] } else { Symmetry::IDENTITY };
                self.position(i, symmetry, later)
            })
            .collect()
    }

    fn position(&self, i: usize, symmetry: Symmetry, later: bool) -> TrainingPosition {
        let WindowSample { game, sample, last } = self.window.sample(i);
        let replayed = Game::from_moves(game.rules, game.moves[..sample.ply as usize].iter().copied())
            .expect("samples were written from legal games");
        let size = game.rules.size();
        let position = replayed.position().transformed(symmetry);
        let policy = sample.policy.iter().map(|&(p, w)| (symmetry.apply(p, size), w)).collect();
        let result = value_for(game.result, position.to_move());
        let later = later.then(|| LaterCourse {
            reply: reply_to(&game.moves, sample.ply as usize, replayed.position()).map(|p| symmetry.apply(p, size)),
            final_position: last.transformed(symmetry),
        });
        TrainingPosition { position, policy, result, later }
    }
}

/// A seeded generator for batches.
#[must_use]
pub fn batch_rng(seed: u64, step: u64) -> SmallRng {
    rand::SeedableRng::seed_from_u64(seed ^ step.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

#[cfg(test)]
mod tests {
    use pente_core::{Color, Rules, Variant};
    use pente_records::{GameResult, GameSamples, PositionSample, write_game_samples, write_samples_header};

    use super::*;

    fn moves(list: &str) -> Vec<Point> {
        list.split_whitespace().map(|m| m.parse().unwrap()).collect()
    }

    /// A window over `games`, each sampled at every ply.
    fn window(games: &[(Rules, &str)]) -> ReplayWindow {
        let path = std::env::temp_dir().join(format!("pente-window-{}.bin", std::process::id()));
        let mut bytes = Vec::new();
        write_samples_header(&mut bytes).unwrap();
        for (id, &(rules, list)) in games.iter().enumerate() {
            let moves = moves(list);
            let samples = (0..moves.len() as u32).map(|ply| PositionSample { ply, policy: Vec::new() }).collect();
            let game = GameSamples { game_id: id as u64, rules, moves, result: GameResult::White, samples };
            write_game_samples(&mut bytes, &game).unwrap();
        }
        std::fs::write(&path, bytes).unwrap();
        let window = ReplayWindow::load(std::slice::from_ref(&path), |_| 1000).unwrap();
        std::fs::remove_file(&path).unwrap();
        window
    }

    #[test]
    fn positions_carry_the_reply_and_the_last_position() {
        let rules = Rules::new(Variant::Pente, 9).unwrap();
        // White's H5 captures F5 and G5.
        let game = "E5 F5 A1 G5 H5";
        let window = window(&[(rules, game)]);
        let last = Game::from_move_list(rules, game).unwrap().position().clone();
        assert_eq!(last.captured(Color::White), 2);
        let played = moves(game);
        for ply in 0..played.len() {
            assert!(window.position(ply, Symmetry::IDENTITY, false).later.is_none());
            let plain = window.position(ply, Symmetry::IDENTITY, true).later.unwrap();
            assert_eq!(plain.reply, played.get(ply + 1).copied(), "ply {ply}");
            assert_eq!(plain.final_position.hash(), last.hash());
            // Through a symmetry, the reply and the last position turn with the position.
            for symmetry in Symmetry::ALL {
                let turned = window.position(ply, symmetry, true).later.unwrap();
                assert_eq!(turned.reply, plain.reply.map(|p| symmetry.apply(p, 9)));
                assert_eq!(turned.final_position.hash(), last.transformed(symmetry).hash());
            }
        }
    }

    #[test]
    fn a_second_stone_of_the_same_turn_is_no_reply() {
        let rules = Rules::new(Variant::Connect6, 9).unwrap();
        // Black's two stones (ply 1 and 2), then White's.
        let window = window(&[(rules, "E5 D4 F6 C3 G7")]);
        let reply = |ply| window.position(ply, Symmetry::IDENTITY, true).later.unwrap().reply;
        assert_eq!(reply(0), Some("D4".parse().unwrap()));
        assert_eq!(reply(1), None, "F6 is the same player's");
        assert_eq!(reply(2), Some("C3".parse().unwrap()));
        assert_eq!(reply(3), None, "G7 is the same player's");
        assert_eq!(reply(4), None, "the game ends");
    }
}
