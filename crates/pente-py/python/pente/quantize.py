"""An int8 copy of a model directory's network for ONNX Runtime:
``python -m pente.quantize MODEL_DIR SAMPLES...``.

ONNX Runtime's static quantization (``onnxruntime.quantization``) of the
directory's ``model.onnx``: weights as int8 with a scale per output channel,
activations as uint8 with ranges calibrated (min-max) on positions of the
toolkit's own samples, in the QDQ format, which ONNX Runtime fuses into
integer convolutions (AVX-512 VNNI where the CPU has it). It writes
``model.int8.onnx`` beside ``model.onnx``, with the network's id in its
metadata (``model_id``, as in ``model.onnx``), and prints how closely it follows the float
network on held-out positions. ``pente`` plays it when given the file as the
model (``--a MODEL_DIR/model.int8.onnx@400``, ``--model ...``) on ONNX
Runtime, and refuses it once the directory holds another network.

    pip install onnxruntime==1.32.0 onnx numpy
    python -m pente.quantize data/models/campaign runs/campaign --positions 1024

Requires: onnxruntime, onnx (its quantizer reads and writes the graph with it),
numpy and this package.
"""

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process

from . import SampleWindow

# pente_nn::onnx::MODEL_ID_KEY: pente refuses a file made from another network
# than its directory's.
MODEL_ID_KEY = "model_id"
OUT_FILE = "model.int8.onnx"
# The input of pente-nn's graph (crates/pente-nn/src/onnx.rs).
INPUT = "features"


class Positions(CalibrationDataReader):
    """The calibration positions, a batch at a time."""

    def __init__(self, planes, batch=64):
        self.batches = iter([planes[i : i + batch] for i in range(0, len(planes), batch)])

    def get_next(self):
        batch = next(self.batches, None)
        return None if batch is None else {INPUT: batch}


def sample_planes(paths, positions, size, features, seed):
    """Input planes of `positions` random samples of `paths` (one board size)."""
    window = SampleWindow([str(p) for p in paths], window=10**9, size=size)
    if len(window) == 0:
        sys.exit(f"error: no samples of a {size}x{size} board in {', '.join(map(str, paths))}")
    rng = np.random.default_rng(seed)
    indices = rng.choice(len(window), size=min(positions, len(window)), replace=False)
    return window.batch(sorted(indices.tolist()), features=features)["features"]


def session(path):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def softmax(logits):
    logits = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(logits)
    return e / e.sum(axis=1, keepdims=True)


def agreement(float_model, int8_model, planes):
    """How closely the int8 network follows the float one on `planes`."""
    (policy, value), (policy8, value8) = (session(m).run(None, {INPUT: planes}) for m in (float_model, int8_model))
    p, q = softmax(policy), softmax(policy8)
    # Win minus loss of the WDL head: the value the search backs up.
    v, v8 = (softmax(x)[:, 0] - softmax(x)[:, 2] for x in (value, value8))
    return {
        "positions": len(planes),
        "policy_top1_agreement": float(np.mean(policy.argmax(1) == policy8.argmax(1))),
        "policy_kl": float(np.mean(np.sum(p * (np.log(p + 1e-12) - np.log(q + 1e-12)), axis=1))),
        "value_mean_abs_diff": float(np.mean(np.abs(v - v8))),
        "value_max_abs_diff": float(np.max(np.abs(v - v8))),
    }


def quantize(model_dir, samples, out=None, positions=1024, held_out=1024, size=19, seed=0):
    """Writes the int8 network of `model_dir` to `out` (default
    MODEL_DIR/model.int8.onnx), calibrated on `positions` samples of
    `samples`; returns its agreement with the float network on `held_out`
    other samples."""
    model_dir = Path(model_dir)
    info = json.loads((model_dir / "model.json").read_text())
    source = model_dir / "model.onnx"
    if not source.is_file():
        sys.exit(f"error: {source}: not found (`pente export` writes it)")
    out = Path(out) if out else model_dir / OUT_FILE
    planes = sample_planes(samples, positions + held_out, size, info["features_version"], seed)
    calibration, test = planes[:positions], planes[positions:]
    tmp, prepared = out.with_name(out.name + ".tmp"), out.with_name(out.name + ".prepared")
    try:
        # Shape inference and graph clean-up, as the quantizer asks (the
        # symbolic pass needs sympy and adds nothing to this graph).
        quant_pre_process(str(source), str(prepared), skip_symbolic_shape=True)
        quantize_static(
            str(prepared),
            str(tmp),
            Positions(calibration),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
        )
    finally:
        prepared.unlink(missing_ok=True)
    graph = onnx.load(str(tmp))
    metadata = {
        MODEL_ID_KEY: info["id"],
        "pente.quantization": "static int8 (QDQ): weights int8 per output channel, activations uint8, min-max ranges",
        "pente.calibration": f"{len(calibration)} positions of {size}x{size} samples (seed {seed})",
    }
    onnx.helper.set_model_props(graph, {**{p.key: p.value for p in graph.metadata_props}, **metadata})
    onnx.save(graph, str(tmp))
    tmp.replace(out)
    return out, (agreement(source, out, test) if len(test) else None)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m pente.quantize", description=__doc__.split("\n\n")[0])
    parser.add_argument("model", type=Path, help="model directory with model.json and model.onnx")
    parser.add_argument("samples", type=Path, nargs="+", help="samples.bin files or run directories")
    parser.add_argument("--out", type=Path, help=f"output file (default MODEL/{OUT_FILE})")
    parser.add_argument("--positions", type=int, default=1024, help="calibration positions (default 1024)")
    parser.add_argument("--held-out", type=int, default=1024, help="other positions for the agreement report")
    parser.add_argument("--size", type=int, default=19, help="board side of the samples used (default 19)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the choice of positions")
    args = parser.parse_args(argv)
    if args.positions < 1 or args.held_out < 0:
        parser.error("--positions must be at least 1 and --held-out at least 0")
    out, report = quantize(args.model, args.samples, args.out, args.positions, args.held_out, args.size, args.seed)
    print(f"wrote {out}")
    if report:
        print(
            f"against the float network on {report['positions']} held-out positions: "
            f"policy top-1 agreement {100 * report['policy_top1_agreement']:.1f} %, "
            f"policy KL {report['policy_kl']:.4f}, value |diff| mean {report['value_mean_abs_diff']:.3f} "
            f"(max {report['value_max_abs_diff']:.3f})"
        )


if __name__ == "__main__":
    main()
