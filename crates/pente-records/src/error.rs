//! Parse errors: the line and what is wrong there.

use std::error::Error as StdError;
use std::fmt;
use std::sync::Arc;

use pente_core::{ParsePointError, RulesError};
use thiserror::Error;

/// A record that does not parse: the 1-based line of the file and what is
/// wrong there. Displays as `line 12: ...`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: {kind}")]
pub struct ParseError {
    /// 1-based line number in the file.
    pub line: usize,
    /// What is wrong.
    #[source]
    pub kind: ParseErrorKind,
}

/// What is wrong with a record's text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseErrorKind {
    /// A move-text token that is neither a point, a move number, `Resign`,
    /// `Forfeit` nor a result.
    #[error("move {ply}: `{token}` is not a move ({source})")]
    BadMove {
        /// 1-based number of the stone the token would have placed.
        ply: usize,
        /// The token as written.
        token: String,
        /// Why it is not a point.
        source: ParsePointError,
    },
    /// A move number that does not match the moves before it.
    #[error("move number `{token}` where `{expected}.` was expected")]
    BadMoveNumber {
        /// The token as written.
        token: String,
        /// The number that would fit.
        expected: usize,
    },
    /// A line starting with `[` that is not `[Name "value"]`.
    #[error("bad header `{text}`: expected `[Name \"value\"]`")]
    BadHeader {
        /// The line as written.
        text: String,
    },
    /// A `Game` header naming a game this crate does not play.
    #[error(
        "unknown game `{name}` (expected Pente, Keryo-Pente, Gomoku, Free-Pente, Free-Keryo or Gomoku-Exact, optionally prefixed `Speed`)"
    )]
    UnknownGame {
        /// The header value.
        name: String,
    },
    /// A `Size` header that is not a supported board size.
    #[error("bad board size `{value}`: {source}")]
    BadSize {
        /// The header value.
        value: String,
        /// Why the size is not supported.
        source: RulesError,
    },
    /// A `Result` header that is not a result.
    #[error("bad result `{value}` (expected 1-0, 0-1, 1/2-1/2, * or ?)")]
    BadResult {
        /// The header value.
        value: String,
    },
    /// The result at the end of the moves disagrees with the `Result` header.
    #[error("result `{token}` disagrees with the header [Result \"{header}\"]")]
    ResultMismatch {
        /// The token at the end of the moves.
        token: String,
        /// The header value.
        header: String,
    },
    /// Something after the end of the move list (after the result, or a move
    /// after `Resign`/`Forfeit`).
    #[error("`{token}` after `{end}`: the move list has ended")]
    AfterEnd {
        /// The token as written.
        token: String,
        /// The token that ended the move list.
        end: String,
    },
    /// Move text where a game's headers should start.
    #[error("`{text}`: a game starts with headers such as [Game \"Pente\"]")]
    MissingHeaders {
        /// The start of the line.
        text: String,
    },
    /// A `games.csv` whose first line is not [`crate::CSV_HEADER`].
    #[error("the first line must be the header `{expected}`, found `{found}`")]
    CsvHeader {
        /// The header this crate writes and reads.
        expected: &'static str,
        /// The first line as read (its start, if long).
        found: String,
    },
    /// A `games.csv` row with too few or too many fields.
    #[error("expected {expected} comma-separated fields, found {found}")]
    FieldCount {
        /// The number of columns in the header.
        expected: usize,
        /// The number in this row.
        found: usize,
    },
    /// A `games.csv` line that is not a row of fields.
    #[error("not a CSV row: {message}")]
    BadRow {
        /// What is wrong.
        message: String,
    },
    /// A `games.csv` line that the CSV reader cannot take as a row.
    #[error("not a CSV row: {source}")]
    Csv {
        /// The CSV reader's error.
        source: Cause,
    },
    /// A `games.csv` field that does not hold what its column needs.
    #[error("column `{column}`: `{value}`: {source}")]
    BadField {
        /// The column name.
        column: String,
        /// The field as written (its start, if long).
        value: String,
        /// What is wrong with it: the CSV reader's or serde's error.
        source: Cause,
    },
    /// A `games.jsonl` line that is JSON but not an object (serde would
    /// take an array of the fields in order).
    #[error("not a game object: a line must be a JSON object `{{...}}` (column {column})")]
    NotObject {
        /// 1-based column of the line where the value starts.
        column: usize,
    },
    /// A `games.jsonl` line that is not a game object: bad JSON, a missing
    /// or unknown field, a value of the wrong type.
    #[error("not a game object: {source} (column {column})")]
    BadJson {
        /// serde_json's error; it displays without its position.
        source: Cause,
        /// 1-based column of the line where it noticed.
        column: usize,
    },
    /// A dataset written with a schema version newer than this crate reads.
    #[error("schema {schema} is newer than {supported}, the newest this version of pente reads")]
    SchemaTooNew {
        /// The version in the record.
        schema: u32,
        /// [`crate::DATASET_SCHEMA`].
        supported: u32,
    },
    /// Schema version 0, which no writer uses: versions start at 1.
    #[error("schema 0 does not exist: versions start at 1")]
    SchemaZero,
    /// A line that is not UTF-8 text.
    #[error("not UTF-8 text (byte {byte} of the line)")]
    NotUtf8 {
        /// 0-based offset in the line of the first byte that is not UTF-8.
        byte: usize,
    },
    /// The file could not be read past this line; reading stops here.
    #[error("cannot read: {source}")]
    Read {
        /// The I/O error.
        source: Cause,
    },
}

impl ParseErrorKind {
    /// This error at `line`.
    pub(crate) fn at(self, line: usize) -> ParseError {
        ParseError { line, kind: self }
    }
}

/// An error another library reported (I/O, CSV, JSON), kept as the source
/// of a [`ParseErrorKind`] or of another error that is `Clone` and `Eq`:
/// shared, so that the error stays `Clone`, and equal to a cause that says
/// the same, so that it stays `Eq`.
///
/// It displays as the error it wraps, or as the message it was made with
/// (serde_json's without its position, which would name line 1 of the one
/// line it was given), and stands in for that error in a chain of sources:
/// its own source is the wrapped error's. [`Cause::error`] gives the
/// wrapped error itself, to downcast.
#[derive(Debug, Clone)]
pub struct Cause(Arc<Shared<dyn StdError + Send + Sync>>);

/// A [`Cause`]'s error and message, behind one pointer.
#[derive(Debug)]
struct Shared<E: ?Sized> {
    message: String,
    error: E,
}

impl Cause {
    /// Wraps `error`, displayed as it displays itself.
    pub fn new(error: impl StdError + Send + Sync + 'static) -> Cause {
        let message = error.to_string();
        Cause::with_message(error, message)
    }

    /// Wraps `error`, displayed as `message`.
    pub(crate) fn with_message(error: impl StdError + Send + Sync + 'static, message: String) -> Cause {
        Cause(Arc::new(Shared { message, error }))
    }

    /// The wrapped error, e.g. to downcast to [`std::io::Error`].
    #[must_use]
    pub fn error(&self) -> &(dyn StdError + Send + Sync + 'static) {
        &self.0.error
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl StdError for Cause {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.0.error.source()
    }
}

impl PartialEq for Cause {
    fn eq(&self, other: &Cause) -> bool {
        self.0.message == other.0.message
    }
}

impl Eq for Cause {}
