//! The self-improvement loop: self-play with the best network, train a
//! candidate on the recent samples, play it against the best, promote it if
//! it wins. Every stage writes under `runs/<name>/` and is skipped when its
//! output is complete, so a killed loop continues where it was.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cpu_time::ProcessTime;

use pente_external::TextPenteConfig;
use pente_nn::NetConfig;
use pente_nn::store::ModelInfo;
use pente_search::Backend;
use pente_selfplay::{ModelSource, Progress, SelfPlayConfig};
use pente_store::{Chunk, Store};
use serde::{Deserialize, Serialize};

use crate::arena::{ArenaConfig, MatchResult, PlayerKind, PlayerSpec, Records, play_match};
use crate::error::TrainError;
use crate::trainer::{StepReport, TrainConfig, init_model, start_model, train};

/// The loop's settings (`configs/loop*.toml`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoopConfig {
    /// Name of the run: its files go to `<runs_dir>/<name>/`.
    pub name: String,
    /// Where runs live.
    #[serde(default = "default_runs_dir")]
    pub runs_dir: PathBuf,
    /// Iterations to reach (a rerun with more continues).
    pub iterations: u32,
    /// Shape of the first network (random weights); or see `start`.
    #[serde(default)]
    pub net: Option<NetShape>,
    /// A model directory the first network is copied from instead (e.g. the
    /// network a campaign committed at the end of its last sitting); the new
    /// run then goes on from it with fresh self-play.
    #[serde(default)]
    pub start: Option<PathBuf>,
    /// A model directory the run's best network is copied into when the run
    /// ends, with its records: for a campaign, where the next sitting
    /// `start`s from. Its `elo.csv` and `timings.csv` gather every sitting.
    #[serde(default)]
    pub export: Option<PathBuf>,
    /// Who plays self-play until a first network is promoted: `heuristic`
    /// (a teacher, so the first samples carry tactics) or, when unset, the
    /// random first network itself (pure self-play from zero).
    #[serde(default)]
    pub bootstrap: Option<String>,
    /// Sizes of the iterations self-played by the bootstrap teacher, which
    /// plays far faster than a network and so can afford more games.
    #[serde(default)]
    pub bootstrap_iteration: Option<IterationSize>,
    /// Self-play of each iteration (`model` is set by the loop).
    pub selfplay: SelfPlayConfig,
    /// Training of each iteration (`samples` is set by the loop).
    pub train: TrainConfig,
    /// Evaluation of each candidate.
    pub arena: LoopArena,
}

fn default_runs_dir() -> PathBuf {
    PathBuf::from("runs")
}

/// The first network's shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetShape {
    /// Residual blocks.
    pub blocks: usize,
    /// Channels.
    pub channels: usize,
    /// Whether it has the auxiliary training heads (opponent's reply,
    /// final ownership and captures). Off by default: in the quick loop they
    /// measured no gain.
    #[serde(default)]
    pub aux_heads: bool,
}

impl NetShape {
    /// The full network config, heads scaled along.
    #[must_use]
    pub fn config(&self) -> NetConfig {
        NetConfig::scaled(self.blocks, self.channels).with_aux_heads(Some(self.aux_heads))
    }
}

/// Overrides of `selfplay.games` and `train.steps` for some iterations.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IterationSize {
    /// Self-play games (default: `selfplay.games`).
    #[serde(default)]
    pub games: Option<u64>,
    /// Training steps (default: `train.steps`).
    #[serde(default)]
    pub steps: Option<u64>,
}

/// How candidates are evaluated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoopArena {
    /// Games of candidate against best (and against each baseline).
    pub games: u32,
    /// Playouts per move of both sides.
    pub visits: u32,
    /// Random opening moves of each game pair.
    #[serde(default = "default_opening_plies")]
    pub opening_plies: u32,
    /// The candidate is promoted with at least this score against the best.
    #[serde(default = "default_promote_score")]
    pub promote_score: f64,
    /// Players rated once at the start and at the end: `heuristic`, `uniform`
    /// (searched with `visits`), `pente-text:LEVEL` (19x19 Pente only).
    #[serde(default)]
    pub baselines: Vec<String>,
}

fn default_opening_plies() -> u32 {
    2
}

fn default_promote_score() -> f64 {
    0.55
}

/// Progress of a loop, kept in `loop.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LoopState {
    /// Iterations completed.
    pub iteration: u32,
    /// The best network so far (a directory under `models/`).
    pub best: PathBuf,
    /// Its Elo (the first network is 0, or the Elo of the `start` network).
    pub best_elo: f64,
    /// CPU-hours spent so far, the `start` network's included.
    #[serde(default)]
    pub cpu_hours: f64,
    /// The generation the run's networks count on from, fixed when the run
    /// begins (the `start` network may change later, e.g. by `export`).
    #[serde(default)]
    pub first_generation: Option<u32>,
    /// Every rated player.
    pub table: Vec<EloEntry>,
    /// With a store: the store's games the last iteration trained on (the
    /// next waits for `selfplay.games` more).
    #[serde(default)]
    pub store_games: u64,
}

/// One row of the Elo table (`elo.csv`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EloEntry {
    /// The iteration that produced or rated it.
    pub iteration: u32,
    /// The player.
    pub model: String,
    /// Elo relative to the first network.
    pub elo: f64,
    /// Lower end of the 95 % interval.
    pub elo_low: f64,
    /// Upper end of the 95 % interval.
    pub elo_high: f64,
    /// Games it was rated from.
    pub games: u32,
    /// CPU-hours spent making the rated network (for a baseline: the
    /// network it was rated against), the `start` network's included.
    #[serde(default)]
    pub cpu_hours: f64,
}

/// What the loop reports as it goes.
#[derive(Debug, Clone)]
pub enum LoopEvent<'a> {
    /// A stage starts.
    Stage {
        /// Iteration (1-based; 0 for the initial ratings).
        iteration: u32,
        /// `selfplay`, `train`, `arena`, ...
        stage: &'static str,
        /// What it is about.
        detail: String,
    },
    /// A self-play game was written.
    Game(&'a Progress),
    /// With a store: its games, and the count the iteration waits for.
    StoreGames {
        /// Games in the store's chunks.
        have: u64,
        /// Games the iteration starts at.
        want: u64,
    },
    /// A training step was done.
    Step(&'a StepReport),
    /// An arena game finished.
    ArenaGame {
        /// Games done.
        done: u32,
        /// Games in the match.
        total: u32,
    },
    /// A match ended.
    Match(&'a MatchResult),
    /// An iteration is complete: where its wall time went (this run of the
    /// command; stages finished before a restart count 0).
    Timing(&'a StageTimes),
}

/// Wall time of one iteration's stages, a row of `timings.csv`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StageTimes {
    /// The iteration.
    pub iteration: u32,
    /// Self-play seconds.
    pub selfplay_s: f64,
    /// Training seconds.
    pub train_s: f64,
    /// Arena (candidate against the best) seconds.
    pub arena_s: f64,
    /// CPU seconds of the three stages, every thread of this process.
    pub cpu_s: f64,
}

impl StageTimes {
    /// `selfplay 41.2 s (62 %), train 20.0 s (30 %), arena 5.1 s (8 %)`.
    #[must_use]
    pub fn summary(&self) -> String {
        let total = (self.selfplay_s + self.train_s + self.arena_s).max(1e-9);
        let part = |name: &str, s: f64| format!("{name} {s:.1} s ({:.0} %)", 100.0 * s / total);
        format!(
            "{}, {}, {}",
            part("selfplay", self.selfplay_s),
            part("train", self.train_s),
            part("arena", self.arena_s)
        )
    }
}

impl LoopConfig {
    /// Reads a loop config file.
    ///
    /// # Errors
    /// [`TrainError::Config`] naming the file and the problem.
    pub fn load(path: &Path) -> Result<LoopConfig, TrainError> {
        let text = std::fs::read_to_string(path).map_err(|e| TrainError::Config(format!("{}: {e}", path.display())))?;
        let config: LoopConfig =
            toml::from_str(&text).map_err(|e| TrainError::Config(format!("{}: {e}", path.display())))?;
        config.check().map_err(|e| TrainError::Config(format!("{}: {e}", path.display())))?;
        Ok(config)
    }

    /// Checks the settings.
    ///
    /// # Errors
    /// The first problem found.
    pub fn check(&self) -> Result<(), String> {
        if self.name.is_empty() || self.name.contains(['/', '\\']) {
            return Err("name must be a plain directory name".into());
        }
        self.selfplay.check().map_err(|e| format!("selfplay: {e}"))?;
        self.train.check().map_err(|e| format!("train: {e}"))?;
        if self.arena.games == 0 || self.arena.visits == 0 {
            return Err("arena: games and visits must be at least 1".into());
        }
        for baseline in &self.arena.baselines {
            let spec = baseline_spec(baseline, self.arena.visits).map_err(|e| format!("arena: baseline {e}"))?;
            if matches!(spec.kind, PlayerKind::TextPente(_)) && self.arena_rules() != TextPenteConfig::rules() {
                return Err(format!("arena: baseline `{baseline}` plays only 19x19 Pente, the first self-play rules"));
            }
        }
        if let Some(teacher) = &self.bootstrap
            && !matches!(teacher.as_str(), "heuristic" | "uniform")
        {
            return Err(format!("bootstrap: `{teacher}` is not heuristic or uniform"));
        }
        if let Some(size) = &self.bootstrap_iteration {
            if self.bootstrap.is_none() {
                return Err("bootstrap_iteration: only with a bootstrap teacher".into());
            }
            if size.games == Some(0) || size.steps == Some(0) {
                return Err("bootstrap_iteration: games and steps must be at least 1".into());
            }
        }
        match (&self.net, &self.start) {
            (Some(net), None) if net.blocks == 0 || net.channels < 4 => {
                return Err("net: at least 1 block and 4 channels".into());
            }
            // Neither: the run starts from a store's current model (`--store`).
            (Some(_), None) | (None, Some(_)) | (None, None) => {}
            _ => return Err("give either [net] (a random first network) or start (a model directory)".into()),
        }
        Ok(())
    }

    /// Self-play games and training steps of an iteration, `taught` when
    /// its self-play is by the bootstrap teacher.
    #[must_use]
    pub fn iteration_size(&self, taught: bool) -> (u64, u64) {
        let size = self.bootstrap_iteration.as_ref().filter(|_| taught);
        (
            size.and_then(|s| s.games).unwrap_or(self.selfplay.games),
            size.and_then(|s| s.steps).unwrap_or(self.train.steps),
        )
    }

    /// `<runs_dir>/<name>`.
    #[must_use]
    pub fn run_dir(&self) -> PathBuf {
        self.runs_dir.join(&self.name)
    }

    /// The rules arenas use: the first of the self-play mix (valid once
    /// `selfplay.check()` has passed).
    fn arena_rules(&self) -> pente_core::Rules {
        let first = &self.selfplay.rules[0];
        pente_core::Rules::new(first.variant, first.size).expect("checked with the self-play settings")
    }

    /// How arenas are played.
    fn arena_config(&self, seed: u64) -> ArenaConfig {
        ArenaConfig {
            games: self.arena.games,
            rules: self.arena_rules(),
            opening_plies: self.arena.opening_plies,
            seed,
        }
    }
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> TrainError + '_ {
    move |e| TrainError::Io(format!("{}: {e}", path.display()))
}

/// The self-play crate's atomic write, with its error as a [`TrainError`].
fn write_atomically(path: &Path, text: &str) -> Result<(), TrainError> {
    Ok(pente_selfplay::write_atomically(path, text)?)
}

/// The header of `elo.csv`, one row per [`EloEntry`].
const ELO_HEADER: &str = "iteration,model,elo,elo_low,elo_high,games,cpu_hours";

/// CPU time of this process, read in slices: each [`take`](Self::take)
/// returns the hours since the last. Where the clock cannot be read, it
/// counts nothing.
struct CpuMeter(Option<ProcessTime>);

impl CpuMeter {
    fn start() -> CpuMeter {
        CpuMeter(ProcessTime::try_now().ok())
    }

    fn take(&mut self) -> f64 {
        let now = ProcessTime::try_now().ok();
        let spent = self.0.zip(now).map_or(0.0, |(then, now)| now.duration_since(then).as_secs_f64());
        self.0 = now;
        spent / 3600.0
    }
}

fn save_state(dir: &Path, state: &LoopState) -> Result<(), TrainError> {
    write_atomically(&dir.join("loop.json"), &serde_json::to_string_pretty(state).expect("state serializes"))?;
    let mut csv = String::from(ELO_HEADER);
    csv.push('\n');
    for e in &state.table {
        csv.push_str(&format!(
            "{},{},{:.1},{:.1},{:.1},{},{:.3}\n",
            e.iteration, e.model, e.elo, e.elo_low, e.elo_high, e.games, e.cpu_hours
        ));
    }
    write_atomically(&dir.join("elo.csv"), &csv)
}

/// Copies the model files of `from` into `to`, leaving its other files (a
/// campaign folder's history and README): each goes under a temporary name
/// first, then all are renamed, so a reader never sees half a file. A model
/// saved before `model.onnx` existed has none, and a stale one in `to` goes.
fn copy_model(from: &Path, to: &Path) -> Result<(), TrainError> {
    use pente_nn::store::{MODEL_FILES, ONNX_FILE};
    std::fs::create_dir_all(to).map_err(io_error(to))?;
    let files: Vec<&str> =
        MODEL_FILES.into_iter().filter(|&file| file != ONNX_FILE || from.join(file).is_file()).collect();
    let tmp = |file: &str| to.join(format!("{file}.tmp"));
    for file in &files {
        std::fs::copy(from.join(file), tmp(file)).map_err(io_error(&from.join(file)))?;
    }
    for file in &files {
        std::fs::rename(tmp(file), to.join(file)).map_err(io_error(&to.join(file)))?;
    }
    if !files.contains(&ONNX_FILE) {
        let _ = std::fs::remove_file(to.join(ONNX_FILE));
    }
    Ok(())
}

/// A match whose result is cached in `path` (JSON): played once, read after.
fn cached_match(
    path: &Path,
    a: &PlayerSpec,
    b: &PlayerSpec,
    config: &ArenaConfig,
    backend: &dyn Backend,
    report: &mut dyn FnMut(LoopEvent<'_>),
) -> Result<MatchResult, TrainError> {
    if let Some(result) = read_match(path) {
        report(LoopEvent::Match(&result));
        return Ok(result);
    }
    let (a, b) = (a.load(backend)?, b.load(backend)?);
    let games = path.with_extension("jsonl");
    let result = play_match(&a, &b, config, Some(Records { path: &games, resume: false }), &mut |done, total| {
        report(LoopEvent::ArenaGame { done, total });
    })?;
    write_atomically(path, &serde_json::to_string_pretty(&result).expect("result serializes"))?;
    report(LoopEvent::Match(&result));
    Ok(result)
}

/// A loop whose self-play comes from the workers of a store: each
/// iteration waits until the store holds `selfplay.games` games more than
/// the last one trained on, trains on its newest chunks, and publishes a
/// promoted network there as the workers' current model.
#[derive(Debug)]
pub struct StoreLoop<'a> {
    /// The store.
    pub store: &'a Store,
    /// Whether the trainer plays self-play too while it waits, as the
    /// worker `<name>-trainer`.
    pub selfplay: bool,
    /// How often the store is checked while the trainer waits.
    pub poll: Duration,
}

impl StoreLoop<'_> {
    /// Waits (or plays, with `selfplay`) until the store holds `want` games;
    /// returns its chunks.
    fn wait_for_games(
        &self,
        config: &LoopConfig,
        want: u64,
        work: &Path,
        backend: &dyn Backend,
        report: &mut dyn FnMut(LoopEvent<'_>),
    ) -> Result<Vec<Chunk>, TrainError> {
        loop {
            let chunks = self.store.chunks()?;
            let have = chunks.iter().map(|c| c.games).sum::<u64>();
            report(LoopEvent::StoreGames { have, want });
            if have >= want {
                return Ok(chunks);
            }
            if self.selfplay {
                let id = format!("{}-trainer", config.name);
                let index = chunks.iter().filter(|c| c.worker == id).map(|c| c.index + 1).max().unwrap_or(0);
                let games = (want - have).min(config.selfplay.games);
                pente_selfplay::play_chunk(self.store, &config.selfplay, &id, index, games, work, backend, &mut |e| {
                    if let pente_selfplay::WorkerEvent::Game(p) = e {
                        report(LoopEvent::Game(p));
                    }
                })?;
            } else {
                std::thread::sleep(self.poll);
            }
        }
    }

    /// The sample directories of the newest chunks that hold the window's
    /// samples (all the chunks' samples on `train`'s window), oldest first,
    /// as local directories.
    fn window(&self, chunks: &[Chunk], train: &TrainConfig) -> Result<Vec<PathBuf>, TrainError> {
        let window = train.window_for(chunks.iter().map(|c| c.samples).sum());
        let mut kept = 0;
        let mut first = chunks.len();
        while first > 0 && kept < window as u64 {
            first -= 1;
            kept += chunks[first].samples;
        }
        chunks[first..].iter().map(|c| Ok(self.store.chunk_dir(c)?)).collect()
    }

    /// The store's games the last trainer on it trained on (0 if none has).
    fn games_trained_on(&self) -> Result<u64, TrainError> {
        let Some(bytes) = self.store.get_file("loop.json")? else { return Ok(0) };
        let state: LoopState = serde_json::from_slice(&bytes)
            .map_err(|e| TrainError::Io(format!("{}: run/loop.json: {e}", self.store.spec())))?;
        Ok(state.store_games)
    }

    /// Copies the run's records (Elo table, state, stage times) to the store.
    fn put_records(&self, dir: &Path) -> Result<(), TrainError> {
        for file in ["elo.csv", "loop.json", "timings.csv"] {
            if let Ok(bytes) = std::fs::read(dir.join(file)) {
                self.store.put_file(file, bytes)?;
            }
        }
        Ok(())
    }
}

/// The settings of a loop run that its stages share.
struct Run<'a> {
    config: &'a LoopConfig,
    dir: PathBuf,
    backend: &'a dyn Backend,
}

/// Runs the loop to `config.iterations`, resuming from `runs/<name>/`, its
/// networks (self-play and arenas) on `backend`; with `store`, on the games
/// of the store's workers, starting from its current model. Returns the final state
/// (with the Elo table).
///
/// # Errors
/// [`TrainError`] from any stage; everything finished before stays.
pub fn run_loop(
    config: &LoopConfig,
    backend: &dyn Backend,
    store: Option<&StoreLoop<'_>>,
    report: &mut dyn FnMut(LoopEvent<'_>),
) -> Result<LoopState, TrainError> {
    let with_store;
    let config = match store {
        Some(link) => {
            with_store = store_config(config, link.store)?;
            &with_store
        }
        None if config.net.is_none() && config.start.is_none() => {
            return Err(TrainError::Config(
                "give [net] (a random first network) or start (a model directory), or run on a store (--store)".into(),
            ));
        }
        None => config,
    };
    config.check().map_err(TrainError::Config)?;
    let dir = config.run_dir();
    let run = Run { config, dir: dir.clone(), backend };
    let models = dir.join("models");
    std::fs::create_dir_all(&models).map_err(io_error(&models))?;
    let config_path = dir.join("loop.toml");
    write_atomically(&config_path, &toml::to_string_pretty(config).expect("config serializes"))?;
    let state_path = dir.join("loop.json");
    let mut state: LoopState = match std::fs::read_to_string(&state_path) {
        Ok(text) => {
            serde_json::from_str(&text).map_err(|e| TrainError::Io(format!("{}: {e}", state_path.display())))?
        }
        Err(_) => LoopState {
            // A new trainer on a store waits for games newer than those the
            // last one there trained on (its state is in the store's run/).
            store_games: store.map_or(Ok(0), |link| link.games_trained_on())?,
            ..LoopState::default()
        },
    };
    let mut cpu = CpuMeter::start();
    let arena_spec = |path: &Path| PlayerSpec::model(path, config.arena.visits);
    let (initial_id, first) = match (state.table.first(), state.first_generation) {
        (Some(initial), Some(first)) => (initial.model.clone(), first),
        _ => first_generation(config),
    };
    state.first_generation = Some(first);
    let network_id = |k: u32| if k == 0 { initial_id.clone() } else { format!("{}-{}", config.name, first + k) };
    let initial = models.join(network_id(0));

    if state.iteration == 0 && state.table.is_empty() {
        report(LoopEvent::Stage { iteration: 0, stage: "init", detail: format!("network {}", initial.display()) });
        if !initial.join(pente_nn::store::INFO_FILE).is_file() {
            let id = network_id(0);
            match (&config.start, &config.net) {
                (Some(start), _) => start_model(start, &id, &initial)?,
                (None, Some(net)) => init_model(&net.config(), &id, config.selfplay.seed, &initial)?,
                (None, None) => unreachable!("checked when the loop started"),
            }
        }
        // A start network brings its Elo and CPU-hours, so that the
        // campaign's curve goes on where the last sitting left it.
        let info = load_info(&initial)?;
        state.best.clone_from(&initial);
        state.best_elo = info.elo.unwrap_or(0.0);
        state.cpu_hours = info.cpu_hours;
        state.table.push(EloEntry {
            iteration: 0,
            model: network_id(0),
            elo: state.best_elo,
            elo_low: state.best_elo,
            elo_high: state.best_elo,
            games: 0,
            cpu_hours: state.cpu_hours,
        });
        save_state(&dir, &state)?;
    }
    // The baselines against the first network (on a resume, only those
    // added to the config since).
    let (elo, hours) = state.table.first().map_or((0.0, 0.0), |e| (e.elo, e.cpu_hours));
    if rate_baselines(&run, 0, &initial, (elo, hours), &mut state, report)? {
        state.cpu_hours += cpu.take();
        save_state(&dir, &state)?;
    }

    while state.iteration < config.iterations {
        let k = state.iteration + 1;
        let iter_dir = dir.join(format!("iter-{k:03}"));
        let id = network_id(k);
        state.cpu_hours += cpu.take();

        let source = match (&config.bootstrap, state.best == initial) {
            (Some(teacher), true) => ModelSource::parse(teacher),
            _ => ModelSource::Network(state.best.clone()),
        };
        let (games, steps) = config.iteration_size(!matches!(source, ModelSource::Network(_)));
        let clock = Instant::now();
        let samples = if let Some(link) = store {
            let want = state.store_games + games;
            report(LoopEvent::Stage { iteration: k, stage: "selfplay", detail: format!("{want} games in the store") });
            let chunks = link.wait_for_games(config, want, &dir.join("trainer-selfplay"), backend, report)?;
            let used = link.window(&chunks, &config.train)?;
            let names: Vec<String> = chunks[chunks.len() - used.len()..].iter().map(Chunk::name).collect();
            std::fs::create_dir_all(&iter_dir).map_err(io_error(&iter_dir))?;
            write_atomically(&iter_dir.join("chunks.txt"), &(names.join("\n") + "\n"))?;
            state.store_games = chunks.iter().map(|c| c.games).sum();
            used
        } else {
            report(LoopEvent::Stage { iteration: k, stage: "selfplay", detail: format!("{games} games") });
            let mut selfplay = config.selfplay.clone();
            selfplay.games = games;
            selfplay.model = match &source {
                ModelSource::Network(dir) => dir.display().to_string(),
                _ => config.bootstrap.clone().unwrap_or_default(),
            };
            selfplay.seed = config.selfplay.seed.wrapping_add(u64::from(first + k));
            pente_selfplay::run(&selfplay, &iter_dir.join("selfplay"), &source, backend, &mut |p| {
                report(LoopEvent::Game(p));
            })?;
            // Every iteration's self-play so far; the window keeps the most recent.
            (1..=k).map(|i| dir.join(format!("iter-{i:03}")).join("selfplay")).collect()
        };
        let mut times = StageTimes { iteration: k, selfplay_s: clock.elapsed().as_secs_f64(), ..StageTimes::default() };
        let clock = Instant::now();

        report(LoopEvent::Stage { iteration: k, stage: "train", detail: format!("{steps} steps") });
        let mut train_config = config.train.clone();
        train_config.steps = steps;
        train_config.samples = samples;
        train_config.seed = config.train.seed.wrapping_add(u64::from(first + k));
        let candidate = train(&train_config, &iter_dir.join("train"), &state.best, &id, u64::from(k), &mut |s| {
            report(LoopEvent::Step(s));
        })?;
        rebuild_metrics(&dir)?;
        times.train_s = clock.elapsed().as_secs_f64();
        let clock = Instant::now();

        report(LoopEvent::Stage { iteration: k, stage: "arena", detail: format!("{id} against the best") });
        let arena = config.arena_config(config.selfplay.seed ^ (u64::from(first + k) << 32));
        let result = cached_match(
            &iter_dir.join("arena.json"),
            &arena_spec(&candidate),
            &arena_spec(&state.best),
            &arena,
            backend,
            report,
        )?;
        let spent = cpu.take();
        state.cpu_hours += spent;
        times.cpu_s = spent * 3600.0;
        if result.score >= config.arena.promote_score {
            let promoted = models.join(&id);
            copy_model(&candidate, &promoted)?;
            let elo = state.best_elo + result.elo.diff;
            let info = ModelInfo {
                elo: Some(elo),
                cpu_hours: state.cpu_hours,
                iterations: first + k,
                ..load_info(&promoted)?
            };
            pente_nn::store::save_info(&info, &promoted).map_err(|e| TrainError::Model(e.to_string()))?;
            if let Some(link) = store {
                link.store.publish_model(&id, &promoted, &pente_nn::store::MODEL_FILES)?;
            }
            state.table.push(EloEntry {
                iteration: k,
                model: id,
                elo,
                elo_low: state.best_elo + result.elo.low,
                elo_high: state.best_elo + result.elo.high,
                games: result.wins + result.losses + result.draws,
                cpu_hours: state.cpu_hours,
            });
            state.best = promoted;
            state.best_elo = elo;
        }
        times.arena_s = clock.elapsed().as_secs_f64();
        append_timing(&dir.join("timings.csv"), &times)?;
        report(LoopEvent::Timing(&times));
        state.iteration = k;
        save_state(&dir, &state)?;
        if let Some(link) = store {
            link.put_records(&dir)?;
        }
    }

    // The final network against the first, and the baselines again.
    let last = state.iteration;
    if state.best != initial {
        let best = state.best.clone();
        let best_hours = load_info(&best)?.cpu_hours;
        if !state.table.iter().any(|e| e.iteration == last && e.model.ends_with("(final)")) {
            report(LoopEvent::Stage {
                iteration: last,
                stage: "final",
                detail: "the best network against the first".into(),
            });
            let arena = config.arena_config(config.selfplay.seed ^ 0xF1F1);
            let result = cached_match(
                &final_path(&dir, last),
                &arena_spec(&best),
                &arena_spec(&initial),
                &arena,
                backend,
                report,
            )?;
            let name = best.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
            let first_elo = state.table.first().map_or(0.0, |e| e.elo);
            state.table.push(EloEntry {
                iteration: last,
                model: format!("{name} (final)"),
                elo: first_elo + result.elo.diff,
                elo_low: first_elo + result.elo.low,
                elo_high: first_elo + result.elo.high,
                games: result.wins + result.losses + result.draws,
                cpu_hours: best_hours,
            });
            state.cpu_hours += cpu.take();
            save_state(&dir, &state)?;
        }
        if rate_baselines(&run, last, &best, (state.best_elo, best_hours), &mut state, report)? {
            state.cpu_hours += cpu.take();
            save_state(&dir, &state)?;
        }
    }
    if let Some(to) = &config.export {
        report(LoopEvent::Stage {
            iteration: last,
            stage: "export",
            detail: format!("{} to {}", state.best.display(), to.display()),
        });
        export_best(&dir, &state, first + last, to)?;
    }
    if let Some(link) = store {
        link.put_records(&dir)?;
    }
    Ok(state)
}

/// `config` for a run on `store`: it starts from the store's current model
/// (a fresh run; a resumed one goes on with its own), and the store's
/// workers get its self-play settings.
fn store_config(config: &LoopConfig, store: &Store) -> Result<LoopConfig, TrainError> {
    if config.bootstrap.is_some() {
        return Err(TrainError::Config(
            "bootstrap: a run on a store plays with its networks only (the workers play the current model)".into(),
        ));
    }
    let current = store.current_model()?;
    let mut config = config.clone();
    config.start = Some(store.fetch_model(&current)?);
    config.net = None;
    let mut selfplay = config.selfplay.clone();
    selfplay.model = "the store's current model".into();
    store.set_selfplay(&selfplay.to_toml())?;
    Ok(config)
}

/// Copies the best network of the run in `dir` into `to` with the run's
/// records: its config, training curve and matches replace those of the
/// last run there; its Elo table and stage times are appended to what
/// earlier runs left (rows already there are not repeated, so exporting
/// twice changes nothing). The network's `cpu_hours` and `iterations` become
/// the run's totals (`generation`: the last iteration's), so that a run
/// starting from it counts on from everything spent.
fn export_best(dir: &Path, state: &LoopState, generation: u32, to: &Path) -> Result<(), TrainError> {
    if to.canonicalize().ok() != state.best.canonicalize().ok() {
        copy_model(&state.best, to)?;
    }
    let info =
        ModelInfo { cpu_hours: state.cpu_hours, elo: Some(state.best_elo), iterations: generation, ..load_info(to)? };
    pente_nn::store::save_info(&info, to).map_err(|e| TrainError::Model(e.to_string()))?;
    for file in ["loop.toml", crate::trainer::METRICS_FILE] {
        if let Ok(text) = std::fs::read_to_string(dir.join(file)) {
            write_atomically(&to.join(file), &text)?;
        }
    }
    for file in ["elo.csv", "timings.csv"] {
        let Ok(ours) = std::fs::read_to_string(dir.join(file)) else { continue };
        let theirs = std::fs::read_to_string(to.join(file)).unwrap_or_default();
        let mut text =
            if theirs.is_empty() { format!("{}\n", ours.lines().next().unwrap_or_default()) } else { theirs };
        let rows: std::collections::HashSet<String> = text.lines().map(str::to_string).collect();
        let rated: std::collections::HashSet<&str> = rows.iter().filter_map(|row| row.split(',').nth(1)).collect();
        for (i, row) in ours.lines().skip(1).enumerate() {
            // A run's first row rates its start network, which the run that
            // exported it has rated already.
            let start_again = file == "elo.csv" && i == 0 && row.split(',').nth(1).is_some_and(|m| rated.contains(m));
            if !rows.contains(row) && !start_again {
                text.push_str(row);
                text.push('\n');
            }
        }
        write_atomically(&to.join(file), &text)?;
    }
    let matches = to.join("arena");
    let _ = std::fs::remove_dir_all(&matches);
    std::fs::create_dir_all(&matches).map_err(io_error(&matches))?;
    for entry in std::fs::read_dir(dir).map_err(io_error(dir))?.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if name.ends_with(".json") && name != "loop.json" {
            std::fs::copy(entry.path(), matches.join(&name)).map_err(io_error(&entry.path()))?;
        }
    }
    for k in 1..=state.iteration {
        let gate = dir.join(format!("iter-{k:03}")).join("arena.json");
        if gate.is_file() {
            std::fs::copy(&gate, matches.join(format!("gate-{k:03}.json"))).map_err(io_error(&gate))?;
        }
    }
    Ok(())
}

/// The matches that end a finished run, from the final network's side:
/// against the first network, then against each baseline. Read from the
/// run directory; empty until the run has played them.
#[must_use]
pub fn final_matches(config: &LoopConfig, state: &LoopState) -> Vec<MatchResult> {
    let (dir, last) = (config.run_dir(), state.iteration);
    let mut matches: Vec<MatchResult> = read_match(&final_path(&dir, last)).into_iter().collect();
    if !matches.is_empty() {
        for baseline in &config.arena.baselines {
            matches.extend(read_match(&baseline_path(&dir, baseline, last)).map(|m| m.flipped()));
        }
    }
    matches
}

/// A match result saved by [`cached_match`]; `None` if there is none (or
/// it is unreadable, and so is played again).
fn read_match(path: &Path) -> Option<MatchResult> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// The name of the run's first network and the generation the run counts
/// on from. A run that starts from a network named `<name>-N` (the last
/// sitting of the same campaign) keeps that name and counts on from N, or
/// from the iterations its lineage has spent, if more (a sitting that
/// promoted nothing); else its first network is `<name>-0`. Iteration `k`
/// makes generation `first + k`, named `<name>-<first + k>` and seeded by
/// it, so no two networks share a name and every sitting plays fresh games.
fn first_generation(config: &LoopConfig) -> (String, u32) {
    let ours = |info: &ModelInfo| info.id.strip_prefix(&format!("{}-", config.name))?.parse::<u32>().ok();
    match config.start.as_ref().and_then(|start| pente_nn::store::load_info(start).ok()) {
        Some(info) if let Some(n) = ours(&info) => (info.id.clone(), n.max(info.iterations)),
        _ => (format!("{}-0", config.name), 0),
    }
}

/// The stored info of the model in `dir`.
fn load_info(dir: &Path) -> Result<ModelInfo, TrainError> {
    pente_nn::store::load_info(dir).map_err(|e| TrainError::Model(e.to_string()))
}

/// The match of the final network against the first.
fn final_path(dir: &Path, iteration: u32) -> PathBuf {
    dir.join(format!("final-{iteration:03}.json"))
}

/// The match of a baseline against the network of `iteration`.
fn baseline_path(dir: &Path, baseline: &str, iteration: u32) -> PathBuf {
    dir.join(format!("baseline-{}-{iteration:03}.json", baseline.replace(':', "-")))
}

/// A baseline of the loop config: `heuristic` or `uniform` (searched with
/// the arena's visits) or `pente-text:LEVEL`.
fn baseline_spec(name: &str, visits: u32) -> Result<PlayerSpec, String> {
    let spec = PlayerSpec::parse(name)?;
    match spec.kind {
        PlayerKind::Heuristic | PlayerKind::Uniform => Ok(PlayerSpec { visits, ..spec }),
        PlayerKind::TextPente(_) => Ok(spec),
        PlayerKind::Model(_) => Err(format!("`{name}` is not heuristic, uniform or pente-text:LEVEL")),
    }
}

/// Rates each baseline by a match against `model`, rated `model_elo` and
/// made in `model_hours` CPU-hours, unless the table has its rating at
/// `iteration` already; whether it rated any.
fn rate_baselines(
    run: &Run<'_>,
    iteration: u32,
    model: &Path,
    (model_elo, model_hours): (f64, f64),
    state: &mut LoopState,
    report: &mut dyn FnMut(LoopEvent<'_>),
) -> Result<bool, TrainError> {
    let (config, dir) = (run.config, &run.dir);
    let mut rated = false;
    for baseline in &config.arena.baselines {
        let spec = baseline_spec(baseline, config.arena.visits).map_err(TrainError::Config)?;
        let name = match spec.kind {
            PlayerKind::TextPente(_) => baseline.clone(),
            _ => format!("{baseline}@{}", spec.visits),
        };
        if state.table.iter().any(|e| e.iteration == iteration && e.model == name) {
            continue;
        }
        report(LoopEvent::Stage {
            iteration,
            stage: "baseline",
            detail: format!("{baseline} against {}", model.display()),
        });
        let network = PlayerSpec::model(model, config.arena.visits);
        let arena = config.arena_config(config.selfplay.seed ^ 0xBA5E ^ u64::from(iteration));
        let result =
            cached_match(&baseline_path(dir, baseline, iteration), &spec, &network, &arena, run.backend, report)?;
        state.table.push(EloEntry {
            iteration,
            model: name,
            elo: model_elo + result.elo.diff,
            elo_low: model_elo + result.elo.low,
            elo_high: model_elo + result.elo.high,
            games: result.wins + result.losses + result.draws,
            cpu_hours: model_hours,
        });
        rated = true;
    }
    Ok(rated)
}

/// Appends `times` to `timings.csv` (header first if new). A row is a few
/// bytes written in one call; a kill before it only loses that row.
fn append_timing(path: &Path, times: &StageTimes) -> Result<(), TrainError> {
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(io_error(path))?;
    let mut row = String::new();
    if file.metadata().map_err(io_error(path))?.len() == 0 {
        row.push_str("iteration,selfplay_s,train_s,arena_s,cpu_s\n");
    }
    row.push_str(&format!(
        "{},{:.2},{:.2},{:.2},{:.1}\n",
        times.iteration, times.selfplay_s, times.train_s, times.arena_s, times.cpu_s
    ));
    file.write_all(row.as_bytes()).map_err(io_error(path))
}

/// Rebuilds the run's `metrics.csv` from every iteration's own file, so a
/// rerun does not duplicate rows.
fn rebuild_metrics(dir: &Path) -> Result<(), TrainError> {
    let mut rows = String::from(crate::trainer::METRICS_HEADER);
    rows.push('\n');
    let mut iterations: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io_error(dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("train").join(crate::trainer::METRICS_FILE).is_file())
        .collect();
    iterations.sort();
    for iteration in iterations {
        let path = iteration.join("train").join(crate::trainer::METRICS_FILE);
        let text = std::fs::read_to_string(&path).map_err(io_error(&path))?;
        for line in text.lines().skip(1) {
            rows.push_str(line);
            rows.push('\n');
        }
    }
    let path = dir.join(crate::trainer::METRICS_FILE);
    let tmp = path.with_extension("tmp");
    let mut file = std::fs::File::create(&tmp).map_err(io_error(&tmp))?;
    file.write_all(rows.as_bytes()).map_err(io_error(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(io_error(&path))
}
