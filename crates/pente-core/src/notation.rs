//! Move lists: `K10 L9 K7` and numbered `1. K10 L9 2. K7`.

use std::fmt::Write;

use thiserror::Error;

use crate::point::{ParsePointError, Point};

/// A move-list token that is not a point.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("move {ply}: {source}")]
pub struct MoveListError {
    /// 1-based number of the move that failed to parse.
    pub ply: u32,
    /// The token as written.
    pub token: String,
    /// Why it is not a point.
    #[source]
    pub source: ParsePointError,
}

/// Whether `token` is a move number such as `1.` or `12...`.
#[must_use]
pub fn is_move_number(token: &str) -> bool {
    let digits = token.trim_end_matches('.');
    digits.len() < token.len() && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Splits a move-list token into its points: `K10`, or `1.K10` written without a space.
fn strip_number(token: &str) -> &str {
    match token.rfind('.') {
        Some(i) if is_move_number(&token[..=i]) => &token[i + 1..],
        _ => token,
    }
}

/// The moves of a list such as `K10 L9 K7` or `1. K10 L9 2. K7`; commas and
/// any whitespace separate moves, move numbers are skipped.
///
/// # Errors
/// [`MoveListError`] for the first token that is not a point.
pub fn parse_move_list(text: &str) -> Result<Vec<Point>, MoveListError> {
    let mut moves = Vec::new();
    for token in text.split(|c: char| c.is_whitespace() || c == ',').filter(|t| !t.is_empty()) {
        if is_move_number(token) {
            continue;
        }
        let token = strip_number(token);
        let point = token.parse().map_err(|source| MoveListError {
            ply: moves.len() as u32 + 1,
            token: token.to_string(),
            source,
        })?;
        moves.push(point);
    }
    Ok(moves)
}

/// Formats moves as `K10 L9 K7`, or numbered as `1. K10 L9 2. K7`.
#[must_use]
pub fn format_move_list(moves: &[Point], numbered: bool) -> String {
    let mut out = String::with_capacity(moves.len() * 5);
    for (i, point) in moves.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if numbered && i % 2 == 0 {
            let _ = write!(out, "{}. ", i / 2 + 1);
        }
        let _ = write!(out, "{point}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_numbered() {
        let plain = parse_move_list("K10 l9  K7\r\nm12").unwrap();
        let numbered = parse_move_list("1. K10 L9 2. K7 M12").unwrap();
        let tight = parse_move_list("1.K10 L9 2.K7 M12").unwrap();
        assert_eq!(plain, numbered);
        assert_eq!(plain, tight);
        assert_eq!(format_move_list(&plain, false), "K10 L9 K7 M12");
        assert_eq!(format_move_list(&plain, true), "1. K10 L9 2. K7 M12");
        assert_eq!(format_move_list(&plain[..3], true), "1. K10 L9 2. K7");
        assert!(parse_move_list("").unwrap().is_empty());
    }

    #[test]
    fn errors_name_the_move() {
        let err = parse_move_list("K10 L9 Z0 K7").unwrap_err();
        assert_eq!(err.ply, 3);
        assert_eq!(err.token, "Z0");
        let err = parse_move_list("1. K10 I9").unwrap_err();
        assert_eq!((err.ply, err.token.as_str()), (2, "I9"));
    }
}
