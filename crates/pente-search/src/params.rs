//! Search settings, as read from config files.

use serde::{Deserialize, Serialize};

use crate::solver::SolverParams;

/// How a search spends its playouts and picks its move.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchParams {
    /// Playouts per move (visits of the root, reused ones included).
    pub visits: u32,
    /// Time control: a move's search also stops after this many seconds
    /// (counted from its first round), whatever its visits.
    pub max_seconds: Option<f64>,
    /// Exploration constant of PUCT at the root's first visits (AlphaZero's `c_init`).
    pub c_puct: f32,
    /// Growth of the exploration constant with visits (AlphaZero's `c_base`).
    pub c_puct_base: f32,
    /// First-play urgency: an unvisited move is valued at the parent's value
    /// minus this times the square root of the prior mass already visited.
    pub fpu_reduction: f32,
    /// Leaves one search collects (under virtual loss) before a network call.
    pub leaves_per_call: usize,
    /// Mix Dirichlet noise into the root priors and, with Gumbel, sample the
    /// Gumbel noise (self-play only).
    pub noise: bool,
    /// Total Dirichlet concentration, spread over the legal moves (KataGo's 10.83).
    pub dirichlet_total_alpha: f32,
    /// Weight of the noise in the root priors.
    pub dirichlet_fraction: f32,
    /// Forced playouts with policy target pruning (KataGo), self-play only
    /// (with `noise`, under PUCT): a visited root move of prior P gets at
    /// least sqrt(k P N) of the root's N playouts, and the training target
    /// takes back those it did not earn. This is k (KataGo's 2); 0 is off.
    pub forced_playouts: f32,
    /// Use Gumbel root selection with sequential halving instead of PUCT at
    /// the root; best for small budgets (8-32 visits).
    pub gumbel: Option<GumbelParams>,
    /// Network evaluations kept per search, keyed by Zobrist hash (0 = none).
    pub cache_entries: usize,
    /// The threat solver inside the search.
    pub tactics: TacticsParams,
    /// The move a player plays ([`Search::play_move`](crate::Search::play_move)):
    /// drawn with weights visits^(1/T), 0 for the most visited. The weaker
    /// [levels](crate::level) play above 0; self-play has its own schedule.
    pub move_temperature: f32,
}

impl SearchParams {
    /// What is wrong with these settings, naming the setting (as a
    /// config's `search` table spells it); a search with them would not run.
    ///
    /// # Errors
    /// The first setting out of its range.
    pub fn check(&self) -> Result<(), String> {
        let non_negative = |value: f32| value.is_finite() && value >= 0.0;
        if self.visits == 0 {
            return Err("visits must be at least 1".into());
        }
        if self.max_seconds.is_some_and(|s| !(s.is_finite() && s > 0.0)) {
            return Err("max_seconds must be more than 0".into());
        }
        if self.leaves_per_call == 0 {
            return Err("leaves_per_call must be at least 1".into());
        }
        if !(non_negative(self.c_puct) && self.c_puct_base.is_finite() && self.c_puct_base > 0.0) {
            return Err("c_puct must be 0 or more and c_puct_base more than 0".into());
        }
        if !self.fpu_reduction.is_finite() {
            return Err("fpu_reduction must be a number".into());
        }
        if !((0.0..=1.0).contains(&self.dirichlet_fraction) && non_negative(self.dirichlet_total_alpha)) {
            return Err("dirichlet_fraction must be between 0 and 1 and dirichlet_total_alpha 0 or more".into());
        }
        if !(non_negative(self.forced_playouts) && non_negative(self.move_temperature)) {
            return Err("forced_playouts and move_temperature must be 0 or more".into());
        }
        if self.gumbel.as_ref().is_some_and(|g| g.considered == 0) {
            return Err("gumbel.considered must be at least 1".into());
        }
        Ok(())
    }
}

impl Default for SearchParams {
    fn default() -> SearchParams {
        SearchParams {
            visits: 400,
            max_seconds: None,
            c_puct: 1.25,
            c_puct_base: 19652.0,
            fpu_reduction: 0.25,
            leaves_per_call: 8,
            noise: false,
            dirichlet_total_alpha: 10.83,
            dirichlet_fraction: 0.25,
            forced_playouts: 0.0,
            gumbel: None,
            cache_entries: 100_000,
            tactics: TacticsParams::default(),
            move_temperature: 0.0,
        }
    }
}

/// Settings of Gumbel root selection (Danihelka et al. 2022).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GumbelParams {
    /// Root moves sampled for sequential halving.
    pub considered: usize,
    /// `c_visit` of the monotone transform of Q.
    pub c_visit: f32,
    /// `c_scale` of the monotone transform of Q.
    pub c_scale: f32,
}

impl Default for GumbelParams {
    fn default() -> GumbelParams {
        GumbelParams { considered: 16, c_visit: 50.0, c_scale: 1.0 }
    }
}

/// How the search uses the threat solver ([`crate::solver`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TacticsParams {
    /// Read tactics at all: a solver run at the root and at every new leaf,
    /// and only the moves that stop an immediate win searched where one is
    /// threatened. Off, the search is plain PUCT/Gumbel.
    pub enabled: bool,
    /// The solver's budget at the root, once per move (VCF and VCT).
    pub root: SolverParams,
    /// The solver's budget at each new leaf (a short VCF).
    pub leaf: SolverParams,
    /// After the search, the best moves (up to this many) are checked for a
    /// forced win of the opponent; one that loses is proven so and the next
    /// is checked. 0 (the default) checks none: a check costs about as much
    /// as a 400-visit search with the shipped network, so it pays where time
    /// is plentiful (slow opponents, analysis).
    pub verify_moves: u32,
    /// The solver's budget for each check.
    pub verify: SolverParams,
}

impl Default for TacticsParams {
    fn default() -> TacticsParams {
        TacticsParams {
            enabled: true,
            // VCF threats at the root would double the solver's time in a
            // 200-visit search (`pente bench search`) for few more wins.
            root: SolverParams { max_depth: 12, max_threes: 1, max_nodes: 50_000, vcf_threats: false },
            leaf: SolverParams { max_depth: 5, max_threes: 0, max_nodes: 200, vcf_threats: false },
            verify_moves: 0,
            verify: SolverParams { max_depth: 12, max_threes: 2, max_nodes: 100_000, vcf_threats: true },
        }
    }
}
