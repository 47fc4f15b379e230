//! The backend extension: the kernels as operations of burn's flex backend,
//! with hand-written backward passes for its autodiff decorator.

use std::borrow::Cow;
use std::mem::MaybeUninit;

use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::CheckpointStrategy;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{Backward, Ops, OpsKind};
use burn::backend::flex::FlexTensor;
use burn::backend::tensor::FloatTensor;
use burn::backend::{Autodiff, AutodiffBackend, Backend, ExtensionType, Flex, backend_extension};
use burn::tensor::{Shape, TensorData};

use ndarray::{ArrayView2, s};
use rayon::prelude::*;

use crate::cpu::{self, NormInputs, NormStats, Planes, Unfold};
use crate::gemm::{Destination, gemm, gemm_into};
use crate::uninit;

/// Batch norm's output with the batch statistics it used.
#[derive(ExtensionType)]
pub struct NormOutput<B: Backend> {
    /// The normalized (and possibly rectified) activations.
    pub output: FloatTensor<B>,
    /// The batch mean of each channel, `[c]`.
    pub mean: FloatTensor<B>,
    /// The biased batch variance of each channel, `[c]`.
    pub variance: FloatTensor<B>,
}

/// Convolution and batch norm as single operations with their own backward
/// passes, for the CPU (see the crate's documentation for why).
#[backend_extension(Flex, Autodiff)]
pub trait TrainingKernels: Backend {
    /// A "same" convolution: stride 1, an odd square kernel, zero padding of
    /// half the kernel, no bias. `x` is `[n, c, h, w]`, `weight` `[o, c, k, k]`.
    fn conv_same(x: FloatTensor<Self>, weight: FloatTensor<Self>) -> FloatTensor<Self>;

    /// Batch norm with the batch's statistics, then a ReLU if `relu`.
    fn batch_norm(
        x: FloatTensor<Self>,
        gamma: FloatTensor<Self>,
        beta: FloatTensor<Self>,
        epsilon: f64,
        relu: bool,
    ) -> NormOutput<Self>;

    /// `relu(batch_norm(x) + residual)`: the end of a residual block.
    fn batch_norm_add_relu(
        x: FloatTensor<Self>,
        gamma: FloatTensor<Self>,
        beta: FloatTensor<Self>,
        residual: FloatTensor<Self>,
        epsilon: f64,
    ) -> NormOutput<Self>;
}

/// The values of an `f32` tensor in row-major order, borrowed when they
/// already are.
///
/// # Panics
/// If the tensor is not `f32`; [`crate::supports`] keeps other types away.
fn values(t: &FlexTensor) -> Cow<'_, [f32]> {
    match t.as_slice::<f32>() {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(t.to_contiguous().as_slice::<f32>().expect("an f32 tensor").to_vec()),
    }
}

/// `t` with a buffer of its own in row-major order: itself when nobody else
/// holds its plain buffer, else a copy. Gradients are overwritten in place.
fn unique(t: FlexTensor) -> FlexTensor {
    let elements = t.layout().num_elements();
    let plain = t.is_contiguous() && t.layout().start_offset() == 0 && t.bytes().len() == elements * size_of::<f32>();
    if plain && t.is_unique() && t.as_slice::<f32>().is_some() {
        t
    } else {
        tensor(values(&t).into_owned(), t.layout().shape().clone())
    }
}

/// The buffer of a tensor from [`unique`].
fn values_mut(t: &mut FlexTensor) -> &mut [f32] {
    t.try_storage_mut::<f32>().expect("a tensor from `unique`")
}

fn tensor(values: Vec<f32>, shape: impl Into<Shape>) -> FlexTensor {
    FlexTensor::from_data(TensorData::new(values, shape.into()))
}

fn planes(t: &FlexTensor) -> Planes {
    let dims = t.layout().shape();
    assert_eq!(dims.num_dims(), 4, "a [n, c, h, w] tensor");
    Planes { n: dims[0], c: dims[1], h: dims[2], w: dims[3] }
}

/// `[o, c, k, k]` to `(o, k)`.
fn kernel(weight: &FlexTensor) -> (usize, usize) {
    let dims = weight.layout().shape();
    assert!(dims.num_dims() == 4 && dims[2] == dims[3] && dims[2] % 2 == 1, "an odd square kernel");
    (dims[0], dims[2])
}

fn matrix(values: &[f32], rows: usize, columns: usize) -> ArrayView2<'_, f32> {
    ArrayView2::from_shape((rows, columns), values).expect("a matrix's shape")
}

/// The row length of an unfolded sample: its plane rounded up to a whole
/// number of 16-float vectors. The gemm crate copies (packs) an operand
/// whose long side is not such a multiple before every product, and reads
/// a padded one in place: the forward product of a 32-channel 19x19 layer
/// ran at 116 GFLOP/s on 361 columns and at 164 on 368 (Intel Xeon,
/// AVX-512).
fn padded(plane: usize) -> usize {
    plane.next_multiple_of(16)
}

/// `a` times the padded `b` (`[a.ncols, stride]`) into `out` (`[a.nrows,
/// plane]`, written in full): straight when there is no padding, else
/// through `product` (`[a.nrows, stride]`).
fn gemm_unpadded<T: Destination>(a: ArrayView2<f32>, b: &[f32], stride: usize, product: &mut [f32], out: &mut [T]) {
    let b = matrix(b, a.ncols(), stride);
    let plane = out.len() / a.nrows();
    if plane == stride {
        gemm_into(a, b, out);
        return;
    }
    gemm_into(a, b, product);
    for (out, row) in out.chunks_mut(plane).zip(product.chunks(stride)) {
        out.iter_mut().zip(&row[..plane]).for_each(|(o, &v)| o.set(v));
    }
}

/// Each sample is unfolded into a buffer of its own thread and convolved by
/// one GEMM into the output: no buffer the size of the batch.
fn conv_forward(x: &FlexTensor, weight: &FlexTensor) -> FlexTensor {
    let shape = planes(x);
    let (outputs, k) = kernel(weight);
    assert_eq!(weight.layout().shape()[1], shape.c, "the kernel's input channels");
    let (rows, plane) = (shape.c * k * k, shape.plane());
    let stride = padded(plane);
    let unfold = Unfold::new(shape, k, stride);
    let (xs, weight) = (values(x), values(weight));
    let weight = matrix(&weight, outputs, rows);
    let convolve = |out: &mut [MaybeUninit<f32>]| {
        out.par_chunks_mut(outputs * plane).zip(xs.par_chunks(shape.sample())).for_each_init(
            || (vec![0.0; unfold.len()], vec![0.0; outputs * stride]),
            |(cols, product), (out, x)| {
                unfold.apply(x, cols);
                gemm_unpadded(weight, cols, stride, product, out);
            },
        );
    };
    // SAFETY: the chunks, one per sample, cover the output, and
    // `gemm_unpadded` writes each in full.
    #[allow(unsafe_code)]
    let out = unsafe { uninit::filled(shape.n * outputs * plane, convolve) };
    tensor(out, [shape.n, outputs, shape.h, shape.w])
}

/// Per-thread buffers of the convolution's backward pass.
#[derive(Default)]
struct Scratch {
    /// The unfolded input or output gradient of a sample.
    cols: Vec<f32>,
    product: Vec<f32>,
    /// The thread's share of the weight's gradient.
    weight_grad: Vec<f32>,
}

/// `[o, c, k, k]` to `[c, o, k, k]` with each kernel turned by half a turn:
/// the "same" convolution of the output's gradient with these weights is
/// the input's gradient, so the backward pass unfolds the gradient as the
/// forward pass unfolds the input (no scattered sums back onto the input).
fn transposed_flipped(weight: &[f32], outputs: usize, channels: usize, k: usize) -> Vec<f32> {
    let taps = k * k;
    let mut flipped = vec![0.0; weight.len()];
    for (o, kernels) in weight.chunks(channels * taps).enumerate() {
        for (ci, kernel) in kernels.chunks(taps).enumerate() {
            let target = &mut flipped[(ci * outputs + o) * taps..][..taps];
            target.iter_mut().zip(kernel.iter().rev()).for_each(|(t, w)| *t = *w);
        }
    }
    flipped
}

/// The gradients of [`conv_forward`] of the weight and, when `input`, of
/// the input, sample by sample as the forward pass went; each thread sums
/// its own share of the weight's gradient.
fn conv_backward(
    x: &FlexTensor,
    weight: &FlexTensor,
    grad: FlexTensor,
    input: bool,
) -> (Option<FlexTensor>, FlexTensor) {
    if input {
        let (x_grad, weight_grad) = conv_backward_both(x, weight, grad);
        (Some(x_grad), weight_grad)
    } else {
        (None, conv_weight_grad(x, weight, &values(&grad)))
    }
}

/// The weight's gradient alone, where the input needs none (the network's
/// first convolution): from the unfolded input, which has fewer channels
/// there than the output's gradient.
fn conv_weight_grad(x: &FlexTensor, weight: &FlexTensor, grad: &[f32]) -> FlexTensor {
    let shape = planes(x);
    let (outputs, k) = kernel(weight);
    let (rows, plane) = (shape.c * k * k, shape.plane());
    let stride = padded(plane);
    let unfold = Unfold::new(shape, k, stride);
    let xs = values(x);
    let scratch =
        || Scratch { cols: vec![0.0; unfold.len()], weight_grad: vec![0.0; rows * outputs], ..Scratch::default() };
    // Transposed, `[c*k*k, o]`: as the product of the unfolded input and the
    // transposed output gradient the gemm crate reads the unfolded input in
    // place (146 GFLOP/s against 98 for `[o, c*k*k]`, 32 channels on 19x19).
    let partials = xs
        .par_chunks(shape.sample())
        .zip(grad.par_chunks(outputs * plane))
        .fold(scratch, |mut s, (x, grad)| {
            unfold.apply(x, &mut s.cols);
            let cols = matrix(&s.cols, rows, stride).slice_move(s![.., ..plane]);
            gemm(cols, matrix(grad, outputs, plane).reversed_axes(), 1.0, &mut s.weight_grad);
            s
        })
        .map(|s| s.weight_grad)
        .collect();
    let transposed = sum(partials, rows * outputs);
    let weight_grad = (0..outputs * rows).map(|i| transposed[i % rows * outputs + i / rows]).collect();
    tensor(weight_grad, [outputs, shape.c, k, k])
}

/// Both gradients from the unfolded output gradient: the input's is its
/// product with the turned weights ([`transposed_flipped`]), and the
/// weight's its product with the input, unfolded nowhere: the unfolding
/// shifts the gradient by `-d` where the forward pass shifted the input by
/// `d`, so `sum_q grad[o, q] x[c, q + d] = sum_p grad[o, p - d] x[c, p]`
/// reads the gradient's rows of the turned tap. Where input and output have
/// as many channels, the input's gradient overwrites the output's, sample by
/// sample (each is unfolded before it is overwritten).
fn conv_backward_both(x: &FlexTensor, weight: &FlexTensor, grad: FlexTensor) -> (FlexTensor, FlexTensor) {
    let shape = planes(x);
    let (outputs, k) = kernel(weight);
    let (taps, plane) = (k * k, shape.plane());
    let (grad_rows, stride) = (outputs * taps, padded(plane));
    let unfold_grad = Unfold::new(Planes { c: outputs, ..shape }, k, stride);
    let xs = values(x);
    let flipped = transposed_flipped(&values(weight), outputs, shape.c, k);
    let flipped = matrix(&flipped, shape.c, grad_rows);
    let scratch = || Scratch {
        cols: vec![0.0; unfold_grad.len()],
        product: vec![0.0; shape.c * stride],
        weight_grad: vec![0.0; grad_rows * shape.c],
    };
    // One sample: unfolds its output gradient and adds its share of the
    // weight's gradient (`[o*k*k, c]`, rows by turned tap); its input's
    // gradient is then `flipped` times `s.cols`.
    let unfold_and_share = |s: &mut Scratch, x: &[f32], grad: &[f32]| {
        unfold_grad.apply(grad, &mut s.cols);
        let cols = matrix(&s.cols, grad_rows, stride).slice_move(s![.., ..plane]);
        gemm(cols, matrix(x, shape.c, plane).reversed_axes(), 1.0, &mut s.weight_grad);
    };
    let (x_grad, partials): (FlexTensor, Vec<Vec<f32>>) = if outputs == shape.c {
        let mut grad = unique(grad);
        let partials = values_mut(&mut grad)
            .par_chunks_mut(shape.sample())
            .zip(xs.par_chunks(shape.sample()))
            .fold(scratch, |mut s, (grad, x)| {
                unfold_and_share(&mut s, x, grad);
                gemm_unpadded(flipped, &s.cols, stride, &mut s.product, grad);
                s
            })
            .map(|s| s.weight_grad)
            .collect();
        (grad.reshape(Shape::new([shape.n, shape.c, shape.h, shape.w])), partials)
    } else {
        let grad = values(&grad);
        let mut partials = Vec::new();
        let backward = |x_grad: &mut [MaybeUninit<f32>]| {
            partials = x_grad
                .par_chunks_mut(shape.sample())
                .zip(xs.par_chunks(shape.sample()).zip(grad.par_chunks(outputs * plane)))
                .fold(scratch, |mut s, (x_grad, (x, grad))| {
                    unfold_and_share(&mut s, x, grad);
                    gemm_unpadded(flipped, &s.cols, stride, &mut s.product, x_grad);
                    s
                })
                .map(|s| s.weight_grad)
                .collect();
        };
        // SAFETY: the chunks, one per sample, cover the input's gradient,
        // and `gemm_unpadded` writes each in full.
        #[allow(unsafe_code)]
        let x_grad = unsafe { uninit::filled(shape.len(), backward) };
        (tensor(x_grad, [shape.n, shape.c, shape.h, shape.w]), partials)
    };
    let by_turned_tap = sum(partials, grad_rows * shape.c);
    // weight[o][c][t] = by_turned_tap[o*k*k + (k*k - 1 - t)][c]
    let weight_grad = (0..outputs * shape.c * taps)
        .map(|i| {
            let (o, ci, t) = (i / (shape.c * taps), i / taps % shape.c, i % taps);
            by_turned_tap[(o * taps + taps - 1 - t) * shape.c + ci]
        })
        .collect();
    (x_grad, tensor(weight_grad, [outputs, shape.c, k, k]))
}

/// The element-wise sum of the threads' shares, `len` floats each.
fn sum(partials: Vec<Vec<f32>>, len: usize) -> Vec<f32> {
    partials.into_iter().fold(vec![0.0; len], |mut total, partial| {
        total.iter_mut().zip(&partial).for_each(|(a, b)| *a += b);
        total
    })
}

/// What a batch norm's backward pass needs from its forward pass.
#[derive(Debug, Clone)]
struct NormState {
    x: FlexTensor,
    gamma: FlexTensor,
    mean: Vec<f32>,
    variance: Vec<f32>,
    /// The output, when a ReLU follows (its mask).
    rectified: Option<FlexTensor>,
    /// Whether a residual was added before the ReLU.
    residual: bool,
    epsilon: f64,
}

struct NormForward {
    output: FlexTensor,
    stats: NormStats,
}

fn norm_forward(
    x: &FlexTensor,
    gamma: &FlexTensor,
    beta: &FlexTensor,
    residual: Option<&FlexTensor>,
    epsilon: f64,
    relu: bool,
) -> NormForward {
    let shape = planes(x);
    let xs = values(x);
    let stats = cpu::norm_stats(&xs, shape);
    let inverse_std = stats.inverse_std(epsilon);
    let (gamma, beta) = (values(gamma), values(beta));
    let scale: Vec<f32> = gamma.iter().zip(&inverse_std).map(|(g, s)| g * s).collect();
    let shift: Vec<f32> = (0..shape.c).map(|c| beta[c] - stats.mean[c] * scale[c]).collect();
    let residual = residual.map(values);
    let apply =
        |out: &mut [MaybeUninit<f32>]| cpu::norm_apply(&xs, shape, &scale, &shift, residual.as_deref(), relu, out);
    // SAFETY: `norm_apply` writes every element of its output.
    #[allow(unsafe_code)]
    let out = unsafe { uninit::filled(shape.len(), apply) };
    NormForward { output: tensor(out, [shape.n, shape.c, shape.h, shape.w]), stats }
}

/// Batch norm's gradients, the input's in the output gradient's buffer.
struct NormGrads {
    x: FlexTensor,
    gamma: FlexTensor,
    beta: FlexTensor,
    /// The gradient through the ReLU: the residual's.
    residual: Option<FlexTensor>,
}

impl NormState {
    fn backward(self, grad: FlexTensor) -> NormGrads {
        let shape = planes(&self.x);
        let mut grad = unique(grad);
        let stats = NormStats { mean: self.mean, variance: self.variance };
        let inverse_std = stats.inverse_std(self.epsilon);
        let (x, gamma, rectified) = (values(&self.x), values(&self.gamma), self.rectified.as_ref().map(values));
        let inputs = NormInputs {
            x: &x,
            shape,
            gamma: &gamma,
            stats: &stats,
            inverse_std: &inverse_std,
            rectified: rectified.as_deref(),
        };
        let dims = [shape.n, shape.c, shape.h, shape.w];
        let (sums, residual) = if self.residual {
            let mut sums = (Vec::new(), Vec::new());
            let backward = |residual: &mut [MaybeUninit<f32>]| {
                sums = cpu::norm_backward(&inputs, values_mut(&mut grad), Some(residual));
            };
            // SAFETY: `norm_backward` writes every element of the residual's gradient.
            #[allow(unsafe_code)]
            let residual = unsafe { uninit::filled(shape.len(), backward) };
            (sums, Some(tensor(residual, dims)))
        } else {
            (cpu::norm_backward(&inputs, values_mut(&mut grad), None), None)
        };
        let (gamma, beta) = sums;
        NormGrads { x: grad, gamma: tensor(gamma, [shape.c]), beta: tensor(beta, [shape.c]), residual }
    }
}

impl TrainingKernels for Flex {
    fn conv_same(x: FlexTensor, weight: FlexTensor) -> FlexTensor {
        conv_forward(&x, &weight)
    }

    fn batch_norm(x: FlexTensor, gamma: FlexTensor, beta: FlexTensor, epsilon: f64, relu: bool) -> NormOutput<Self> {
        let forward = norm_forward(&x, &gamma, &beta, None, epsilon, relu);
        stats_output(forward.output, forward.stats)
    }

    fn batch_norm_add_relu(
        x: FlexTensor,
        gamma: FlexTensor,
        beta: FlexTensor,
        residual: FlexTensor,
        epsilon: f64,
    ) -> NormOutput<Self> {
        let forward = norm_forward(&x, &gamma, &beta, Some(&residual), epsilon, true);
        stats_output(forward.output, forward.stats)
    }
}

fn stats_output(output: FlexTensor, stats: NormStats) -> NormOutput<Flex> {
    let c = stats.mean.len();
    NormOutput { output, mean: tensor(stats.mean, [c]), variance: tensor(stats.variance, [c]) }
}

#[derive(Debug)]
struct ConvBackward;

impl Backward<Flex, 2> for ConvBackward {
    type State = (FlexTensor, FlexTensor);

    fn backward(self, ops: Ops<Self::State, 2>, grads: &mut Gradients, _checkpointer: &mut Checkpointer) {
        let [node_x, node_weight] = ops.parents;
        let grad = grads.consume::<Flex>(&ops.node);
        let (x, weight) = ops.state;
        let (x_grad, weight_grad) = conv_backward(&x, &weight, grad, node_x.is_some());
        if let (Some(node), Some(x_grad)) = (node_x, x_grad) {
            grads.register::<Flex>(node.id, x_grad);
        }
        if let Some(node) = node_weight {
            grads.register::<Flex>(node.id, weight_grad);
        }
    }
}

/// Batch norm's backward step: parents x, gamma, beta and, with a residual
/// sum, the residual.
#[derive(Debug)]
struct NormBackward;

impl<const N: usize> Backward<Flex, N> for NormBackward {
    type State = NormState;

    fn backward(self, ops: Ops<Self::State, N>, grads: &mut Gradients, _checkpointer: &mut Checkpointer) {
        let grad = grads.consume::<Flex>(&ops.node);
        let result = ops.state.backward(grad);
        for (node, value) in
            ops.parents.into_iter().zip([result.x, result.gamma, result.beta].into_iter().chain(result.residual))
        {
            if let Some(node) = node {
                grads.register::<Flex>(node.id, value);
            }
        }
    }
}

type Ad<C> = Autodiff<Flex, C>;

fn untracked_stats<C: CheckpointStrategy>(stats: &NormStats) -> (FloatTensor<Ad<C>>, FloatTensor<Ad<C>>) {
    let c = stats.mean.len();
    (Ad::<C>::from_inner(tensor(stats.mean.clone(), [c])), Ad::<C>::from_inner(tensor(stats.variance.clone(), [c])))
}

impl<C: CheckpointStrategy> TrainingKernels for Autodiff<Flex, C> {
    fn conv_same(x: FloatTensor<Self>, weight: FloatTensor<Self>) -> FloatTensor<Self> {
        match ConvBackward.prepare::<C>([x.node(), weight.node()]).compute_bound().stateful() {
            OpsKind::Tracked(prep) => {
                let (x, weight) = (x.primitive().clone(), weight.primitive().clone());
                let output = conv_forward(&x, &weight);
                prep.finish((x, weight), output)
            }
            OpsKind::UnTracked(prep) => prep.finish(conv_forward(x.primitive(), weight.primitive())),
        }
    }

    fn batch_norm(
        x: FloatTensor<Self>,
        gamma: FloatTensor<Self>,
        beta: FloatTensor<Self>,
        epsilon: f64,
        relu: bool,
    ) -> NormOutput<Self> {
        tracked_norm::<C>(&x, &gamma, &beta, None, epsilon, relu)
    }

    fn batch_norm_add_relu(
        x: FloatTensor<Self>,
        gamma: FloatTensor<Self>,
        beta: FloatTensor<Self>,
        residual: FloatTensor<Self>,
        epsilon: f64,
    ) -> NormOutput<Self> {
        tracked_norm::<C>(&x, &gamma, &beta, Some(&residual), epsilon, true)
    }
}

/// Batch norm on the autodiff backend, with a backward step when any input
/// is tracked.
fn tracked_norm<C: CheckpointStrategy>(
    x: &FloatTensor<Ad<C>>,
    gamma: &FloatTensor<Ad<C>>,
    beta: &FloatTensor<Ad<C>>,
    residual: Option<&FloatTensor<Ad<C>>>,
    epsilon: f64,
    relu: bool,
) -> NormOutput<Ad<C>> {
    let forward = norm_forward(
        x.primitive(),
        gamma.primitive(),
        beta.primitive(),
        residual.map(|r| r.primitive()),
        epsilon,
        relu,
    );
    let (mean, variance) = untracked_stats::<C>(&forward.stats);
    let NormForward { output, stats } = forward;
    let state = NormState {
        x: x.primitive().clone(),
        gamma: gamma.primitive().clone(),
        mean: stats.mean,
        variance: stats.variance,
        rectified: relu.then(|| output.clone()),
        residual: residual.is_some(),
        epsilon,
    };
    let output = match residual {
        None => match NormBackward.prepare::<C>([x.node(), gamma.node(), beta.node()]).compute_bound().stateful() {
            OpsKind::Tracked(prep) => prep.finish(state, output),
            OpsKind::UnTracked(prep) => prep.finish(output),
        },
        Some(residual) => {
            let parents = [x.node(), gamma.node(), beta.node(), residual.node()];
            match NormBackward.prepare::<C>(parents).compute_bound().stateful() {
                OpsKind::Tracked(prep) => prep.finish(state, output),
                OpsKind::UnTracked(prep) => prep.finish(output),
            }
        }
    };
    NormOutput { output, mean, variance }
}
