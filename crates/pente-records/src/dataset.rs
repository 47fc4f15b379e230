//! Self-play datasets: `games.csv`, one row per game, and `games.jsonl`, one
//! JSON object per game with the search data of every move. Both carry the
//! same games; the schema is versioned by [`DATASET_SCHEMA`] and documented
//! in `docs/records.md`.

use pente_core::{Color, Point, Position, Rules, Variant, format_move_list};
use serde::{Deserialize, Serialize};

use crate::check::{Verdict, Violation, replay};
use crate::error::{ParseError, ParseErrorKind};
use crate::game_end::GameEnd;
use crate::record::{GameRecord, GameResult, Termination};

/// Version of the dataset schema, stored in every JSONL object.
pub const DATASET_SCHEMA: u32 = 1;

/// The first line of `games.csv`: the [`CsvGame`] fields in order.
pub const CSV_HEADER: &str = "game_id,variant,size,white,black,result,reason,plies,white_captures,black_captures,moves";

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
/// termination by the loser, a loss on time a `Forfeit`.
fn to_record(rules: Rules, moves: Vec<Point>, result: GameResult, reason: GameEnd, line: usize) -> GameRecord {
    let mut record = GameRecord::new(rules, moves);
    record.result = Some(result);
    if let Some(winner) = result.winner() {
        let by = winner.opponent();
        record.termination = match reason {
            GameEnd::Resign => Some(Termination::Resign { by }),
            GameEnd::Time => Some(Termination::Forfeit { by }),
            _ => None,
        };
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

    /// Checks the game: the moves and result against the rules (see
    /// [`crate::check`]), the summary fields (`plies`, `captures`, `reason`)
    /// against the replay, and every move's policy: finite, non-negative
    /// probabilities over legal points of the position before the move.
    #[must_use]
    pub fn check(&self) -> Verdict {
        let stated = Stated { plies: self.plies, captures: self.captures, result: self.result, reason: self.reason };
        let verdict = check_summary(&self.to_record(0), &stated);
        if !verdict.is_valid() {
            return verdict;
        }
        let mut position = Position::new(self.rules);
        for (i, m) in self.moves.iter().enumerate() {
            let ply = i + 1;
            for &(point, probability) in &m.policy {
                if !(probability.is_finite() && probability >= 0.0) {
                    let probability = probability.to_string();
                    return Verdict::Invalid(Violation::BadProbability { ply, point, probability });
                }
                if let Err(reason) = position.check(point) {
                    return Verdict::Invalid(Violation::PolicyIllegal { ply, point, reason });
                }
            }
            // The replay above found every move legal.
            if position.play(m.point).is_err() {
                break;
            }
        }
        verdict
    }
}

impl CsvGame {
    /// The rules of the row.
    ///
    /// # Errors
    /// [`ParseErrorKind::BadSize`] if the variant has no board of that size.
    pub fn rules(&self) -> Result<Rules, ParseErrorKind> {
        Rules::new(self.variant, self.size)
            .map_err(|source| ParseErrorKind::BadSize { value: self.size.to_string(), source })
    }

    /// The moves of the row.
    ///
    /// # Errors
    /// [`ParseErrorKind::BadMove`] for the first token that is not a point.
    pub fn points(&self) -> Result<Vec<Point>, ParseErrorKind> {
        pente_core::parse_move_list(&self.moves).map_err(|e| ParseErrorKind::BadMove {
            ply: e.ply as usize,
            token: e.token,
            source: e.source,
        })
    }

    /// The game as a record to check against the rules; `line` is its line
    /// in the file.
    ///
    /// # Errors
    /// A move that does not parse or a board size the variant does not
    /// have, at `line`.
    pub fn to_record(&self, line: usize) -> Result<GameRecord, ParseError> {
        let rules = self.rules().map_err(|kind| kind.at(line))?;
        let moves = self.points().map_err(|kind| kind.at(line))?;
        Ok(to_record(rules, moves, self.result, self.reason, line))
    }

    /// Checks the row: the moves and result against the rules (see
    /// [`crate::check`]), and the summary fields (`plies`, the capture
    /// counts, `reason`) against the replay.
    ///
    /// # Errors
    /// As [`CsvGame::to_record`]: the row does not describe a game.
    pub fn check(&self, line: usize) -> Result<Verdict, ParseError> {
        let stated = Stated {
            plies: self.plies,
            captures: Captures { white: self.white_captures, black: self.black_captures },
            result: self.result,
            reason: self.reason,
        };
        Ok(check_summary(&self.to_record(line)?, &stated))
    }
}

/// The summary fields of a dataset game, to compare with its replay.
struct Stated {
    plies: u32,
    captures: Captures,
    result: GameResult,
    reason: GameEnd,
}

/// [`crate::check`], then the summary fields against the replay.
fn check_summary(record: &GameRecord, stated: &Stated) -> Verdict {
    let (verdict, position) = replay(record);
    if !verdict.is_valid() {
        return verdict;
    }
    let played = record.moves.len();
    // `plies` counts stones: a colour choice (D-Pente, Swap2) is a move but no ply.
    let stones = position.ply() as usize;
    if usize::try_from(stated.plies).ok() != Some(stones) {
        return Verdict::Invalid(Violation::PliesMismatch { stated: stated.plies, played: stones });
    }
    for (color, stated) in [(Color::White, stated.captures.white), (Color::Black, stated.captures.black)] {
        let replayed = position.captured(color);
        if stated != replayed {
            return Verdict::Invalid(Violation::CapturesMismatch { color, stated, replayed });
        }
    }
    let violation = match (stated.reason.end_reason(), position.outcome()) {
        // `check` has rejected a resignation after the end with a winner.
        (None, _) if stated.result == GameResult::Draw => Some(Violation::ResignWithoutWinner),
        (None, _) => None,
        (Some(reason), Some(outcome)) if reason != outcome.reason => {
            Some(Violation::ReasonContradicts { stated: stated.reason, outcome, end: played })
        }
        (Some(_), Some(_)) => None,
        (Some(_), None) => Some(Violation::ReasonUnfinished { stated: stated.reason, plies: played }),
    };
    violation.map_or(verdict, Verdict::Invalid)
}
