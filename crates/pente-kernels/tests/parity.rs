//! The kernels against burn's own operations: same outputs, same gradients.

use burn::prelude::*;
use burn::tensor::Distribution;
use burn::tensor::activation::relu;
use burn::tensor::module::{batch_norm_train, conv2d};
use burn::tensor::ops::ConvOptions;
use pente_kernels::{Then, batch_norm, conv_same};

fn device() -> Device {
    let device = Device::flex().autodiff();
    // Otherwise these tests would compare burn with itself.
    assert!(pente_kernels::supports(&device, burn::tensor::DType::F32));
    device
}

fn random<const D: usize>(shape: [usize; D], seed: u64) -> Tensor<D> {
    let device = device();
    device.seed(seed);
    Tensor::random(shape, Distribution::Normal(0.5, 1.0), &device)
}

fn assert_close<const D: usize>(what: &str, a: Tensor<D>, b: Tensor<D>) {
    assert_eq!(a.dims(), b.dims(), "{what}: shapes");
    let (a, b) = (a.into_data().try_to_vec::<f32>().unwrap(), b.into_data().try_to_vec::<f32>().unwrap());
    let scale = b.iter().fold(1.0f32, |m, v| m.max(v.abs()));
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert!((x - y).abs() <= 1e-4 * scale, "{what}[{i}]: {x} vs {y} (scale {scale})");
    }
}

/// Output and both gradients of a convolution, under a loss that weights
/// every output point differently. The last case spans several chunks of
/// samples.
#[test]
fn convolution_matches_burn() {
    for (k, [n, c, o, h, w]) in [
        (3, [3, 4, 5, 7, 6]),
        (1, [2, 6, 3, 5, 5]),
        (3, [1, 2, 2, 1, 3]),
        (5, [2, 3, 2, 6, 6]),
        (3, [7, 64, 3, 19, 19]),
        (3, [5, 8, 8, 9, 9]),
    ] {
        let x = random([n, c, h, w], 1).require_grad();
        let weight = random([o, c, k, k], 2).require_grad();
        let probe = random([n, o, h, w], 3);
        let pad = k / 2;
        let ours = conv_same(x.clone(), weight.clone());
        let theirs = conv2d(x.clone(), weight.clone(), None, ConvOptions::new([1, 1], [pad, pad], [1, 1], 1));
        assert_close(&format!("k{k} output"), ours.clone(), theirs.clone());
        let ours_grads = (ours * probe.clone()).sum().backward();
        let theirs_grads = (theirs * probe).sum().backward();
        assert_close(&format!("k{k} x grad"), x.grad(&ours_grads).unwrap(), x.grad(&theirs_grads).unwrap());
        assert_close(
            &format!("k{k} weight grad"),
            weight.grad(&ours_grads).unwrap(),
            weight.grad(&theirs_grads).unwrap(),
        );
    }
}

/// A convolution whose input needs no gradient (the network's first, on
/// the input planes) skips the input's gradient and gives the weight's
/// gradient all the same, also where input and output channels differ.
#[test]
fn weight_gradient_alone_matches_burn() {
    for [n, c, o] in [[3, 5, 4], [2, 4, 4]] {
        let x = random([n, c, 9, 8], 11);
        let weight = random([o, c, 3, 3], 12).require_grad();
        let probe = random([n, o, 9, 8], 13);
        let ours = (conv_same(x.clone(), weight.clone()) * probe.clone()).sum().backward();
        let theirs = (conv2d(x.clone(), weight.clone(), None, ConvOptions::new([1, 1], [1, 1], [1, 1], 1)) * probe)
            .sum()
            .backward();
        assert!(x.grad(&ours).is_none(), "no gradient for an input that asks for none");
        assert_close("weight grad", weight.grad(&ours).unwrap(), weight.grad(&theirs).unwrap());
    }
}

#[test]
fn batch_norm_matches_burn_in_every_form() {
    let [n, c, h, w] = [4, 3, 5, 6];
    for form in 0..3 {
        let x = random([n, c, h, w], 4).require_grad();
        let gamma = random([c], 5).require_grad();
        let beta = random([c], 6).require_grad();
        let residual = random([n, c, h, w], 7).require_grad();
        let probe = random([n, c, h, w], 8);
        let then = match form {
            0 => Then::Nothing,
            1 => Then::Relu,
            _ => Then::AddRelu(residual.clone()),
        };
        let ours = batch_norm(x.clone(), gamma.clone(), beta.clone(), 1e-5, then);
        let reference = batch_norm_train(x.clone(), gamma.clone(), beta.clone(), 1e-5);
        let theirs = match form {
            0 => reference.output,
            1 => relu(reference.output),
            _ => relu(reference.output + residual.clone()),
        };
        assert_close("mean", ours.mean, reference.mean);
        assert_close("variance", ours.variance, reference.variance);
        assert_close(&format!("form {form} output"), ours.output.clone(), theirs.clone());
        let ours_grads = (ours.output * probe.clone()).sum().backward();
        let theirs_grads = (theirs * probe).sum().backward();
        assert_close("x grad", x.grad(&ours_grads).unwrap(), x.grad(&theirs_grads).unwrap());
        assert_close("gamma grad", gamma.grad(&ours_grads).unwrap(), gamma.grad(&theirs_grads).unwrap());
        assert_close("beta grad", beta.grad(&ours_grads).unwrap(), beta.grad(&theirs_grads).unwrap());
        if form == 2 {
            assert_close("residual grad", residual.grad(&ours_grads).unwrap(), residual.grad(&theirs_grads).unwrap());
        }
    }
}

/// Without autodiff the kernels still run (inference through the same code).
#[test]
fn kernels_run_without_autodiff() {
    let device = Device::flex();
    let x = Tensor::<4>::ones([1, 2, 3, 3], &device);
    let weight = Tensor::<4>::ones([1, 2, 3, 3], &device);
    let out = conv_same(x, weight).into_data().try_to_vec::<f32>().unwrap();
    // Corner: 2 channels x 4 points on the board; centre: 2 x 9.
    assert_eq!(out, vec![8.0, 12.0, 8.0, 12.0, 18.0, 12.0, 8.0, 12.0, 8.0]);
}
