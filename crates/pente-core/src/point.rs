//! Board points and their notations: `K10` style and the pente.org index.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use thiserror::Error;

/// The largest board side the crate supports.
pub const MAX_SIZE: u8 = 19;

/// Column letters: `A`..`Z` without `I`, as on Go and Pente boards.
const COLUMN_LETTERS: &[u8; 25] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// An intersection, `x` counted from the left (column `A` = 0) and `y` from the
/// bottom (row `1` = 0).
///
/// A `Point` does not know the board size; [`crate::Rules::contains`] tells
/// whether it lies on a given board. A move in Pente is the point a stone is
/// placed on, with one exception: the colour choices of D-Pente and Swap2
/// (`swap`, `stay`, `pass`) are moves too, and are spelled as the three
/// points [`Point::SWAP`], [`Point::STAY`] and [`Point::PASS`], which lie on
/// no board (see [`Point::choice`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    x: u8,
    y: u8,
}

/// A colour choice of the D-Pente and Swap2 openings: the one kind of move
/// that places no stone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Choice {
    /// The players exchange colours: the chooser takes the colour the other held.
    Swap,
    /// No exchange.
    Stay,
    /// Swap2's first choice only: the chooser places a Black and a White
    /// stone and hands the choice back.
    Pass,
}

impl Choice {
    /// Every choice.
    pub const ALL: [Choice; 3] = [Choice::Swap, Choice::Stay, Choice::Pass];

    /// The move-list token: `swap`, `stay` or `pass`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Choice::Swap => "swap",
            Choice::Stay => "stay",
            Choice::Pass => "pass",
        }
    }

    /// The move that makes this choice.
    #[must_use]
    pub const fn point(self) -> Point {
        Point { x: CHOICE_COLUMN, y: self as u8 }
    }
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The column the choice moves are spelled in: past every board and past
/// the notation (columns `A`-`Z` are 0-24), so no written point is a choice.
const CHOICE_COLUMN: u8 = 25;

impl Point {
    /// The move `swap`.
    pub const SWAP: Point = Choice::Swap.point();
    /// The move `stay`.
    pub const STAY: Point = Choice::Stay.point();
    /// The move `pass`.
    pub const PASS: Point = Choice::Pass.point();

    /// The colour choice this move makes, if it is one rather than a stone.
    #[inline]
    #[must_use]
    pub const fn choice(self) -> Option<Choice> {
        match (self.x, self.y) {
            (CHOICE_COLUMN, 0) => Some(Choice::Swap),
            (CHOICE_COLUMN, 1) => Some(Choice::Stay),
            (CHOICE_COLUMN, 2) => Some(Choice::Pass),
            _ => None,
        }
    }

    /// Whether this move is a colour choice rather than a stone.
    #[inline]
    #[must_use]
    pub const fn is_choice(self) -> bool {
        self.x == CHOICE_COLUMN && self.y < 3
    }

    /// The point at column `x` (0 = `A`) and row `y` (0 = row `1`).
    ///
    /// # Panics
    /// If `x` or `y` is 25 or more, beyond any notation.
    #[inline]
    #[must_use]
    pub const fn new(x: u8, y: u8) -> Point {
        assert!(x < 25 && y < 25, "point coordinate out of range");
        Point { x, y }
    }

    /// Column, 0 for `A`.
    #[inline]
    #[must_use]
    pub const fn x(self) -> u8 {
        self.x
    }

    /// Row from the bottom, 0 for row `1`.
    #[inline]
    #[must_use]
    pub const fn y(self) -> u8 {
        self.y
    }

    /// The centre of an odd `size` board (`K10` on 19x19, `G7` on 13x13).
    #[must_use]
    pub const fn centre(size: u8) -> Point {
        Point { x: size / 2, y: size / 2 }
    }

    /// Chebyshev distance `max(|dx|, |dy|)`.
    #[must_use]
    pub const fn distance(self, other: Point) -> u8 {
        let dx = self.x.abs_diff(other.x);
        let dy = self.y.abs_diff(other.y);
        if dx > dy { dx } else { dy }
    }

    /// Row-major index from the bottom-left corner: `y * size + x`. Used for
    /// dense per-point arrays such as network policies.
    #[inline]
    #[must_use]
    pub const fn dense_index(self, size: u8) -> usize {
        self.y as usize * size as usize + self.x as usize
    }

    /// Inverse of [`Point::dense_index`]; `None` when `index` is off the board.
    #[must_use]
    pub const fn from_dense_index(index: usize, size: u8) -> Option<Point> {
        let size = size as usize;
        if index >= size * size {
            return None;
        }
        Some(Point { x: (index % size) as u8, y: (index / size) as u8 })
    }

    /// pente.org's index `y' * size + x`, where `y'` counts rows from the top
    /// (row 19 is 0 on 19x19): `K10` = 180, `A19` = 0, `T1` = 360.
    ///
    /// # Panics
    /// If the point is not on a `size` board.
    #[must_use]
    pub const fn pente_org_index(self, size: u8) -> usize {
        assert!(self.x < size && self.y < size, "point is off the board");
        (size - 1 - self.y) as usize * size as usize + self.x as usize
    }

    /// Inverse of [`Point::pente_org_index`]; `None` when `index` is off the board.
    #[must_use]
    pub const fn from_pente_org_index(index: usize, size: u8) -> Option<Point> {
        let s = size as usize;
        if index >= s * s {
            return None;
        }
        Some(Point { x: (index % s) as u8, y: (size - 1 - (index / s) as u8) })
    }
}

/// Why a point did not parse.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParsePointError {
    /// Nothing to parse.
    #[error("empty point")]
    Empty,
    /// The first character is not a column letter.
    #[error("`{0}`: a point starts with a column letter A-T (there is no I), as in K10")]
    BadColumn(String),
    /// The row is missing, not a number, or out of range.
    #[error("`{0}`: the column letter must be followed by a row number 1-25, as in K10")]
    BadRow(String),
}

impl FromStr for Point {
    type Err = ParsePointError;

    /// Parses `K10` style points and the choices `swap`, `stay` and
    /// `pass`, case-insensitively.
    fn from_str(s: &str) -> Result<Point, ParsePointError> {
        if let Some(choice) = Choice::ALL.into_iter().find(|c| c.name().eq_ignore_ascii_case(s)) {
            return Ok(choice.point());
        }
        let mut chars = s.chars();
        let letter = chars.next().ok_or(ParsePointError::Empty)?.to_ascii_uppercase();
        let x = COLUMN_LETTERS
            .iter()
            .position(|&c| char::from(c) == letter)
            .ok_or_else(|| ParsePointError::BadColumn(s.to_string()))?;
        let row = chars.as_str();
        if row.is_empty() || row.len() > 2 || !row.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ParsePointError::BadRow(s.to_string()));
        }
        let row: u8 = row.parse().map_err(|_| ParsePointError::BadRow(s.to_string()))?;
        if row == 0 || row > 25 {
            return Err(ParsePointError::BadRow(s.to_string()));
        }
        Ok(Point { x: x as u8, y: row - 1 })
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(choice) = self.choice() {
            return f.write_str(choice.name());
        }
        write!(f, "{}{}", char::from(COLUMN_LETTERS[self.x as usize]), self.y + 1)
    }
}

impl Serialize for Point {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Point {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Point, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// The column letter of column `x` (0 = `A`), skipping `I`.
///
/// # Panics
/// If `x` is 25 or more.
#[must_use]
pub fn column_letter(x: u8) -> char {
    char::from(COLUMN_LETTERS[x as usize])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        let k10: Point = "K10".parse().unwrap();
        assert_eq!((k10.x(), k10.y()), (9, 9));
        assert_eq!("k10".parse::<Point>().unwrap(), k10);
        assert_eq!(k10.to_string(), "K10");
        assert_eq!("A1".parse::<Point>().unwrap(), Point::new(0, 0));
        assert_eq!("T19".parse::<Point>().unwrap(), Point::new(18, 18));
        assert_eq!("J5".parse::<Point>().unwrap(), Point::new(8, 4));
        assert_eq!(Point::centre(19), k10);
        assert_eq!(Point::centre(13).to_string(), "G7");
    }

    #[test]
    fn rejects_bad_points() {
        for bad in ["", "I5", "K", "K0", "K-1", "K1O", "10K", "K100", "K26", "Ä1", "K+1"] {
            assert!(bad.parse::<Point>().is_err(), "{bad} should not parse");
        }
    }

    #[test]
    fn choices_parse_and_print() {
        for choice in Choice::ALL {
            let p = choice.point();
            assert_eq!(p.choice(), Some(choice));
            assert!(p.is_choice());
            assert_eq!(p.to_string(), choice.name());
            assert_eq!(choice.name().to_uppercase().parse::<Point>().unwrap(), p);
        }
        assert_eq!("Swap".parse::<Point>().unwrap(), Point::SWAP);
        assert!(!"K10".parse::<Point>().unwrap().is_choice());
        assert!(!Point::new(24, 0).is_choice() && Point::new(24, 0).choice().is_none());
        // The last column of the notation is a point, not a choice.
        assert_eq!("Z1".parse::<Point>().unwrap().to_string(), "Z1");
        assert!("swapp".parse::<Point>().is_err());
    }

    #[test]
    fn pente_org_index() {
        let p = |s: &str| s.parse::<Point>().unwrap();
        assert_eq!(p("K10").pente_org_index(19), 180);
        assert_eq!(p("A19").pente_org_index(19), 0);
        assert_eq!(p("T1").pente_org_index(19), 360);
        assert_eq!(p("B19").pente_org_index(19), 1);
        assert_eq!(p("A18").pente_org_index(19), 19);
        for i in 0..361 {
            assert_eq!(Point::from_pente_org_index(i, 19).unwrap().pente_org_index(19), i);
        }
        assert_eq!(Point::from_pente_org_index(361, 19), None);
        assert_eq!(Point::from_pente_org_index(84, 13), Some(p("G7")));
    }
}
