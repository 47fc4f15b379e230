//! AlphaZero-style search over the Pente rules.
//!
//! The search is generic over an [`Evaluator`] that takes a batch of
//! positions and returns a policy and a value for each, so it never sees
//! tensors. [`search_many`] advances many searches (many games) together and
//! sends all their leaves to the evaluator in one call, so a network sees
//! full batches. A [`Backend`] loads a network as an evaluator, so that
//! the crates above load networks without knowing what runs them.

pub mod backend;
mod connect6;
mod evaluator;
mod heuristic;
pub mod level;
mod one_move;
mod params;
mod search;
pub mod solver;

use std::borrow::BorrowMut;

pub use backend::{Backend, LoadError};
pub use evaluator::{Evaluation, Evaluator, UniformEvaluator};
pub use heuristic::HeuristicEvaluator;
pub use params::{GumbelParams, SearchParams, TacticsParams};
pub use search::{Candidate, Proof, Search, SearchResult, SolverStats};

/// Runs every search to its budget, one evaluator call per round carrying
/// the waiting leaves of all of them.
pub fn search_many<S: BorrowMut<Search>>(searches: &mut [S], evaluator: &dyn Evaluator) {
    loop {
        let visits_before: u64 = searches.iter().map(|s| u64::from(s.borrow().visits())).sum();
        let mut waiting = 0;
        for search in searches.iter_mut() {
            let search = search.borrow_mut();
            if !search.is_done() {
                waiting += search.gather();
            }
        }
        if waiting > 0 {
            let positions: Vec<&pente_core::Position> =
                searches.iter().flat_map(|s| s.borrow().pending_positions()).collect();
            let mut evaluations = evaluator.evaluate(&positions).into_iter();
            assert_eq!(evaluations.len(), waiting, "the evaluator returns one evaluation per position");
            for search in searches.iter_mut() {
                let search = search.borrow_mut();
                let n = search.pending_positions().count();
                search.deliver(evaluations.by_ref().take(n));
            }
        }
        let visits_after: u64 = searches.iter().map(|s| u64::from(s.borrow().visits())).sum();
        if searches.iter().all(|s| s.borrow().is_done()) || (waiting == 0 && visits_after == visits_before) {
            break;
        }
    }
    for search in searches.iter_mut() {
        search.borrow_mut().verify_best_moves();
    }
}
