//! Choosing the evaluator behind `analyze`, `play` and `engine`.

use std::path::{Path, PathBuf};

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

/// The evaluator for `--model`: `heuristic`, `uniform`, a network directory,
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
            let default = PathBuf::from(DEFAULT_MODEL_DIR);
            if !default.exists() {
                return Ok(LoadedEvaluator {
                    evaluator: Box::new(HeuristicEvaluator::default()),
                    description: format!("heuristic evaluator (no network in {DEFAULT_MODEL_DIR})"),
                });
            }
            default
        }
    };
    load_network(&path)
}

fn load_network(path: &Path) -> anyhow::Result<LoadedEvaluator> {
    anyhow::bail!("{}: loading networks is not available in this build", path.display())
}
