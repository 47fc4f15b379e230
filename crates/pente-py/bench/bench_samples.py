"""The package's reading and encoding speed beside the Rust figures of
`pente bench samples`, in one run on one file.

    python crates/pente-py/bench/bench_samples.py RUN_DIR [--repeat N] [--pente target/release/pente]

RUN_DIR is a self-play output (samples.bin and games.jsonl). ``--repeat N``
measures a file of its games N times over (written to a temporary
directory), for a file large enough to time.
"""

import argparse
import json
import random
import subprocess
import tempfile
import time
from pathlib import Path

import pente

HEADER = 16  # samples.bin's header; the rest is whole game chunks


def best_of(runs, work):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - start)
    return min(times), result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--pente", default="target/release/pente")
    parser.add_argument("--positions", type=int, default=20000, help="positions encoded for the features figure")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        data = (args.run / "samples.bin").read_bytes()
        path = Path(tmp) / "samples.bin"
        path.write_bytes(data[:HEADER] + data[HEADER:] * args.repeat)
        print(subprocess.run([args.pente, "bench", "samples", str(path)], capture_output=True, text=True, check=True).stdout)

        for name, columns in [("every column", None), ("compact", [])]:
            seconds, read = best_of(3, lambda: pente.read_samples(path, columns=columns))
            n = len(read["ply"])
            print(f"python read_samples, {name}, no features: {n} samples in {seconds:.3f} s = {n / seconds:.0f} samples/s")
            del read
        seconds, chunks = best_of(3, lambda: sum(len(c["ply"]) for c in pente.iter_samples(path, 65536, columns=[])))
        print(f"python iter_samples, compact, chunks of 65536: {chunks / seconds:.0f} samples/s")

        games = [json.loads(line) for line in (args.run / "games.jsonl").read_text().splitlines()]
        rng = random.Random(1)
        positions = []
        while len(positions) < args.positions:
            g = rng.choice(games)
            moves = [m["move"] for m in g["moves"]]
            variant, _, size = g["rules"].partition("/")
            positions.append(pente.Game(variant, int(size or 19), moves[: rng.randrange(len(moves))]))
        seconds, planes = best_of(3, lambda: pente.encode(positions, 2))
        print(f"python encode, features version 2: {len(positions)} positions in {seconds:.3f} s = {len(positions) / seconds:.0f} positions/s, {planes.nbytes / 1e6:.0f} MB")
        window = pente.SampleWindow([path])
        indices = [rng.randrange(len(window)) for _ in range(4096)]
        seconds, _ = best_of(3, lambda: window.batch(indices, features=2, columns=["policy"]))
        print(f"python SampleWindow.batch of 4096 with features version 2 (replay + encode): {4096 / seconds:.0f} samples/s")


if __name__ == "__main__":
    main()
