//! The network's input planes for many positions at once.

use numpy::{IntoPyArray, PyArray4, PyArrayMethods};
use pente_features::{Features, encode_positions};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::game::Game;

/// The encoding of a features version, or a `ValueError` listing the versions.
pub fn features_of(version: u32) -> PyResult<Features> {
    Features::from_version(version).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The number of input planes of features `version`.
#[pyfunction]
#[pyo3(signature = (version = pente_features::LATEST.version()))]
pub fn feature_planes(version: u32) -> PyResult<usize> {
    Ok(features_of(version)?.planes())
}

/// The input planes of `games`' current positions, `float32 [len(games),
/// planes, size, size]`, encoded in parallel without the GIL. Every game
/// must be on the same board size.
#[pyfunction]
#[pyo3(signature = (games, version = pente_features::LATEST.version()))]
pub fn encode<'py>(py: Python<'py>, games: Vec<PyRef<'py, Game>>, version: u32) -> PyResult<Bound<'py, PyArray4<f32>>> {
    let kind = features_of(version)?;
    let size = games.first().map_or(pente_core::MAX_SIZE, |g| g.inner.rules().size());
    if let Some((i, other)) = games.iter().enumerate().find(|(_, g)| g.inner.rules().size() != size) {
        let other = other.inner.rules().size();
        return Err(PyValueError::new_err(format!(
            "game {i} is on a {other}x{other} board, game 0 on {size}x{size}: encode one board size at a time"
        )));
    }
    let positions: Vec<pente_core::Position> = games.iter().map(|g| g.inner.position().clone()).collect();
    drop(games);
    let side = usize::from(size);
    let mut out = vec![0.0f32; positions.len() * kind.planes() * side * side];
    py.detach(|| {
        let refs: Vec<&pente_core::Position> = positions.iter().collect();
        encode_positions(kind, &refs, &mut out);
    });
    out.into_pyarray(py).reshape([positions.len(), kind.planes(), side, side])
}
