//! What a search reports: the candidates, the move to play, the value and
//! proof, a proven line and the training target; and the move choice.

use pente_core::Point;
use rand::RngExt;

use super::node::{Edge, Proof};
use super::{ROOT, Search};
use crate::solver::Solver;

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

impl Search {
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
        if let Some(&winning) = self.root.line.as_ref().and_then(|line| line.first()) {
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
        if let Some(line) = &self.root.line {
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
    pub(super) fn best_edge(&self) -> Option<usize> {
        let root = &self.nodes[ROOT as usize];
        if root.edges.is_empty() {
            // Not expanded (no budget) or no legal move: the first legal move, if any.
            return None;
        }
        let proof_of = |i: usize| root.edges[i].child.map_or(Proof::Unknown, |c| self.nodes[c as usize].proof);
        if let Some(i) = (0..root.edges.len()).find(|&i| proof_of(i) == Proof::Win) {
            return Some(i);
        }
        if let Some(gumbel) = &self.root.gumbel {
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
        if self.root.gumbel.is_some() {
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
