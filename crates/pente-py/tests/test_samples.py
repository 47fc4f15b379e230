"""`samples.bin` read back equal to what `pente selfplay` wrote, with the
targets `pente train` derives."""

import json
from pathlib import Path

import numpy as np
import pytest

import pente


def jsonl_games(run):
    return {g["game_id"]: g for g in map(json.loads, (run / "games.jsonl").read_text().splitlines())}


def test_samples_are_the_positions_and_targets_written(selfplay_run):
    games = jsonl_games(selfplay_run)
    samples = pente.read_samples(selfplay_run / "samples.bin")
    n = len(samples["game_id"])
    assert n > 0 and samples["size"] == 9
    assert samples["board"].shape == (n, 9, 9) and samples["policy"].shape == (n, 81)
    assert set(np.unique(samples["game_id"])) == set(games)
    for i in range(n):
        record = games[int(samples["game_id"][i])]
        moves = [m["move"] for m in record["moves"]]
        ply = int(samples["ply"][i])
        variant = pente.variant_name(int(samples["variant"][i]))
        assert record["rules"] == f"{variant}/9"
        before = pente.Game(variant, 9, moves[:ply])
        np.testing.assert_array_equal(samples["board"][i], before.board())
        assert samples["to_move"][i] == (1 if before.to_move == "white" else -1)
        assert list(samples["captures"][i]) == [before.captures["white"], before.captures["black"]]
        # The policy target: the search's, as games.jsonl has it, to the file's 1/65535.
        target = np.zeros(81, dtype=np.float64)
        for point, p in record["moves"][ply]["policy"]:
            target[pente.move_index(point, 9)] += p
        np.testing.assert_allclose(samples["policy"][i], target / target.sum(), atol=1e-4)
        # The value target is the result for the side to move.
        winner = {"white": 1, "black": -1, "draw": 0}[record["result"]]
        assert samples["result"][i] == winner
        assert samples["value"][i] == winner * samples["to_move"][i]
        # The auxiliary targets: the reply and the last position, seen from the side to move.
        end = pente.Game(variant, 9, moves)
        np.testing.assert_array_equal(samples["ownership"][i], end.board() * samples["to_move"][i])
        # (Pente and Keryo: every move is answered by the opponent.)
        reply = pente.move_index(moves[ply + 1], 9) if ply + 1 < len(moves) else -1
        assert samples["reply"][i] == reply


def test_chunks_add_up_to_the_whole_file(selfplay_run):
    whole = pente.read_samples(selfplay_run / "samples.bin", features=2)
    chunks = list(pente.iter_samples(selfplay_run / "samples.bin", 50, features=2))
    assert len(chunks) > 1
    assert all(len(c["game_id"]) >= 50 for c in chunks[:-1])
    for key, value in whole.items():
        if key == "size":
            continue
        np.testing.assert_array_equal(np.concatenate([c[key] for c in chunks]), value, err_msg=key)
    # The features are each position's planes.
    assert whole["features"].shape == (len(whole["ply"]), pente.feature_planes(2), 9, 9)
    np.testing.assert_array_equal(whole["features"][:, 0] - whole["features"][:, 1], whole["board"] * whole["to_move"][:, None, None])


def test_a_file_cut_short_is_an_error_unless_allowed(selfplay_run, tmp_path):
    data = (selfplay_run / "samples.bin").read_bytes()
    cut = tmp_path / "samples.bin"
    cut.write_bytes(data[:-7])
    with pytest.raises(ValueError, match=r"samples\.bin: byte \d+: the last game is cut short"):
        pente.read_samples(cut)
    whole = pente.read_samples(selfplay_run / "samples.bin")
    kept = pente.read_samples(cut, allow_truncated=True)
    last_game = whole["game_id"][-1]
    assert len(kept["game_id"]) == int((whole["game_id"] != last_game).sum())


def test_bad_files_are_named(tmp_path):
    bad = tmp_path / "notes.bin"
    bad.write_bytes(b"hello, not samples")
    with pytest.raises(ValueError, match=r"notes\.bin: not a samples file"):
        pente.read_samples(bad)
    with pytest.raises(OSError, match="nowhere.bin"):
        pente.read_samples(tmp_path / "nowhere.bin")
    with pytest.raises(ValueError, match="features version 7"):
        pente.read_samples(bad, features=7)
    with pytest.raises(ValueError, match="chunk_size"):
        pente.iter_samples(bad, 0)


def test_the_npz_export_holds_the_same_columns(selfplay_run, cli, tmp_path):
    out = tmp_path / "samples.npz"
    cli("export", "samples", str(selfplay_run), "--out", str(out), "--features", "2")
    compact = tmp_path / "compact.npz"
    cli("export", "samples", str(selfplay_run / "samples.bin"), "--out", str(compact), "--compact")
    for path, read in [
        (out, pente.read_samples(selfplay_run / "samples.bin", features=2)),
        (compact, pente.read_samples(selfplay_run / "samples.bin", columns=[])),
    ]:
        exported = np.load(path)
        assert set(exported.files) == set(read)
        for key, value in read.items():
            np.testing.assert_array_equal(exported[key], value, err_msg=key)
            assert exported[key].dtype == np.asarray(value).dtype or key == "size", key


def test_compact_columns_hold_the_same_targets(selfplay_run):
    whole = pente.read_samples(selfplay_run / "samples.bin")
    compact = pente.read_samples(selfplay_run / "samples.bin", columns=[])
    assert not {"board", "ownership", "policy"} & set(compact)
    for key in ("game_id", "ply", "to_move", "captures", "value", "result", "reply", "final_captures"):
        np.testing.assert_array_equal(compact[key], whole[key], err_msg=key)
    offsets, moves, probs = compact["policy_offsets"], compact["policy_moves"], compact["policy_probs"]
    assert len(offsets) == len(whole["ply"]) + 1 and offsets[-1] == len(moves) == len(probs)
    dense = np.zeros_like(whole["policy"])
    for i in range(len(offsets) - 1):
        np.add.at(dense[i], moves[offsets[i]:offsets[i + 1]], probs[offsets[i]:offsets[i + 1]])
    np.testing.assert_array_equal(dense, whole["policy"])
    only_board = pente.read_samples(selfplay_run / "samples.bin", columns=["board"])
    np.testing.assert_array_equal(only_board["board"], whole["board"])
    with pytest.raises(ValueError, match='unknown column "features"'):
        pente.read_samples(selfplay_run / "samples.bin", columns=["features"])


def test_a_window_serves_the_samples_it_holds(selfplay_run):
    whole = pente.read_samples(selfplay_run / "samples.bin", features=2)
    window = pente.SampleWindow([selfplay_run], window=100)
    assert len(window) == 100 and window.size == 9
    # The newest 100 samples, in the file's order.
    picked = [99, 0, 50, 50]
    batch = window.batch(picked, features=2)
    rows = [len(whole["ply"]) - 100 + i for i in picked]
    for key, value in batch.items():
        if key != "size":
            np.testing.assert_array_equal(value, whole[key][rows], err_msg=key)
    with pytest.raises(IndexError, match="sample 100 of a window of 100"):
        window.batch([100])


STORE_SELFPLAY = """
games = 8
seed = 2
threads = 1
games_in_flight = 4
model = "the store's current model"

[[rules]]
variant = "pente"
size = 9

[search]
visits = 8
"""


def test_a_stores_chunks_read_as_samples(cli, tmp_path):
    model, store = tmp_path / "model", tmp_path / "store"
    (tmp_path / "selfplay.toml").write_text(STORE_SELFPLAY)
    cli("model", "init", "--out", str(model), "--blocks", "1", "--channels", "8")
    cli("store", "init", "--store", str(store), "--model", str(model), "--config", str(tmp_path / "selfplay.toml"))
    cli("worker", "--store", str(store), "--id", "w1", "--games", "8", "--chunk-games", "4",
        "--work", str(tmp_path / "work"), "--quiet", "--backend", "burn")
    chunks = pente.store_chunks(str(store))
    assert [(c["worker"], c["index"], c["games"]) for c in chunks] == [("w1", 0, 4), ("w1", 1, 4)]
    window = pente.SampleWindow([c["path"] for c in chunks])
    assert len(window) == sum(c["samples"] for c in chunks) > 0
    assert sum(len(pente.read_games(Path(c["path"]) / "games.csv")) for c in chunks) == 8
    # A chunk whose samples were cut is set aside and left out, with the reason.
    broken = Path(chunks[1]["path"]) / "samples.bin"
    broken.write_bytes(broken.read_bytes()[:-5])
    assert [c["index"] for c in pente.store_chunks(str(store))] == [0]
    assert "samples.bin" in pente.set_aside(str(store))[0]["reason"]
    with pytest.raises(ValueError, match="no store here"):
        pente.store_chunks(str(tmp_path / "nothing"))


def test_a_file_of_two_sizes_is_read_one_size_at_a_time():
    from conftest import REPO

    path = REPO / "data/sample-samples/samples.bin"
    with pytest.raises(ValueError, match=r"19x19 board, the file's first on 13x13.*size="):
        pente.read_samples(path)
    small = pente.read_samples(path, size=13, columns=[])
    large = pente.read_samples(path, size=19, columns=[])
    assert small["size"] == 13 and large["size"] == 19
    assert len(small["ply"]) + len(large["ply"]) == 26756
