//! Turning training examples into tensors, and the loss: policy
//! cross-entropy against the search's policy target plus value
//! cross-entropy against the game result, and for a network with the
//! auxiliary heads, their losses against the game's later course.

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
    /// The opponent's reply to the move played, if the game went on with one.
    pub reply: Option<Point>,
    /// The game's last position, seen through the same symmetry as
    /// `position`: the auxiliary heads' ownership and capture targets.
    pub final_position: Option<&'a Position>,
}

/// Weights of the auxiliary losses in the total. The reply's is KataGo's;
/// the ownership and capture errors (means of squared differences of
/// values in -1..1 and 0..1) count once each.
const REPLY_WEIGHT: f64 = 0.15;
const OWNERSHIP_WEIGHT: f64 = 1.0;
const CAPTURES_WEIGHT: f64 = 1.0;

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
    /// The auxiliary heads' targets, when every example has a final position.
    pub aux: Option<AuxTargets>,
}

/// Targets of the auxiliary heads ([`crate::model::AuxOutputs`]).
#[derive(Debug, Clone)]
pub struct AuxTargets {
    /// One-hot opponent's reply `[B, H*W]`; a row of zeros where there was none.
    pub reply: Tensor<2>,
    /// Final ownership `[B, H*W]`: 1 a stone of the side to move, -1 the
    /// opponent's, 0 empty.
    pub ownership: Tensor<2>,
    /// Final captured stones of the side to move and of the opponent over
    /// the stones that win (at most 1; 0 where captures do not win) `[B, 2]`.
    pub captures: Tensor<2>,
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
            aux: AuxTargets::new(examples, device),
        }
    }
}

impl AuxTargets {
    /// The targets of `examples`, if every one has its final position.
    fn new(examples: &[Example<'_>], device: &Device) -> Option<AuxTargets> {
        // Most batches (networks without the heads) have none: allocate nothing for them.
        let finals: Vec<&Position> = examples.iter().map(|e| e.final_position).collect::<Option<_>>()?;
        let size = examples[0].position.rules().size();
        let area = usize::from(size) * usize::from(size);
        let b = examples.len();
        let mut reply = vec![0.0f32; b * area];
        let mut ownership = vec![0.0f32; b * area];
        let mut captures = vec![0.0f32; b * 2];
        for (i, (example, last)) in examples.iter().zip(finals).enumerate() {
            if let Some(p) = example.reply.filter(|p| !p.is_choice()) {
                reply[i * area + p.dense_index(size)] = 1.0;
            }
            let me = example.position.to_move();
            for (j, owner) in ownership[i * area..(i + 1) * area].iter_mut().enumerate() {
                let p = Point::from_dense_index(j, size).expect("a point of the board");
                *owner = match last.stone_at(p) {
                    Some(color) if color == me => 1.0,
                    Some(_) => -1.0,
                    None => 0.0,
                };
            }
            if let Some(win) = last.rules().capture_win() {
                let fraction = |stones: u16| (f32::from(stones) / f32::from(win)).min(1.0);
                captures[i * 2] = fraction(last.captured(me));
                captures[i * 2 + 1] = fraction(last.captured(me.opponent()));
            }
        }
        Some(AuxTargets {
            reply: Tensor::from_data(TensorData::new(reply, [b, area]), device),
            ownership: Tensor::from_data(TensorData::new(ownership, [b, area]), device),
            captures: Tensor::from_data(TensorData::new(captures, [b, 2]), device),
        })
    }
}

/// The parts of the loss, each a one-element tensor (mean over the batch).
#[derive(Debug, Clone)]
pub struct Losses {
    /// Policy cross-entropy.
    pub policy: Tensor<1>,
    /// Value (win/draw/loss) cross-entropy.
    pub value: Tensor<1>,
    /// The auxiliary heads' losses, weighted and summed, when the network
    /// has the heads and the batch their targets.
    pub aux: Option<Tensor<1>>,
}

impl Losses {
    /// The loss to minimize: policy plus `value_weight` times value, plus
    /// the auxiliary losses.
    #[must_use]
    pub fn total(&self, value_weight: f64) -> Tensor<1> {
        let main = self.policy.clone() + self.value.clone().mul_scalar(value_weight);
        match &self.aux {
            Some(aux) => main + aux.clone(),
            None => main,
        }
    }
}

/// Cross-entropy of soft targets, mean over the batch.
fn soft_cross_entropy(logits: Tensor<2>, target: Tensor<2>) -> Tensor<1> {
    (target * log_softmax(logits, 1)).sum_dim(1).mean().neg()
}

/// Mean squared error over every element.
fn mean_squared_error(prediction: Tensor<2>, target: Tensor<2>) -> Tensor<1> {
    (prediction - target).square().mean()
}

/// The losses of `model` on `batch`.
#[must_use]
pub fn losses(model: &PenteNet, batch: &Batch) -> Losses {
    let (policy, value, aux) = model.forward_with_aux(batch.features.clone());
    let policy = policy.mask_fill(batch.legal.clone().bool_not(), ILLEGAL_LOGIT);
    let aux = aux.zip(batch.aux.as_ref()).map(|(out, target)| {
        soft_cross_entropy(out.reply, target.reply.clone()).mul_scalar(REPLY_WEIGHT)
            + mean_squared_error(out.ownership, target.ownership.clone()).mul_scalar(OWNERSHIP_WEIGHT)
            + mean_squared_error(out.captures, target.captures.clone()).mul_scalar(CAPTURES_WEIGHT)
    });
    Losses {
        policy: soft_cross_entropy(policy, batch.policy.clone()),
        value: soft_cross_entropy(value, batch.value.clone()),
        aux,
    }
}
