//! The games the server has loaded (from `--games` or uploads), for the
//! game viewer and the opening explorer.

use std::path::Path;

use pente_analysis::{Ending, GameSummary, Report, ReportOptions, Stats, StatsOptions, read_games};
use pente_core::{Point, Rules, Variant};
use pente_records::GameResult;
use serde::Serialize;

/// Every game loaded, file by file.
#[derive(Debug, Default)]
pub struct Library {
    files: Vec<(String, Vec<GameSummary>)>,
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
    /// `NAME:LINE: what is wrong`, for an unreadable file or a bad record.
    pub fn load(&mut self, path: &Path, name: &str) -> Result<usize, String> {
        let named = |error: pente_analysis::InputError| match error.line {
            Some(line) => format!("{name}:{line}: {}", error.message),
            None => format!("{name}: {}", error.message),
        };
        let games = read_games(path).map_err(named)?.collect::<Result<Vec<_>, _>>().map_err(named)?;
        let count = games.len();
        self.files.push((name.to_string(), games));
        Ok(count)
    }

    /// Adds the files of `other` after these.
    pub fn append(&mut self, other: Library) {
        self.files.extend(other.files);
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
