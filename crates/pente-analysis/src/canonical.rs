//! Openings up to the 8 symmetries of the board.
//!
//! An opening seen from a rotated or mirrored board is the same opening: its
//! key is the image that sorts first under [`point_order`]. Two keys exist:
//! the move sequence ([`canonical_moves`]), and, to merge transpositions
//! (the same stones reached in another order), the set of stones of each
//! colour ([`canonical_stones`]).

use std::cmp::Ordering;
use std::fmt;

use pente_core::{Color, IllegalMove, Point, Position, Rules, Symmetry, format_move_list};

/// The order canonical forms are chosen by: lower rows first, then columns
/// from the right. It makes `K10 L9` (not `K10 J11`) the name of the
/// diagonal reply to the centre, and `K10 K9` that of the straight one.
#[must_use]
pub fn point_order(a: Point, b: Point) -> Ordering {
    a.y().cmp(&b.y()).then(b.x().cmp(&a.x()))
}

/// Compares two point sequences lexicographically by [`point_order`].
fn sequence_order(a: &[Point], b: &[Point]) -> Ordering {
    for (&p, &q) in a.iter().zip(b) {
        match point_order(p, q) {
            Ordering::Equal => {}
            other => return other,
        }
    }
    a.len().cmp(&b.len())
}

/// `moves` seen through `symmetry` on a `size` board.
///
/// Every point must lie on the board.
fn map_all(moves: &[Point], symmetry: Symmetry, size: u8) -> Vec<Point> {
    moves.iter().map(|&p| symmetry.apply(p, size)).collect()
}

/// Whether every point lies on a `size` board (or is a colour choice,
/// which every symmetry leaves alone), so that symmetries apply.
#[must_use]
pub fn on_board(points: &[Point], size: u8) -> bool {
    points.iter().all(|p| p.is_choice() || (p.x() < size && p.y() < size))
}

/// The image of `moves` under the 8 symmetries of a `size` board that sorts
/// first, and a symmetry that maps `moves` onto it.
///
/// # Panics
/// If a point lies off the board (check with [`on_board`]).
#[must_use]
pub fn canonical_moves(moves: &[Point], size: u8) -> (Vec<Point>, Symmetry) {
    assert!(on_board(moves, size), "a move lies off the {size}x{size} board");
    let mut best = moves.to_vec();
    let mut best_symmetry = Symmetry::IDENTITY;
    let mut image = Vec::with_capacity(moves.len());
    for symmetry in &Symmetry::ALL[1..] {
        image.clear();
        image.extend(moves.iter().map(|&p| symmetry.apply(p, size)));
        if sequence_order(&image, &best) == Ordering::Less {
            std::mem::swap(&mut best, &mut image);
            best_symmetry = *symmetry;
        }
    }
    (best, best_symmetry)
}

/// The stones of each colour on the board: White's first, each sorted by
/// [`point_order`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Stones {
    /// White's stones.
    pub white: Vec<Point>,
    /// Black's stones.
    pub black: Vec<Point>,
}

impl Stones {
    /// The stones on the board after `moves` are played under `rules`
    /// (captured stones are gone).
    ///
    /// # Errors
    /// The 1-based number and the reason of the first illegal move.
    pub fn after(rules: Rules, moves: &[Point]) -> Result<Stones, (usize, IllegalMove)> {
        let mut position = Position::new(rules);
        for (i, &p) in moves.iter().enumerate() {
            position.play(p).map_err(|e| (i + 1, e))?;
        }
        let mut white = Vec::new();
        let mut black = Vec::new();
        for &p in moves {
            match position.stone_at(p) {
                Some(Color::White) => white.push(p),
                Some(Color::Black) => black.push(p),
                None => {}
            }
        }
        Ok(Stones::new(white, black))
    }

    /// Sorts the stones and drops repeats (a point played again after a capture).
    fn new(mut white: Vec<Point>, mut black: Vec<Point>) -> Stones {
        for stones in [&mut white, &mut black] {
            stones.sort_by(|&a, &b| point_order(a, b));
            stones.dedup();
        }
        Stones { white, black }
    }

    /// These stones seen through `symmetry` on a `size` board.
    #[must_use]
    pub fn mapped(&self, symmetry: Symmetry, size: u8) -> Stones {
        Stones::new(map_all(&self.white, symmetry, size), map_all(&self.black, symmetry, size))
    }

    fn order(&self, other: &Stones) -> Ordering {
        sequence_order(&self.white, &other.white).then_with(|| sequence_order(&self.black, &other.black))
    }
}

impl fmt::Display for Stones {
    /// `W K7 K10 / B L9`: each colour's stones in notation order (by column,
    /// then row), which reads better than the canonical order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sorted = |stones: &[Point]| {
            let mut stones = stones.to_vec();
            stones.sort();
            format_move_list(&stones, false)
        };
        write!(f, "W {} / B {}", sorted(&self.white), sorted(&self.black))
    }
}

/// The image of `stones` under the 8 symmetries of a `size` board that
/// sorts first, and a symmetry that maps `stones` onto it.
///
/// # Panics
/// If a stone lies off the board.
#[must_use]
pub fn canonical_stones(stones: &Stones, size: u8) -> (Stones, Symmetry) {
    assert!(on_board(&stones.white, size) && on_board(&stones.black, size), "a stone lies off the board");
    let mut best = stones.clone();
    let mut best_symmetry = Symmetry::IDENTITY;
    for &symmetry in &Symmetry::ALL[1..] {
        let image = stones.mapped(symmetry, size);
        if image.order(&best) == Ordering::Less {
            best = image;
            best_symmetry = symmetry;
        }
    }
    (best, best_symmetry)
}

/// The symmetries that map the sequence `from` onto `to` on a `size` board.
///
/// Every point must lie on the board.
pub fn symmetries_between<'a>(from: &'a [Point], to: &'a [Point], size: u8) -> impl Iterator<Item = Symmetry> + 'a {
    Symmetry::ALL
        .into_iter()
        .filter(move |s| from.len() == to.len() && from.iter().zip(to).all(|(&p, &q)| s.apply(p, size) == q))
}

/// The symmetries that map the stones `from` onto `to` on a `size` board.
pub fn stone_symmetries_between<'a>(from: &'a Stones, to: &'a Stones, size: u8) -> impl Iterator<Item = Symmetry> + 'a {
    Symmetry::ALL.into_iter().filter(move |&s| {
        from.white.len() == to.white.len() && from.black.len() == to.black.len() && from.mapped(s, size) == *to
    })
}

/// The point of `candidates` that sorts first by [`point_order`].
#[must_use]
pub fn first_point(candidates: impl IntoIterator<Item = Point>) -> Option<Point> {
    candidates.into_iter().min_by(|&a, &b| point_order(a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(text: &str) -> Vec<Point> {
        pente_core::parse_move_list(text).unwrap()
    }

    #[test]
    fn names_follow_the_point_order() {
        assert_eq!(canonical_moves(&moves("K10 J11"), 19).0, moves("K10 L9"));
        assert_eq!(canonical_moves(&moves("K10 L10"), 19).0, moves("K10 K9"));
        let (key, symmetry) = canonical_moves(&moves("K10 J9 K13"), 19);
        assert_eq!(map_all(&moves("K10 J9 K13"), symmetry, 19), key);
    }

    #[test]
    fn captured_stones_leave_the_set() {
        // White's K13 captures K11 K12 between K10 and K13.
        let stones = Stones::after(Rules::pente(), &moves("K10 K11 K14 K12 K13")).unwrap();
        assert_eq!(stones.white, {
            let mut w = moves("K10 K13 K14");
            w.sort_by(|&a, &b| point_order(a, b));
            w
        });
        assert!(stones.black.is_empty());
        assert_eq!(Stones::after(Rules::pente(), &moves("K10 K10")).unwrap_err().0, 2);
    }
}
