//! Which backend runs the networks: ONNX Runtime when its library is there,
//! else burn. Chosen once, at the binary's edge.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use pente_nn::{Device, NetworkEvaluator};
use pente_search::Evaluator;
use thiserror::Error;

use crate::evaluator::OrtEvaluator;
use crate::library::{self, Candidate, LibraryError, Runtime};

/// What the user asked for (`--backend`, `PENTE_BACKEND`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BackendChoice {
    /// ONNX Runtime if its library is found, else burn.
    #[default]
    Auto,
    /// ONNX Runtime; an error if its library is missing or unusable.
    Ort,
    /// burn (`flex` on the CPU, or the GPU device of `PENTE_DEVICE`).
    Burn,
}

impl BackendChoice {
    /// The names `FromStr` accepts.
    pub const NAMES: [&str; 3] = ["auto", "ort", "burn"];
}

impl FromStr for BackendChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<BackendChoice, String> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(BackendChoice::Auto),
            "ort" | "onnxruntime" => Ok(BackendChoice::Ort),
            "burn" => Ok(BackendChoice::Burn),
            _ => Err(format!("unknown backend `{s}`: expected auto, ort or burn")),
        }
    }
}

impl fmt::Display for BackendChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BackendChoice::Auto => "auto",
            BackendChoice::Ort => "ort",
            BackendChoice::Burn => "burn",
        })
    }
}

/// The backend networks run on.
#[derive(Debug, Clone)]
pub enum Backend {
    /// ONNX Runtime on the CPU.
    Ort(&'static Runtime),
    /// burn on this device.
    Burn(Device),
}

impl Default for Backend {
    /// burn on the CPU: works everywhere, loads nothing.
    fn default() -> Backend {
        Backend::Burn(pente_nn::cpu())
    }
}

/// A backend that cannot be used, or a network it cannot load.
#[derive(Debug, Error)]
pub enum BackendError {
    /// The ONNX Runtime library.
    #[error(transparent)]
    Library(#[from] LibraryError),
    /// The model directory or the session.
    #[error("{0}")]
    Model(String),
}

/// The backend and a line that says which it is and why.
#[derive(Debug, Clone)]
pub struct ChosenBackend {
    /// The backend.
    pub backend: Backend,
    /// E.g. `backend: ONNX Runtime 1.32.0 (.onnxruntime/libonnxruntime.so.1.32.0)`.
    pub description: String,
}

/// Resolves `choice`; `burn_device` is the device burn runs on.
///
/// `Auto` falls back to burn when no library is found, or when a library it
/// found by itself is unusable (the line says why); a library named by
/// `ORT_DYLIB_PATH` must load.
///
/// # Errors
/// [`BackendError::Library`] for `Ort` without a usable library, or for a
/// bad `ORT_DYLIB_PATH`.
pub fn choose(choice: BackendChoice, burn_device: Device) -> Result<ChosenBackend, BackendError> {
    let burn = |why: String| ChosenBackend {
        description: format!("backend: burn ({burn_device:?}){why}"),
        backend: Backend::Burn(burn_device.clone()),
    };
    if choice == BackendChoice::Burn {
        return Ok(burn(String::new()));
    }
    let ort = |runtime: &'static Runtime| ChosenBackend {
        description: format!("backend: ONNX Runtime {} ({})", runtime.version(), runtime.path().display()),
        backend: Backend::Ort(runtime),
    };
    if let Some(runtime) = library::loaded() {
        return Ok(ort(runtime));
    }
    let candidate = match library::find() {
        Ok(candidate) => candidate,
        Err(error) if choice == BackendChoice::Auto => return Ok(burn(format!("; {error}"))),
        Err(error) => return Err(error.into()),
    };
    let (path, explicit) = match &candidate {
        Candidate::Explicit(path) => (path, true),
        Candidate::Found(path) => (path, false),
    };
    match library::load(path) {
        Ok(runtime) => Ok(ort(runtime)),
        Err(error) if choice == BackendChoice::Auto && !explicit => Ok(burn(format!("; not ONNX Runtime: {error}"))),
        Err(error) => Err(error.into()),
    }
}

impl Backend {
    /// Loads the model directory `dir` as an evaluator; ONNX Runtime runs it
    /// on `threads` threads (burn on its own thread pool).
    ///
    /// # Errors
    /// [`BackendError::Model`] naming the file that does not load.
    pub fn load(&self, dir: &Path, threads: usize) -> Result<Box<dyn Evaluator>, BackendError> {
        match self {
            Backend::Ort(runtime) => {
                Ok(Box::new(OrtEvaluator::load(runtime, dir, threads).map_err(BackendError::Model)?))
            }
            Backend::Burn(device) => {
                let (model, info) =
                    pente_nn::store::load(dir, device).map_err(|e| BackendError::Model(e.to_string()))?;
                Ok(Box::new(NetworkEvaluator::new(model, device.clone(), info.id)))
            }
        }
    }

    /// `ort` or `burn`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Ort(_) => "ort",
            Backend::Burn(_) => "burn",
        }
    }
}
