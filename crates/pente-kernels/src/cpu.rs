//! The kernels on plain `f32` slices in NCHW order: the unfolding of a
//! "same" convolution's input (im2col) and its adjoint, and the passes of
//! batch norm. Work is split by sample, so every thread writes its own
//! contiguous slice.

use rayon::prelude::*;

/// The shape of a batch: samples, channels, plane size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Planes {
    pub n: usize,
    pub c: usize,
    pub h: usize,
    pub w: usize,
}

impl Planes {
    pub fn plane(&self) -> usize {
        self.h * self.w
    }

    pub fn sample(&self) -> usize {
        self.c * self.plane()
    }

    pub fn len(&self) -> usize {
        self.n * self.sample()
    }
}

/// The columns `x` of a row whose source column `x + dx - p` (kernel offset
/// `dx`, padding `p`) lies on the board; an empty range on tiny boards.
fn valid_columns(w: usize, dx: usize, p: usize) -> std::ops::Range<usize> {
    let end = (w + p).saturating_sub(dx).min(w);
    p.saturating_sub(dx).min(end)..end
}

/// Unfolds one sample `x` (`[c, h, w]`) for a `k`x`k` "same" convolution
/// into `cols` (`[c*k*k, h*w]`): row `(ci*k + dy)*k + dx` holds channel
/// `ci` shifted by `(dy - p, dx - p)`, zero off the board. The weights
/// `[o, c*k*k]` times `cols` are then the convolution.
pub(crate) fn im2col(x: &[f32], shape: Planes, k: usize, cols: &mut [f32]) {
    let Planes { h, w, .. } = shape;
    let p = k / 2;
    let plane = shape.plane();
    debug_assert_eq!(x.len(), shape.sample());
    debug_assert_eq!(cols.len(), shape.sample() * k * k);
    for (row, out) in cols.chunks_mut(plane).enumerate() {
        let (ci, dy, dx) = (row / (k * k), row / k % k, row % k);
        let src = &x[ci * plane..][..plane];
        let columns = valid_columns(w, dx, p);
        for (y, out) in out.chunks_mut(w).enumerate() {
            let sy = y + dy;
            if sy < p || sy - p >= h || columns.is_empty() {
                out.fill(0.0);
                continue;
            }
            let src = &src[(sy - p) * w..][..w];
            out[..columns.start].fill(0.0);
            out[columns.end..].fill(0.0);
            out[columns.clone()].copy_from_slice(&src[columns.start + dx - p..columns.end + dx - p]);
        }
    }
}

/// The adjoint of [`im2col`] for one sample: sums every unfolded row back
/// onto the input point it was read from. `dx` (`[c, h, w]`) is overwritten.
pub(crate) fn col2im(cols: &[f32], shape: Planes, k: usize, dx: &mut [f32]) {
    let Planes { h, w, .. } = shape;
    let p = k / 2;
    let plane = shape.plane();
    debug_assert_eq!(dx.len(), shape.sample());
    debug_assert_eq!(cols.len(), shape.sample() * k * k);
    dx.fill(0.0);
    for (row, col) in cols.chunks(plane).enumerate() {
        let (ci, dy, kx) = (row / (k * k), row / k % k, row % k);
        let target = &mut dx[ci * plane..][..plane];
        let columns = valid_columns(w, kx, p);
        if columns.is_empty() {
            continue;
        }
        for (y, col) in col.chunks(w).enumerate() {
            let sy = y + dy;
            if sy < p || sy - p >= h {
                continue;
            }
            let target = &mut target[(sy - p) * w..][columns.start + kx - p..columns.end + kx - p];
            for (t, g) in target.iter_mut().zip(&col[columns.clone()]) {
                *t += g;
            }
        }
    }
}

/// Sums each channel over samples and points of `f(i)` for every element
/// index `i`, in `f64`: `[c]`.
fn channel_sums(shape: Planes, f: impl Fn(usize, usize) -> f64 + Sync) -> Vec<f64> {
    let plane = shape.plane();
    let per_sample: Vec<Vec<f64>> = (0..shape.n)
        .into_par_iter()
        .map(|n| {
            (0..shape.c)
                .map(|ci| {
                    let start = (n * shape.c + ci) * plane;
                    (start..start + plane).map(|i| f(i, ci)).sum()
                })
                .collect()
        })
        .collect();
    (0..shape.c).map(|ci| per_sample.iter().map(|s| s[ci]).sum()).collect()
}

/// What the forward pass of batch norm keeps for the backward pass.
pub(crate) struct NormStats {
    /// The batch mean of each channel.
    pub mean: Vec<f32>,
    /// The biased batch variance of each channel.
    pub variance: Vec<f32>,
}

impl NormStats {
    /// `1 / sqrt(variance + epsilon)` of each channel.
    pub fn inverse_std(&self, epsilon: f64) -> Vec<f32> {
        self.variance.iter().map(|&v| (1.0 / (f64::from(v) + epsilon).sqrt()) as f32).collect()
    }
}

/// The mean and biased variance of each channel of `x` (two passes, so a
/// large mean costs no precision).
pub(crate) fn norm_stats(x: &[f32], shape: Planes) -> NormStats {
    let count = (shape.n * shape.plane()) as f64;
    let mean: Vec<f64> = channel_sums(shape, |i, _| f64::from(x[i])).into_iter().map(|s| s / count).collect();
    let variance = channel_sums(shape, |i, ci| {
        let d = f64::from(x[i]) - mean[ci];
        d * d
    });
    NormStats {
        mean: mean.iter().map(|&m| m as f32).collect(),
        variance: variance.iter().map(|&v| (v / count) as f32).collect(),
    }
}

/// `y = relu?(gamma * (x - mean) / std + beta + residual?)`, written into `out`.
pub(crate) fn norm_apply(
    x: &[f32],
    shape: Planes,
    scale: &[f32],
    shift: &[f32],
    residual: Option<&[f32]>,
    relu: bool,
    out: &mut [f32],
) {
    let plane = shape.plane();
    out.par_chunks_mut(shape.sample()).enumerate().for_each(|(n, out)| {
        for ((ci, out), x) in out.chunks_mut(plane).enumerate().zip(x[n * shape.sample()..].chunks(plane)) {
            let (a, b) = (scale[ci], shift[ci]);
            for (o, &v) in out.iter_mut().zip(x) {
                *o = a * v + b;
            }
            if let Some(residual) = residual {
                let start = n * shape.sample() + ci * plane;
                for (o, r) in out.iter_mut().zip(&residual[start..start + plane]) {
                    *o += r;
                }
            }
            if relu {
                for o in out.iter_mut() {
                    *o = o.max(0.0);
                }
            }
        }
    });
}

/// Backward pass of [`norm_apply`] with batch statistics: `grad`, the
/// gradient of the output already masked by the ReLU, is overwritten with
/// the input's gradient; returns the gradients of gamma and beta.
pub(crate) fn norm_backward(
    x: &[f32],
    shape: Planes,
    gamma: &[f32],
    stats: &NormStats,
    inverse_std: &[f32],
    grad: &mut [f32],
) -> (Vec<f32>, Vec<f32>) {
    let count = (shape.n * shape.plane()) as f64;
    let normalized = |i: usize, ci: usize| f64::from((x[i] - stats.mean[ci]) * inverse_std[ci]);
    let beta = channel_sums(shape, |i, _| f64::from(grad[i]));
    let gamma_grad = channel_sums(shape, |i, ci| f64::from(grad[i]) * normalized(i, ci));
    let mean_grad: Vec<f32> = beta.iter().map(|&s| (s / count) as f32).collect();
    let mean_projected: Vec<f32> = gamma_grad.iter().map(|&s| (s / count) as f32).collect();
    let plane = shape.plane();
    grad.par_chunks_mut(shape.sample()).zip(x.par_chunks(shape.sample())).for_each(|(grad, x)| {
        for (ci, (grad, x)) in grad.chunks_mut(plane).zip(x.chunks(plane)).enumerate() {
            let (scale, mean, inv) = (gamma[ci] * inverse_std[ci], stats.mean[ci], inverse_std[ci]);
            let (g_mean, projected) = (mean_grad[ci], mean_projected[ci]);
            for (g, &v) in grad.iter_mut().zip(x) {
                *g = scale * (*g - g_mean - (v - mean) * inv * projected);
            }
        }
    });
    (gamma_grad.iter().map(|&s| s as f32).collect(), beta.iter().map(|&s| s as f32).collect())
}

/// `grad` where `output > 0`, else 0: the gradient through a ReLU.
pub(crate) fn relu_mask(grad: &mut [f32], output: &[f32]) {
    grad.par_chunks_mut(1 << 14).zip(output.par_chunks(1 << 14)).for_each(|(g, y)| {
        for (g, &y) in g.iter_mut().zip(y) {
            if y <= 0.0 {
                *g = 0.0;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_conv(x: &[f32], shape: Planes, weight: &[f32], outputs: usize, k: usize) -> Vec<f32> {
        let Planes { n, c, h, w } = shape;
        let p = k as isize / 2;
        let mut out = vec![0.0; n * outputs * h * w];
        for s in 0..n {
            for o in 0..outputs {
                for y in 0..h {
                    for xx in 0..w {
                        let mut acc = 0.0;
                        for ci in 0..c {
                            for dy in 0..k {
                                for dx in 0..k {
                                    let sy = y as isize + dy as isize - p;
                                    let sx = xx as isize + dx as isize - p;
                                    if sy < 0 || sx < 0 || sy >= h as isize || sx >= w as isize {
                                        continue;
                                    }
                                    let v = x[((s * c + ci) * h + sy as usize) * w + sx as usize];
                                    acc += v * weight[((o * c + ci) * k + dy) * k + dx];
                                }
                            }
                        }
                        out[((s * outputs + o) * h + y) * w + xx] = acc;
                    }
                }
            }
        }
        out
    }

    fn ramp(len: usize, seed: u32) -> Vec<f32> {
        (0..len)
            .map(|i| ((i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) % 1000) as f32 / 500.0 - 1.0)
            .collect()
    }

    /// im2col followed by the weight product is the convolution itself, on
    /// non-square planes and at every kernel size the network uses.
    #[test]
    fn unfolded_product_equals_naive_convolution() {
        for (k, h, w) in [(3, 5, 7), (1, 4, 3), (3, 1, 1), (5, 6, 6), (5, 2, 1)] {
            let shape = Planes { n: 2, c: 3, h, w };
            let outputs = 4;
            let x = ramp(shape.len(), 7);
            let weight = ramp(outputs * shape.c * k * k, 11);
            let expected = naive_conv(&x, shape, &weight, outputs, k);
            let (plane, rows) = (shape.plane(), shape.c * k * k);
            for sample in 0..shape.n {
                let mut cols = vec![f32::NAN; rows * plane];
                im2col(&x[sample * shape.sample()..][..shape.sample()], shape, k, &mut cols);
                for o in 0..outputs {
                    for q in 0..plane {
                        let got: f32 = (0..rows).map(|r| weight[o * rows + r] * cols[r * plane + q]).sum();
                        let want = expected[(sample * outputs + o) * plane + q];
                        assert!((got - want).abs() < 1e-4, "k {k} {h}x{w}: {got} vs {want}");
                    }
                }
            }
        }
    }

    /// `<im2col(x), g> == <x, col2im(g)>` for any x and g: col2im is the adjoint.
    #[test]
    fn col2im_is_the_adjoint_of_im2col() {
        for (k, h, w) in [(3, 5, 7), (1, 4, 3), (3, 2, 1), (5, 6, 6), (5, 1, 2)] {
            let shape = Planes { n: 1, c: 2, h, w };
            let x = ramp(shape.len(), 3);
            let g = ramp(shape.len() * k * k, 5);
            let mut cols = vec![f32::NAN; g.len()];
            im2col(&x, shape, k, &mut cols);
            let mut back = vec![f32::NAN; x.len()];
            col2im(&g, shape, k, &mut back);
            let left: f64 = cols.iter().zip(&g).map(|(a, b)| f64::from(a * b)).sum();
            let right: f64 = x.iter().zip(&back).map(|(a, b)| f64::from(a * b)).sum();
            assert!((left - right).abs() < 1e-3, "k {k} {h}x{w}: {left} vs {right}");
        }
    }

    #[test]
    fn statistics_are_per_channel_over_samples_and_points() {
        let shape = Planes { n: 2, c: 2, h: 1, w: 2 };
        // sample 0: c0 = [1, 3], c1 = [10, 10]; sample 1: c0 = [5, 7], c1 = [0, 20]
        let x = [1.0, 3.0, 10.0, 10.0, 5.0, 7.0, 0.0, 20.0];
        let stats = norm_stats(&x, shape);
        assert_eq!(stats.mean, vec![4.0, 10.0]);
        assert_eq!(stats.variance, vec![5.0, 50.0]);
    }
}
