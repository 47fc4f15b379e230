//! The boundary between search and network: a batch of positions in, a
//! policy and a value per position out. The search never sees tensors.

use pente_core::{Color, Position};
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// What an evaluator says about one position.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// One prior weight per board point, indexed by [`pente_core::Point::dense_index`].
    /// Only legal points are read; the search renormalizes over them, so the
    /// weights need not sum to one.
    pub policy: Vec<f32>,
    /// Expected result for the side to move, in `[-1, 1]` (1 = win).
    pub value: f32,
}

/// Evaluates positions in batches. One call may carry the leaves of many
/// searches (many games), so that a network sees full batches.
pub trait Evaluator {
    /// One evaluation per position, in order. Positions are never finished games.
    fn evaluate(&self, positions: &[&Position]) -> Vec<Evaluation>;

    /// A short name for records and logs, e.g. `uniform` or a model id.
    fn name(&self) -> String;
}

impl<E: Evaluator + ?Sized> Evaluator for &E {
    fn evaluate(&self, positions: &[&Position]) -> Vec<Evaluation> {
        (**self).evaluate(positions)
    }

    fn name(&self) -> String {
        (**self).name()
    }
}

impl<E: Evaluator + ?Sized> Evaluator for Box<E> {
    fn evaluate(&self, positions: &[&Position]) -> Vec<Evaluation> {
        (**self).evaluate(positions)
    }

    fn name(&self) -> String {
        (**self).name()
    }
}

/// Uniform priors with a value of zero, or of one random playout: the
/// baseline with no knowledge, and a search test double.
#[derive(Debug, Clone, Copy, Default)]
pub struct UniformEvaluator {
    /// Play one random game from each position for its value instead of 0.
    pub rollout: bool,
}

impl Evaluator for UniformEvaluator {
    fn evaluate(&self, positions: &[&Position]) -> Vec<Evaluation> {
        positions
            .iter()
            .map(|position| {
                let value = if self.rollout { rollout_value(position) } else { 0.0 };
                Evaluation { policy: vec![1.0; position.rules().area()], value }
            })
            .collect()
    }

    fn name(&self) -> String {
        if self.rollout { "uniform-rollout".into() } else { "uniform".into() }
    }
}

/// The result of one random playout from `position` for its side to move.
/// Seeded by the position's hash, so evaluations are reproducible.
fn rollout_value(position: &Position) -> f32 {
    let mut rng = SmallRng::seed_from_u64(position.hash());
    let mover: Color = position.to_move();
    let (outcome, _) = position.clone().random_playout(&mut rng);
    match outcome.winner {
        Some(winner) if winner == mover => 1.0,
        Some(_) => -1.0,
        None => 0.0,
    }
}
