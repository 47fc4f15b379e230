//! A game: a start position and the moves played from it, with undo.

use thiserror::Error;

use crate::notation::{MoveListError, parse_move_list};
use crate::point::Point;
use crate::position::{IllegalMove, Position};
use crate::rules::Rules;

/// A move list that does not replay.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReplayError {
    /// A token is not a point.
    #[error(transparent)]
    Parse(#[from] MoveListError),
    /// A move is illegal where it is played.
    #[error("move {ply}: {reason}")]
    Illegal {
        /// 1-based move number.
        ply: u32,
        /// The move.
        point: Point,
        /// Why it is illegal.
        reason: IllegalMove,
    },
}

/// The history of a game: every position from the start, so moves can be undone.
#[derive(Debug, Clone)]
pub struct Game {
    positions: Vec<Position>,
    moves: Vec<Point>,
}

impl Game {
    /// A new game under `rules`.
    #[must_use]
    pub fn new(rules: Rules) -> Game {
        Game { positions: vec![Position::new(rules)], moves: Vec::new() }
    }

    /// Replays `moves` from the empty board.
    ///
    /// # Errors
    /// [`ReplayError::Illegal`] names the first illegal move.
    pub fn from_moves(rules: Rules, moves: impl IntoIterator<Item = Point>) -> Result<Game, ReplayError> {
        let mut game = Game::new(rules);
        for point in moves {
            game.play(point)?;
        }
        Ok(game)
    }

    /// Parses and replays a move list such as `K10 L9 K7` or `1. K10 L9 2. K7`.
    ///
    /// # Errors
    /// The first token that is not a point, or the first illegal move.
    pub fn from_move_list(rules: Rules, text: &str) -> Result<Game, ReplayError> {
        Game::from_moves(rules, parse_move_list(text)?)
    }

    /// The current position.
    #[must_use]
    pub fn position(&self) -> &Position {
        self.positions.last().expect("a game always has its start position")
    }

    /// Every position from the start to the current one.
    #[must_use]
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// The moves played.
    #[must_use]
    pub fn moves(&self) -> &[Point] {
        &self.moves
    }

    /// The rules in force.
    #[must_use]
    pub fn rules(&self) -> &Rules {
        self.position().rules()
    }

    /// Plays a checked move.
    ///
    /// # Errors
    /// [`ReplayError::Illegal`]; the game is then unchanged.
    pub fn play(&mut self, point: Point) -> Result<(), ReplayError> {
        let mut next = self.position().clone();
        next.play(point).map_err(|reason| ReplayError::Illegal { ply: self.position().ply() + 1, point, reason })?;
        self.positions.push(next);
        self.moves.push(point);
        Ok(())
    }

    /// Takes back the last move; returns it, or `None` at the start.
    pub fn undo(&mut self) -> Option<Point> {
        let point = self.moves.pop()?;
        self.positions.pop();
        Some(point)
    }
}
