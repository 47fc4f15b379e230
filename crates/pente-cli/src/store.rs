//! `pente store` and `pente worker`: distributed self-play over a store
//! (a directory or object storage) that many stateless workers share.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use pente_selfplay::{SelfPlayConfig, WorkerEvent, WorkerOptions, run_worker};
use pente_store::Store;

use crate::player::BackendArgs;

/// `pente store ...`.
#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Create a store whose current model is a model directory.
    Init(InitArgs),
    /// The current model, the chunks of each worker, and the shared book builds still open.
    Status(StoreArg),
}

/// Where a store is: a directory (local or a shared file system) or an
/// object store URL.
#[derive(Debug, Clone, Args)]
pub struct StoreArg {
    /// A directory, or s3://bucket/prefix (also gs://, az://), configured
    /// from AWS_* (GOOGLE_*, AZURE_*) variables, e.g. AWS_ENDPOINT and
    /// AWS_ALLOW_HTTP=true for a local S3-compatible server.
    #[arg(long, value_name = "STORE")]
    pub store: String,
}

impl StoreArg {
    /// The store, opened.
    pub fn open(&self) -> anyhow::Result<Store> {
        Ok(Store::open(&self.store)?)
    }
}

/// Arguments of `pente store init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    #[command(flatten)]
    store: StoreArg,
    /// The first current model (a model directory; default: the shipped network).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Self-play settings for workers started without --config (TOML, as
    /// configs/selfplay.toml; `model` is ignored). `pente loop --store`
    /// replaces them with its own.
    #[arg(long)]
    config: Option<PathBuf>,
}

/// Runs `pente store ...`.
pub fn run(command: &StoreCommand) -> anyhow::Result<ExitCode> {
    match command {
        StoreCommand::Init(args) => init(args),
        StoreCommand::Status(args) => status(&args.open()?),
    }
}

fn init(args: &InitArgs) -> anyhow::Result<ExitCode> {
    let model = args
        .model
        .clone()
        .or_else(crate::player::default_model_dir)
        .context("no shipped network (data/models/default) here: pass --model")?;
    let info = pente_nn::store::load_info(&model).with_context(|| format!("reading {}", model.display()))?;
    let selfplay = args.config.as_deref().map(SelfPlayConfig::load).transpose()?;
    let store = Store::create(&args.store.store, &model, &info.id, &pente_nn::store::MODEL_FILES)?;
    if let Some(config) = selfplay {
        store.set_selfplay(&config.to_toml())?;
    }
    println!("store {}: current model {} (from {})", store.spec(), info.id, model.display());
    Ok(ExitCode::SUCCESS)
}

fn status(store: &Store) -> anyhow::Result<ExitCode> {
    println!("store {}", store.spec());
    println!("current model: {}", store.current_model()?);
    let chunks = store.chunks()?;
    let mut workers: std::collections::BTreeMap<&str, (u64, u64, u64)> = std::collections::BTreeMap::new();
    for chunk in &chunks {
        let entry = workers.entry(chunk.worker.as_str()).or_default();
        entry.0 += 1;
        entry.1 += chunk.games;
        entry.2 += chunk.samples;
    }
    println!("{:<24} {:>7} {:>8} {:>9}", "worker", "chunks", "games", "samples");
    for (worker, (n, games, samples)) in &workers {
        println!("{worker:<24} {n:>7} {games:>8} {samples:>9}");
    }
    let games: u64 = chunks.iter().map(|c| c.games).sum();
    println!("{:<24} {:>7} {:>8} {:>9}", "total", chunks.len(), games, chunks.iter().map(|c| c.samples).sum::<u64>());
    let aside = store.set_aside()?;
    if !aside.is_empty() {
        println!("set aside (left out of training): {}", aside.len());
        for chunk in &aside {
            println!("  {}: {}", chunk.manifest, chunk.reason);
        }
    }
    // Shared book builds still open (`pente book build --store`).
    for project in store.projects()? {
        let (tasks, done) = (store.task_names(&project)?.len(), store.done_names(&project)?.len());
        println!("open project {project}: {done} of {tasks} batches done");
        for rejected in store.rejected(&project)? {
            println!("  a result refused: {}", rejected.reason);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Arguments of `pente worker`.
#[derive(Debug, Args)]
pub struct WorkerArgs {
    #[command(flatten)]
    store: StoreArg,
    /// Self-play settings (TOML; `games` and `model` are ignored); default:
    /// the store's, as `pente loop --store` or `pente store init --config` left them.
    #[arg(long)]
    config: Option<PathBuf>,
    /// The worker's name: its chunks and seeds. A restarted worker given
    /// the same id goes on where it was. Default: host name and process id.
    #[arg(long)]
    id: Option<String>,
    /// Stop once the store holds this many of this worker's games (default: run until killed).
    #[arg(long)]
    games: Option<u64>,
    /// Games per chunk: what a kill can cost, and how often a new model is picked up.
    #[arg(long, default_value_t = 32)]
    chunk_games: u64,
    /// Where the chunk in flight is played (default: runs/worker-<id>).
    #[arg(long)]
    work: Option<PathBuf>,
    /// Self-play threads (0 = one per core); overrides the settings.
    #[arg(long)]
    threads: Option<usize>,
    /// Only a line per chunk, no progress bar.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

/// This machine's name, for a default worker id.
pub fn host_name() -> String {
    std::fs::read_to_string("/etc/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|name| name.trim().chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect::<String>())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "worker".into())
}

/// The self-play settings of a worker: `--config`, else the store's.
fn worker_config(args: &WorkerArgs, store: &Store) -> anyhow::Result<SelfPlayConfig> {
    let mut config = match &args.config {
        Some(path) => SelfPlayConfig::load(path)?,
        None => {
            let text = store
                .selfplay()?
                .ok_or_else(|| anyhow::anyhow!("store {} has no self-play settings: pass --config", store.spec()))?;
            SelfPlayConfig::parse(&text).map_err(|e| anyhow::anyhow!("store {}: selfplay.toml: {e}", store.spec()))?
        }
    };
    if let Some(threads) = args.threads {
        config.threads = threads;
    }
    config.games = args.chunk_games;
    config.check().map_err(|e| anyhow::anyhow!("self-play settings: {e}"))?;
    Ok(config)
}

/// Runs `pente worker`.
pub fn worker(args: &WorkerArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(args.chunk_games > 0, "--chunk-games must be at least 1");
    let store = args.store.open()?;
    let config = worker_config(args, &store)?;
    let id = args.id.clone().unwrap_or_else(|| format!("{}-{}", host_name(), std::process::id()));
    let work = args.work.clone().unwrap_or_else(|| Path::new("runs").join(format!("worker-{id}")));
    let options = WorkerOptions { id: id.clone(), games: args.games, chunk_games: args.chunk_games, work };
    let backend = args.backend.choose()?;
    let bar = if args.quiet { ProgressBar::hidden() } else { ProgressBar::new(0) };
    bar.set_style(
        ProgressStyle::with_template("  chunk {bar:30} {pos}/{len} games  eta {eta}  {msg}").expect("a valid template"),
    );
    let started = Instant::now();
    println!("worker {id} on store {}", store.spec());
    let totals = run_worker(&store, &config, &options, backend.as_ref(), &mut |event| match event {
        WorkerEvent::Chunk { index, model, games } => {
            bar.suspend(|| println!("chunk {index:06}: {games} games with {model}"));
            bar.set_length(games);
            bar.set_position(0);
        }
        WorkerEvent::Game(p) => {
            bar.set_position(p.games);
            bar.set_message(format!("{:.1} moves/game", p.mean_plies()));
        }
        WorkerEvent::Committed(chunk) => bar.suspend(|| {
            println!("chunk {}: committed ({} games, {} samples)", chunk.name(), chunk.games, chunk.samples);
        }),
        WorkerEvent::Lost { index } => bar.suspend(|| {
            println!("chunk {index:06}: another process with id {id} committed it first; moving on");
        }),
    })
    .with_context(|| format!("worker {id}"))?;
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "worker {id}: {} games in {} new chunks in {seconds:.1} s ({:.0} games/hour); {} of its games in the store",
        totals.new_games,
        totals.chunks,
        3600.0 * totals.new_games as f64 / seconds,
        totals.games
    );
    Ok(ExitCode::SUCCESS)
}

/// The local directories of every usable chunk of the store at `spec`
/// (none without a store), oldest first; each chunk set aside, before or
/// now, is named on stderr.
pub fn chunk_dirs(spec: Option<&str>) -> anyhow::Result<Vec<PathBuf>> {
    let Some(spec) = spec else { return Ok(Vec::new()) };
    let store = Store::open(spec)?;
    let mut dirs = Vec::new();
    for chunk in store.chunks()? {
        dirs.extend(store.usable_chunk_dir(&chunk)?);
    }
    for aside in store.set_aside()? {
        eprintln!("store {spec}: set aside {}: {}", aside.manifest, aside.reason);
    }
    Ok(dirs)
}
