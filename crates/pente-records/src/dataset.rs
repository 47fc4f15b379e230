//! Self-play datasets: `games.csv`, one row per game, and `games.jsonl`, one
//! JSON object per game with the search data of every move. Both carry the
//! same games; the schema is versioned by [`DATASET_SCHEMA`] and documented
//! in `docs/records.md`.

use pente_core::{Color, Point, Rules, Variant, format_move_list};
use serde::{Deserialize, Serialize};

use crate::record::{GameRecord, GameResult, Termination};

/// Version of the dataset schema, stored in every JSONL object.
pub const DATASET_SCHEMA: u32 = 1;

/// Why a self-play game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameEnd {
    /// A winning line.
    Five,
    /// The capture threshold.
    Captures,
    /// A full board: a draw.
    Full,
    /// The loser resigned (its search judged the game lost).
    Resign,
}

/// One row of `games.csv`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CsvGame {
    /// Index of the game in its run, from 0.
    pub game_id: u64,
    /// Rule variant, e.g. `pente`.
    pub variant: Variant,
    /// Board side.
    pub size: u8,
    /// The player or model that played White.
    pub white: String,
    /// The player or model that played Black.
    pub black: String,
    /// `white`, `black` or `draw`.
    pub result: GameResult,
    /// `five`, `captures`, `full` or `resign`.
    pub reason: GameEnd,
    /// Moves played.
    pub plies: u32,
    /// Stones captured by White.
    pub white_captures: u16,
    /// Stones captured by Black.
    pub black_captures: u16,
    /// The moves, space-separated, White first: `K10 L9 K7`.
    pub moves: String,
}

/// Stones captured by each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Captures {
    /// Stones captured by White.
    pub white: u16,
    /// Stones captured by Black.
    pub black: u16,
}

/// One move of a `games.jsonl` game, with what the search thought.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonMove {
    /// The move played.
    #[serde(rename = "move")]
    pub point: Point,
    /// Root value for the player who moved, in `[-1, 1]`.
    pub value: f32,
    /// Playouts of the search (0 for a random opening move).
    pub visits: u32,
    /// The search's policy target: `[["K10", 0.62], ...]`, most likely first.
    pub policy: Vec<(Point, f32)>,
}

/// Where resignation would have ended a game that was played out to check
/// how often resigning is wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResignCheck {
    /// The player who would have resigned.
    pub color: Color,
    /// The move count at which it would have.
    pub ply: u32,
}

/// One line of `games.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonGame {
    /// [`DATASET_SCHEMA`] of the writer.
    pub schema: u32,
    /// Index of the game in its run, from 0.
    pub game_id: u64,
    /// The rules, e.g. `pente` or `keryo/13`.
    pub rules: Rules,
    /// The player or model that played White.
    pub white: String,
    /// The player or model that played Black.
    pub black: String,
    /// The model id (or evaluator name) that generated the game.
    pub model: String,
    /// The seed of this game.
    pub seed: u64,
    /// The search settings, as in the run's config.
    pub search: serde_json::Value,
    /// `white`, `black` or `draw`.
    pub result: GameResult,
    /// `five`, `captures`, `full` or `resign`.
    pub reason: GameEnd,
    /// Moves played.
    pub plies: u32,
    /// Stones captured by each side.
    pub captures: Captures,
    /// Set in games played out past a resignation, to measure false resignations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resign_check: Option<ResignCheck>,
    /// Every move with its search data.
    pub moves: Vec<JsonMove>,
}

impl CsvGame {
    /// The row of a JSONL game: the same facts without the search data.
    #[must_use]
    pub fn from_json(game: &JsonGame) -> CsvGame {
        let moves: Vec<Point> = game.moves.iter().map(|m| m.point).collect();
        CsvGame {
            game_id: game.game_id,
            variant: game.rules.variant(),
            size: game.rules.size(),
            white: game.white.clone(),
            black: game.black.clone(),
            result: game.result,
            reason: game.reason,
            plies: game.plies,
            white_captures: game.captures.white,
            black_captures: game.captures.black,
            moves: format_move_list(&moves, false),
        }
    }
}

/// A [`GameRecord`] for checking: a resignation becomes a `Resign`
/// termination by the loser.
fn to_record(rules: Rules, moves: Vec<Point>, result: GameResult, reason: GameEnd, line: usize) -> GameRecord {
    let mut record = GameRecord::new(rules, moves);
    record.result = Some(result);
    if reason == GameEnd::Resign
        && let Some(winner) = result.winner()
    {
        record.termination = Some(Termination::Resign { by: winner.opponent() });
    }
    record.line = line;
    record
}

impl JsonGame {
    /// The game as a record to check against the rules; `line` is its line in the file.
    #[must_use]
    pub fn to_record(&self, line: usize) -> GameRecord {
        to_record(self.rules, self.moves.iter().map(|m| m.point).collect(), self.result, self.reason, line)
    }
}

impl CsvGame {
    /// The game as a record to check against the rules; `line` is its line
    /// in the file. Fails on a move that does not parse or a bad size.
    ///
    /// # Errors
    /// A message naming the move or the size.
    pub fn to_record(&self, line: usize) -> Result<GameRecord, String> {
        let rules = Rules::new(self.variant, self.size).map_err(|e| e.to_string())?;
        let moves = pente_core::parse_move_list(&self.moves).map_err(|e| e.to_string())?;
        Ok(to_record(rules, moves, self.result, self.reason, line))
    }
}
