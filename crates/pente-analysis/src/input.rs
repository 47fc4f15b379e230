//! Reading games from `games.csv`, `games.jsonl` and pente.org PGN files,
//! one at a time, as the few facts statistics need.

use std::collections::VecDeque;
use std::error::Error as StdError;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use pente_core::{EndReason, Point, Position, Rules};
use pente_records::{
    Cause, CsvGame, CsvGames, Format, GameEnd, GameRecord, GameResult, JsonGame, JsonlGames, ParseError,
    ParseErrorKind, Termination, csv_games, jsonl_games, pgn_games,
};
use serde::Serialize;
use thiserror::Error;

/// How a game ended, as far as its record tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Ending {
    /// A winning line.
    Five,
    /// The capture threshold.
    Captures,
    /// A full board (a draw).
    Full,
    /// The loser resigned.
    Resign,
    /// The loser forfeited (pente.org: e.g. a turn-based game that timed out).
    Forfeit,
    /// The record gives a result that the moves do not explain (a PGN game
    /// stopped early: time, agreement).
    Unknown,
}

impl Ending {
    fn of(reason: EndReason) -> Ending {
        match reason {
            EndReason::Five => Ending::Five,
            EndReason::Captures => Ending::Captures,
            EndReason::Full => Ending::Full,
        }
    }
}

/// One game as statistics see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSummary {
    /// The rules it was played under.
    pub rules: Rules,
    /// The stones placed, in order, White first; all on the board.
    pub moves: Vec<Point>,
    /// The result; `None` for a game without one (open or unknown).
    pub result: Option<GameResult>,
    /// How it ended.
    pub ending: Ending,
    /// The 1-based line where the game starts in its file (0: not from a file).
    pub line: usize,
}

/// A file, or a record in it, that cannot be read. Displays as
/// `FILE:LINE: what is wrong` (or `FILE: ...` for the whole file).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub struct InputError {
    /// The file.
    pub path: PathBuf,
    /// The 1-based line of the record, if the problem is one record.
    pub line: Option<usize>,
    /// What is wrong, with the text of `source` if there is one.
    pub message: String,
    /// Whether reading the file goes on after this error (a bad record) or
    /// stops (an unreadable file, a bad header).
    pub fatal: bool,
    /// The error behind `message`, if another library reported it: the
    /// I/O or CSV reader's, a record's [`ParseErrorKind`], the
    /// [`pente_core::IllegalMove`] of a replay.
    #[source]
    pub source: Option<Cause>,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl InputError {
    /// The whole file is unusable: `message` says why.
    pub(crate) fn file(path: &Path, message: String) -> InputError {
        InputError { path: path.to_path_buf(), line: None, message, fatal: true, source: None }
    }

    /// The whole file is unusable: `what` failed with `source`.
    pub(crate) fn file_failed(path: &Path, what: &str, source: impl StdError + Send + Sync + 'static) -> InputError {
        InputError::file(path, format!("{what}: {source}")).caused_by(Cause::new(source))
    }

    /// The record at `line` is bad: `message` says why.
    pub(crate) fn record(path: &Path, line: usize, message: String) -> InputError {
        InputError { path: path.to_path_buf(), line: Some(line), message, fatal: false, source: None }
    }

    /// This error with `source` behind it; its message shows the source already.
    pub(crate) fn caused_by(self, source: Cause) -> InputError {
        InputError { source: Some(source), ..self }
    }

    /// A reader's error, `offset` lines into the file. The readers stop
    /// after an I/O error or a bad `games.csv` header.
    fn parse(path: &Path, error: &ParseError, offset: usize) -> InputError {
        let fatal = matches!(error.kind, ParseErrorKind::Read { .. } | ParseErrorKind::CsvHeader { .. });
        let record = InputError::record(path, error.line + offset, error.kind.to_string());
        InputError { fatal, ..record.caused_by(Cause::new(error.kind.clone())) }
    }
}

/// PGN is parsed a chunk of about this many bytes at a time, cut between games.
const PGN_CHUNK: usize = 1 << 20;

/// The games of one file; see [`read_games`].
pub struct Games {
    path: PathBuf,
    inner: Inner,
}

enum Inner {
    Csv(CsvGames<BufReader<File>>),
    Jsonl(JsonlGames<BufReader<File>>),
    Pgn(Box<PgnChunks>),
    Done,
}

impl fmt::Debug for Games {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Games").field("path", &self.path).finish_non_exhaustive()
    }
}

/// Opens a record file and reads its games one at a time.
///
/// The format comes from the extension (`.csv`, `.jsonl`) or else from the
/// first line, as `pente validate` decides: `[` starts a pente.org PGN
/// file, `{` a `games.jsonl`, the `games.csv` header a `games.csv`.
/// Dataset rows are trusted to follow the rules (`pente validate` checks
/// them); PGN games are replayed to learn how they ended, and one whose
/// moves break the rules or contradict its result is a bad record.
///
/// Each item is a game or a bad record, which names the file and line;
/// reading goes on after a bad record unless [`InputError::fatal`] says
/// otherwise. Memory stays bounded: datasets are read a line at a time,
/// PGN a chunk of games at a time.
///
/// # Errors
/// A file that cannot be opened, or is none of the three formats.
pub fn read_games(path: &Path) -> Result<Games, InputError> {
    let file = File::open(path).map_err(|e| InputError::file_failed(path, "cannot open", e))?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let format = match Format::from_extension(path) {
        Some(format) => format,
        None => {
            let start = reader.fill_buf().map_err(|e| InputError::file_failed(path, "cannot read", e))?;
            Format::detect(&String::from_utf8_lossy(start))
        }
    };
    let inner = match format {
        Format::Csv => Inner::Csv(csv_games(reader)),
        Format::Jsonl => Inner::Jsonl(jsonl_games(reader)),
        Format::Pgn => Inner::Pgn(Box::new(PgnChunks::new(reader))),
        _ => {
            return Err(InputError::file(
                path,
                "not a games.csv, games.jsonl or pente.org PGN file (by its name or first line)".into(),
            ));
        }
    };
    Ok(Games { path: path.to_path_buf(), inner })
}

impl Iterator for Games {
    type Item = Result<GameSummary, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        let path = self.path.as_path();
        let item = match &mut self.inner {
            Inner::Csv(rows) => rows.next().map(|row| match row {
                Ok((line, game)) => from_csv(&game, line).map_err(|bad| bad.at(path, line)),
                Err(error) => Err(InputError::parse(path, &error, 0)),
            }),
            Inner::Jsonl(lines) => lines.next().map(|game| match game {
                Ok((line, game)) => from_json(&game, line).map_err(|bad| bad.at(path, line)),
                Err(error) => Err(InputError::parse(path, &error, 0)),
            }),
            Inner::Pgn(chunks) => chunks.next(path),
            Inner::Done => None,
        };
        if let Some(Err(error)) = &item
            && error.fatal
        {
            self.inner = Inner::Done;
        }
        item
    }
}

fn ending_of(reason: GameEnd) -> Ending {
    match reason {
        GameEnd::Five => Ending::Five,
        GameEnd::Captures => Ending::Captures,
        GameEnd::Full => Ending::Full,
        GameEnd::Resign => Ending::Resign,
        GameEnd::Time => Ending::Forfeit,
    }
}

/// Why a record that parsed is no game to count: what is wrong, and the
/// error behind it, if there is one.
struct BadRecord {
    message: String,
    source: Option<Cause>,
}

impl BadRecord {
    fn caused_by(source: impl StdError + Send + Sync + 'static, message: String) -> BadRecord {
        BadRecord { message, source: Some(Cause::new(source)) }
    }

    /// The error of the record at `line` of `path`.
    fn at(self, path: &Path, line: usize) -> InputError {
        InputError { source: self.source, ..InputError::record(path, line, self.message) }
    }
}

impl From<String> for BadRecord {
    fn from(message: String) -> BadRecord {
        BadRecord { message, source: None }
    }
}

fn from_csv(game: &CsvGame, line: usize) -> Result<GameSummary, BadRecord> {
    let bad = |kind: ParseErrorKind| {
        let message = kind.to_string();
        BadRecord::caused_by(kind, message)
    };
    let rules = game.rules().map_err(bad)?;
    let moves = game.points().map_err(bad)?;
    summary(rules, moves, Some(game.result), ending_of(game.reason), line)
}

fn from_json(game: &JsonGame, line: usize) -> Result<GameSummary, BadRecord> {
    let moves = game.moves.iter().map(|m| m.point).collect();
    summary(game.rules, moves, Some(game.result), ending_of(game.reason), line)
}

fn summary(
    rules: Rules,
    moves: Vec<Point>,
    result: Option<GameResult>,
    ending: Ending,
    line: usize,
) -> Result<GameSummary, BadRecord> {
    if let Some((i, p)) = moves.iter().enumerate().find(|&(_, &p)| !p.is_choice() && !rules.contains(p)) {
        let size = rules.size();
        return Err(format!("move {}: {p} is off the {size}x{size} board", i + 1).into());
    }
    Ok(GameSummary { rules, moves, result, ending, line })
}

/// A PGN game: replayed to learn how it ended. A game whose moves break the
/// rules, or whose stated result contradicts them, is an error.
fn from_pgn(record: GameRecord, line: usize) -> Result<GameSummary, BadRecord> {
    let mut position = Position::new(record.rules);
    for (i, &p) in record.moves.iter().enumerate() {
        position
            .play(p)
            .map_err(|e| BadRecord::caused_by(e, format!("move {} is illegal: {e} (see `pente validate`)", i + 1)))?;
    }
    let outcome = position.outcome();
    let (result, ending) = match (record.termination, outcome) {
        (Some(_), Some(outcome)) => {
            return Err(format!("a resignation after the game ended ({outcome})").into());
        }
        (Some(termination), None) => {
            let ending = match termination {
                Termination::Resign { .. } => Ending::Resign,
                Termination::Forfeit { .. } => Ending::Forfeit,
            };
            (Some(GameResult::from_winner(Some(termination.winner()))), ending)
        }
        (None, Some(outcome)) => (Some(GameResult::from_winner(outcome.winner)), Ending::of(outcome.reason)),
        (None, None) => (record.result, Ending::Unknown),
    };
    if let (Some(stated), Some(result)) = (record.result, result)
        && stated != result
    {
        let what = match (outcome, record.termination) {
            (Some(outcome), _) => outcome.to_string(),
            (None, Some(termination)) => termination.to_string(),
            (None, None) => "the game did not end".to_string(),
        };
        return Err(format!("the result {stated} contradicts the moves: {what} (see `pente validate`)").into());
    }
    summary(record.rules, record.moves, result, ending, line)
}

/// A PGN file read a chunk of whole games at a time.
struct PgnChunks {
    reader: BufReader<File>,
    /// Lines read so far.
    lines: usize,
    /// The line that starts the next chunk, read already, and its number.
    pending: Option<(usize, String)>,
    /// Games of the current chunk not yet handed out.
    queue: VecDeque<Result<GameSummary, InputError>>,
    done: bool,
}

impl PgnChunks {
    fn new(reader: BufReader<File>) -> PgnChunks {
        PgnChunks { reader, lines: 0, pending: None, queue: VecDeque::new(), done: false }
    }

    fn next(&mut self, path: &Path) -> Option<Result<GameSummary, InputError>> {
        while self.queue.is_empty() && !self.done {
            self.read_chunk(path);
        }
        self.queue.pop_front()
    }

    /// Reads about [`PGN_CHUNK`] bytes of whole games and parses them into
    /// the queue. A chunk ends before a header line that follows a
    /// non-header line, which is where the PGN reader starts a new game,
    /// so parsing by chunks reads exactly what parsing the whole file would.
    fn read_chunk(&mut self, path: &Path) {
        let mut chunk = String::new();
        let mut first_line = self.lines + 1;
        let mut previous_is_header = false;
        if let Some((line, text)) = self.pending.take() {
            first_line = line;
            previous_is_header = is_header_line(&text);
            chunk.push_str(&text);
        }
        let mut buf = String::new();
        loop {
            buf.clear();
            match self.reader.read_line(&mut buf) {
                Ok(0) => {
                    self.done = true;
                    break;
                }
                Ok(_) => {
                    self.lines += 1;
                    let header = is_header_line(&buf);
                    if header && !previous_is_header && chunk.len() >= PGN_CHUNK {
                        self.pending = Some((self.lines, std::mem::take(&mut buf)));
                        break;
                    }
                    previous_is_header = header;
                    chunk.push_str(&buf);
                }
                Err(e) => {
                    self.done = true;
                    let line = self.lines + 1;
                    // The reader's message would say no more than this.
                    let error = if e.kind() == io::ErrorKind::InvalidData {
                        InputError::record(path, line, "not UTF-8 text".into())
                    } else {
                        InputError::record(path, line, format!("cannot read: {e}")).caused_by(Cause::new(e))
                    };
                    self.parse(&chunk, first_line, path);
                    self.queue.push_back(Err(InputError { fatal: true, ..error }));
                    return;
                }
            }
        }
        self.parse(&chunk, first_line, path);
    }

    fn parse(&mut self, chunk: &str, first_line: usize, path: &Path) {
        let offset = first_line - 1;
        for game in pgn_games(chunk) {
            self.queue.push_back(match game {
                Ok(record) => {
                    let line = record.line + offset;
                    from_pgn(record, line).map_err(|bad| bad.at(path, line))
                }
                Err(error) => Err(InputError::parse(path, &error, offset)),
            });
        }
    }
}

fn is_header_line(line: &str) -> bool {
    line.trim_start().starts_with('[')
}
