//! Turning training examples into tensors, and the loss: policy
//! cross-entropy against the search's policy target plus value
//! cross-entropy against the game result.

use burn::prelude::*;
use burn::tensor::activation::log_softmax;
use pente_core::{Point, Position};

use crate::evaluator::ILLEGAL_LOGIT;
use crate::features::Features;
use crate::model::PenteNet;

/// One position with its targets.
#[derive(Debug, Clone, Copy)]
pub struct Example<'a> {
    /// The position, not finished.
    pub position: &'a Position,
    /// Target move probabilities (visit distribution or improved policy).
    pub policy: &'a [(Point, f32)],
    /// Final result for the side to move: 1 win, 0 draw, -1 loss.
    pub result: f32,
}

/// A batch on a device. All positions have the same board size.
#[derive(Debug, Clone)]
pub struct Batch {
    /// Features `[B, planes, H, W]`.
    pub features: Tensor<4>,
    /// Legal points `[B, H*W]`.
    pub legal: Tensor<2, Bool>,
    /// Policy targets `[B, H*W]`, rows summing to 1.
    pub policy: Tensor<2>,
    /// One-hot win/draw/loss targets `[B, 3]`.
    pub value: Tensor<2>,
}

impl Batch {
    /// Builds a batch from examples of one board size, in the input
    /// encoding `kind`.
    ///
    /// # Panics
    /// If `examples` is empty or mixes board sizes.
    #[must_use]
    pub fn new(kind: Features, examples: &[Example<'_>], device: &Device) -> Batch {
        let planes = kind.planes();
        let size = examples[0].position.rules().size();
        let s = usize::from(size);
        let area = s * s;
        let b = examples.len();
        let mut features = vec![0.0f32; b * planes * area];
        let mut legal = vec![false; b * area];
        let mut policy = vec![0.0f32; b * area];
        let mut value = vec![0.0f32; b * 3];
        for (i, example) in examples.iter().enumerate() {
            assert_eq!(example.position.rules().size(), size, "one board size per batch");
            kind.encode(example.position, &mut features[i * planes * area..(i + 1) * planes * area]);
            for p in example.position.legal_moves().filter(|p| !p.is_choice()) {
                legal[i * area + p.dense_index(size)] = true;
            }
            let total: f32 = example.policy.iter().map(|x| x.1).sum();
            for &(p, weight) in example.policy.iter().filter(|(p, _)| !p.is_choice()) {
                policy[i * area + p.dense_index(size)] += weight / total.max(f32::MIN_POSITIVE);
            }
            let column = if example.result > 0.0 {
                0
            } else if example.result < 0.0 {
                2
            } else {
                1
            };
            value[i * 3 + column] = 1.0;
        }
        Batch {
            features: Tensor::from_data(TensorData::new(features, [b, planes, s, s]), device),
            legal: Tensor::from_data(TensorData::new(legal, [b, area]), device),
            policy: Tensor::from_data(TensorData::new(policy, [b, area]), device),
            value: Tensor::from_data(TensorData::new(value, [b, 3]), device),
        }
    }
}

/// The parts of the loss, each a one-element tensor (mean over the batch).
#[derive(Debug, Clone)]
pub struct Losses {
    /// Policy cross-entropy.
    pub policy: Tensor<1>,
    /// Value (win/draw/loss) cross-entropy.
    pub value: Tensor<1>,
}

impl Losses {
    /// The loss to minimize: policy plus `value_weight` times value.
    #[must_use]
    pub fn total(&self, value_weight: f64) -> Tensor<1> {
        self.policy.clone() + self.value.clone().mul_scalar(value_weight)
    }
}

/// Cross-entropy of soft targets, mean over the batch.
fn soft_cross_entropy(logits: Tensor<2>, target: Tensor<2>) -> Tensor<1> {
    (target * log_softmax(logits, 1)).sum_dim(1).mean().neg()
}

/// The losses of `model` on `batch`.
#[must_use]
pub fn losses(model: &PenteNet, batch: &Batch) -> Losses {
    let (policy, value) = model.forward(batch.features.clone());
    let policy = policy.mask_fill(batch.legal.clone().bool_not(), ILLEGAL_LOGIT);
    Losses {
        policy: soft_cross_entropy(policy, batch.policy.clone()),
        value: soft_cross_entropy(value, batch.value.clone()),
    }
}
