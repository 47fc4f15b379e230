//! Pente rules: variants, positions, captures, outcomes, symmetries and notation.
//!
//! ```
//! use pente_core::{Color, EndReason, Game, Rules};
//!
//! let game = Game::from_move_list(Rules::pente(), "K10 L9 K7 L8 K8 L7 K9 L10 K6").unwrap();
//! let outcome = game.position().outcome().unwrap();
//! assert_eq!(outcome.winner, Some(Color::White));
//! assert_eq!(outcome.reason, EndReason::Five);
//! ```
//!
//! The specification is `shared/RULES.md` of the project; every corner case
//! there has a test in `tests/rules.rs`.

mod board;
mod color;
mod game;
mod notation;
mod point;
mod position;
mod rules;
pub mod setup;
mod symmetry;
mod zobrist;

pub use color::{Color, Seat};
pub use game::{Game, ReplayError};
pub use notation::{MoveListError, format_move_list, is_move_number, parse_move_list};
pub use point::{Choice, MAX_SIZE, ParsePointError, Point, column_letter};
pub use position::{EndReason, IllegalMove, LegalMoves, Outcome, Position, RECENT_MOVES};
pub use rules::{ColourChoice, LineWin, Opening, OpeningViolation, Rules, RulesError, Variant};
pub use setup::{BoardTextError, ParsePositionError, ParseSetupError, Setup, SetupError};
pub use symmetry::Symmetry;
