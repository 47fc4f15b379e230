"""The engine from Python: `pente engine` behind `pente.Engine`."""

import pytest

import pente
from conftest import pente_binary


def test_the_engine_analyses_and_names_bad_requests():
    with pente.Engine("heuristic", binary=str(pente_binary()), visits=64) as engine:
        # White to move with an open four: the search proves the win.
        game = pente.Game("pente", moves="K10 A1 K13 A3 K12 A5 K11 A7")
        answer = engine.analyze(game)
        assert answer["best_move"] in ("K9", "K14") and answer["proven"] == "win"
        answer = engine.analyze("K10 L9", visits=16, policy=True)
        assert answer["visits"] >= 16 and abs(sum(p["prior"] for p in answer["policy"]) - 1) < 1e-3
        timed = engine.analyze("K10 L9", clock={"remaining": 2.0, "increment": 0.0})
        assert timed["visits"] > 0
        small = engine.analyze([], variant="keryo", size=13, visits=8)
        assert small["best_move"] == "G7", "the first move is on the centre"
        with pytest.raises(ValueError, match="K10"):
            engine.analyze("K10 K10")
        # The engine keeps serving after a bad request.
        assert engine.analyze("K10", visits=8)["best_move"]


def test_an_engine_that_cannot_start_says_why(tmp_path):
    engine = pente.Engine(tmp_path / "no-model", binary=str(pente_binary()), backend="burn")
    with pytest.raises(ValueError, match="no-model"):
        engine.analyze("K10", visits=4)
    engine.close()
    with pytest.raises(FileNotFoundError, match="nowhere"):
        pente.Engine(binary=str(tmp_path / "nowhere"))
