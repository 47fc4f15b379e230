"""ONNX Runtime from Python on a model directory's model.onnx: the peer that
`pente bench nn --backend ort` is measured against (same file, threads and
batch sizes).

    pip install onnxruntime==1.32.0 numpy
    python -m pente.onnx_peer bench data/models/default --threads 2

It times `session.run` alone on inputs built beforehand (stones, legal-move
and constant planes set as in real positions), so it measures less work than
the Rust benchmark, which also encodes the positions and masks the policy.
"""
import argparse
import json
import time

import numpy as np
import onnxruntime as ort

def inputs(batch, planes, size, rng):
    # The planes of features version 1; version 2's threat planes stay 0.
    x = np.zeros((batch, planes, size, size), dtype=np.float32)
    stones = rng.random((batch, size, size))
    x[:, 0] = stones < 0.1
    x[:, 1] = (stones >= 0.1) & (stones < 0.2)
    x[:, 2] = 1.0
    x[:, 8] = 1.0
    x[:, 9] = 0.5
    x[:, 11] = stones >= 0.2
    return x


def bench(args):
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(f"{args.model}/model.onnx", options, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(7)
    with open(f"{args.model}/model.json") as f:
        planes = json.load(f)["net"]["in_planes"]
    print(f"python onnxruntime {ort.__version__}, {args.model}/model.onnx on {args.size}x{args.size}, {args.threads} threads")
    print(f"{'batch':>6} {'positions/s':>14} {'ms/batch':>12}")
    for batch in args.batch:
        x = inputs(batch, planes, args.size, rng)
        session.run(None, {"features": x})
        calls, start = 0, time.perf_counter()
        while calls < 2 or time.perf_counter() - start < args.seconds:
            session.run(None, {"features": x})
            calls += 1
        elapsed = time.perf_counter() - start
        print(f"{batch:>6} {calls * batch / elapsed:>14.1f} {1000 * elapsed / calls:>12.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    b = commands.add_parser("bench", help="positions/s of session.run at several batch sizes")
    b.add_argument("model", help="model directory with model.onnx")
    b.add_argument("--threads", type=int, default=2)
    b.add_argument("--size", type=int, default=19)
    b.add_argument("--batch", type=int, nargs="+", default=[1, 16, 64, 256])
    b.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    bench(args)


if __name__ == "__main__":
    main()
