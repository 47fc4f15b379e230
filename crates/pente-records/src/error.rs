//! Parse errors: the line and what is wrong there.

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
        "unknown game `{name}` (expected Pente, Keryo-Pente, Gomoku, Free-Pente or Gomoku-Exact, optionally prefixed `Speed`)"
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
}

impl ParseErrorKind {
    /// This error at `line`.
    pub(crate) fn at(self, line: usize) -> ParseError {
        ParseError { line, kind: self }
    }
}
