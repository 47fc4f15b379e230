//! Variants as parameters of one rules type.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::color::Color;
use crate::point::{MAX_SIZE, Point};

/// A named rule set. Each is a preset of [`Rules`] parameters, not a separate
/// engine; later variants (G-Pente, Poof-Pente, ...) add a name here and a
/// parameter there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// Plain Pente: pair captures, 10 captured stones or five wins, tournament rule.
    Pente,
    /// Pente without the move-3 restriction (the first stone still goes in the centre).
    FreePente,
    /// Keryo-Pente: captures two or three flanked stones, 15 captured stones win.
    Keryo,
    /// Five or more in a row, no captures, first stone anywhere.
    Gomoku,
    /// Gomoku where only exactly five wins; an overline does not.
    GomokuExact,
    /// Keryo-Pente without the move-3 restriction (the first stone still
    /// goes in the centre): pente.org's unrated Keryo-Pente.
    FreeKeryo,
    /// Pente whose move 3 is also barred from the centre's row and column
    /// at distance 3 and 4 (K14 K13 K7 K6 F10 G10 N10 O10 on 19x19).
    GPente,
    /// Pente where a stone placed into a flank (`O X* X O`) is removed with
    /// its partner and both are credited to the opponent; a capture win
    /// needs a lead.
    PoofPente,
    /// Pente where a five the opponent could capture into wins only if it
    /// survives his reply.
    BoatPente,
    /// Keryo captures and 15 to win, with Poof-Pente's poofs (of pairs and
    /// of triples, the placed stone at an end or in the middle) and
    /// Boat-Pente's fives that must survive a capture (of a pair or a triple).
    OPente,
    /// Poof-Pente without the move-3 restriction: pente.org's unrated Poof-Pente.
    FreePoofPente,
    /// Boat-Pente without the move-3 restriction: pente.org's unrated Boat-Pente.
    FreeBoatPente,
    /// O-Pente without the move-3 restriction: pente.org's unrated O-Pente.
    FreeOPente,
    /// D-Pente: the first player places four stones (White, Black, White,
    /// Black) anywhere, then the second chooses a colour; no tournament rule.
    DPente,
    /// D-Pente with Keryo captures and 15 to win.
    DkPente,
    /// Pente with the Swap2 opening: the first player places three stones,
    /// the second swaps, stays or places two more and lets the first choose.
    Swap2Pente,
    /// Swap2 with Keryo captures and 15 to win.
    Swap2Keryo,
    /// Two stones a turn (one on the first), no captures, six or more in a
    /// row wins.
    Connect6,
}

impl Variant {
    /// Every variant. Training samples store a variant as its index here,
    /// so new ones go at the end.
    pub const ALL: [Variant; 18] = [
        Variant::Pente,
        Variant::FreePente,
        Variant::Keryo,
        Variant::Gomoku,
        Variant::GomokuExact,
        Variant::FreeKeryo,
        Variant::GPente,
        Variant::PoofPente,
        Variant::BoatPente,
        Variant::OPente,
        Variant::FreePoofPente,
        Variant::FreeBoatPente,
        Variant::FreeOPente,
        Variant::DPente,
        Variant::DkPente,
        Variant::Swap2Pente,
        Variant::Swap2Keryo,
        Variant::Connect6,
    ];

    /// The variant of an unrated pente.org game of this one: the move-3
    /// restriction lifted (`free-pente` for `pente`, `free-keryo` for
    /// `keryo`, `free-poof-pente` for `poof-pente`, ...); itself where there
    /// is none, and for `g-pente`, which always has it.
    #[must_use]
    pub const fn free(self) -> Variant {
        match self {
            Variant::Pente => Variant::FreePente,
            Variant::Keryo => Variant::FreeKeryo,
            Variant::PoofPente => Variant::FreePoofPente,
            Variant::BoatPente => Variant::FreeBoatPente,
            Variant::OPente => Variant::FreeOPente,
            other => other,
        }
    }

    /// The name used on the command line and in records.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Pente => "pente",
            Variant::FreePente => "free-pente",
            Variant::Keryo => "keryo",
            Variant::Gomoku => "gomoku",
            Variant::GomokuExact => "gomoku-exact",
            Variant::FreeKeryo => "free-keryo",
            Variant::GPente => "g-pente",
            Variant::PoofPente => "poof-pente",
            Variant::BoatPente => "boat-pente",
            Variant::OPente => "o-pente",
            Variant::FreePoofPente => "free-poof-pente",
            Variant::FreeBoatPente => "free-boat-pente",
            Variant::FreeOPente => "free-o-pente",
            Variant::DPente => "d-pente",
            Variant::DkPente => "dk-pente",
            Variant::Swap2Pente => "swap2-pente",
            Variant::Swap2Keryo => "swap2-keryo",
            Variant::Connect6 => "connect6",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Errors from building or parsing [`Rules`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RulesError {
    /// Not one of [`Variant::ALL`].
    #[error(
        "unknown variant `{0}` (expected one of: {names})",
        names = Variant::ALL.map(Variant::name).join(", ")
    )]
    UnknownVariant(String),
    /// Boards are odd-sized, 7 to 19.
    #[error("unsupported board size {0} (expected an odd size from 7 to 19)")]
    BadSize(String),
}

impl FromStr for Variant {
    type Err = RulesError;

    fn from_str(s: &str) -> Result<Variant, RulesError> {
        let lower = s.trim().to_ascii_lowercase();
        Variant::ALL.into_iter().find(|v| v.name() == lower).ok_or_else(|| RulesError::UnknownVariant(s.to_string()))
    }
}

/// Where the opening stones may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Opening {
    /// Any empty point, from the first move.
    Free,
    /// The first stone on the centre; nothing else restricted.
    Centre,
    /// The first stone on the centre and the mover's second stone (move 3) at
    /// Chebyshev distance `min_distance` or more from it, and not on the
    /// centre's row or column at a distance in `axis_bar`.
    Tournament {
        /// 3 in Pente: outside the central 5x5 square.
        min_distance: u8,
        /// Bit `d` set: move 3 is barred from the centre's row and column at
        /// distance `d` (3 and 4 in G-Pente; none in Pente).
        axis_bar: u8,
    },
}

/// Which lines of a mover's stones win.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineWin {
    /// Five or more in a row (overlines win).
    FiveOrMore,
    /// Exactly five in a row.
    ExactlyFive,
    /// Six or more in a row (Connect6; five does not win).
    SixOrMore,
}

/// Who places the opening stones and who chooses a colour, in the
/// colour-choice openings. Stones keep their colour by index (even stones
/// White); a choice changes which player holds which colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColourChoice {
    /// D-Pente: the first player places four stones, then the second
    /// swaps (takes White) or stays (keeps Black).
    AfterFour,
    /// Swap2: the first player places three stones; the second swaps
    /// (takes White), stays (keeps Black) or passes (places stones 4 and 5,
    /// then the first swaps, taking Black, or stays).
    Swap2,
}

impl ColourChoice {
    /// The stones placed before the (first) choice: 4 in D-Pente, 3 in Swap2.
    #[must_use]
    pub const fn stones_before_choice(self) -> u32 {
        match self {
            ColourChoice::AfterFour => 4,
            ColourChoice::Swap2 => 3,
        }
    }
}

/// The complete rule set of a game: a variant on a board size.
///
/// Built from a [`Variant`] and a size; the parameters are read through
/// accessors so that they always agree with the variant's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rules {
    variant: Variant,
    size: u8,
    opening: Opening,
    /// Bit `n` set: a run of exactly `n` flanked opponent stones is captured.
    capture_lengths: u8,
    /// Captured stones that win, if captures win at all.
    capture_win: Option<u16>,
    line_win: LineWin,
    /// Poof-Pente: a stone placed between an opponent stone and its own
    /// pair's partner, with an opponent stone beyond, goes with the partner
    /// (and, where triples are captured, in a flanked triple of its own).
    poof: bool,
    /// Boat-Pente: a five the opponent could capture into must survive his
    /// reply (a capture of any length these rules take).
    boat: bool,
    /// Connect6: each turn after the first is two stones of one colour.
    two_stone_turns: bool,
    /// D-Pente and Swap2: the players choose colours after the opening stones.
    colour_choice: Option<ColourChoice>,
}

impl Rules {
    /// The rules of `variant` on a `size` x `size` board.
    ///
    /// # Errors
    /// [`RulesError::BadSize`] unless `size` is odd and between 7 and 19.
    pub fn new(variant: Variant, size: u8) -> Result<Rules, RulesError> {
        if !(7..=MAX_SIZE).contains(&size) || size.is_multiple_of(2) {
            return Err(RulesError::BadSize(size.to_string()));
        }
        let opening = match variant {
            Variant::GPente => Opening::Tournament { min_distance: 3, axis_bar: (1 << 3) | (1 << 4) },
            // pente.org's rated games, those that have a free form.
            rated if rated.free() != rated => Opening::Tournament { min_distance: 3, axis_bar: 0 },
            Variant::Gomoku
            | Variant::GomokuExact
            | Variant::DPente
            | Variant::DkPente
            | Variant::Swap2Pente
            | Variant::Swap2Keryo => Opening::Free,
            // The free forms and Connect6: the first stone on the centre.
            _ => Opening::Centre,
        };
        let keryo = matches!(
            variant,
            Variant::Keryo
                | Variant::FreeKeryo
                | Variant::OPente
                | Variant::FreeOPente
                | Variant::DkPente
                | Variant::Swap2Keryo
        );
        let (capture_lengths, capture_win) = match variant {
            Variant::Gomoku | Variant::GomokuExact | Variant::Connect6 => (0, None),
            _ if keryo => ((1 << 2) | (1 << 3), Some(15)),
            _ => (1 << 2, Some(10)),
        };
        let line_win = match variant {
            Variant::GomokuExact => LineWin::ExactlyFive,
            Variant::Connect6 => LineWin::SixOrMore,
            _ => LineWin::FiveOrMore,
        };
        let poof =
            matches!(variant, Variant::PoofPente | Variant::OPente | Variant::FreePoofPente | Variant::FreeOPente);
        let boat =
            matches!(variant, Variant::BoatPente | Variant::OPente | Variant::FreeBoatPente | Variant::FreeOPente);
        let colour_choice = match variant {
            Variant::DPente | Variant::DkPente => Some(ColourChoice::AfterFour),
            Variant::Swap2Pente | Variant::Swap2Keryo => Some(ColourChoice::Swap2),
            _ => None,
        };
        let two_stone_turns = variant == Variant::Connect6;
        Ok(Rules {
            variant,
            size,
            opening,
            capture_lengths,
            capture_win,
            line_win,
            poof,
            boat,
            two_stone_turns,
            colour_choice,
        })
    }

    /// Plain Pente on 19x19.
    #[must_use]
    pub fn pente() -> Rules {
        Rules::new(Variant::Pente, 19).expect("19 is a valid size")
    }

    /// The variant these rules are a preset of.
    #[must_use]
    pub const fn variant(&self) -> Variant {
        self.variant
    }

    /// Board side.
    #[must_use]
    pub const fn size(&self) -> u8 {
        self.size
    }

    /// Number of points on the board.
    #[must_use]
    pub const fn area(&self) -> usize {
        self.size as usize * self.size as usize
    }

    /// The centre point.
    #[must_use]
    pub const fn centre(&self) -> Point {
        Point::centre(self.size)
    }

    /// The opening restriction.
    #[must_use]
    pub const fn opening(&self) -> Opening {
        self.opening
    }

    /// Whether a flanked run of exactly `n` opponent stones is captured.
    #[must_use]
    pub const fn captures_run_of(&self, n: u8) -> bool {
        n < 8 && self.capture_lengths & (1 << n) != 0
    }

    /// Whether the variant has captures at all.
    #[must_use]
    pub const fn has_captures(&self) -> bool {
        self.capture_lengths != 0
    }

    pub(crate) const fn capture_lengths(&self) -> u8 {
        self.capture_lengths
    }

    /// Whether a stone placed into a flank is removed with its partner
    /// (Poof-Pente): then moving between opponent stones is not safe, and a
    /// capture win needs more credited stones than the opponent's.
    #[must_use]
    pub const fn poofs(&self) -> bool {
        self.poof
    }

    /// Whether a five the opponent could capture into wins only once it has
    /// survived his reply (Boat-Pente).
    #[must_use]
    pub const fn boat(&self) -> bool {
        self.boat
    }

    /// Captured stones that win the game, or `None` when captures do not win.
    #[must_use]
    pub const fn capture_win(&self) -> Option<u16> {
        self.capture_win
    }

    /// Which lines win.
    #[must_use]
    pub const fn line_win(&self) -> LineWin {
        self.line_win
    }

    /// Stones in a row that win: 5, or 6 in Connect6.
    #[must_use]
    pub const fn win_length(&self) -> u8 {
        match self.line_win {
            LineWin::FiveOrMore | LineWin::ExactlyFive => 5,
            LineWin::SixOrMore => 6,
        }
    }

    /// Whether each turn after the first places two stones of one colour (Connect6).
    #[must_use]
    pub const fn two_stone_turns(&self) -> bool {
        self.two_stone_turns
    }

    /// The colour-choice opening, if the variant has one (D-Pente, Swap2).
    #[must_use]
    pub const fn colour_choice(&self) -> Option<ColourChoice> {
        self.colour_choice
    }

    /// The colour of stone `index` (0 for the first stone): alternate,
    /// White first; in Connect6 W, B B, W W, B B, ...
    #[inline]
    #[must_use]
    pub const fn colour_of_stone(&self, index: u32) -> Color {
        let turn = if self.two_stone_turns { index.div_ceil(2) } else { index };
        if turn.is_multiple_of(2) { Color::White } else { Color::Black }
    }

    /// Whether `p` lies on the board.
    #[inline]
    #[must_use]
    pub const fn contains(&self, p: Point) -> bool {
        p.x() < self.size && p.y() < self.size
    }

    /// Whether the opening rule allows a stone on `p` at `ply` (0-based: the
    /// first move is ply 0). Says nothing about occupancy.
    #[inline]
    #[must_use]
    pub fn opening_allows(&self, ply: u32, p: Point) -> bool {
        self.opening_violation(ply, p).is_none()
    }

    /// Why the opening rule forbids `p` at `ply`, if it does.
    #[inline]
    #[must_use]
    pub fn opening_violation(&self, ply: u32, p: Point) -> Option<OpeningViolation> {
        match (self.opening, ply) {
            (Opening::Centre | Opening::Tournament { .. }, 0) if p != self.centre() => {
                Some(OpeningViolation::FirstNotCentre { centre: self.centre() })
            }
            (Opening::Tournament { min_distance, .. }, 2) if p.distance(self.centre()) < min_distance => {
                Some(OpeningViolation::TooClose { centre: self.centre(), min_distance })
            }
            (Opening::Tournament { axis_bar, .. }, 2)
                if axis_bar != 0 && on_barred_axis(p, self.centre(), axis_bar) =>
            {
                Some(OpeningViolation::OnBarredAxis { centre: self.centre() })
            }
            _ => None,
        }
    }
}

/// Whether `p` lies on `centre`'s row or column at a distance whose bit is
/// set in `axis_bar`.
fn on_barred_axis(p: Point, centre: Point, axis_bar: u8) -> bool {
    let distance = match (p.x() == centre.x(), p.y() == centre.y()) {
        (true, false) => p.y().abs_diff(centre.y()),
        (false, true) => p.x().abs_diff(centre.x()),
        _ => return false,
    };
    distance < 8 && axis_bar & (1 << distance) != 0
}

/// A move the opening rule forbids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum OpeningViolation {
    /// Move 1 must be on the centre.
    #[error("the first move must be on the centre point {centre}")]
    FirstNotCentre {
        /// The centre of the board.
        centre: Point,
    },
    /// Move 3 must keep its distance (tournament rule).
    #[error(
        "tournament rule: move 3 must be at least {min_distance} points from the centre {centre} in every direction"
    )]
    TooClose {
        /// The centre of the board.
        centre: Point,
        /// The required Chebyshev distance.
        min_distance: u8,
    },
    /// G-Pente: move 3 is barred from the centre's row and column at
    /// distance 3 and 4 too.
    #[error("G-Pente: move 3 may not be on the row or column of the centre {centre} at distance 3 or 4 from it")]
    OnBarredAxis {
        /// The centre of the board.
        centre: Point,
    },
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::pente()
    }
}

impl fmt::Display for Rules {
    /// `pente` on 19x19, `keryo/13` on other sizes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.size == MAX_SIZE { write!(f, "{}", self.variant) } else { write!(f, "{}/{}", self.variant, self.size) }
    }
}

impl FromStr for Rules {
    type Err = RulesError;

    /// Parses `pente`, `keryo/13` or `gomoku/15` (size 19 when omitted).
    fn from_str(s: &str) -> Result<Rules, RulesError> {
        let (name, size) = match s.split_once('/') {
            Some((name, size)) => {
                let size = size.trim().parse().map_err(|_| RulesError::BadSize(size.to_string()))?;
                (name, size)
            }
            None => (s, MAX_SIZE),
        };
        Rules::new(name.parse()?, size)
    }
}

impl Serialize for Rules {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Rules {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Rules, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        for size in [7, 9, 11, 13, 15, 17, 19] {
            assert!(Rules::new(Variant::Pente, size).is_ok());
        }
        for size in [0, 5, 8, 18, 20, 21] {
            assert!(Rules::new(Variant::Pente, size).is_err());
        }
    }

    #[test]
    fn string_form_round_trips() {
        for v in Variant::ALL {
            for size in [7, 13, 19] {
                let rules = Rules::new(v, size).unwrap();
                assert_eq!(rules.to_string().parse::<Rules>().unwrap(), rules);
            }
        }
        assert_eq!("Keryo/13".parse::<Rules>().unwrap(), Rules::new(Variant::Keryo, 13).unwrap());
        assert!("renju".parse::<Rules>().is_err());
        assert!("pente/12".parse::<Rules>().is_err());
        assert!("pente/x".parse::<Rules>().is_err());
    }

    #[test]
    fn tournament_rule() {
        let rules = Rules::pente();
        let p = |s: &str| s.parse::<Point>().unwrap();
        assert!(rules.opening_allows(0, p("K10")));
        assert!(!rules.opening_allows(0, p("K9")));
        assert!(!rules.opening_allows(2, p("K8")));
        assert!(rules.opening_allows(2, p("K7")));
        assert!(!rules.opening_allows(2, p("M12")));
        assert!(rules.opening_allows(2, p("N13")));
        assert!(rules.opening_allows(1, p("K9")));
        assert!(rules.opening_allows(4, p("K9")));
        let small = Rules::new(Variant::Pente, 13).unwrap();
        assert!(small.opening_allows(0, p("G7")));
        assert!(!small.opening_allows(2, p("H8")));
        assert!(small.opening_allows(2, p("G4")));
        let free = Rules::new(Variant::FreePente, 19).unwrap();
        assert!(!free.opening_allows(0, p("A1")));
        assert!(free.opening_allows(2, p("K9")));
        let gomoku = Rules::new(Variant::Gomoku, 15).unwrap();
        assert!(gomoku.opening_allows(0, p("A1")));
    }
}
