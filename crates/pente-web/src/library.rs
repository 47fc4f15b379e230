//! The games the server has loaded (from `--games` or uploads), for the
//! game viewer and the opening explorer.

use std::fmt;
use std::path::Path;

use pente_analysis::{Ending, GameSummary, InputError, Report, ReportOptions, Stats, StatsOptions, read_games};
use pente_core::{Point, Rules, Variant};
use pente_records::GameResult;
use serde::Serialize;
use thiserror::Error;

/// Every game loaded, file by file.
#[derive(Debug, Default)]
pub struct Library {
    files: Vec<(String, Vec<GameSummary>)>,
}

/// A game file that could not be loaded. Displays as `NAME:LINE: what is
/// wrong` (or `NAME: ...` for the whole file) with the name the file was
/// loaded as, which for an upload is not the path it was stored at.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub struct LoadError {
    /// The name the file was loaded as.
    pub name: String,
    /// What is wrong, naming the file by its path.
    pub source: InputError,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.source.line {
            Some(line) => write!(f, "{}:{line}: {}", self.name, self.source.message),
            None => write!(f, "{}: {}", self.name, self.source.message),
        }
    }
}

/// One game as the viewer lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GameEntry {
    /// Its number in the whole library, from 0.
    pub index: usize,
    /// The file it came from, as loaded.
    pub file: String,
    /// Its line there.
    pub line: usize,
    /// Its rules.
    pub variant: Variant,
    /// Its board side.
    pub size: u8,
    /// Its moves.
    pub moves: Vec<Point>,
    /// How it ended, if known.
    pub result: Option<GameResult>,
    /// `five`, `captures`, `resign`, ...
    pub ending: Ending,
}

impl Library {
    /// Loads every game of the file at `path`, listed as `name`: all of
    /// them or, at the first bad record, none.
    ///
    /// # Errors
    /// A [`LoadError`], for an unreadable file or a bad record.
    pub fn load(&mut self, path: &Path, name: &str) -> Result<usize, LoadError> {
        let named = |source| LoadError { name: name.to_string(), source };
        let games = read_games(path).map_err(named)?.collect::<Result<Vec<_>, _>>().map_err(named)?;
        let count = games.len();
        self.files.push((name.to_string(), games));
        Ok(count)
    }

    /// Adds the files of `other` after these; a file of a name already
    /// loaded replaces it (an upload sent again).
    pub fn append(&mut self, other: Library) {
        for (name, games) in other.files {
            self.files.retain(|(loaded, _)| *loaded != name);
            self.files.push((name, games));
        }
    }

    /// Games in all files.
    #[must_use]
    pub fn len(&self) -> usize {
        self.files.iter().map(|(_, games)| games.len()).sum()
    }

    /// Games in all files but the one named `name`: what stays when a new
    /// file of that name replaces it.
    #[must_use]
    pub fn len_without(&self, name: &str) -> usize {
        self.files.iter().filter(|(loaded, _)| loaded != name).map(|(_, games)| games.len()).sum()
    }

    /// Whether no game is loaded.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The files loaded, in order.
    #[must_use]
    pub fn files(&self) -> Vec<String> {
        self.files.iter().map(|(name, _)| name.clone()).collect()
    }

    /// Every game, numbered.
    #[must_use]
    pub fn entries(&self) -> Vec<GameEntry> {
        self.games()
            .enumerate()
            .map(|(index, (file, game))| GameEntry {
                index,
                file: file.to_string(),
                line: game.line,
                variant: game.rules.variant(),
                size: game.rules.size(),
                moves: game.moves.clone(),
                result: game.result,
                ending: game.ending,
            })
            .collect()
    }

    fn games(&self) -> impl Iterator<Item = (&str, &GameSummary)> {
        self.files.iter().flat_map(|(name, games)| games.iter().map(move |game| (name.as_str(), game)))
    }

    /// The explorer's view of the position after `moves` under `rules`:
    /// the report `pente stats FILES --moves MOVES --variant V --size S
    /// --top 0 --format json` prints for the same files.
    #[must_use]
    pub fn explore(&self, rules: Rules, moves: Vec<Point>) -> Report {
        let options = StatsOptions {
            moves: Some(moves),
            variant: Some(rules.variant()),
            size: Some(rules.size()),
            ..StatsOptions::default()
        };
        let mut stats = Stats::new(options);
        let mut skipped = 0;
        for (_, game) in self.games() {
            // Only a transposition merge replays games, and it is off:
            // nothing here fails, but a failure would be a skipped game
            // as `pente stats --skip-bad` counts it.
            if stats.add(game).is_err() {
                skipped += 1;
            }
        }
        let mut report = stats.report(&ReportOptions::default());
        report.files = self.files();
        report.skipped = skipped;
        report
    }
}
