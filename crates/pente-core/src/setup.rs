//! Positions from a setup: an unchecked description of a position
//! ([`Setup`]) that [`Position::from_setup`] checks against the rules, and
//! its one-line text form, so that tests and data files can write a
//! position in one line instead of the moves that reach it.
//!
//! A setup holds everything a [`Position`] is: the rules, the stones, the
//! stones captured by each colour, the side to move, the ply, the recent
//! moves and, in D-Pente and Swap2, the colour choices made. The hash and
//! the outcome are not part of it: both are computed.
//!
//! ```
//! use pente_core::{Color, Position, Setup};
//!
//! // Pente, Black to move at ply 3: White on K10 and K7, Black on L9.
//! let text = "pente 19/19/19/19/19/19/19/19/19/9W9/10B8/19/9W9/19/19/19/19/19/19 b ply=3 captures=0-0 recent=K7,L9,K10";
//! let setup: Setup = text.parse().unwrap();
//! let position = Position::from_setup(&setup).unwrap();
//! assert_eq!(position.stone_at("K7".parse().unwrap()), Some(Color::White));
//! assert_eq!(position.setup().to_string(), text);
//! assert_eq!(text.parse::<Position>().unwrap(), position);
//! ```
//!
//! # Text form
//!
//! Fields are separated by spaces, in this order:
//!
//! ```text
//! <rules> <board> <side> ply=<n> captures=<white>-<black> recent=<points> [choices=<choices>]
//! ```
//!
//! - `rules`: as [`Rules`] spells them: the variant's name (any of
//!   [`Variant::ALL`](crate::Variant::ALL)), with `/<size>` unless the board
//!   is 19x19: `pente`, `keryo/13`, `swap2-pente/9`.
//! - `board`: the rows from the top (row `size`) down to row 1, separated by
//!   `/`; in each row, from column A, `W` and `B` are stones and a number
//!   counts empty points: `19` is an empty 19x19 row, `9W9` a White stone
//!   on K. Stones parse in either case.
//! - `side`: `w` or `b`, the colour of the next stone ([`Position::to_move`]).
//! - `ply`: the stones placed so far ([`Position::ply`]; a colour choice is
//!   not one).
//! - `captures`: the stones captured by White and by Black (in Poof-Pente,
//!   those credited to each).
//! - `recent`: the last stones placed, newest first, at most
//!   [`RECENT_MOVES`], separated by commas; `-` for none. It may be shorter
//!   than the history when that is unknown, but it holds the last move
//!   whenever there was one, and under Boat-Pente's rules the move before it
//!   too: the rules read them.
//! - `choices`: D-Pente and Swap2 only: the colour choices made so far, in
//!   order: `-` (none yet), `swap`, `stay`, `pass`, `pass,swap` or
//!   `pass,stay`. Written only for those variants; when left out, none.
//!
//! A D-Pente position after the opener's four stones, the second player
//! having swapped:
//!
//! ```
//! # use pente_core::{Color, Position, Seat};
//! let text = "d-pente/9 9/9/9/9/3WBWB2/9/9/9/9 w ply=4 captures=0-0 recent=G5,F5,E5,D5 choices=swap";
//! let position: Position = text.parse().unwrap();
//! assert_eq!(position.holder(Color::White), Some(Seat::Second));
//! assert_eq!(position.setup().to_string(), text);
//! ```
//!
//! # Checks and the outcome
//!
//! [`Position::from_setup`] refuses, with a [`SetupError`] that says what is
//! wrong, a setup that no game under its rules reaches in these respects:
//! stones or recent moves off the board; stones that do not add up to the
//! ply and the captures (each colour's stones on the board are those it
//! placed less those credited to the opponent); captures the variant cannot
//! make; a side to move that is not the colour of the next stone; recent
//! moves that are not stones of the colour that placed them (nor empty
//! where a capture or a poof can have removed them); colour choices
//! the variant or the ply does not allow; a first stone off the centre, or a
//! move 3 the tournament rule forbids, while no capture could have removed
//! them. These are necessary conditions, not a proof that the position can
//! be reached.
//!
//! The outcome is derived, never given: the end checks of the last move are
//! run again on the board it left, so a five through the last stone, or the
//! last mover's captures at the winning count, or a full board make a
//! finished game, exactly as playing that move does. A setup whose game
//! would have ended earlier is refused rather than declared over: a
//! winning line on the board of a game that goes on
//! ([`SetupError::StrayLine`]; under Boat-Pente's rules the last mover's
//! five that waits for the reply is no such line), or captures at the
//! winning count by the player who did not make the last move
//! ([`SetupError::TooManyCaptures`]). A finished game's other lines are
//! not checked.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::color::Color;
use crate::point::{Choice, ParsePointError, Point};
use crate::position::{Position, RECENT_MOVES};
use crate::rules::{ColourChoice, Opening, OpeningViolation, Rules, RulesError, Variant};

/// An unchecked description of a position, the fields a [`Position`] is
/// made of; [`Position::from_setup`] checks it. Its text form is described
/// in the [module documentation](self).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Setup {
    /// The rules, with the board size.
    pub rules: Rules,
    /// The stones on the board.
    pub stones: BTreeMap<Point, Color>,
    /// Stones captured by (in Poof-Pente: credited to) each colour, indexed
    /// by [`Color::index`].
    pub captured: [u16; 2],
    /// The colour of the next stone.
    pub to_move: Color,
    /// Stones placed so far (a colour choice is not one).
    pub ply: u32,
    /// The last stones placed, newest first, at most [`RECENT_MOVES`].
    pub recent_moves: Vec<Point>,
    /// The seats in D-Pente and Swap2: the colour choices made so far, in
    /// order (`[Pass, Swap]` after a pass and a swap); empty in every other
    /// variant.
    pub choices: Vec<Choice>,
}

impl Setup {
    /// The empty board under `rules`, White to move.
    #[must_use]
    pub fn empty(rules: Rules) -> Setup {
        Setup {
            rules,
            stones: BTreeMap::new(),
            captured: [0; 2],
            to_move: Color::White,
            ply: 0,
            recent_moves: Vec::new(),
            choices: Vec::new(),
        }
    }

    /// The checked position, as [`Position::from_setup`].
    ///
    /// # Errors
    /// A [`SetupError`] naming what no game reaches.
    pub fn position(&self) -> Result<Position, SetupError> {
        Position::from_setup(self)
    }
}

impl Default for Setup {
    /// The empty 19x19 Pente board.
    fn default() -> Setup {
        Setup::empty(Rules::pente())
    }
}

impl From<&Position> for Setup {
    fn from(position: &Position) -> Setup {
        let rules = *position.rules();
        let size = rules.size();
        let stones = (0..size)
            .flat_map(|y| (0..size).map(move |x| Point::new(x, y)))
            .filter_map(|p| position.stone_at(p).map(|color| (p, color)))
            .collect();
        let mut choices = Vec::new();
        if rules.colour_choice().is_some() {
            if position.passed() {
                choices.push(Choice::Pass);
            }
            if position.seats_decided() {
                choices.push(if position.swapped() { Choice::Swap } else { Choice::Stay });
            }
        }
        Setup {
            rules,
            stones,
            captured: Color::ALL.map(|color| position.captured(color)),
            to_move: position.to_move(),
            ply: position.ply(),
            recent_moves: position.recent_moves().collect(),
            choices,
        }
    }
}

impl From<Position> for Setup {
    fn from(position: Position) -> Setup {
        Setup::from(&position)
    }
}

/// Why a [`Setup`] is not a position its rules reach.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SetupError {
    /// A stone is not on the board.
    #[error("stone {point}: off the {size}x{size} board")]
    OffBoard {
        /// The stone's point.
        point: Point,
        /// The board side.
        size: u8,
    },
    /// Captures in a variant without them.
    #[error("{color} has captured {count} stones, but {variant} has no captures")]
    NoCaptures {
        /// Who captured.
        color: Color,
        /// The stones captured.
        count: u16,
        /// The variant.
        variant: Variant,
    },
    /// An odd number of stones where only pairs are captured.
    #[error("{color} has captured {count} stones, an odd number, but {variant} captures pairs only")]
    OddCaptures {
        /// Who captured.
        color: Color,
        /// The stones captured.
        count: u16,
        /// The variant.
        variant: Variant,
    },
    /// More stones placed than are on the board or captured.
    #[error("ply {ply}, but only {on_board} stones are on the board and {captured} were captured")]
    PlyCount {
        /// The setup's ply.
        ply: u32,
        /// Stones on the board.
        on_board: usize,
        /// Stones captured by both colours.
        captured: u32,
    },
    /// A colour's stones do not add up: those on the board are those it
    /// placed less those credited to the opponent.
    #[error(
        "{on_board} {color} stones on the board, but the first {ply} stones hold {placed} of {color}'s and the opponent took {taken}"
    )]
    StoneCount {
        /// The colour.
        color: Color,
        /// Its stones on the board.
        on_board: usize,
        /// The setup's ply.
        ply: u32,
        /// Its stones among the first `ply`.
        placed: u32,
        /// Its stones credited to the opponent.
        taken: u16,
    },
    /// The side to move is not the colour of the next stone.
    #[error("{found} to move, but stone {} is {expected}'s", ply + 1)]
    SideToMove {
        /// The colour of stone `ply + 1`.
        expected: Color,
        /// The setup's side to move.
        found: Color,
        /// The setup's ply.
        ply: u32,
    },
    /// Colour choices in a variant that has none.
    #[error("colour choices `{}` in {variant}, which has no colour choice", choice_list(choices))]
    ChoicesInVariant {
        /// The variant.
        variant: Variant,
        /// The setup's choices.
        choices: Vec<Choice>,
    },
    /// Colour choices the variant cannot have made by this ply.
    #[error("colour choices `{}` are not a state of {variant} at ply {ply}", choice_list(choices))]
    Choices {
        /// The variant.
        variant: Variant,
        /// The setup's ply.
        ply: u32,
        /// The setup's choices.
        choices: Vec<Choice>,
    },
    /// Too many or too few recent moves.
    #[error("{count} recent moves at ply {ply}, expected {min} to {max}")]
    RecentCount {
        /// The setup's ply.
        ply: u32,
        /// The recent moves given.
        count: usize,
        /// The fewest allowed: the last move, and the one before it under
        /// Boat-Pente's rules (the rules read them).
        min: usize,
        /// The most: the ply, up to [`RECENT_MOVES`].
        max: usize,
    },
    /// A recent move off the board.
    #[error("recent move {point}: off the {size}x{size} board")]
    RecentOffBoard {
        /// The move.
        point: Point,
        /// The board side.
        size: u8,
    },
    /// A recent move whose point does not hold the stone it placed (nor is
    /// empty where that stone could since have been removed).
    #[error(
        "recent move {point} (stone {number}) is {}, not a {expected} stone",
        found.map_or("empty", Color::name)
    )]
    RecentStone {
        /// The move.
        point: Point,
        /// Its 1-based stone number.
        number: u32,
        /// The colour that placed it.
        expected: Color,
        /// What the point holds.
        found: Option<Color>,
    },
    /// A point placed twice among the recent moves where no stone is ever
    /// removed.
    #[error("recent move {point} is played twice, but {variant} never empties a point")]
    RecentRepeated {
        /// The move.
        point: Point,
        /// The variant.
        variant: Variant,
    },
    /// The first stone must be on the centre, and no capture can have
    /// removed it yet.
    #[error("ply {ply}: the centre {centre} must hold White's first stone")]
    CentreEmpty {
        /// The centre.
        centre: Point,
        /// The setup's ply.
        ply: u32,
    },
    /// White's move 3 breaks the opening rule.
    #[error("White's move 3 {point}: {violation}")]
    Opening {
        /// The stone.
        point: Point,
        /// The rule broken.
        violation: OpeningViolation,
    },
    /// Captures at the winning count by the player who did not make the
    /// last move: the game would have ended at his own move.
    #[error("{color} has captured {count} stones, at least the {win} that win, but did not make the last move")]
    TooManyCaptures {
        /// Who captured.
        color: Color,
        /// The stones captured.
        count: u16,
        /// The variant's winning count.
        win: u16,
    },
    /// A winning line in a game that goes on: it would have ended the game
    /// at the move that made it.
    #[error("{color}'s stone {point} is in a winning line, but the game goes on (the line would have ended it)")]
    StrayLine {
        /// Whose line.
        color: Color,
        /// A stone of it.
        point: Point,
    },
}

fn choice_list(choices: &[Choice]) -> String {
    if choices.is_empty() { "-".to_string() } else { choices.iter().map(|c| c.name()).collect::<Vec<_>>().join(",") }
}

impl Position {
    /// The setup of this position: every field a [`Position`] is made of.
    #[must_use]
    pub fn setup(&self) -> Setup {
        Setup::from(self)
    }

    /// The position `setup` describes, with its hash computed and its
    /// outcome derived (see the [`setup`](crate::setup) module): equal,
    /// with the same hash and legal moves, to the position reached by moves.
    ///
    /// # Errors
    /// A [`SetupError`] naming the first thing no game reaches.
    pub fn from_setup(setup: &Setup) -> Result<Position, SetupError> {
        let rules = setup.rules;
        let size = rules.size();
        if let Some(&point) = setup.stones.keys().find(|&&p| !rules.contains(p)) {
            return Err(SetupError::OffBoard { point, size });
        }
        check_captures(setup)?;
        check_stones(setup)?;
        let expected = rules.colour_of_stone(setup.ply);
        if setup.to_move != expected {
            return Err(SetupError::SideToMove { expected, found: setup.to_move, ply: setup.ply });
        }
        let seats = seats(setup)?;
        check_recent(setup)?;
        check_opening(setup)?;
        let position = Position::from_parts(
            rules,
            setup.stones.iter().map(|(&p, &color)| (p, color)),
            setup.captured,
            setup.ply,
            &setup.recent_moves,
            seats,
        );
        if let (Some(win), false, Some(stones)) = (rules.capture_win(), rules.poofs(), setup.ply.checked_sub(1)) {
            let other = rules.colour_of_stone(stones).opponent();
            let count = setup.captured[other.index()];
            if count >= win {
                return Err(SetupError::TooManyCaptures { color: other, count, win });
            }
        }
        if let Some((color, point)) = position.stray_line() {
            return Err(SetupError::StrayLine { color, point });
        }
        Ok(position)
    }
}

fn check_captures(setup: &Setup) -> Result<(), SetupError> {
    let rules = setup.rules;
    let variant = rules.variant();
    let pairs_only = rules.captures_run_of(2) && !rules.captures_run_of(3) && !rules.poofs();
    for color in Color::ALL {
        let count = setup.captured[color.index()];
        if count != 0 && !rules.has_captures() {
            return Err(SetupError::NoCaptures { color, count, variant });
        }
        if pairs_only && !count.is_multiple_of(2) {
            return Err(SetupError::OddCaptures { color, count, variant });
        }
    }
    Ok(())
}

fn check_stones(setup: &Setup) -> Result<(), SetupError> {
    let rules = setup.rules;
    let on_board = setup.stones.len();
    let captured = u32::from(setup.captured[0]) + u32::from(setup.captured[1]);
    // Checked first, so that counting the stones placed stays short.
    if u64::from(setup.ply) > on_board as u64 + u64::from(captured) {
        return Err(SetupError::PlyCount { ply: setup.ply, on_board, captured });
    }
    let mut placed = [0u32; 2];
    for k in 0..setup.ply {
        placed[rules.colour_of_stone(k).index()] += 1;
    }
    for color in Color::ALL {
        let on_board = setup.stones.values().filter(|&&c| c == color).count();
        let taken = setup.captured[color.opponent().index()];
        if on_board as u64 + u64::from(taken) != u64::from(placed[color.index()]) {
            return Err(SetupError::StoneCount {
                color,
                on_board,
                ply: setup.ply,
                placed: placed[color.index()],
                taken,
            });
        }
    }
    Ok(())
}

/// The seats (decided, swapped, passed) the choices make, if the variant
/// can be in that state at this ply.
fn seats(setup: &Setup) -> Result<(bool, bool, bool), SetupError> {
    let variant = setup.rules.variant();
    let ply = setup.ply;
    let Some(colour_choice) = setup.rules.colour_choice() else {
        if !setup.choices.is_empty() {
            return Err(SetupError::ChoicesInVariant { variant, choices: setup.choices.clone() });
        }
        return Ok((true, false, false));
    };
    let first = colour_choice.stones_before_choice();
    let swap2 = colour_choice == ColourChoice::Swap2;
    // Stones wait while a choice is pending: none is placed past it.
    let seats = match setup.choices.as_slice() {
        [] if ply <= first => Some((false, false, false)),
        [choice @ (Choice::Swap | Choice::Stay)] if ply >= first => Some((true, *choice == Choice::Swap, false)),
        [Choice::Pass] if swap2 && (first..=first + 2).contains(&ply) => Some((false, false, true)),
        [Choice::Pass, choice @ (Choice::Swap | Choice::Stay)] if swap2 && ply >= first + 2 => {
            Some((true, *choice == Choice::Swap, true))
        }
        _ => None,
    };
    seats.ok_or_else(|| SetupError::Choices { variant, ply, choices: setup.choices.clone() })
}

fn check_recent(setup: &Setup) -> Result<(), SetupError> {
    let rules = setup.rules;
    let recent = &setup.recent_moves;
    let ply = usize::try_from(setup.ply).unwrap_or(usize::MAX);
    let max = ply.min(RECENT_MOVES);
    let min = ply.min(if rules.boat() { 2 } else { 1 });
    if !(min..=max).contains(&recent.len()) {
        return Err(SetupError::RecentCount { ply: setup.ply, count: recent.len(), min, max });
    }
    if let Some(&point) = recent.iter().find(|&&p| !rules.contains(p)) {
        return Err(SetupError::RecentOffBoard { point, size: rules.size() });
    }
    // Captures (and poofs) can have emptied a point since its stone was
    // placed, and a later stone refilled it; the newest stone on a point
    // is still there unless removed (and only a poof removes the last one).
    let removals = rules.has_captures() || rules.poofs();
    for (k, &point) in recent.iter().enumerate() {
        let stone = setup.ply - 1 - k as u32;
        if recent[..k].contains(&point) {
            if !removals {
                return Err(SetupError::RecentRepeated { point, variant: rules.variant() });
            }
            continue;
        }
        let expected = rules.colour_of_stone(stone);
        let found = setup.stones.get(&point).copied();
        let may_be_empty = if k == 0 { rules.poofs() } else { removals };
        if found != Some(expected) && !(found.is_none() && may_be_empty) {
            return Err(SetupError::RecentStone { point, number: stone + 1, expected, found });
        }
    }
    Ok(())
}

/// The first stone (and under the tournament rule White's move 3), while
/// no capture can have removed them: a capture takes four stones.
fn check_opening(setup: &Setup) -> Result<(), SetupError> {
    let rules = setup.rules;
    if !(1..=3).contains(&setup.ply) || rules.opening() == Opening::Free {
        return Ok(());
    }
    let centre = rules.centre();
    if setup.stones.get(&centre) != Some(&Color::White) {
        return Err(SetupError::CentreEmpty { centre, ply: setup.ply });
    }
    if setup.ply == 3 && rules.colour_of_stone(2) == Color::White {
        let third = setup.stones.iter().find(|&(&p, &color)| color == Color::White && p != centre);
        if let Some((&point, _)) = third
            && let Some(violation) = rules.opening_violation(2, point)
        {
            return Err(SetupError::Opening { point, violation });
        }
    }
    Ok(())
}

impl TryFrom<&Setup> for Position {
    type Error = SetupError;

    fn try_from(setup: &Setup) -> Result<Position, SetupError> {
        Position::from_setup(setup)
    }
}

impl TryFrom<Setup> for Position {
    type Error = SetupError;

    fn try_from(setup: Setup) -> Result<Position, SetupError> {
        Position::from_setup(&setup)
    }
}

// ---------------------------------------------------------------------------
// The text form

/// What is wrong with the board field of a setup's text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BoardTextError {
    /// Not one row per board row.
    #[error("{found} rows, expected {expected} (from the top, separated by `/`)")]
    Rows {
        /// The board side.
        expected: u8,
        /// Rows written.
        found: usize,
    },
    /// A row does not add up to the board side.
    #[error("row {row} has {found} points, expected {expected}")]
    RowLength {
        /// The row's number (1 at the bottom).
        row: u8,
        /// Points the row spells.
        found: u64,
        /// The board side.
        expected: u8,
    },
    /// A character that is neither a stone nor a digit.
    #[error("row {row}: `{found}` is neither a stone (`W`, `B`) nor a count of empty points")]
    Char {
        /// The row's number (1 at the bottom).
        row: u8,
        /// The character.
        found: char,
    },
}

/// Why a setup's text does not parse: the field, the text at fault and
/// what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseSetupError {
    /// The text ends before a required field.
    #[error(
        "missing {field} (a setup reads `<rules> <board> <side> ply=<n> captures=<white>-<black> recent=<points>`, \
         then `choices=<choices>` in D-Pente and Swap2)"
    )]
    Missing {
        /// The field missing.
        field: &'static str,
    },
    /// The rules field.
    #[error("rules `{text}`: {source}")]
    Rules {
        /// The field as written.
        text: String,
        /// Why it is not a rule set.
        #[source]
        source: RulesError,
    },
    /// The board field.
    #[error("board `{text}`: {source}")]
    Board {
        /// The row at fault, or the whole field when the rows do not count up.
        text: String,
        /// What is wrong.
        #[source]
        source: BoardTextError,
    },
    /// The side to move.
    #[error("side to move `{text}`: expected `w` or `b`")]
    Side {
        /// The field as written.
        text: String,
    },
    /// The ply.
    #[error("ply `{text}`: expected `ply=` and the number of stones placed, as in `ply=23`")]
    Ply {
        /// The field as written.
        text: String,
    },
    /// The captures.
    #[error("captures `{text}`: expected `captures=` and the stones taken by White and by Black, as in `captures=2-4`")]
    Captures {
        /// The field as written.
        text: String,
    },
    /// The recent moves' field.
    #[error("recent moves `{text}`: expected `recent=` and points newest first, as in `recent=K10,L9`, or `recent=-`")]
    Recent {
        /// The field as written.
        text: String,
    },
    /// A recent move that is not a point.
    #[error("recent move `{text}`: {source}")]
    RecentPoint {
        /// The move as written.
        text: String,
        /// Why it is not a point.
        #[source]
        source: ParsePointError,
    },
    /// The colour choices.
    #[error("colour choices `{text}`: expected `choices=` and `-`, `swap`, `stay`, `pass`, `pass,swap` or `pass,stay`")]
    Choices {
        /// The field as written.
        text: String,
    },
    /// More text after the last field.
    #[error("unexpected `{text}` after the setup")]
    Trailing {
        /// The first field too many.
        text: String,
    },
}

impl fmt::Display for Setup {
    /// The one-line text form of the [module documentation](self). Stones
    /// off the board, which no position has, are not written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let size = self.rules.size();
        write!(f, "{} ", self.rules)?;
        for y in (0..size).rev() {
            let mut empty = 0;
            for x in 0..size {
                match self.stones.get(&Point::new(x, y)) {
                    None => empty += 1,
                    Some(color) => {
                        if empty > 0 {
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        write!(f, "{}", color.char())?;
                    }
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
            if y > 0 {
                f.write_str("/")?;
            }
        }
        let side = self.to_move.char().to_ascii_lowercase();
        write!(f, " {side} ply={} captures={}-{} recent=", self.ply, self.captured[0], self.captured[1])?;
        if self.recent_moves.is_empty() {
            f.write_str("-")?;
        }
        for (k, p) in self.recent_moves.iter().enumerate() {
            write!(f, "{}{p}", if k > 0 { "," } else { "" })?;
        }
        if self.rules.colour_choice().is_some() || !self.choices.is_empty() {
            write!(f, " choices={}", choice_list(&self.choices))?;
        }
        Ok(())
    }
}

impl FromStr for Setup {
    type Err = ParseSetupError;

    /// Parses the text form of the [module documentation](self). The
    /// setup is not checked: [`Position::from_setup`] does that.
    fn from_str(s: &str) -> Result<Setup, ParseSetupError> {
        let mut fields = s.split_whitespace();
        let mut next = |field: &'static str| fields.next().ok_or(ParseSetupError::Missing { field });
        let text = next("rules")?;
        let rules: Rules = text.parse().map_err(|source| ParseSetupError::Rules { text: text.to_string(), source })?;
        let stones = parse_board(next("board")?, rules.size())?;
        let to_move = match next("side to move")? {
            "w" | "W" => Color::White,
            "b" | "B" => Color::Black,
            text => return Err(ParseSetupError::Side { text: text.to_string() }),
        };
        let text = next("ply")?;
        let ply = text
            .strip_prefix("ply=")
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| ParseSetupError::Ply { text: text.to_string() })?;
        let text = next("captures")?;
        let captured = text
            .strip_prefix("captures=")
            .and_then(|v| v.split_once('-'))
            .and_then(|(w, b)| Some([w.parse().ok()?, b.parse().ok()?]))
            .ok_or_else(|| ParseSetupError::Captures { text: text.to_string() })?;
        let text = next("recent moves")?;
        let recent = text.strip_prefix("recent=").ok_or_else(|| ParseSetupError::Recent { text: text.to_string() })?;
        let recent_moves = if recent == "-" {
            Vec::new()
        } else {
            recent
                .split(',')
                .map(|m| m.parse().map_err(|source| ParseSetupError::RecentPoint { text: m.to_string(), source }))
                .collect::<Result<_, _>>()?
        };
        let mut choices = Vec::new();
        if let Some(text) = fields.next() {
            let bad = || ParseSetupError::Choices { text: text.to_string() };
            // A field that is not `key=value` is text after the setup.
            let list = text.strip_prefix("choices=").ok_or_else(|| {
                if text.contains('=') { bad() } else { ParseSetupError::Trailing { text: text.to_string() } }
            })?;
            if list != "-" {
                for name in list.split(',') {
                    let choice = Choice::ALL.into_iter().find(|c| c.name().eq_ignore_ascii_case(name));
                    choices.push(choice.ok_or_else(bad)?);
                }
            }
        }
        if let Some(text) = fields.next() {
            return Err(ParseSetupError::Trailing { text: text.to_string() });
        }
        Ok(Setup { rules, stones, captured, to_move, ply, recent_moves, choices })
    }
}

fn parse_board(text: &str, size: u8) -> Result<BTreeMap<Point, Color>, ParseSetupError> {
    let rows: Vec<&str> = text.split('/').collect();
    if rows.len() != usize::from(size) {
        let source = BoardTextError::Rows { expected: size, found: rows.len() };
        return Err(ParseSetupError::Board { text: text.to_string(), source });
    }
    let mut stones = BTreeMap::new();
    for (row_text, y) in rows.into_iter().zip((0..size).rev()) {
        let fail = |source| ParseSetupError::Board { text: row_text.to_string(), source };
        let row = y + 1;
        // Points spelled so far; a long count saturates rather than wraps.
        let mut x: u64 = 0;
        let mut count: Option<u64> = None;
        for ch in row_text.chars() {
            if let Some(digit) = ch.to_digit(10) {
                count = Some(count.unwrap_or(0).saturating_mul(10).saturating_add(u64::from(digit)));
                continue;
            }
            x = x.saturating_add(count.take().unwrap_or(0));
            let color = match ch {
                'W' | 'w' => Color::White,
                'B' | 'b' => Color::Black,
                found => return Err(fail(BoardTextError::Char { row, found })),
            };
            if x < u64::from(size) {
                stones.insert(Point::new(x as u8, y), color);
            }
            x = x.saturating_add(1);
        }
        x = x.saturating_add(count.unwrap_or(0));
        if x != u64::from(size) {
            return Err(fail(BoardTextError::RowLength { row, found: x, expected: size }));
        }
    }
    Ok(stones)
}

/// A position's text that does not parse, or describes no position.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParsePositionError {
    /// The text is not a setup.
    #[error(transparent)]
    Parse(#[from] ParseSetupError),
    /// The setup is not a position.
    #[error(transparent)]
    Setup(#[from] SetupError),
}

impl FromStr for Position {
    type Err = ParsePositionError;

    /// Parses a [`Setup`]'s text form and checks it.
    fn from_str(s: &str) -> Result<Position, ParsePositionError> {
        Ok(Position::from_setup(&s.parse()?)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EndReason, Game, Outcome};

    fn pt(s: &str) -> Point {
        s.parse().unwrap()
    }

    fn replay(rules: &str, moves: &str) -> Position {
        Game::from_move_list(rules.parse().unwrap(), moves).unwrap().position().clone()
    }

    /// Asserts that `position` and the one rebuilt from its text are the same.
    fn assert_round_trips(position: &Position) -> String {
        let text = position.setup().to_string();
        let setup: Setup = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(setup, position.setup(), "{text}");
        let back = Position::from_setup(&setup).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(&back, position, "{text}");
        assert_eq!(back.hash(), position.hash(), "{text}");
        assert_eq!(back.outcome(), position.outcome(), "{text}");
        assert!(back.legal_moves().eq(position.legal_moves()), "{text}");
        assert!(back.recent_moves().eq(position.recent_moves()), "{text}");
        text
    }

    #[test]
    fn known_positions_and_their_text() {
        for (rules, moves, text) in [
            (
                "pente",
                "K10 L9 K7",
                "pente 19/19/19/19/19/19/19/19/19/9W9/10B8/19/9W9/19/19/19/19/19/19 b ply=3 captures=0-0 \
                 recent=K7,L9,K10",
            ),
            (
                "d-pente/9",
                "D5 E5 F5 G5 swap",
                "d-pente/9 9/9/9/9/3WBWB2/9/9/9/9 w ply=4 captures=0-0 recent=G5,F5,E5,D5 choices=swap",
            ),
            (
                // K10 takes J9 H8, which stay among the recent moves.
                "keryo/13",
                "G7 H8 G4 J9 K10",
                "keryo/13 13/13/13/9W3/13/13/6W6/13/13/6W6/13/13/13 b ply=5 captures=2-0 recent=K10,J9,G4,H8",
            ),
            (
                "swap2-pente",
                "K10 J10 L10 pass M10 A1 stay B2",
                "swap2-pente 19/19/19/19/19/19/19/19/19/8B2B7/19/19/19/19/19/19/19/1B17/W18 w ply=6 captures=0-2 \
                 recent=B2,A1,M10,L10 choices=pass,stay",
            ),
            ("gomoku/7", "", "gomoku/7 7/7/7/7/7/7/7 w ply=0 captures=0-0 recent=-"),
            ("connect6/7", "D4 A1 A2", "connect6/7 7/7/7/3W3/7/B6/B6 w ply=3 captures=0-0 recent=A2,A1,D4"),
        ] {
            let position = replay(rules, moves);
            assert_eq!(assert_round_trips(&position), text);
            assert_eq!(text.parse::<Position>().unwrap(), position);
        }
    }

    #[test]
    fn the_empty_board_of_every_variant_and_size() {
        for variant in Variant::ALL {
            for size in [7, 9, 11, 13, 15, 17, 19] {
                let rules = Rules::new(variant, size).unwrap();
                let text = assert_round_trips(&Position::new(rules));
                assert!(text.starts_with(&format!("{rules} ")), "{text}");
                assert_eq!(Setup::empty(rules).to_string(), text);
            }
        }
        assert_eq!(Setup::default(), Setup::empty(Rules::pente()));
    }

    #[test]
    fn parsing_is_lenient_about_case_and_spaces_and_choices_may_be_left_out() {
        let canonical = replay("swap2-pente/7", "D4 A1 G7").setup();
        let loose = "SWAP2-PENTE/7  6w/7/7/3w3/7/7/b6   B ply=3 captures=0-0 recent=g7,a1,d4";
        assert_eq!(loose.parse::<Setup>().unwrap(), canonical);
        let text = canonical.to_string();
        let left_out = text.strip_suffix(" choices=-").expect("the choices are written in Swap2");
        assert_eq!(left_out.parse::<Setup>(), Ok(canonical.clone()));
        // Elsewhere they are not written, and `-` parses.
        let pente = replay("pente", "K10").setup();
        assert!(!pente.to_string().contains("choices"));
        assert_eq!(format!("{pente} choices=-").parse::<Setup>(), Ok(pente));
    }

    fn parse_error(text: &str) -> ParseSetupError {
        text.parse::<Setup>().expect_err("the text does not parse")
    }

    #[test]
    fn parse_errors_name_the_field_and_the_text() {
        let tail = "w ply=0 captures=0-0 recent=-";
        assert_eq!(parse_error(""), ParseSetupError::Missing { field: "rules" });
        assert_eq!(parse_error("pente/7"), ParseSetupError::Missing { field: "board" });
        assert_eq!(parse_error("pente/7 7/7/7/7/7/7/7"), ParseSetupError::Missing { field: "side to move" });
        assert_eq!(parse_error("pente/7 7/7/7/7/7/7/7 w ply=0"), ParseSetupError::Missing { field: "captures" });
        assert!(matches!(
            parse_error(&format!("renju 19 {tail}")),
            ParseSetupError::Rules { text, source: RulesError::UnknownVariant(_) } if text == "renju"
        ));
        assert!(matches!(
            parse_error(&format!("pente/8 8 {tail}")),
            ParseSetupError::Rules { source: RulesError::BadSize(_), .. }
        ));
        assert_eq!(
            parse_error(&format!("pente/7 7/7/7 {tail}")),
            ParseSetupError::Board { text: "7/7/7".into(), source: BoardTextError::Rows { expected: 7, found: 3 } }
        );
        assert_eq!(
            parse_error(&format!("pente/7 7/7/7/3W4/7/7/7 {tail}")),
            ParseSetupError::Board {
                text: "3W4".into(),
                source: BoardTextError::RowLength { row: 4, found: 8, expected: 7 }
            }
        );
        assert_eq!(
            parse_error(&format!("pente/7 7/7/7/7/7/7/99999999999999999999999W {tail}")),
            ParseSetupError::Board {
                text: "99999999999999999999999W".into(),
                source: BoardTextError::RowLength { row: 1, found: u64::MAX, expected: 7 }
            }
        );
        assert_eq!(
            parse_error(&format!("pente/7 7/7/7/7/7/7/3.3 {tail}")),
            ParseSetupError::Board { text: "3.3".into(), source: BoardTextError::Char { row: 1, found: '.' } }
        );
        let board = "pente/7 7/7/7/3W3/7/7/7";
        assert_eq!(
            parse_error(&format!("{board} white ply=1 captures=0-0 recent=D4")),
            ParseSetupError::Side { text: "white".into() }
        );
        for ply in ["1", "ply=", "ply=x", "ply=-1", "move=1"] {
            assert_eq!(
                parse_error(&format!("{board} b {ply} captures=0-0 recent=D4")),
                ParseSetupError::Ply { text: ply.into() }
            );
        }
        for captures in ["captures=0", "captures=0-x", "captures=2-4-6", "captures=70000-0", "0-0"] {
            assert_eq!(
                parse_error(&format!("{board} b ply=1 {captures} recent=D4")),
                ParseSetupError::Captures { text: captures.into() }
            );
        }
        assert_eq!(
            parse_error(&format!("{board} b ply=1 captures=0-0 D4")),
            ParseSetupError::Recent { text: "D4".into() }
        );
        assert!(matches!(
            parse_error(&format!("{board} b ply=1 captures=0-0 recent=D4,I5")),
            ParseSetupError::RecentPoint { text, source: ParsePointError::BadColumn(_) } if text == "I5"
        ));
        for choices in ["choices=", "choices=swop", "choices=pass,", "choice=swap"] {
            assert_eq!(
                parse_error(&format!("{board} b ply=1 captures=0-0 recent=D4 {choices}")),
                ParseSetupError::Choices { text: choices.into() }
            );
        }
        assert_eq!(
            parse_error(&format!("{board} b ply=1 captures=0-0 recent=D4 extra")),
            ParseSetupError::Trailing { text: "extra".into() }
        );
        assert_eq!(
            parse_error(&format!("{board} b ply=1 captures=0-0 recent=D4 choices=- extra")),
            ParseSetupError::Trailing { text: "extra".into() }
        );
        // The messages name the field and quote the text.
        let message = parse_error(&format!("pente/7 7/7/7/3W4/7/7/7 {tail}")).to_string();
        assert_eq!(message, "board `3W4`: row 4 has 8 points, expected 7");
        let message = parse_error(&format!("{board} b ply=x captures=0-0 recent=D4")).to_string();
        assert!(message.starts_with("ply `ply=x`: "), "{message}");
    }

    /// The setup of `moves` under `rules`, changed by `edit`, and its error.
    fn refused(rules: &str, moves: &str, edit: impl FnOnce(&mut Setup)) -> SetupError {
        let mut setup = replay(rules, moves).setup();
        edit(&mut setup);
        let error = Position::from_setup(&setup).expect_err("the setup is refused");
        // The text form carries the error too (stones off the board aside).
        if setup.stones.keys().all(|&p| setup.rules.contains(p)) {
            assert_eq!(setup.to_string().parse::<Position>(), Err(ParsePositionError::Setup(error.clone())));
        }
        error
    }

    /// Adds a stone of the next colour on `p` as the next move.
    fn place(setup: &mut Setup, p: Point) {
        let color = setup.rules.colour_of_stone(setup.ply);
        setup.stones.insert(p, color);
        setup.ply += 1;
        setup.to_move = setup.rules.colour_of_stone(setup.ply);
        setup.recent_moves.insert(0, p);
        setup.recent_moves.truncate(RECENT_MOVES);
    }

    #[test]
    fn stones_and_counts_that_do_not_add_up() {
        let (w, b) = (Color::White, Color::Black);
        let e = refused("pente/13", "G7 H8", |s| {
            s.stones.insert(Point::new(13, 0), w);
        });
        assert_eq!(e, SetupError::OffBoard { point: Point::new(13, 0), size: 13 });
        let e = refused("pente/13", "G7", |s| {
            s.stones.insert(Point::SWAP, b);
        });
        assert_eq!(e, SetupError::OffBoard { point: Point::SWAP, size: 13 });
        let e = refused("gomoku/9", "E5 A1", |s| s.captured = [2, 0]);
        assert_eq!(e, SetupError::NoCaptures { color: w, count: 2, variant: Variant::Gomoku });
        let e = refused("pente", "K10 L9", |s| s.captured = [0, 1]);
        assert_eq!(e, SetupError::OddCaptures { color: b, count: 1, variant: Variant::Pente });
        // Keryo's triples and Poof-Pente's poofs of three make odd counts.
        let e = refused("keryo", "K10 L9", |s| s.captured = [0, 3]);
        assert!(matches!(e, SetupError::PlyCount { .. } | SetupError::StoneCount { .. }), "{e}");
        let e = refused("pente", "K10 L9 K7", |s| s.ply = 9);
        assert_eq!(e, SetupError::PlyCount { ply: 9, on_board: 3, captured: 0 });
        let e = refused("pente", "K10 L9 K7", |s| {
            s.stones.insert(pt("L9"), w);
        });
        assert_eq!(e, SetupError::StoneCount { color: w, on_board: 3, ply: 3, placed: 2, taken: 0 });
        let e = refused("pente", "K10 L9 K7", |s| s.captured = [0, 2]);
        assert_eq!(e, SetupError::StoneCount { color: w, on_board: 2, ply: 3, placed: 2, taken: 2 });
        let e = refused("pente", "K10 L9 K7", |s| s.to_move = w);
        assert_eq!(e, SetupError::SideToMove { expected: b, found: w, ply: 3 });
        assert_eq!(e.to_string(), "white to move, but stone 4 is black's");
        // Connect6: stones 2 and 3 are Black's.
        let e = refused("connect6", "K10 A1", |s| s.to_move = w);
        assert_eq!(e, SetupError::SideToMove { expected: b, found: w, ply: 2 });
    }

    #[test]
    fn colour_choices_the_variant_or_the_ply_does_not_allow() {
        use Choice::{Pass, Stay, Swap};
        let e = refused("pente", "K10", |s| s.choices = vec![Swap]);
        assert_eq!(e, SetupError::ChoicesInVariant { variant: Variant::Pente, choices: vec![Swap] });
        assert_eq!(e.to_string(), "colour choices `swap` in pente, which has no colour choice");
        let choices = |rules: &str, moves: &str, choices: Vec<Choice>| {
            let variant = rules.parse::<Rules>().unwrap().variant();
            let ply = replay(rules, moves).ply();
            let e = refused(rules, moves, |s| s.choices = choices.clone());
            assert_eq!(e, SetupError::Choices { variant, ply, choices }, "{rules} {moves}");
        };
        // D-Pente: one choice, after the fourth stone; no pass.
        choices("d-pente", "K10 L10 M10", vec![Swap]);
        choices("d-pente", "K10 L10 M10 N10", vec![Pass]);
        choices("d-pente", "K10 L10 M10 N10 swap", vec![Swap, Stay]);
        choices("d-pente", "K10 L10 M10 N10 stay A1", vec![]);
        // Swap2: the first after stone 3; a pass hands it on after stone 5.
        choices("swap2-keryo", "K10 L10", vec![Stay]);
        choices("swap2-keryo", "K10 L10 M10 stay A1", vec![]);
        choices("swap2-keryo", "K10 L10 M10 pass A1 A2 swap A3", vec![Pass]);
        choices("swap2-keryo", "K10 L10 M10 pass A1", vec![Pass, Swap]);
        choices("swap2-keryo", "K10 L10 M10 pass A1 A2 swap", vec![Pass, Pass]);
        choices("swap2-keryo", "K10 L10 M10 swap", vec![Swap, Pass]);
        // Each reachable state is accepted.
        for (rules, moves) in [
            ("d-pente", "K10 L10 M10"),
            ("d-pente", "K10 L10 M10 N10"),
            ("dk-pente", "K10 L10 M10 N10 stay A1"),
            ("swap2-pente", "K10 L10 M10"),
            ("swap2-pente", "K10 L10 M10 pass"),
            ("swap2-pente", "K10 L10 M10 pass A1 A2"),
            ("swap2-pente", "K10 L10 M10 pass A1 A2 swap"),
            ("swap2-pente", "K10 L10 M10 swap A1"),
        ] {
            assert_round_trips(&replay(rules, moves));
        }
    }

    #[test]
    fn recent_moves_that_are_not_the_stones_placed() {
        let (w, b) = (Color::White, Color::Black);
        let e = refused("pente", "K10 L9 K7", |s| s.recent_moves.clear());
        assert_eq!(e, SetupError::RecentCount { ply: 3, count: 0, min: 1, max: 3 });
        let e = refused("pente", "K10 L9", |s| s.recent_moves.push(pt("A1")));
        assert_eq!(e, SetupError::RecentCount { ply: 2, count: 3, min: 1, max: 2 });
        let e = refused("pente", "K10 L9 K7 A1 A3", |s| s.recent_moves.push(pt("K10")));
        assert_eq!(e, SetupError::RecentCount { ply: 5, count: 5, min: 1, max: 4 });
        // Boat-Pente reads the move before the last one too.
        let e = refused("boat-pente", "K10 L9 K7", |s| s.recent_moves.truncate(1));
        assert_eq!(e, SetupError::RecentCount { ply: 3, count: 1, min: 2, max: 3 });
        // A shorter history is accepted elsewhere.
        let mut setup = replay("pente", "K10 L9 K7").setup();
        setup.recent_moves.truncate(1);
        let position = Position::from_setup(&setup).unwrap();
        assert_eq!((position.recent_moves().count(), position.setup()), (1, setup));

        let e = refused("pente/9", "E5 A1", |s| s.recent_moves[1] = Point::new(9, 0));
        assert_eq!(e, SetupError::RecentOffBoard { point: Point::new(9, 0), size: 9 });
        let e = refused("pente", "K10 L9 K7", |s| s.recent_moves[0] = pt("L9"));
        assert_eq!(e, SetupError::RecentStone { point: pt("L9"), number: 3, expected: w, found: Some(b) });
        assert_eq!(e.to_string(), "recent move L9 (stone 3) is black, not a white stone");
        // Only a poof empties the point of the last stone.
        let e = refused("pente", "K10 L9 K7", |s| s.recent_moves[0] = pt("A1"));
        assert_eq!(e, SetupError::RecentStone { point: pt("A1"), number: 3, expected: w, found: None });
        let poofed = replay("poof-pente", "K10 L9 N7 M8");
        assert_eq!((poofed.last_move(), poofed.stone_at(pt("M8"))), (Some(pt("M8")), None));
        assert_round_trips(&poofed);
        // Where nothing is ever removed, an older stone is there too.
        let e = refused("gomoku", "K10 L9 K7", |s| s.recent_moves[2] = pt("A1"));
        assert_eq!(e, SetupError::RecentStone { point: pt("A1"), number: 1, expected: w, found: None });
        let e = refused("gomoku", "K10 L9 K7", |s| s.recent_moves[2] = pt("K7"));
        assert_eq!(e, SetupError::RecentRepeated { point: pt("K7"), variant: Variant::Gomoku });
        // With captures a point can be emptied and played again.
        let replayed = replay("pente", "K10 L10 A1 M10 N10 L10");
        assert_eq!(replayed.recent_moves().collect::<Vec<_>>(), [pt("L10"), pt("N10"), pt("M10"), pt("A1")]);
        let replayed = replay("pente", "K10 L10 A1 M10 N10 A3 L10");
        assert_eq!(replayed.recent_moves().filter(|&p| p == pt("L10")).count(), 1);
        assert_round_trips(&replayed);
    }

    #[test]
    fn opening_stones_the_rules_forbid() {
        let e = refused("pente", "", |s| place(s, pt("A1")));
        assert_eq!(e, SetupError::CentreEmpty { centre: pt("K10"), ply: 1 });
        let e = refused("connect6/13", "G7 A1", |s| {
            s.stones.remove(&pt("G7"));
            s.stones.insert(pt("A2"), Color::White);
            s.recent_moves = vec![pt("A1"), pt("A2")];
        });
        assert_eq!(e, SetupError::CentreEmpty { centre: pt("G7"), ply: 2 });
        let e = refused("pente", "K10 L9", |s| place(s, pt("K8")));
        assert_eq!(
            e,
            SetupError::Opening {
                point: pt("K8"),
                violation: OpeningViolation::TooClose { centre: pt("K10"), min_distance: 3 }
            }
        );
        let e = refused("g-pente", "K10 L9", |s| place(s, pt("K7")));
        assert!(matches!(e, SetupError::Opening { violation: OpeningViolation::OnBarredAxis { .. }, .. }));
        // Free openings and the free forms take any such stones.
        for (rules, moves) in [("free-pente", "K10 L9 K9"), ("gomoku", "A1"), ("d-pente", "A1 A2 A3")] {
            assert_round_trips(&replay(rules, moves));
        }
    }

    /// Pente: White captures pairs on rows 2, 4, 6 and 8; K10 L9 K7 L8 K8 L7
    /// K9 L10 K6 is White's five.
    const EIGHT_BY_WHITE: &str = "K10 B2 A2 C2 D2 B4 A4 C4 D4 B6 A6 C6 D6 B8 A8 C8 D8";
    const FIVE: &str = "K10 L9 K7 L8 K8 L7 K9 L10 K6";

    #[test]
    fn the_outcome_is_derived_from_the_last_move() {
        let win = |color, reason| Some(Outcome { winner: Some(color), reason });
        let five = replay("pente", FIVE);
        assert_eq!(five.outcome(), win(Color::White, EndReason::Five));
        assert_round_trips(&five);
        // The same stones with the five made earlier: the game would have ended.
        let e = refused("pente", FIVE, |s| place(s, pt("A1")));
        assert_eq!(e, SetupError::StrayLine { color: Color::White, point: pt("K6") });
        // Captures at the count: finished for the last mover, refused for the other.
        let mut ten = replay("pente", EIGHT_BY_WHITE);
        for p in ["B10", "A10", "C10", "D10"] {
            ten.play(pt(p)).unwrap();
        }
        assert_eq!(ten.outcome(), win(Color::White, EndReason::Captures));
        assert_round_trips(&ten);
        let e = refused("pente", &format!("{EIGHT_BY_WHITE} B10 A10 C10 D10"), |s| place(s, pt("T1")));
        assert_eq!(e, SetupError::TooManyCaptures { color: Color::White, count: 10, win: 10 });
        // Boat-Pente: a capturable five waits for the reply, which it survives.
        let boat = replay("boat-pente", "K10 K12 O10 A1 K11 A2 L10 A3 M10 A4 N10");
        assert_eq!(boat.outcome(), None);
        let mut survived: Position = assert_round_trips(&boat).parse().unwrap();
        survived.play(pt("A9")).unwrap();
        assert_eq!(survived.outcome(), win(Color::White, EndReason::Five));
        assert_round_trips(&survived);
        // A full board is a draw.
        let full = replay(
            "gomoku/7",
            "D4 A6 B7 A2 E3 B6 D2 A4 F2 B2 F5 F7 A5 D5 C5 D3 B5 C7 G3 G4 A7 G7 B1 F1 F4 G1 \
             E1 E2 A3 B3 G2 D1 C1 B4 E7 C4 C2 E5 F3 D6 A1 D7 C3 F6 E6 G6 E4 G5 C6",
        );
        assert_eq!(full.outcome(), Some(Outcome { winner: None, reason: EndReason::Full }));
        assert_round_trips(&full);
    }
}
