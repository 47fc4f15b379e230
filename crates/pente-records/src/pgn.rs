//! pente.org's PGN-like game files: import and canonical export.
//!
//! A game is a block of `[Name "value"]` header lines, a blank line, and move
//! text: `1. K10 L10 2. K7 L6 ... 1-0`. Files may hold many games, use `\r\n`
//! or `\n`, and wrap the move text over any number of lines. `Resign` or
//! `Forfeit` may end the moves. pente.org writes no comments, so `{...}` is
//! not read (it is reported as a bad move).

use std::iter::{Enumerate, Peekable};
use std::str::Lines;

use pente_core::{MAX_SIZE, Point, Rules, RulesError, Variant};

use crate::error::{ParseError, ParseErrorKind};
use crate::game_name::{game_name, headers_variant, unrated, variant_from_game_name};
use crate::movetext::{MoveText, move_words, wrap_words};
use crate::record::{GameRecord, GameResult};

/// Width pente.org wraps move text at.
const WRAP_WIDTH: usize = 80;

/// The header in which pente.org records D-Pente's choice (`Yes`: the
/// chooser swapped); it has none for DK-Pente and Swap2.
const SWAPPED_HEADER: &str = "Player's Swapped?";

/// The colour choice a PGN game leaves out, put back into `moves`:
/// pente.org's PGN holds no choice. In D-Pente the `Player's Swapped?`
/// header tells it; in DK-Pente and Swap2 it is lost, and `stay` gives the
/// same board (stones keep their colour by index). Nothing is added when the
/// moves hold a choice already or stop before it.
fn restore_choice(rules: Rules, headers: &[(String, String)], moves: &mut Vec<Point>) {
    let Some(opening) = rules.colour_choice() else { return };
    let at = opening.stones_before_choice() as usize;
    if moves.len() < at || moves.iter().any(|p| p.is_choice()) {
        return;
    }
    let swapped = rules.variant() == Variant::DPente
        && headers.iter().any(|(k, v)| k.eq_ignore_ascii_case(SWAPPED_HEADER) && v.trim().eq_ignore_ascii_case("yes"));
    moves.insert(at, if swapped { Point::SWAP } else { Point::STAY });
}

/// Reads every game of a PGN file.
///
/// # Errors
/// The first [`ParseError`]; use [`pgn_games`] to read on past broken games.
pub fn parse_pgn(text: &str) -> Result<Vec<GameRecord>, ParseError> {
    pgn_games(text).collect()
}

/// The games of a PGN file, one `Result` each: after a broken game the
/// reader skips to the next game's headers and goes on.
#[must_use]
pub fn pgn_games(text: &str) -> PgnGames<'_> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    PgnGames { lines: text.lines().enumerate().peekable(), recovering: None }
}

/// Iterator over the games of a PGN file; see [`pgn_games`].
#[derive(Debug)]
pub struct PgnGames<'a> {
    lines: Peekable<Enumerate<Lines<'a>>>,
    /// After an error: whether a non-header line has been passed since, so the
    /// next header line starts a new game.
    recovering: Option<bool>,
}

fn is_header_line(line: &str) -> bool {
    line.trim_start().starts_with('[')
}

impl PgnGames<'_> {
    /// Skips what is left of a broken game: up to a header line that follows
    /// a blank or move-text line.
    fn skip_broken_game(&mut self) {
        let Some(mut passed_break) = self.recovering.take() else { return };
        while let Some(&(_, line)) = self.lines.peek() {
            if is_header_line(line) {
                if passed_break {
                    return;
                }
            } else {
                passed_break = true;
            }
            self.lines.next();
        }
    }

    /// Reads one game, starting at a non-blank line.
    fn game(&mut self) -> Option<Result<GameRecord, ParseError>> {
        self.skip_broken_game();
        while self.lines.next_if(|(_, line)| line.trim().is_empty()).is_some() {}
        let &(index, first) = self.lines.peek()?;
        let start = index + 1;
        if !is_header_line(first) {
            self.recovering = Some(true);
            let text: String = first.trim().chars().take(40).collect();
            return Some(Err(ParseErrorKind::MissingHeaders { text }.at(start)));
        }

        let mut headers = Vec::new();
        let mut header_lines = Vec::new();
        while let Some((index, line)) = self.lines.next_if(|(_, line)| is_header_line(line)) {
            match parse_header(line) {
                Some(header) => {
                    headers.push(header);
                    header_lines.push(index + 1);
                }
                None => {
                    self.recovering = Some(false);
                    return Some(Err(ParseErrorKind::BadHeader { text: line.trim().to_string() }.at(index + 1)));
                }
            }
        }
        let meta = match Meta::read(&headers, &header_lines) {
            Ok(meta) => meta,
            Err(err) => {
                self.recovering = Some(true);
                return Some(Err(err));
            }
        };

        let mut text = MoveText::new(meta.rules);
        while let Some((index, line)) = self.lines.next_if(|(_, line)| !is_header_line(line)) {
            if let Err(err) = text.feed(line, index + 1) {
                self.recovering = Some(true);
                return Some(Err(err));
            }
        }
        let result = match (meta.result, &text.result) {
            (Some((header, value)), Some(token)) if header != token.result => {
                let kind = ParseErrorKind::ResultMismatch { token: token.token.clone(), header: value };
                return Some(Err(kind.at(token.line)));
            }
            (Some((header, _)), _) => header,
            (None, Some(token)) => token.result,
            (None, None) => None,
        };
        let mut moves = text.moves;
        restore_choice(meta.rules, &headers, &mut moves);
        Some(Ok(GameRecord { headers, rules: meta.rules, moves, result, termination: text.termination, line: start }))
    }
}

impl Iterator for PgnGames<'_> {
    type Item = Result<GameRecord, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.game()
    }
}

/// Parses `[Name "value"]`: the name is what precedes the first quote, the
/// value what lies between the first and the last quote.
fn parse_header(line: &str) -> Option<(String, String)> {
    let inner = line.trim().strip_prefix('[')?.strip_suffix(']')?;
    let first = inner.find('"')?;
    let last = inner.rfind('"')?;
    let name = inner[..first].trim();
    if last <= first || name.is_empty() || !inner[last + 1..].trim().is_empty() {
        return None;
    }
    Some((name.to_string(), inner[first + 1..last].to_string()))
}

/// What the headers say about rules and result.
struct Meta {
    rules: Rules,
    /// The `Result` header: what it says and its value as written.
    result: Option<(Option<GameResult>, String)>,
}

impl Meta {
    fn read(headers: &[(String, String)], lines: &[usize]) -> Result<Meta, ParseError> {
        let find = |name: &str| {
            headers.iter().zip(lines).find(|((k, _), _)| k.eq_ignore_ascii_case(name)).map(|((_, v), &l)| (v, l))
        };
        if let Some((name, line)) = find("Game")
            && variant_from_game_name(name).is_none()
        {
            return Err(ParseErrorKind::UnknownGame { name: name.clone() }.at(line));
        }
        let variant = headers_variant(headers).expect("the game's name is known");
        let rules = match find("Size") {
            Some((value, line)) => parse_size(value)
                .and_then(|size| Rules::new(variant, size))
                .map_err(|source| ParseErrorKind::BadSize { value: value.clone(), source }.at(line))?,
            None => Rules::new(variant, MAX_SIZE).expect("19 is a valid size"),
        };
        let result = match find("Result") {
            Some((value, line)) => {
                let result = GameResult::parse_token(value.trim())
                    .ok_or_else(|| ParseErrorKind::BadResult { value: value.clone() }.at(line))?;
                Some((result, value.clone()))
            }
            None => None,
        };
        Ok(Meta { rules, result })
    }
}

/// A board size written `13` or `13x13`.
fn parse_size(value: &str) -> Result<u8, RulesError> {
    let value = value.trim();
    let side = match value.split_once(['x', 'X']) {
        Some((a, b)) if a.trim() == b.trim() => a.trim(),
        Some(_) => return Err(RulesError::BadSize(value.to_string())),
        None => value,
    };
    side.parse().map_err(|_| RulesError::BadSize(value.to_string()))
}

/// Writes games in the canonical form: each game's headers, a blank line, the
/// numbered moves wrapped at 80 columns ending with the termination and the
/// result (`*` when unknown), with `\n` line endings and a blank line between
/// games.
#[must_use]
pub fn write_pgn(records: &[GameRecord]) -> String {
    let mut out = String::new();
    for (i, record) in records.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        write_pgn_game(record, &mut out);
    }
    out
}

/// Appends one game in the canonical form of [`write_pgn`].
///
/// Headers are written in their order with their values, except that
/// `Game`, `Size` and `Result` are brought in line with the record's rules
/// and result; a `Game` or `Size` header is added when the rules need it
/// (or, for `Game`, when there is no header at all).
pub fn write_pgn_game(record: &GameRecord, out: &mut String) {
    for (name, value) in synced_headers(record) {
        out.push('[');
        out.push_str(&name);
        out.push_str(" \"");
        out.push_str(&value);
        out.push_str("\"]\n");
    }
    out.push('\n');
    let result = match record.result {
        Some(result) => result.token(),
        // Keep pente.org's `?` for an unknown result; `*` otherwise.
        None if record.header("Result").map(str::trim) == Some("?") => "?",
        None => "*",
    };
    let words = move_words(&record.moves, record.termination, Some(result), true);
    wrap_words(words.iter().map(String::as_str), WRAP_WIDTH, out);
}

/// The headers to export: `Game`, `Size` and `Result` agree with the fields.
fn synced_headers(record: &GameRecord) -> Vec<(String, String)> {
    let mut headers = record.headers.clone();
    let position =
        |headers: &[(String, String)], name: &str| headers.iter().position(|(k, _)| k.eq_ignore_ascii_case(name));
    let variant = record.rules.variant();
    // A game needs some header to be read back; `Game` is the natural one.
    if headers_variant(&headers) != Some(variant) || headers.is_empty() {
        let game = match position(&headers, "Game") {
            Some(i) => {
                headers[i].1 = game_name(variant).to_string();
                i
            }
            None => {
                headers.insert(0, ("Game".to_string(), game_name(variant).to_string()));
                0
            }
        };
        let rated = if unrated(variant) { "N" } else { "Y" };
        match position(&headers, "Rated") {
            Some(i) => headers[i].1 = rated.to_string(),
            None if unrated(variant) => headers.insert(game + 1, ("Rated".to_string(), rated.to_string())),
            None => {}
        }
    }
    let game_at = position(&headers, "Game");
    let size = record.rules.size();
    match position(&headers, "Size") {
        Some(i) if parse_size(&headers[i].1).ok() != Some(size) => headers[i].1 = size.to_string(),
        Some(_) => {}
        None if size != MAX_SIZE => {
            headers.insert(game_at.map_or(0, |i| i + 1), ("Size".to_string(), size.to_string()))
        }
        None => {}
    }
    if let Some(i) = position(&headers, "Result")
        && GameResult::parse_token(headers[i].1.trim()) != Some(record.result)
    {
        headers[i].1 = record.result.map_or("*", GameResult::token).to_string();
    }
    // The move text holds no choice: D-Pente's goes in its header, as
    // pente.org writes it.
    let choice = record.moves.iter().find(|p| p.is_choice());
    if variant == Variant::DPente
        && let Some(&choice) = choice
    {
        let value = if choice == Point::SWAP { "Yes" } else { "No" };
        match position(&headers, SWAPPED_HEADER) {
            Some(i) => headers[i].1 = value.to_string(),
            None => headers.push((SWAPPED_HEADER.to_string(), value.to_string())),
        }
    }
    headers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        assert_eq!(parse_header("[Game \"Pente\"]"), Some(("Game".into(), "Pente".into())));
        assert_eq!(parse_header(" [Player 1 Name \"a b\"] "), Some(("Player 1 Name".into(), "a b".into())));
        assert_eq!(parse_header("[Player's Swapped? \"No\"]"), Some(("Player's Swapped?".into(), "No".into())));
        assert_eq!(parse_header("[Event \"\"]"), Some(("Event".into(), String::new())));
        assert_eq!(parse_header("[Note \"say \"hi\"\"]"), Some(("Note".into(), "say \"hi\"".into())));
        for bad in ["[Game \"Pente\"", "[Game Pente]", "[\"Pente\"]", "[Game \"Pente]", "[Game \"Pente\" x]", "Game"] {
            assert_eq!(parse_header(bad), None, "{bad}");
        }
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("13"), Ok(13));
        assert_eq!(parse_size(" 13x13 "), Ok(13));
        assert!(parse_size("13x15").is_err());
        assert!(parse_size("big").is_err());
    }
}
