//! Counting games one at a time: overall, per opening, and per next move
//! from a given position.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use pente_core::{Color, IllegalMove, Point, Rules, Symmetry, Variant, format_move_list};
use pente_records::{Cause, GameResult};
use serde::Serialize;
use thiserror::Error;

use crate::canonical::{
    Stones, canonical_moves, canonical_stones, first_point, on_board, stone_symmetries_between, symmetries_between,
};
use crate::input::{Ending, GameSummary, InputError, read_games};
use crate::wilson::{Z95, wilson_interval};

/// What to count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatsOptions {
    /// Moves in an opening: openings are the first `depth` moves of games.
    pub depth: usize,
    /// Key openings (and the explorer's position) by the stones of each
    /// colour, so that the same stones reached in another order count as one.
    pub merge_transpositions: bool,
    /// The explorer's position: when set, count the moves played next from
    /// it (and from its mirror images) instead of openings.
    pub moves: Option<Vec<Point>>,
    /// Count only games of this variant.
    pub variant: Option<Variant>,
    /// Count only games on boards of this size.
    pub size: Option<u8>,
}

impl Default for StatsOptions {
    fn default() -> StatsOptions {
        StatsOptions { depth: 3, merge_transpositions: false, moves: None, variant: None, size: None }
    }
}

/// Counts of games with a result.
///
/// `five + captures + resign + other == white + black`: every decisive game
/// is counted once by how it ended; draws are not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Games.
    pub games: u64,
    /// White wins.
    pub white: u64,
    /// Black wins.
    pub black: u64,
    /// Draws.
    pub draws: u64,
    /// Wins by a line of five.
    pub five: u64,
    /// Wins by captures.
    pub captures: u64,
    /// Wins by resignation.
    pub resign: u64,
    /// Wins otherwise: forfeits, games stopped for a reason the record does not give.
    pub other: u64,
    /// Moves played, summed over the games.
    pub plies: u64,
}

impl Tally {
    /// Counts one game of `plies` moves.
    pub fn add(&mut self, result: GameResult, ending: Ending, plies: usize) {
        self.games += 1;
        self.plies += plies as u64;
        match result {
            GameResult::White => self.white += 1,
            GameResult::Black => self.black += 1,
            GameResult::Draw => {
                self.draws += 1;
                return;
            }
        }
        match ending {
            Ending::Five => self.five += 1,
            Ending::Captures => self.captures += 1,
            Ending::Resign => self.resign += 1,
            Ending::Full | Ending::Forfeit | Ending::Unknown => self.other += 1,
        }
    }

    /// Wins of `color`.
    #[must_use]
    pub const fn wins(&self, color: Color) -> u64 {
        match color {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    /// `color`'s score: wins plus half the draws.
    #[must_use]
    pub fn score(&self, color: Color) -> f64 {
        self.wins(color) as f64 + self.draws as f64 / 2.0
    }

    /// The 95 % Wilson interval of `color`'s mean score.
    #[must_use]
    pub fn score_interval(&self, color: Color) -> (f64, f64) {
        wilson_interval(self.score(color), self.games, Z95)
    }

    /// `count` as a percentage of the games (0 without games).
    #[must_use]
    pub fn percent(&self, count: u64) -> f64 {
        if self.games == 0 { 0.0 } else { 100.0 * count as f64 / self.games as f64 }
    }

    /// Mean moves per game (0 without games).
    #[must_use]
    pub fn average_plies(&self) -> f64 {
        if self.games == 0 { 0.0 } else { self.plies as f64 / self.games as f64 }
    }
}

/// An opening as counted: its canonical moves, or its canonical stones.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum OpeningKey {
    Moves(Vec<Point>),
    Stones(Stones),
}

impl fmt::Display for OpeningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpeningKey::Moves(moves) => f.write_str(&format_move_list(moves, false)),
            OpeningKey::Stones(stones) => stones.fmt(f),
        }
    }
}

/// The games that reached the explorer's position under one rule set.
#[derive(Debug, Clone, Default)]
pub(crate) struct Reached {
    /// Every game that reached it.
    pub(crate) all: Tally,
    /// Games that ended there.
    pub(crate) ended: u64,
    /// Per next move, in the position's own frame (the first of its mirror
    /// images when the position is symmetric).
    pub(crate) next: HashMap<Point, Tally>,
}

/// Statistics over a stream of games: feed them to [`Stats::add`], then ask
/// for a [`crate::Report`].
///
/// Memory grows with the number of distinct openings (or next moves), not
/// with the number of games.
#[derive(Debug, Clone)]
pub struct Stats {
    pub(crate) options: StatsOptions,
    pub(crate) games_read: u64,
    pub(crate) no_result: u64,
    pub(crate) filtered_out: u64,
    pub(crate) short: u64,
    pub(crate) all: Tally,
    pub(crate) by_rules: HashMap<Rules, Tally>,
    pub(crate) openings: HashMap<(Rules, OpeningKey), Tally>,
    pub(crate) reached: HashMap<Rules, Reached>,
    /// The explorer's position as stones under each rule set met
    /// (transposition mode); `None` where its moves are illegal.
    target_stones: HashMap<Rules, Option<Stones>>,
}

impl Stats {
    /// No games yet.
    #[must_use]
    pub fn new(options: StatsOptions) -> Stats {
        Stats {
            options,
            games_read: 0,
            no_result: 0,
            filtered_out: 0,
            short: 0,
            all: Tally::default(),
            by_rules: HashMap::new(),
            openings: HashMap::new(),
            reached: HashMap::new(),
            target_stones: HashMap::new(),
        }
    }

    /// The options counted with.
    #[must_use]
    pub fn options(&self) -> &StatsOptions {
        &self.options
    }

    /// Counts one game. Games outside the variant and size filters, and
    /// games without a result, are only counted as read.
    ///
    /// # Errors
    /// Merging transpositions replays the opening (or the explorer's
    /// prefix): an illegal move there is an error naming it, and the game
    /// is not counted at all.
    pub fn add(&mut self, game: &GameSummary) -> Result<(), String> {
        self.add_game(game).map_err(|e| e.to_string())
    }

    /// [`Stats::add`], with the error as it is.
    fn add_game(&mut self, game: &GameSummary) -> Result<(), Uncountable> {
        self.count(game)?;
        self.games_read += 1;
        Ok(())
    }

    fn count(&mut self, game: &GameSummary) -> Result<(), Uncountable> {
        let rules = game.rules;
        if self.options.variant.is_some_and(|v| v != rules.variant())
            || self.options.size.is_some_and(|s| s != rules.size())
        {
            self.filtered_out += 1;
            return Ok(());
        }
        let Some(result) = game.result else {
            self.no_result += 1;
            return Ok(());
        };
        // Symmetries apply to points on the board only.
        if let Some((i, &point)) = game.moves.iter().enumerate().find(|&(_, &p)| !p.is_choice() && !rules.contains(p)) {
            return Err(Uncountable::OffBoard { ply: i + 1, point, size: rules.size() });
        }
        let plies = game.moves.len();
        if let Some(target) = self.options.moves.take() {
            let explored = self.explore(game, &target);
            self.options.moves = Some(target);
            if let Some(next) = explored? {
                let reached = self.reached.entry(rules).or_default();
                reached.all.add(result, game.ending, plies);
                match next {
                    Some(next) => reached.next.entry(next).or_default().add(result, game.ending, plies),
                    None => reached.ended += 1,
                }
            }
        } else if plies < self.options.depth {
            self.short += 1;
        } else {
            let key = self.opening_key(game)?;
            self.openings.entry((rules, key)).or_default().add(result, game.ending, plies);
        }
        self.all.add(result, game.ending, plies);
        self.by_rules.entry(rules).or_default().add(result, game.ending, plies);
        Ok(())
    }

    fn opening_key(&self, game: &GameSummary) -> Result<OpeningKey, Uncountable> {
        let size = game.rules.size();
        let prefix = &game.moves[..self.options.depth];
        if self.options.merge_transpositions {
            let stones = Stones::after(game.rules, prefix).map_err(illegal)?;
            Ok(OpeningKey::Stones(canonical_stones(&stones, size).0))
        } else {
            Ok(OpeningKey::Moves(canonical_moves(prefix, size).0))
        }
    }

    /// Whether `game` reaches the explorer's position `target` (up to
    /// symmetry): `None` if not, `Some(None)` if it ended there, else its
    /// next move mapped into the position's frame.
    fn explore(&mut self, game: &GameSummary, target: &[Point]) -> Result<Option<Option<Point>>, Uncountable> {
        let rules = game.rules;
        let size = rules.size();
        let depth = target.len();
        if game.moves.len() < depth || !on_board(target, size) {
            return Ok(None);
        }
        let prefix = &game.moves[..depth];
        let symmetries: Vec<Symmetry> = if self.options.merge_transpositions {
            let target = self.target_stones.entry(rules).or_insert_with(|| Stones::after(rules, target).ok());
            let Some(target) = target else { return Ok(None) };
            let stones = Stones::after(rules, prefix).map_err(illegal)?;
            stone_symmetries_between(&stones, target, size).collect()
        } else {
            symmetries_between(prefix, target, size).collect()
        };
        if symmetries.is_empty() {
            return Ok(None);
        }
        let Some(&next) = game.moves.get(depth) else { return Ok(Some(None)) };
        Ok(Some(first_point(symmetries.iter().map(|s| s.apply(next, size)))))
    }

    /// The games that reached the explorer's position under `rules`, and
    /// the next moves from it in the position's frame with their games.
    #[must_use]
    pub fn next_moves(&self, rules: Rules) -> (Tally, Vec<(Point, Tally)>) {
        match self.reached.get(&rules) {
            Some(reached) => (reached.all, reached.next.iter().map(|(&p, &t)| (p, t)).collect()),
            None => (Tally::default(), Vec::new()),
        }
    }

    /// Reads and counts every game of the files `paths`, in order.
    ///
    /// A bad record stops the reading with its error, unless `skip_bad`
    /// is set: then it goes to `on_skip` and reading goes on. A file that
    /// cannot be read (or read on) always stops it. Returns how many
    /// records were skipped.
    ///
    /// # Errors
    /// The first bad record (or unreadable file), naming the file and line.
    pub fn read_files<P: AsRef<Path>>(
        &mut self,
        paths: &[P],
        skip_bad: bool,
        mut on_skip: impl FnMut(&InputError),
    ) -> Result<u64, InputError> {
        let mut skipped = 0;
        for path in paths {
            let path = path.as_ref();
            for game in read_games(path)? {
                let error = match game {
                    Ok(game) => match self.add_game(&game) {
                        Ok(()) => continue,
                        Err(e) => {
                            let error = InputError::record(path, game.line, e.to_string());
                            match e {
                                Uncountable::Illegal { source, .. } => error.caused_by(Cause::new(source)),
                                Uncountable::OffBoard { .. } => error,
                            }
                        }
                    },
                    Err(error) => error,
                };
                if !skip_bad || error.fatal {
                    return Err(error);
                }
                on_skip(&error);
                skipped += 1;
            }
        }
        Ok(skipped)
    }

    /// All games counted (with a result, within the filters).
    #[must_use]
    pub fn total(&self) -> Tally {
        self.all
    }
}

/// Why a game cannot be counted.
#[derive(Debug, Error)]
enum Uncountable {
    /// A stone off the board: symmetries apply to points on it only.
    #[error("move {ply}: {point} is off the {size}x{size} board")]
    OffBoard { ply: usize, point: Point, size: u8 },
    /// An illegal move in the part of the game that is replayed.
    #[error("move {ply} is illegal: {source} (see `pente validate`)")]
    Illegal { ply: usize, source: IllegalMove },
}

fn illegal((ply, source): (usize, IllegalMove)) -> Uncountable {
    Uncountable::Illegal { ply, source }
}
