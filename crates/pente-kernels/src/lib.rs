//! Training kernels for burn's flex CPU backend.
//!
//! burn computes a convolution's weight gradient as another convolution,
//! with a board-sized kernel over an im2col buffer of the whole batch (106 MB
//! per layer for 4x32 at batch 256), and runs batch norm in training mode as
//! a dozen passes over the activations. Here each is one operation with a
//! hand-written backward pass: a "same" convolution as im2col plus one GEMM
//! per sample, straight into the output (the backward pass unfolds the
//! output's gradient once for both gradients); batch norm fused with the
//! ReLU (and residual sum) after it, two passes over memory forward and two
//! back, writing the input's gradient over the output's.
//!
//! The functions take and return ordinary [`Tensor`]s. On a device other
//! than flex, or with a dtype other than `f32`, they fall back to burn's own
//! operations, so callers need no second code path.

mod cpu;
mod gemm;
mod ops;
mod uninit;

use std::sync::atomic::{AtomicU8, Ordering};

use burn::backend::Dispatch;
use burn::prelude::*;
use burn::tensor::DType;
use burn::tensor::activation::relu;
use burn::tensor::module::{batch_norm_train, conv2d};
use burn::tensor::ops::ConvOptions;

pub use ops::{NormOutput, TrainingKernels};

/// Whether the kernels are on: unless `PENTE_KERNELS=off` is set at start,
/// or [`set_enabled`] turned them off (to compare with burn's own
/// operations).
#[must_use]
pub fn enabled() -> bool {
    match ENABLED.load(Ordering::Relaxed) {
        UNREAD => {
            set_enabled(std::env::var_os("PENTE_KERNELS").is_none_or(|v| v.to_str().is_some_and(|v| v != "off")));
            enabled()
        }
        state => state == ON,
    }
}

/// Turns the kernels on or off for the whole process.
pub fn set_enabled(on: bool) {
    ENABLED.store(if on { ON } else { OFF }, Ordering::Relaxed);
}

const UNREAD: u8 = 0;
const ON: u8 = 1;
const OFF: u8 = 2;
static ENABLED: AtomicU8 = AtomicU8::new(UNREAD);

/// Whether the kernels run on tensors of this device and dtype: they are
/// [`enabled`], the device is flex (with or without autodiff) and the dtype
/// `f32`.
#[must_use]
pub fn supports(device: &Device, dtype: DType) -> bool {
    enabled() && dtype == DType::F32 && device.clone().inner() == Device::flex()
}

/// A "same" convolution (stride 1, zero padding of half the odd kernel, no
/// bias): `x` `[n, c, h, w]`, `weight` `[o, c, k, k]`, output `[n, o, h, w]`.
///
/// # Panics
/// If the kernel is not square and odd, or its input channels are not `c`.
pub fn conv_same(x: Tensor<4>, weight: Tensor<4>) -> Tensor<4> {
    if !supports(&x.device(), x.dtype()) {
        let [_, _, k, _] = weight.dims();
        let pad = k / 2;
        return conv2d(x, weight, None, ConvOptions::new([1, 1], [pad, pad], [1, 1], 1));
    }
    Tensor::from_dispatch(<Dispatch as TrainingKernels>::conv_same(x.into_dispatch(), weight.into_dispatch()))
}

/// Batch norm's output and the batch statistics it used.
pub struct Normalized {
    /// `[n, c, h, w]`.
    pub output: Tensor<4>,
    /// The batch mean of each channel, `[c]`; not differentiable.
    pub mean: Tensor<1>,
    /// The biased batch variance of each channel, `[c]`; not differentiable.
    pub variance: Tensor<1>,
}

/// What follows the normalization in the same operation.
// Built and consumed once per layer: boxing the tensor would only add an allocation.
#[allow(clippy::large_enum_variant)]
pub enum Then {
    /// Nothing.
    Nothing,
    /// A ReLU.
    Relu,
    /// A residual sum, then a ReLU.
    AddRelu(Tensor<4>),
}

impl Then {
    /// `x` followed by this, with burn's operations.
    #[must_use]
    pub fn apply(self, x: Tensor<4>) -> Tensor<4> {
        match self {
            Then::Nothing => x,
            Then::Relu => relu(x),
            Then::AddRelu(residual) => relu(x + residual),
        }
    }
}

/// Batch norm in training mode (the batch's own mean and biased variance
/// per channel), followed by `then`.
pub fn batch_norm(x: Tensor<4>, gamma: Tensor<1>, beta: Tensor<1>, epsilon: f64, then: Then) -> Normalized {
    if !supports(&x.device(), x.dtype()) {
        let result = batch_norm_train(x, gamma, beta, epsilon);
        return Normalized { output: then.apply(result.output), mean: result.mean, variance: result.variance };
    }
    let (x, gamma, beta) = (x.into_dispatch(), gamma.into_dispatch(), beta.into_dispatch());
    let out = match then {
        Then::Nothing => <Dispatch as TrainingKernels>::batch_norm(x, gamma, beta, epsilon, false),
        Then::Relu => <Dispatch as TrainingKernels>::batch_norm(x, gamma, beta, epsilon, true),
        Then::AddRelu(residual) => {
            <Dispatch as TrainingKernels>::batch_norm_add_relu(x, gamma, beta, residual.into_dispatch(), epsilon)
        }
    };
    Normalized {
        output: Tensor::from_dispatch(out.output),
        mean: Tensor::from_dispatch(out.mean),
        variance: Tensor::from_dispatch(out.variance),
    }
}
