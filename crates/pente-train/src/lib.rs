//! Making the network better: training on self-play samples, arenas that
//! measure strength in Elo, and the loop of self-play, training, evaluation
//! and promotion.

mod arena;
mod data;
mod error;
mod pipeline;
mod trainer;

pub use arena::{
    ArenaConfig, Elo, Engine, MatchResult, Player, PlayerKind, PlayerSpec, Records, elo_from_results, play_match,
};
pub use data::{LaterCourse, ReplayWindow, TrainingPosition, sample_files};
pub use error::TrainError;
pub use pipeline::{
    EloEntry, IterationSize, LoopArena, LoopConfig, LoopEvent, LoopState, NetShape, StageTimes, StoreLoop, TrainFrom,
    final_matches, run_loop,
};
pub use trainer::{
    CHECKPOINT_DIR, METRICS_FILE, METRICS_HEADER, StepReport, StepTimes, TrainConfig, WindowGrowth, init_model,
    profile_steps, start_model, train,
};
