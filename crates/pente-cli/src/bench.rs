//! `pente bench`: speed figures of the toolkit's components.

use std::cell::Cell;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use pente_core::{EndReason, Point, Position, Rules, Variant};
use pente_nn::{BurnBackend, ModelInfo, NetConfig};
use pente_ort::OrtBackend;
use pente_search::solver::{Solver, SolverParams};
use pente_search::{
    Backend, Evaluation, Evaluator, HeuristicEvaluator, Search, SearchParams, SolverStats, TacticsParams,
    UniformEvaluator, search_many,
};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// What to measure.
#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Random playouts on one thread: stone placements (with capture and
    /// five detection and random move choice) per second, and games per second.
    Rules(RulesBenchArgs),
    /// Network evaluations per second (features, forward pass, masking and
    /// read-back) at several batch sizes, on each backend (or the one of --backend).
    Nn(NnBenchArgs),
    /// Search speed: playouts per second with a free evaluator, and the share
    /// of time spent outside the network when many games share its calls.
    Search(SearchBenchArgs),
    /// Tactics: positions of game records with a forced win of 1-N moves
    /// (found by a deep solver run), and how often the engine plays a
    /// winning move in them.
    Tactics(TacticsBenchArgs),
    /// Training steps: samples per second, and the share of each part
    /// (drawing the batch, encoding, forward, backward, optimizer).
    Train(TrainBenchArgs),
    /// Reading speed of a training samples file: decoding, rebuilding the
    /// positions as the trainer does, the columns the Python package reads,
    /// and the input planes (features version 2) of its positions.
    Samples {
        /// A samples.bin file.
        file: PathBuf,
    },
}

/// `println!` that hands a write error to the caller: a bench piped into
/// `head` ends quietly, as every other command does.
macro_rules! say {
    ($($arg:tt)*) => {
        writeln!(std::io::stdout(), $($arg)*)?
    };
}

/// The network a benchmark measures.
#[derive(Debug, Args)]
pub struct BenchNetwork {
    /// Model directory (or its ONNX file, e.g. `DIR/model.int8.onnx`, on ONNX Runtime);
    /// default: a random network of --blocks x --channels.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Residual blocks of the random network.
    #[arg(long, default_value_t = 6)]
    blocks: usize,
    /// Channels of the random network.
    #[arg(long, default_value_t = 64)]
    channels: usize,
    /// Board side.
    #[arg(long, default_value_t = 19)]
    size: u8,
    /// Backend: `ort`, `burn` or `auto`; without it `bench nn` measures both
    /// and `bench search` takes `auto`.
    #[arg(long, env = "PENTE_BACKEND", value_parser = crate::player::backend_name)]
    backend: Option<String>,
    /// Threads of the ONNX Runtime session; default RAYON_NUM_THREADS (what
    /// burn uses), else one per core.
    #[arg(long)]
    threads: Option<usize>,
}

impl BenchNetwork {
    /// The model directory of `--model`, or a random network of the given
    /// shape saved in a temporary one.
    fn model_dir(&self) -> anyhow::Result<BenchModel> {
        if let Some(dir) = &self.model {
            return Ok(BenchModel { dir: dir.clone(), temporary: false });
        }
        let dir = std::env::temp_dir().join(format!("pente-bench-{}-{}", std::process::id(), self.channels));
        let device = pente_nn::cpu();
        device.seed(0);
        let config = NetConfig::scaled(self.blocks, self.channels);
        let info = ModelInfo::new(format!("random-b{}c{}", self.blocks, self.channels), config.clone());
        pente_nn::store::save(&config.init(&device), &info, &dir)?;
        Ok(BenchModel { dir, temporary: true })
    }

    /// The backends to measure: the one of `--backend`, else burn and (if
    /// its library is found) ONNX Runtime.
    fn backends(&self) -> anyhow::Result<Vec<Arc<dyn Backend>>> {
        if let Some(name) = &self.backend {
            return Ok(vec![crate::player::choose_backend(name)?]);
        }
        let registry = crate::player::backends();
        let mut backends = vec![registry.open(BurnBackend::NAME)?.backend];
        match registry.open(OrtBackend::NAME) {
            Ok(opened) => {
                eprintln!("{}", opened.summary());
                backends.push(opened.backend);
            }
            Err(error) => eprintln!("ONNX Runtime not measured: {error}"),
        }
        Ok(backends)
    }

    /// The network of `model` as an evaluator on `backend`, and the threads
    /// it runs on. burn reads the weights file lazily: keep `model` until
    /// the evaluator is done.
    fn evaluator(&self, backend: &dyn Backend, model: &BenchModel) -> anyhow::Result<(Box<dyn Evaluator>, usize)> {
        let threads = self.threads.unwrap_or_else(rayon_threads);
        Ok((backend.load(&model.dir, threads)?, backend.threads(threads)))
    }
}

/// A model directory to measure; a temporary one is removed when done.
struct BenchModel {
    dir: PathBuf,
    temporary: bool,
}

impl Drop for BenchModel {
    fn drop(&mut self) {
        if self.temporary {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Arguments of `pente bench nn`.
#[derive(Debug, Args)]
pub struct NnBenchArgs {
    #[command(flatten)]
    network: BenchNetwork,
    /// Batch sizes (repeat the flag).
    #[arg(long, default_values_t = [1, 16, 64, 256])]
    batch: Vec<usize>,
    /// Seconds per batch size.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
}

/// Arguments of `pente bench train`.
#[derive(Debug, Args)]
pub struct TrainBenchArgs {
    /// samples.bin files, or directories holding them (e.g. a `pente selfplay` output).
    #[arg(long, required = true)]
    samples: Vec<PathBuf>,
    /// Model directory; default: a random network of --blocks x --channels.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Residual blocks of the random network.
    #[arg(long, default_value_t = 4)]
    blocks: usize,
    /// Channels of the random network.
    #[arg(long, default_value_t = 32)]
    channels: usize,
    /// Positions per step.
    #[arg(long, default_value_t = 256)]
    batch: usize,
    /// Steps timed (after one warm-up step).
    #[arg(long, default_value_t = 10)]
    steps: u64,
}

/// Arguments of `pente bench search`.
#[derive(Debug, Args)]
pub struct SearchBenchArgs {
    #[command(flatten)]
    network: BenchNetwork,
    /// Games searched together, sharing network calls.
    #[arg(long, default_value_t = 32)]
    games: usize,
    /// Playouts per move.
    #[arg(long, default_value_t = 64)]
    visits: u32,
    /// Moves played per game with the network.
    #[arg(long, default_value_t = 4)]
    moves: usize,
}

/// Arguments of `pente bench tactics`.
#[derive(Debug, Args)]
pub struct TacticsBenchArgs {
    /// Game records (PGN, games.csv, games.jsonl) whose positions are tried.
    #[arg(long, required = true, num_args = 1..)]
    games: Vec<PathBuf>,
    /// Network directory, or `heuristic` / `uniform`; default: the shipped network.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Playouts of the engine per position.
    #[arg(long, default_value_t = 400)]
    visits: u32,
    /// Longest forced win kept, in moves of the winner.
    #[arg(long, default_value_t = 5)]
    max_moves: u8,
    /// Quiet threats (open threes, moves that threaten a VCF) the reference solver may use.
    #[arg(long, default_value_t = 2)]
    threes: u8,
    /// Nodes of the reference solver per position.
    #[arg(long, default_value_t = 300_000)]
    nodes: u64,
    /// Stop after this many positions with a forced win.
    #[arg(long, default_value_t = 300)]
    positions: usize,
    /// Search without the threat solver (to measure what it adds).
    #[arg(long)]
    no_solver: bool,
    #[command(flatten)]
    backend: crate::player::BackendArgs,
}

/// Arguments of `pente bench rules`.
#[derive(Debug, Args)]
pub struct RulesBenchArgs {
    /// Variants to measure (repeat the flag for several); all by default.
    #[arg(value_parser = crate::variant_parser(), ignore_case = true, long)]
    variant: Vec<Variant>,
    /// Board side, odd, 7 to 19.
    #[arg(long, default_value_t = 19)]
    size: u8,
    /// Seconds of playouts per variant.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Seed of the random playouts.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs a `pente bench` subcommand.
pub fn run(command: &BenchCommand) -> anyhow::Result<ExitCode> {
    match command {
        BenchCommand::Rules(args) => bench_rules(args),
        BenchCommand::Nn(args) => bench_nn(args),
        BenchCommand::Search(args) => bench_search(args),
        BenchCommand::Tactics(args) => bench_tactics(args),
        BenchCommand::Train(args) => bench_train(args),
        BenchCommand::Samples { file } => bench_samples(file),
    }
}

#[derive(Default)]
struct Tally {
    games: u64,
    placements: u64,
    wins: [u64; 2],
    draws: u64,
    fives: u64,
    capture_wins: u64,
}

fn bench_rules(args: &RulesBenchArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(args.seconds > 0.0 && args.seconds.is_finite(), "--seconds must be a positive number");
    let variants = if args.variant.is_empty() { Variant::ALL.to_vec() } else { args.variant.clone() };
    say!("random playouts, one thread, {0}x{0}, {1} s per variant, seed {2}", args.size, args.seconds, args.seed);
    say!(
        "{:<15} {:>8} {:>11} {:>10} {:>14} {:>10} {:>7} {:>7} {:>6} {:>7} {:>9}",
        "variant",
        "games",
        "placements",
        "plies/game",
        "placements/s",
        "games/s",
        "white%",
        "black%",
        "draw%",
        "five%",
        "captures%"
    );
    for variant in variants {
        let rules = Rules::new(variant, args.size)?;
        let (tally, elapsed) = playouts(rules, args.seed, Duration::from_secs_f64(args.seconds));
        let games = tally.games as f64;
        let pct = |n: u64| 100.0 * n as f64 / games;
        say!(
            "{:<15} {:>8} {:>11} {:>10.1} {:>14.0} {:>10.0} {:>7.2} {:>7.2} {:>6.2} {:>7.2} {:>9.2}",
            variant.name(),
            tally.games,
            tally.placements,
            tally.placements as f64 / games,
            tally.placements as f64 / elapsed,
            games / elapsed,
            pct(tally.wins[0]),
            pct(tally.wins[1]),
            pct(tally.draws),
            pct(tally.fives),
            pct(tally.capture_wins),
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Plays random games for about `budget`; returns the tally and the seconds spent.
fn playouts(rules: Rules, seed: u64, budget: Duration) -> (Tally, f64) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut tally = Tally::default();
    let start = Instant::now();
    // Check the clock every batch of games, not every game.
    while start.elapsed() < budget {
        for _ in 0..64 {
            let (outcome, placements) = Position::new(rules).random_playout(&mut rng);
            tally.games += 1;
            tally.placements += u64::from(placements);
            match outcome.winner {
                Some(color) => tally.wins[color.index()] += 1,
                None => tally.draws += 1,
            }
            match outcome.reason {
                EndReason::Five => tally.fives += 1,
                EndReason::Captures => tally.capture_wins += 1,
                EndReason::Full => {}
            }
        }
    }
    (tally, start.elapsed().as_secs_f64())
}

/// Positions from random games, 10 to 60 moves in.
fn sample_positions(rules: Rules, count: usize, seed: u64) -> Vec<Position> {
    Position::random_positions(rules, count, &mut SmallRng::seed_from_u64(seed), |_, i| 10 + i % 50)
}

fn bench_nn(args: &NnBenchArgs) -> anyhow::Result<ExitCode> {
    let size = args.network.size;
    let rules = Rules::new(Variant::Pente, size)?;
    let positions = sample_positions(rules, args.batch.iter().copied().max().unwrap_or(1), 7);
    let model = args.network.model_dir()?;
    for backend in args.network.backends()? {
        let (network, threads) = args.network.evaluator(backend.as_ref(), &model)?;
        say!("network {} on {size}x{size} boards, backend {}, {threads} threads", network.name(), backend.name());
        bench_batches(network.as_ref(), &positions, args)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// One line per batch size: positions/s and ms per call.
fn bench_batches(network: &dyn Evaluator, positions: &[Position], args: &NnBenchArgs) -> anyhow::Result<()> {
    say!("{:>6} {:>14} {:>12}", "batch", "positions/s", "ms/batch");
    for &batch in &args.batch {
        anyhow::ensure!(batch > 0, "batch sizes must be positive");
        let refs: Vec<&Position> = positions.iter().take(batch).collect();
        network.evaluate(&refs); // warm-up
        let start = Instant::now();
        let mut calls = 0u32;
        while calls < 2 || start.elapsed().as_secs_f64() < args.seconds {
            network.evaluate(&refs);
            calls += 1;
        }
        let elapsed = start.elapsed().as_secs_f64();
        say!(
            "{:>6} {:>14.1} {:>12.2}",
            batch,
            f64::from(calls) * batch as f64 / elapsed,
            1000.0 * elapsed / f64::from(calls)
        );
    }
    Ok(())
}

/// Counts the time spent inside an evaluator.
struct Timed<'a> {
    inner: &'a dyn Evaluator,
    time: Cell<Duration>,
    positions: Cell<usize>,
    calls: Cell<usize>,
}

impl Evaluator for Timed<'_> {
    fn evaluate(&self, positions: &[&Position]) -> Vec<Evaluation> {
        let start = Instant::now();
        let out = self.inner.evaluate(positions);
        self.time.set(self.time.get() + start.elapsed());
        self.positions.set(self.positions.get() + positions.len());
        self.calls.set(self.calls.get() + 1);
        out
    }

    fn name(&self) -> String {
        self.inner.name()
    }
}

/// Positions of games played by sampling the heuristic's priors: stones in
/// clusters with the threats and captures of real play, unlike uniform moves.
fn tactical_positions(rules: Rules, count: usize, seed: u64) -> Vec<Position> {
    let heuristic = HeuristicEvaluator::default();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut positions = Vec::with_capacity(count);
    while positions.len() < count {
        let mut position = Position::new(rules);
        let plies = 8 + positions.len() % 40;
        for _ in 0..plies {
            if position.choice_pending().is_some() {
                let choice = position.random_legal_move(&mut rng).expect("a choice is open");
                position.play_unchecked(choice);
                continue;
            }
            let policy = &heuristic.evaluate(&[&position])[0].policy;
            let moves: Vec<Point> = position.legal_moves().collect();
            let weights: Vec<f32> = moves.iter().map(|p| policy[p.dense_index(rules.size())]).collect();
            let total: f32 = weights.iter().sum();
            let mut r = rng.random_range(0.0..total.max(f32::MIN_POSITIVE));
            let chosen = moves.iter().zip(&weights).find(|(_, w)| {
                r -= **w;
                r < 0.0
            });
            position.play_unchecked(*chosen.map_or(&moves[0], |(p, _)| p));
            if position.is_over() {
                break;
            }
        }
        if !position.is_over() {
            positions.push(position);
        }
    }
    positions
}

/// Plays `moves` moves in each of `games` games, all searches sharing
/// evaluator calls; returns the playouts and the solver's share.
fn play_games(
    starts: &[Position],
    moves: usize,
    params: &SearchParams,
    evaluator: &dyn Evaluator,
) -> (u64, SolverStats) {
    let mut searches: Vec<Search> =
        starts.iter().enumerate().map(|(i, p)| Search::new(p.clone(), params.clone(), i as u64)).collect();
    let mut playouts = 0;
    for _ in 0..moves {
        let before: u64 = searches.iter().map(|s| u64::from(s.visits())).sum();
        search_many(&mut searches, evaluator);
        playouts += searches.iter().map(|s| u64::from(s.visits())).sum::<u64>() - before;
        for search in &mut searches {
            if let Some(best) = search.result().best_move
                && !search.position().is_over()
            {
                search.advance(best);
            }
        }
    }
    let stats = searches
        .iter()
        .map(Search::solver_stats)
        .fold(SolverStats::default(), |a, b| SolverStats { nodes: a.nodes + b.nodes, time: a.time + b.time });
    (playouts, stats)
}

fn bench_search(args: &SearchBenchArgs) -> anyhow::Result<ExitCode> {
    let rules = Rules::new(Variant::Pente, args.network.size)?;
    let starts = tactical_positions(rules, args.games, 11);
    let tactics = SearchParams { visits: args.visits, ..SearchParams::default() };
    let plain =
        SearchParams { tactics: TacticsParams { enabled: false, ..tactics.tactics.clone() }, ..tactics.clone() };
    // 1. The search alone: an evaluator that costs nothing.
    let free = UniformEvaluator::default();
    let start = Instant::now();
    let (playouts, _) = play_games(&starts, args.moves * 4, &plain, &free);
    let elapsed = start.elapsed().as_secs_f64();
    say!(
        "search with a free evaluator, no solver: {playouts} playouts in {elapsed:.2} s = {:.0} playouts/s ({:.1} us each)",
        playouts as f64 / elapsed,
        1e6 * elapsed / playouts as f64
    );
    // 2. With the network, without and with the solver: where the time goes.
    let backend =
        crate::player::choose_backend(args.network.backend.as_deref().unwrap_or(pente_search::backend::AUTO))?;
    let model = args.network.model_dir()?;
    let (network, _) = args.network.evaluator(backend.as_ref(), &model)?;
    let mut plain_seconds = None;
    for (label, params) in [("no solver", &plain), ("with solver", &tactics)] {
        let timed = Timed {
            inner: network.as_ref(),
            time: Cell::default(),
            positions: Cell::default(),
            calls: Cell::default(),
        };
        let start = Instant::now();
        let (playouts, solver) = play_games(&starts, args.moves, params, &timed);
        let elapsed = start.elapsed().as_secs_f64();
        let in_network = timed.time.get().as_secs_f64();
        say!(
            "{label}: {} games x {} moves x {} visits with network {}: {playouts} playouts in {elapsed:.2} s = {:.1} playouts/s",
            args.games,
            args.moves,
            args.visits,
            network.name(),
            playouts as f64 / elapsed
        );
        say!(
            "  network calls: {}, mean batch {:.1}, {:.1} positions/s inside the network; time outside it {:.1} %",
            timed.calls.get(),
            timed.positions.get() as f64 / timed.calls.get().max(1) as f64,
            timed.positions.get() as f64 / in_network,
            100.0 * (elapsed - in_network) / elapsed
        );
        if solver.nodes > 0 {
            let solver_seconds = solver.time.as_secs_f64();
            say!(
                "  solver: {} nodes in {solver_seconds:.2} s = {:.0} nodes/s, {:.1} % of the search time",
                solver.nodes,
                solver.nodes as f64 / solver_seconds,
                100.0 * solver_seconds / elapsed
            );
        }
        match plain_seconds {
            None => plain_seconds = Some(elapsed),
            Some(before) => say!(
                "  the solver adds {:+.1} % to the search time at equal visits",
                100.0 * (elapsed - before) / before
            ),
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn bench_tactics(args: &TacticsBenchArgs) -> anyhow::Result<ExitCode> {
    let oracle_params =
        SolverParams { max_depth: args.max_moves, max_threes: args.threes, max_nodes: args.nodes, vcf_threats: true };
    let loaded =
        crate::player::load_evaluator(args.model.as_deref(), &mut crate::player::LazyBackend::new(&args.backend))?;
    let mut oracle = Solver::default();
    let mut seen = std::collections::HashSet::new();
    // Per win-in-N: positions, and those where the engine played a winning move.
    let mut table = vec![(0usize, 0usize); usize::from(args.max_moves) + 1];
    let mut found = 0;
    let start = Instant::now();
    'files: for path in &args.games {
        for game in pente_analysis::read_games(path)? {
            let game = game.map_err(|e| anyhow::anyhow!("{e}"))?;
            let mut position = Position::new(game.rules);
            for &point in &game.moves {
                if position.is_over() {
                    break;
                }
                if position.ply() >= 4 && seen.insert(position.hash()) {
                    let solution = oracle.solve(&position, &oracle_params);
                    if let Some(n) = solution.moves_to_win() {
                        let mut params = SearchParams { visits: args.visits, ..SearchParams::default() };
                        params.tactics.enabled = !args.no_solver;
                        let result = Search::new(position.clone(), params, 0).run(loaded.evaluator.as_ref());
                        let played = result.best_move.expect("an unfinished game has a move");
                        let wins = oracle.move_wins(&position, played, &oracle_params).is_some();
                        table[n].0 += 1;
                        table[n].1 += usize::from(wins);
                        if !wins {
                            eprintln!(
                                "missed a win in {n} ({}, {}): played {played}, the solver's line {}; moves: {}",
                                game.rules,
                                path.display(),
                                format_line(solution.line.as_deref().unwrap_or_default()),
                                format_line(&game.moves[..position.ply() as usize])
                            );
                        }
                        found += 1;
                        if found >= args.positions {
                            break 'files;
                        }
                    }
                }
                position.play(point).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            }
        }
    }
    say!(
        "{found} positions with a forced win (solver: win in <= {} moves, {} three(s), {} nodes); engine: {} at {} visits{}; {:.0} s",
        args.max_moves,
        args.threes,
        args.nodes,
        loaded.description,
        args.visits,
        if args.no_solver { " without the solver" } else { "" },
        start.elapsed().as_secs_f64()
    );
    say!("{:<8} {:>9} {:>14}", "win in", "positions", "winning move");
    let mut total = (0, 0);
    for (n, &(positions, wins)) in table.iter().enumerate().skip(1) {
        if positions > 0 {
            say!("{n:<8} {positions:>9} {wins:>7} {:>5.1} %", 100.0 * wins as f64 / positions as f64);
        }
        total = (total.0 + positions, total.1 + wins);
    }
    let multi = table.iter().skip(2).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    say!("{:<8} {:>9} {:>7} {:>5.1} %", "2+", multi.0, multi.1, 100.0 * multi.1 as f64 / multi.0.max(1) as f64);
    say!("{:<8} {:>9} {:>7} {:>5.1} %", "all", total.0, total.1, 100.0 * total.1 as f64 / total.0.max(1) as f64);
    Ok(ExitCode::SUCCESS)
}

fn format_line(moves: &[Point]) -> String {
    moves.iter().map(ToString::to_string).collect::<Vec<_>>().join(" ")
}

fn bench_train(args: &TrainBenchArgs) -> anyhow::Result<ExitCode> {
    let random;
    let model = match &args.model {
        Some(dir) => dir.clone(),
        None => {
            random = std::env::temp_dir().join(format!("pente-bench-train-{}", std::process::id()));
            let config = NetConfig::scaled(args.blocks, args.channels);
            pente_train::init_model(&config, &format!("random-b{}c{}", args.blocks, args.channels), 0, &random)?;
            random.clone()
        }
    };
    // The defaults of `train.toml` (learning rate, symmetries, ...) with these samples and batch.
    let mut config: pente_train::TrainConfig = toml::from_str("steps = 1").expect("a valid train config");
    config.samples.clone_from(&args.samples);
    config.batch_size = args.batch;
    let info = pente_nn::store::load_info(&model)?;
    let times = pente_train::profile_steps(&config, &model, args.steps.max(1));
    if args.model.is_none() {
        let _ = std::fs::remove_dir_all(&model);
    }
    let times = times?;
    let steps = times.steps as f64;
    say!(
        "training {} ({} x {}), batch {}, {} steps, {} threads: {:.1} samples/s, {:.1} ms/step",
        info.id,
        info.net.blocks,
        info.net.channels,
        args.batch,
        times.steps,
        rayon_threads(),
        steps * args.batch as f64 / times.total(),
        1000.0 * times.total() / steps
    );
    say!("{:<10} {:>10} {:>7}", "part", "ms/step", "share");
    for (part, seconds) in [
        ("sample", times.sample),
        ("encode", times.encode),
        ("forward", times.forward),
        ("backward", times.backward),
        ("optimizer", times.optimizer),
    ] {
        say!("{part:<10} {:>10.1} {:>6.1}%", 1000.0 * seconds / steps, 100.0 * seconds / times.total());
    }
    Ok(ExitCode::SUCCESS)
}

/// Threads of burn's CPU backend: `RAYON_NUM_THREADS`, else one per core.
fn rayon_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn bench_samples(file: &std::path::Path) -> anyhow::Result<ExitCode> {
    use anyhow::Context;
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let start = Instant::now();
    let games = pente_records::SamplesReader::new(&bytes[..])
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("decoding {}", file.display()))?;
    let decode = start.elapsed().as_secs_f64();
    let samples: usize = games.iter().map(|g| g.samples.len()).sum();
    say!(
        "{}: {} games, {samples} samples, {:.1} MB ({:.1} bytes/sample)",
        file.display(),
        games.len(),
        bytes.len() as f64 / 1e6,
        bytes.len() as f64 / samples.max(1) as f64
    );
    say!(
        "decode: {:.3} s = {:.0} samples/s, {:.0} MB/s",
        decode,
        samples as f64 / decode,
        bytes.len() as f64 / 1e6 / decode
    );
    // The trainer rebuilds each sampled position by replaying its game's moves.
    let start = Instant::now();
    let mut stones = 0usize;
    for game in &games {
        for sample in &game.samples {
            let replayed = pente_core::Game::from_moves(game.rules, game.moves[..sample.ply as usize].iter().copied())
                .with_context(|| format!("game {} does not replay", game.game_id))?;
            stones += replayed.position().empty_count();
        }
    }
    let replay = start.elapsed().as_secs_f64();
    std::hint::black_box(stones);
    say!("rebuild positions: {replay:.3} s = {:.0} samples/s", samples as f64 / replay);
    // What the Python package's read_samples does (the file, one board size),
    // with every column and with the compact ones.
    let size = games.first().map(|g| g.rules.size());
    for (name, columns) in [("every column", pente_dataset::Columns::ALL), ("compact", pente_dataset::Columns::COMPACT)]
    {
        let start = Instant::now();
        let options = pente_dataset::ReadOptions { size, columns, ..Default::default() };
        let read = pente_dataset::SampleChunks::open(file, options)?.read_all()?;
        let seconds = start.elapsed().as_secs_f64();
        say!(
            "columns, {name} (pente-dataset, as Python's read_samples): {} {}x{} samples in {seconds:.3} s = {:.0} samples/s",
            read.len(),
            read.size,
            read.size,
            read.len() as f64 / seconds
        );
    }
    // The input planes (features version 2) of up to 20 000 of those positions.
    let positions: Vec<pente_core::Position> = games
        .iter()
        .filter(|g| Some(g.rules.size()) == size)
        .flat_map(|g| g.samples.iter().map(move |s| (g, s.ply as usize)))
        .take(20_000)
        .map(|(g, ply)| {
            pente_core::Game::from_moves(g.rules, g.moves[..ply].iter().copied()).map(|game| game.position().clone())
        })
        .collect::<Result<_, _>>()
        .context("a game does not replay")?;
    let kind = pente_nn::features::Features::V2;
    let area = positions.first().map_or(0, |p| p.rules().area());
    // Filled first, so that neither figure includes the pages' first touch.
    let mut out = vec![1.0f32; positions.len() * kind.planes() * area];
    let start = Instant::now();
    for (position, out) in positions.iter().zip(out.chunks_exact_mut(kind.planes() * area)) {
        kind.encode(position, out);
    }
    let one = start.elapsed().as_secs_f64();
    let refs: Vec<&pente_core::Position> = positions.iter().collect();
    let start = Instant::now();
    pente_nn::features::encode_positions(kind, &refs, &mut out);
    let all = start.elapsed().as_secs_f64();
    say!(
        "features version 2 of {} positions: {:.0} positions/s on one thread, {:.0} on {} (as Python's encode)",
        positions.len(),
        positions.len() as f64 / one,
        positions.len() as f64 / all,
        rayon::current_num_threads()
    );
    Ok(ExitCode::SUCCESS)
}
