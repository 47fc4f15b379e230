//! The network on ONNX Runtime as a search [`Evaluator`].

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ort::session::Session;
use ort::session::builder::{GraphOptimizationLevel, SessionBuilder};
use ort::value::TensorRef;
use pente_core::{Position, Rules};
use pente_nn::features::Features;
use pente_nn::onnx::{MODEL_ID_KEY, POLICY, VALUE};
use pente_nn::{MAX_BATCH, PenteNet, encode_batch, evaluate_by_size, evaluation_from_logits};
use pente_search::{Evaluation, Evaluator};
use thiserror::Error;

use crate::library::Runtime;

/// A network that ONNX Runtime would not take.
#[derive(Debug, Error)]
#[error("ONNX Runtime: {0}")]
pub struct SessionError(#[from] ort::Error);

impl From<ort::Error<SessionBuilder>> for SessionError {
    fn from(error: ort::Error<SessionBuilder>) -> SessionError {
        SessionError(error.into())
    }
}

/// A model directory that does not load on ONNX Runtime.
#[derive(Debug, Error)]
pub enum OrtLoadError {
    /// A file of the directory is missing or does not fit.
    #[error(transparent)]
    Model(#[from] pente_nn::ModelDirError),
    /// ONNX Runtime refused the network built from it.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// An ONNX file made from another network than its directory's.
    #[error("{}: made from network `{made_from}`, but its directory holds `{holds}`: make it again (python -m pente.quantize)", file.display())]
    Stale {
        /// The ONNX file.
        file: PathBuf,
        /// The network id in its metadata.
        made_from: String,
        /// The id in the directory's `model.json`.
        holds: String,
    },
}

/// One ONNX Runtime session of a network, with its input buffer.
struct Inner {
    session: Session,
    features: Vec<f32>,
}

/// A network on ONNX Runtime (CPU). Calls are serialized: give each worker
/// thread its own evaluator (with `threads = 1`) rather than sharing one.
pub struct OrtEvaluator {
    inner: Mutex<Inner>,
    /// The input encoding the network reads.
    kind: Features,
    name: String,
    threads: usize,
}

impl OrtEvaluator {
    /// Builds a session of the ONNX model `onnx` (as written by
    /// [`pente_nn::onnx::to_onnx`]), whose input is the encoding `kind`, on
    /// `threads` intra-op threads.
    ///
    /// # Errors
    /// [`SessionError`] if ONNX Runtime refuses the model or cannot run it.
    pub fn from_onnx(
        runtime: &Runtime,
        onnx: &[u8],
        kind: Features,
        name: impl Into<String>,
        threads: usize,
    ) -> Result<OrtEvaluator, SessionError> {
        let threads = threads.max(1);
        let session = Session::builder(runtime.environment())?
            .with_optimization_level(GraphOptimizationLevel::All)?
            .with_intra_threads(threads)?
            .with_inter_threads(1)?
            .commit_from_memory(onnx)?;
        let evaluator = OrtEvaluator {
            inner: Mutex::new(Inner { session, features: Vec::new() }),
            kind,
            name: name.into(),
            threads,
        };
        // One run now, so that a model ONNX Runtime cannot execute fails here
        // with an error instead of in the middle of a search.
        let probe = Position::new(Rules::pente());
        evaluator.try_evaluate_same_size(&[&probe])?;
        Ok(evaluator)
    }

    /// The network `model` with model id `name`.
    ///
    /// # Errors
    /// [`SessionError`] if ONNX Runtime refuses the model.
    pub fn from_model(
        runtime: &Runtime,
        model: &PenteNet,
        info: &pente_nn::ModelInfo,
        threads: usize,
    ) -> Result<OrtEvaluator, SessionError> {
        OrtEvaluator::from_onnx(
            runtime,
            &pente_nn::onnx::to_onnx(model, info),
            model.features(),
            info.id.clone(),
            threads,
        )
    }

    /// The model directory `dir`, its graph built from its weights (so that
    /// it always matches them, whatever `model.onnx` holds).
    ///
    /// # Errors
    /// [`OrtLoadError`] naming the file that does not load, or ONNX Runtime's refusal.
    pub fn load(runtime: &Runtime, dir: &Path, threads: usize) -> Result<OrtEvaluator, OrtLoadError> {
        let (model, info) = pente_nn::store::load(dir, &pente_nn::cpu())?;
        Ok(OrtEvaluator::from_model(runtime, &model, &info, threads)?)
    }

    /// An ONNX file of a model directory run as it is, e.g. the int8 copy
    /// `model.int8.onnx`: the input encoding and the id come from the
    /// directory's `model.json`, and a file whose metadata names another
    /// network ([`MODEL_ID_KEY`], kept from `model.onnx`) is refused. Its name is `ID/FILE`.
    ///
    /// # Errors
    /// [`OrtLoadError`] naming the file that is missing or does not fit.
    pub fn load_file(runtime: &Runtime, file: &Path, threads: usize) -> Result<OrtEvaluator, OrtLoadError> {
        let info = pente_nn::store::load_info(pente_nn::store::model_dir(file))?;
        let kind = info.net.features().expect("load_info checks the planes");
        let onnx =
            std::fs::read(file).map_err(|source| pente_nn::ModelDirError::Io { path: file.to_path_buf(), source })?;
        let name = pente_nn::store::named(info.id.clone(), file);
        let evaluator = OrtEvaluator::from_onnx(runtime, &onnx, kind, name, threads)?;
        let made_from = {
            let inner = evaluator.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            inner.session.metadata().map_err(SessionError)?.custom(MODEL_ID_KEY)
        };
        match made_from {
            Some(made_from) if made_from != info.id => {
                Err(OrtLoadError::Stale { file: file.to_path_buf(), made_from, holds: info.id })
            }
            _ => Ok(evaluator),
        }
    }

    /// Intra-op threads of its session.
    #[must_use]
    pub fn threads(&self) -> usize {
        self.threads
    }

    fn try_evaluate_same_size(&self, positions: &[&Position]) -> Result<Vec<Evaluation>, SessionError> {
        let mut guard = self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Inner { session, features } = &mut *guard;
        let size = usize::from(positions[0].rules().size());
        let area = size * size;
        let planes = self.kind.planes();
        encode_batch(self.kind, positions, features);
        let input = TensorRef::from_array_view(([positions.len(), planes, size, size], features.as_slice()))?;
        let outputs = session.run(ort::inputs![input])?;
        let (_, policy) = outputs[POLICY].try_extract_tensor::<f32>()?;
        let (_, wdl) = outputs[VALUE].try_extract_tensor::<f32>()?;
        Ok((0..positions.len())
            .map(|i| {
                evaluation_from_logits(
                    &features[i * planes * area..(i + 1) * planes * area],
                    &policy[i * area..(i + 1) * area],
                    &wdl[3 * i..3 * i + 3],
                )
            })
            .collect())
    }
}

impl Evaluator for OrtEvaluator {
    fn evaluate(&self, positions: &[&Position]) -> Vec<Evaluation> {
        evaluate_by_size(positions, MAX_BATCH, |batch| {
            // The session ran at load time on the same graph; a failure now
            // is ONNX Runtime failing (e.g. out of memory), not bad input.
            self.try_evaluate_same_size(batch).unwrap_or_else(|e| panic!("{}: {e}", self.name))
        })
    }

    fn name(&self) -> String {
        self.name.clone()
    }
}
