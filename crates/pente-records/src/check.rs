//! Checking a record against the rules: replay the moves, then compare the
//! stated result and termination with what the rules say.

use std::fmt;

use pente_core::{Color, IllegalMove, Outcome, Point, Position};
use thiserror::Error;

use crate::game_end::GameEnd;
use crate::record::{GameRecord, GameResult, Termination};

/// What the rules make of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The moves are legal and the stated result agrees with them.
    Valid(Conclusion),
    /// Something in the record breaks the rules.
    Invalid(Violation),
}

impl Verdict {
    /// Whether the record is valid.
    #[must_use]
    pub const fn is_valid(&self) -> bool {
        matches!(self, Verdict::Valid(_))
    }
}

/// How a valid game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conclusion {
    /// The rules ended the game (five, captures or a full board) at move `ply`.
    Finished {
        /// How.
        outcome: Outcome,
        /// The number of moves played.
        ply: usize,
    },
    /// A `Resign` or `Forfeit` token ended the game before the rules did.
    Terminated(Termination),
    /// The rules have not ended the game but the record states a result:
    /// pente.org ends games by resignation, time or agreement without a token.
    Stated(GameResult),
    /// The rules have not ended the game and no result is stated.
    Open,
}

impl Conclusion {
    /// Whether the rules left the game unfinished (everything but
    /// [`Conclusion::Finished`]).
    #[must_use]
    pub const fn is_unfinished(&self) -> bool {
        !matches!(self, Conclusion::Finished { .. })
    }

    /// The result this conclusion gives, `None` for an open game.
    #[must_use]
    pub const fn result(&self) -> Option<GameResult> {
        match *self {
            Conclusion::Finished { outcome, .. } => Some(GameResult::from_winner(outcome.winner)),
            Conclusion::Terminated(termination) => Some(GameResult::from_winner(Some(termination.winner()))),
            Conclusion::Stated(result) => Some(result),
            Conclusion::Open => None,
        }
    }
}

impl fmt::Display for Conclusion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Conclusion::Finished { outcome, ply } => write!(f, "{outcome} at move {ply}"),
            Conclusion::Terminated(termination) => write!(f, "unfinished: {termination}"),
            Conclusion::Stated(GameResult::Draw) => f.write_str("unfinished (draw agreed), 1/2-1/2"),
            Conclusion::Stated(result) => write!(f, "unfinished (resignation or time), {result}"),
            Conclusion::Open => f.write_str("unfinished, no result"),
        }
    }
}

/// Why a record is invalid.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Violation {
    /// A move is illegal where it is played.
    #[error("move {ply} is illegal: {reason}")]
    Illegal {
        /// 1-based move number (stones placed, both players).
        ply: usize,
        /// The move.
        point: Point,
        /// Why it is illegal.
        reason: IllegalMove,
    },
    /// Moves follow the end of the game.
    #[error("move {ply} ({point}) comes after the end of the game: {outcome} at move {end}")]
    AfterEnd {
        /// 1-based number of the first move after the end.
        ply: usize,
        /// That move.
        point: Point,
        /// How the game had ended.
        outcome: Outcome,
        /// The move that ended it.
        end: usize,
    },
    /// The stated result is not what the rules say.
    #[error("result {stated} contradicts the rules: {outcome} at move {end}")]
    ResultContradicts {
        /// The result in the record.
        stated: GameResult,
        /// What the rules say.
        outcome: Outcome,
        /// The move that ended the game.
        end: usize,
    },
    /// `Resign` or `Forfeit` after the rules had ended the game.
    #[error("{termination} after the end of the game: {outcome} at move {end}")]
    TerminationAfterEnd {
        /// The token.
        termination: Termination,
        /// How the game had ended.
        outcome: Outcome,
        /// The move that ended it.
        end: usize,
    },
    /// The stated result does not follow from `Resign` or `Forfeit`.
    #[error("result {stated} contradicts the move list: {termination}")]
    TerminationContradicts {
        /// The result in the record.
        stated: GameResult,
        /// The token.
        termination: Termination,
    },
    /// A dataset game's `plies` is not its number of stones (its moves
    /// but the colour choices).
    #[error("plies is {stated} but the game has {played} stones")]
    PliesMismatch {
        /// The `plies` field.
        stated: u32,
        /// The stones placed.
        played: usize,
    },
    /// A dataset game's capture count is not what the replay gives.
    #[error("{color} captures are {stated} but the replay gives {replayed}")]
    CapturesMismatch {
        /// Whose captures.
        color: Color,
        /// The count in the record.
        stated: u16,
        /// The count after replaying the moves.
        replayed: u16,
    },
    /// A dataset game's `reason` is not how the rules ended it.
    #[error("reason {stated} contradicts the rules: {outcome} at move {end}")]
    ReasonContradicts {
        /// The `reason` field.
        stated: GameEnd,
        /// What the rules say.
        outcome: Outcome,
        /// The move that ended the game.
        end: usize,
    },
    /// A dataset game says the rules ended it (`five`, `captures`, `full`)
    /// but they did not.
    #[error("reason {stated}, but the rules have not ended the game after {plies} moves")]
    ReasonUnfinished {
        /// The `reason` field.
        stated: GameEnd,
        /// The moves played.
        plies: usize,
    },
    /// A dataset game ended by resignation with a draw.
    #[error("reason resign with result draw: a resignation has a winner")]
    ResignWithoutWinner,
    /// A `games.jsonl` move whose policy covers a point that is not a legal move there.
    #[error("move {ply}: the policy covers an illegal point: {reason}")]
    PolicyIllegal {
        /// 1-based number of the move the policy belongs to.
        ply: usize,
        /// The point.
        point: Point,
        /// Why it is illegal before that move.
        reason: IllegalMove,
    },
    /// A `games.jsonl` policy probability that is negative or not finite.
    #[error("move {ply}: the policy gives {point} probability {probability}, not a finite non-negative number")]
    BadProbability {
        /// 1-based number of the move the policy belongs to.
        ply: usize,
        /// The point.
        point: Point,
        /// The probability as `f32` displays it (kept as text so that
        /// violations compare with `Eq`).
        probability: String,
    },
}

/// Replays a record under its rules and checks its result.
///
/// A game the rules have not ended is valid with any stated result
/// ([`Conclusion::Stated`]): pente.org records resignations, timeouts and
/// agreed draws that way. A `Resign`/`Forfeit` token must be followed by no
/// result or the other player's win.
#[must_use]
pub fn check(record: &GameRecord) -> Verdict {
    replay(record).0
}

/// [`check`], and the position after the moves (after the legal ones, if
/// the verdict is invalid).
pub(crate) fn replay(record: &GameRecord) -> (Verdict, Position) {
    // A position rather than a `Game`: no history is needed, only the end.
    let mut position = Position::new(record.rules);
    for (i, &point) in record.moves.iter().enumerate() {
        if let Err(reason) = position.play(point) {
            let ply = i + 1;
            let violation = match reason {
                IllegalMove::GameOver { outcome, .. } => Violation::AfterEnd { ply, point, outcome, end: i },
                reason => Violation::Illegal { ply, point, reason },
            };
            return (Verdict::Invalid(violation), position);
        }
    }
    let verdict = conclude(record, &position);
    (verdict, position)
}

/// The verdict on a record whose moves all replayed legally to `position`.
fn conclude(record: &GameRecord, position: &Position) -> Verdict {
    let end = record.moves.len();
    match (position.outcome(), record.termination) {
        (Some(outcome), Some(termination)) => {
            Verdict::Invalid(Violation::TerminationAfterEnd { termination, outcome, end })
        }
        (Some(outcome), None) => match record.result {
            Some(stated) if stated.winner() != outcome.winner => {
                Verdict::Invalid(Violation::ResultContradicts { stated, outcome, end })
            }
            _ => Verdict::Valid(Conclusion::Finished { outcome, ply: end }),
        },
        (None, Some(termination)) => match record.result {
            Some(stated) if stated.winner() != Some(termination.winner()) => {
                Verdict::Invalid(Violation::TerminationContradicts { stated, termination })
            }
            _ => Verdict::Valid(Conclusion::Terminated(termination)),
        },
        (None, None) => Verdict::Valid(record.result.map_or(Conclusion::Open, Conclusion::Stated)),
    }
}
