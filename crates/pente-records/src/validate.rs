//! Validating record files: detect the format, read every game, check each.

use std::fmt;
use std::ops::AddAssign;

use pente_core::Rules;

use crate::check::{Verdict, check};
use crate::error::ParseError;
use crate::movelist::move_list_games;
use crate::pgn::pgn_games;
use crate::record::GameRecord;

/// A record file format.
///
/// New formats (CSV, JSONL training records) add a variant here, a rule in
/// [`Format::detect`] and a reader in [`validate_text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// pente.org's PGN-like game files: headers, then move text.
    Pgn,
    /// One game per line: `K10 L9 K7 ...`, rules given by the caller.
    MoveList,
}

impl Format {
    /// Guesses the format from a file's text: PGN when its first non-blank
    /// line starts with `[`, a move list otherwise.
    #[must_use]
    pub fn detect(text: &str) -> Format {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        match text.lines().map(str::trim).find(|line| !line.is_empty()) {
            Some(line) if line.starts_with('[') => Format::Pgn,
            _ => Format::MoveList,
        }
    }

    /// Lower-case name: `pgn`, `move-list`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Format::Pgn => "pgn",
            Format::MoveList => "move-list",
        }
    }

    /// Whether the rules come from the caller rather than the file.
    #[must_use]
    pub const fn needs_rules(self) -> bool {
        matches!(self, Format::MoveList)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One game of a file, read and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameReport {
    /// 1-based position of the game in its file.
    pub number: usize,
    /// 1-based line: where the game starts, or where it fails to parse.
    pub line: usize,
    /// The verdict, or why the game could not be read.
    pub verdict: Result<Verdict, ParseError>,
}

impl GameReport {
    /// Whether the game parsed and is valid.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        matches!(self.verdict, Ok(Verdict::Valid(_)))
    }

    /// Whether the game is valid but the rules left it unfinished.
    #[must_use]
    pub fn is_unfinished(&self) -> bool {
        matches!(&self.verdict, Ok(Verdict::Valid(c)) if c.is_unfinished())
    }

    /// What is wrong with the game, without the line; `None` if it is valid.
    #[must_use]
    pub fn problem(&self) -> Option<String> {
        match &self.verdict {
            Ok(Verdict::Valid(_)) => None,
            Ok(Verdict::Invalid(violation)) => Some(violation.to_string()),
            Err(err) => Some(err.kind.to_string()),
        }
    }
}

/// Every game of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileReport {
    /// The format the file was read as.
    pub format: Format,
    /// The games, in file order.
    pub games: Vec<GameReport>,
}

impl FileReport {
    /// Counts of the games.
    #[must_use]
    pub fn summary(&self) -> Summary {
        let mut summary = Summary::default();
        for game in &self.games {
            summary.games += 1;
            if game.is_valid() {
                summary.valid += 1;
            } else {
                summary.invalid += 1;
            }
            if game.is_unfinished() {
                summary.unfinished += 1;
            }
        }
        summary
    }

    /// Whether every game is valid.
    #[must_use]
    pub fn all_valid(&self) -> bool {
        self.games.iter().all(GameReport::is_valid)
    }
}

/// Game counts. Displays as `12 games: 10 valid, 2 invalid (3 unfinished)`,
/// where unfinished games are valid ones the rules did not end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games read, parsed or not.
    pub games: usize,
    /// Valid games.
    pub valid: usize,
    /// Invalid games, including those that did not parse.
    pub invalid: usize,
    /// Valid games that the rules did not end (resigned, timed out, open).
    pub unfinished: usize,
}

impl AddAssign for Summary {
    fn add_assign(&mut self, other: Summary) {
        self.games += other.games;
        self.valid += other.valid;
        self.invalid += other.invalid;
        self.unfinished += other.unfinished;
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.games == 1 { "" } else { "s" };
        write!(
            f,
            "{} game{s}: {} valid, {} invalid ({} unfinished)",
            self.games, self.valid, self.invalid, self.unfinished
        )
    }
}

/// Reads every game of a file's text in `format` and checks it. `rules`
/// apply to formats without their own ([`Format::needs_rules`]).
#[must_use]
pub fn validate_text(text: &str, format: Format, rules: Rules) -> FileReport {
    let games: Box<dyn Iterator<Item = Result<GameRecord, ParseError>> + '_> = match format {
        Format::Pgn => Box::new(pgn_games(text)),
        Format::MoveList => Box::new(move_list_games(text, rules)),
    };
    let games = games
        .enumerate()
        .map(|(i, game)| match game {
            Ok(record) => GameReport { number: i + 1, line: record.line, verdict: Ok(check(&record)) },
            Err(err) => GameReport { number: i + 1, line: err.line, verdict: Err(err) },
        })
        .collect();
    FileReport { format, games }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        assert_eq!(Format::detect("\u{feff}\r\n  [Game \"Pente\"]\r\n"), Format::Pgn);
        assert_eq!(Format::detect("# comment\nK10 L9\n"), Format::MoveList);
        assert_eq!(Format::detect(""), Format::MoveList);
    }

    #[test]
    fn counts() {
        let text = "K10 L9 K7 L8 K8 L7 K9 L10 K6\nK10 L9 K7 1-0\nK10 K10\nK10 Q\n";
        let report = validate_text(text, Format::MoveList, Rules::pente());
        let summary = report.summary();
        assert_eq!(summary, Summary { games: 4, valid: 2, invalid: 2, unfinished: 1 });
        assert_eq!(summary.to_string(), "4 games: 2 valid, 2 invalid (1 unfinished)");
        assert_eq!(report.games[2].problem().unwrap(), "move 2 is illegal: K10: the point is occupied");
        assert_eq!((report.games[3].line, report.games[3].number), (4, 4));
        assert!(!report.all_valid());
    }
}
