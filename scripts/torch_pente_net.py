#!/usr/bin/env python3
"""PyTorch replica of pente-nn's PenteNet (crates/pente-nn/src/model.rs).

Builds the network from a model directory's ``model.json`` and loads its
``model.safetensors`` (burn's export with PyTorch names) with
``load_state_dict(strict=True)``: module names here match the Rust fields.
The auxiliary heads (``aux.*``, an option of new networks that only
training reads) are not built here and their tensors are left out.

Subcommands:
  check MODEL_DIR PROBE_DIR     compare with burn's outputs written by
                                ``cargo run --release -p pente-nn --example probe``
  bench MODEL_DIR [--threads N] forward positions/s at batch 1, 16, 64, 256 on
                                19x19 and one training step at batch 256
  perturb MODEL_DIR OUT_DIR     copy of the model with random batch-norm
                                statistics and affine parameters (model.json +
                                model.safetensors only), so that ``check``
                                exercises every tensor; probe it with
                                ``--safetensors``

Requires: torch, safetensors, numpy.
"""

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from torch import nn

# burn's BatchNormConfig defaults (burn-nn 0.22.1): epsilon 1e-5, momentum 0.1
# (same update convention as PyTorch: running = (1 - m) * running + m * batch).
BN_EPSILON = 1e-5
BN_MOMENTUM = 0.1
# evaluator.rs ILLEGAL_LOGIT
ILLEGAL_LOGIT = -1.0e9


def batch_norm(channels):
    return nn.BatchNorm2d(channels, eps=BN_EPSILON, momentum=BN_MOMENTUM)


class ConvBn(nn.Module):
    """A convolution without bias ('same' padding) followed by batch norm."""

    def __init__(self, inputs, outputs, kernel):
        super().__init__()
        self.conv = nn.Conv2d(inputs, outputs, kernel, padding=kernel // 2, bias=False)
        self.norm = batch_norm(outputs)

    def forward(self, x):
        return self.norm(self.conv(x))


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.first = ConvBn(channels, channels, 3)
        self.second = ConvBn(channels, channels, 3)

    def forward(self, x):
        return F.relu(x + self.second(F.relu(self.first(x))))


def global_pool(x):
    """[B, C, H, W] -> [B, 3C]: mean, mean * (sqrt(H*W) - 14) / 10, max."""
    _, _, h, w = x.shape
    mean = x.mean(dim=(2, 3))
    scaled = mean * ((math.sqrt(h * w) - 14.0) / 10.0)
    return torch.cat([mean, scaled, x.amax(dim=(2, 3))], dim=1)


class PoolBlock(nn.Module):
    def __init__(self, channels, pooled):
        super().__init__()
        assert pooled < channels, "pool_channels must be smaller than channels"
        self.regular = channels - pooled
        self.pooled = pooled
        self.first = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.regular_norm = batch_norm(self.regular)
        self.pooled_norm = batch_norm(pooled)
        self.pooled_to_bias = nn.Linear(3 * pooled, self.regular, bias=False)
        self.second = ConvBn(self.regular, channels, 3)

    def forward(self, x):
        y = self.first(x)
        regular, pooled = y[:, : self.regular], y[:, self.regular :]
        pooled = F.relu(self.pooled_norm(pooled))
        bias = self.pooled_to_bias(global_pool(pooled))[:, :, None, None]
        regular = F.relu(self.regular_norm(regular) + bias)
        return F.relu(x + self.second(regular))


class PenteNet(nn.Module):
    """Features [B, in_planes, H, W] -> policy logits [B, H*W], value (win/draw/loss) logits [B, 3]."""

    def __init__(self, net):
        super().__init__()
        c = net["channels"]
        self.stem = ConvBn(net["in_planes"], c, 3)
        self.blocks = nn.ModuleList(ResidualBlock(c) for _ in range(net["blocks"]))
        self.pool_block = PoolBlock(c, net["pool_channels"])
        self.pool_after = min(net["pool_after"], net["blocks"])
        self.policy_hidden = ConvBn(c, net["policy_channels"], 1)
        self.policy_out = nn.Conv2d(net["policy_channels"], 1, 1)
        self.value_hidden = ConvBn(c, net["value_channels"], 1)
        self.value_fc = nn.Linear(3 * net["value_channels"], net["value_hidden"])
        self.value_out = nn.Linear(net["value_hidden"], 3)

    def forward(self, x):
        b, _, h, w = x.shape
        t = F.relu(self.stem(x))
        for i, block in enumerate(self.blocks):
            if i == self.pool_after:
                t = self.pool_block(t)
            t = block(t)
        if self.pool_after >= len(self.blocks):
            t = self.pool_block(t)
        policy = self.policy_out(F.relu(self.policy_hidden(t))).reshape(b, h * w)
        value = F.relu(self.value_hidden(t))
        value = F.relu(self.value_fc(global_pool(value)))
        return policy, self.value_out(value)


def read_info(model_dir):
    return json.loads((Path(model_dir) / "model.json").read_text())


def load_model(model_dir):
    """The network of a model directory, in eval mode."""
    info = read_info(model_dir)
    model = PenteNet(info["net"])
    tensors = load_file(str(Path(model_dir) / "model.safetensors"))
    model.load_state_dict({k: v for k, v in tensors.items() if not k.startswith("aux.")}, strict=True)
    return model.eval(), info


def read_f32(path, shape):
    return np.fromfile(path, dtype="<f4").reshape(shape)


def cmd_check(args):
    model, info = load_model(args.model)
    probe_dir = Path(args.probe)
    meta = json.loads((probe_dir / "probe.json").read_text())
    arrays = {k: read_f32(probe_dir / meta[k]["file"], meta[k]["shape"]) for k in ("features", "policy", "value")}
    with torch.inference_mode():
        policy, value = model(torch.from_numpy(arrays["features"]))
    dp = float(np.abs(policy.numpy() - arrays["policy"]).max())
    dv = float(np.abs(value.numpy() - arrays["value"]).max())
    print(f"model {info['id']}, {meta['features']['shape'][0]} probe positions")
    print(f"max |policy logit torch - burn| = {dp:.3e}  (max |logit| {np.abs(arrays['policy']).max():.3f})")
    print(f"max |value logit  torch - burn| = {dv:.3e}  (max |logit| {np.abs(arrays['value']).max():.3f})")
    ok = dp <= args.tolerance and dv <= args.tolerance
    print("OK" if ok else f"FAIL: difference above {args.tolerance}")
    return 0 if ok else 1


def cmd_perturb(args):
    info = read_info(args.model)
    tensors = load_file(str(Path(args.model) / "model.safetensors"))
    gen = torch.Generator().manual_seed(args.seed)
    for name, t in tensors.items():
        if name.endswith(".running_var"):
            # Log-uniform in [0.01, 2]: small variances make a wrong epsilon show; the
            # scale (weight) follows sqrt(var) so that activations keep their size.
            var = torch.exp(math.log(0.01) + math.log(200.0) * torch.rand(t.shape, generator=gen))
            tensors[name] = var
            tensors[name[: -len("running_var")] + "weight"] = var.sqrt() * (0.5 + torch.rand(t.shape, generator=gen))
        elif name.endswith(".running_mean") or name.endswith(".bias"):
            tensors[name] = t + 0.1 * torch.randn(t.shape, generator=gen)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    info["id"] = info["id"] + "-perturbed"
    (out / "model.json").write_text(json.dumps(info, indent=2) + "\n")
    save_file({k: v.contiguous() for k, v in tensors.items()}, str(out / "model.safetensors"))
    print(f"wrote {out} (model.json, model.safetensors)")
    return 0


def soft_cross_entropy(logits, target):
    return -(target * F.log_softmax(logits, dim=1)).sum(dim=1).mean()


def cmd_bench(args):
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model, info = load_model(args.model)
    planes, size = info["net"]["in_planes"], args.size
    area = size * size
    print(f"torch {torch.__version__}, model {info['id']} on {size}x{size}, {torch.get_num_threads()} threads")
    print(f"{'batch':>6} {'positions/s':>14} {'ms/batch':>12}")
    for b in args.batch:
        x = torch.randint(0, 2, (b, planes, size, size)).float()
        legal = torch.rand(b, area) > 0.3
        with torch.inference_mode():

            def run():
                policy, value = model(x)
                policy = torch.softmax(policy.masked_fill(~legal, ILLEGAL_LOGIT), dim=1)
                return policy, torch.softmax(value, dim=1)

            run()  # warm-up
            calls, start = 0, time.perf_counter()
            while calls < 2 or time.perf_counter() - start < args.seconds:
                run()
                calls += 1
            elapsed = time.perf_counter() - start
        print(f"{b:>6} {calls * b / elapsed:>14.1f} {1000 * elapsed / calls:>12.2f}")

    # One training step (forward, backward, Adam) at batch 256, as training.rs's losses.
    b = args.train_batch
    model.train()
    optim = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randint(0, 2, (b, planes, size, size)).float()
    legal = torch.rand(b, area) > 0.3
    policy_target = torch.rand(b, area) * legal
    policy_target /= policy_target.sum(dim=1, keepdim=True)
    value_target = F.one_hot(torch.randint(0, 3, (b,)), 3).float()
    times = []
    for step in range(1 + args.train_steps):
        start = time.perf_counter()
        optim.zero_grad(set_to_none=True)
        policy, value = model(x)
        loss = soft_cross_entropy(policy.masked_fill(~legal, ILLEGAL_LOGIT), policy_target) + soft_cross_entropy(
            value, value_target
        )
        loss.backward()
        optim.step()
        loss = float(loss.detach())
        if step > 0:  # the first step is warm-up
            times.append(time.perf_counter() - start)
    t = statistics.median(times)
    print(f"train step batch {b}: {1000 * t:.1f} ms, {b / t:.1f} samples/s (median of {len(times)}, loss {loss:.3f})")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("check", help="compare with burn's probe outputs")
    p.add_argument("model")
    p.add_argument("probe")
    p.add_argument("--tolerance", type=float, default=1e-3)
    p.set_defaults(func=cmd_check)
    p = sub.add_parser("bench", help="forward and training speed")
    p.add_argument("model")
    p.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's choice)")
    p.add_argument("--size", type=int, default=19)
    p.add_argument("--batch", type=int, nargs="+", default=[1, 16, 64, 256])
    p.add_argument("--seconds", type=float, default=3.0, help="seconds per batch size")
    p.add_argument("--train-batch", type=int, default=256)
    p.add_argument("--train-steps", type=int, default=3, help="timed training steps after one warm-up")
    p.set_defaults(func=cmd_bench)
    p = sub.add_parser("perturb", help="copy with random batch-norm statistics")
    p.add_argument("model")
    p.add_argument("out")
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(func=cmd_perturb)
    args = parser.parse_args()
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
