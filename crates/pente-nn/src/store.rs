//! Saving and loading networks: a directory with the weights (`model.bpk`,
//! burn's format), `model.json` (id, shape, features version), a
//! `model.safetensors` export for PyTorch users and `model.onnx` (the
//! network with batch norm folded) for ONNX Runtime and other tools.

use std::path::{Path, PathBuf};

use burn::prelude::*;
use burn::store::{BurnToPyTorchAdapter, ModuleSnapshot, PyTorchToBurnAdapter, SafetensorsStore};
use thiserror::Error;

use crate::features::Features;
pub use crate::info::ModelInfo;
use crate::model::PenteNet;

/// Weights, in burn's own format.
pub const WEIGHTS_FILE: &str = "model.bpk";
/// Metadata, JSON.
pub const INFO_FILE: &str = "model.json";
/// Weights for PyTorch (names as in `torch.nn`, linear weights `[out, in]`).
pub const SAFETENSORS_FILE: &str = "model.safetensors";
/// The network as an ONNX model ([`crate::onnx`]).
pub const ONNX_FILE: &str = "model.onnx";
/// Every file of a model directory (`model.onnx` may be missing: models
/// saved before it existed have none).
pub const MODEL_FILES: [&str; 4] = [WEIGHTS_FILE, INFO_FILE, SAFETENSORS_FILE, ONNX_FILE];

/// A model directory that cannot be written or read.
#[derive(Debug, Error)]
pub enum ModelDirError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// `model.json` is not JSON of a model's metadata.
    #[error("{path}: {source}")]
    BadJson {
        /// The file.
        path: PathBuf,
        /// The parser's error.
        source: serde_json::Error,
    },
    /// `model.json` describes a network this build cannot run.
    #[error("{path}: {message}")]
    BadInfo {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The weights file does not fit the network (or cannot be written).
    #[error("{path}: cannot load the weights: {source}")]
    BadWeights {
        /// The file.
        path: PathBuf,
        /// burn's error.
        source: burn::store::RecordError,
    },
    /// A `model.safetensors` that does not fit the network of its `model.json`.
    #[error("{path}: the weights do not fit model.json's network: {message}")]
    Import {
        /// The file.
        path: PathBuf,
        /// What does not fit.
        message: String,
    },
    /// The PyTorch export cannot be written.
    #[error("{path}: cannot write the weights: {message}")]
    Export {
        /// The file.
        path: PathBuf,
        /// burn's message.
        message: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ModelDirError + '_ {
    move |source| ModelDirError::Io { path: path.to_path_buf(), source }
}

/// Writes `model` and `info` into `dir` (created if needed). Each file is
/// written under a temporary name and renamed, so a reader never sees a
/// half-written model.
///
/// # Errors
/// [`ModelDirError`] naming the file that failed.
pub fn save(model: &PenteNet, info: &ModelInfo, dir: &Path) -> Result<(), ModelDirError> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let weights = dir.join(WEIGHTS_FILE);
    let tmp = dir.join(format!("{WEIGHTS_FILE}.tmp"));
    model.clone().save_file(&tmp).map_err(|source| ModelDirError::BadWeights { path: weights.clone(), source })?;
    std::fs::rename(&tmp, &weights).map_err(io(&weights))?;

    let exported = dir.join(SAFETENSORS_FILE);
    let tmp = dir.join(format!("{SAFETENSORS_FILE}.tmp"));
    let mut store = SafetensorsStore::from_file(&tmp)
        .overwrite(true)
        .with_to_adapter(BurnToPyTorchAdapter)
        .metadata("model_id", info.id.clone())
        .metadata("config", burn::config::config_to_json(&info.net));
    model
        .save_into(&mut store)
        .map_err(|e| ModelDirError::Export { path: exported.clone(), message: e.to_string() })?;
    std::fs::rename(&tmp, &exported).map_err(io(&exported))?;

    write_atomic(&dir.join(ONNX_FILE), &crate::onnx::to_onnx(model, info))?;
    save_info(info, dir)
}

/// Rewrites `model.json` of the model in `dir` (atomically), leaving the
/// weights as they are: for facts learnt after saving, such as its Elo.
///
/// # Errors
/// [`ModelDirError`] if the file cannot be written.
pub fn save_info(info: &ModelInfo, dir: &Path) -> Result<(), ModelDirError> {
    let json = serde_json::to_string_pretty(info).expect("model info serializes");
    write_atomic(&dir.join(INFO_FILE), (json + "\n").as_bytes())
}

/// Writes (or rewrites) `model.onnx` of the model in `dir` from its weights,
/// for model directories saved before it existed. Returns its path.
///
/// # Errors
/// [`ModelDirError`] if the model does not load or the file cannot be written.
pub fn export_onnx(dir: &Path) -> Result<PathBuf, ModelDirError> {
    let (model, info) = load(dir, &crate::cpu())?;
    let path = dir.join(ONNX_FILE);
    write_atomic(&path, &crate::onnx::to_onnx(&model, &info))?;
    Ok(path)
}

/// Writes `bytes` under a temporary name and renames it to `path`.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ModelDirError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))
}

/// Whether a model path names an ONNX file (of a model directory) rather
/// than the directory, e.g. the int8 copy `python -m pente.quantize`
/// writes: ONNX Runtime runs such a file as it is.
#[must_use]
pub fn is_onnx_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("onnx")) && !path.is_dir()
}

/// The directory whose `model.json` describes a model path: the path
/// itself, or for an ONNX file the directory it lies in.
#[must_use]
pub fn model_dir(path: &Path) -> &Path {
    if !is_onnx_file(path) {
        return path;
    }
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// The name a model path plays under: the network's id, or `ID/FILE` for
/// an ONNX file of its directory (`campaign-9/model.int8.onnx`).
///
/// # Errors
/// [`ModelDirError`] if the directory's `model.json` cannot be read.
pub fn player_name(path: &Path) -> Result<String, ModelDirError> {
    Ok(named(load_info(model_dir(path))?.id, path))
}

/// [`player_name`] of a model path whose network id is already read.
#[must_use]
pub fn named(id: String, path: &Path) -> String {
    match path.file_name().filter(|_| is_onnx_file(path)) {
        Some(file) => format!("{id}/{}", file.to_string_lossy()),
        None => id,
    }
}

/// Reads the metadata of the model in `dir`.
///
/// # Errors
/// [`ModelDirError`] if `model.json` is missing or invalid, or was made for
/// another features version.
pub fn load_info(dir: &Path) -> Result<ModelInfo, ModelDirError> {
    let path = dir.join(INFO_FILE);
    let text = std::fs::read_to_string(&path).map_err(io(&path))?;
    let info: ModelInfo =
        serde_json::from_str(&text).map_err(|source| ModelDirError::BadJson { path: path.clone(), source })?;
    let Some(features) = Features::of_version(info.features_version) else {
        return Err(ModelDirError::BadInfo {
            path,
            message: format!(
                "made for input features version {}, this build reads versions 1 to {}",
                info.features_version,
                crate::features::LATEST.version()
            ),
        });
    };
    if info.net.in_planes != features.planes() || info.net.pool_channels >= info.net.channels {
        return Err(ModelDirError::BadInfo { path, message: "the network shape does not fit the features".into() });
    }
    Ok(info)
}

/// Loads the model in `dir` onto `device`: from `model.bpk`, or, where a
/// directory has only `model.json` and `model.safetensors` (a network
/// trained in PyTorch, `python -m pente.torchnet train`), from those.
///
/// # Errors
/// [`ModelDirError`] naming the file that is missing or does not fit.
pub fn load(dir: &Path, device: &Device) -> Result<(PenteNet, ModelInfo), ModelDirError> {
    let info = load_info(dir)?;
    let path = dir.join(WEIGHTS_FILE);
    let exported = dir.join(SAFETENSORS_FILE);
    if !path.is_file() && exported.is_file() {
        return Ok((load_safetensors(&exported, &info, device)?, info));
    }
    if !path.is_file() {
        return Err(ModelDirError::Io { path, source: std::io::Error::from(std::io::ErrorKind::NotFound) });
    }
    let model = info
        .net
        .init(device)
        .try_load_file(&path)
        .map_err(|source| ModelDirError::BadWeights { path: path.clone(), source })?;
    Ok((model, info))
}

/// The network `info` describes, its weights read from a `model.safetensors`
/// with PyTorch's names; every tensor must be there, and no other.
fn load_safetensors(path: &Path, info: &ModelInfo, device: &Device) -> Result<PenteNet, ModelDirError> {
    let import_error = |message: String| ModelDirError::Import { path: path.to_path_buf(), message };
    let mut model = info.net.init(device);
    let mut store = SafetensorsStore::from_file(path).with_from_adapter(PyTorchToBurnAdapter);
    let result = model.load_from(&mut store).map_err(|e| import_error(e.to_string()))?;
    if !result.missing.is_empty() || !result.errors.is_empty() || !result.unused.is_empty() {
        let missing: Vec<&str> = result.missing.iter().map(|(name, _)| name.as_str()).collect();
        let errors: Vec<String> = result.errors.iter().map(ToString::to_string).collect();
        return Err(import_error(format!(
            "tensors missing: [{}], not in the network: [{}], not loaded: [{}]",
            missing.join(", "),
            result.unused.join(", "),
            errors.join("; ")
        )));
    }
    Ok(model)
}
