"""Shared fixtures: the `pente` binary (the Rust side the package is checked
against) and a small self-play run made with it."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def pente_binary() -> Path:
    """`$PENTE_BIN`, else the release or debug build of the workspace."""
    if "PENTE_BIN" in os.environ:
        return Path(os.environ["PENTE_BIN"])
    for profile in ("release", "debug"):
        candidate = REPO / "target" / profile / "pente"
        if candidate.exists():
            return candidate
    found = shutil.which("pente")
    if found:
        return Path(found)
    raise RuntimeError("no pente binary: cargo build --release -p pente-cli, or set PENTE_BIN")


@pytest.fixture(scope="session")
def cli():
    binary = pente_binary()

    def run(*args: str) -> str:
        done = subprocess.run([str(binary), *args], capture_output=True, text=True)
        if done.returncode != 0:
            raise AssertionError(f"pente {' '.join(args)} exited {done.returncode}: {done.stderr}")
        return done.stdout

    return run


SELFPLAY_CONFIG = """
games = 12
seed = 7
threads = 2
games_in_flight = 4
model = "heuristic"

[[rules]]
variant = "pente"
size = 9

[[rules]]
variant = "keryo"
size = 9

[search]
visits = 16
noise = true

[opening]
temperature_plies = 4

[resign]
enabled = false
"""


@pytest.fixture(scope="session")
def selfplay_run(tmp_path_factory, cli):
    """A small self-play run: games.csv, games.jsonl and samples.bin."""
    out = tmp_path_factory.mktemp("selfplay")
    config = out / "selfplay.input.toml"
    config.write_text(SELFPLAY_CONFIG)
    cli("selfplay", "--config", str(config), "--out", str(out / "run"), "--quiet")
    return out / "run"
