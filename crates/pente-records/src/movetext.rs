//! Move text shared by PGN games and move-list lines: points, optional move
//! numbers, `Resign`/`Forfeit`, and a result token at the end.

use pente_core::{Point, Rules, is_move_number};

use crate::error::{ParseError, ParseErrorKind};
use crate::record::{GameResult, Termination};

/// The result token at the end of a move text, as read.
#[derive(Debug, Clone)]
pub(crate) struct ResultToken {
    /// What it says (`None`: `*` or `?`).
    pub result: Option<GameResult>,
    /// As written.
    pub token: String,
    /// 1-based line.
    pub line: usize,
}

/// Reads move text token by token, line by line.
#[derive(Debug)]
pub(crate) struct MoveText {
    rules: Rules,
    pub moves: Vec<Point>,
    /// Stones among `moves` (colour choices are moves but not stones).
    stones: usize,
    pub termination: Option<Termination>,
    pub result: Option<ResultToken>,
}

impl MoveText {
    /// Move text of a game under `rules` (which say whose stone comes next).
    pub fn new(rules: Rules) -> MoveText {
        MoveText { rules, moves: Vec::new(), stones: 0, termination: None, result: None }
    }

    /// Reads the tokens of one line. Whitespace and commas separate tokens.
    ///
    /// # Errors
    /// The first token that does not fit.
    pub fn feed(&mut self, text: &str, line: usize) -> Result<(), ParseError> {
        for token in text.split(|c: char| c.is_whitespace() || c == ',').filter(|t| !t.is_empty()) {
            self.token(token).map_err(|kind| kind.at(line))?;
            if let Some(result) = GameResult::parse_token(token) {
                self.result = Some(ResultToken { result, token: token.to_string(), line });
            }
        }
        Ok(())
    }

    /// Reads one token; a result token is recorded by the caller.
    fn token(&mut self, token: &str) -> Result<(), ParseErrorKind> {
        if let Some(end) = &self.result {
            return Err(ParseErrorKind::AfterEnd { token: token.to_string(), end: end.token.clone() });
        }
        if GameResult::parse_token(token).is_some() {
            return Ok(());
        }
        let rest = self.strip_move_number(token)?;
        if rest.is_empty() {
            return Ok(());
        }
        if let Some(end) = self.termination {
            return Err(ParseErrorKind::AfterEnd { token: token.to_string(), end: end.token().to_string() });
        }
        let to_move = self.rules.colour_of_stone(self.stones as u32);
        if let Some(termination) = Termination::parse_token(rest, to_move) {
            self.termination = Some(termination);
            return Ok(());
        }
        let point = rest.parse().map_err(|source| ParseErrorKind::BadMove {
            ply: self.moves.len() + 1,
            token: rest.to_string(),
            source,
        })?;
        self.moves.push(point);
        self.stones += usize::from(!point.is_choice());
        Ok(())
    }

    /// Checks and removes a leading move number (`12.`, `12...`, or `12.K10`
    /// written without a space); returns what is left of the token.
    fn strip_move_number<'t>(&self, token: &'t str) -> Result<&'t str, ParseErrorKind> {
        let (number, rest) = if is_move_number(token) {
            (token, "")
        } else {
            match token.rfind('.') {
                Some(i) if is_move_number(&token[..=i]) => (&token[..=i], &token[i + 1..]),
                _ => return Ok(token),
            }
        };
        // Stones are numbered in pairs (`3.` and `3...`), in Connect6 too;
        // a colour choice takes no number.
        let expected = self.stones / 2 + 1;
        let digits = number.trim_end_matches('.');
        if digits.parse::<usize>().ok() != Some(expected) {
            return Err(ParseErrorKind::BadMoveNumber { token: number.to_string(), expected });
        }
        Ok(rest)
    }
}

/// Appends `words` to `out` as lines of at most `width` characters, breaking
/// only between words (a longer word gets a line of its own), each line ended
/// by `\n`. This is how pente.org wraps move lists at 80 columns.
pub(crate) fn wrap_words<'w>(words: impl IntoIterator<Item = &'w str>, width: usize, out: &mut String) {
    let mut line_len = 0;
    for word in words {
        if line_len > 0 && line_len + 1 + word.len() > width {
            out.push('\n');
            line_len = 0;
        }
        if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(word);
        line_len += word.len();
    }
    if line_len > 0 {
        out.push('\n');
    }
}

/// The move-text words of a game: numbered moves if `numbered` (stones in
/// pairs; pente.org's PGN has no colour choices, so `numbered` leaves them
/// out), then the termination token, then `result` if given.
pub(crate) fn move_words(
    moves: &[Point],
    termination: Option<Termination>,
    result: Option<&str>,
    numbered: bool,
) -> Vec<String> {
    let mut words = Vec::with_capacity(moves.len() * 3 / 2 + 3);
    let number = |i: usize, words: &mut Vec<String>| {
        if numbered && i.is_multiple_of(2) {
            words.push(format!("{}.", i / 2 + 1));
        }
    };
    let mut stones = 0;
    for point in moves {
        if point.is_choice() {
            if !numbered {
                words.push(point.to_string());
            }
            continue;
        }
        number(stones, &mut words);
        words.push(point.to_string());
        stones += 1;
    }
    if let Some(termination) = termination {
        // pente.org reads `Resign` in a move's place, so White's gets a number.
        number(stones, &mut words);
        words.push(termination.token().to_string());
    }
    if let Some(result) = result {
        words.push(result.to_string());
    }
    words
}

#[cfg(test)]
mod tests {
    use pente_core::Color;

    use super::*;

    fn read(text: &str) -> Result<MoveText, ParseError> {
        let mut m = MoveText::new(Rules::pente());
        for (i, line) in text.lines().enumerate() {
            m.feed(line, i + 1)?;
        }
        Ok(m)
    }

    #[test]
    fn numbers_are_optional_but_checked() {
        let plain = read("K10 L9 K7").unwrap();
        let numbered = read("1. K10 L9\n2. K7").unwrap();
        let tight = read("1.K10 1...L9 2.k7").unwrap();
        assert_eq!(plain.moves, numbered.moves);
        assert_eq!(plain.moves, tight.moves);
        let err = read("1. K10 L9\n3. K7").unwrap_err();
        assert_eq!(err.line, 2);
        assert_eq!(err.kind, ParseErrorKind::BadMoveNumber { token: "3.".into(), expected: 2 });
    }

    #[test]
    fn termination_and_result() {
        let m = read("1. K10 L9 2. Resign 0-1").unwrap();
        assert_eq!(m.termination, Some(Termination::Resign { by: Color::White }));
        assert_eq!(m.result.unwrap().result, Some(GameResult::Black));
        let m = read("1. K10 L9 2. K7 forfeit").unwrap();
        assert_eq!(m.termination, Some(Termination::Forfeit { by: Color::Black }));
        assert!(m.result.is_none());
        let err = read("1. K10 Resign L9").unwrap_err();
        assert!(matches!(err.kind, ParseErrorKind::AfterEnd { .. }), "{err}");
        let err = read("1. K10 L9 1-0\nK7").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.to_string().contains("`K7` after `1-0`"), "{err}");
    }

    #[test]
    fn bad_tokens_name_the_move() {
        let err = read("1. K10 L9 2. K7 Z99").unwrap_err();
        assert!(matches!(err.kind, ParseErrorKind::BadMove { ply: 4, ref token, .. } if token == "Z99"));
        assert!(read("1. K10 {comment}").is_err());
    }

    #[test]
    fn wrapping() {
        let words = ["aaaa", "bb", "cc", "dddddddddd", "e"];
        let mut out = String::new();
        wrap_words(words, 7, &mut out);
        assert_eq!(out, "aaaa bb\ncc\ndddddddddd\ne\n");
        let mut out = String::new();
        wrap_words([], 7, &mut out);
        assert_eq!(out, "");
    }
}
