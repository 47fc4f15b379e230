"""The rules as Python sees them agree with `pente replay` (the Rust rules
the toolkit plays by) on random games of every variant."""

import copy
import json
import random

import numpy as np
import pytest

import pente


def random_game(variant: str, size: int, rng: random.Random, plies: int = 90) -> pente.Game:
    game = pente.Game(variant, size)
    while not game.is_over and game.ply < plies:
        game.play(rng.choice(game.legal_moves()))
    return game


def board_rows(game: pente.Game) -> list:
    """The board as `pente replay` prints it: top row first, W, B and '.'."""
    symbols = {1: "W", -1: "B", 0: "."}
    return ["".join(symbols[int(v)] for v in row) for row in game.board()[::-1]]


def sizes_of(variant: str) -> list:
    sizes = []
    for size in (19, 13, 9):
        try:
            pente.Game(variant, size)
            sizes.append(size)
        except ValueError:
            pass
    return sizes


@pytest.mark.parametrize("variant", pente.VARIANTS)
def test_random_games_agree_with_the_rust_rules(variant, cli):
    rng = random.Random(variant)
    sizes = sizes_of(variant)
    assert sizes, f"{variant} has no board size"
    for size in sizes:
        for _ in range(3):
            game = random_game(variant, size, rng)
            report = json.loads(
                cli("replay", "--variant", variant, "--size", str(size), "--moves", game.move_list())
            )
            assert report["plies"] == game.ply
            assert len(game) == game.ply + sum(m in ("swap", "stay", "pass") for m in game.moves)
            assert report["board"] == board_rows(game)
            assert report["captured"] == game.captures
            assert report["to_move"] == game.to_move
            assert report["hash"] == f"{game.hash:016x}"
            assert report["reason"] == game.reason
            expected = None if report["result"] in (None, "draw") else report["result"]
            assert game.winner == expected


def test_an_illegal_move_names_the_move_and_the_rule():
    game = pente.Game("pente", moves="K10 L9")
    # The tournament rule: White's second stone at least three points from the centre.
    with pytest.raises(ValueError, match=r"K9.*move 3"):
        game.play("K9")
    with pytest.raises(ValueError, match="occupied"):
        game.play("L9")
    with pytest.raises(ValueError, match="Z3"):
        game.play("Z3")
    with pytest.raises(ValueError, match="off the 19x19 board"):
        game.play(400)
    assert game.moves == ["K10", "L9"], "a refused move changes nothing"


def test_unknown_variants_and_sizes_are_refused():
    with pytest.raises(ValueError, match="chess"):
        pente.Game("chess")
    with pytest.raises(ValueError):
        pente.Game("pente", 4)


def test_moves_in_every_form_and_the_board_array():
    game = pente.Game("pente", 19)
    game.play("K10")
    game.play((10, 8))  # L9
    game.play(6 * 19 + 9)  # K7 (columns skip I: K is 9)
    assert game.moves == ["K10", "L9", "K7"]
    assert list(game.move_indices()) == [9 * 19 + 9, 8 * 19 + 10, 6 * 19 + 9]
    assert [pente.move_index(m, 19) for m in game.moves] == list(game.move_indices())
    assert [pente.move_name(int(i), 19) for i in game.move_indices()] == game.moves
    board = game.board()
    assert board.dtype == np.int8 and board.shape == (19, 19)
    assert board[9, 9] == 1 and board[8, 10] == -1 and board[6, 9] == 1
    assert int(np.abs(board).sum()) == 3
    mask = game.legal_mask()
    assert mask.shape == (19, 19) and not mask[9, 9] and mask[0, 0]
    assert int(mask.sum()) == len(game.legal_moves())
    assert game[-1] == "K7" and game.to_move == "black"


def test_captures_and_the_end_of_a_game():
    game = pente.Game("pente", moves="K10 L10 N13 M10 N10")
    assert game.captures == {"white": 2, "black": 0}
    assert game.board()[9, 11] == 0, "L10 was captured"
    five = pente.Game("pente", moves="K10 L9 K7 L8 K8 L7 K9 L10 K6")
    assert five.is_over and five.winner == "white" and five.reason == "five"
    assert five.legal_moves() == []


def test_copy_undo_and_move_lists():
    game = pente.Game("keryo", 19, ["K10", "L9"])
    other = game.copy()
    other.play("K7")
    assert len(game) == 2 and len(other) == 3
    deep = copy.deepcopy(other)
    assert deep.moves == other.moves
    assert other.undo() == "K7" and other.moves == game.moves
    assert pente.Game("keryo", 19, other.move_list()).hash == game.hash
    assert pente.Game(moves="1. K10 L9 2. K7").moves == ["K10", "L9", "K7"]
    assert repr(game) == "Game(variant=\"keryo\", size=19, moves=\"K10 L9\")"


def test_colour_choices_are_moves():
    # D-Pente: after four stones the second player chooses a colour.
    game = pente.Game("d-pente", moves="K10 L9 M8 N7")
    assert game.choices and set(game.choices) <= {"swap", "stay", "pass"}
    assert set(game.choices) <= set(game.legal_moves())
    game.play(game.choices[0])
    assert game.choices == []
    assert game.moves[-1] in {"swap", "stay", "pass"}
