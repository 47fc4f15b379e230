//! The policy/value network of the Pente player, written with `burn`.
//!
//! [`features`] turns a position into input planes, [`NetConfig`] and
//! [`PenteNet`] are the network, [`grow`] makes a larger one that computes
//! the same, [`NetworkEvaluator`] serves it to the search, [`store`] saves
//! and loads model directories, and [`onnx`] writes the network as an ONNX
//! model for ONNX Runtime and other tools. The CPU backend is burn's
//! pure-Rust `flex`; GPU backends are the `wgpu` and `cuda` features.

mod backend;
mod evaluator;
mod grow;
mod info;
mod model;
pub mod onnx;
pub mod store;
pub mod training;

pub use backend::BurnBackend;
pub use burn::prelude::{Device, DeviceKind};
pub use evaluator::{ILLEGAL_LOGIT, MAX_BATCH, NetworkEvaluator, evaluate_by_size, evaluation_from_logits};
pub use grow::{GrowError, grow};
pub use info::ModelInfo;
pub use model::{NetConfig, PenteNet};
/// The input planes (the `pente-features` crate), under their old path.
pub use pente_features as features;
pub use pente_features::encode_batch;
pub use store::ModelDirError;

/// The CPU device (burn's `flex` backend).
#[must_use]
pub fn cpu() -> Device {
    Device::flex()
}
