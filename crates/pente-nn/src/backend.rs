//! burn as a [`Backend`]: networks run where they are trained, on burn's
//! `flex` CPU backend or a GPU device. It needs no library and so is the
//! fallback everywhere.

use std::path::Path;

use pente_search::Evaluator;
use pente_search::backend::{Backend, LoadError};

use crate::{Device, NetworkEvaluator};

/// Networks on burn, on one device.
#[derive(Debug, Clone)]
pub struct BurnBackend {
    device: Device,
}

impl BurnBackend {
    /// The registered name.
    pub const NAME: &'static str = "burn";

    /// burn on `device`.
    #[must_use]
    pub fn new(device: Device) -> BurnBackend {
        BurnBackend { device }
    }

    /// burn on the CPU: works everywhere, loads nothing.
    #[must_use]
    pub fn cpu() -> BurnBackend {
        BurnBackend::new(crate::cpu())
    }

    /// The device networks run on.
    #[must_use]
    pub fn device(&self) -> &Device {
        &self.device
    }
}

impl Backend for BurnBackend {
    fn name(&self) -> &'static str {
        BurnBackend::NAME
    }

    fn description(&self) -> String {
        format!("burn ({:?})", self.device)
    }

    /// burn runs on its own thread pool: `threads` is not used.
    fn load(&self, dir: &Path, _threads: usize) -> Result<Box<dyn Evaluator>, LoadError> {
        if crate::store::is_onnx_file(dir) {
            return Err(LoadError::new(
                dir,
                "burn runs model directories; an ONNX file runs on ONNX Runtime (--backend ort)",
            ));
        }
        let (model, info) = crate::store::load(dir, &self.device).map_err(|e| LoadError::new(dir, e))?;
        Ok(Box::new(NetworkEvaluator::new(model, self.device.clone(), info.id)))
    }

    /// burn's CPU thread pool: `RAYON_NUM_THREADS`, else one per core.
    fn threads(&self, _threads: usize) -> usize {
        std::env::var("RAYON_NUM_THREADS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get))
    }
}
