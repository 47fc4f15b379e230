"""Game records in every format the toolkit writes."""

import pytest

import pente
from conftest import REPO


def test_the_committed_records_read():
    csv_games = pente.read_games(REPO / "data/sample-selfplay/games.csv")
    jsonl_games = pente.read_games(REPO / "data/sample-selfplay/games.jsonl")
    assert len(csv_games) == len(jsonl_games) > 0
    for row, record in zip(csv_games, jsonl_games):
        assert row["moves"] == record["moves"] and row["result"] == record["result"]
        assert len(record["values"]) == len(record["moves"])
        # Every game replays under its rules to the stated end.
        game = pente.Game(row["variant"], row["size"], row["moves"])
        assert game.captures == {"white": row["white_captures"], "black": row["black_captures"]}
        if row["reason"] in ("five", "captures"):
            assert game.winner == row["result"]
    pgn = pente.read_games(REPO / "data/sample-games.pgn")
    assert pgn and all(g["moves"] and g["headers"] for g in pgn)


def test_move_lists_and_data_frames(tmp_path):
    path = tmp_path / "games.txt"
    path.write_text("K10 L9 K7\n1. K10 L10 2. K12\n")
    games = pente.read_games(path, variant="keryo")
    assert [g["moves"] for g in games] == [["K10", "L9", "K7"], ["K10", "L10", "K12"]]
    assert games[0]["variant"] == "keryo" and games[1]["line"] == 2
    pd = pytest.importorskip("pandas")
    frame = pente.games_dataframe(REPO / "data/sample-selfplay/games.csv")
    assert isinstance(frame, pd.DataFrame) and {"result", "moves", "plies"} <= set(frame.columns)


def test_a_bad_row_is_named_by_file_and_line(tmp_path):
    good = (REPO / "data/sample-selfplay/games.csv").read_text().splitlines()
    bad = tmp_path / "games.csv"
    bad.write_text("\n".join(good[:3] + ["1,pente,19,a,b,nobody,five,3,0,0,K10 L9 K7"]) + "\n")
    with pytest.raises(ValueError, match=r"games\.csv: line 4"):
        pente.read_games(bad)
    with pytest.raises(OSError, match="missing.csv"):
        pente.read_games(tmp_path / "missing.csv")
    with pytest.raises(ValueError, match="unknown format"):
        pente.read_games(bad, "xml")
