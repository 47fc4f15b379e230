//! The Python package `pente`: the toolkit's rules, input features, samples
//! and game records, for people who train in PyTorch and analyse in
//! notebooks. This crate only wraps the libraries below it; the rest of the
//! workspace knows nothing of Python.
//!
//! The native module is `pente._pente`; `python/pente/__init__.py` re-exports
//! it and adds what needs Python alone (pandas frames). Arrays are NumPy's,
//! made in Rust without the GIL held.

use pyo3::prelude::*;

mod features;
mod game;
mod records;
mod samples;
mod store;

/// The native part of the `pente` package.
#[pymodule]
fn _pente(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let variants: Vec<&str> = pente_core::Variant::ALL.iter().map(|v| v.name()).collect();
    m.add("VARIANTS", variants)?;
    m.add("FEATURES_VERSIONS", pente_features::Features::ALL.map(|f| f.version()).to_vec())?;
    m.add("LATEST_FEATURES", pente_features::LATEST.version())?;
    m.add("LEGAL_PLANE", pente_features::LEGAL_PLANE)?;
    m.add_class::<game::Game>()?;
    m.add_function(wrap_pyfunction!(game::move_index, m)?)?;
    m.add_function(wrap_pyfunction!(game::move_name, m)?)?;
    m.add_function(wrap_pyfunction!(features::feature_planes, m)?)?;
    m.add_function(wrap_pyfunction!(features::encode, m)?)?;
    m.add_class::<samples::SamplesIter>()?;
    m.add_class::<samples::PySampleWindow>()?;
    m.add_function(wrap_pyfunction!(samples::read_samples, m)?)?;
    m.add_function(wrap_pyfunction!(samples::iter_samples, m)?)?;
    m.add_function(wrap_pyfunction!(records::read_games, m)?)?;
    m.add_function(wrap_pyfunction!(store::store_chunks, m)?)?;
    m.add_function(wrap_pyfunction!(store::set_aside, m)?)?;
    Ok(())
}
