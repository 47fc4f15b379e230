//! Running self-play: worker threads play games, the calling thread writes
//! them in order and reports progress.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use pente_records::{GameEnd, GameResult};
use pente_search::{Backend, Evaluator, HeuristicEvaluator, Search, UniformEvaluator, search_many};

use crate::config::SelfPlayConfig;
use crate::error::SelfPlayError;
use crate::game::{FinishedGame, GameInProgress};
use crate::output::Output;

/// Where the players' evaluations come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelSource {
    /// The hand-written tactical heuristic.
    Heuristic,
    /// Uniform priors, zero value.
    Uniform,
    /// A model directory; each worker loads its own copy.
    Network(PathBuf),
}

impl ModelSource {
    /// `heuristic`, `uniform`, or a model directory.
    #[must_use]
    pub fn parse(text: &str) -> ModelSource {
        match text {
            "heuristic" => ModelSource::Heuristic,
            "uniform" => ModelSource::Uniform,
            path => ModelSource::Network(PathBuf::from(path)),
        }
    }

    /// The name recorded as the player of the games: the model id for a network.
    ///
    /// # Errors
    /// [`SelfPlayError::ModelInfo`] if the model directory cannot be read.
    pub fn name(&self) -> Result<String, SelfPlayError> {
        match self {
            ModelSource::Heuristic => Ok("heuristic".into()),
            ModelSource::Uniform => Ok("uniform".into()),
            ModelSource::Network(path) => Ok(pente_nn::store::player_name(path)?),
        }
    }

    /// A new evaluator for one worker, a network on `backend` with
    /// `threads` threads (ONNX Runtime; burn runs on the worker's thread).
    ///
    /// # Errors
    /// [`SelfPlayError::Model`] if the model cannot be loaded.
    pub fn evaluator(&self, backend: &dyn Backend, threads: usize) -> Result<Box<dyn Evaluator>, SelfPlayError> {
        Ok(match self {
            ModelSource::Heuristic => Box::new(HeuristicEvaluator::default()),
            ModelSource::Uniform => Box::new(UniformEvaluator::default()),
            ModelSource::Network(dir) => backend.load(dir, threads)?,
        })
    }
}

/// Running totals of a run, passed to the progress callback after each game.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Progress {
    /// Games in the output, earlier sessions included.
    pub games: u64,
    /// Games the run should reach.
    pub target: u64,
    /// Games written by this session.
    pub new_games: u64,
    /// This session's White wins, Black wins and draws.
    pub wins: [u64; 3],
    /// Moves of this session's games.
    pub plies: u64,
    /// This session's games won by five or by captures.
    pub fives: u64,
    /// ... by captures.
    pub capture_wins: u64,
    /// Games that ended by resignation.
    pub resigned: u64,
    /// Played-out games in which a player would have resigned.
    pub resign_checks: u64,
    /// ... and did not go on to lose: resigning would have been wrong.
    pub false_resigns: u64,
    /// Training positions written.
    pub samples: u64,
}

impl Progress {
    fn add(&mut self, game: &FinishedGame) {
        let record = &game.record;
        self.games += 1;
        self.new_games += 1;
        self.plies += u64::from(record.plies);
        self.samples += game.samples.samples.len() as u64;
        self.wins[match record.result {
            GameResult::White => 0,
            GameResult::Black => 1,
            GameResult::Draw => 2,
        }] += 1;
        match record.reason {
            GameEnd::Five => self.fives += 1,
            GameEnd::Captures => self.capture_wins += 1,
            GameEnd::Resign => self.resigned += 1,
            // Self-play has no clock.
            GameEnd::Full | GameEnd::Time => {}
        }
        if let Some(check) = record.resign_check {
            self.resign_checks += 1;
            if record.result.winner() != Some(check.color.opponent()) {
                self.false_resigns += 1;
            }
        }
    }

    /// Mean moves per game of this session.
    #[must_use]
    pub fn mean_plies(&self) -> f64 {
        self.plies as f64 / self.new_games.max(1) as f64
    }
}

/// Plays the games `config` asks for that `out` does not hold yet, a network
/// on `backend`. Calls `on_game` after each game is written. Returns the final tally.
///
/// # Errors
/// [`SelfPlayError`] for an unusable output directory, a model that does not
/// load, or a write that fails; games written before stay.
pub fn run(
    config: &SelfPlayConfig,
    out: &Path,
    model: &ModelSource,
    backend: &dyn Backend,
    on_game: &mut dyn FnMut(&Progress),
) -> Result<Progress, SelfPlayError> {
    config.check().map_err(|message| SelfPlayError::Config {
        path: out.join("selfplay.toml"),
        source: crate::config::ConfigError::Invalid(message),
    })?;
    let name = model.name()?;
    let mut output = Output::open(out, config)?;
    let start = output.games();
    let mut progress = Progress { games: start, target: config.games.max(start), ..Progress::default() };
    if start >= config.games {
        return Ok(progress);
    }
    let workers = config.worker_threads();
    let stop = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel::<Result<FinishedGame, SelfPlayError>>();
    std::thread::scope(|scope| {
        for worker in 0..workers {
            let sender = sender.clone();
            let (stop, name) = (&stop, name.as_str());
            scope.spawn(move || {
                let ids = (start + worker as u64..config.games).step_by(workers);
                if let Err(error) = play_worker(config, model, backend, name, ids, stop, &sender) {
                    stop.store(true, Ordering::Relaxed);
                    let _ = sender.send(Err(error));
                }
            });
        }
        drop(sender);
        // Write in id order: games finish out of order across workers.
        let mut waiting = BTreeMap::new();
        let mut result = Ok(());
        for message in receiver {
            let game = match message {
                Ok(game) => game,
                Err(error) => {
                    result = Err(error);
                    break;
                }
            };
            waiting.insert(game.record.game_id, game);
            while let Some(game) = waiting.remove(&output.games()) {
                if let Err(error) = output.append(&game) {
                    stop.store(true, Ordering::Relaxed);
                    return Err(error);
                }
                progress.add(&game);
                on_game(&progress);
            }
        }
        stop.store(true, Ordering::Relaxed);
        result
    })?;
    Ok(progress)
}

/// One worker: plays its games `games_in_flight` at a time on a one-thread
/// pool (one single-threaded network per core beats one shared network);
/// an ONNX Runtime network gets the cores that have no worker of their own.
fn play_worker(
    config: &SelfPlayConfig,
    model: &ModelSource,
    backend: &dyn Backend,
    name: &str,
    ids: impl Iterator<Item = u64> + Send,
    stop: &AtomicBool,
    sender: &mpsc::Sender<Result<FinishedGame, SelfPlayError>>,
) -> Result<(), SelfPlayError> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().map_err(SelfPlayError::ThreadPool)?;
    pool.install(|| {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let evaluator = model.evaluator(backend, (cores / config.worker_threads()).max(1))?;
        let mut ids = ids.peekable();
        let mut games: Vec<GameInProgress> = Vec::new();
        while !stop.load(Ordering::Relaxed) {
            while games.len() < config.games_in_flight
                && let Some(id) = ids.next()
            {
                games.push(GameInProgress::new(id, config));
            }
            if games.is_empty() {
                break;
            }
            let mut searches: Vec<&mut Search> =
                games.iter_mut().filter(|g| !g.is_over()).map(GameInProgress::search_mut).collect();
            search_many(&mut searches, evaluator.as_ref());
            for game in &mut games {
                game.step(config);
            }
            let (done, playing): (Vec<_>, Vec<_>) = games.into_iter().partition(GameInProgress::is_over);
            games = playing;
            for game in done {
                if sender.send(Ok(game.finish(config, name))).is_err() {
                    return Ok(());
                }
            }
        }
        Ok(())
    })
}
