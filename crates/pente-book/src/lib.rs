//! Opening books of Pente grown by strong self-play.
//!
//! A book ([`Book`], one SQLite file) holds positions of one variant and
//! board size, merged under the board's symmetries ([`key`]). Each node has
//! an evaluation by a fixed search (its value and best moves) and games
//! played out from it by the strong player; values are backed up through
//! the tree ([`stats::back_up`]). [`build`] grows a book best first on every
//! core and resumes where a killed build stopped; [`Book::lookup`] shows a
//! node from any board orientation; [`Book::book_move`] plays from it; and
//! [`fairness`] turns books into the first player's score per variant.
//! [`shared`] builds a book over a store, its games played by workers on
//! other machines.

pub mod build;
mod error;
pub mod fairness;
pub mod key;
mod query;
pub mod settings;
pub mod shared;
pub mod stats;
mod store;
pub mod work;

pub use build::{Phase, Progress, Summary, build};
pub use error::BookError;
pub use query::{BookPlayer, ChildView, NodeView};
pub use settings::BookSettings;
pub use stats::{Score, Tally};
pub use store::{Book, Candidate, Evaluation, FORMAT, GameRecord, Node};
