//! The walk down the tree: PUCT selection with first-play urgency, forced
//! playouts at a self-play root, and the children created on the way.

use pente_core::Position;

use super::node::{Mover, Node, NodeState, Proof, terminal_proof, value_for_actor};
use super::tactics::LeafTactics;
use super::{ROOT, Request, Search};

impl Search {
    /// Walks from the root to a leaf. Returns false when it met a leaf already
    /// waiting for the evaluator (or nothing can be selected), which ends this
    /// round of gathering.
    pub(super) fn descend(&mut self) -> bool {
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
                    if self.reads_leaf(&position) {
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
    pub(super) fn child_node(&mut self, node: u32, edge: usize, mover: Mover, after: &Position) -> u32 {
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
        if node == ROOT && self.root.gumbel.is_some() {
            return self.select_gumbel();
        }
        let parent = &self.nodes[node as usize];
        let priors = if node == ROOT { self.root.priors.as_deref() } else { None };
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
        self.params.forced_playouts > 0.0 && self.params.noise && self.root.gumbel.is_none()
    }

    /// The playouts a visited root move of `prior` is owed out of the root's
    /// `total` (forced playouts, when they are on).
    fn forced_visits(&self, prior: f32, total: u32) -> f32 {
        (self.params.forced_playouts * prior * total as f32).sqrt()
    }

    /// Root edge `i`'s prior as the search uses it (noise mixed in).
    fn root_prior(&self, i: usize) -> f32 {
        self.root.priors.as_deref().map_or(self.nodes[ROOT as usize].edges[i].prior, |p| p[i])
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
    pub(super) fn prune_forced_visits(&self, visits: &mut [u32]) {
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
}
