"""PyTorch replica of pente-nn's PenteNet (crates/pente-nn/src/model.rs),
and a trainer for it on the toolkit's samples: ``python -m pente.torchnet``.

Builds the network from a model directory's ``model.json`` and loads its
``model.safetensors`` (burn's export with PyTorch names) with
``load_state_dict(strict=True)``: module names here match the Rust fields.
The auxiliary heads (``aux.*``, an option of new networks that only
training reads) are not built here and their tensors are left out.

Subcommands:
  train MODEL_DIR SAMPLES... --out OUT
                                train the network of MODEL_DIR on samples
                                (samples.bin files or run directories) with
                                ``pente train``'s losses, optimizer and
                                schedule; OUT gets model.json and
                                model.safetensors, which ``pente`` loads and
                                plays, and metrics.csv
  check MODEL_DIR PROBE_DIR     compare with burn's outputs written by
                                ``cargo run --release -p pente-nn --example probe``
  bench MODEL_DIR [--threads N] forward positions/s at batch 1, 16, 64, 256 on
                                19x19 and one training step at batch 256
  perturb MODEL_DIR OUT_DIR     copy of the model with random batch-norm
                                statistics and affine parameters (model.json +
                                model.safetensors only), so that ``check``
                                exercises every tensor; probe it with
                                ``--safetensors``

Requires: torch, safetensors, numpy (and this package for ``train``).
"""

import argparse
import csv
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
# features.rs LEGAL_PLANE: the legal moves (the policy's mask)
LEGAL_PLANE = 11


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


# burn's Adam (burn-optim 0.22.1): betas 0.9 and 0.999, epsilon 1e-5 (PyTorch's
# default is 1e-8), weight decay as an L2 penalty added to the gradient (as
# torch.optim.Adam's weight_decay, not AdamW's).
ADAM_EPSILON = 1e-5


def learning_rate_at(step, args):
    """pente-train's schedule: linear warm-up, then cosine decay to final_fraction of the peak."""
    if step < args.warmup_steps:
        return args.learning_rate * (step + 1) / args.warmup_steps
    span = max(args.steps - args.warmup_steps, 1)
    t = min((step - args.warmup_steps) / span, 1.0)
    floor = args.final_fraction * args.learning_rate
    return floor + (args.learning_rate - floor) * 0.5 * (1.0 + math.cos(math.pi * t))


def symmetry(x, k):
    """One of the board's 8 symmetries on the last two (board) dimensions."""
    x = torch.rot90(x, k % 4, dims=(-2, -1))
    return torch.flip(x, dims=(-1,)) if k >= 4 else x


def batch_tensors(window, indices, version):
    """A batch's input planes, policy targets and win/draw/loss columns (as
    training.rs's Batch), from a ``pente.SampleWindow``."""
    columns = window.batch(indices, features=version, columns=["policy"])
    value = columns["value"]
    wdl = np.where(value > 0, 0, np.where(value < 0, 2, 1))
    return torch.from_numpy(columns["features"]), torch.from_numpy(columns["policy"]), torch.from_numpy(wdl)


def losses(model, features, policy_target, wdl):
    """training.rs's losses: policy cross-entropy over the legal moves, value
    (win/draw/loss) cross-entropy."""
    legal = features[:, LEGAL_PLANE].flatten(1) > 0
    policy, value = model(features)
    policy = policy.masked_fill(~legal, ILLEGAL_LOGIT)
    return soft_cross_entropy(policy, policy_target), F.cross_entropy(value, wdl)


def cmd_train(args):
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    model, info = load_model(args.model)
    if info["net"].get("aux_heads"):
        print("train: the replica has no auxiliary heads; the trained network is written without them", file=sys.stderr)
    import pente

    version = info.get("features_version", 1)
    window = pente.SampleWindow(args.samples, args.window, size=args.size, allow_truncated=True)
    n, size = len(window), window.size
    if n == 0:
        raise SystemExit("train: no samples")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model.train()
    optimizer = torch.optim.Adam(
        model.parameters(), lr=args.learning_rate, eps=ADAM_EPSILON, weight_decay=args.weight_decay
    )
    print(f"train: {info['id']} on {n} samples ({size}x{size}), {args.steps} steps of {args.batch_size}")
    rows, start = [], time.perf_counter()
    for step in range(args.steps):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate_at(step, args)
        x, p, v = batch_tensors(window, rng.integers(0, n, args.batch_size), version)
        p = p.reshape(-1, size, size)
        if args.symmetries:
            turns = torch.from_numpy(rng.integers(0, 8, args.batch_size))
            for k in range(1, 8):
                chosen = turns == k
                if chosen.any():
                    x[chosen], p[chosen] = symmetry(x[chosen], k), symmetry(p[chosen], k)
        policy_loss, value_loss = losses(model, x, p.flatten(1), v)
        loss = policy_loss + args.value_weight * value_loss
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        rows.append((step + 1, policy_loss.item(), value_loss.item(), learning_rate_at(step, args)))
        if (step + 1) % args.log_every == 0 or step + 1 == args.steps:
            rate = (step + 1) * args.batch_size / (time.perf_counter() - start)
            print(f"step {step + 1}: policy loss {rows[-1][1]:.4f}, value loss {rows[-1][2]:.4f}, {rate:.1f} samples/s")
    save_model(model, info, out, args)
    with open(out / "metrics.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["step", "policy_loss", "value_loss", "learning_rate"])
        writer.writerows(rows)
    print(f"wrote {out} (model.json, model.safetensors, metrics.csv)")
    return 0


def save_model(model, info, out, args):
    """model.json and model.safetensors as pente-nn reads them (PyTorch names;
    batch norms' step counters, which burn has not, left out). Each is written
    under a temporary name and renamed."""
    info = dict(info)
    info["net"] = dict(info["net"], aux_heads=False)
    info["parent"] = info["id"]
    info["id"] = args.id or f"{info['id']}-torch{args.steps}"
    info["samples_trained"] = info.get("samples_trained", 0) + args.steps * args.batch_size
    for key in ("elo", "cpu_hours", "iterations"):
        info.pop(key, None)
    tensors = {k: v.detach().contiguous() for k, v in model.state_dict().items() if not k.endswith("num_batches_tracked")}
    save_file(tensors, str(out / "model.safetensors.tmp"), metadata={"model_id": info["id"]})
    (out / "model.safetensors.tmp").replace(out / "model.safetensors")
    (out / "model.json.tmp").write_text(json.dumps(info, indent=2) + "\n")
    (out / "model.json.tmp").replace(out / "model.json")
    for stale in ("model.bpk", "model.onnx"):
        (out / stale).unlink(missing_ok=True)


def evaluate(model, features):
    """The network's evaluation as pente's search sees it: the policy (softmax
    over the legal moves) and the value P(win) - P(loss), for the side to move."""
    with torch.inference_mode():
        features = torch.as_tensor(features)
        legal = features[:, LEGAL_PLANE].flatten(1) > 0
        policy, value = model(features)
        policy = torch.softmax(policy.masked_fill(~legal, ILLEGAL_LOGIT), dim=1)
        wdl = torch.softmax(value, dim=1)
        return policy.numpy(), (wdl[:, 0] - wdl[:, 2]).numpy()


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
    p = sub.add_parser("train", help="train on samples with pente train's losses; write a model pente loads")
    p.add_argument("model", help="the model directory to start from (pente model init makes a fresh one)")
    p.add_argument("samples", nargs="+", help="samples.bin files or directories holding one")
    p.add_argument("--out", required=True, help="directory for model.json, model.safetensors and metrics.csv")
    p.add_argument("--id", help="id of the trained model (default: <start id>-torch<steps>)")
    # Defaults as pente-train's TrainConfig (configs/train.toml).
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--window", type=int, default=250_000, help="the newest samples to draw batches from")
    p.add_argument("--size", type=int, help="the board size to train on, where the samples hold several")
    p.add_argument("--learning-rate", type=float, default=1e-3)
    p.add_argument("--warmup-steps", type=int, default=0)
    p.add_argument("--final-fraction", type=float, default=0.1)
    p.add_argument("--weight-decay", type=float, default=1e-4)
    p.add_argument("--value-weight", type=float, default=1.0)
    p.add_argument("--no-symmetries", dest="symmetries", action="store_false", help="no 8-fold augmentation")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's choice)")
    p.add_argument("--log-every", type=int, default=50)
    p.set_defaults(func=cmd_train)
    args = parser.parse_args()
    try:
        return args.func(args)
    except (ValueError, OSError) as error:
        # The package's errors name the file and what is wrong: say them as a command does.
        raise SystemExit(f"{args.command}: {error}") from None


if __name__ == "__main__":
    sys.exit(main())
