//! The Gumbel root (Danihelka et al. 2022): sequential halving over the
//! root moves of the best Gumbel-perturbed priors, and the completed values
//! it ranks them by.

use super::node::Proof;
use super::{ROOT, Search};

/// Sequential-halving state of a Gumbel root.
#[derive(Debug, Clone)]
pub(super) struct GumbelRoot {
    /// Gumbel noise plus log prior, per root edge.
    pub(super) score: Vec<f32>,
    /// Root edges still in the running.
    pub(super) considered: Vec<usize>,
    /// Visits each considered edge should reach in this phase.
    pub(super) target: u32,
    pub(super) phases_left: u32,
}

impl Search {
    /// Sequential halving: the considered root edge furthest below this
    /// phase's visit target, halving the field when all have reached it.
    pub(super) fn select_gumbel(&mut self) -> Option<usize> {
        loop {
            let gumbel = self.root.gumbel.as_ref()?;
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
            let gumbel = self.root.gumbel.as_ref().expect("gumbel root");
            gumbel.considered.iter().map(|&i| (i, gumbel.score[i] + self.sigma_q(i))).collect()
        };
        let visits = self.params.visits;
        let gumbel = self.root.gumbel.as_mut().expect("gumbel root");
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
    pub(super) fn sigma_q(&self, i: usize) -> f32 {
        let Some(params) = &self.params.gumbel else { return 0.0 };
        let root = &self.nodes[ROOT as usize];
        let max_visits =
            root.edges.iter().filter_map(|e| e.child.map(|c| self.nodes[c as usize].visits)).max().unwrap_or(0);
        let q = self.completed_q(i);
        (params.c_visit + max_visits as f32) * params.c_scale * (q + 1.0) / 2.0
    }

    /// The value of root edge `i` for the root's side to move; an unvisited
    /// edge gets the root's value.
    pub(super) fn completed_q(&self, i: usize) -> f32 {
        let root = &self.nodes[ROOT as usize];
        match root.edges[i].child.map(|c| &self.nodes[c as usize]) {
            Some(child) if child.proof != Proof::Unknown => child.proof.value().unwrap_or(0.0),
            Some(child) if child.visits > 0 => (child.value_sum / f64::from(child.visits)) as f32,
            _ => root.q().map_or(0.0, |q| -q),
        }
    }
}
