//! What an evaluation adds to the tree: a leaf's edges (and the root's
//! noise and Gumbel field), then its value and any proof along the path.

use pente_core::{Point, Position};
use rand_distr::{Distribution, Gamma, Gumbel};

use super::gumbel::GumbelRoot;
use super::node::{Edge, Node, NodeState, Proof};
use super::{ROOT, Search};
use crate::evaluator::Evaluation;
use crate::one_move::touches_stone;

impl Search {
    /// Creates the edges of `node` from an evaluation of `position`; only
    /// the `forced` moves, when the opponent threatens to win at once.
    pub(super) fn expand(&mut self, node: u32, position: &Position, evaluation: &Evaluation, forced: Option<&[Point]>) {
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
    pub(super) fn prepare_root(&mut self) {
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
                self.root.priors =
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
            self.root.gumbel = Some(GumbelRoot { score, considered: order, target, phases_left: phases });
        }
    }

    /// Adds a leaf value (for the player to act at the leaf) along `path`,
    /// then updates proofs from the leaf up.
    pub(super) fn backup(&mut self, path: &[u32], leaf_value: f32) {
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
    pub(super) fn update_proof(&mut self, node: u32) -> bool {
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
}
