//! The network as a search [`Evaluator`]: positions in, masked policy and
//! value out, one forward pass per board size in the batch.

use burn::prelude::*;
use burn::tensor::activation::softmax;
use pente_core::Position;
use pente_search::{Evaluation, Evaluator};

use crate::features::{PLANES, encode};
use crate::model::PenteNet;

/// Logit given to illegal points: large and finite (an infinite one turns
/// `0 * -inf` into NaN in a cross-entropy).
pub const ILLEGAL_LOGIT: f32 = -1.0e9;

/// A network in inference mode on a device.
pub struct NetworkEvaluator {
    model: PenteNet,
    device: Device,
    name: String,
    max_batch: usize,
}

impl NetworkEvaluator {
    /// Wraps `model` (switched to inference mode) for `device`; `name` is the model id.
    #[must_use]
    pub fn new(model: PenteNet, device: Device, name: impl Into<String>) -> NetworkEvaluator {
        NetworkEvaluator { model: model.valid(), device, name: name.into(), max_batch: 256 }
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
        let mut features = vec![0.0f32; b * PLANES * area];
        let mut legal = vec![false; b * area];
        for (i, position) in positions.iter().enumerate() {
            encode(position, &mut features[i * PLANES * area..(i + 1) * PLANES * area]);
            for p in position.legal_moves() {
                legal[i * area + p.dense_index(size as u8)] = true;
            }
        }
        let x = Tensor::<4>::from_data(TensorData::new(features, [b, PLANES, size, size]), &self.device);
        let mask = Tensor::<2, Bool>::from_data(TensorData::new(legal, [b, area]), &self.device);
        let (policy, value) = self.model.forward(x);
        let policy = softmax(policy.mask_fill(mask.bool_not(), ILLEGAL_LOGIT), 1);
        let wdl = softmax(value, 1);
        let policy = policy.into_data().try_into_vec::<f32>().expect("f32 policy");
        let wdl = wdl.into_data().try_into_vec::<f32>().expect("f32 value");
        (0..b)
            .map(|i| Evaluation {
                policy: policy[i * area..(i + 1) * area].to_vec(),
                value: wdl[3 * i] - wdl[3 * i + 2],
            })
            .collect()
    }
}

impl Evaluator for NetworkEvaluator {
    fn evaluate(&self, positions: &[&Position]) -> Vec<Evaluation> {
        let mut out: Vec<Option<Evaluation>> = vec![None; positions.len()];
        let mut sizes: Vec<u8> = positions.iter().map(|p| p.rules().size()).collect();
        sizes.sort_unstable();
        sizes.dedup();
        for size in sizes {
            let indices: Vec<usize> = (0..positions.len()).filter(|&i| positions[i].rules().size() == size).collect();
            for chunk in indices.chunks(self.max_batch) {
                let batch: Vec<&Position> = chunk.iter().map(|&i| positions[i]).collect();
                for (&i, evaluation) in chunk.iter().zip(self.evaluate_same_size(&batch)) {
                    out[i] = Some(evaluation);
                }
            }
        }
        out.into_iter().map(|e| e.expect("every position evaluated")).collect()
    }

    fn name(&self) -> String {
        self.name.clone()
    }
}
