//! A store of distributed self-play (`pente worker`): its chunks as local
//! directories, for `read_samples`, `SampleWindow` and `read_games`.

use std::path::PathBuf;

use pente_store::{Store, StoreError};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn py_error(spec: &str, error: &StoreError) -> PyErr {
    match error {
        StoreError::Spec { .. } => PyValueError::new_err(format!("{error}")),
        _ => PyOSError::new_err(format!("store {spec}: {error}")),
    }
}

/// Every usable chunk of the store at `store` (a directory or an object
/// store URL, with the `AWS_*`/`GOOGLE_*`/`AZURE_*` variables `pente` reads),
/// oldest first, each a dict: `worker`, `index`, `model`, `games`,
/// `samples`, `committed_ms` and `path`, a local directory holding its
/// `samples.bin`, `games.csv` and `games.jsonl` (downloaded into `cache`,
/// default `$PENTE_STORE_CACHE` or the store's own cache). A chunk whose
/// files are missing or not their manifest's sizes is set aside, as the
/// trainer does, and left out; `set_aside` lists those.
#[pyfunction]
#[pyo3(signature = (store, *, cache = None))]
pub fn store_chunks<'py>(py: Python<'py>, store: &str, cache: Option<PathBuf>) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let found = py.detach(|| -> Result<_, StoreError> {
        let mut opened = Store::open(store)?;
        if let Some(cache) = cache {
            opened = opened.with_cache(cache);
        }
        let mut usable = Vec::new();
        for chunk in opened.chunks()? {
            if let Some(dir) = opened.usable_chunk_dir(&chunk)? {
                usable.push((chunk, dir));
            }
        }
        Ok(usable)
    });
    let found = found.map_err(|e| py_error(store, &e))?;
    found
        .into_iter()
        .map(|(chunk, dir)| {
            let dict = PyDict::new(py);
            dict.set_item("worker", &chunk.worker)?;
            dict.set_item("index", chunk.index)?;
            dict.set_item("model", &chunk.model)?;
            dict.set_item("games", chunk.games)?;
            dict.set_item("samples", chunk.samples)?;
            dict.set_item("committed_ms", chunk.committed_ms)?;
            dict.set_item("path", dir)?;
            Ok(dict)
        })
        .collect()
}

/// The chunks of the store set aside (a broken manifest or files), each a
/// dict: `manifest`, `reason`, `at_ms`.
#[pyfunction]
pub fn set_aside<'py>(py: Python<'py>, store: &str) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let markers = py.detach(|| Store::open(store).and_then(|s| s.set_aside())).map_err(|e| py_error(store, &e))?;
    markers
        .into_iter()
        .map(|marker| {
            let dict = PyDict::new(py);
            dict.set_item("manifest", marker.manifest)?;
            dict.set_item("reason", marker.reason)?;
            dict.set_item("at_ms", marker.at_ms)?;
            Ok(dict)
        })
        .collect()
}
