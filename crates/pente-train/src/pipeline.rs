//! The self-improvement loop: self-play with the best network (or the
//! newest, see [`TrainFrom`]), train a candidate on the recent samples,
//! play it against the best, promote it if it wins. Every stage writes
//! under `runs/<name>/` and is skipped when its output is complete, so a
//! killed loop continues where it was.

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
use crate::error::{TrainError, io};
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
    /// `start`s from. Its `metrics.csv`, `elo.csv`, `timings.csv` and
    /// `arena/` gather every sitting, numbered by generation.
    #[serde(default)]
    pub export: Option<PathBuf>,
    /// Iterations of self-play a campaign carries from one sitting to the
    /// next: the export keeps the newest this many iterations' samples in
    /// `window/` beside the network, and a run that `start`s from a folder
    /// with a `window/` begins with those samples in its replay window.
    /// 0 (the default): every sitting starts with an empty window, and an
    /// export removes a `window/` it finds. Not for runs on a store, whose
    /// chunks outlast a sitting.
    #[serde(default)]
    pub carry_window: u32,
    /// Who plays self-play until a first network is promoted: `heuristic`
    /// (a teacher, so the first samples carry tactics) or, when unset, the
    /// random first network itself (pure self-play from zero).
    #[serde(default)]
    pub bootstrap: Option<String>,
    /// Sizes of the iterations self-played by the bootstrap teacher, which
    /// plays far faster than a network and so can afford more games.
    #[serde(default)]
    pub bootstrap_iteration: Option<IterationSize>,
    /// Which network each iteration's self-play plays and its candidate is
    /// trained from: the best (the default) or the newest candidate.
    #[serde(default)]
    pub train_from: TrainFrom,
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

/// Which network an iteration's self-play plays and its training starts
/// from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrainFrom {
    /// The best network, as AlphaGo Zero: a candidate the gate turns down is
    /// dropped, so a gain too small for one gate to see is lost with it.
    #[default]
    Best,
    /// The newest candidate, promoted or not, as AlphaZero: small gains add
    /// up from one iteration to the next. The gate only chooses the best
    /// network, the one rated, exported and shipped; an export keeps the
    /// newest candidate in `latest/` when it is not the best, and a sitting
    /// that starts from that folder goes on from it.
    Latest,
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
    /// Games of the candidate against the best (and of the final network
    /// against the first, and against each baseline unless `baseline_games`).
    pub games: u32,
    /// Games against each baseline, when not `games`: a gate of a few
    /// hundred games tells small gains from noise, and a slow external
    /// baseline (`pente-text`) need not play as many.
    #[serde(default)]
    pub baseline_games: Option<u32>,
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
    /// With `train_from = "latest"`: the newest candidate (or the one the
    /// start folder carried), which the next iteration plays and trains
    /// from; the best itself once that candidate is promoted.
    #[serde(default)]
    pub latest: Option<PathBuf>,
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

impl LoopState {
    /// The network the next iteration plays and trains from: the newest
    /// candidate with `train_from = "latest"` once there is one, else the best.
    fn current(&self, from: TrainFrom) -> &Path {
        match (from, &self.latest) {
            (TrainFrom::Latest, Some(latest)) => latest,
            _ => &self.best,
        }
    }

    /// Makes the network in `dir`, rated `entry`, the best, its row added
    /// to the table.
    fn make_best(&mut self, entry: EloEntry, dir: PathBuf) {
        self.best = dir;
        self.best_elo = entry.elo;
        self.table.push(entry);
    }
}

impl EloEntry {
    /// The row of `model`, rated at `iteration` by `result` (its match,
    /// from its side) against a player of Elo `reference`, and made in
    /// `cpu_hours`.
    fn rated(iteration: u32, model: String, reference: f64, result: &MatchResult, cpu_hours: f64) -> EloEntry {
        EloEntry {
            iteration,
            model,
            elo: reference + result.elo.diff,
            elo_low: reference + result.elo.low,
            elo_high: reference + result.elo.high,
            games: result.wins + result.losses + result.draws,
            cpu_hours,
        }
    }
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
    /// With a store: a chunk set aside (a manifest that does not parse, or
    /// files missing or not their size) and left out of training.
    SetAside {
        /// The chunk's manifest.
        manifest: &'a str,
        /// What is wrong with it.
        reason: &'a str,
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
    /// [`TrainError::ConfigRead`], [`TrainError::ConfigParse`] or
    /// [`TrainError::ConfigCheck`], naming the file and the problem.
    pub fn load(path: &Path) -> Result<LoopConfig, TrainError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| TrainError::ConfigRead { path: path.into(), source })?;
        let config: LoopConfig =
            toml::from_str(&text).map_err(|source| TrainError::ConfigParse { path: path.into(), source })?;
        config.check().map_err(|message| TrainError::ConfigCheck { path: path.into(), message })?;
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
        if self.arena.games == 0 || self.arena.visits == 0 || self.arena.baseline_games == Some(0) {
            return Err("arena: games, baseline_games and visits must be at least 1".into());
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
        if self.carry_window > 0 && self.start.is_none() && self.export.is_none() {
            return Err("carry_window: only for a run that starts from or exports to a model directory".into());
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
    fn arena_config(&self, seed: u64, games: u32) -> ArenaConfig {
        ArenaConfig { games, rules: self.arena_rules(), opening_plies: self.arena.opening_plies, seed }
    }
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
    std::fs::create_dir_all(to).map_err(io(to))?;
    let files: Vec<&str> =
        MODEL_FILES.into_iter().filter(|&file| file != ONNX_FILE || from.join(file).is_file()).collect();
    let tmp = |file: &str| to.join(format!("{file}.tmp"));
    for file in &files {
        std::fs::copy(from.join(file), tmp(file)).map_err(io(&from.join(file)))?;
    }
    for file in &files {
        std::fs::rename(tmp(file), to.join(file)).map_err(io(&to.join(file)))?;
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
                let index = self.store.next_chunk_index(&id)?;
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

    /// The newest chunks that hold the window's samples (all the chunks'
    /// samples on `train`'s window), oldest first, with their local
    /// directories; a chunk whose files turn out broken is set aside
    /// (reported) and left out.
    fn window(
        &self,
        chunks: &[Chunk],
        train: &TrainConfig,
        report: &mut dyn FnMut(LoopEvent<'_>),
    ) -> Result<Vec<(String, PathBuf)>, TrainError> {
        let window = train.window_for(chunks.iter().map(|c| c.samples).sum());
        let mut kept = 0;
        let mut first = chunks.len();
        while first > 0 && kept < window as u64 {
            first -= 1;
            kept += chunks[first].samples;
        }
        let mut used = Vec::new();
        for chunk in &chunks[first..] {
            match self.store.usable_chunk_dir(chunk)? {
                Some(dir) => used.push((chunk.name(), dir)),
                None => {
                    let marker = self.store.set_aside()?.into_iter().find(|s| s.manifest == chunk.manifest_key());
                    let reason = marker.map_or_else(String::new, |m| m.reason);
                    report(LoopEvent::SetAside { manifest: &chunk.manifest_key(), reason: &reason });
                }
            }
        }
        Ok(used)
    }

    /// The store's games the last trainer on it trained on (0 if none has).
    fn games_trained_on(&self) -> Result<u64, TrainError> {
        let Some(bytes) = self.store.get_file("loop.json")? else { return Ok(0) };
        let state: LoopState = serde_json::from_slice(&bytes)
            .map_err(|source| TrainError::StoreState { store: self.store.spec().to_string(), source })?;
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
    store: Option<&'a StoreLoop<'a>>,
    /// The name of the run's first network.
    initial_id: String,
    /// The generation the run counts on from (see [`first_generation`]).
    first: u32,
}

/// One iteration of the loop: its number (1-based), the name of the
/// network it trains and its directory.
struct Iteration {
    number: u32,
    id: String,
    dir: PathBuf,
}

impl Run<'_> {
    /// The name of the network of iteration `k` (0: the first network).
    fn network_id(&self, k: u32) -> String {
        if k == 0 { self.initial_id.clone() } else { format!("{}-{}", self.config.name, self.first + k) }
    }

    /// Where the promoted networks (and the first) live.
    fn models(&self) -> PathBuf {
        self.dir.join("models")
    }

    /// The run's first network.
    fn initial(&self) -> PathBuf {
        self.models().join(self.network_id(0))
    }

    /// Iteration `k`.
    fn iteration(&self, k: u32) -> Iteration {
        Iteration { number: k, id: self.network_id(k), dir: iteration_dir(&self.dir, k) }
    }

    /// The network in `dir` as an arena player.
    fn arena_spec(&self, dir: &Path) -> PlayerSpec {
        PlayerSpec::model(dir, self.config.arena.visits)
    }

    /// The seed of iteration `k`'s self-play and training, by its generation.
    fn generation_seed(&self, seed: u64, k: u32) -> u64 {
        seed.wrapping_add(u64::from(self.first + k))
    }
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
    let config = effective_config(config, store)?;
    let dir = config.run_dir();
    let mut state = open_run(&config, &dir, store)?;
    let mut cpu = CpuMeter::start();
    let (initial_id, first) = fix_first_generation(&config, &mut state);
    let run = Run { config: &config, dir, backend, store, initial_id, first };
    init_first_network(&run, &mut state, report)?;
    rate_first_baselines(&run, &mut state, &mut cpu, report)?;
    while state.iteration < config.iterations {
        run_iteration(&run, &run.iteration(state.iteration + 1), &mut state, &mut cpu, report)?;
    }
    final_stage(&run, &mut state, &mut cpu, report)?;
    if let Some(to) = &config.export {
        export_stage(&run, &state, to, report)?;
    }
    if let Some(link) = store {
        link.put_records(&run.dir)?;
    }
    Ok(state)
}

/// The config the loop runs: `config` checked, or on a store the store's
/// version of it (see [`store_config`]).
fn effective_config<'a>(
    config: &'a LoopConfig,
    store: Option<&StoreLoop<'_>>,
) -> Result<std::borrow::Cow<'a, LoopConfig>, TrainError> {
    let config = match store {
        Some(link) => std::borrow::Cow::Owned(store_config(config, link.store)?),
        None if config.net.is_none() && config.start.is_none() => {
            return Err(TrainError::Config(
                "give [net] (a random first network) or start (a model directory), or run on a store (--store)".into(),
            ));
        }
        None => std::borrow::Cow::Borrowed(config),
    };
    config.check().map_err(TrainError::Config)?;
    Ok(config)
}

/// Makes the run directory `dir` and writes the effective config there
/// (`loop.toml`); returns the run's state (`loop.json`), or a new one.
fn open_run(config: &LoopConfig, dir: &Path, store: Option<&StoreLoop<'_>>) -> Result<LoopState, TrainError> {
    let models = dir.join("models");
    std::fs::create_dir_all(&models).map_err(io(&models))?;
    write_atomically(&dir.join("loop.toml"), &toml::to_string_pretty(config).expect("config serializes"))?;
    let path = dir.join("loop.json");
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text).map_err(|source| TrainError::Json { path, source }),
        Err(_) => Ok(LoopState {
            // A new trainer on a store waits for games newer than those the
            // last one there trained on (its state is in the store's run/).
            store_games: store.map_or(Ok(0), |link| link.games_trained_on())?,
            ..LoopState::default()
        }),
    }
}

/// The name of the run's first network and the generation the run counts
/// on from: those of its state once it has begun, fixed in it now if not.
fn fix_first_generation(config: &LoopConfig, state: &mut LoopState) -> (String, u32) {
    let (initial_id, first) = match (state.table.first(), state.first_generation) {
        (Some(initial), Some(first)) => (initial.model.clone(), first),
        _ => first_generation(config),
    };
    state.first_generation = Some(first);
    (initial_id, first)
}

/// Stage `init`, for a run not begun: makes the first network (random
/// weights, or a copy of `start`) unless there, and rates it as the run's
/// reference. A start network brings its Elo and CPU-hours, so that the
/// campaign's curve goes on where the last sitting left it.
fn init_first_network(
    run: &Run<'_>,
    state: &mut LoopState,
    report: &mut dyn FnMut(LoopEvent<'_>),
) -> Result<(), TrainError> {
    if state.iteration != 0 || !state.table.is_empty() {
        return Ok(());
    }
    let initial = run.initial();
    report(LoopEvent::Stage { iteration: 0, stage: "init", detail: format!("network {}", initial.display()) });
    if !initial.join(pente_nn::store::INFO_FILE).is_file() {
        let id = run.network_id(0);
        match (&run.config.start, &run.config.net) {
            (Some(start), _) => {
                if run.config.carry_window > 0 {
                    carry_in(&start.join(WINDOW_DIR), run.first, run.config.carry_window, &run.dir.join(WINDOW_DIR))?;
                }
                start_model(start, &id, &initial)?;
            }
            (None, Some(net)) => init_model(&net.config(), &id, run.config.selfplay.seed, &initial)?,
            (None, None) => unreachable!("checked when the loop started"),
        }
    }
    state.latest = carried_latest(run)?;
    let info = load_info(&initial)?;
    state.best.clone_from(&initial);
    state.best_elo = info.elo.unwrap_or(0.0);
    state.cpu_hours = info.cpu_hours;
    state.table.push(EloEntry {
        iteration: 0,
        model: run.network_id(0),
        elo: state.best_elo,
        elo_low: state.best_elo,
        elo_high: state.best_elo,
        games: 0,
        cpu_hours: state.cpu_hours,
    });
    save_state(&run.dir, state)
}

/// With `train_from = "latest"`, the newest candidate the start folder
/// carries in `latest/`, saved whole under the run's `models/` (the folder
/// keeps only its `model.json` and `model.safetensors`); else none.
fn carried_latest(run: &Run<'_>) -> Result<Option<PathBuf>, TrainError> {
    let Some(from) = run.config.start.as_ref().map(|start| start.join(LATEST_DIR)) else { return Ok(None) };
    if run.config.train_from != TrainFrom::Latest || !from.join(pente_nn::store::INFO_FILE).is_file() {
        return Ok(None);
    }
    let id = load_info(&from)?.id;
    let dir = run.models().join(&id);
    if !dir.join(pente_nn::store::INFO_FILE).is_file() {
        start_model(&from, &id, &dir)?;
    }
    Ok(Some(dir))
}

/// The baselines against the first network (on a resume, only those added
/// to the config since).
fn rate_first_baselines(
    run: &Run<'_>,
    state: &mut LoopState,
    cpu: &mut CpuMeter,
    report: &mut dyn FnMut(LoopEvent<'_>),
) -> Result<(), TrainError> {
    let (elo, hours) = state.table.first().map_or((0.0, 0.0), |e| (e.elo, e.cpu_hours));
    reuse_start_baselines(run)?;
    if rate_baselines(run, 0, &run.initial(), (elo, hours), state, report)? {
        state.cpu_hours += cpu.take();
        save_state(&run.dir, state)?;
    }
    Ok(())
}

/// Copies in, as this run's iteration-0 matches, the baseline matches that
/// the sitting which exported the start network played against that same
/// network (at its end, or at its start when it promoted nothing), so that
/// they are not played again (two matches, about 3 minutes a sitting with
/// `pente-text`). A match counts when its players and its number of games
/// are this run's.
fn reuse_start_baselines(run: &Run<'_>) -> Result<(), TrainError> {
    let Some(arena) = run.config.start.as_ref().map(|start| start.join("arena")) else { return Ok(()) };
    let Ok(entries) = std::fs::read_dir(&arena) else { return Ok(()) };
    let exported: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    let network = format!("{}@{}", run.initial_id, run.config.arena.visits);
    let games = run.config.arena.baseline_games.unwrap_or(run.config.arena.games);
    for baseline in &run.config.arena.baselines {
        let ours = baseline_path(&run.dir, baseline, 0);
        let spec = baseline_spec(baseline, run.config.arena.visits).map_err(TrainError::Config)?;
        let name = player_name(baseline, &spec);
        let prefix = baseline_prefix(baseline);
        let same = |path: &&PathBuf| {
            path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".json"))
                && read_match(path)
                    .is_some_and(|m| m.a == name && m.b == network && m.wins + m.losses + m.draws == games)
        };
        if !ours.exists()
            && let Some(found) = exported.iter().find(same)
        {
            copy_atomically(found, &ours)?;
        }
    }
    Ok(())
}

/// One iteration: self-play, training a candidate, its gate match against
/// the best and, if it passes, its promotion; then the iteration's times and
/// the state are saved.
fn run_iteration(
    run: &Run<'_>,
    it: &Iteration,
    state: &mut LoopState,
    cpu: &mut CpuMeter,
    report: &mut dyn FnMut(LoopEvent<'_>),
) -> Result<(), TrainError> {
    state.cpu_hours += cpu.take();
    let source = selfplay_source(run, state);
    let (games, steps) = run.config.iteration_size(!matches!(source, ModelSource::Network(_)));
    let clock = Instant::now();
    let samples = match run.store {
        Some(link) => selfplay_from_store(run, link, it, games, state, report)?,
        None => selfplay_locally(run, it, games, &source, report)?,
    };
    let mut times =
        StageTimes { iteration: it.number, selfplay_s: clock.elapsed().as_secs_f64(), ..StageTimes::default() };
    let clock = Instant::now();
    let from = state.current(run.config.train_from).to_path_buf();
    let candidate = train_candidate(run, it, steps, samples, &from, report)?;
    if run.config.train_from == TrainFrom::Latest {
        state.latest = Some(candidate.clone());
    }
    times.train_s = clock.elapsed().as_secs_f64();
    let clock = Instant::now();
    let result = gate(run, it, &candidate, &state.best, report)?;
    let spent = cpu.take();
    state.cpu_hours += spent;
    times.cpu_s = spent * 3600.0;
    if let Some(entry) = gate_verdict(state, &result, run.config.arena.promote_score, it) {
        promote(run, &candidate, entry, state)?;
    }
    times.arena_s = clock.elapsed().as_secs_f64();
    finish_iteration(run, it, &times, state, report)
}

/// Who plays an iteration's self-play: the bootstrap teacher until the loop
/// has a network of its own to play (promoted, or with `train_from =
/// "latest"` trained), else that network.
fn selfplay_source(run: &Run<'_>, state: &LoopState) -> ModelSource {
    let current = state.current(run.config.train_from);
    match (&run.config.bootstrap, current == run.initial()) {
        (Some(teacher), true) => ModelSource::parse(teacher),
        _ => ModelSource::Network(current.to_path_buf()),
    }
}

/// Stage `selfplay` on a store: waits for `games` more games there than the
/// last iteration trained on; returns the directories of the chunks that
/// hold the window's samples (their names kept in the iteration's
/// `chunks.txt`).
fn selfplay_from_store(
    run: &Run<'_>,
    link: &StoreLoop<'_>,
    it: &Iteration,
    games: u64,
    state: &mut LoopState,
    report: &mut dyn FnMut(LoopEvent<'_>),
) -> Result<Vec<PathBuf>, TrainError> {
    let want = state.store_games + games;
    report(LoopEvent::Stage { iteration: it.number, stage: "selfplay", detail: format!("{want} games in the store") });
    let chunks = link.wait_for_games(run.config, want, &run.dir.join("trainer-selfplay"), run.backend, report)?;
    let (names, used): (Vec<String>, Vec<PathBuf>) =
        link.window(&chunks, &run.config.train, report)?.into_iter().unzip();
    std::fs::create_dir_all(&it.dir).map_err(io(&it.dir))?;
    write_atomically(&it.dir.join("chunks.txt"), &(names.join("\n") + "\n"))?;
    state.store_games = chunks.iter().map(|c| c.games).sum();
    Ok(used)
}

/// Stage `selfplay` here: `games` games by `source` into the iteration's
/// `selfplay/`; returns every iteration's self-play so far (the window
/// keeps the most recent).
fn selfplay_locally(
    run: &Run<'_>,
    it: &Iteration,
    games: u64,
    source: &ModelSource,
    report: &mut dyn FnMut(LoopEvent<'_>),
) -> Result<Vec<PathBuf>, TrainError> {
    report(LoopEvent::Stage { iteration: it.number, stage: "selfplay", detail: format!("{games} games") });
    let mut selfplay = run.config.selfplay.clone();
    selfplay.games = games;
    selfplay.model = match source {
        ModelSource::Network(dir) => dir.display().to_string(),
        _ => run.config.bootstrap.clone().unwrap_or_default(),
    };
    selfplay.seed = run.generation_seed(run.config.selfplay.seed, it.number);
    pente_selfplay::run(&selfplay, &it.dir.join("selfplay"), source, run.backend, &mut |p| {
        report(LoopEvent::Game(p));
    })?;
    let mut samples: Vec<PathBuf> = carried(&run.dir.join(WINDOW_DIR))?.into_iter().map(|(_, file)| file).collect();
    samples.extend((1..=it.number).map(|i| iteration_dir(&run.dir, i).join("selfplay")));
    Ok(samples)
}

/// The folder of iteration `k` of the run in `dir`.
fn iteration_dir(dir: &Path, k: u32) -> PathBuf {
    dir.join(format!("iter-{k:03}"))
}

/// Where a run keeps the samples it carried in from its start's folder,
/// and where an export keeps the samples it carries on.
const WINDOW_DIR: &str = "window";

/// Where an export keeps the newest candidate when it is not the best
/// (`train_from = "latest"`).
const LATEST_DIR: &str = "latest";

/// The carried samples in `dir` (`samples-<generation>.bin`), oldest first,
/// with their generations; none if there is no such folder.
fn carried(dir: &Path) -> Result<Vec<(u32, PathBuf)>, TrainError> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(Vec::new()) };
    let mut files = Vec::new();
    for entry in entries {
        let path = entry.map_err(io(dir))?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if let Some(generation) = name.strip_prefix("samples-").and_then(|n| n.strip_suffix(".bin")) {
            let generation = generation
                .parse()
                .map_err(|_| TrainError::Config(format!("{}: not samples-<generation>.bin", path.display())))?;
            files.push((generation, path));
        }
    }
    files.sort();
    Ok(files)
}

/// Copies the newest `keep` carried samples of a start folder's `from`
/// (generations up to the run's `first`, those that led to its start
/// network) into a new run's `to`, whole or not at all (a folder beside it,
/// renamed when complete).
fn carry_in(from: &Path, first: u32, keep: u32, to: &Path) -> Result<(), TrainError> {
    let mut files = carried(from)?;
    files.retain(|(generation, _)| *generation <= first);
    let files = &files[files.len().saturating_sub(keep as usize)..];
    if files.is_empty() || to.is_dir() {
        return Ok(());
    }
    let partial = to.with_extension("tmp");
    let _ = std::fs::remove_dir_all(&partial);
    std::fs::create_dir_all(&partial).map_err(io(&partial))?;
    for (_, file) in files {
        let name = file.file_name().unwrap_or_default();
        std::fs::copy(file, partial.join(name)).map_err(io(file))?;
    }
    std::fs::rename(&partial, to).map_err(io(to))
}

/// Copies `from` to `to` through a `.tmp` file beside it, so that a kill
/// leaves the old file or the new one, never half of one.
fn copy_atomically(from: &Path, to: &Path) -> Result<(), TrainError> {
    let tmp = to.with_extension("tmp");
    std::fs::copy(from, &tmp).map_err(io(from))?;
    std::fs::rename(&tmp, to).map_err(io(to))
}

/// The export's `window/`: the newest `keep` iterations' samples of the run
/// (those it carried in and its own, iteration `k` as generation
/// `first + k`), each copied once; older ones removed.
fn carry_out(dir: &Path, state: &LoopState, first: u32, keep: u32, to: &Path) -> Result<(), TrainError> {
    let mut files = carried(&dir.join(WINDOW_DIR))?;
    for k in 1..=state.iteration {
        let file = iteration_dir(dir, k).join("selfplay").join(pente_selfplay::SAMPLES_FILE);
        if file.is_file() {
            files.push((first + k, file));
        }
    }
    files.sort();
    let kept = &files[files.len().saturating_sub(keep as usize)..];
    let window = to.join(WINDOW_DIR);
    std::fs::create_dir_all(&window).map_err(io(&window))?;
    let names: Vec<String> = kept.iter().map(|(generation, _)| format!("samples-{generation:03}.bin")).collect();
    for ((_, file), name) in kept.iter().zip(&names) {
        let target = window.join(name);
        // A generation's samples never change, so a file of the same size
        // is the one already copied (by the sitting before, or exporting twice).
        let len = |path: &Path| std::fs::metadata(path).ok().map(|m| m.len());
        if len(file) != len(&target) {
            copy_atomically(file, &target)?;
        }
    }
    for entry in std::fs::read_dir(&window).map_err(io(&window))?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !names.contains(&name) {
            std::fs::remove_file(entry.path()).map_err(io(&entry.path()))?;
        }
    }
    Ok(())
}

/// Stage `train`: a candidate trained `steps` steps from `best` on
/// `samples`, in the iteration's `train/`; the run's `metrics.csv` is
/// rebuilt after. Returns the candidate's directory.
fn train_candidate(
    run: &Run<'_>,
    it: &Iteration,
    steps: u64,
    samples: Vec<PathBuf>,
    best: &Path,
    report: &mut dyn FnMut(LoopEvent<'_>),
) -> Result<PathBuf, TrainError> {
    let window = run.dir.join(WINDOW_DIR);
    let detail = match samples.iter().filter(|p| p.starts_with(&window)).count() {
        0 => format!("{steps} steps"),
        1 => format!("{steps} steps, with samples carried from earlier sittings (1 iteration)"),
        n => format!("{steps} steps, with samples carried from earlier sittings ({n} iterations)"),
    };
    report(LoopEvent::Stage { iteration: it.number, stage: "train", detail });
    let mut train_config = run.config.train.clone();
    train_config.steps = steps;
    train_config.samples = samples;
    train_config.seed = run.generation_seed(run.config.train.seed, it.number);
    let candidate = train(&train_config, &it.dir.join("train"), best, &it.id, u64::from(it.number), &mut |s| {
        report(LoopEvent::Step(s));
    })?;
    rebuild_metrics(&run.dir)?;
    Ok(candidate)
}

/// Stage `arena`: the candidate against the best, the result cached in the
/// iteration's `arena.json`.
fn gate(
    run: &Run<'_>,
    it: &Iteration,
    candidate: &Path,
    best: &Path,
    report: &mut dyn FnMut(LoopEvent<'_>),
) -> Result<MatchResult, TrainError> {
    report(LoopEvent::Stage { iteration: it.number, stage: "arena", detail: format!("{} against the best", it.id) });
    let arena = run
        .config
        .arena_config(run.config.selfplay.seed ^ (u64::from(run.first + it.number) << 32), run.config.arena.games);
    let (candidate, best) = (run.arena_spec(candidate), run.arena_spec(best));
    cached_match(&it.dir.join("arena.json"), &candidate, &best, &arena, run.backend, report)
}

/// The gate's verdict on the candidate of `it`: with at least `promote_score`
/// against the best, its row of the Elo table (rated over the best, made in
/// the CPU-hours spent so far); else `None`, and it is dropped.
fn gate_verdict(state: &LoopState, result: &MatchResult, promote_score: f64, it: &Iteration) -> Option<EloEntry> {
    (result.score >= promote_score)
        .then(|| EloEntry::rated(it.number, it.id.clone(), state.best_elo, result, state.cpu_hours))
}

/// Promotes the candidate in `candidate`, rated `entry`: copied under
/// `models/` with its rating and lineage, published on the store, and made
/// the best (and the newest network, with `train_from = "latest"`).
fn promote(run: &Run<'_>, candidate: &Path, entry: EloEntry, state: &mut LoopState) -> Result<(), TrainError> {
    let promoted = run.models().join(&entry.model);
    copy_model(candidate, &promoted)?;
    let info = ModelInfo {
        elo: Some(entry.elo),
        cpu_hours: entry.cpu_hours,
        iterations: run.first + entry.iteration,
        ..load_info(&promoted)?
    };
    pente_nn::store::save_info(&info, &promoted)?;
    if let Some(link) = run.store {
        link.store.publish_model(&entry.model, &promoted, &pente_nn::store::MODEL_FILES)?;
    }
    if state.latest.is_some() {
        // The same network: the next iteration goes on from the best.
        state.latest = Some(promoted.clone());
    }
    state.make_best(entry, promoted);
    Ok(())
}

/// Ends an iteration: its stage times appended to `timings.csv` and
/// reported, the state saved as of it (and copied to the store).
fn finish_iteration(
    run: &Run<'_>,
    it: &Iteration,
    times: &StageTimes,
    state: &mut LoopState,
    report: &mut dyn FnMut(LoopEvent<'_>),
) -> Result<(), TrainError> {
    append_timing(&run.dir.join("timings.csv"), times)?;
    report(LoopEvent::Timing(times));
    state.iteration = it.number;
    save_state(&run.dir, state)?;
    if let Some(link) = run.store {
        link.put_records(&run.dir)?;
    }
    Ok(())
}

/// Stages `final` and `baseline` of a run that promoted a network: the best
/// against the first, then the baselines against the best, each once.
fn final_stage(
    run: &Run<'_>,
    state: &mut LoopState,
    cpu: &mut CpuMeter,
    report: &mut dyn FnMut(LoopEvent<'_>),
) -> Result<(), TrainError> {
    if state.best == run.initial() {
        return Ok(());
    }
    let (last, best) = (state.iteration, state.best.clone());
    let best_hours = load_info(&best)?.cpu_hours;
    if !state.table.iter().any(|e| e.iteration == last && e.model.ends_with("(final)")) {
        report(LoopEvent::Stage {
            iteration: last,
            stage: "final",
            detail: "the best network against the first".into(),
        });
        let arena = run.config.arena_config(run.config.selfplay.seed ^ 0xF1F1, run.config.arena.games);
        let (best_spec, first_spec) = (run.arena_spec(&best), run.arena_spec(&run.initial()));
        let result = cached_match(&final_path(&run.dir, last), &best_spec, &first_spec, &arena, run.backend, report)?;
        state.table.push(final_entry(state, &best, &result, best_hours));
        state.cpu_hours += cpu.take();
        save_state(&run.dir, state)?;
    }
    if rate_baselines(run, last, &best, (state.best_elo, best_hours), state, report)? {
        state.cpu_hours += cpu.take();
        save_state(&run.dir, state)?;
    }
    Ok(())
}

/// The Elo table's row of the best network `best` (`<name> (final)`), made
/// in `best_hours`, from its final match against the first network: rated
/// over the first network's Elo.
fn final_entry(state: &LoopState, best: &Path, result: &MatchResult, best_hours: f64) -> EloEntry {
    let name = best.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let first_elo = state.table.first().map_or(0.0, |e| e.elo);
    EloEntry::rated(state.iteration, format!("{name} (final)"), first_elo, result, best_hours)
}

/// Stage `export`: the best network and the run's records into `to`.
fn export_stage(
    run: &Run<'_>,
    state: &LoopState,
    to: &Path,
    report: &mut dyn FnMut(LoopEvent<'_>),
) -> Result<(), TrainError> {
    report(LoopEvent::Stage {
        iteration: state.iteration,
        stage: "export",
        detail: format!("{} to {}", state.best.display(), to.display()),
    });
    // The network goes last (in `export_best`), so that a kill part way
    // leaves the folder's network with the records and samples that led to it.
    if run.config.carry_window > 0 {
        carry_out(&run.dir, state, run.first, run.config.carry_window, to)?;
    } else if to.join(WINDOW_DIR).is_dir() {
        let window = to.join(WINDOW_DIR);
        std::fs::remove_dir_all(&window).map_err(io(&window))?;
    }
    carry_latest_out(run, state, to)?;
    export_best(&run.dir, state, run.first, to)
}

/// The export's `latest/`: with `train_from = "latest"`, the newest
/// candidate when the gate did not make it the best, as `model.json` and
/// `model.safetensors` alone (the weights once, a third of a model folder);
/// the folder is removed otherwise. Written beside it and renamed, so a
/// kill leaves the old one or the new one.
fn carry_latest_out(run: &Run<'_>, state: &LoopState, to: &Path) -> Result<(), TrainError> {
    use pente_nn::store::{INFO_FILE, SAFETENSORS_FILE};
    let dir = to.join(LATEST_DIR);
    let remove = |path: &Path| match std::fs::remove_dir_all(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(path)(e)),
        _ => Ok(()),
    };
    let newer = match (&state.latest, run.config.train_from) {
        (Some(latest), TrainFrom::Latest) if *latest != state.best => latest,
        _ => return remove(&dir),
    };
    let partial = dir.with_extension("tmp");
    remove(&partial)?;
    std::fs::create_dir_all(&partial).map_err(io(&partial))?;
    for file in [INFO_FILE, SAFETENSORS_FILE] {
        std::fs::copy(newer.join(file), partial.join(file)).map_err(io(&newer.join(file)))?;
    }
    remove(&dir)?;
    std::fs::rename(&partial, &dir).map_err(io(&dir))
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
    if config.carry_window > 0 {
        return Err(TrainError::Config(
            "carry_window: a run on a store trains on the store's chunks, which outlast a sitting already".into(),
        ));
    }
    if config.train_from == TrainFrom::Latest {
        return Err(TrainError::Config(
            "train_from = \"latest\": a run on a store trains from the best network, the one its workers play".into(),
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
/// records, added to what earlier runs (sittings) left there: its config
/// replaces theirs; its training curve, Elo table and stage times are
/// appended (rows already there are not repeated, so exporting twice
/// changes nothing), and its matches join theirs in `arena/`. Iterations
/// are renumbered as generations (the run's iteration `k` is generation
/// `first + k`), so one campaign's sittings never share a number. The
/// network's `cpu_hours` and `iterations` become the run's totals, so that
/// a run starting from it counts on from everything spent. It is copied
/// last: a kill part way leaves the earlier network in place, and running
/// the loop again finishes the export.
fn export_best(dir: &Path, state: &LoopState, first: u32, to: &Path) -> Result<(), TrainError> {
    std::fs::create_dir_all(to).map_err(io(to))?;
    if let Ok(text) = std::fs::read_to_string(dir.join("loop.toml")) {
        write_atomically(&to.join("loop.toml"), &text)?;
    }
    // The start network's baseline matches this run took from here
    // ([`reuse_start_baselines`]): they and their rows are here already.
    let reused_files: std::collections::HashSet<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("baseline-") && n.ends_with("-000.json"))
                && exported_already(path, &to.join("arena"))
        })
        .collect();
    let reused: std::collections::HashSet<String> =
        reused_files.iter().filter_map(|path| read_match(path).map(|m| m.a)).collect();
    for file in [crate::trainer::METRICS_FILE, "elo.csv", "timings.csv"] {
        let Ok(ours) = std::fs::read_to_string(dir.join(file)) else { continue };
        let theirs = std::fs::read_to_string(to.join(file)).unwrap_or_default();
        let mut text =
            if theirs.is_empty() { format!("{}\n", ours.lines().next().unwrap_or_default()) } else { theirs };
        let rows: std::collections::HashSet<String> = text.lines().map(str::to_string).collect();
        let rated: std::collections::HashSet<&str> = rows.iter().filter_map(|row| row.split(',').nth(1)).collect();
        for (i, row) in ours.lines().skip(1).enumerate() {
            // A run's first row rates its start network, which the run that
            // exported it has rated already, as it did in the baseline
            // matches this run reused.
            let mut fields = row.split(',');
            let (iteration, model) = (fields.next(), fields.next());
            let start_again = file == "elo.csv"
                && (i == 0 && model.is_some_and(|m| rated.contains(m))
                    || iteration == Some("0") && model.is_some_and(|m| reused.contains(m)));
            let row = by_generation(row, first);
            if !rows.contains(&row) && !start_again {
                text.push_str(&row);
                text.push('\n');
            }
        }
        write_atomically(&to.join(file), &text)?;
    }
    let matches = to.join("arena");
    std::fs::create_dir_all(&matches).map_err(io(&matches))?;
    for entry in std::fs::read_dir(dir).map_err(io(dir))?.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if let Some(stem) = name.strip_suffix(".json").filter(|_| name != "loop.json") {
            // `baseline-heuristic-003.json` -> `baseline-heuristic-<first + 3>.json`;
            // the start's ratings (iteration 0) are `-<first>-start`, apart
            // from those the last sitting made of the same network at its end.
            let renamed = match stem.rsplit_once('-').and_then(|(head, k)| Some((head, k.parse::<u32>().ok()?))) {
                // One this run took from there ([`reuse_start_baselines`]).
                Some((_, 0)) if reused_files.contains(&entry.path()) => continue,
                Some((head, 0)) => format!("{head}-{first:03}-start.json"),
                Some((head, k)) => format!("{head}-{:03}.json", first + k),
                None => name,
            };
            copy_atomically(&entry.path(), &matches.join(renamed))?;
        }
    }
    for k in 1..=state.iteration {
        let gate = iteration_dir(dir, k).join("arena.json");
        if gate.is_file() {
            copy_atomically(&gate, &matches.join(format!("gate-{:03}.json", first + k)))?;
        }
    }
    // A sitting that promoted nothing leaves the network there as it is:
    // the run's copy of it was saved anew, in bytes that differ for nothing.
    let unchanged = load_info(to).is_ok_and(|there| load_info(&state.best).is_ok_and(|best| best.id == there.id));
    if !unchanged && to.canonicalize().ok() != state.best.canonicalize().ok() {
        copy_model(&state.best, to)?;
    }
    let info = ModelInfo {
        cpu_hours: state.cpu_hours,
        elo: Some(state.best_elo),
        iterations: first + state.iteration,
        ..load_info(to)?
    };
    Ok(pente_nn::store::save_info(&info, to)?)
}

/// Whether a file in `dir` holds the same bytes as `file`.
fn exported_already(file: &Path, dir: &Path) -> bool {
    let Ok(bytes) = std::fs::read(file) else { return false };
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| e.path().extension().is_some_and(|x| x == "json") && std::fs::read(e.path()).is_ok_and(|b| b == bytes))
}

/// A CSV row of a run whose first field is the run's iteration `k`, with
/// that field made the generation `first + k`.
fn by_generation(row: &str, first: u32) -> String {
    match row.split_once(',').and_then(|(k, rest)| Some((k.parse::<u32>().ok()?, rest))) {
        Some((k, rest)) => format!("{},{rest}", first + k),
        None => row.to_string(),
    }
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
    Ok(pente_nn::store::load_info(dir)?)
}

/// The match of the final network against the first.
fn final_path(dir: &Path, iteration: u32) -> PathBuf {
    dir.join(format!("final-{iteration:03}.json"))
}

/// The match of a baseline against the network of `iteration`.
fn baseline_path(dir: &Path, baseline: &str, iteration: u32) -> PathBuf {
    dir.join(format!("{}{iteration:03}.json", baseline_prefix(baseline)))
}

/// How the names of a baseline's match files begin.
fn baseline_prefix(baseline: &str) -> String {
    format!("baseline-{}-", baseline.replace(':', "-"))
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

/// A baseline's name as a player of its matches and in the Elo table.
fn player_name(baseline: &str, spec: &PlayerSpec) -> String {
    match spec.kind {
        PlayerKind::TextPente(_) => baseline.to_string(),
        _ => format!("{baseline}@{}", spec.visits),
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
        let name = player_name(baseline, &spec);
        if state.table.iter().any(|e| e.iteration == iteration && e.model == name) {
            continue;
        }
        report(LoopEvent::Stage {
            iteration,
            stage: "baseline",
            detail: format!("{baseline} against {}", model.display()),
        });
        let network = PlayerSpec::model(model, config.arena.visits);
        let arena = config.arena_config(
            config.selfplay.seed ^ 0xBA5E ^ u64::from(iteration),
            config.arena.baseline_games.unwrap_or(config.arena.games),
        );
        let result =
            cached_match(&baseline_path(dir, baseline, iteration), &spec, &network, &arena, run.backend, report)?;
        state.table.push(EloEntry::rated(iteration, name, model_elo, &result, model_hours));
        rated = true;
    }
    Ok(rated)
}

/// Appends `times` to `timings.csv` (header first if new). A row is a few
/// bytes written in one call; a kill before it only loses that row.
fn append_timing(path: &Path, times: &StageTimes) -> Result<(), TrainError> {
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(io(path))?;
    let mut row = String::new();
    if file.metadata().map_err(io(path))?.len() == 0 {
        row.push_str("iteration,selfplay_s,train_s,arena_s,cpu_s\n");
    }
    row.push_str(&format!(
        "{},{:.2},{:.2},{:.2},{:.1}\n",
        times.iteration, times.selfplay_s, times.train_s, times.arena_s, times.cpu_s
    ));
    file.write_all(row.as_bytes()).map_err(io(path))
}

/// Rebuilds the run's `metrics.csv` from every iteration's own file, so a
/// rerun does not duplicate rows.
fn rebuild_metrics(dir: &Path) -> Result<(), TrainError> {
    let mut rows = String::from(crate::trainer::METRICS_HEADER);
    rows.push('\n');
    let mut iterations: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("train").join(crate::trainer::METRICS_FILE).is_file())
        .collect();
    iterations.sort();
    for iteration in iterations {
        let path = iteration.join("train").join(crate::trainer::METRICS_FILE);
        let text = std::fs::read_to_string(&path).map_err(io(&path))?;
        for line in text.lines().skip(1) {
            rows.push_str(line);
            rows.push('\n');
        }
    }
    let path = dir.join(crate::trainer::METRICS_FILE);
    let tmp = path.with_extension("tmp");
    let mut file = std::fs::File::create(&tmp).map_err(io(&tmp))?;
    file.write_all(rows.as_bytes()).map_err(io(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(io(&path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::{Elo, tally};

    /// A made-up gate result, from the candidate's side (its Elo values
    /// halves, so that the sums the tests expect are exact).
    fn result(wins: u32, losses: u32, draws: u32, score: f64, (diff, low, high): (f64, f64, f64)) -> MatchResult {
        MatchResult { a: "ci-3@8".into(), b: "ci-2@8".into(), wins, losses, draws, score, elo: Elo { diff, low, high } }
    }

    fn entry(iteration: u32, model: &str, elo: f64) -> EloEntry {
        EloEntry { iteration, model: model.into(), elo, elo_low: elo, elo_high: elo, games: 0, cpu_hours: 0.0 }
    }

    /// A run after two iterations: its first network `ci-0` at -20 Elo (a
    /// start network's), the best `ci-2` at +100, 2.5 CPU-hours spent.
    fn state() -> LoopState {
        LoopState {
            iteration: 2,
            best: PathBuf::from("runs/ci/models/ci-2"),
            best_elo: 100.0,
            cpu_hours: 2.5,
            first_generation: Some(0),
            table: vec![entry(0, "ci-0", -20.0), entry(2, "ci-2", 100.0)],
            store_games: 0,
            latest: None,
        }
    }

    fn iteration(k: u32) -> Iteration {
        Iteration { number: k, id: format!("ci-{k}"), dir: PathBuf::from(format!("runs/ci/iter-{k:03}")) }
    }

    /// The gate's verdict at the default promotion score (55 %).
    fn verdict(state: &LoopState, result: &MatchResult, k: u32) -> Option<EloEntry> {
        gate_verdict(state, result, default_promote_score(), &iteration(k))
    }

    #[test]
    fn a_winning_candidate_is_promoted_rated_over_the_best() {
        let mut state = state();
        let won = result(3, 1, 0, 0.75, (190.5, -20.0, 401.5));
        let entry = verdict(&state, &won, 3).expect("75 % passes the gate");
        let expected = EloEntry {
            iteration: 3,
            model: "ci-3".into(),
            elo: 290.5,
            elo_low: 80.0,
            elo_high: 501.5,
            games: 4,
            cpu_hours: 2.5,
        };
        assert_eq!(entry, expected);

        state.make_best(entry, PathBuf::from("runs/ci/models/ci-3"));
        assert_eq!(state.best, PathBuf::from("runs/ci/models/ci-3"));
        assert_eq!(state.best_elo, 290.5);
        assert_eq!(state.table.len(), 3);
        assert_eq!(state.table[2], expected);
        assert_eq!((state.iteration, state.cpu_hours), (2, 2.5), "left to the end of the iteration");
    }

    #[test]
    fn a_losing_candidate_is_dropped() {
        let lost = result(1, 3, 0, 0.25, (-190.5, -401.5, 20.0));
        assert_eq!(verdict(&state(), &lost, 3), None);
        let level = result(2, 2, 0, 0.5, (0.0, -338.0, 338.0));
        assert_eq!(verdict(&state(), &level, 3), None, "an even match is not enough");
    }

    /// Draws count half towards the score, and every game, drawn or not,
    /// counts towards the games the rating is from.
    #[test]
    fn a_draw_heavy_gate() {
        // (1 + 8 / 2) / 10 = 50 %.
        let even = tally("ci-3@8", "ci-2@8", &[[Some(true), Some(false)].as_slice(), &[None; 8]].concat());
        assert_eq!(verdict(&state(), &even, 3), None);
        // (2 + 8 / 2) / 10 = 60 %.
        let ahead = result(2, 0, 8, 0.6, (70.5, 10.0, 130.0));
        let entry = verdict(&state(), &ahead, 3).expect("60 % passes the gate");
        assert_eq!((entry.games, entry.elo, entry.elo_low, entry.elo_high), (10, 170.5, 110.0, 230.0));
    }

    /// A score exactly at `promote_score` promotes; just under it does not.
    #[test]
    fn the_gate_threshold_itself_promotes() {
        // 11 wins of 20 is 55 %, the default promotion score.
        let results: Vec<Option<bool>> = [Some(true); 11].into_iter().chain([Some(false); 9]).collect();
        let at = tally("ci-3@8", "ci-2@8", &results);
        assert_eq!(at.score, 0.55);
        let entry = verdict(&state(), &at, 3).expect("55 % is enough");
        assert_eq!((entry.model.as_str(), entry.games), ("ci-3", 20));
        // 10 wins, 9 losses and a draw: 52.5 %.
        let results: Vec<Option<bool>> = [Some(true); 10].into_iter().chain([Some(false); 9]).chain([None]).collect();
        assert_eq!(verdict(&state(), &tally("ci-3@8", "ci-2@8", &results), 3), None);
        // The threshold is the config's: the same 52.5 % passes a gate at 50 %.
        let lenient = gate_verdict(&state(), &tally("ci-3@8", "ci-2@8", &results), 0.5, &iteration(3));
        assert!(lenient.is_some());
    }

    /// Each promotion rates the new best over the one it beat, so the
    /// table's Elo adds up along the line of best networks; a failed gate
    /// changes nothing.
    #[test]
    fn promotions_chain_the_elo_of_the_best() {
        let mut state = LoopState {
            best: PathBuf::from("runs/ci/models/ci-0"),
            table: vec![entry(0, "ci-0", 0.0)],
            ..LoopState::default()
        };
        let gates = [
            result(7, 3, 0, 0.7, (100.0, 20.0, 180.0)),
            result(6, 4, 0, 0.6, (50.0, -30.0, 130.0)),
            result(4, 6, 0, 0.4, (-70.0, -150.0, 10.0)),
        ];
        for (k, gate) in (1..).zip(&gates) {
            if let Some(entry) = verdict(&state, gate, k) {
                state.make_best(entry, PathBuf::from(format!("runs/ci/models/ci-{k}")));
            }
        }
        assert_eq!(state.best, PathBuf::from("runs/ci/models/ci-2"));
        assert_eq!(state.best_elo, 150.0);
        let rows: Vec<(&str, f64, f64, f64)> =
            state.table.iter().map(|e| (e.model.as_str(), e.elo, e.elo_low, e.elo_high)).collect();
        assert_eq!(rows, [("ci-0", 0.0, 0.0, 0.0), ("ci-1", 100.0, 20.0, 180.0), ("ci-2", 150.0, 70.0, 230.0)]);
    }

    /// The final match rates the best over the first network (not over
    /// itself), with the CPU-hours that made it; a baseline is rated over
    /// the network it played, from its own side.
    #[test]
    fn final_and_baseline_rows() {
        let state = state();
        let best = Path::new("runs/ci/models/ci-2");
        let final_match = result(9, 1, 0, 0.9, (381.5, 250.0, 381.5));
        let row = final_entry(&state, best, &final_match, 2.25);
        let expected = EloEntry {
            iteration: 2,
            model: "ci-2 (final)".into(),
            elo: 361.5,
            elo_low: 230.0,
            elo_high: 361.5,
            games: 10,
            cpu_hours: 2.25,
        };
        assert_eq!(row, expected);

        // uniform@8 lost 1-3 to the best (+100): its side of the match.
        let baseline = result(3, 1, 0, 0.75, (190.5, -20.0, 401.5)).flipped();
        let row = EloEntry::rated(2, "uniform@8".into(), state.best_elo, &baseline, 2.25);
        assert_eq!((row.elo, row.elo_low, row.elo_high, row.games), (-90.5, -301.5, 120.0, 4));
    }

    /// A start folder's window comes into a new run up to `carry_window`
    /// iterations, the newest, never one after the start network; the export
    /// keeps the newest of those and of the run's own, and clears the rest
    /// out (a copy a kill left half done included).
    #[test]
    fn the_window_carries_the_newest_generations() {
        let root = std::env::temp_dir().join(format!("pente-carry-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let names = |dir: &Path| {
            let mut names: Vec<String> = std::fs::read_dir(dir)
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        let start = root.join("start").join(WINDOW_DIR);
        std::fs::create_dir_all(&start).unwrap();
        for generation in [5, 7, 9] {
            std::fs::write(start.join(format!("samples-{generation:03}.bin")), vec![0; generation]).unwrap();
        }
        let run = root.join("run");
        carry_in(&start, 8, 1, &run.join(WINDOW_DIR)).unwrap();
        assert_eq!(names(&run.join(WINDOW_DIR)), ["samples-007.bin"]);

        // The run's iterations 1 and 2 (state()) are generations 9 and 10.
        for k in 1..=2 {
            let selfplay = iteration_dir(&run, k).join("selfplay");
            std::fs::create_dir_all(&selfplay).unwrap();
            std::fs::write(selfplay.join(pente_selfplay::SAMPLES_FILE), vec![k as u8; 10 + k as usize]).unwrap();
        }
        let export = root.join("export").join(WINDOW_DIR);
        std::fs::create_dir_all(&export).unwrap();
        std::fs::write(export.join("samples-003.bin"), b"old").unwrap();
        std::fs::write(export.join("samples-010.tmp"), b"half").unwrap();
        carry_out(&run, &state(), 8, 2, &root.join("export")).unwrap();
        assert_eq!(names(&export), ["samples-009.bin", "samples-010.bin"]);
        assert_eq!(std::fs::read(export.join("samples-010.bin")).unwrap(), vec![2; 12]);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
