//! The network: a residual tower with a global-pooling block, a fully
//! convolutional policy head and a win/draw/loss value head.

use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::prelude::*;
use burn::tensor::activation::relu;
use pente_kernels::Then;

use crate::features::Features;

/// Shape of a network. Saved as JSON next to its weights.
#[derive(Config, Debug, PartialEq)]
pub struct NetConfig {
    /// Input planes: they say which input encoding the network reads
    /// ([`Features::with_planes`]); the default is the latest's
    /// ([`crate::features::LATEST`]).
    #[config(default = 26)]
    pub in_planes: usize,
    /// Channels of the residual tower.
    #[config(default = 64)]
    pub channels: usize,
    /// Plain residual blocks.
    #[config(default = 6)]
    pub blocks: usize,
    /// The global-pooling block comes after this many plain blocks.
    #[config(default = 3)]
    pub pool_after: usize,
    /// Channels of the global-pooling block that are pooled.
    #[config(default = 16)]
    pub pool_channels: usize,
    /// Channels of the policy head's hidden 1x1 convolution.
    #[config(default = 32)]
    pub policy_channels: usize,
    /// Channels of the value head's 1x1 convolution, pooled over the board.
    #[config(default = 32)]
    pub value_channels: usize,
    /// Hidden units of the value head.
    #[config(default = 64)]
    pub value_hidden: usize,
    /// Whether the network has the auxiliary heads ([`AuxHeads`]), which
    /// only training reads. `None` (networks saved before they existed) is
    /// `false`.
    pub aux_heads: Option<bool>,
}

impl NetConfig {
    /// A `blocks` x `channels` tower with the pooling block in the middle and
    /// heads scaled to the width.
    #[must_use]
    pub fn scaled(blocks: usize, channels: usize) -> NetConfig {
        NetConfig::new()
            .with_blocks(blocks)
            .with_channels(channels)
            .with_pool_after(blocks / 2)
            .with_pool_channels((channels / 4).max(1))
            .with_policy_channels((channels / 2).max(2))
            .with_value_channels((channels / 2).max(2))
            .with_value_hidden(channels.max(8))
    }

    /// The input encoding it reads, if its `in_planes` is one's.
    #[must_use]
    pub fn features(&self) -> Option<Features> {
        Features::with_planes(self.in_planes)
    }

    /// A fresh network with random weights on `device`.
    ///
    /// # Panics
    /// If `pool_channels` is not smaller than `channels`, or `in_planes` is
    /// no encoding's.
    #[must_use]
    pub fn init(&self, device: &Device) -> PenteNet {
        assert!(self.features().is_some(), "no input encoding has {} planes", self.in_planes);
        let c = self.channels;
        PenteNet {
            stem: ConvBn::new(self.in_planes, c, 3, device),
            blocks: (0..self.blocks).map(|_| ResidualBlock::new(c, device)).collect(),
            pool_block: PoolBlock::new(c, self.pool_channels, device),
            pool_after: self.pool_after.min(self.blocks),
            policy_hidden: ConvBn::new(c, self.policy_channels, 1, device),
            policy_out: Conv2dConfig::new([self.policy_channels, 1], [1, 1]).init(device),
            value_hidden: ConvBn::new(c, self.value_channels, 1, device),
            value_fc: LinearConfig::new(3 * self.value_channels, self.value_hidden).init(device),
            value_out: LinearConfig::new(self.value_hidden, 3).init(device),
            aux: self.aux_heads.unwrap_or(false).then(|| AuxHeads::new(self, device)),
        }
    }
}

/// Heads that give training more to learn from than the move and the
/// result (KataGo's auxiliary targets): the opponent's reply, who holds
/// each point at the end of the game and the captures each side ends with.
/// Play never runs them, and the ONNX export leaves them out.
#[derive(Module, Debug)]
pub struct AuxHeads {
    /// The opponent's reply to the move played, from the policy head's hidden layer.
    pub(crate) reply_out: Conv2d,
    /// Final ownership of each point, from the value head's hidden layer.
    pub(crate) ownership_out: Conv2d,
    /// Final captures of the side to move and of the opponent, from the
    /// value head's pooled hidden units.
    pub(crate) captures_out: Linear,
}

impl AuxHeads {
    fn new(config: &NetConfig, device: &Device) -> AuxHeads {
        AuxHeads {
            reply_out: Conv2dConfig::new([config.policy_channels, 1], [1, 1]).init(device),
            ownership_out: Conv2dConfig::new([config.value_channels, 1], [1, 1]).init(device),
            captures_out: LinearConfig::new(config.value_hidden, 2).init(device),
        }
    }
}

/// What the auxiliary heads predict, for training.
#[derive(Debug, Clone)]
pub struct AuxOutputs {
    /// Logits of the opponent's reply `[B, H*W]`.
    pub reply: Tensor<2>,
    /// Final ownership of each point `[B, H*W]`, in -1 (the opponent's
    /// stone) to 1 (a stone of the side to move).
    pub ownership: Tensor<2>,
    /// Final captured stones of the side to move and of the opponent, as
    /// fractions of the stones that win `[B, 2]`.
    pub captures: Tensor<2>,
}

/// A convolution without bias followed by batch norm.
#[derive(Module, Debug)]
pub struct ConvBn {
    pub(crate) conv: Conv2d,
    pub(crate) norm: BatchNorm,
}

impl ConvBn {
    fn new(inputs: usize, outputs: usize, kernel: usize, device: &Device) -> ConvBn {
        ConvBn {
            conv: Conv2dConfig::new([inputs, outputs], [kernel, kernel])
                .with_padding(PaddingConfig2d::Same)
                .with_bias(false)
                .init(device),
            norm: BatchNormConfig::new(outputs).init(device),
        }
    }

    fn forward(&self, x: Tensor<4>, then: Then) -> Tensor<4> {
        batch_norm(&self.norm, conv(&self.conv, x), then)
    }
}

/// A bias-free "same" convolution, on `pente_kernels` where they run.
fn conv(conv: &Conv2d, x: Tensor<4>) -> Tensor<4> {
    debug_assert!(conv.bias.is_none(), "the tower's convolutions have no bias");
    if pente_kernels::supports(&x.device(), x.dtype()) {
        pente_kernels::conv_same(x, conv.weight.val())
    } else {
        conv.forward(x)
    }
}

/// `norm` followed by `then`. A batch norm that trains, on a device and
/// dtype where `pente_kernels` run, runs on them, with the running
/// statistics updated as burn's `BatchNorm::forward` updates them; any
/// other runs on burn's.
fn batch_norm(norm: &BatchNorm, x: Tensor<4>, then: Then) -> Tensor<4> {
    let device = x.device();
    if !(device.is_autodiff() && norm.training.is_enabled() && pente_kernels::supports(&device, x.dtype())) {
        return then.apply(norm.forward(x));
    }
    let result = pente_kernels::batch_norm(x, norm.gamma.val(), norm.beta.val(), norm.epsilon, then);
    let update = |running: Tensor<1>, batch: Tensor<1>| {
        running
            .to_device(&device)
            .mul_scalar(1.0 - norm.momentum)
            .add(batch.detach().mul_scalar(norm.momentum))
            .detach()
    };
    norm.running_mean.update(update(norm.running_mean.value_sync(), result.mean));
    norm.running_var.update(update(norm.running_var.value_sync(), result.variance));
    result.output
}

/// Two 3x3 convolutions and a skip connection.
#[derive(Module, Debug)]
pub struct ResidualBlock {
    pub(crate) first: ConvBn,
    pub(crate) second: ConvBn,
}

impl ResidualBlock {
    fn new(channels: usize, device: &Device) -> ResidualBlock {
        ResidualBlock {
            first: ConvBn::new(channels, channels, 3, device),
            second: ConvBn::new(channels, channels, 3, device),
        }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let y = self.first.forward(x.clone(), Then::Relu);
        self.second.forward(y, Then::AddRelu(x))
    }
}

/// Mean, size-scaled mean and max over the board: `[B, C, H, W]` to `[B, 3C]`
/// (KataGo's pooling; the scale lets one network tell board sizes apart).
fn global_pool(x: Tensor<4>) -> Tensor<2> {
    let [b, c, h, w] = x.dims();
    let mean = x.clone().mean_dims(&[2, 3]).reshape([b, c]);
    let scaled = mean.clone().mul_scalar((((h * w) as f64).sqrt() - 14.0) / 10.0);
    let max = x.max_dims(&[2, 3]).reshape([b, c]);
    Tensor::cat(vec![mean, scaled, max], 1)
}

/// A residual block whose first convolution's last channels are pooled over
/// the board and turned into a bias of the others: whole-board context
/// (capture counts, threats far away) in one step.
#[derive(Module, Debug)]
pub struct PoolBlock {
    pub(crate) first: Conv2d,
    pub(crate) regular_norm: BatchNorm,
    pub(crate) pooled_norm: BatchNorm,
    pub(crate) pooled_to_bias: Linear,
    pub(crate) second: ConvBn,
    pub(crate) regular: usize,
    pub(crate) pooled: usize,
}

impl PoolBlock {
    fn new(channels: usize, pooled: usize, device: &Device) -> PoolBlock {
        assert!(pooled < channels, "pool_channels must be smaller than channels");
        let regular = channels - pooled;
        PoolBlock {
            first: Conv2dConfig::new([channels, channels], [3, 3])
                .with_padding(PaddingConfig2d::Same)
                .with_bias(false)
                .init(device),
            regular_norm: BatchNormConfig::new(regular).init(device),
            pooled_norm: BatchNormConfig::new(pooled).init(device),
            pooled_to_bias: LinearConfig::new(3 * pooled, regular).with_bias(false).init(device),
            second: ConvBn::new(regular, channels, 3, device),
            regular,
            pooled,
        }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let [b, _, _, _] = x.dims();
        let y = conv(&self.first, x.clone());
        let regular = batch_norm(&self.regular_norm, y.clone().narrow(1, 0, self.regular), Then::Nothing);
        let pooled = batch_norm(&self.pooled_norm, y.narrow(1, self.regular, self.pooled), Then::Relu);
        let bias = self.pooled_to_bias.forward(global_pool(pooled)).reshape([b, self.regular, 1, 1]);
        self.second.forward(relu(regular + bias), Then::AddRelu(x))
    }
}

/// The policy/value network. One set of weights serves every board size.
#[derive(Module, Debug)]
pub struct PenteNet {
    pub(crate) stem: ConvBn,
    pub(crate) blocks: Vec<ResidualBlock>,
    pub(crate) pool_block: PoolBlock,
    pub(crate) pool_after: usize,
    pub(crate) policy_hidden: ConvBn,
    pub(crate) policy_out: Conv2d,
    pub(crate) value_hidden: ConvBn,
    pub(crate) value_fc: Linear,
    pub(crate) value_out: Linear,
    pub(crate) aux: Option<AuxHeads>,
}

impl PenteNet {
    /// The input encoding it reads (from its first convolution's inputs).
    ///
    /// # Panics
    /// Never for a network built by [`NetConfig::init`].
    #[must_use]
    pub fn features(&self) -> Features {
        let planes = self.stem.conv.weight.dims()[1];
        Features::with_planes(planes).expect("a network reads one of the encodings")
    }

    /// The same network reading `features`, a later encoding that begins
    /// with this one's planes: the new planes' weights start at zero, so it
    /// plays exactly as before until training teaches it to use them.
    ///
    /// # Panics
    /// If `features` has fewer planes than the network reads now.
    #[must_use]
    pub fn with_inputs(mut self, features: Features) -> PenteNet {
        let weight = self.stem.conv.weight.val();
        let [out, planes, kh, kw] = weight.dims();
        assert!(features.planes() >= planes, "{features:?} has fewer planes than the network reads");
        let zeros = Tensor::<4>::zeros([out, features.planes() - planes, kh, kw], &weight.device());
        self.stem.conv.weight = burn::module::Param::from_tensor(Tensor::cat(vec![weight, zeros], 1));
        self
    }

    /// `[B, planes, H, W]` features to policy logits `[B, H*W]` (row-major
    /// from `A1`, unmasked) and value logits `[B, 3]` (win, draw, loss for
    /// the side to move).
    pub fn forward(&self, x: Tensor<4>) -> (Tensor<2>, Tensor<2>) {
        let (policy, value, _) = self.forward_heads(x, false);
        (policy, value)
    }

    /// [`Self::forward`] and, when the network has them, the auxiliary
    /// heads' outputs.
    pub fn forward_with_aux(&self, x: Tensor<4>) -> (Tensor<2>, Tensor<2>, Option<AuxOutputs>) {
        self.forward_heads(x, true)
    }

    /// Whether the network has the auxiliary heads.
    #[must_use]
    pub fn has_aux_heads(&self) -> bool {
        self.aux.is_some()
    }

    fn forward_heads(&self, x: Tensor<4>, with_aux: bool) -> (Tensor<2>, Tensor<2>, Option<AuxOutputs>) {
        let [b, _, h, w] = x.dims();
        let mut t = self.stem.forward(x, Then::Relu);
        for (i, block) in self.blocks.iter().enumerate() {
            if i == self.pool_after {
                t = self.pool_block.forward(t);
            }
            t = block.forward(t);
        }
        if self.pool_after >= self.blocks.len() {
            t = self.pool_block.forward(t);
        }
        let policy_hidden = self.policy_hidden.forward(t.clone(), Then::Relu);
        let policy = self.policy_out.forward(policy_hidden.clone()).reshape([b, h * w]);
        let value_hidden = self.value_hidden.forward(t, Then::Relu);
        let pooled = relu(self.value_fc.forward(global_pool(value_hidden.clone())));
        let value = self.value_out.forward(pooled.clone());
        let aux = self.aux.as_ref().filter(|_| with_aux).map(|heads| AuxOutputs {
            reply: heads.reply_out.forward(policy_hidden).reshape([b, h * w]),
            ownership: heads.ownership_out.forward(value_hidden).reshape([b, h * w]).tanh(),
            captures: heads.captures_out.forward(pooled),
        });
        (policy, value, aux)
    }
}

/// The flex device's random generator is shared: a test that seeds it holds
/// this while it draws, so that no other test's draws come between.
#[cfg(test)]
pub(crate) static DEVICE_RNG: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[cfg(test)]
mod tests {
    use burn::tensor::Distribution;

    use super::*;
    use crate::features::LATEST;

    #[test]
    fn new_networks_read_the_latest_encoding() {
        assert_eq!(NetConfig::new().features(), Some(LATEST));
        assert_eq!(NetConfig::scaled(4, 32).features(), Some(LATEST));
    }

    /// Forward and backward through the whole network in training mode, on
    /// `pente_kernels` and on burn's own operations: the same outputs, input
    /// gradient and running statistics.
    #[test]
    fn training_on_kernels_matches_burn() {
        let _rng = DEVICE_RNG.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let device = Device::flex().autodiff();
        let run = |kernels: bool| {
            pente_kernels::set_enabled(kernels);
            device.seed(3);
            let model = NetConfig::scaled(2, 8).init(&device);
            let x =
                Tensor::<4>::random([3, LATEST.planes(), 7, 9], Distribution::Normal(0.0, 1.0), &device).require_grad();
            let policy_probe = Tensor::<2>::random([3, 63], Distribution::Normal(0.0, 1.0), &device);
            let value_probe = Tensor::<2>::random([3, 3], Distribution::Normal(0.0, 1.0), &device);
            let (policy, value) = model.forward(x.clone());
            let loss = (policy.clone() * policy_probe).sum() + (value.clone() * value_probe).sum();
            let grads = loss.backward();
            let data = |t: Tensor<2>| t.into_data().try_to_vec::<f32>().unwrap();
            let x_grad = x.grad(&grads).unwrap().into_data().try_to_vec::<f32>().unwrap();
            let running = model.pool_block.pooled_norm.running_var.value().into_data().try_to_vec::<f32>().unwrap();
            (data(policy), data(value), x_grad, running)
        };
        let ours = run(true);
        let theirs = run(false);
        pente_kernels::set_enabled(true);
        for (what, a, b) in [
            ("policy", &ours.0, &theirs.0),
            ("value", &ours.1, &theirs.1),
            ("input gradient", &ours.2, &theirs.2),
            ("running variance", &ours.3, &theirs.3),
        ] {
            assert_eq!(a.len(), b.len(), "{what}");
            let scale = b.iter().fold(1e-3f32, |m, v| m.max(v.abs()));
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                assert!((x - y).abs() <= 1e-4 * scale, "{what}[{i}]: {x} vs {y}");
            }
        }
    }

    /// A network widened to version 2's inputs gives the same outputs as
    /// before, whatever the new planes hold.
    #[test]
    fn widening_the_inputs_keeps_the_outputs() {
        let _rng = DEVICE_RNG.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let device = Device::flex();
        let old = NetConfig::scaled(2, 8).with_in_planes(Features::V1.planes()).init(&device);
        let x = Tensor::<4>::random([2, Features::V1.planes(), 7, 7], Distribution::Normal(0.0, 1.0), &device);
        let new_planes = Features::V2.planes() - Features::V1.planes();
        let threats = Tensor::<4>::random([2, new_planes, 7, 7], Distribution::Normal(0.0, 1.0), &device);
        let (policy, value) = old.clone().valid().forward(x.clone());
        let wide = old.with_inputs(Features::V2);
        assert_eq!(wide.features(), Features::V2);
        let (wide_policy, wide_value) = wide.valid().forward(Tensor::cat(vec![x, threats], 1));
        let data = |t: Tensor<2>| t.into_data().try_to_vec::<f32>().unwrap();
        for (a, b) in
            data(policy).into_iter().chain(data(value)).zip(data(wide_policy).into_iter().chain(data(wide_value)))
        {
            assert!((a - b).abs() < 1e-5, "{a} vs {b}");
        }
    }
}
