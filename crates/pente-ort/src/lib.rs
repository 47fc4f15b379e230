//! The Pente network on ONNX Runtime, as a backend.
//!
//! [`library`] finds and loads `libonnxruntime.so` at run time (PyPI's
//! `onnxruntime` wheel ships it; nothing is downloaded at build time),
//! [`OrtEvaluator`] runs a network's ONNX graph ([`pente_nn::onnx`], built
//! from its weights with batch norm folded) behind the search's
//! [`Evaluator`](pente_search::Evaluator) trait, and [`OrtBackend`] is
//! ONNX Runtime as a [`Backend`](pente_search::Backend), for the binary to
//! register beside burn's.

mod backend;
mod evaluator;
pub mod library;

pub use backend::{NotOnnxRuntime, OrtBackend};
pub use evaluator::{OrtEvaluator, OrtLoadError, SessionError};
pub use library::{LibraryError, Runtime};
