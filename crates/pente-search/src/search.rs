//! One search tree: PUCT (or Gumbel) selection, batched leaf evaluation under
//! virtual loss, exact values for decided positions, and tree reuse.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use pente_core::{Color, Point, Position, Seat};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, Gamma, Gumbel};

use crate::evaluator::{Evaluation, Evaluator};
use crate::params::SearchParams;
use crate::solver::{Board, Solver, forced_replies_on, threat_stops};

/// A game-theoretic value proven in the tree, from the point of view of the
/// player who moved INTO the node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Proof {
    /// Not decided yet.
    #[default]
    Unknown,
    /// The mover wins with best play.
    Win,
    /// The mover loses with best play.
    Loss,
    /// A draw with best play.
    Draw,
}

impl Proof {
    /// The same result seen by the other player.
    fn flipped(self) -> Proof {
        match self {
            Proof::Win => Proof::Loss,
            Proof::Loss => Proof::Win,
            other => other,
        }
    }

    /// The exact value for the mover into the node, if proven.
    fn value(self) -> Option<f32> {
        match self {
            Proof::Unknown => None,
            Proof::Win => Some(1.0),
            Proof::Loss => Some(-1.0),
            Proof::Draw => Some(0.0),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NodeState {
    /// Not evaluated.
    Leaf,
    /// Sent to the evaluator, answer not back yet.
    Pending,
    /// Evaluated, edges created.
    Expanded,
}

#[derive(Debug, Clone)]
struct Edge {
    point: Point,
    prior: f32,
    /// Index of the child node, created on first visit.
    child: Option<u32>,
}

#[derive(Debug, Clone)]
struct Node {
    state: NodeState,
    edges: Vec<Edge>,
    visits: u32,
    in_flight: u32,
    /// Sum of backed-up values for the player who moved into this node.
    value_sum: f64,
    proof: Proof,
    /// Whether the player to act here is not the one who moved into it:
    /// true but for the second stone of a Connect6 turn and a colour choice
    /// that leaves the chooser to place the next stone. The root's values
    /// are kept for the other player, as if the turn passed into it.
    turn_passes: bool,
}

impl Node {
    fn new(proof: Proof, turn_passes: bool) -> Node {
        Node { state: NodeState::Leaf, edges: Vec::new(), visits: 0, in_flight: 0, value_sum: 0.0, proof, turn_passes }
    }

    /// A value for the player who moved into this node, as the player to act
    /// here sees it, and the other way round.
    fn for_actor(&self, value: f32) -> f32 {
        if self.turn_passes { -value } else { value }
    }

    /// The proof for the player to act here.
    fn actor_proof(&self) -> Proof {
        if self.turn_passes { self.proof.flipped() } else { self.proof }
    }

    /// Mean value for the mover into this node, virtual losses counted.
    fn q(&self) -> Option<f32> {
        let n = self.visits + self.in_flight;
        (n > 0).then(|| ((self.value_sum - f64::from(self.in_flight)) / f64::from(n)) as f32)
    }
}

/// A leaf waiting for the evaluator.
#[derive(Debug)]
struct Request {
    position: Position,
    path: Vec<u32>,
    /// The only moves that stop an immediate win of the opponent, if one is threatened.
    forced: Option<Vec<Point>>,
}

/// What the solver made of a new leaf.
enum LeafTactics {
    /// Decided: the exact value for the side to move there.
    Decided(f32),
    /// The opponent threatens to win at once; only these moves stop it.
    Forced(Vec<Point>),
    /// Nothing forced.
    Open,
}

/// The solver's share of a search.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SolverStats {
    /// Moves the solver played.
    pub nodes: u64,
    /// Time spent in the solver (and its threat detection).
    pub time: Duration,
}

/// One candidate move of a finished search.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The move.
    pub point: Point,
    /// Playouts through it.
    pub visits: u32,
    /// Prior from the evaluator (before noise).
    pub prior: f32,
    /// Mean value for the side to move at the root, in `[-1, 1]`; `None` if unvisited.
    pub value: Option<f32>,
    /// Proven result for the side to move at the root.
    pub proof: Proof,
}

/// What a search found.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult {
    /// The move to play, `None` only when the game is over.
    pub best_move: Option<Point>,
    /// Root value for the side to move, in `[-1, 1]`.
    pub value: f32,
    /// Proven result for the side to move, if the tree decided it.
    pub proof: Proof,
    /// Playouts of the root.
    pub visits: u32,
    /// Every root move, most visited first.
    pub candidates: Vec<Candidate>,
    /// The training target: the visit distribution (PUCT; less the forced
    /// playouts a move did not earn, when they are on) or the improved
    /// policy (Gumbel), over the legal moves.
    pub policy_target: Vec<(Point, f32)>,
    /// When `proof` is a win or a loss: a line to the end of the game from
    /// the best move on, the loser's moves the most stubborn seen.
    pub proven_line: Vec<Point>,
    /// The winner's moves in `proven_line` (Connect6 turns are two).
    winner_moves: Option<usize>,
}

impl SearchResult {
    /// The winner's moves left in [`SearchResult::proven_line`] (win or loss in N).
    #[must_use]
    pub fn moves_to_end(&self) -> Option<usize> {
        self.winner_moves
    }
}

/// Sequential-halving state of a Gumbel root.
#[derive(Debug, Clone)]
struct GumbelRoot {
    /// Gumbel noise plus log prior, per root edge.
    score: Vec<f32>,
    /// Root edges still in the running.
    considered: Vec<usize>,
    /// Visits each considered edge should reach in this phase.
    target: u32,
    phases_left: u32,
}

/// A search over one position. Drive it with [`Search::run`], or with
/// [`crate::search_many`] to share network calls between many searches.
pub struct Search {
    params: SearchParams,
    root_position: Position,
    nodes: Vec<Node>,
    /// Priors of the root edges with noise mixed in (self-play).
    root_priors: Option<Vec<f32>>,
    gumbel: Option<GumbelRoot>,
    pending: Vec<Request>,
    cache: HashMap<u64, Evaluation>,
    rng: SmallRng,
    solver: Solver,
    /// Whether the solver has looked at this root yet.
    root_read: bool,
    /// The solver's winning line from the root.
    root_line: Option<Vec<Point>>,
    solver_stats: SolverStats,
    /// When this move's search began (for `max_seconds`).
    started: Option<Instant>,
    /// Whether this move's best moves were checked against forced wins.
    verified: bool,
}

const ROOT: u32 = 0;

impl Search {
    /// A search of `position`; `seed` fixes its noise, so equal seeds give equal searches.
    #[must_use]
    pub fn new(position: Position, mut params: SearchParams, seed: u64) -> Search {
        params.tactics.enabled &= crate::solver::sound_for(position.rules());
        let mut search = Search {
            params,
            root_position: position,
            nodes: Vec::new(),
            root_priors: None,
            gumbel: None,
            pending: Vec::new(),
            cache: HashMap::new(),
            rng: SmallRng::seed_from_u64(seed),
            solver: Solver::new(1 << 14),
            root_read: false,
            root_line: None,
            solver_stats: SolverStats::default(),
            started: None,
            verified: false,
        };
        search.reset_tree();
        search
    }

    fn reset_tree(&mut self) {
        self.nodes.clear();
        let mover = self.root_position.ply().checked_sub(1).map(|k| self.root_position.rules().colour_of_stone(k));
        self.nodes.push(Node::new(terminal_proof(&self.root_position, mover), true));
        self.root_priors = None;
        self.gumbel = None;
        self.root_read = false;
        self.root_line = None;
        self.started = None;
        self.verified = false;
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
    pub fn set_params(&mut self, mut params: SearchParams) {
        params.tactics.enabled &= crate::solver::sound_for(self.root_position.rules());
        self.params = params;
        self.started = None;
        self.verified = false;
        self.root_priors = None;
        self.gumbel = None;
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
        let out_of_time = match (self.params.max_seconds, self.started) {
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
        self.started.get_or_insert_with(Instant::now);
        if self.is_done() {
            return self.pending.len();
        }
        if !self.root_read {
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

    /// Runs the solver on the root once: a win it proves ends the search.
    fn read_root(&mut self) {
        self.root_read = true;
        if !self.reads(&self.root_position) || self.nodes[ROOT as usize].proof != Proof::Unknown {
            return;
        }
        let start = Instant::now();
        let solution = self.solver.solve(&self.root_position, &self.params.tactics.root);
        self.solver_stats.nodes += solution.nodes;
        self.solver_stats.time += start.elapsed();
        if let Some(line) = solution.line {
            // The root's proof is for the player who moved into it.
            self.nodes[ROOT as usize].proof = Proof::Loss;
            self.root_line = Some(line);
        }
    }

    /// Checks the best root moves for a forced win of the opponent, once per
    /// move: a move that loses is proven so (and avoided), and the next best
    /// is checked, up to `verify_moves`. Deep threes that the leaves' short
    /// VCF and a few hundred visits do not see are caught here.
    pub fn verify_best_moves(&mut self) {
        let tactics = &self.params.tactics;
        if self.verified || !self.reads(&self.root_position) || tactics.verify_moves == 0 {
            return;
        }
        self.verified = true;
        let params = tactics.verify;
        for _ in 0..tactics.verify_moves {
            if self.nodes[ROOT as usize].proof != Proof::Unknown {
                return;
            }
            let Some(i) = self.best_edge() else { return };
            let point = self.nodes[ROOT as usize].edges[i].point;
            let mover = Mover::of(&self.root_position, point);
            let mut after = self.root_position.clone();
            after.play_unchecked(point);
            // An unvisited move gets its node, to carry the proof.
            let child = self.child_node(ROOT, i, mover, &after);
            if self.nodes[child as usize].proof != Proof::Unknown {
                return;
            }
            let start = Instant::now();
            let solution = self.solver.solve(&after, &params);
            self.solver_stats.nodes += solution.nodes;
            self.solver_stats.time += start.elapsed();
            if solution.line.is_none() {
                return;
            }
            // The move loses: the proof is for us, who move into the child.
            self.nodes[child as usize].proof = Proof::Loss;
            self.update_proof(ROOT);
        }
    }

    /// Whether the solver reads `position`: when it is on, and once the
    /// players hold their colours (the solver plays colours, and before a
    /// colour choice the player placing a stone may not end up with it).
    fn reads(&self, position: &Position) -> bool {
        self.params.tactics.enabled && crate::solver::sound_at(position)
    }

    /// Immediate wins, threats that cannot be stopped, and short forced wins
    /// at a new leaf, before the evaluator is asked.
    fn read_leaf(&mut self, position: &Position, at_root: bool) -> LeafTactics {
        let start = Instant::now();
        let board = Board::new(position.clone());
        let forced = forced_replies_on(&board);
        // The root is left to the tree, so that it gets edges and a move to
        // play even when lost (the read_root solver already looked for wins).
        let tactics = if at_root {
            match forced {
                // Lost whatever it plays: the tree proves it on the blocks.
                Some(moves) if moves.is_empty() => {
                    threat_stops(&board).filter(|m| !m.is_empty()).map_or(LeafTactics::Open, LeafTactics::Forced)
                }
                Some(moves) => LeafTactics::Forced(moves),
                None => LeafTactics::Open,
            }
        } else if board.has_win(position.to_move()) {
            LeafTactics::Decided(1.0)
        } else if forced.as_ref().is_some_and(Vec::is_empty) {
            LeafTactics::Decided(-1.0)
        } else {
            let (won, nodes) = self.solver.proves_win(&board, &self.params.tactics.leaf);
            self.solver_stats.nodes += nodes;
            if won { LeafTactics::Decided(1.0) } else { forced.map_or(LeafTactics::Open, LeafTactics::Forced) }
        };
        self.solver_stats.time += start.elapsed();
        tactics
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

    /// Walks from the root to a leaf. Returns false when it met a leaf already
    /// waiting for the evaluator (or nothing can be selected), which ends this
    /// round of gathering.
    fn descend(&mut self) -> bool {
        let mut position = self.root_position.clone();
        let mut path = vec![ROOT];
        let mut node = ROOT;
        loop {
            let current = &self.nodes[node as usize];
            if let Some(value) = current.proof.value() {
                // Decided: the exact value, for the player to act here.
                self.backup(&path, current.for_actor(value));
                return true;
            }
            match current.state {
                NodeState::Pending => return false,
                NodeState::Leaf => {
                    let mut forced = None;
                    if self.reads(&position) {
                        match self.read_leaf(&position, node == ROOT) {
                            LeafTactics::Decided(value) => {
                                // The proof is for the player who moved into the leaf.
                                let leaf = &mut self.nodes[node as usize];
                                let for_actor = if value > 0.0 { Proof::Win } else { Proof::Loss };
                                leaf.proof = if leaf.turn_passes { for_actor.flipped() } else { for_actor };
                                self.backup(&path, value);
                                return true;
                            }
                            LeafTactics::Forced(moves) => forced = Some(moves),
                            LeafTactics::Open => {}
                        }
                    }
                    if let Some(evaluation) = self.cache.get(&position.hash()).cloned() {
                        self.expand(node, &position, &evaluation, forced.as_deref());
                        self.backup(&path, value_for_actor(&position, evaluation.value));
                        return true;
                    }
                    self.nodes[node as usize].state = NodeState::Pending;
                    for &n in &path {
                        self.nodes[n as usize].in_flight += 1;
                    }
                    self.pending.push(Request { position, path, forced });
                    return true;
                }
                NodeState::Expanded => {
                    let Some(edge) = self.select(node) else { return false };
                    let point = self.nodes[node as usize].edges[edge].point;
                    let mover = Mover::of(&position, point);
                    position.play_unchecked(point);
                    let child = self.child_node(node, edge, mover, &position);
                    path.push(child);
                    node = child;
                }
            }
        }
    }

    /// The node that edge `edge` of `node` leads to, created on first use;
    /// `mover` made the move and `after` is the position there.
    fn child_node(&mut self, node: u32, edge: usize, mover: Mover, after: &Position) -> u32 {
        if let Some(child) = self.nodes[node as usize].edges[edge].child {
            return child;
        }
        let child = self.nodes.len() as u32;
        self.nodes.push(Node::new(terminal_proof(after, mover.stone), after.actor() != mover.seat));
        self.nodes[node as usize].edges[edge].child = Some(child);
        child
    }

    /// The edge to follow from an expanded node.
    fn select(&mut self, node: u32) -> Option<usize> {
        if node == ROOT && self.gumbel.is_some() {
            return self.select_gumbel();
        }
        let parent = &self.nodes[node as usize];
        let priors = if node == ROOT { self.root_priors.as_deref() } else { None };
        let parent_n = parent.visits + parent.in_flight;
        if node == ROOT
            && let Some(i) = self.forced_edge(parent_n)
        {
            return Some(i);
        }
        let explore = self.exploration(parent_n);
        // First-play urgency from the parent's value for its player to act.
        let parent_q = parent.q().map_or(0.0, |q| parent.for_actor(q));
        let visited_mass: f32 = parent
            .edges
            .iter()
            .enumerate()
            .filter(|(_, e)| e.child.is_some_and(|c| self.nodes[c as usize].visits > 0))
            .map(|(i, e)| priors.map_or(e.prior, |p| p[i]))
            .sum();
        let fpu = parent_q - self.params.fpu_reduction * visited_mass.sqrt();
        let mut best = None;
        let mut best_score = f32::NEG_INFINITY;
        for (i, edge) in parent.edges.iter().enumerate() {
            let prior = priors.map_or(edge.prior, |p| p[i]);
            let (q, n) = match edge.child.map(|c| &self.nodes[c as usize]) {
                Some(child) => match child.proof {
                    Proof::Win => return Some(i),
                    Proof::Loss => continue,
                    _ => (child.q().unwrap_or(fpu), child.visits + child.in_flight),
                },
                None => (fpu, 0),
            };
            let score = q + explore * prior / (1 + n) as f32;
            if score > best_score {
                best_score = score;
                best = Some(i);
            }
        }
        // Every move loses: play on along the most likely one.
        best.or_else(|| (!parent.edges.is_empty()).then_some(0))
    }

    /// PUCT's exploration factor at a node of `parent_n` playouts.
    fn exploration(&self, parent_n: u32) -> f32 {
        let c = self.params.c_puct + ((1.0 + parent_n as f32 + self.params.c_puct_base) / self.params.c_puct_base).ln();
        c * (parent_n.max(1) as f32).sqrt()
    }

    /// Whether forced playouts are on: self-play (noise) under PUCT.
    fn forces_playouts(&self) -> bool {
        self.params.forced_playouts > 0.0 && self.params.noise && self.gumbel.is_none()
    }

    /// The playouts a visited root move of `prior` is owed out of the root's
    /// `total` (forced playouts, when they are on).
    fn forced_visits(&self, prior: f32, total: u32) -> f32 {
        (self.params.forced_playouts * prior * total as f32).sqrt()
    }

    /// Root edge `i`'s prior as the search uses it (noise mixed in).
    fn root_prior(&self, i: usize) -> f32 {
        self.root_priors.as_deref().map_or(self.nodes[ROOT as usize].edges[i].prior, |p| p[i])
    }

    /// The first root edge (best prior first) that has been visited but has
    /// fewer playouts than it is owed.
    fn forced_edge(&self, total: u32) -> Option<usize> {
        if !self.forces_playouts() {
            return None;
        }
        let root = &self.nodes[ROOT as usize];
        root.edges.iter().enumerate().find_map(|(i, edge)| {
            let child = &self.nodes[edge.child? as usize];
            let n = child.visits + child.in_flight;
            let owed = self.forced_visits(self.root_prior(i), total);
            (n > 0 && child.proof == Proof::Unknown && (n as f32) < owed).then_some(i)
        })
    }

    /// Policy target pruning: takes back from every root move but the most
    /// visited the forced playouts it did not earn, as many as leave its
    /// PUCT score below the best move's; a move left with one is dropped.
    fn prune_forced_visits(&self, visits: &mut [u32]) {
        let total: u32 = visits.iter().sum();
        if !self.forces_playouts() || total == 0 {
            return;
        }
        let Some(best) = (0..visits.len()).max_by_key(|&i| (visits[i], std::cmp::Reverse(i))) else { return };
        let explore = self.exploration(total);
        let best_score = self.completed_q(best) + explore * self.root_prior(best) / (1 + visits[best]) as f32;
        for (i, n) in visits.iter_mut().enumerate() {
            if i == best || *n == 0 {
                continue;
            }
            let gap = best_score - self.completed_q(i);
            // The fewest playouts that keep this move's score below the best's.
            let earned = if gap > 0.0 {
                (explore * self.root_prior(i) / gap - 1.0).floor().max(-1.0) as i64 + 1
            } else {
                i64::MAX
            };
            let unforced = i64::from(*n) - self.forced_visits(self.root_prior(i), total) as i64;
            let kept = earned.max(unforced).min(i64::from(*n));
            *n = if kept <= 1 { 0 } else { kept as u32 };
        }
    }

    /// Sequential halving: the considered root edge furthest below this
    /// phase's visit target, halving the field when all have reached it.
    fn select_gumbel(&mut self) -> Option<usize> {
        loop {
            let gumbel = self.gumbel.as_ref()?;
            let root = &self.nodes[ROOT as usize];
            let count = |i: usize| {
                root.edges[i].child.map_or(0, |c| {
                    let child = &self.nodes[c as usize];
                    child.visits + child.in_flight
                })
            };
            if let Some(&i) =
                gumbel.considered.iter().filter(|&&i| count(i) < gumbel.target).min_by_key(|&&i| (count(i), i))
            {
                return Some(i);
            }
            if gumbel
                .considered
                .iter()
                .any(|&i| root.edges[i].child.is_some_and(|c| self.nodes[c as usize].in_flight > 0))
            {
                return None; // wait for this phase's evaluations
            }
            self.next_gumbel_phase();
        }
    }

    fn next_gumbel_phase(&mut self) {
        let scores: Vec<(usize, f32)> = {
            let gumbel = self.gumbel.as_ref().expect("gumbel root");
            gumbel.considered.iter().map(|&i| (i, gumbel.score[i] + self.sigma_q(i))).collect()
        };
        let visits = self.params.visits;
        let gumbel = self.gumbel.as_mut().expect("gumbel root");
        if gumbel.considered.len() > 1 && gumbel.phases_left > 1 {
            let mut ranked = scores;
            ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            ranked.truncate(gumbel.considered.len().div_ceil(2));
            gumbel.considered = ranked.into_iter().map(|(i, _)| i).collect();
            gumbel.phases_left -= 1;
        }
        let per_phase = visits / gumbel.phases_left.max(1);
        gumbel.target += (per_phase / gumbel.considered.len() as u32).max(1);
    }

    /// `sigma(q)` of the Gumbel paper for root edge `i`: the completed value
    /// rescaled to `[0, 1]` and weighted by the most visits of any root edge.
    fn sigma_q(&self, i: usize) -> f32 {
        let Some(params) = &self.params.gumbel else { return 0.0 };
        let root = &self.nodes[ROOT as usize];
        let max_visits =
            root.edges.iter().filter_map(|e| e.child.map(|c| self.nodes[c as usize].visits)).max().unwrap_or(0);
        let q = self.completed_q(i);
        (params.c_visit + max_visits as f32) * params.c_scale * (q + 1.0) / 2.0
    }

    /// The value of root edge `i` for the root's side to move; an unvisited
    /// edge gets the root's value.
    fn completed_q(&self, i: usize) -> f32 {
        let root = &self.nodes[ROOT as usize];
        match root.edges[i].child.map(|c| &self.nodes[c as usize]) {
            Some(child) if child.proof != Proof::Unknown => child.proof.value().unwrap_or(0.0),
            Some(child) if child.visits > 0 => (child.value_sum / f64::from(child.visits)) as f32,
            _ => root.q().map_or(0.0, |q| -q),
        }
    }

    /// Creates the edges of `node` from an evaluation of `position`; only
    /// the `forced` moves, when the opponent threatens to win at once.
    fn expand(&mut self, node: u32, position: &Position, evaluation: &Evaluation, forced: Option<&[Point]>) {
        let size = position.rules().size();
        let mut edges: Vec<Edge> = position
            .legal_moves()
            .filter(|p| forced.is_none_or(|moves| moves.contains(p)))
            .map(|point| Edge {
                point,
                // A colour choice has no policy slot: the choices share the prior.
                prior: if point.is_choice() {
                    1.0
                } else {
                    evaluation.policy.get(point.dense_index(size)).copied().unwrap_or(0.0).max(0.0)
                },
                child: None,
            })
            .collect();
        let total: f32 = edges.iter().map(|e| e.prior).sum();
        let uniform = 1.0 / edges.len().max(1) as f32;
        for edge in &mut edges {
            edge.prior = if total > 0.0 && total.is_finite() { edge.prior / total } else { uniform };
        }
        // Most likely moves first: ties in selection go to the better prior.
        edges.sort_by(|a, b| b.prior.total_cmp(&a.prior).then(a.point.cmp(&b.point)));
        // A move that wins at once is found here, not left to the priors: the
        // node is then proven. Only moves next to a stone can win.
        let mover = position.to_move();
        let winning = edges.iter().position(|edge| {
            !edge.point.is_choice() && touches_stone(position, edge.point) && {
                let mut next = position.clone();
                next.play_unchecked(edge.point);
                next.outcome().is_some_and(|o| o.winner == Some(mover))
            }
        });
        if let Some(i) = winning {
            edges[i].child = Some(self.nodes.len() as u32);
            self.nodes.push(Node::new(Proof::Win, true));
        }
        let n = &mut self.nodes[node as usize];
        n.edges = edges;
        n.state = NodeState::Expanded;
        if node == ROOT {
            self.prepare_root();
        }
    }

    /// Root noise and the Gumbel field, drawn once per root.
    fn prepare_root(&mut self) {
        let edges = &self.nodes[ROOT as usize].edges;
        if edges.is_empty() {
            return;
        }
        if self.params.noise && self.params.dirichlet_fraction > 0.0 && self.params.gumbel.is_none() {
            let alpha = (self.params.dirichlet_total_alpha / edges.len() as f32).max(1e-3);
            let gamma = Gamma::new(alpha, 1.0).expect("positive Dirichlet alpha");
            let noise: Vec<f32> = edges.iter().map(|_| gamma.sample(&mut self.rng)).collect();
            let total: f32 = noise.iter().sum();
            if total > 0.0 {
                let eps = self.params.dirichlet_fraction;
                self.root_priors =
                    Some(edges.iter().zip(&noise).map(|(e, n)| (1.0 - eps) * e.prior + eps * n / total).collect());
            }
        }
        if let Some(params) = &self.params.gumbel {
            let gumbel_noise = Gumbel::new(0.0f32, 1.0).expect("valid Gumbel");
            let score: Vec<f32> = edges
                .iter()
                .map(|e| {
                    let g = if self.params.noise { gumbel_noise.sample(&mut self.rng) } else { 0.0 };
                    g + e.prior.max(1e-12).ln()
                })
                .collect();
            let mut order: Vec<usize> = (0..edges.len()).collect();
            order.sort_by(|&a, &b| score[b].total_cmp(&score[a]).then(a.cmp(&b)));
            order.truncate(params.considered.clamp(1, edges.len()));
            let phases = (order.len() as f32).log2().ceil().max(1.0) as u32;
            let target = (self.params.visits / phases / order.len() as u32).max(1);
            self.gumbel = Some(GumbelRoot { score, considered: order, target, phases_left: phases });
        }
    }

    /// Adds a leaf value (for the player to act at the leaf) along `path`,
    /// then updates proofs from the leaf up.
    fn backup(&mut self, path: &[u32], leaf_value: f32) {
        // Each node keeps the value for the player who moved into it, which
        // is the player to act at its parent.
        let mut value = leaf_value;
        for &node in path.iter().rev() {
            let n = &mut self.nodes[node as usize];
            value = n.for_actor(value);
            n.visits += 1;
            n.value_sum += f64::from(value);
        }
        for &node in path.iter().rev() {
            if !self.update_proof(node) {
                break;
            }
        }
    }

    /// Proves `node` from its children (MCTS-solver). Returns whether it is proven.
    fn update_proof(&mut self, node: u32) -> bool {
        let n = &self.nodes[node as usize];
        if n.proof != Proof::Unknown {
            return true;
        }
        if n.state != NodeState::Expanded || n.edges.is_empty() {
            return false;
        }
        let mut all_decided = true;
        let mut any_draw = false;
        // The children's proofs are for the player to act here.
        let mut for_actor = None;
        for edge in &n.edges {
            match edge.child.map_or(Proof::Unknown, |c| self.nodes[c as usize].proof) {
                Proof::Win => {
                    for_actor = Some(Proof::Win);
                    break;
                }
                Proof::Loss => {}
                Proof::Draw => any_draw = true,
                Proof::Unknown => all_decided = false,
            }
        }
        let proof = match for_actor {
            Some(win) => win,
            None if !all_decided => return false,
            None if any_draw => Proof::Draw,
            None => Proof::Loss,
        };
        let n = &mut self.nodes[node as usize];
        n.proof = if n.turn_passes { proof.flipped() } else { proof };
        true
    }

    /// The result so far.
    #[must_use]
    pub fn result(&self) -> SearchResult {
        let root = &self.nodes[ROOT as usize];
        let mut candidates: Vec<Candidate> = root
            .edges
            .iter()
            .map(|edge| {
                let child = edge.child.map(|c| &self.nodes[c as usize]);
                Candidate {
                    point: edge.point,
                    visits: child.map_or(0, |c| c.visits),
                    prior: edge.prior,
                    value: child.filter(|c| c.visits > 0).map(|c| (c.value_sum / f64::from(c.visits)) as f32),
                    proof: child.map_or(Proof::Unknown, |c| c.proof),
                }
            })
            .collect();
        let mut best_move = self.best_edge().map(|i| root.edges[i].point);
        let mut policy_target = self.policy_target();
        if let Some(&winning) = self.root_line.as_ref().and_then(|line| line.first()) {
            best_move = Some(winning);
            policy_target = vec![(winning, 1.0)];
            match candidates.iter_mut().find(|c| c.point == winning) {
                Some(candidate) => candidate.proof = Proof::Win,
                None => candidates.push(Candidate {
                    point: winning,
                    visits: 0,
                    prior: 0.0,
                    value: Some(1.0),
                    proof: Proof::Win,
                }),
            }
        }
        // Proven wins first, then by visits and prior.
        candidates.sort_by(|a, b| {
            (a.proof != Proof::Win)
                .cmp(&(b.proof != Proof::Win))
                .then(b.visits.cmp(&a.visits))
                .then(b.prior.total_cmp(&a.prior))
                .then(a.point.cmp(&b.point))
        });
        let proof = root.actor_proof();
        let value = proof.value().or_else(|| root.q().map(|q| -q)).unwrap_or(0.0);
        let proven_line =
            if matches!(proof, Proof::Win | Proof::Loss) { self.proven_line(best_move) } else { Vec::new() };
        let winner_moves = self.winner_moves(proof, &proven_line);
        SearchResult {
            best_move,
            value,
            proof,
            visits: root.visits,
            candidates,
            policy_target,
            proven_line,
            winner_moves,
        }
    }

    /// The moves of the winner in `line` from the root: the player to act
    /// at the root if `proof` is a win, the other if a loss.
    fn winner_moves(&self, proof: Proof, line: &[Point]) -> Option<usize> {
        let root_actor = self.root_position.actor();
        let winner = match proof {
            _ if line.is_empty() => return None,
            Proof::Win => root_actor,
            Proof::Loss => root_actor.other(),
            _ => return None,
        };
        let mut position = self.root_position.clone();
        let mut count = 0;
        for &point in line {
            count += usize::from(position.actor() == winner);
            position.play_unchecked(point);
        }
        Some(count)
    }

    /// A line to the end of a proven game: the solver's from the root, or
    /// the tree's (the winner's proven move, the loser's most visited one)
    /// finished by the solver where a leaf was decided by it.
    fn proven_line(&self, best_move: Option<Point>) -> Vec<Point> {
        if let Some(line) = &self.root_line {
            return line.clone();
        }
        let mut line = Vec::new();
        let mut position = self.root_position.clone();
        let mut node = ROOT;
        while !position.is_over() && line.len() < 2 * usize::from(self.params.tactics.root.max_depth) + 16 {
            let n = &self.nodes[node as usize];
            let proof_of = |e: &Edge| e.child.map_or(Proof::Unknown, |c| self.nodes[c as usize].proof);
            let visits_of = |e: &Edge| e.child.map_or(0, |c| self.nodes[c as usize].visits);
            let pick = if node == ROOT {
                n.edges.iter().find(|e| Some(e.point) == best_move)
            } else if n.actor_proof() == Proof::Win {
                n.edges.iter().find(|e| proof_of(e) == Proof::Win)
            } else {
                n.edges.iter().filter(|e| e.child.is_some()).max_by_key(|e| visits_of(e))
            };
            let Some(edge) = pick.filter(|e| e.child.is_some()) else { break };
            line.push(edge.point);
            position.play_unchecked(edge.point);
            node = edge.child.expect("filtered");
        }
        if position.is_over() {
            return line;
        }
        // Decided at a leaf without edges: the side to move there wins by
        // the solver, or loses after any move to an immediate win.
        if self.nodes[node as usize].proof == Proof::Win {
            let Some(any) = position.legal_moves().next() else { return line };
            line.push(any);
            position.play_unchecked(any);
        }
        let mut solver = Solver::new(1 << 12);
        if let Some(rest) = solver.solve(&position, &self.params.tactics.root).line {
            line.extend(rest);
        }
        line
    }

    /// Index of the root edge to play.
    fn best_edge(&self) -> Option<usize> {
        let root = &self.nodes[ROOT as usize];
        if root.edges.is_empty() {
            // Not expanded (no budget) or no legal move: the first legal move, if any.
            return None;
        }
        let proof_of = |i: usize| root.edges[i].child.map_or(Proof::Unknown, |c| self.nodes[c as usize].proof);
        if let Some(i) = (0..root.edges.len()).find(|&i| proof_of(i) == Proof::Win) {
            return Some(i);
        }
        if let Some(gumbel) = &self.gumbel {
            return gumbel
                .considered
                .iter()
                .copied()
                .filter(|&i| proof_of(i) != Proof::Loss)
                .max_by(|&a, &b| {
                    (gumbel.score[a] + self.sigma_q(a)).total_cmp(&(gumbel.score[b] + self.sigma_q(b))).then(b.cmp(&a))
                })
                .or(Some(gumbel.considered[0]));
        }
        let visits = |i: usize| root.edges[i].child.map_or(0, |c| self.nodes[c as usize].visits);
        (0..root.edges.len())
            .filter(|&i| proof_of(i) != Proof::Loss)
            .max_by(|&a, &b| {
                visits(a).cmp(&visits(b)).then(self.completed_q(a).total_cmp(&self.completed_q(b))).then(b.cmp(&a))
            })
            .or(Some(0))
    }

    fn policy_target(&self) -> Vec<(Point, f32)> {
        let root = &self.nodes[ROOT as usize];
        if root.edges.is_empty() {
            return Vec::new();
        }
        if self.gumbel.is_some() {
            // softmax(log prior + sigma(completed Q)): the improved policy.
            let logits: Vec<f32> =
                (0..root.edges.len()).map(|i| root.edges[i].prior.max(1e-12).ln() + self.sigma_q(i)).collect();
            let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let exp: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
            let total: f32 = exp.iter().sum();
            return root.edges.iter().zip(exp).map(|(e, x)| (e.point, x / total)).collect();
        }
        let mut visits: Vec<u32> =
            root.edges.iter().map(|e| e.child.map_or(0, |c| self.nodes[c as usize].visits)).collect();
        self.prune_forced_visits(&mut visits);
        let total: u32 = visits.iter().sum();
        if total == 0 {
            return root.edges.iter().map(|e| (e.point, e.prior)).collect();
        }
        root.edges.iter().zip(visits).filter(|&(_, n)| n > 0).map(|(e, n)| (e.point, n as f32 / total as f32)).collect()
    }

    /// Moves the root to the position after `point`, keeping the subtree
    /// below it (tree reuse). Pending evaluations are dropped.
    ///
    /// # Panics
    /// If `point` is not legal in the searched position.
    pub fn advance(&mut self, point: Point) {
        self.root_position.play(point).expect("advance with a legal move");
        self.pending.clear();
        let kept = self.nodes[ROOT as usize].edges.iter().find(|e| e.point == point).and_then(|e| e.child);
        // A kept node the solver decided before it had edges would leave the
        // root without a move to play: start afresh instead.
        let Some(new_root) = kept.filter(|&c| self.nodes[c as usize].state == NodeState::Expanded) else {
            self.reset_tree();
            return;
        };
        // Copy the kept subtree into a fresh arena, root first.
        let mut old = std::mem::take(&mut self.nodes);
        let mut remap = vec![u32::MAX; old.len()];
        let mut queue = std::collections::VecDeque::from([new_root]);
        remap[new_root as usize] = 0;
        let mut order = Vec::new();
        while let Some(n) = queue.pop_front() {
            order.push(n);
            for edge in &old[n as usize].edges {
                if let Some(c) = edge.child {
                    remap[c as usize] = (order.len() + queue.len()) as u32;
                    queue.push_back(c);
                }
            }
        }
        for &n in &order {
            let mut node = std::mem::replace(&mut old[n as usize], Node::new(Proof::Unknown, true));
            node.in_flight = 0;
            if node.state == NodeState::Pending {
                node.state = NodeState::Leaf;
            }
            for edge in &mut node.edges {
                edge.child = edge.child.map(|c| remap[c as usize]);
            }
            self.nodes.push(node);
        }
        self.root_priors = None;
        self.gumbel = None;
        self.root_read = false;
        self.root_line = None;
        self.started = None;
        self.verified = false;
        if self.nodes[ROOT as usize].state == NodeState::Expanded {
            self.prepare_root();
        }
    }

    /// The move to play after `result`: drawn at the settings'
    /// `move_temperature` (a proven win is always played).
    pub fn play_move(&mut self, result: &SearchResult) -> Option<Point> {
        self.sample_move(result, self.params.move_temperature)
    }

    /// Picks a move from the visit counts at `temperature` (0 = the best
    /// move); the usual self-play move choice.
    pub fn sample_move(&mut self, result: &SearchResult, temperature: f32) -> Option<Point> {
        if temperature <= 0.0 || result.policy_target.is_empty() || result.proof == Proof::Win {
            return result.best_move;
        }
        let weights: Vec<f64> =
            result.policy_target.iter().map(|&(_, p)| f64::from(p).powf(1.0 / f64::from(temperature))).collect();
        let total: f64 = weights.iter().sum();
        if !(total > 0.0 && total.is_finite()) {
            return result.best_move;
        }
        let mut r = self.rng.random_range(0.0..total);
        for (&(point, _), w) in result.policy_target.iter().zip(&weights) {
            if r < *w {
                return Some(point);
            }
            r -= w;
        }
        result.best_move
    }
}

/// Whether any of the 8 neighbours of `p` holds a stone.
fn touches_stone(position: &Position, p: Point) -> bool {
    let size = i16::from(position.rules().size());
    (-1i16..=1).any(|dy| {
        (-1i16..=1).any(|dx| {
            let (x, y) = (i16::from(p.x()) + dx, i16::from(p.y()) + dy);
            (0..size).contains(&x)
                && (0..size).contains(&y)
                && position.stone_at(Point::new(x as u8, y as u8)).is_some()
        })
    })
}

/// Who makes a move, for the node it leads to.
#[derive(Debug, Clone, Copy)]
struct Mover {
    /// The player to act before it.
    seat: Seat,
    /// The colour of the stone it places; `None` for a colour choice.
    stone: Option<Color>,
}

impl Mover {
    fn of(position: &Position, point: Point) -> Mover {
        Mover { seat: position.actor(), stone: (!point.is_choice()).then(|| position.to_move()) }
    }
}

/// The proof of a node from its position alone: a finished game is decided
/// for the player who moved into it, who placed the last stone, of colour
/// `stone` (no game ends on a colour choice).
fn terminal_proof(position: &Position, stone: Option<Color>) -> Proof {
    match position.outcome() {
        None => Proof::Unknown,
        Some(outcome) => match outcome.winner {
            None => Proof::Draw,
            Some(winner) if Some(winner) == stone => Proof::Win,
            Some(_) => Proof::Loss,
        },
    }
}

/// An evaluator's value, for the colour of the next stone, as the value for
/// the player to act. Once the players hold their colours the two agree.
/// Before the colour choice of D-Pente or Swap2 the chooser will take the
/// better side, so the chooser gets the better of the two values and the
/// player placing the opening stones the worse.
fn value_for_actor(position: &Position, value: f32) -> f32 {
    if position.seats_decided() {
        value
    } else if position.choice_pending().is_some() {
        value.abs()
    } else {
        -value.abs()
    }
}
