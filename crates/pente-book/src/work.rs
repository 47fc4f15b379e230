//! The build's work on every core: node evaluations and played-out games,
//! many at a time on each worker so that one network call carries the
//! leaves of all their searches (as self-play does).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::mpsc;

use pente_core::{Point, Position, Seat};
use pente_search::{Evaluator, Proof, Search, SearchResult, search_many};

use crate::error::BookError;
use crate::settings::BookSettings;
use crate::store::{Candidate, Evaluation, GameRecord};

/// Makes one worker's evaluator, given the threads it may use.
pub type MakeEvaluator<'a> = dyn Fn(usize) -> Result<Box<dyn Evaluator>, String> + Sync + 'a;

/// The most candidates an evaluation keeps (most visited first).
const KEPT_CANDIDATES: usize = 24;

/// One piece of work.
#[derive(Debug, Clone)]
pub enum Job {
    /// Evaluate a node with the book's `evaluate` search.
    Evaluate {
        /// The node.
        node: i64,
        /// Its moves from the empty board.
        moves: Vec<Point>,
        /// The search's seed.
        seed: u64,
    },
    /// Play game number `game` out from a node.
    Play {
        /// The node.
        node: i64,
        /// The game's number among the node's.
        game: u64,
        /// Its moves from the empty board.
        moves: Vec<Point>,
        /// The game's seed.
        seed: u64,
    },
}

/// A finished piece of work.
#[derive(Debug, Clone)]
pub enum Done {
    /// A node's evaluation.
    Evaluated {
        /// The node.
        node: i64,
        /// What the search found.
        evaluation: Evaluation,
    },
    /// A played-out game.
    Played(GameRecord),
}

/// A job under way on a worker.
struct Task {
    job: Job,
    position: Position,
    moves: Vec<Point>,
    search: Search,
    /// Moves played since the job's node.
    played: u32,
}

impl Task {
    fn new(job: Job, settings: &BookSettings) -> Task {
        let rules = settings.rules().expect("checked when the book was opened");
        let (moves, params, seed) = match &job {
            Job::Evaluate { moves, seed, .. } => (moves.clone(), settings.evaluate.clone(), *seed),
            Job::Play { moves, seed, .. } => (moves.clone(), settings.play.clone(), *seed),
        };
        let mut position = Position::new(rules);
        for &p in &moves {
            position.play(p).expect("a book's node is legal");
        }
        let search = Search::new(position.clone(), params, seed);
        Task { job, position, moves, search, played: 0 }
    }

    fn is_finished(&self) -> bool {
        match self.job {
            Job::Evaluate { .. } => self.search.is_done() || self.position.is_over(),
            Job::Play { .. } => self.position.is_over(),
        }
    }

    /// Plays the searched move of a game (an evaluation has nothing to play).
    fn step(&mut self, settings: &BookSettings) {
        if matches!(self.job, Job::Evaluate { .. }) || self.position.is_over() {
            return;
        }
        let result = self.search.result();
        let temperature = if self.played < settings.games.temperature_plies { settings.games.temperature } else { 0.0 };
        let point = self.search.sample_move(&result, temperature).expect("a game that goes on has a move");
        self.position.play(point).expect("the search plays legal moves");
        self.moves.push(point);
        self.search.advance(point);
        self.played += 1;
    }

    fn finish(self) -> Done {
        match self.job {
            Job::Evaluate { node, .. } => Done::Evaluated { node, evaluation: evaluation(&self.search.result()) },
            Job::Play { node, game, seed, .. } => {
                Done::Played(game_record(node, game, seed, self.moves, &self.position))
            }
        }
    }
}

/// The record of game `game` of `node`, played to the finished `position`
/// by `moves`.
pub(crate) fn game_record(node: i64, game: u64, seed: u64, moves: Vec<Point>, position: &Position) -> GameRecord {
    let outcome = position.outcome().expect("a finished game has an outcome");
    let winner_seat = outcome.winner.map(|color| position.holder(color).unwrap_or(Seat::First));
    GameRecord { node, game, seed, moves, winner: outcome.winner, winner_seat, reason: outcome.reason.to_string() }
}

/// What a finished search says of its position.
fn evaluation(result: &SearchResult) -> Evaluation {
    let proof = match result.proof {
        Proof::Win => "win",
        Proof::Loss => "loss",
        Proof::Draw => "draw",
        Proof::Unknown => "unknown",
    };
    let candidates = result
        .candidates
        .iter()
        .take(KEPT_CANDIDATES)
        .enumerate()
        .map(|(rank, c)| Candidate {
            point: c.point,
            rank: rank as u32,
            prior: c.prior,
            visits: c.visits,
            value: c.value,
            child: None,
        })
        .collect();
    Evaluation { value: result.value, proof: proof.into(), visits: result.visits, candidates }
}

/// Runs `jobs` on `threads` workers, handing each result to `on_done` on
/// the calling thread as it comes (in the order they finish). Stops at the
/// first error of `on_done` or of a worker.
///
/// # Errors
/// The first error.
pub fn run(
    jobs: Vec<Job>,
    settings: &BookSettings,
    threads: usize,
    make_evaluator: &MakeEvaluator<'_>,
    on_done: &mut dyn FnMut(Done) -> Result<(), BookError>,
) -> Result<(), BookError> {
    if jobs.is_empty() {
        return Ok(());
    }
    let threads = threads.clamp(1, jobs.len());
    let queue = Mutex::new(VecDeque::from(jobs));
    let stop = std::sync::atomic::AtomicBool::new(false);
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let evaluator_threads = (cores / threads).max(1);
    let (sender, receiver) = mpsc::channel::<Result<Done, BookError>>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let sender = sender.clone();
            let (queue, stop) = (&queue, &stop);
            scope.spawn(move || {
                if let Err(error) = work(settings, evaluator_threads, make_evaluator, queue, stop, &sender) {
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    let _ = sender.send(Err(error));
                }
            });
        }
        drop(sender);
        let mut result = Ok(());
        for message in receiver {
            if let Err(error) = message.and_then(&mut *on_done) {
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
                result = Err(error);
                break;
            }
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        result
    })
}

/// One worker: takes jobs from the queue, `in_flight` at a time, on a
/// one-thread pool (a network running on rayon stays on this core).
fn work(
    settings: &BookSettings,
    evaluator_threads: usize,
    make_evaluator: &MakeEvaluator<'_>,
    queue: &Mutex<VecDeque<Job>>,
    stop: &std::sync::atomic::AtomicBool,
    sender: &mpsc::Sender<Result<Done, BookError>>,
) -> Result<(), BookError> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().map_err(|e| BookError::Threads(e.to_string()))?;
    pool.install(|| {
        let evaluator = make_evaluator(evaluator_threads).map_err(BookError::Player)?;
        let mut tasks: Vec<Task> = Vec::new();
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            while tasks.len() < settings.games.in_flight {
                let Some(job) = queue.lock().expect("no worker panics holding the queue").pop_front() else { break };
                tasks.push(Task::new(job, settings));
            }
            if tasks.is_empty() {
                break;
            }
            let mut searches: Vec<&mut Search> =
                tasks.iter_mut().filter(|t| !t.position.is_over()).map(|t| &mut t.search).collect();
            search_many(&mut searches, evaluator.as_ref());
            for task in &mut tasks {
                task.step(settings);
            }
            let (done, going): (Vec<Task>, Vec<Task>) = tasks.into_iter().partition(Task::is_finished);
            tasks = going;
            for task in done {
                if sender.send(Ok(task.finish())).is_err() {
                    return Ok(());
                }
            }
        }
        Ok(())
    })
}
