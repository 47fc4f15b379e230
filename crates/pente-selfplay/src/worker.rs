//! Self-play against a store: a stateless worker takes the store's current
//! model, plays a chunk of games into a local directory, commits it, and
//! goes on with whatever model is current then.
//!
//! A worker's chunks are numbered from 0; the next one is always the one
//! after its last committed chunk, so a worker killed at any moment and
//! started again with the same id goes on where it was: the chunk in
//! flight resumes from its local files (or is replayed, from the same
//! seed), and the store takes it once. Seeds come from the worker's id and
//! the chunk's number, so workers with other ids play other games.

use std::path::{Path, PathBuf};

use pente_records::SamplesReader;
use pente_search::Backend;
use pente_store::{Chunk, Store};

use crate::config::SelfPlayConfig;
use crate::error::SelfPlayError;
use crate::game::game_seed;
use crate::output::{CONFIG_FILE, SAMPLES_FILE};
use crate::run::{ModelSource, Progress, run};

/// What a worker reports as it goes.
#[derive(Debug)]
pub enum WorkerEvent<'a> {
    /// A chunk starts: its number, the model playing it, and its games.
    Chunk {
        /// The chunk's number among the worker's chunks.
        index: u64,
        /// The id of the model that plays it.
        model: &'a str,
        /// Games it will hold.
        games: u64,
    },
    /// A game of the chunk was written locally.
    Game(&'a Progress),
    /// The chunk is in the store.
    Committed(&'a Chunk),
    /// Another attempt with this worker id committed the chunk first.
    Lost {
        /// The chunk's number.
        index: u64,
    },
}

/// A worker's settings.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// Its id: the name of its chunks in the store, and its seeds.
    pub id: String,
    /// Stop when the store holds this many of its games (`None`: never).
    pub games: Option<u64>,
    /// Games per chunk.
    pub chunk_games: u64,
    /// Where the chunk in flight is played.
    pub work: PathBuf,
}

/// What a worker did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkerTotals {
    /// Games of this worker in the store, earlier runs included.
    pub games: u64,
    /// Chunks this run committed.
    pub chunks: u64,
    /// Games in them.
    pub new_games: u64,
}

/// The seed of chunk `index` of worker `id` in a run seeded with `seed`.
#[must_use]
pub fn chunk_seed(seed: u64, id: &str, index: u64) -> u64 {
    // FNV-1a of the id, then the per-game mix: no two ids share seeds in practice.
    let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    game_seed(seed ^ hash, index)
}

/// Plays chunks until the store holds `options.games` of this worker's
/// games (or forever), each with the model current when it starts.
///
/// # Errors
/// [`SelfPlayError`] if the store, the model or the local files fail;
/// every chunk committed before stays.
pub fn run_worker(
    store: &Store,
    config: &SelfPlayConfig,
    options: &WorkerOptions,
    backend: &dyn Backend,
    report: &mut dyn FnMut(WorkerEvent<'_>),
) -> Result<WorkerTotals, SelfPlayError> {
    pente_store::check_name("worker id", &options.id)?;
    let mut totals = WorkerTotals::default();
    loop {
        let done = store.worker_chunks(&options.id)?;
        totals.games = done.iter().map(|c| c.games).sum();
        let size = match options.games {
            Some(target) if totals.games >= target => return Ok(totals),
            Some(target) => (target - totals.games).min(options.chunk_games),
            None => options.chunk_games,
        };
        // After every chunk committed, those set aside too: no game twice.
        let index = store.next_chunk_index(&options.id)?;
        if let Some(chunk) = play_chunk(store, config, &options.id, index, size, &options.work, backend, report)? {
            totals.chunks += 1;
            totals.new_games += chunk.games;
        }
    }
}

/// Plays chunk `index` of worker `id` (`games` games) with the store's
/// current model in `work`, and commits it. `None` if another attempt
/// committed that chunk first.
///
/// # Errors
/// [`SelfPlayError`] if the store, the model or the local files fail.
#[allow(clippy::too_many_arguments)]
pub fn play_chunk(
    store: &Store,
    config: &SelfPlayConfig,
    id: &str,
    index: u64,
    games: u64,
    work: &Path,
    backend: &dyn Backend,
    report: &mut dyn FnMut(WorkerEvent<'_>),
) -> Result<Option<Chunk>, SelfPlayError> {
    let model = store.current_model()?;
    let model_dir = store.fetch_model(&model)?;
    let local = work.join(format!("{index:06}-{model}"));
    remove_other_attempts(work, &local)?;
    let mut chunk_config = config.clone();
    chunk_config.games = games;
    chunk_config.seed = chunk_seed(config.seed, id, index);
    chunk_config.model.clone_from(&model);
    // A chunk begun with other settings (the worker's config changed) starts over.
    let begun = local.join(CONFIG_FILE);
    if begun.is_file() && !SelfPlayConfig::load(&begun).is_ok_and(|c| c.same_games_as(&chunk_config)) {
        std::fs::remove_dir_all(&local).map_err(crate::error::io(&local))?;
    }
    report(WorkerEvent::Chunk { index, model: &model, games });
    let progress =
        run(&chunk_config, &local, &ModelSource::Network(model_dir), backend, &mut |p| report(WorkerEvent::Game(p)))?;
    let samples = count_samples(&local.join(SAMPLES_FILE))?;
    let committed = store.commit_chunk(id, index, &model, (progress.games, samples), &local)?;
    std::fs::remove_dir_all(&local).map_err(crate::error::io(&local))?;
    match &committed {
        Some(chunk) => report(WorkerEvent::Committed(chunk)),
        None => report(WorkerEvent::Lost { index }),
    }
    Ok(committed)
}

/// Removes what earlier attempts left in `work` other than `keep` (a chunk
/// started with a model since replaced, or one committed but not cleaned).
fn remove_other_attempts(work: &Path, keep: &Path) -> Result<(), SelfPlayError> {
    std::fs::create_dir_all(work).map_err(crate::error::io(work))?;
    for entry in std::fs::read_dir(work).map_err(crate::error::io(work))?.flatten() {
        let path = entry.path();
        if path != keep && path.is_dir() {
            std::fs::remove_dir_all(&path).map_err(crate::error::io(&path))?;
        }
    }
    Ok(())
}

fn count_samples(path: &Path) -> Result<u64, SelfPlayError> {
    let file = std::fs::File::open(path).map_err(crate::error::io(path))?;
    let mut samples = 0;
    for game in SamplesReader::new(std::io::BufReader::new(file)) {
        let game = game.map_err(|source| SelfPlayError::Samples { path: path.to_path_buf(), source })?;
        samples += game.samples.len() as u64;
    }
    Ok(samples)
}
