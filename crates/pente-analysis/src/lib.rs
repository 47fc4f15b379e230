//! Opening statistics for Pente games: who wins, by what, after which
//! opening, with how much certainty; as tables, CSV, JSON and PNG plots.
//!
//! Games stream in from `games.csv`, `games.jsonl` and pente.org PGN files
//! ([`read_games`]); [`Stats`] counts them one at a time, keeping only one
//! tally per rules, opening and next move, so a million games take seconds
//! and little memory. [`Stats::report`] turns the counts into a [`Report`]
//! that prints as an aligned table, Markdown, CSV or JSON.
//!
//! ```
//! use pente_analysis::{GameSummary, Ending, Stats, StatsOptions, ReportOptions};
//! use pente_core::Rules;
//! use pente_records::GameResult;
//!
//! let mut stats = Stats::new(StatsOptions { depth: 2, ..StatsOptions::default() });
//! for moves in ["K10 L9 K7", "K10 J11 K13", "K10 K11 K7"] {
//!     let moves = pente_core::parse_move_list(moves).unwrap();
//!     let game = GameSummary { rules: Rules::pente(), moves, result: Some(GameResult::White), ending: Ending::Five, line: 0 };
//!     stats.add(&game).unwrap();
//! }
//! let report = stats.report(&ReportOptions::default());
//! // `K10 L9` and `K10 J11` are mirror images: one opening with 2 games.
//! assert_eq!(report.openings.as_ref().unwrap()[0].key, "K10 L9");
//! assert_eq!(report.openings.as_ref().unwrap()[0].games, 2);
//! ```
//!
//! Openings are compared up to the 8 symmetries of the board ([`canonical`]):
//! each is named by the image that sorts first, points ordered by row from
//! the bottom and then by column from the right, so that `K10 L9` names the
//! diagonal reply to the centre.

pub mod canonical;
mod input;
pub mod plot;
mod report;
mod stats;
pub mod training;
mod wilson;

pub use input::{Ending, GameSummary, Games, InputError, read_games};
pub use report::{Explorer, Format, Report, ReportOptions, Row, Section, SortKey};
pub use stats::{Stats, StatsOptions, Tally};
pub use wilson::{Z95, wilson_interval};
