//! The kernels on plain `f32` slices in NCHW order: the unfolding of a
//! "same" convolution's input (im2col) and the passes of batch norm. Work
//! is split by sample, so every thread writes its own contiguous slice.

use std::mem::MaybeUninit;

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
/// `dx`, padding `p`) lies on the board; an empty range on tiny boards. The
/// same holds for rows.
fn valid_columns(w: usize, dx: usize, p: usize) -> std::ops::Range<usize> {
    let end = (w + p).saturating_sub(dx).min(w);
    p.saturating_sub(dx).min(end)..end
}

/// The unfolding (im2col) of samples of one shape for a `k`x`k` "same"
/// convolution, its nine (or `k*k`) shifts worked out once for every
/// sample.
pub(crate) struct Unfold {
    shape: Planes,
    stride: usize,
    shifts: Vec<Shift>,
}

impl Unfold {
    /// Unfolded rows of `stride >= h*w` points each.
    pub fn new(shape: Planes, k: usize, stride: usize) -> Unfold {
        assert!(stride >= shape.plane(), "a row holds the plane");
        let shifts = (0..k * k).map(|tap| Shift::new(shape, tap / k, tap % k, k / 2)).collect();
        Unfold { shape, stride, shifts }
    }

    /// The length of one sample's unfolding.
    pub fn len(&self) -> usize {
        self.shape.c * self.shifts.len() * self.stride
    }

    /// Unfolds one sample `x` (`[c, h, w]`) into `cols` (`[c*k*k,
    /// stride]`): row `(ci*k + dy)*k + dx` holds channel `ci` shifted by
    /// `(dy - p, dx - p)`, zero off the board and in the padding after the
    /// plane. The weights `[o, c*k*k]` times `cols` are then the
    /// convolution (padded).
    pub fn apply(&self, x: &[f32], cols: &mut [f32]) {
        let plane = self.shape.plane();
        debug_assert_eq!(x.len(), self.shape.sample());
        debug_assert_eq!(cols.len(), self.len());
        for (src, rows) in x.chunks(plane).zip(cols.chunks_mut(self.shifts.len() * self.stride)) {
            for (shift, out) in self.shifts.iter().zip(rows.chunks_mut(self.stride)) {
                let (out, padding) = out.split_at_mut(plane);
                shift.apply(src, self.shape.w, out);
                padding.fill(0.0);
            }
        }
    }
}

/// One kernel offset `(dy, dx)` of a "same" convolution as a copy of the
/// plane: `out[y][x] = src[y + dy - p][x + dx - p]`, zero off the board. A
/// shift is a constant offset in the flat plane, so the rows on the board
/// are one copy (small copies row by row cost more in calls than in bytes),
/// after which the columns that wrapped in from the neighbouring row are
/// zeroed.
struct Shift {
    /// The on-board part of the output, `first..last`, or none.
    span: Option<(usize, usize)>,
    /// Where `first` reads from.
    from: usize,
    /// The columns read from the board.
    columns: std::ops::Range<usize>,
}

impl Shift {
    fn new(shape: Planes, dy: usize, dx: usize, p: usize) -> Shift {
        let w = shape.w;
        let (rows, columns) = (valid_columns(shape.h, dy, p), valid_columns(w, dx, p));
        if rows.is_empty() || columns.is_empty() {
            return Shift { span: None, from: 0, columns };
        }
        let span = (rows.start * w + columns.start, (rows.end - 1) * w + columns.end);
        Shift { span: Some(span), from: (rows.start + dy - p) * w + columns.start + dx - p, columns }
    }

    fn apply(&self, src: &[f32], w: usize, out: &mut [f32]) {
        let Some((first, last)) = self.span else {
            out.fill(0.0);
            return;
        };
        out[..first].fill(0.0);
        out[first..last].copy_from_slice(&src[self.from..self.from + (last - first)]);
        out[last..].fill(0.0);
        // The wrapped columns, column by column: a kernel reaches p columns
        // beyond each side, so each is a point a row, too few for a fill.
        let rows = first / w..last.div_ceil(w);
        for x in (0..self.columns.start).chain(self.columns.end..w) {
            for y in rows.clone() {
                out[y * w + x] = 0.0;
            }
        }
    }
}

/// Two sums of each plane (sample `n`, channel `ci`) by `sums(n, ci)`,
/// worked out sample by sample in parallel; per sample, then channel.
fn plane_sums(shape: Planes, sums: impl Fn(usize, usize) -> [f64; 2] + Sync) -> Vec<Vec<[f64; 2]>> {
    (0..shape.n).into_par_iter().map(|n| (0..shape.c).map(|ci| sums(n, ci)).collect()).collect()
}

/// Channel `ci`'s sums over the samples of [`plane_sums`].
fn channel_sums(per_sample: &[Vec<[f64; 2]>], ci: usize) -> [f64; 2] {
    per_sample.iter().fold([0.0; 2], |[a, b], s| [a + s[ci][0], b + s[ci][1]])
}

/// The sum of `f` over the paired elements of `a` and `b`, in `f32` lanes
/// (which vectorize; a plane is a few hundred points, so `f32` holds the
/// precision), the lanes added in `f64`.
fn lane_sum(a: &[f32], b: &[f32], f: impl Fn(f32, f32) -> f32) -> f64 {
    const LANES: usize = 16;
    let (a, b) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f64 = a.remainder().iter().zip(b.remainder()).map(|(&x, &y)| f64::from(f(x, y))).sum();
    let mut lanes = [0.0f32; LANES];
    for (a, b) in a.zip(b) {
        for i in 0..LANES {
            lanes[i] += f(a[i], b[i]);
        }
    }
    lanes.iter().map(|&s| f64::from(s)).sum::<f64>() + tail
}

/// Channel `ci` of sample `n` in `values`.
fn plane_of(values: &[f32], shape: Planes, n: usize, ci: usize) -> &[f32] {
    &values[(n * shape.c + ci) * shape.plane()..][..shape.plane()]
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

/// The mean and biased variance of each channel of `x`, in one pass over
/// memory: each plane's sum, then (while the plane is still in cache) its
/// squared deviations from its own mean, so a large mean costs no
/// precision; the planes' figures are then merged exactly.
pub(crate) fn norm_stats(x: &[f32], shape: Planes) -> NormStats {
    let points = shape.plane() as f64;
    let count = shape.n as f64 * points;
    // Each plane's sum and squared deviations from its own mean `m`.
    let per_sample = plane_sums(shape, |n, ci| {
        let plane = plane_of(x, shape, n, ci);
        let sum = lane_sum(plane, plane, |v, _| v);
        let m = (sum / points) as f32;
        [sum, lane_sum(plane, plane, |v, _| (v - m) * (v - m))]
    });
    let (mut mean, mut variance) = (Vec::with_capacity(shape.c), Vec::with_capacity(shape.c));
    for ci in 0..shape.c {
        let total = channel_sums(&per_sample, ci)[0] / count;
        // Squares about the channel's mean from squares about each plane's
        // `m`: sum (v - M)^2 = sum (v - m)^2 + 2 (m - M) (sum - points m) + points (m - M)^2.
        let squares: f64 = per_sample
            .iter()
            .map(|s| {
                let [sum, squares] = s[ci];
                let m = f64::from((sum / points) as f32);
                squares + 2.0 * (m - total) * (sum - points * m) + points * (m - total) * (m - total)
            })
            .sum();
        mean.push(total as f32);
        variance.push((squares / count) as f32);
    }
    NormStats { mean, variance }
}

/// `y = relu?(gamma * (x - mean) / std + beta + residual?)`, written into `out`.
pub(crate) fn norm_apply(
    x: &[f32],
    shape: Planes,
    scale: &[f32],
    shift: &[f32],
    residual: Option<&[f32]>,
    relu: bool,
    out: &mut [MaybeUninit<f32>],
) {
    let plane = shape.plane();
    let rectify = |y: f32| if relu { y.max(0.0) } else { y };
    out.par_chunks_mut(shape.sample()).enumerate().for_each(|(n, out)| {
        for (ci, out) in out.chunks_mut(plane).enumerate() {
            let (a, b, x) = (scale[ci], shift[ci], plane_of(x, shape, n, ci));
            match residual {
                Some(residual) => {
                    let residual = plane_of(residual, shape, n, ci);
                    for ((o, &v), &r) in out.iter_mut().zip(x).zip(residual) {
                        o.write(rectify(a * v + b + r));
                    }
                }
                None => out.iter_mut().zip(x).for_each(|(o, &v)| {
                    o.write(rectify(a * v + b));
                }),
            }
        }
    });
}

/// What batch norm's backward pass reads besides the gradient.
pub(crate) struct NormInputs<'a> {
    /// The forward pass's input.
    pub x: &'a [f32],
    pub shape: Planes,
    pub gamma: &'a [f32],
    pub stats: &'a NormStats,
    pub inverse_std: &'a [f32],
    /// The forward pass's output when a ReLU ended it (its mask).
    pub rectified: Option<&'a [f32]>,
}

/// Backward pass of [`norm_apply`] with batch statistics: `grad`, the
/// gradient of the output, is overwritten with the input's gradient, and
/// `residual`, when given, receives the gradient through the ReLU (the
/// residual's); returns the gradients of gamma and beta. Two passes over
/// memory: the ReLU's mask, the residual's copy and both sums, plane by
/// plane while it is in cache; then the input's gradient.
pub(crate) fn norm_backward(
    inputs: &NormInputs,
    grad: &mut [f32],
    residual: Option<&mut [MaybeUninit<f32>]>,
) -> (Vec<f32>, Vec<f32>) {
    let NormInputs { x, shape, gamma, stats, inverse_std, rectified } = *inputs;
    let (plane, sample) = (shape.plane(), shape.sample());
    let sums = |n: usize, grad: &mut [f32], mut residual: Option<&mut [MaybeUninit<f32>]>| -> Vec<[f64; 2]> {
        (0..shape.c)
            .map(|ci| {
                let grad = &mut grad[ci * plane..][..plane];
                if let Some(output) = rectified {
                    relu_mask(grad, plane_of(output, shape, n, ci));
                }
                if let Some(residual) = residual.as_deref_mut() {
                    residual[ci * plane..][..plane].iter_mut().zip(&*grad).for_each(|(r, &g)| {
                        r.write(g);
                    });
                }
                let mean = stats.mean[ci];
                [lane_sum(grad, grad, |g, _| g), lane_sum(grad, plane_of(x, shape, n, ci), |g, v| g * (v - mean))]
            })
            .collect()
    };
    let per_sample: Vec<Vec<[f64; 2]>> = match residual {
        Some(residual) => grad
            .par_chunks_mut(sample)
            .zip(residual.par_chunks_mut(sample))
            .enumerate()
            .map(|(n, (grad, residual))| sums(n, grad, Some(residual)))
            .collect(),
        None => grad.par_chunks_mut(sample).enumerate().map(|(n, grad)| sums(n, grad, None)).collect(),
    };
    let count = (shape.n * plane) as f64;
    let (mut gamma_grad, mut beta_grad) = (Vec::with_capacity(shape.c), Vec::with_capacity(shape.c));
    let (mut mean_grad, mut mean_projected) = (Vec::with_capacity(shape.c), Vec::with_capacity(shape.c));
    for (ci, &inv) in inverse_std.iter().enumerate() {
        let [beta, centred] = channel_sums(&per_sample, ci);
        let projected = centred * f64::from(inv);
        gamma_grad.push(projected as f32);
        beta_grad.push(beta as f32);
        mean_grad.push((beta / count) as f32);
        mean_projected.push((projected / count) as f32);
    }
    grad.par_chunks_mut(sample).zip(x.par_chunks(sample)).for_each(|(grad, x)| {
        for (ci, (grad, x)) in grad.chunks_mut(plane).zip(x.chunks(plane)).enumerate() {
            let (scale, mean, inv) = (gamma[ci] * inverse_std[ci], stats.mean[ci], inverse_std[ci]);
            let (g_mean, projected) = (mean_grad[ci], mean_projected[ci]);
            for (g, &v) in grad.iter_mut().zip(x) {
                *g = scale * (*g - g_mean - (v - mean) * inv * projected);
            }
        }
    });
    (gamma_grad, beta_grad)
}

/// `grad` where `output > 0`, else 0: the gradient through a ReLU.
fn relu_mask(grad: &mut [f32], output: &[f32]) {
    // A select rather than a conditional store, so it vectorizes.
    for (g, &y) in grad.iter_mut().zip(output) {
        *g = if y <= 0.0 { 0.0 } else { *g };
    }
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
    /// non-square planes and at every kernel size the network uses, with
    /// and without padding after each plane.
    #[test]
    fn unfolded_product_equals_naive_convolution() {
        for (k, h, w) in [(3, 5, 7), (1, 4, 3), (3, 1, 1), (5, 6, 6), (5, 2, 1)] {
            let shape = Planes { n: 2, c: 3, h, w };
            let outputs = 4;
            let x = ramp(shape.len(), 7);
            let weight = ramp(outputs * shape.c * k * k, 11);
            let expected = naive_conv(&x, shape, &weight, outputs, k);
            let (plane, rows) = (shape.plane(), shape.c * k * k);
            for (sample, stride) in (0..shape.n).flat_map(|s| [(s, plane), (s, plane + 3)]) {
                let unfold = Unfold::new(shape, k, stride);
                let mut cols = vec![f32::NAN; unfold.len()];
                unfold.apply(&x[sample * shape.sample()..][..shape.sample()], &mut cols);
                for o in 0..outputs {
                    for q in 0..stride {
                        let got: f32 = (0..rows).map(|r| weight[o * rows + r] * cols[r * stride + q]).sum();
                        let want = if q < plane { expected[(sample * outputs + o) * plane + q] } else { 0.0 };
                        assert!((got - want).abs() < 1e-4, "k {k} {h}x{w} stride {stride}: {got} vs {want}");
                    }
                }
            }
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

    /// A mean far from zero, and planes whose means differ: the variance
    /// merged from the planes' is the variance of the whole channel.
    #[test]
    fn variance_holds_its_precision_under_a_large_mean() {
        let shape = Planes { n: 3, c: 2, h: 5, w: 7 };
        let x: Vec<f32> = ramp(shape.len(), 5).iter().enumerate().map(|(i, v)| 1000.0 + v + (i / 35) as f32).collect();
        let stats = norm_stats(&x, shape);
        for ci in 0..shape.c {
            let values: Vec<f64> =
                (0..shape.n).flat_map(|n| plane_of(&x, shape, n, ci).iter().map(|&v| f64::from(v))).collect();
            let mean = values.iter().sum::<f64>() / values.len() as f64;
            let variance = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / values.len() as f64;
            assert!((f64::from(stats.mean[ci]) - mean).abs() < 1e-4, "channel {ci} mean");
            assert!(
                (f64::from(stats.variance[ci]) - variance).abs() < 1e-5 * variance,
                "channel {ci}: {} vs {variance}",
                stats.variance[ci]
            );
        }
    }
}
