//! Move-list files: one game per line, `K10 L9 K7 ...` or numbered
//! `1. K10 L9 2. K7`, optionally ending with a result token. Blank lines and
//! lines starting with `#` are skipped. The rules come from the caller.

use std::iter::Enumerate;
use std::str::Lines;

use pente_core::Rules;

use crate::error::ParseError;
use crate::movetext::{MoveText, move_words};
use crate::record::GameRecord;

/// Reads every game of a move-list file under `rules`.
///
/// # Errors
/// The first [`ParseError`]; use [`move_list_games`] to read on past it.
pub fn parse_move_list_file(text: &str, rules: Rules) -> Result<Vec<GameRecord>, ParseError> {
    move_list_games(text, rules).collect()
}

/// The games of a move-list file under `rules`, one `Result` per game line.
#[must_use]
pub fn move_list_games(text: &str, rules: Rules) -> MoveListGames<'_> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    MoveListGames { lines: text.lines().enumerate(), rules }
}

/// Iterator over the games of a move-list file; see [`move_list_games`].
#[derive(Debug)]
pub struct MoveListGames<'a> {
    lines: Enumerate<Lines<'a>>,
    rules: Rules,
}

impl Iterator for MoveListGames<'_> {
    type Item = Result<GameRecord, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (index, line) = self.lines.find(|(_, line)| {
            let line = line.trim();
            !line.is_empty() && !line.starts_with('#')
        })?;
        let mut text = MoveText::new(self.rules);
        Some(text.feed(line, index + 1).map(|()| GameRecord {
            headers: Vec::new(),
            rules: self.rules,
            moves: text.moves,
            result: text.result.and_then(|token| token.result),
            termination: text.termination,
            line: index + 1,
        }))
    }
}

/// Writes games as a move-list file: one line each, plain moves, then the
/// termination and the result if known. Headers and rules are not written.
#[must_use]
pub fn write_move_list_file(records: &[GameRecord]) -> String {
    let mut out = String::new();
    for record in records {
        let words = move_words(&record.moves, record.termination, record.result.map(|r| r.token()), false);
        out.push_str(&words.join(" "));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use pente_core::{Color, Variant};

    use super::*;
    use crate::{GameResult, Termination};

    #[test]
    fn lines_comments_and_results() {
        let text = "# games\r\n\r\nK10 L9 K7\r\n1. K10 L9 2. K7 M12 1-0\n  # indented comment\nK10 Resign 1-0\n";
        let games = parse_move_list_file(text, Rules::pente()).unwrap();
        assert_eq!(games.len(), 3);
        assert_eq!((games[0].line, games[0].moves.len(), games[0].result), (3, 3, None));
        assert_eq!((games[1].line, games[1].moves.len(), games[1].result), (4, 4, Some(GameResult::White)));
        assert_eq!(games[2].termination, Some(Termination::Resign { by: Color::Black }));
        assert_eq!(write_move_list_file(&games), "K10 L9 K7\nK10 L9 K7 M12 1-0\nK10 Resign 1-0\n");
        let mut again = parse_move_list_file(&write_move_list_file(&games), Rules::pente()).unwrap();
        assert_eq!(again.iter().map(|g| g.line).collect::<Vec<_>>(), [1, 2, 3]);
        for (a, b) in again.iter_mut().zip(&games) {
            a.line = b.line;
        }
        assert_eq!(again, games);
    }

    #[test]
    fn errors_name_the_line_and_read_on() {
        let rules = Rules::new(Variant::Gomoku, 15).unwrap();
        let games: Vec<_> = move_list_games("H8 J9\nH8 X\nH8\n", rules).collect();
        assert_eq!(games.len(), 3);
        let err = games[1].as_ref().unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.to_string().starts_with("line 2: move 2: `X` is not a move"), "{err}");
        assert_eq!(games[2].as_ref().unwrap().rules, rules);
    }
}
