//! The network as a search [`Evaluator`]: positions in, masked policy and
//! value out, one forward pass per board size in the batch. The batching,
//! encoding and masking here are shared by every backend, so that they all
//! turn the same logits into the same evaluations.

use burn::prelude::*;
use pente_core::Position;
use pente_search::{Evaluation, Evaluator};

use crate::features::{LEGAL_PLANE, encode_batch};
use crate::model::PenteNet;

/// Logit given to illegal points: large and finite (an infinite one turns
/// `0 * -inf` into NaN in a cross-entropy).
pub const ILLEGAL_LOGIT: f32 = -1.0e9;

/// Positions a backend evaluates in one forward pass at most.
pub const MAX_BATCH: usize = 256;

/// Evaluates `positions` with `forward`, called on batches of at most
/// `max_batch` positions of one board size; the evaluations come back in
/// the order of `positions`.
pub fn evaluate_by_size(
    positions: &[&Position],
    max_batch: usize,
    mut forward: impl FnMut(&[&Position]) -> Vec<Evaluation>,
) -> Vec<Evaluation> {
    let first_size = positions.first().map(|p| p.rules().size());
    if positions.iter().all(|p| Some(p.rules().size()) == first_size) {
        return positions.chunks(max_batch).flat_map(&mut forward).collect();
    }
    let mut out: Vec<Option<Evaluation>> = vec![None; positions.len()];
    let mut sizes: Vec<u8> = positions.iter().map(|p| p.rules().size()).collect();
    sizes.sort_unstable();
    sizes.dedup();
    for size in sizes {
        let indices: Vec<usize> = (0..positions.len()).filter(|&i| positions[i].rules().size() == size).collect();
        for chunk in indices.chunks(max_batch) {
            let batch: Vec<&Position> = chunk.iter().map(|&i| positions[i]).collect();
            for (&i, evaluation) in chunk.iter().zip(forward(&batch)) {
                out[i] = Some(evaluation);
            }
        }
    }
    out.into_iter().map(|e| e.expect("every position evaluated")).collect()
}

/// The evaluation of one position from its encoded planes (`planes * area`
/// floats, as [`encode_batch`] wrote them), its policy logits (`area`) and
/// its win/draw/loss logits: the policy is the softmax over the legal points
/// (zero elsewhere), the value `P(win) - P(loss)`.
#[must_use]
pub fn evaluation_from_logits(features: &[f32], policy_logits: &[f32], wdl_logits: &[f32]) -> Evaluation {
    let area = policy_logits.len();
    let legal = &features[LEGAL_PLANE * area..(LEGAL_PLANE + 1) * area];
    let max = policy_logits.iter().zip(legal).filter(|(_, l)| **l > 0.0).map(|(&x, _)| x).fold(f32::MIN, f32::max);
    let mut policy: Vec<f32> =
        policy_logits.iter().zip(legal).map(|(&x, &l)| if l > 0.0 { (x - max).exp() } else { 0.0 }).collect();
    let sum: f32 = policy.iter().sum();
    if sum > 0.0 {
        policy.iter_mut().for_each(|p| *p /= sum);
    }
    let max = wdl_logits.iter().copied().fold(f32::MIN, f32::max);
    let [win, draw, loss] = [0, 1, 2].map(|i| (wdl_logits[i] - max).exp());
    Evaluation { policy, value: (win - loss) / (win + draw + loss) }
}

/// A network in inference mode on a device, through burn.
pub struct NetworkEvaluator {
    model: PenteNet,
    device: Device,
    name: String,
}

impl NetworkEvaluator {
    /// Wraps `model` (switched to inference mode) for `device`; `name` is the model id.
    #[must_use]
    pub fn new(model: PenteNet, device: Device, name: impl Into<String>) -> NetworkEvaluator {
        NetworkEvaluator { model: model.valid(), device, name: name.into() }
    }

    /// The network.
    #[must_use]
    pub fn model(&self) -> &PenteNet {
        &self.model
    }

    /// The device it runs on.
    #[must_use]
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Evaluates positions that all have the same board size.
    fn evaluate_same_size(&self, positions: &[&Position]) -> Vec<Evaluation> {
        let size = usize::from(positions[0].rules().size());
        let area = size * size;
        let b = positions.len();
        let kind = self.model.features();
        let planes = kind.planes();
        let mut features = Vec::new();
        encode_batch(kind, positions, &mut features);
        let x = Tensor::<4>::from_data(TensorData::new(features.clone(), [b, planes, size, size]), &self.device);
        let (policy, value) = self.model.forward(x);
        let policy = policy.into_data().try_into_vec::<f32>().expect("f32 policy");
        let wdl = value.into_data().try_into_vec::<f32>().expect("f32 value");
        (0..b)
            .map(|i| {
                evaluation_from_logits(
                    &features[i * planes * area..(i + 1) * planes * area],
                    &policy[i * area..(i + 1) * area],
                    &wdl[3 * i..3 * i + 3],
                )
            })
            .collect()
    }
}

impl Evaluator for NetworkEvaluator {
    fn evaluate(&self, positions: &[&Position]) -> Vec<Evaluation> {
        evaluate_by_size(positions, MAX_BATCH, |batch| self.evaluate_same_size(batch))
    }

    fn name(&self) -> String {
        self.name.clone()
    }
}
