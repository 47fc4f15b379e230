//! Matrix products on the `gemm` crate, which picks its AVX-512 or
//! AVX2/FMA kernels at run time by what the CPU has (`ndarray`'s
//! `matrixmultiply` has no AVX-512 kernels: on AVX-512 machines training ran
//! at 0.55-0.58x PyTorch). The crate's one entry point takes raw pointers;
//! this module and [`crate::uninit`] are the only `unsafe` of the workspace,
//! behind safe functions that check every shape.
#![allow(unsafe_code)]

use std::mem::MaybeUninit;

use ndarray::ArrayView2;

/// Where a product may be written: initialized floats, or memory not yet
/// written (a product with `beta == 0` never reads what it overwrites).
/// Sealed: both types are laid out as an `f32`.
pub(crate) trait Destination: sealed::Sealed {
    /// Writes `value` here.
    fn set(&mut self, value: f32);
}

impl Destination for f32 {
    fn set(&mut self, value: f32) {
        *self = value;
    }
}

impl Destination for MaybeUninit<f32> {
    fn set(&mut self, value: f32) {
        self.write(value);
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for std::mem::MaybeUninit<f32> {}
}

/// `c = a b + beta c`, with `c` row-major (`a` and `b` may be transposed views).
///
/// # Panics
/// If the shapes do not fit.
pub(crate) fn gemm(a: ArrayView2<f32>, b: ArrayView2<f32>, beta: f32, c: &mut [f32]) {
    product(a, b, beta, c);
}

/// `c = a b`, with `c` row-major, written in full whatever it held (or
/// whether it was initialized).
///
/// # Panics
/// If the shapes do not fit.
pub(crate) fn gemm_into<T: Destination>(a: ArrayView2<f32>, b: ArrayView2<f32>, c: &mut [T]) {
    product(a, b, 0.0, c);
}

fn product<T: Destination>(a: ArrayView2<f32>, b: ArrayView2<f32>, beta: f32, c: &mut [T]) {
    let (m, k, n) = (a.nrows(), a.ncols(), b.ncols());
    assert_eq!(b.nrows(), k, "the product's inner dimensions");
    assert_eq!(c.len(), m * n, "the product's size");
    if m == 0 || n == 0 {
        return;
    }
    let c = c.as_mut_ptr().cast::<f32>();
    let (a_strides, b_strides) = (a.strides(), b.strides());
    // SAFETY: `a` and `b` are views of initialized memory valid for their
    // shapes at their strides (ndarray guarantees it), `c` holds exactly
    // m x n elements laid out as `f32`s (the `Destination` types) at row
    // stride n and column stride 1 (checked above), and it is borrowed
    // mutably, so it overlaps neither input. `gemm` computes `dst = alpha
    // dst + beta lhs rhs`, reading `dst` only when asked: `beta` is non-zero
    // only through `gemm`, whose `c` is initialized, and with `read_dst`
    // false `c`'s old values are never read. With k == 0 the product is
    // zero: `gemm` then writes `alpha dst` (or zeros) into every element.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c,
            1,
            n as isize,
            beta != 0.0,
            a.as_ptr(),
            a_strides[1],
            a_strides[0],
            b.as_ptr(),
            b_strides[1],
            b_strides[0],
            beta,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

#[cfg(test)]
mod tests {
    use ndarray::linalg::general_mat_mul;
    use ndarray::{Array2, ArrayView2};

    use super::{gemm, gemm_into};

    /// Values with no pattern a wrong stride could hide behind.
    fn matrix(rows: usize, columns: usize, seed: u32) -> Array2<f32> {
        Array2::from_shape_fn((rows, columns), |(i, j)| {
            let x = (i as u32 * 7919 + j as u32 * 104_729 + seed * 31) % 1009;
            x as f32 / 1009.0 - 0.5
        })
    }

    fn reference(a: ArrayView2<f32>, b: ArrayView2<f32>, beta: f32, c: &Array2<f32>) -> Array2<f32> {
        let mut out = c.clone();
        general_mat_mul(1.0, &a, &b, beta, &mut out);
        out
    }

    fn assert_close(got: &[f32], want: &Array2<f32>) {
        for (i, (x, y)) in got.iter().zip(want.iter()).enumerate() {
            assert!((x - y).abs() <= 1e-4 * (1.0 + y.abs()), "element {i}: {x} against {y}");
        }
    }

    #[test]
    fn products_match_ndarray_with_and_without_transposes_and_accumulation() {
        // The convolution's shapes (outputs x rows x plane on 9x9 and 19x19)
        // and odd ones that leave partial micro-tiles.
        for (m, k, n) in [(32, 288, 361), (8, 72, 81), (3, 5, 7), (17, 1, 33), (1, 40, 1)] {
            let c = matrix(m, n, 3);
            let a = matrix(m, k, 1);
            let b = matrix(k, n, 2);
            for beta in [0.0, 1.0] {
                let mut got = c.as_standard_layout().to_owned().into_raw_vec_and_offset().0;
                gemm(a.view(), b.view(), beta, &mut got);
                assert_close(&got, &reference(a.view(), b.view(), beta, &c));
            }
            // Transposed views, as the backward pass passes them.
            let (at, bt) = (matrix(k, m, 4), matrix(n, k, 5));
            let mut got = c.as_standard_layout().to_owned().into_raw_vec_and_offset().0;
            gemm(at.view().reversed_axes(), bt.view().reversed_axes(), 1.0, &mut got);
            assert_close(&got, &reference(at.view().reversed_axes(), bt.view().reversed_axes(), 1.0, &c));
        }
    }

    #[test]
    fn beta_zero_ignores_what_the_output_held() {
        let (a, b) = (matrix(4, 3, 1), matrix(3, 5, 2));
        let mut got = vec![f32::NAN; 20];
        gemm(a.view(), b.view(), 0.0, &mut got);
        assert_close(&got, &a.dot(&b));
    }

    /// Into memory never written: every element of the product arrives, as
    /// into initialized memory; and a product over nothing is zero.
    #[test]
    fn products_fill_unwritten_memory() {
        for (m, k, n) in [(32, 288, 368), (3, 5, 7), (4, 0, 5)] {
            let (a, b) = (matrix(m, k, 1), matrix(k, n, 2));
            let mut out = vec![std::mem::MaybeUninit::<f32>::uninit(); m * n];
            gemm_into(a.view(), b.view(), &mut out);
            // SAFETY: `gemm_into` wrote all m x n elements (what the test checks).
            let got: Vec<f32> = out.iter().map(|x| unsafe { x.assume_init() }).collect();
            assert_close(&got, &a.dot(&b));
        }
    }

    #[test]
    #[should_panic(expected = "inner dimensions")]
    fn mismatched_shapes_panic() {
        let (a, b) = (matrix(4, 3, 1), matrix(4, 5, 2));
        gemm(a.view(), b.view(), 0.0, &mut [0.0; 20]);
    }
}
