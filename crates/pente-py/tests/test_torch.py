"""Train in PyTorch, play in Rust: the replica trained on real samples with
`pente train`'s losses, loaded by `pente`, gives the same policy and value."""

import csv
import json
import os
import random
import subprocess
import sys

import numpy as np
import pytest

import pente
from conftest import pente_binary
from test_rules import random_game

if os.environ.get("PENTE_REQUIRE_TORCH"):
    import torch  # noqa: F401  (CI: a missing torch is a failure, not a skip)
else:
    pytest.importorskip("torch")
    pytest.importorskip("safetensors")

from pente import torchnet  # noqa: E402


def engine_evaluations(model_dir, games, backend):
    """`pente engine`'s one-visit answers: the network's priors and value."""
    with pente.Engine(model_dir, backend=backend, binary=str(pente_binary())) as engine:
        return [engine.analyze(game, visits=1, policy=True) for game in games]


def test_a_network_trained_in_pytorch_plays_in_pente(selfplay_run, cli, tmp_path):
    start, out = tmp_path / "start", tmp_path / "torch"
    cli("model", "init", "--out", str(start), "--blocks", "1", "--channels", "8")
    subprocess.run(
        [sys.executable, "-m", "pente.torchnet", "train", str(start), str(selfplay_run), "--out", str(out),
         "--steps", "60", "--batch-size", "32", "--learning-rate", "0.01", "--log-every", "20", "--threads", "1"],
        check=True,
    )
    assert sorted(p.name for p in out.iterdir()) == ["metrics.csv", "model.json", "model.safetensors"]
    with open(out / "metrics.csv") as f:
        rows = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]
    total = [r["policy_loss"] + r["value_loss"] for r in rows]
    assert len(rows) == 60 and np.mean(total[-10:]) < np.mean(total[:10]), "training lowers the loss"
    info = json.loads((out / "model.json").read_text())
    assert info["parent"] == json.loads((start / "model.json").read_text())["id"]

    model, info = torchnet.load_model(out)
    rng = random.Random(5)
    games = [g for g in (random_game("pente", 9, rng, rng.randrange(1, 24)) for _ in range(12)) if not g.is_over]
    policy, value = torchnet.evaluate(model, pente.encode(games, info["features_version"]))
    backends = ["burn"] + (["ort"] if os.environ.get("PENTE_REQUIRE_ORT") else [])
    for backend in backends:
        for game, answer, p, v in zip(games, engine_evaluations(out, games, backend), policy, value):
            assert answer.get("proven") is None and "error" not in answer, answer
            priors = {pente.move_index(c["move"], 9): c["prior"] for c in answer["policy"]}
            np.testing.assert_allclose(
                [priors.get(i, 0.0) for i in range(81)], p, atol=1e-4, err_msg=f"{backend}: {game.move_list()}"
            )
            assert abs(answer["value"] - v) < 1e-4, (backend, game.move_list(), answer["value"], v)


def test_training_refuses_what_it_cannot_read(tmp_path, cli):
    start = tmp_path / "start"
    cli("model", "init", "--out", str(start), "--blocks", "1", "--channels", "8")
    bad = tmp_path / "samples.bin"
    bad.write_bytes(b"not samples")
    done = subprocess.run(
        [sys.executable, "-m", "pente.torchnet", "train", str(start), str(bad), "--out", str(tmp_path / "o")],
        capture_output=True, text=True,
    )
    assert done.returncode != 0 and "samples.bin: not a samples file" in done.stderr
