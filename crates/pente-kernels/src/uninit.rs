//! Output buffers written once in full, without zero-filling them first.
//! `vec![0.0; n]` zero-fills on the calling thread while the other cores
//! wait: on two threads that fill was about a sixth of the calling thread's
//! work, most of the step's serial part (4 x 32, Intel Xeon, 2026-12-07).
#![allow(unsafe_code)]

use std::mem::MaybeUninit;

/// A vector of `len` floats, every one of them written by `fill` (in
/// parallel, as it likes).
///
/// # Safety
/// `fill` must write every element of the slice it is given (a panic in
/// `fill` is fine: the vector is then dropped unread).
pub(crate) unsafe fn filled(len: usize, fill: impl FnOnce(&mut [MaybeUninit<f32>])) -> Vec<f32> {
    let mut values = Vec::with_capacity(len);
    fill(&mut values.spare_capacity_mut()[..len]);
    // SAFETY: the capacity is at least `len`, and the caller promises that
    // `fill` initialized the first `len` elements.
    unsafe { values.set_len(len) };
    values
}
