//! The Pente network on ONNX Runtime, and the choice of backend.
//!
//! [`library`] finds and loads `libonnxruntime.so` at run time (PyPI's
//! `onnxruntime` wheel ships it; nothing is downloaded at build time),
//! [`OrtEvaluator`] runs a network's ONNX graph ([`pente_nn::onnx`], built
//! from its weights with batch norm folded) behind the search's
//! [`Evaluator`](pente_search::Evaluator) trait, and [`choose`] picks ONNX
//! Runtime or burn for `--backend auto|ort|burn`.

mod backend;
mod evaluator;
pub mod library;

pub use backend::{Backend, BackendChoice, BackendError, ChosenBackend, choose};
pub use evaluator::{OrtEvaluator, SessionError};
pub use library::{LibraryError, Runtime};
