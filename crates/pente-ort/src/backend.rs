//! ONNX Runtime as a [`Backend`]: the fastest way to run the networks on a
//! CPU, when its library is there.

use std::path::Path;
use std::sync::Arc;

use pente_search::Evaluator;
use pente_search::backend::{Backend, LoadError, OpenError, Registration};
use thiserror::Error;

use crate::evaluator::OrtEvaluator;
use crate::library::{self, Candidate, LibraryError, Runtime};

/// Networks on ONNX Runtime's CPU provider.
#[derive(Debug, Clone, Copy)]
pub struct OrtBackend {
    runtime: &'static Runtime,
}

/// A library found by looking around that is not a usable ONNX Runtime:
/// `auto` passes over it rather than stopping.
#[derive(Debug, Error)]
#[error("not ONNX Runtime: {0}")]
pub struct NotOnnxRuntime(#[source] pub LibraryError);

impl OrtBackend {
    /// The registered name.
    pub const NAME: &'static str = "ort";

    /// ONNX Runtime through a library already loaded.
    #[must_use]
    pub fn new(runtime: &'static Runtime) -> OrtBackend {
        OrtBackend { runtime }
    }

    /// The library it runs on.
    #[must_use]
    pub fn runtime(&self) -> &'static Runtime {
        self.runtime
    }

    /// Finds and loads the library (once per process).
    ///
    /// # Errors
    /// [`OpenError::Unavailable`] when no library is found, or when one
    /// found by looking around does not load; [`OpenError::Failed`] when
    /// the library named by `ORT_DYLIB_PATH` does not load.
    pub fn open() -> Result<OrtBackend, OpenError> {
        if let Some(runtime) = library::loaded() {
            return Ok(OrtBackend::new(runtime));
        }
        let unavailable = |source| OpenError::Unavailable { backend: Self::NAME, source };
        match library::find().map_err(|e| unavailable(e.into()))? {
            Candidate::Explicit(path) => library::load(&path)
                .map(OrtBackend::new)
                .map_err(|e| OpenError::Failed { backend: Self::NAME, source: e.into() }),
            Candidate::Found(path) => {
                library::load(&path).map(OrtBackend::new).map_err(|e| unavailable(NotOnnxRuntime(e).into()))
            }
        }
    }

    /// Its entry in a registry, at `priority`.
    #[must_use]
    pub fn registration(priority: i32) -> Registration {
        Registration {
            name: Self::NAME,
            aliases: &["onnxruntime"],
            priority,
            open: Box::new(|| Ok(Arc::new(OrtBackend::open()?))),
        }
    }
}

impl Backend for OrtBackend {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn description(&self) -> String {
        format!("ONNX Runtime {} ({})", self.runtime.version(), self.runtime.path().display())
    }

    /// A model directory, or an ONNX file in one (`model.int8.onnx`), run as it is.
    fn load(&self, dir: &Path, threads: usize) -> Result<Box<dyn Evaluator>, LoadError> {
        let evaluator = if pente_nn::store::is_onnx_file(dir) {
            OrtEvaluator::load_file(self.runtime, dir, threads)
        } else {
            OrtEvaluator::load(self.runtime, dir, threads)
        };
        Ok(Box::new(evaluator.map_err(|e| LoadError::new(dir, e))?))
    }

    fn threads(&self, threads: usize) -> usize {
        threads.max(1)
    }
}
