//! Game records (`games.csv`, `games.jsonl`, PGN, move lists) as Python dicts.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use pente_core::{Color, Point, Rules};
use pente_records::{CsvGame, GameRecord, GameResult, ParseError, csv_games, jsonl_games};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::game::rules_of;

/// The formats `read_games` reads.
const FORMATS: &str = "csv, jsonl, pgn, moves";

/// `"white"`, `"black"` or `"draw"`, as `games.csv` writes it.
fn result_name(result: GameResult) -> &'static str {
    result.winner().map_or("draw", Color::name)
}

fn parse_error(path: &Path, error: &ParseError) -> PyErr {
    PyValueError::new_err(format!("{}: {error}", path.display()))
}

fn io_error(path: &Path, error: &std::io::Error) -> PyErr {
    PyOSError::new_err(format!("{}: {error}", path.display()))
}

fn moves_text(moves: &[Point]) -> Vec<String> {
    moves.iter().map(ToString::to_string).collect()
}

/// A `games.csv` row as a dict, with its file's line.
fn csv_dict<'py>(py: Python<'py>, line: usize, game: &CsvGame) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("line", line)?;
    dict.set_item("game_id", game.game_id)?;
    dict.set_item("variant", game.variant.name())?;
    dict.set_item("size", game.size)?;
    dict.set_item("white", &game.white)?;
    dict.set_item("black", &game.black)?;
    dict.set_item("result", result_name(game.result))?;
    dict.set_item("reason", game.reason.name())?;
    dict.set_item("plies", game.plies)?;
    dict.set_item("white_captures", game.white_captures)?;
    dict.set_item("black_captures", game.black_captures)?;
    dict.set_item("moves", game.moves.split_whitespace().collect::<Vec<_>>())?;
    Ok(dict)
}

/// A PGN or move-list record as a dict.
fn record_dict<'py>(py: Python<'py>, record: &GameRecord) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("line", record.line)?;
    dict.set_item("variant", record.rules.variant().name())?;
    dict.set_item("size", record.rules.size())?;
    dict.set_item("result", record.result.map(result_name))?;
    dict.set_item("moves", moves_text(&record.moves))?;
    let headers = PyDict::new(py);
    for (name, value) in &record.headers {
        headers.set_item(name, value)?;
    }
    dict.set_item("headers", headers)?;
    Ok(dict)
}

/// The format of `path` by its name, or by its first characters.
fn guess_format(path: &Path, text: Option<&str>) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("csv") => "csv",
        Some("jsonl") => "jsonl",
        Some("pgn") => "pgn",
        _ if text.is_some_and(|t| t.trim_start_matches('\u{feff}').trim_start().starts_with('[')) => "pgn",
        _ => "moves",
    }
}

/// Reads every game of a file into a list of dicts, checking that each
/// parses (moves are points, fields have their types); `pente validate`
/// checks that they are legal.
///
/// `format`: `"csv"` (`games.csv`), `"jsonl"` (`games.jsonl`), `"pgn"` or
/// `"moves"` (one move list a line, under `variant` and `size`); by default
/// from the file's extension (`.csv`, `.jsonl`, `.pgn`), else PGN if the
/// file starts with a `[` tag, else move lists.
#[pyfunction]
#[pyo3(signature = (path, format = None, *, variant = "pente", size = 19))]
pub fn read_games<'py>(
    py: Python<'py>,
    path: PathBuf,
    format: Option<&str>,
    variant: &str,
    size: u8,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let rules: Rules = rules_of(variant, size)?;
    let open = || File::open(&path).map(BufReader::new).map_err(|e| io_error(&path, &e));
    let format = match format {
        Some(f) => f,
        None if matches!(guess_format(&path, None), "csv" | "jsonl" | "pgn") => guess_format(&path, None),
        None => {
            let text = std::fs::read_to_string(&path).map_err(|e| io_error(&path, &e))?;
            guess_format(&path, Some(&text))
        }
    };
    match format {
        "csv" => {
            let games: Vec<(usize, CsvGame)> =
                py.detach(|| csv_games(open()?).collect::<Result<_, _>>().map_err(|e| parse_error(&path, &e)))?;
            games.iter().map(|(line, game)| csv_dict(py, *line, game)).collect()
        }
        "jsonl" => {
            let games: Vec<(usize, pente_records::JsonGame)> =
                py.detach(|| jsonl_games(open()?).collect::<Result<_, _>>().map_err(|e| parse_error(&path, &e)))?;
            games
                .iter()
                .map(|(line, game)| {
                    let dict = csv_dict(py, *line, &CsvGame::from_json(game))?;
                    dict.set_item("model", &game.model)?;
                    dict.set_item("seed", game.seed)?;
                    dict.set_item("values", game.moves.iter().map(|m| m.value).collect::<Vec<_>>())?;
                    dict.set_item("visits", game.moves.iter().map(|m| m.visits).collect::<Vec<_>>())?;
                    Ok(dict)
                })
                .collect()
        }
        "pgn" | "moves" => {
            let text = std::fs::read_to_string(&path).map_err(|e| io_error(&path, &e))?;
            let records = if format == "pgn" {
                pente_records::parse_pgn(&text)
            } else {
                pente_records::parse_move_list_file(&text, rules)
            }
            .map_err(|e| parse_error(&path, &e))?;
            records.iter().map(|record| record_dict(py, record)).collect()
        }
        other => Err(PyValueError::new_err(format!("unknown format {other:?} (known: {FORMATS})"))),
    }
}
