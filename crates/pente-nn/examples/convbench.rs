//! Scratch: forward+backward time of a 3x3 conv, burn's Conv2d vs a
//! shifted-slices + matmul formulation.
use std::time::Instant;

use burn::module::Param;
use burn::nn::PaddingConfig2d;
use burn::nn::conv::Conv2dConfig;
use burn::prelude::*;
use burn::tensor::Distribution;
use burn::tensor::ops::PadMode;

fn im2col_conv(x: Tensor<4>, w: &Tensor<4>) -> Tensor<4> {
    let [b, c, h, wd] = x.dims();
    let [o, _, _, _] = w.dims();
    let xp = x.pad((1, 1, 1, 1), PadMode::Constant(0.0));
    let mut parts = Vec::new();
    for dy in 0..3 {
        for dx in 0..3 {
            parts.push(xp.clone().slice([0..b, 0..c, dy..dy + h, dx..dx + wd]));
        }
    }
    let cols = Tensor::cat(parts, 1).reshape([b, 9 * c, h * wd]);
    let w2 = w.clone().permute([0, 2, 3, 1]).reshape([1, o, 9 * c]);
    w2.matmul(cols).reshape([b, o, h, wd])
}

fn main() {
    let device = pente_nn::cpu().autodiff();
    for (b, c) in [(256usize, 32usize), (256, 64)] {
        let x = Tensor::<4>::random([b, c, 19, 19], Distribution::Normal(0.0, 1.0), &device).require_grad();
        let conv = Conv2dConfig::new([c, c], [3, 3]).with_padding(PaddingConfig2d::Same).with_bias(false).init(&device);
        let w: Param<Tensor<4>> = conv.weight.clone();
        for name in ["burn", "im2col", "burn", "im2col"] {
            let reps = 3;
            let (mut fwd, mut bwd) = (0.0, 0.0);
            let mut check = 0.0;
            for _ in 0..reps {
                let t = Instant::now();
                let y = if name == "burn" { conv.forward(x.clone()) } else { im2col_conv(x.clone(), &w.val()) };
                let loss = (y.clone() * y).mean();
                check = loss.clone().into_scalar::<f32>();
                fwd += t.elapsed().as_secs_f64();
                let t = Instant::now();
                let grads = loss.backward();
                let gw = w.val().grad(&grads).unwrap();
                let _ = gw.into_data();
                bwd += t.elapsed().as_secs_f64();
            }
            println!("b{b} c{c} {name:>7}: forward {:.1} ms, backward {:.1} ms (loss {check:.5})", 1000.0 * fwd / reps as f64, 1000.0 * bwd / reps as f64);
        }
    }
}
