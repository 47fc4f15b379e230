//! `samples.bin` into NumPy arrays: the columns of `pente-dataset`, handed
//! to NumPy without a copy.

use std::path::PathBuf;

use numpy::{IntoPyArray, PyArrayMethods};
use pente_dataset::{Columns, DatasetError, Policy, ReadOptions, SampleArrays, SampleChunks, SampleWindow};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::features::features_of;

/// Samples a chunk holds at least (but the last), unless told otherwise.
const DEFAULT_CHUNK: usize = 65_536;

/// `OSError` for what the system refused, `ValueError` for what the file holds.
fn py_error(error: &DatasetError) -> PyErr {
    match error {
        DatasetError::Open { .. } | DatasetError::Samples { source: pente_records::SamplesError::Io(_), .. } => {
            PyOSError::new_err(error.to_string())
        }
        _ => PyValueError::new_err(error.to_string()),
    }
}

/// The large columns a caller may leave out, by name.
const LARGE_COLUMNS: [&str; 3] = ["board", "policy", "ownership"];

/// The large columns named (`None`: all of them).
fn columns_of(names: Option<Vec<String>>) -> PyResult<Columns> {
    let Some(names) = names else { return Ok(Columns::ALL) };
    if let Some(unknown) = names.iter().find(|n| !LARGE_COLUMNS.contains(&n.as_str())) {
        return Err(PyValueError::new_err(format!(
            "unknown column {unknown:?} (the large columns are {}; the others are always there)",
            LARGE_COLUMNS.join(", ")
        )));
    }
    let has = |name: &str| names.iter().any(|n| n == name);
    Ok(Columns { board: has("board"), dense_policy: has("policy"), ownership: has("ownership") })
}

/// The columns as a dict of NumPy arrays.
fn to_dict(py: Python<'_>, arrays: SampleArrays) -> PyResult<Bound<'_, PyDict>> {
    let n = arrays.len();
    let s = usize::from(arrays.size);
    let dict = PyDict::new(py);
    dict.set_item("size", arrays.size)?;
    dict.set_item("game_id", arrays.game_id.into_pyarray(py))?;
    dict.set_item("variant", arrays.variant.into_pyarray(py))?;
    dict.set_item("ply", arrays.ply.into_pyarray(py))?;
    if arrays.columns.board {
        dict.set_item("board", arrays.board.into_pyarray(py).reshape([n, s, s])?)?;
    }
    dict.set_item("to_move", arrays.to_move.into_pyarray(py))?;
    dict.set_item("captures", arrays.captures.into_pyarray(py).reshape([n, 2])?)?;
    match arrays.policy {
        Policy::Dense(policy) => dict.set_item("policy", policy.into_pyarray(py).reshape([n, s * s])?)?,
        Policy::Sparse { offsets, moves, probs } => {
            dict.set_item("policy_offsets", offsets.into_pyarray(py))?;
            dict.set_item("policy_moves", moves.into_pyarray(py))?;
            dict.set_item("policy_probs", probs.into_pyarray(py))?;
        }
    }
    dict.set_item("value", arrays.value.into_pyarray(py))?;
    dict.set_item("result", arrays.result.into_pyarray(py))?;
    dict.set_item("reply", arrays.reply.into_pyarray(py))?;
    if arrays.columns.ownership {
        dict.set_item("ownership", arrays.ownership.into_pyarray(py).reshape([n, s, s])?)?;
    }
    dict.set_item("final_captures", arrays.final_captures.into_pyarray(py).reshape([n, 2])?)?;
    if let Some((kind, features)) = arrays.features {
        dict.set_item("features", features.into_pyarray(py).reshape([n, kind.planes(), s, s])?)?;
    }
    Ok(dict)
}

fn open(
    path: &std::path::Path,
    features: Option<u32>,
    columns: Option<Vec<String>>,
    size: Option<u8>,
    allow_truncated: bool,
) -> PyResult<SampleChunks> {
    let features = features.map(features_of).transpose()?;
    let options = ReadOptions { features, size, allow_truncated, columns: columns_of(columns)? };
    SampleChunks::open(path, options).map_err(|e| py_error(&e))
}

/// Every sample of a `samples.bin` as NumPy arrays, in a dict.
#[pyfunction]
#[pyo3(signature = (path, *, features = None, columns = None, size = None, allow_truncated = false))]
pub fn read_samples(
    py: Python<'_>,
    path: PathBuf,
    features: Option<u32>,
    columns: Option<Vec<String>>,
    size: Option<u8>,
    allow_truncated: bool,
) -> PyResult<Bound<'_, PyDict>> {
    let mut chunks = open(&path, features, columns, size, allow_truncated)?;
    let arrays = py.detach(|| chunks.read_all()).map_err(|e| py_error(&e))?;
    to_dict(py, arrays)
}

/// An iterator over a `samples.bin` in chunks of whole games.
#[pyclass(module = "pente")]
pub struct SamplesIter {
    chunks: SampleChunks,
    chunk_size: usize,
}

#[pymethods]
impl SamplesIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let (chunks, min) = (&mut self.chunks, self.chunk_size);
        match py.detach(|| chunks.next_chunk(min)).map_err(|e| py_error(&e))? {
            Some(arrays) => to_dict(py, arrays).map(Some),
            None => Ok(None),
        }
    }

    /// Bytes of the file read so far.
    #[getter]
    fn offset(&self) -> u64 {
        self.chunks.offset()
    }
}

/// Reads a `samples.bin` in chunks of at least `chunk_size` samples (whole
/// games; the last chunk may be smaller), for files larger than memory.
#[pyfunction]
#[pyo3(signature = (path, chunk_size = DEFAULT_CHUNK, *, features = None, columns = None, size = None, allow_truncated = false))]
pub fn iter_samples(
    path: PathBuf,
    chunk_size: usize,
    features: Option<u32>,
    columns: Option<Vec<String>>,
    size: Option<u8>,
    allow_truncated: bool,
) -> PyResult<SamplesIter> {
    if chunk_size == 0 {
        return Err(PyValueError::new_err("chunk_size must be at least 1"));
    }
    Ok(SamplesIter { chunks: open(&path, features, columns, size, allow_truncated)?, chunk_size })
}

/// Where a path names a run directory, its samples.bin.
fn samples_file(path: PathBuf) -> PathBuf {
    if path.is_dir() { path.join("samples.bin") } else { path }
}

/// The newest samples of some files as `pente train`'s window holds them
/// (games, a few bytes a sample), their columns made per batch.
#[pyclass(module = "pente", name = "SampleWindow")]
pub struct PySampleWindow {
    window: SampleWindow,
}

#[pymethods]
impl PySampleWindow {
    #[new]
    #[pyo3(signature = (paths, window = 250_000, *, size = None, allow_truncated = false))]
    fn new(
        py: Python<'_>,
        paths: Vec<PathBuf>,
        window: usize,
        size: Option<u8>,
        allow_truncated: bool,
    ) -> PyResult<PySampleWindow> {
        let paths: Vec<PathBuf> = paths.into_iter().map(samples_file).collect();
        let options = ReadOptions { size, allow_truncated, ..ReadOptions::default() };
        let window = py.detach(|| SampleWindow::load(&paths, options, |_| window)).map_err(|e| py_error(&e))?;
        if let [(first, _), (second, _), ..] = window.sizes() {
            return Err(PyValueError::new_err(format!(
                "samples on {first}x{first} and {second}x{second} boards: pass size= to keep one (a batch is one size)"
            )));
        }
        Ok(PySampleWindow { window })
    }

    fn __len__(&self) -> usize {
        self.window.len()
    }

    /// The board side of its samples.
    #[getter]
    fn size(&self) -> Option<u8> {
        self.window.sizes().first().map(|&(size, _)| size)
    }

    /// The columns of the samples at `indices` (as `read_samples` returns
    /// them), with the input planes of features version `features` if given.
    #[pyo3(signature = (indices, features = None, columns = None))]
    fn batch<'py>(
        &self,
        py: Python<'py>,
        indices: Vec<i64>,
        features: Option<u32>,
        columns: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let kind = features.map(features_of).transpose()?;
        let columns = columns_of(columns)?;
        let n = self.window.len();
        let indices = indices
            .iter()
            .map(|&i| usize::try_from(i).ok().filter(|&i| i < n).ok_or(i))
            .collect::<Result<Vec<usize>, i64>>()
            .map_err(|i| pyo3::exceptions::PyIndexError::new_err(format!("sample {i} of a window of {n}")))?;
        let arrays = py.detach(|| self.window.columns(&indices, columns, kind));
        to_dict(py, arrays)
    }
}
