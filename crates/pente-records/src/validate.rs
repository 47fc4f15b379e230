//! Validating record files: detect the format, read every game, check each.

use std::fmt;
use std::io::BufRead;
use std::ops::AddAssign;
use std::path::Path;

use pente_core::Rules;

use crate::check::{Verdict, check};
use crate::dataset::CSV_HEADER;
use crate::dataset_io::{csv_games, jsonl_games};
use crate::error::ParseError;
use crate::movelist::move_list_games;
use crate::pgn::pgn_games;
use crate::record::GameRecord;

/// A record file format.
///
/// A new format adds a variant here, a rule in [`Format::detect`] and a
/// reader in [`validate_text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// pente.org's PGN-like game files: headers, then move text.
    Pgn,
    /// One game per line: `K10 L9 K7 ...`, rules given by the caller.
    MoveList,
    /// A self-play `games.csv`: the header [`CSV_HEADER`], then one row per game.
    Csv,
    /// A self-play `games.jsonl`: one JSON object per game.
    Jsonl,
}

impl Format {
    /// Guesses the format from a file's text (or its start): by the first
    /// non-blank line, PGN if it starts with `[`, JSONL if it starts with
    /// `{`, CSV if it is [`CSV_HEADER`], a move list otherwise.
    #[must_use]
    pub fn detect(text: &str) -> Format {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        match text.lines().map(str::trim).find(|line| !line.is_empty()) {
            Some(line) if line.starts_with('[') => Format::Pgn,
            Some(line) if line.starts_with('{') => Format::Jsonl,
            Some(CSV_HEADER) => Format::Csv,
            _ => Format::MoveList,
        }
    }

    /// The format a file name promises: `.csv` and `.jsonl` (any case) are
    /// datasets; other names say nothing, see [`Format::detect`].
    #[must_use]
    pub fn from_extension(path: &Path) -> Option<Format> {
        let extension = path.extension()?.to_str()?;
        if extension.eq_ignore_ascii_case("csv") {
            Some(Format::Csv)
        } else if extension.eq_ignore_ascii_case("jsonl") {
            Some(Format::Jsonl)
        } else {
            None
        }
    }

    /// Lower-case name: `pgn`, `move-list`, `csv`, `jsonl`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Format::Pgn => "pgn",
            Format::MoveList => "move-list",
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
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
            summary.count(game);
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

impl Summary {
    /// Counts one more game.
    pub fn count(&mut self, game: &GameReport) {
        self.games += 1;
        if game.is_valid() {
            self.valid += 1;
        } else {
            self.invalid += 1;
        }
        if game.is_unfinished() {
            self.unfinished += 1;
        }
    }
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
///
/// Datasets are checked as [`validate_csv`] and [`validate_jsonl`] do; use
/// those on a file too large to hold, or its reports, in memory.
#[must_use]
pub fn validate_text(text: &str, format: Format, rules: Rules) -> FileReport {
    let games: Box<dyn Iterator<Item = Result<GameRecord, ParseError>> + '_> = match format {
        Format::Pgn => Box::new(pgn_games(text)),
        Format::MoveList => Box::new(move_list_games(text, rules)),
        Format::Csv => return FileReport { format, games: validate_csv(text.as_bytes()).collect() },
        Format::Jsonl => return FileReport { format, games: validate_jsonl(text.as_bytes()).collect() },
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

/// Reads the rows of a `games.csv` one at a time and checks each: the moves
/// and result against the rules, and the summary columns (`plies`, capture
/// counts, `reason`) against the replay ([`crate::CsvGame::check`]). A bad
/// header is reported as game 1, and nothing after it is read.
pub fn validate_csv<R: BufRead>(reader: R) -> impl Iterator<Item = GameReport> {
    csv_games(reader).enumerate().map(|(i, game)| match game {
        Ok((line, game)) => GameReport { number: i + 1, line, verdict: game.check(line) },
        Err(err) => GameReport { number: i + 1, line: err.line, verdict: Err(err) },
    })
}

/// Reads the lines of a `games.jsonl` one at a time and checks each game as
/// [`crate::JsonGame::check`] does: rules, summary fields and policies.
pub fn validate_jsonl<R: BufRead>(reader: R) -> impl Iterator<Item = GameReport> {
    jsonl_games(reader).enumerate().map(|(i, game)| match game {
        Ok((line, game)) => GameReport { number: i + 1, line, verdict: Ok(game.check()) },
        Err(err) => GameReport { number: i + 1, line: err.line, verdict: Err(err) },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        assert_eq!(Format::detect("\u{feff}\r\n  [Game \"Pente\"]\r\n"), Format::Pgn);
        assert_eq!(Format::detect("# comment\nK10 L9\n"), Format::MoveList);
        assert_eq!(Format::detect(""), Format::MoveList);
        assert_eq!(Format::detect(&format!("\u{feff}{CSV_HEADER}\r\n0,pente")), Format::Csv);
        assert_eq!(Format::detect("game_id,variant\n"), Format::MoveList);
        assert_eq!(Format::detect("\n{\"schema\": 1"), Format::Jsonl);
        assert_eq!(Format::from_extension(Path::new("run/games.JSONL")), Some(Format::Jsonl));
        assert_eq!(Format::from_extension(Path::new("games.csv")), Some(Format::Csv));
        assert_eq!(Format::from_extension(Path::new("games.pgn")), None);
        assert_eq!(Format::from_extension(Path::new("csv")), None);
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
