//! Self-play: many games between searches that share batched network calls,
//! in parallel worker threads, written as `games.csv`, `games.jsonl` and
//! `samples.bin` in an output directory that a killed run resumes; or, as a
//! worker of a distributed run, in chunks committed to a store.

mod config;
mod error;
mod game;
mod output;
mod run;
mod worker;

pub use config::{ConfigError, OpeningConfig, PlayoutCap, ResignConfig, RulesWeight, SelfPlayConfig};
pub use error::SelfPlayError;
pub use game::{FinishedGame, GameInProgress, game_seed};
pub use output::{CONFIG_FILE, CSV_FILE, JSONL_FILE, Output, SAMPLES_FILE, write_atomically};
pub use run::{ModelSource, Progress, run};
pub use worker::{WorkerEvent, WorkerOptions, WorkerTotals, chunk_seed, play_chunk, run_worker};
