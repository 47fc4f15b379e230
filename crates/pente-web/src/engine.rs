//! The engine thread: every search of the server runs here, in slices of a
//! few hundred visits (a game's graph: a few positions) taken in turn, so
//! that several browser tabs share
//! the cores fairly, a live analysis streams a result after each slice,
//! and a search whose client has gone away stops at its next turn.
//!
//! Networks are loaded on this thread when first asked for and kept, so an
//! evaluator need not be `Send`.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use pente_core::{Color, Position};
use pente_search::{Evaluator, Search, SearchParams, search_many};
use tokio::sync::mpsc::Sender;

use crate::protocol::{Failure, Prepared, Response, winrate};

/// Where the engine thread gets its evaluators.
pub trait EvaluatorSource: Send {
    /// The evaluator for `model` (`None`: the server's default) and a line
    /// saying which it is.
    ///
    /// # Errors
    /// A message naming the model and the reason it cannot be loaded.
    fn load(&mut self, model: Option<&Path>) -> Result<(Box<dyn Evaluator>, String), String>;
}

/// Visits a search runs before the next search's turn (and before a live
/// analysis sends its next result).
pub const SLICE_VISITS: u32 = 100;

/// Positions of a game's graph searched (together, batched) in one turn.
const GRAPH_SLICE: usize = 8;

/// One search's progress: a result after each slice (`done` false), then
/// the final one.
#[derive(Debug, Clone)]
pub struct Update {
    /// The search so far.
    pub response: Response,
    /// Whether this is the final result.
    pub done: bool,
}

/// White's win rate at each position of a game, for the viewer's graph.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Graph {
    /// One a position, from the empty board to the last move: 1 a White
    /// win, 0 a Black win.
    pub white_winrate: Vec<f32>,
    /// Playouts a position.
    pub visits: u32,
    /// Which evaluator answered.
    pub evaluator: String,
}

enum Job {
    Search { prepared: Box<Prepared>, stream: bool, reply: Sender<Result<Update, Failure>> },
    Graph { positions: Vec<Position>, visits: u32, model: Option<PathBuf>, reply: Sender<Result<Graph, String>> },
}

/// A handle on the engine thread; clones share it.
#[derive(Clone)]
pub struct Engine {
    jobs: mpsc::Sender<Job>,
    running: Arc<AtomicUsize>,
}

impl Engine {
    /// Starts the engine thread with its evaluators from `source`.
    #[must_use]
    pub fn start(source: Box<dyn EvaluatorSource>) -> Engine {
        let (jobs, queue) = mpsc::channel();
        let running = Arc::new(AtomicUsize::new(0));
        let count = running.clone();
        std::thread::Builder::new()
            .name("pente-engine".into())
            .spawn(move || {
                EngineThread { source, evaluators: HashMap::new(), running: VecDeque::new(), count }.run(&queue);
            })
            .expect("the engine thread starts");
        Engine { jobs, running }
    }

    /// Searches in progress (waiting for their next slice or in one).
    #[must_use]
    pub fn running(&self) -> usize {
        self.running.load(Ordering::Relaxed)
    }

    /// Searches `prepared`: with `stream`, a result after every slice, else
    /// only the final one. Dropping the receiver cancels the search.
    #[must_use]
    pub fn search(&self, prepared: Prepared, stream: bool) -> tokio::sync::mpsc::Receiver<Result<Update, Failure>> {
        let (reply, updates) = tokio::sync::mpsc::channel(4);
        self.send(Job::Search { prepared: Box::new(prepared), stream, reply });
        updates
    }

    /// White's win rate at every position of `positions`, `visits` each.
    #[must_use]
    pub fn graph(
        &self,
        positions: Vec<Position>,
        visits: u32,
        model: Option<PathBuf>,
    ) -> tokio::sync::mpsc::Receiver<Result<Graph, String>> {
        let (reply, result) = tokio::sync::mpsc::channel(1);
        self.send(Job::Graph { positions, visits, model, reply });
        result
    }

    fn send(&self, job: Job) {
        // The thread ends only with the process; a failed send leaves the
        // receiver closed, which the caller reports.
        let _ = self.jobs.send(job);
    }
}

/// A search between its slices.
struct Running {
    id: serde_json::Value,
    search: Search,
    params: SearchParams,
    model: Option<PathBuf>,
    policy: bool,
    stream: bool,
    reply: Sender<Result<Update, Failure>>,
    /// Time spent in this search's own slices.
    spent: Duration,
}

/// A game's graph between its slices.
struct RunningGraph {
    positions: Vec<Position>,
    /// The positions still to search (games not over), next first.
    open: VecDeque<usize>,
    white_winrate: Vec<f32>,
    params: SearchParams,
    model: Option<PathBuf>,
    reply: Sender<Result<Graph, String>>,
}

/// What takes turns on the engine thread.
enum Work {
    // Boxed: both hold positions and search parameters inline.
    Search(Box<Running>),
    Graph(Box<RunningGraph>),
}

struct EngineThread {
    source: Box<dyn EvaluatorSource>,
    evaluators: HashMap<Option<PathBuf>, (Box<dyn Evaluator>, String)>,
    running: VecDeque<Work>,
    /// Searches not finished nor cancelled, for [`Engine::running`]:
    /// counted down before a final result is sent.
    count: Arc<AtomicUsize>,
}

impl EngineThread {
    fn run(mut self, queue: &mpsc::Receiver<Job>) {
        loop {
            if self.running.is_empty() {
                match queue.recv() {
                    Ok(job) => self.take(job),
                    Err(_) => return,
                }
            }
            while let Ok(job) = queue.try_recv() {
                self.take(job);
            }
            match self.running.pop_front() {
                Some(Work::Search(running)) => self.slice(*running),
                Some(Work::Graph(graph)) => self.graph_slice(*graph),
                None => {}
            }
        }
    }

    /// The evaluator of `model`, loaded if new.
    fn evaluator(&mut self, model: Option<&PathBuf>) -> Result<&(Box<dyn Evaluator>, String), String> {
        let key = model.cloned();
        if !self.evaluators.contains_key(&key) {
            let loaded = self.source.load(model.map(PathBuf::as_path))?;
            self.evaluators.insert(key.clone(), loaded);
        }
        Ok(&self.evaluators[&key])
    }

    fn take(&mut self, job: Job) {
        match job {
            Job::Search { prepared, stream, reply } => {
                let Prepared { id, game, params, model, policy, .. } = *prepared;
                if let Err(error) = self.evaluator(model.as_ref()) {
                    let _ = reply.try_send(Err(Failure { id, error }));
                    return;
                }
                let seed = game.position().hash();
                let search = Search::new(game.position().clone(), params.clone(), seed);
                self.count.fetch_add(1, Ordering::Relaxed);
                let spent = Duration::ZERO;
                let running = Running { id, search, params, model, policy, stream, reply, spent };
                self.running.push_back(Work::Search(Box::new(running)));
            }
            Job::Graph { positions, visits, model, reply } => {
                if let Err(error) = self.evaluator(model.as_ref()) {
                    let _ = reply.try_send(Err(error));
                    return;
                }
                let white_winrate = positions
                    .iter()
                    .map(|p| match p.outcome().map(|o| o.winner) {
                        Some(Some(Color::White)) => 1.0,
                        Some(Some(Color::Black)) => 0.0,
                        _ => 0.5,
                    })
                    .collect();
                let open = (0..positions.len()).filter(|&i| positions[i].outcome().is_none()).collect();
                let params = SearchParams { visits: visits.max(1), ..SearchParams::default() };
                let graph = RunningGraph { positions, open, white_winrate, params, model, reply };
                self.running.push_back(Work::Graph(Box::new(graph)));
            }
        }
    }

    /// Runs one slice of `running`, sends its result, and queues it again
    /// unless it is done or its client has gone.
    fn slice(&mut self, mut running: Running) {
        if running.reply.is_closed() {
            self.count.fetch_sub(1, Ordering::Relaxed);
            return;
        }
        let Ok((evaluator, description)) = self.evaluator(running.model.as_ref()) else {
            unreachable!("a search starts only once its evaluator is loaded")
        };
        let target = running.params.visits;
        let next = running.search.visits().saturating_add(SLICE_VISITS).min(target);
        let remaining = running.params.max_seconds.map(|limit| (limit - running.spent.as_secs_f64()).max(0.0));
        running.search.set_params(SearchParams { visits: next, max_seconds: remaining, ..running.params.clone() });
        let started = Instant::now();
        let mut result = running.search.run(evaluator.as_ref());
        running.spent += started.elapsed();
        let out_of_time = running.params.max_seconds.is_some_and(|limit| running.spent.as_secs_f64() >= limit);
        let done = result.visits >= target
            || out_of_time
            || result.proof != pente_search::Proof::Unknown
            || result.best_move.is_none()
            || result.visits < next; // nothing left to search
        if done {
            result.best_move = running.search.play_move(&result);
        }
        let response = Response::new(running.id.clone(), &result, description.clone(), running.policy);
        // The engine thread never waits for a slow client: an update that
        // finds the channel full (but for the slot kept for the final
        // result) is skipped, the next one being newer anyway.
        if done {
            self.count.fetch_sub(1, Ordering::Relaxed);
            let _ = running.reply.try_send(Ok(Update { response, done }));
            return;
        }
        if running.stream && running.reply.capacity() > 1 {
            let _ = running.reply.try_send(Ok(Update { response, done }));
        }
        if running.reply.is_closed() {
            self.count.fetch_sub(1, Ordering::Relaxed);
            return;
        }
        self.running.push_back(Work::Search(Box::new(running)));
    }

    /// Searches the next few positions of a graph (batched), then sends the
    /// graph if it is complete or queues it again; a graph whose client has
    /// gone is dropped.
    fn graph_slice(&mut self, mut graph: RunningGraph) {
        if graph.reply.is_closed() {
            return;
        }
        let Ok((evaluator, description)) = self.evaluator(graph.model.as_ref()) else {
            unreachable!("a graph starts only once its evaluator is loaded")
        };
        let batch: Vec<usize> = (0..GRAPH_SLICE).map_while(|_| graph.open.pop_front()).collect();
        let mut searches: Vec<Search> =
            batch.iter().map(|&i| Search::new(graph.positions[i].clone(), graph.params.clone(), i as u64)).collect();
        search_many(&mut searches, evaluator.as_ref());
        for (&i, search) in batch.iter().zip(&searches) {
            let mover = winrate(search.result().value);
            graph.white_winrate[i] = if graph.positions[i].to_move() == Color::White { mover } else { 1.0 - mover };
        }
        if graph.open.is_empty() {
            let evaluator = description.clone();
            let done = Graph { white_winrate: graph.white_winrate, visits: graph.params.visits, evaluator };
            let _ = graph.reply.try_send(Ok(done));
        } else {
            self.running.push_back(Work::Graph(Box::new(graph)));
        }
    }
}
