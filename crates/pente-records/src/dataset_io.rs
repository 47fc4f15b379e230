//! Reading and writing self-play datasets one game at a time: `games.csv`
//! rows and `games.jsonl` lines. Readers stream from any [`BufRead`], one
//! line at a time, so a file of any size is read in constant memory; writers
//! append exactly one line per game, so that line `n + 1` of `games.csv`
//! and line `n` of `games.jsonl` hold game `n - 1` of a run.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, Cursor, Read, Seek, SeekFrom, Write};
use std::path::Path;

use pente_core::Variant;
use serde::Deserialize;
use serde::de::IntoDeserializer;
use serde::de::value::StrDeserializer;

use crate::dataset::{CSV_HEADER, CsvGame, DATASET_SCHEMA, JsonGame};
use crate::error::{Cause, ParseError, ParseErrorKind};
use crate::game_end::GameEnd;
use crate::record::GameResult;

/// Longest excerpt of a bad field quoted in an error, in characters.
const EXCERPT: usize = 80;

/// The UTF-8 byte order mark, which some editors put at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The games of a `games.csv`, read one row at a time from `reader`, with
/// the 1-based line of each row.
///
/// The first non-blank line must be [`CSV_HEADER`]; if it is not, the
/// iterator yields that error and ends. An empty input has no games. Blank
/// lines are skipped. A row is one line: fields are quoted as RFC 4180 says
/// but hold no line breaks (the writer refuses them). A row that does not
/// parse yields an error naming its line and what is wrong, and reading goes
/// on with the next line; an I/O error ends the iteration. A row's moves and
/// board size are checked to parse, not to be legal: that is
/// [`CsvGame::check`].
#[must_use]
pub fn csv_games<R: BufRead>(reader: R) -> CsvGames<R> {
    // One parser for every line: building one costs more than parsing a row.
    // Only `\n` ends a row, so that the parser takes the whole line.
    let parser = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_reader(Cursor::new(Vec::new()));
    CsvGames { input: reader, buf: Vec::new(), line: 0, parser, row: csv::ByteRecord::new(), header: None, done: false }
}

/// Iterator over the rows of a `games.csv`; see [`csv_games`].
#[derive(Debug)]
pub struct CsvGames<R> {
    input: R,
    /// The current line, reused.
    buf: Vec<u8>,
    /// Lines read so far.
    line: usize,
    /// Splits one line into fields. The csv crate's own line numbers skip
    /// blank lines, so lines are read and counted here and parsed one by one.
    parser: csv::Reader<Cursor<Vec<u8>>>,
    /// The fields of the current line, reused.
    row: csv::ByteRecord,
    /// [`CSV_HEADER`] as a record, once the file's header has been checked.
    header: Option<csv::ByteRecord>,
    done: bool,
}

impl<R: BufRead> Iterator for CsvGames<R> {
    type Item = Result<(usize, CsvGame), ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let Some(bytes) = next_line(&mut self.input, &mut self.buf, &mut self.line, &mut self.done) else {
                continue;
            };
            let bytes = match bytes {
                Ok(bytes) => bytes,
                Err(kind) => return Some(Err(kind.at(self.line + 1))),
            };
            if bytes.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let line = self.line;
            if let Err(kind) = split_row(&mut self.parser, bytes, &mut self.row) {
                if self.header.is_none() {
                    self.done = true;
                }
                return Some(Err(kind.at(line)));
            }
            let Some(header) = &self.header else {
                if let Err(kind) = check_header(&self.row) {
                    self.done = true;
                    return Some(Err(kind.at(line)));
                }
                self.header = Some(CSV_HEADER.split(',').collect());
                continue;
            };
            return Some(parse_row(&self.row, header).map(|game| (line, game)).map_err(|kind| kind.at(line)));
        }
        None
    }
}

/// Reads the next line into `buf` and counts it: `None` at the end of the
/// input (`done` is then set), the line without its `\n` or `\r\n` (nor a
/// byte order mark on line 1), or an I/O error (`done` is set, `line` not
/// counted).
fn next_line<'b>(
    input: &mut impl BufRead,
    buf: &'b mut Vec<u8>,
    line: &mut usize,
    done: &mut bool,
) -> Option<Result<&'b [u8], ParseErrorKind>> {
    buf.clear();
    match input.read_until(b'\n', buf) {
        Ok(0) => {
            *done = true;
            None
        }
        Ok(_) => {
            *line += 1;
            let mut bytes = buf.strip_suffix(b"\n").unwrap_or(buf);
            bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
            if *line == 1 {
                bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
            }
            Some(Ok(bytes))
        }
        Err(err) => {
            *done = true;
            Some(Err(ParseErrorKind::Read { source: Cause::new(err) }))
        }
    }
}

/// Splits one line into `row` with `parser`.
fn split_row(
    parser: &mut csv::Reader<Cursor<Vec<u8>>>,
    line: &[u8],
    row: &mut csv::ByteRecord,
) -> Result<(), ParseErrorKind> {
    let input = parser.get_mut();
    input.get_mut().clear();
    input.get_mut().extend_from_slice(line);
    input.get_mut().push(b'\n');
    input.set_position(0);
    // Seeking resets the parser, so each line starts afresh.
    let read = parser.seek(csv::Position::new()).and_then(|()| parser.read_byte_record(row));
    match read {
        Ok(true) if row.iter().any(|field| field.contains(&b'\n')) => {
            Err(ParseErrorKind::BadRow { message: "a quoted field is not closed on this line".into() })
        }
        Ok(true) => Ok(()),
        Ok(false) => Err(ParseErrorKind::BadRow { message: "no fields".into() }),
        Err(err) => Err(ParseErrorKind::Csv { source: Cause::new(err) }),
    }
}

/// Whether `row`, the first of the file, is [`CSV_HEADER`].
fn check_header(row: &csv::ByteRecord) -> Result<(), ParseErrorKind> {
    if row.iter().eq(CSV_HEADER.split(',').map(str::as_bytes)) {
        return Ok(());
    }
    let found: Vec<String> = row.iter().map(|f| String::from_utf8_lossy(f).into_owned()).collect();
    Err(ParseErrorKind::CsvHeader { expected: CSV_HEADER, found: excerpt(&found.join(","), 2 * CSV_HEADER.len()) })
}

/// One data row: the right number of fields, each of its type, moves that
/// parse and a board size the variant has.
fn parse_row(row: &csv::ByteRecord, header: &csv::ByteRecord) -> Result<CsvGame, ParseErrorKind> {
    if row.len() != header.len() {
        return Err(ParseErrorKind::FieldCount { expected: header.len(), found: row.len() });
    }
    let bad_field = |index: usize, source: Cause| ParseErrorKind::BadField {
        column: header.get(index).map(String::from_utf8_lossy).unwrap_or_default().into_owned(),
        value: excerpt(&row.get(index).map(String::from_utf8_lossy).unwrap_or_default(), EXCERPT),
        source,
    };
    let game: CsvGame = row.deserialize(Some(header)).map_err(|err| {
        let located = match err.kind() {
            // Its message without `field N: `: the column is named.
            csv::ErrorKind::Deserialize { err, .. } => err
                .field()
                .and_then(|i| usize::try_from(i).ok())
                .map(|i| (i, Cause::with_message(err.clone(), err.kind().to_string()))),
            _ => None,
        };
        // The csv crate knows the column of a number that does not parse,
        // not of a name that is no variant: look for that one here.
        match located.or_else(|| enum_field_error(row, header)) {
            Some((index, source)) => bad_field(index, source),
            None => ParseErrorKind::Csv { source: Cause::new(err) },
        }
    })?;
    game.rules()?;
    game.points()?;
    Ok(game)
}

/// Why a field does not name a value of its column's enum, `None` if it does.
type EnumCheck = fn(&str) -> Option<Cause>;

/// The first field of an enum column that is not one of its names, and why.
fn enum_field_error(row: &csv::ByteRecord, header: &csv::ByteRecord) -> Option<(usize, Cause)> {
    fn error<T: serde::de::DeserializeOwned>(field: &str) -> Option<Cause> {
        let deserializer: StrDeserializer<'_, serde::de::value::Error> = field.into_deserializer();
        T::deserialize(deserializer).err().map(Cause::new)
    }
    let checks: [(&str, EnumCheck); 3] =
        [("variant", error::<Variant>), ("result", error::<GameResult>), ("reason", error::<GameEnd>)];
    checks.into_iter().find_map(|(column, check)| {
        let index = header.iter().position(|name| name == column.as_bytes())?;
        let field = std::str::from_utf8(row.get(index)?).ok()?;
        check(field).map(|cause| (index, cause))
    })
}

/// The start of `text`, at most `max` characters, marked if cut.
fn excerpt(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}

/// Reads every row of a `games.csv` text.
///
/// # Errors
/// The first [`ParseError`]; use [`csv_games`] to read on past it.
pub fn parse_csv(text: &str) -> Result<Vec<(usize, CsvGame)>, ParseError> {
    csv_games(text.as_bytes()).collect()
}

/// The games of a `games.jsonl`, read one line at a time from `reader`,
/// with their 1-based line numbers. Blank lines are skipped.
///
/// A line that is not a [`JsonGame`] (bad JSON, a missing or unknown field,
/// a bad move, a schema other than 1 to [`DATASET_SCHEMA`]) yields an error
/// naming its line, and reading goes on with the next line; an I/O error
/// ends the iteration. Moves are checked to be points, not to be legal:
/// that is [`JsonGame::check`].
#[must_use]
pub fn jsonl_games<R: BufRead>(reader: R) -> JsonlGames<R> {
    JsonlGames { reader, buf: Vec::new(), line: 0, done: false }
}

/// Iterator over the games of a `games.jsonl`; see [`jsonl_games`].
#[derive(Debug)]
pub struct JsonlGames<R> {
    reader: R,
    /// Reused for every line.
    buf: Vec<u8>,
    /// Lines read so far.
    line: usize,
    done: bool,
}

impl<R: BufRead> Iterator for JsonlGames<R> {
    type Item = Result<(usize, JsonGame), ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let Some(bytes) = next_line(&mut self.reader, &mut self.buf, &mut self.line, &mut self.done) else {
                continue;
            };
            let bytes = match bytes {
                Ok(bytes) => bytes,
                Err(kind) => return Some(Err(kind.at(self.line + 1))),
            };
            let text = match std::str::from_utf8(bytes) {
                Ok(text) => text,
                Err(err) => return Some(Err(ParseErrorKind::NotUtf8 { byte: err.valid_up_to() }.at(self.line))),
            };
            if text.trim().is_empty() {
                continue;
            }
            return Some(parse_json_game(text).map(|game| (self.line, game)).map_err(|kind| kind.at(self.line)));
        }
        None
    }
}

/// Reads every game of a `games.jsonl` text.
///
/// # Errors
/// The first [`ParseError`]; use [`jsonl_games`] to read on past it.
pub fn parse_jsonl(text: &str) -> Result<Vec<(usize, JsonGame)>, ParseError> {
    jsonl_games(text.as_bytes()).collect()
}

/// Only the schema of a JSONL line, to explain a line that a newer schema
/// wrote (it may have fields this version does not know).
#[derive(Deserialize)]
struct SchemaOnly {
    schema: u32,
}

fn parse_json_game(text: &str) -> Result<JsonGame, ParseErrorKind> {
    // serde would also take the fields as an array, in order.
    let start = text.len() - text.trim_start().len();
    if !text[start..].starts_with('{') {
        return Err(ParseErrorKind::NotObject { column: start + 1 });
    }
    match serde_json::from_str::<JsonGame>(text) {
        Ok(game) => {
            check_schema(game.schema)?;
            Ok(game)
        }
        Err(err) => {
            if let Ok(SchemaOnly { schema }) = serde_json::from_str(text) {
                check_schema(schema)?;
            }
            // serde_json ends its messages with the position; the line is ours.
            let message = err.to_string();
            let suffix = format!(" at line {} column {}", err.line(), err.column());
            let message = message.strip_suffix(&suffix).map_or(message.clone(), str::to_string);
            let column = err.column();
            Err(ParseErrorKind::BadJson { source: Cause::with_message(err, message), column })
        }
    }
}

fn check_schema(schema: u32) -> Result<(), ParseErrorKind> {
    match schema {
        0 => Err(ParseErrorKind::SchemaZero),
        s if s > DATASET_SCHEMA => Err(ParseErrorKind::SchemaTooNew { schema, supported: DATASET_SCHEMA }),
        _ => Ok(()),
    }
}

/// Writes [`CSV_HEADER`] and a newline: the first line of a `games.csv`.
///
/// # Errors
/// Those of `w`.
pub fn write_csv_header(w: &mut impl Write) -> io::Result<()> {
    let mut line = String::with_capacity(CSV_HEADER.len() + 1);
    line.push_str(CSV_HEADER);
    line.push('\n');
    w.write_all(line.as_bytes())
}

/// Writes `game` as one `games.csv` row ended by `\n`, fields quoted as
/// RFC 4180 says when they need it. The row goes to `w` in one `write_all`.
///
/// # Errors
/// [`io::ErrorKind::InvalidInput`] if `white`, `black` or `moves` holds a
/// line break (the row would span lines; nothing is written), and those of `w`.
pub fn write_csv_row(w: &mut impl Write, game: &CsvGame) -> io::Result<()> {
    for (column, value) in [("white", &game.white), ("black", &game.black), ("moves", &game.moves)] {
        if value.contains(['\n', '\r']) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("game {}: `{column}` holds a line break; a games.csv row is one line", game.game_id),
            ));
        }
    }
    let mut row = csv::WriterBuilder::new()
        .has_headers(false)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::with_capacity(64 + game.moves.len()));
    row.serialize(game)?;
    let row = row.into_inner().map_err(|err| err.into_error())?;
    w.write_all(&row)
}

/// Writes `game` as one `games.jsonl` line: compact JSON and `\n`, in one
/// `write_all`.
///
/// # Errors
/// [`io::ErrorKind::InvalidInput`] if a move's value or a policy probability
/// is not finite (JSON cannot hold it; nothing is written), and those of `w`.
pub fn write_jsonl_game(w: &mut impl Write, game: &JsonGame) -> io::Result<()> {
    for (i, m) in game.moves.iter().enumerate() {
        let finite = m.value.is_finite() && m.policy.iter().all(|(_, p)| p.is_finite());
        if !finite {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("game {} move {}: a value or policy probability is not finite", game.game_id, i + 1),
            ));
        }
    }
    let mut line = serde_json::to_vec(game)?;
    line.push(b'\n');
    w.write_all(&line)
}

/// Opens a `games.csv` for appending rows, creating it if needed, and
/// writes the header if the file is new or empty.
///
/// # Errors
/// I/O errors, and [`io::ErrorKind::InvalidData`] if the file has another
/// header (another schema) or its last line is cut short (an interrupted
/// write): appending would mix schemas or glue a row onto the broken one.
pub fn open_games_csv(path: &Path) -> io::Result<File> {
    let mut file = open_append(path)?;
    if file.metadata()?.len() == 0 {
        write_csv_header(&mut file)?;
        return Ok(file);
    }
    let mut start = vec![0; CSV_HEADER.len() + 2];
    let mut read = 0;
    while read < start.len() {
        match file.read(&mut start[read..])? {
            0 => break,
            n => read += n,
        }
    }
    let start = &start[..read];
    let start = start.strip_prefix(BOM).unwrap_or(start);
    let first = start.split(|&b| b == b'\n').next().unwrap_or_default();
    if first.strip_suffix(b"\r").unwrap_or(first) != CSV_HEADER.as_bytes() {
        return Err(invalid_file(path, &format!("the first line is not the header `{CSV_HEADER}`")));
    }
    check_complete(&mut file, path)?;
    Ok(file)
}

/// Opens a `games.jsonl` for appending games, creating it if needed.
///
/// # Errors
/// I/O errors, and [`io::ErrorKind::InvalidData`] if its last line is cut
/// short (an interrupted write).
pub fn open_games_jsonl(path: &Path) -> io::Result<File> {
    let mut file = open_append(path)?;
    check_complete(&mut file, path)?;
    Ok(file)
}

fn open_append(path: &Path) -> io::Result<File> {
    OpenOptions::new().read(true).append(true).create(true).open(path)
}

/// Fails if the file is not empty and does not end with a newline.
fn check_complete(file: &mut File, path: &Path) -> io::Result<()> {
    if file.metadata()?.len() == 0 {
        return Ok(());
    }
    file.seek(SeekFrom::End(-1))?;
    let mut last = [0];
    file.read_exact(&mut last)?;
    if last[0] != b'\n' {
        return Err(invalid_file(path, "the last line is incomplete (an interrupted write?); remove it first"));
    }
    Ok(())
}

fn invalid_file(path: &Path, what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("{}: {what}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_the_field_order() {
        let mut w = csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new());
        let game = CsvGame {
            game_id: 0,
            variant: pente_core::Variant::Pente,
            size: 19,
            white: "a".into(),
            black: "b".into(),
            result: crate::GameResult::White,
            reason: crate::GameEnd::Five,
            plies: 0,
            white_captures: 0,
            black_captures: 0,
            moves: String::new(),
        };
        w.serialize(&game).unwrap();
        let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(text.lines().next().unwrap(), CSV_HEADER);
    }

    #[test]
    fn excerpts_cut_long_text() {
        assert_eq!(excerpt("abc", 3), "abc");
        let long = "é".repeat(100);
        assert_eq!(excerpt(&long, EXCERPT), format!("{}...", "é".repeat(EXCERPT)));
    }
}
