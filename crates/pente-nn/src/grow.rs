//! Growing a trained network into a deeper, wider one that computes the same
//! function (Net2Net, Chen et al. 2016), so that a larger network starts
//! where the smaller one is instead of from random weights.
//!
//! Widening: every old weight keeps its place; the weights that read a new
//! channel into an old one start at zero, so the old channels compute what
//! they did, while the new channels' own weights are random (they break the
//! symmetry, and the zero weights that read them get gradients at once).
//! Deepening: a new residual block starts with its last batch norm's scale
//! and shift at zero, so it adds nothing to the skip connection and passes
//! its (non-negative) input through the final ReLU unchanged.

use burn::module::{Param, RunningState};
use burn::nn::conv::Conv2d;
use burn::nn::{BatchNorm, Linear};
use burn::prelude::*;
use thiserror::Error;

use crate::model::{ConvBn, NetConfig, PenteNet, PoolBlock, ResidualBlock};

/// A shape a network cannot be grown into.
#[derive(Debug, Error, PartialEq)]
pub enum GrowError {
    /// A part of the new shape is smaller than the network's.
    #[error("{part}: {new} is smaller than the network's {old}; a grown network is at least as large everywhere")]
    Smaller {
        /// Which part of the shape.
        part: &'static str,
        /// The network's.
        old: usize,
        /// The one asked for.
        new: usize,
    },
    /// The shape given as the network's is not its shape.
    #[error("{part}: the network has {actual}, not the {given} of the shape given for it")]
    NotTheNetwork {
        /// Which part of the shape.
        part: &'static str,
        /// The network's.
        actual: usize,
        /// The shape's.
        given: usize,
    },
    /// The new shape differs where growing cannot change it.
    #[error("{part}: growing keeps it ({old}), but the new shape has {new}")]
    Fixed {
        /// Which part of the shape.
        part: &'static str,
        /// The network's.
        old: usize,
        /// The one asked for.
        new: usize,
    },
}

/// Where each old index of an axis goes in the grown axis.
type Map = Vec<usize>;

fn identity(n: usize) -> Map {
    (0..n).collect()
}

/// The global pool's `[mean, scaled mean, max]` layout: `count` segments of
/// `old` channels, each segment `new` wide in the grown axis.
fn segments(count: usize, old: usize, new: usize) -> Map {
    (0..count).flat_map(|s| (0..old).map(move |j| s * new + j)).collect()
}

/// `fresh` with `old`'s entries written where `maps` send each axis. With
/// `io = Some((input_axis, output_axis))` the entries that read a new input
/// into an old output are zeroed, so the old outputs do not see the new
/// channels.
fn embed<const D: usize>(fresh: Tensor<D>, old: Tensor<D>, maps: [&Map; D], io: Option<(usize, usize)>) -> Tensor<D> {
    let device = fresh.device();
    let new_dims = fresh.dims();
    let old_dims = old.dims();
    for axis in 0..D {
        debug_assert_eq!(maps[axis].len(), old_dims[axis], "axis {axis}'s map fits the old tensor");
    }
    let mut values = fresh.into_data().convert::<f32>().try_into_vec::<f32>().expect("an f32 tensor");
    let strides = |dims: [usize; D]| {
        let mut strides = [1; D];
        for axis in (0..D.saturating_sub(1)).rev() {
            strides[axis] = strides[axis + 1] * dims[axis + 1];
        }
        strides
    };
    let new_strides = strides(new_dims);
    if let Some((input, output)) = io {
        let mut kept_input = vec![false; new_dims[input]];
        maps[input].iter().for_each(|&i| kept_input[i] = true);
        let mut kept_output = vec![false; new_dims[output]];
        maps[output].iter().for_each(|&i| kept_output[i] = true);
        for (flat, value) in values.iter_mut().enumerate() {
            let at = |axis: usize| flat / new_strides[axis] % new_dims[axis];
            if !kept_input[at(input)] && kept_output[at(output)] {
                *value = 0.0;
            }
        }
    }
    let old_values = old.into_data().convert::<f32>().try_into_vec::<f32>().expect("an f32 tensor");
    let old_strides = strides(old_dims);
    for (flat, value) in old_values.into_iter().enumerate() {
        let target: usize =
            (0..D).map(|axis| maps[axis][flat / old_strides[axis] % old_dims[axis]] * new_strides[axis]).sum();
        values[target] = value;
    }
    Tensor::from_data(TensorData::new(values, new_dims), &device)
}

fn param<const D: usize>(
    fresh: &Param<Tensor<D>>,
    old: &Param<Tensor<D>>,
    maps: [&Map; D],
    io: Option<(usize, usize)>,
) -> Param<Tensor<D>> {
    Param::from_tensor(embed(fresh.val(), old.val(), maps, io))
}

fn grow_conv(fresh: Conv2d, old: &Conv2d, outputs: &Map, inputs: &Map) -> Conv2d {
    let [_, _, kh, kw] = old.weight.dims();
    let weight = param(&fresh.weight, &old.weight, [outputs, inputs, &identity(kh), &identity(kw)], Some((1, 0)));
    let bias = match (&fresh.bias, &old.bias) {
        (Some(new), Some(old)) => Some(param(new, old, [outputs], None)),
        _ => fresh.bias.clone(),
    };
    Conv2d { weight, bias, ..fresh }
}

fn grow_norm(fresh: BatchNorm, old: &BatchNorm, channels: &Map) -> BatchNorm {
    let running = |new: &RunningState<Tensor<1>>, old: &RunningState<Tensor<1>>| {
        RunningState::new(embed(new.value(), old.value(), [channels], None))
    };
    BatchNorm {
        gamma: param(&fresh.gamma, &old.gamma, [channels], None),
        beta: param(&fresh.beta, &old.beta, [channels], None),
        running_mean: running(&fresh.running_mean, &old.running_mean),
        running_var: running(&fresh.running_var, &old.running_var),
        ..fresh
    }
}

fn grow_conv_bn(fresh: ConvBn, old: &ConvBn, outputs: &Map, inputs: &Map) -> ConvBn {
    ConvBn { conv: grow_conv(fresh.conv, &old.conv, outputs, inputs), norm: grow_norm(fresh.norm, &old.norm, outputs) }
}

fn grow_linear(fresh: Linear, old: &Linear, inputs: &Map, outputs: &Map) -> Linear {
    let weight = param(&fresh.weight, &old.weight, [inputs, outputs], Some((0, 1)));
    let bias = match (&fresh.bias, &old.bias) {
        (Some(new), Some(old)) => Some(param(new, old, [outputs], None)),
        _ => fresh.bias.clone(),
    };
    Linear { weight, bias }
}

fn grow_block(fresh: ResidualBlock, old: &ResidualBlock, trunk: &Map) -> ResidualBlock {
    ResidualBlock {
        first: grow_conv_bn(fresh.first, &old.first, trunk, trunk),
        second: grow_conv_bn(fresh.second, &old.second, trunk, trunk),
    }
}

/// A fresh block that starts as the identity: its last batch norm's scale
/// and shift are zero.
fn identity_block(mut fresh: ResidualBlock) -> ResidualBlock {
    let zero = |p: &Param<Tensor<1>>| Param::from_tensor(p.val().zeros_like());
    fresh.second.norm.gamma = zero(&fresh.second.norm.gamma);
    fresh.second.norm.beta = zero(&fresh.second.norm.beta);
    fresh
}

fn grow_pool_block(fresh: PoolBlock, old: &PoolBlock, trunk: &Map) -> PoolBlock {
    // The first convolution's outputs are the regular channels then the
    // pooled ones; each group keeps its old channels at its start.
    let first_outputs: Map = (0..old.regular).chain((0..old.pooled).map(|j| fresh.regular + j)).collect();
    let regular = identity(old.regular);
    PoolBlock {
        first: grow_conv(fresh.first, &old.first, &first_outputs, trunk),
        regular_norm: grow_norm(fresh.regular_norm, &old.regular_norm, &regular),
        pooled_norm: grow_norm(fresh.pooled_norm, &old.pooled_norm, &identity(old.pooled)),
        pooled_to_bias: grow_linear(
            fresh.pooled_to_bias,
            &old.pooled_to_bias,
            &segments(3, old.pooled, fresh.pooled),
            &regular,
        ),
        second: grow_conv_bn(fresh.second, &old.second, trunk, &regular),
        ..fresh
    }
}

/// `net` (of shape `old`) grown into shape `new`, with the new weights
/// drawn on `device` (seed it first for a reproducible result). In
/// inference and in training the grown network gives the outputs `net`
/// gives. The old blocks keep their order and their side of the pooling
/// block; the new ones come after them on each side.
///
/// # Errors
/// If `old` is not `net`'s shape, a part of `new` is smaller than `old`'s,
/// or `new` reads other inputs or has (or lacks) the auxiliary heads `old`
/// lacks (or has).
pub fn grow(net: &PenteNet, old: &NetConfig, new: &NetConfig, device: &Device) -> Result<PenteNet, GrowError> {
    let [channels, in_planes, _, _] = net.stem.conv.weight.dims();
    let [policy_channels, _, _, _] = net.policy_hidden.conv.weight.dims();
    let [value_channels, _, _, _] = net.value_hidden.conv.weight.dims();
    for (part, actual, given) in [
        ("channels", channels, old.channels),
        ("input planes", in_planes, old.in_planes),
        ("blocks", net.blocks.len(), old.blocks),
        ("policy channels", policy_channels, old.policy_channels),
        ("value channels", value_channels, old.value_channels),
        ("value hidden units", net.value_fc.weight.dims()[1], old.value_hidden),
    ] {
        if actual != given {
            return Err(GrowError::NotTheNetwork { part, actual, given });
        }
    }
    let new_pool_after = new.pool_after.min(new.blocks);
    let (old_before, old_after) = (net.pool_after, net.blocks.len() - net.pool_after);
    let (new_before, new_after) = (new_pool_after, new.blocks - new_pool_after);
    let old_regular = old.channels - old.pool_channels;
    let new_regular = new.channels.saturating_sub(new.pool_channels);
    for (part, old, new) in [
        ("channels", old.channels, new.channels),
        ("blocks before the pooling block", old_before, new_before),
        ("blocks after the pooling block", old_after, new_after),
        ("pooled channels", old.pool_channels, new.pool_channels),
        ("regular channels of the pooling block", old_regular, new_regular),
        ("policy channels", old.policy_channels, new.policy_channels),
        ("value channels", old.value_channels, new.value_channels),
        ("value hidden units", old.value_hidden, new.value_hidden),
    ] {
        if new < old {
            return Err(GrowError::Smaller { part, old, new });
        }
    }
    if new.in_planes != old.in_planes {
        return Err(GrowError::Fixed { part: "input planes", old: old.in_planes, new: new.in_planes });
    }
    let (old_aux, new_aux) = (old.aux_heads.unwrap_or(false), new.aux_heads.unwrap_or(false));
    if old_aux != new_aux {
        return Err(GrowError::Fixed { part: "auxiliary heads", old: usize::from(old_aux), new: usize::from(new_aux) });
    }

    let fresh = new.init(device);
    let trunk = identity(old.channels);
    let inputs = identity(old.in_planes);
    let mut old_blocks = net.blocks.iter();
    let blocks = fresh
        .blocks
        .into_iter()
        .enumerate()
        .map(|(i, block)| {
            let kept = if i < new_before { i < old_before } else { i - new_before < old_after };
            match kept.then(|| old_blocks.next()).flatten() {
                Some(old) => grow_block(block, old, &trunk),
                None => identity_block(block),
            }
        })
        .collect();
    let policy = identity(old.policy_channels);
    let value = identity(old.value_channels);
    let hidden = identity(old.value_hidden);
    let aux = match (fresh.aux, &net.aux) {
        (Some(fresh), Some(old)) => Some(crate::model::AuxHeads {
            reply_out: grow_conv(fresh.reply_out, &old.reply_out, &identity(1), &policy),
            ownership_out: grow_conv(fresh.ownership_out, &old.ownership_out, &identity(1), &value),
            captures_out: grow_linear(fresh.captures_out, &old.captures_out, &hidden, &identity(2)),
        }),
        (fresh, _) => fresh,
    };
    Ok(PenteNet {
        stem: grow_conv_bn(fresh.stem, &net.stem, &trunk, &inputs),
        blocks,
        pool_block: grow_pool_block(fresh.pool_block, &net.pool_block, &trunk),
        pool_after: new_pool_after,
        policy_hidden: grow_conv_bn(fresh.policy_hidden, &net.policy_hidden, &policy, &trunk),
        policy_out: grow_conv(fresh.policy_out, &net.policy_out, &identity(1), &policy),
        value_hidden: grow_conv_bn(fresh.value_hidden, &net.value_hidden, &value, &trunk),
        value_fc: grow_linear(
            fresh.value_fc,
            &net.value_fc,
            &segments(3, old.value_channels, new.value_channels),
            &hidden,
        ),
        value_out: grow_linear(fresh.value_out, &net.value_out, &hidden, &identity(3)),
        aux,
    })
}

#[cfg(test)]
mod tests {
    use burn::module::Module;
    use burn::tensor::Distribution;

    use super::*;
    use crate::features::LATEST;

    /// Random batch-norm scales, shifts and running statistics, as a trained
    /// network has, so that growing is tested on more than the initial ones.
    fn trained_looking(norm: &mut BatchNorm) {
        let [c] = norm.gamma.dims();
        let device = norm.gamma.device();
        let draw = |low: f64, high: f64| Tensor::<1>::random([c], Distribution::Uniform(low, high), &device);
        norm.gamma = Param::from_tensor(draw(0.5, 1.5));
        norm.beta = Param::from_tensor(draw(-0.5, 0.5));
        norm.running_mean = RunningState::new(draw(-1.0, 1.0));
        norm.running_var = RunningState::new(draw(0.5, 2.0));
    }

    fn outputs(net: &PenteNet, x: Tensor<4>) -> Vec<f32> {
        let (policy, value, aux) = net.forward_with_aux(x);
        let mut all = vec![policy, value];
        if let Some(aux) = aux {
            all.extend([aux.reply, aux.ownership, aux.captures]);
        }
        all.into_iter().flat_map(|t| t.into_data().try_to_vec::<f32>().unwrap()).collect()
    }

    #[test]
    fn a_grown_network_computes_what_it_grew_from() {
        let _rng = crate::model::DEVICE_RNG.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let device = Device::flex();
        device.seed(5);
        for aux in [false, true] {
            let old = NetConfig::scaled(2, 8).with_aux_heads(Some(aux));
            let mut net = old.init(&device);
            let [first, second] = &mut net.blocks[..] else { unreachable!("two blocks") };
            for norm in [
                &mut net.stem.norm,
                &mut first.first.norm,
                &mut second.second.norm,
                &mut net.pool_block.regular_norm,
                &mut net.pool_block.pooled_norm,
                &mut net.pool_block.second.norm,
                &mut net.policy_hidden.norm,
                &mut net.value_hidden.norm,
            ] {
                trained_looking(norm);
            }
            let new = NetConfig::scaled(5, 16).with_aux_heads(Some(aux));
            let grown = grow(&net, &old, &new, &device).unwrap();
            assert_eq!(grown.num_params(), new.init(&device).num_params(), "the new shape's parameters");
            assert_eq!((grown.blocks.len(), grown.pool_after), (5, 2));
            let x = Tensor::<4>::random([3, LATEST.planes(), 7, 9], Distribution::Normal(0.0, 1.0), &device);
            let before = outputs(&net, x.clone());
            let after = outputs(&grown, x);
            assert_eq!(before.len(), after.len());
            for (i, (a, b)) in before.iter().zip(&after).enumerate() {
                assert!((a - b).abs() <= 1e-4 * (1.0 + a.abs()), "aux {aux}, output {i}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn a_grown_network_trains_like_the_one_it_grew_from() {
        let _rng = crate::model::DEVICE_RNG.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let device = Device::flex().autodiff();
        device.seed(6);
        let old = NetConfig::scaled(2, 8);
        let net = old.init(&device);
        let grown = grow(&net, &old, &NetConfig::scaled(3, 12), &device).unwrap();
        // Batch statistics in training: the old channels see the same batch.
        let x = Tensor::<4>::random([4, LATEST.planes(), 6, 6], Distribution::Normal(0.0, 1.0), &device);
        let before = outputs(&net, x.clone());
        let after = outputs(&grown, x);
        for (a, b) in before.iter().zip(&after) {
            assert!((a - b).abs() <= 1e-4 * (1.0 + a.abs()), "{a} vs {b}");
        }
    }

    #[test]
    fn growing_refuses_a_smaller_or_different_shape() {
        let _rng = crate::model::DEVICE_RNG.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let device = Device::flex();
        let old = NetConfig::scaled(4, 16);
        let net = old.init(&device);
        let narrower = grow(&net, &old, &NetConfig::scaled(6, 8), &device).unwrap_err();
        assert_eq!(narrower, GrowError::Smaller { part: "channels", old: 16, new: 8 });
        let shallower = grow(&net, &old, &NetConfig::scaled(2, 16), &device).unwrap_err();
        assert!(matches!(shallower, GrowError::Smaller { part: "blocks before the pooling block", .. }));
        let other_inputs = grow(&net, &old, &NetConfig::scaled(6, 32).with_in_planes(3), &device).unwrap_err();
        assert!(matches!(other_inputs, GrowError::Fixed { part: "input planes", .. }));
        assert!(narrower.to_string().contains("channels: 8 is smaller than the network's 16"));
        // A shape that is not the network's is refused, not misread.
        let wrong = grow(&net, &NetConfig::scaled(3, 16), &NetConfig::scaled(6, 32), &device).unwrap_err();
        assert_eq!(wrong, GrowError::NotTheNetwork { part: "blocks", actual: 4, given: 3 });
    }
}
