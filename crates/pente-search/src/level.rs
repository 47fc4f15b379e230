//! Strength levels: settings of visits, move temperature and the threat
//! solver's budget that users choose by number, from 1 (the network's
//! policy, sampled) to [`LEVELS`] (the full-strength player).

use crate::params::{SearchParams, TacticsParams};
use crate::solver::SolverParams;

/// The strongest level.
pub const LEVELS: u8 = 9;

/// The longest time a move's search may be given, in seconds: a search of
/// longer than about ten minutes is a mistake on this machine.
pub const MAX_SECONDS: f64 = 600.0;

/// What a level sets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Level {
    /// 1 (weakest) to [`LEVELS`].
    pub number: u8,
    /// Playouts a move.
    pub visits: u32,
    /// Moves drawn with weights visits^(1/T); 0 plays the most visited.
    pub temperature: f32,
    /// The threat solver: off, or the search's budgets with the root's
    /// threes and nodes given here.
    pub solver: Solver,
    /// Plays the opening book's move while the game is in the book, where
    /// the program has one (`play`, `engine` and `serve`): the full-strength
    /// levels do, the weaker ones keep their own openings.
    pub book: bool,
}

/// The threat solver's part in a level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Solver {
    /// Not used: tactics come from the network and the search alone.
    Off,
    /// At the root (a VCT with this many threes and nodes) and at leaves.
    On {
        /// Quiet threats the root's solve may use.
        threes: u8,
        /// Nodes the root's solve may play.
        nodes: u64,
        /// Best moves checked for a forced win of the opponent after the
        /// search (the verify step).
        verify: u32,
    },
}

/// Every level, weakest first. The weakest play the network's policy
/// alone (one visit, the move drawn from the priors), where drawing from a
/// handful of visits would play the noise of the search (it measured
/// weaker); then the search grows, and with it the solver.
pub const TABLE: [Level; LEVELS as usize] = [
    Level { number: 1, visits: 1, temperature: 1.0, solver: Solver::Off, book: false },
    Level { number: 2, visits: 1, temperature: 0.5, solver: Solver::Off, book: false },
    Level { number: 3, visits: 8, temperature: 0.0, solver: Solver::Off, book: false },
    Level { number: 4, visits: 32, temperature: 0.0, solver: Solver::Off, book: false },
    Level {
        number: 5,
        visits: 64,
        temperature: 0.0,
        solver: Solver::On { threes: 0, nodes: 5_000, verify: 0 },
        book: false,
    },
    Level {
        number: 6,
        visits: 128,
        temperature: 0.0,
        solver: Solver::On { threes: 1, nodes: 50_000, verify: 0 },
        book: false,
    },
    Level {
        number: 7,
        visits: 400,
        temperature: 0.0,
        solver: Solver::On { threes: 1, nodes: 50_000, verify: 2 },
        book: true,
    },
    Level {
        number: 8,
        visits: 800,
        temperature: 0.0,
        solver: Solver::On { threes: 1, nodes: 50_000, verify: 2 },
        book: true,
    },
    Level {
        number: 9,
        visits: 1600,
        temperature: 0.0,
        solver: Solver::On { threes: 2, nodes: 200_000, verify: 3 },
        book: true,
    },
];

/// The level of `number`.
///
/// # Errors
/// A message for a number outside 1 to [`LEVELS`].
pub fn level(number: u8) -> Result<Level, String> {
    TABLE
        .iter()
        .find(|l| l.number == number)
        .copied()
        .ok_or_else(|| format!("level {number} does not exist: levels go from 1 (weakest) to {LEVELS} (full strength)"))
}

/// The level a player without one plays at.
pub const DEFAULT_LEVEL: u8 = 7;

/// Whether a player at level `number` (`None`: the default player, at any
/// visits or time) plays from an opening book ([`Level::book`]); a number
/// outside the table does not.
#[must_use]
pub fn plays_book(number: Option<u8>) -> bool {
    level(number.unwrap_or(DEFAULT_LEVEL)).is_ok_and(|level| level.book)
}

/// The settings of level `number` if given, else [`DEFAULT_LEVEL`]'s at
/// `visits` (default: its 400), with a description (`400 visits`,
/// `level 3 (8 visits, best move, no solver)`).
///
/// # Errors
/// A message for a level outside 1 to [`LEVELS`], or visits outside 1 to 1000000.
pub fn strength(number: Option<u8>, visits: Option<u32>) -> Result<(SearchParams, String), String> {
    match number {
        Some(number) => {
            let level = level(number)?;
            Ok((level.params(), format!("level {number} ({})", level.describe())))
        }
        None => {
            let default = level(DEFAULT_LEVEL)?.params();
            let visits = visits.unwrap_or(default.visits);
            if visits == 0 || visits > 1_000_000 {
                return Err(format!("visits must be between 1 and 1000000, not {visits}"));
            }
            Ok((SearchParams { visits, ..default }, format!("{visits} visits")))
        }
    }
}

/// [`strength`] with a time per move: the search also stops after
/// `seconds`, and given a time alone it runs until then (up to a million
/// visits).
///
/// # Errors
/// As [`strength`], or a time that is not above 0 and at most [`MAX_SECONDS`].
pub fn timed_strength(
    number: Option<u8>,
    visits: Option<u32>,
    seconds: Option<f64>,
) -> Result<(SearchParams, String), String> {
    let Some(seconds) = seconds else { return strength(number, visits) };
    if !(seconds > 0.0 && seconds <= MAX_SECONDS) {
        return Err(format!("seconds must be above 0 and at most {MAX_SECONDS}, not {seconds}"));
    }
    let alone = number.is_none() && visits.is_none();
    let (mut params, description) = strength(number, if alone { Some(1_000_000) } else { visits })?;
    params.max_seconds = Some(seconds);
    let description =
        if alone { format!("{seconds} s a move") } else { format!("{description}, at most {seconds} s a move") };
    Ok((params, description))
}

/// The time a game clock gives the next move: an even share of the time
/// left over the moves the mover may still have to play (as many as 25 less
/// half the moves played, at least 10), plus most of the increment, and
/// never more than half of what is left, so that a long game does not run
/// out.
#[must_use]
pub fn move_time(remaining: f64, increment: f64, moves_played: usize) -> f64 {
    let moves_left = (25.0 - moves_played as f64 / 2.0).max(10.0);
    (remaining / moves_left + 0.8 * increment).min(remaining / 2.0)
}

impl Level {
    /// The search settings of this level.
    #[must_use]
    pub fn params(&self) -> SearchParams {
        let defaults = TacticsParams::default();
        let tactics = match self.solver {
            Solver::Off => TacticsParams { enabled: false, ..defaults },
            Solver::On { threes, nodes, verify } => TacticsParams {
                enabled: true,
                root: SolverParams { max_threes: threes, max_nodes: nodes, ..defaults.root },
                verify_moves: verify,
                ..defaults
            },
        };
        SearchParams { visits: self.visits, move_temperature: self.temperature, tactics, ..SearchParams::default() }
    }

    /// `400 visits, best move, solver (1 three, 50000 nodes)`.
    #[must_use]
    pub fn describe(&self) -> String {
        let moves =
            if self.temperature > 0.0 { format!("temperature {}", self.temperature) } else { "best move".into() };
        let solver = match self.solver {
            Solver::Off => "no solver".to_string(),
            Solver::On { threes, nodes, verify } => {
                let threes = match threes {
                    0 => "VCF only".to_string(),
                    1 => "1 three".to_string(),
                    n => format!("{n} threes"),
                };
                let verify = if verify > 0 { format!(", {verify} moves verified") } else { String::new() };
                format!("solver ({threes}, {nodes} nodes{verify})")
            }
        };
        format!("{} visit{}, {moves}, {solver}", self.visits, if self.visits == 1 { "" } else { "s" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_full_strength_levels_and_the_default_player_play_from_a_book() {
        assert!(plays_book(None), "the default player");
        for number in 1..=LEVELS {
            assert_eq!(plays_book(Some(number)), number >= DEFAULT_LEVEL, "level {number}");
        }
        assert!(!plays_book(Some(LEVELS + 1)));
    }

    #[test]
    fn a_game_clock_spends_its_time_over_the_game() {
        // Five minutes at the start: 12 s, plus most of a 10 s increment.
        assert!((move_time(300.0, 0.0, 0) - 12.0).abs() < 1e-9);
        assert!((move_time(300.0, 10.0, 0) - 20.0).abs() < 1e-9);
        // Later moves get a larger share of what is left, at most a tenth...
        assert!((move_time(100.0, 0.0, 40) - 10.0).abs() < 1e-9);
        assert!((move_time(100.0, 0.0, 90) - 10.0).abs() < 1e-9);
        // ... and never more than half of it, whatever the increment.
        assert!((move_time(4.0, 10.0, 10) - 2.0).abs() < 1e-9);
    }

    #[test]
    fn a_time_per_move_caps_the_search_or_is_its_only_budget() {
        let (alone, said) = timed_strength(None, None, Some(1.5)).unwrap();
        assert_eq!((alone.visits, alone.max_seconds, said.as_str()), (1_000_000, Some(1.5), "1.5 s a move"));
        let (capped, said) = timed_strength(Some(9), None, Some(2.0)).unwrap();
        assert_eq!((capped.visits, capped.max_seconds), (1600, Some(2.0)));
        assert!(said.starts_with("level 9") && said.ends_with("at most 2 s a move"), "{said}");
        let (plain, _) = timed_strength(None, Some(50), None).unwrap();
        assert_eq!((plain.visits, plain.max_seconds), (50, None));
        for bad in [0.0, -1.0, f64::NAN, 601.0] {
            assert!(timed_strength(None, None, Some(bad)).unwrap_err().contains("seconds"), "{bad}");
        }
    }

    #[test]
    fn levels_grow_in_strength_settings() {
        for pair in TABLE.windows(2) {
            let (weaker, stronger) = (pair[0], pair[1]);
            assert_eq!(stronger.number, weaker.number + 1);
            assert!(stronger.visits >= weaker.visits && stronger.temperature <= weaker.temperature);
        }
        assert!(level(0).is_err() && level(LEVELS + 1).unwrap_err().contains("1 (weakest) to 9"));
        let top = level(LEVELS).unwrap().params();
        assert!(top.tactics.enabled && top.tactics.verify_moves > 0 && top.move_temperature == 0.0);
        let bottom = level(1).unwrap().params();
        assert!(!bottom.tactics.enabled && bottom.visits == 1 && bottom.move_temperature == 1.0);
        // The default player is the default search, its best moves checked
        // (at 400 visits this took Keryo from 189-11 to 192-8 against the
        // heuristic over 200 games; the arena took 5.6 minutes, not 4.5).
        let mut default = SearchParams::default();
        default.tactics.verify_moves = 2;
        assert_eq!(level(DEFAULT_LEVEL).unwrap().params(), default);
        assert_eq!(strength(None, None).unwrap().0, default);
        assert_eq!(strength(None, Some(800)).unwrap().0, SearchParams { visits: 800, ..default });
    }
}
