//! The two players.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A player. White (player 1) always moves first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    /// Player 1, moves first.
    White,
    /// Player 2.
    Black,
}

impl Color {
    /// Both colours, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The other player.
    #[inline]
    #[must_use]
    pub const fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// 0 for White, 1 for Black: an index into per-colour arrays.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Lower-case name, `"white"` or `"black"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// One-letter board character, `W` or `B`.
    #[must_use]
    pub const fn char(self) -> char {
        match self {
            Color::White => 'W',
            Color::Black => 'B',
        }
    }

    /// The player number used by pente.org and in PGN results (1 or 2).
    #[must_use]
    pub const fn player_number(self) -> u8 {
        self as u8 + 1
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A person at the table, as opposed to a colour. In most variants the first
/// player holds White throughout; in the colour-choice openings (D-Pente,
/// Swap2) the first player places the opening stones of both colours and one
/// player then chooses a side, so who holds which colour is part of the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Seat {
    /// The player who places the first stone (`p1`).
    #[serde(rename = "p1")]
    First,
    /// The other player (`p2`).
    #[serde(rename = "p2")]
    Second,
}

impl Seat {
    /// The other player.
    #[inline]
    #[must_use]
    pub const fn other(self) -> Seat {
        match self {
            Seat::First => Seat::Second,
            Seat::Second => Seat::First,
        }
    }

    /// `p1` or `p2`, as in JSON (the `choice` key).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Seat::First => "p1",
            Seat::Second => "p2",
        }
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
