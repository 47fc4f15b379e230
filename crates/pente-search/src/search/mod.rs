//! One search tree: PUCT (or Gumbel) selection, batched leaf evaluation under
//! virtual loss, exact values for decided positions, and tree reuse.
//!
//! [`Search`] is one struct whose methods are spread over files by concern
//! (KataGo's search is split the same way):
//! - this file: the struct, its settings and accessors, and the batch loop
//!   ([`Search::gather`], [`Search::pending_positions`], [`Search::deliver`]);
//! - `node`: the tree's data (nodes, edges, proofs);
//! - `select`: the walk down the tree, PUCT and forced playouts;
//! - `gumbel`: the Gumbel root and its sequential halving;
//! - `tactics`: the threat solver's calls at the root, at new leaves and on
//!   the best moves;
//! - `backup`: expansion, the root's noise, and the backup of values and proofs;
//! - `results`: what a search reports, and the move to play;
//! - `reuse`: moving the root down the tree, or starting afresh.

mod backup;
mod gumbel;
mod node;
mod results;
mod reuse;
mod select;
mod tactics;

use std::collections::HashMap;
use std::time::Instant;

use pente_core::{Point, Position};
use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::evaluator::{Evaluation, Evaluator};
use crate::params::SearchParams;
use crate::solver::Solver;

use gumbel::GumbelRoot;
pub use node::Proof;
use node::{Node, NodeState, value_for_actor};
pub use results::{Candidate, SearchResult};
pub use tactics::SolverStats;

/// A leaf waiting for the evaluator.
#[derive(Debug)]
struct Request {
    position: Position,
    path: Vec<u32>,
    /// The only moves that stop an immediate win of the opponent, if one is threatened.
    forced: Option<Vec<Point>>,
}

/// What a search keeps about its root for one move: dropped whole when the
/// root changes, all but the solver's read when the settings do.
#[derive(Debug, Default)]
struct RootState {
    /// Priors of the root edges with noise mixed in (self-play).
    priors: Option<Vec<f32>>,
    /// The sequential halving of a Gumbel root, when the settings ask for one.
    gumbel: Option<GumbelRoot>,
    /// Whether the solver has looked at this root yet.
    read: bool,
    /// The solver's winning line from the root.
    line: Option<Vec<Point>>,
    /// When this move's search began (for `max_seconds`).
    started: Option<Instant>,
    /// Whether this move's best moves were checked against forced wins.
    verified: bool,
}

/// A search over one position. Drive it with [`Search::run`], or with
/// [`crate::search_many`] to share network calls between many searches.
pub struct Search {
    params: SearchParams,
    root_position: Position,
    nodes: Vec<Node>,
    root: RootState,
    pending: Vec<Request>,
    cache: HashMap<u64, Evaluation>,
    rng: SmallRng,
    solver: Solver,
    solver_stats: SolverStats,
}

const ROOT: u32 = 0;

impl Search {
    /// A search of `position`; `seed` fixes its noise, so equal seeds give equal searches.
    #[must_use]
    pub fn new(position: Position, params: SearchParams, seed: u64) -> Search {
        let mut search = Search {
            params,
            root_position: position,
            nodes: Vec::new(),
            root: RootState::default(),
            pending: Vec::new(),
            cache: HashMap::new(),
            rng: SmallRng::seed_from_u64(seed),
            solver: Solver::new(1 << 14),
            solver_stats: SolverStats::default(),
        };
        search.reset_tree();
        search
    }

    /// The position searched.
    #[must_use]
    pub fn position(&self) -> &Position {
        &self.root_position
    }

    /// The settings.
    #[must_use]
    pub fn params(&self) -> &SearchParams {
        &self.params
    }

    /// Changes the settings for the next moves (e.g. the visit budget).
    pub fn set_params(&mut self, params: SearchParams) {
        self.params = params;
        // The root is the same, so the solver's read of it (and its line) is
        // kept; the noise, the Gumbel field, the clock and the checks start over.
        let RootState { read, line, .. } = std::mem::take(&mut self.root);
        self.root = RootState { read, line, ..RootState::default() };
        if self.nodes[ROOT as usize].state == NodeState::Expanded {
            self.prepare_root();
        }
    }

    /// The solver's work in this search so far (all moves).
    #[must_use]
    pub fn solver_stats(&self) -> SolverStats {
        self.solver_stats
    }

    /// Playouts of the root so far.
    #[must_use]
    pub fn visits(&self) -> u32 {
        self.nodes[ROOT as usize].visits
    }

    /// Whether the budget is spent or the root is decided.
    #[must_use]
    pub fn is_done(&self) -> bool {
        let root = &self.nodes[ROOT as usize];
        let out_of_time = match (self.params.max_seconds, self.root.started) {
            (Some(limit), Some(started)) => started.elapsed().as_secs_f64() >= limit,
            _ => false,
        };
        root.proof != Proof::Unknown || root.visits >= self.params.visits || out_of_time
    }

    /// Runs the search to its budget with `evaluator`.
    pub fn run(&mut self, evaluator: &dyn Evaluator) -> SearchResult {
        crate::search_many(std::slice::from_mut(self), evaluator);
        self.result()
    }

    /// Collects leaves for the evaluator under virtual loss, up to
    /// `leaves_per_call`; returns how many are waiting. Leaves whose value is
    /// known (decided positions, cached evaluations) are backed up at once.
    pub fn gather(&mut self) -> usize {
        self.root.started.get_or_insert_with(Instant::now);
        if self.is_done() {
            return self.pending.len();
        }
        if !self.root.read {
            self.read_root();
        }
        let mut attempts = 0;
        while self.pending.len() < self.params.leaves_per_call.max(1)
            && attempts < 4 * self.params.leaves_per_call.max(1)
        {
            attempts += 1;
            let root = &self.nodes[ROOT as usize];
            if root.proof != Proof::Unknown || root.visits + root.in_flight >= self.params.visits {
                break;
            }
            if !self.descend() {
                break;
            }
        }
        self.pending.len()
    }

    /// The positions waiting for the evaluator, in the order [`Search::deliver`] expects.
    pub fn pending_positions(&self) -> impl Iterator<Item = &Position> {
        self.pending.iter().map(|r| &r.position)
    }

    /// Hands back the evaluations of [`Search::pending_positions`], in order.
    ///
    /// # Panics
    /// If the number of evaluations differs from the number of pending leaves.
    pub fn deliver(&mut self, evaluations: impl IntoIterator<Item = Evaluation>) {
        let requests = std::mem::take(&mut self.pending);
        let mut evaluations = evaluations.into_iter();
        for request in requests {
            let evaluation = evaluations.next().expect("one evaluation per pending leaf");
            for &node in &request.path {
                self.nodes[node as usize].in_flight -= 1;
            }
            if self.params.cache_entries > 0 {
                if self.cache.len() >= self.params.cache_entries {
                    self.cache.clear();
                }
                self.cache.insert(request.position.hash(), evaluation.clone());
            }
            let leaf = *request.path.last().expect("a path has the root");
            self.expand(leaf, &request.position, &evaluation, request.forced.as_deref());
            self.backup(&request.path, value_for_actor(&request.position, evaluation.value));
        }
        assert!(evaluations.next().is_none(), "one evaluation per pending leaf");
    }
}
