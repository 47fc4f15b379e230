//! Choosing the evaluator behind `analyze`, `play` and `engine`, and the
//! device networks run on.

use std::path::{Path, PathBuf};

use anyhow::Context;
use pente_nn::{Device, NetworkEvaluator};
use pente_search::{Evaluator, HeuristicEvaluator, UniformEvaluator};

/// Where the default network is shipped, relative to the repository root.
pub const DEFAULT_MODEL_DIR: &str = "data/models/default";

/// An evaluator and a line saying which one it is.
pub struct LoadedEvaluator {
    /// The evaluator.
    pub evaluator: Box<dyn Evaluator>,
    /// E.g. `heuristic evaluator (no network in data/models/default)`.
    pub description: String,
}

/// The evaluator for `--model`: `heuristic`, `uniform`, a model directory,
/// or (without `--model`) the shipped network, else the heuristic.
pub fn load_evaluator(model: Option<&Path>) -> anyhow::Result<LoadedEvaluator> {
    match model.and_then(Path::to_str) {
        Some("heuristic") => {
            return Ok(LoadedEvaluator {
                evaluator: Box::new(HeuristicEvaluator::default()),
                description: "heuristic evaluator".into(),
            });
        }
        Some("uniform") => {
            return Ok(LoadedEvaluator {
                evaluator: Box::new(UniformEvaluator::default()),
                description: "uniform priors, zero value".into(),
            });
        }
        _ => {}
    }
    let path = match model {
        Some(path) => path.to_path_buf(),
        None => {
            let Some(default) = default_model_dir() else {
                return Ok(LoadedEvaluator {
                    evaluator: Box::new(HeuristicEvaluator::default()),
                    description: format!("heuristic evaluator (no network in {DEFAULT_MODEL_DIR})"),
                });
            };
            default
        }
    };
    let network = load_network(&path, device()?)?;
    let description = format!("network {} ({})", network.name(), path.display());
    Ok(LoadedEvaluator { evaluator: Box::new(network), description })
}

/// The shipped network: `data/models/default` under the current directory,
/// else in the source tree this binary was built from.
fn default_model_dir() -> Option<PathBuf> {
    let source_tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(DEFAULT_MODEL_DIR);
    [PathBuf::from(DEFAULT_MODEL_DIR), source_tree]
        .into_iter()
        .find(|dir| dir.join(pente_nn::store::INFO_FILE).is_file())
        .map(|dir| dir.canonicalize().unwrap_or(dir))
}

/// Loads the model directory `path` for inference on `device`.
pub fn load_network(path: &Path, device: Device) -> anyhow::Result<NetworkEvaluator> {
    let (model, info) =
        pente_nn::store::load(path, &device).with_context(|| format!("loading the network in {}", path.display()))?;
    Ok(NetworkEvaluator::new(model, device, info.id))
}

/// The device networks run on: the CPU, unless `PENTE_DEVICE` names a GPU
/// backend this binary was built with (`wgpu` or `cuda` features).
pub fn device() -> anyhow::Result<Device> {
    let name = std::env::var("PENTE_DEVICE").unwrap_or_else(|_| "cpu".into());
    match name.as_str() {
        "cpu" | "flex" => Ok(Device::flex()),
        #[cfg(feature = "wgpu")]
        "wgpu" => Ok(Device::wgpu(burn_device_kind())),
        #[cfg(feature = "cuda")]
        "cuda" => Ok(Device::cuda(0)),
        other => anyhow::bail!("PENTE_DEVICE={other}: this build knows cpu{}{}", wgpu_name(), cuda_name()),
    }
}

#[cfg(feature = "wgpu")]
fn burn_device_kind() -> pente_nn::DeviceKind {
    pente_nn::DeviceKind::DefaultDevice
}

const fn wgpu_name() -> &'static str {
    if cfg!(feature = "wgpu") { ", wgpu" } else { "" }
}

const fn cuda_name() -> &'static str {
    if cfg!(feature = "cuda") { ", cuda" } else { "" }
}
