"""Pente self-play datasets, rules and network input features as NumPy arrays.

The rules, the input planes and the readers are the ``pente`` toolkit's own
Rust code (``crates/pente-py``), so what Python sees is what ``pente``
plays, trains on and writes:

>>> import pente
>>> game = pente.Game("pente", moves="K10 L9 K7")
>>> game.to_move
'black'
>>> pente.encode([game]).shape
(1, 26, 19, 19)

``read_samples`` / ``iter_samples`` read ``samples.bin`` into arrays,
``SampleWindow`` serves training batches of a window of samples (input
planes made per batch), ``python -m pente.torchnet train`` trains the
network in PyTorch and writes a model ``pente`` plays,
``read_games`` reads ``games.csv``, ``games.jsonl``, PGN and move lists, and
``store_chunks`` lists a distributed store's chunks as local directories,
``games_dataframe`` puts games into a pandas ``DataFrame`` when pandas is
installed, and ``Engine`` analyses positions with any model directory
through ``pente engine``.
"""

from __future__ import annotations

import os
from typing import Any

from .engine import Engine
from ._pente import (
    FEATURES_VERSIONS,
    LATEST_FEATURES,
    LEGAL_PLANE,
    VARIANTS,
    Game,
    SampleWindow,
    SamplesIter,
    encode,
    feature_planes,
    iter_samples,
    move_index,
    move_name,
    read_games,
    read_samples,
    set_aside,
    store_chunks,
)

__all__ = [
    "Engine",
    "FEATURES_VERSIONS",
    "LATEST_FEATURES",
    "LEGAL_PLANE",
    "VARIANTS",
    "Game",
    "SampleWindow",
    "SamplesIter",
    "encode",
    "feature_planes",
    "games_dataframe",
    "iter_samples",
    "move_index",
    "move_name",
    "read_games",
    "read_samples",
    "set_aside",
    "store_chunks",
    "variant_name",
]


def variant_name(index: int) -> str:
    """The name of a variant by its index (the ``variant`` array of samples)."""
    return VARIANTS[index]


def games_dataframe(path: str | os.PathLike[str], format: str | None = None, **options: Any):
    """The games of a file (as ``read_games`` reads them) as a pandas ``DataFrame``.

    One row a game; ``moves`` holds each game's list of moves. pandas is
    imported here, so the package does not depend on it.
    """
    try:
        import pandas as pd
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError("games_dataframe needs pandas: pip install pandas") from error
    return pd.DataFrame(read_games(path, format, **options))
