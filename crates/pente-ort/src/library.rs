//! Finding and loading the ONNX Runtime library (`libonnxruntime.so`) at
//! run time. Nothing is linked or downloaded at build time; the library is
//! the one PyPI's `onnxruntime` wheel ships.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use ort::environment::Environment;
use thiserror::Error;

/// The folder `scripts/install-onnxruntime.sh` installs the library into,
/// relative to the current directory or to the source tree.
pub const INSTALL_DIR: &str = ".onnxruntime";

/// The oldest library version this build accepts (`ort`'s `api-31` feature).
pub const MIN_VERSION: &str = "1.31";

/// How to install the library, for error messages.
pub const INSTALL_HINT: &str = "bash scripts/install-onnxruntime.sh installs it into .onnxruntime/";

/// The ONNX Runtime library could not be found or loaded.
#[derive(Debug, Clone, Error)]
pub enum LibraryError {
    /// No library in any of the places looked at.
    #[error("ONNX Runtime not found (looked at {looked}); {INSTALL_HINT}, or set ORT_DYLIB_PATH")]
    NotFound {
        /// Where it looked, in order.
        looked: String,
    },
    /// A library was found but refused (wrong version, not ONNX Runtime, unloadable).
    #[error("{path}: {reason}; this build needs ONNX Runtime {MIN_VERSION} or newer ({INSTALL_HINT})")]
    Unusable {
        /// The file.
        path: PathBuf,
        /// Why it was refused.
        reason: String,
    },
    /// The library loaded but ONNX Runtime's environment did not start.
    #[error("ONNX Runtime ({path}): {message}")]
    Environment {
        /// The file.
        path: PathBuf,
        /// ONNX Runtime's message.
        message: String,
    },
}

/// The loaded library: one per process.
#[derive(Debug)]
pub struct Runtime {
    path: PathBuf,
    version: String,
    environment: Environment,
}

impl Runtime {
    /// The library file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its version, e.g. `1.32.0`.
    #[must_use]
    pub fn version(&self) -> &str {
        &self.version
    }

    pub(crate) fn environment(&self) -> &Environment {
        &self.environment
    }
}

static RUNTIME: OnceLock<Runtime> = OnceLock::new();
static LOADING: Mutex<()> = Mutex::new(());

/// Where a library may be, in the order `find` tries them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Candidate {
    /// `ORT_DYLIB_PATH`: the user named it, so it must work.
    Explicit(PathBuf),
    /// Found in an install folder or the Python package.
    Found(PathBuf),
}

/// Looks for the library: `ORT_DYLIB_PATH`; then `.onnxruntime/` in the
/// current directory and in the source tree; then the `onnxruntime`
/// package of `python3` (its `capi/` folder).
///
/// # Errors
/// [`LibraryError::NotFound`] naming every place it looked.
pub fn find() -> Result<Candidate, LibraryError> {
    if let Some(path) = std::env::var_os("ORT_DYLIB_PATH").filter(|p| !p.is_empty()) {
        return Ok(Candidate::Explicit(PathBuf::from(path)));
    }
    let source_tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(INSTALL_DIR);
    let mut looked = vec!["ORT_DYLIB_PATH (unset)".to_string()];
    for folder in [PathBuf::from(INSTALL_DIR), source_tree] {
        if let Some(path) = library_in(&folder) {
            return Ok(Candidate::Found(path));
        }
        looked.push(format!("{}/", folder.display()));
    }
    match python_package() {
        Some(package) => match library_in(&package.join("capi")) {
            Some(path) => return Ok(Candidate::Found(path)),
            None => looked.push(format!("{}/", package.join("capi").display())),
        },
        None => looked.push("python3's onnxruntime package (none)".into()),
    }
    Err(LibraryError::NotFound { looked: looked.join(", ") })
}

/// The newest `libonnxruntime.so*` in `folder`.
fn library_in(folder: &Path) -> Option<PathBuf> {
    let mut found: Vec<(Vec<u32>, PathBuf)> = std::fs::read_dir(folder)
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let version = name.strip_prefix("libonnxruntime.so")?;
            let version = version.strip_prefix('.').unwrap_or(version);
            let numbers = version.split('.').filter(|s| !s.is_empty()).map(str::parse).collect::<Result<Vec<u32>, _>>();
            Some((numbers.ok()?, entry.path()))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, path)| path)
}

/// The folder of `python3`'s `onnxruntime` package, found without importing
/// it (which would take a second and load the library twice).
fn python_package() -> Option<PathBuf> {
    let script = "import importlib.util as u\ns = u.find_spec('onnxruntime')\nprint(s.submodule_search_locations[0] if s and s.submodule_search_locations else '')";
    let output = Command::new("python3").args(["-c", script]).output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    let path = text.trim();
    (output.status.success() && !path.is_empty()).then(|| PathBuf::from(path))
}

/// Loads the library at `path` (once per process: a later call returns the
/// library loaded first, whatever its path).
///
/// # Errors
/// [`LibraryError::Unusable`] if it cannot be loaded or is too old,
/// [`LibraryError::Environment`] if ONNX Runtime does not start.
pub fn load(path: &Path) -> Result<&'static Runtime, LibraryError> {
    let _guard = LOADING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(runtime) = RUNTIME.get() {
        return Ok(runtime);
    }
    if !path.is_file() {
        return Err(LibraryError::Unusable { path: path.to_path_buf(), reason: "no such file".into() });
    }
    let builder =
        ort::init_from(path).map_err(|e| LibraryError::Unusable { path: path.to_path_buf(), reason: e.to_string() })?;
    let environment = builder
        .with_name("pente")
        .with_telemetry(false)
        .build()
        .map_err(|e| LibraryError::Environment { path: path.to_path_buf(), message: e.to_string() })?;
    // ONNX Runtime reports its version only through an unsafe C call; the
    // wheel's file name carries it (`libonnxruntime.so.1.32.0`).
    let version = path
        .file_name()
        .and_then(|name| name.to_str())
        .and_then(|name| name.strip_prefix("libonnxruntime.so."))
        .map_or_else(|| format!("1.{}+", ort::MINOR_VERSION), str::to_string);
    Ok(RUNTIME.get_or_init(|| Runtime { path: path.to_path_buf(), version, environment }))
}

/// The library loaded so far, if any.
#[must_use]
pub fn loaded() -> Option<&'static Runtime> {
    RUNTIME.get()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_library_of_a_folder_is_chosen() {
        let dir = std::env::temp_dir().join(format!("pente-ort-library-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(library_in(&dir), None);
        for name in ["libonnxruntime.so.1.9.0", "libonnxruntime.so.1.32.0", "libonnxruntime.so.1.32.0.tmp", "other.so"]
        {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        // 1.32 is newer than 1.9 (numbers, not text); a partial download is not a library.
        assert_eq!(library_in(&dir), Some(dir.join("libonnxruntime.so.1.32.0")));
        assert_eq!(library_in(&dir.join("missing")), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_file_is_unusable_with_its_path() {
        if loaded().is_some() {
            return;
        }
        let error = load(Path::new("/nonexistent/libonnxruntime.so.1.32.0")).unwrap_err();
        assert!(matches!(error, LibraryError::Unusable { .. }));
        let message = error.to_string();
        assert!(message.starts_with("/nonexistent/libonnxruntime.so.1.32.0: no such file"), "{message}");
        assert!(message.contains(INSTALL_HINT), "{message}");
    }
}
