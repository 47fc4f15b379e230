"""The input planes are the ones `pente` feeds its networks."""

import json
import random

import numpy as np
import pytest

import pente
from test_rules import random_game


@pytest.mark.parametrize("version", pente.FEATURES_VERSIONS)
def test_features_equal_the_rust_encoder(version, cli):
    rng = random.Random(version)
    for variant, size in [("pente", 19), ("keryo", 13), ("g-pente", 19), ("connect6", 9), ("swap2-pente", 19)]:
        for plies in (0, 3, 12, 40):
            game = random_game(variant, size, rng, plies)
            report = json.loads(
                cli(
                    "replay", "--variant", variant, "--size", str(size),
                    "--moves", game.move_list(), "--features", str(version),
                )
            )
            expected = np.array(report["features"], dtype=np.float32).reshape(-1, size, size)
            planes = game.features(version)
            assert planes.dtype == np.float32
            assert planes.shape == (pente.feature_planes(version), size, size)
            np.testing.assert_array_equal(planes, expected, err_msg=f"{variant} {game.move_list()}")


def test_a_batch_is_the_positions_one_by_one():
    rng = random.Random(3)
    games = [random_game("pente", 19, rng, rng.randrange(60)) for _ in range(33)]
    batch = pente.encode(games)
    assert batch.shape == (33, pente.feature_planes(), 19, 19)
    for i, game in enumerate(games):
        np.testing.assert_array_equal(batch[i], game.features())
    # Version 2 begins with version 1's planes.
    np.testing.assert_array_equal(pente.encode(games, 2)[:, :16], pente.encode(games, 1))
    # The legal-move plane is the legal mask.
    np.testing.assert_array_equal(batch[:, pente.LEGAL_PLANE] > 0, np.stack([g.legal_mask() for g in games]))


def test_bad_requests_are_refused():
    with pytest.raises(ValueError, match="features version 9 does not exist"):
        pente.feature_planes(9)
    with pytest.raises(ValueError, match="one board size"):
        pente.encode([pente.Game("pente", 19), pente.Game("pente", 13)])
    assert pente.encode([]).shape[0] == 0
