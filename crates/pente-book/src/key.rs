//! A node's identity: its position up to the board's 8 symmetries.
//!
//! Two move sequences reach the same node when their positions agree once
//! rotated or mirrored: the same stones of each colour (captured ones gone),
//! the same captures, the same move number and the same colour choices. The
//! stones are put in the orientation that sorts first
//! ([`pente_analysis::canonical::canonical_stones`], as `pente stats`
//! merges openings), so transpositions merge too.

use pente_analysis::canonical::{Stones, canonical_stones};
use pente_core::{Color, Point, Position, Rules, Symmetry, format_move_list};

use crate::error::BookError;

/// Where a move sequence leads: its position, the node's key, and the
/// symmetry that maps the sequence's board onto the node's (canonical) one.
#[derive(Clone)]
pub struct Located {
    /// The position after the moves.
    pub position: Position,
    /// The node's key.
    pub key: String,
    /// Maps points of the moves' board to the node's board.
    pub to_node: Symmetry,
}

impl Located {
    /// Plays `moves` from the empty board under `rules` and keys the result.
    ///
    /// # Errors
    /// [`BookError::IllegalMove`] naming the move (1-based) and the reason.
    pub fn after(rules: Rules, moves: &[Point]) -> Result<Located, BookError> {
        let mut position = Position::new(rules);
        for (i, &p) in moves.iter().enumerate() {
            position.play(p).map_err(|reason| BookError::IllegalMove {
                moves: format_move_list(moves, false),
                number: i + 1,
                reason: reason.to_string(),
            })?;
        }
        let (key, to_node) = key_of(&position, moves);
        Ok(Located { position, key, to_node })
    }

    /// A point of the moves' board on the node's board.
    #[must_use]
    pub fn to_node(&self, p: Point) -> Point {
        self.to_node.apply(p, self.position.rules().size())
    }

    /// A point of the node's board on the moves' board.
    #[must_use]
    pub fn from_node(&self, p: Point) -> Point {
        self.to_node.inverse().apply(p, self.position.rules().size())
    }
}

/// The key of `position`, reached by `moves`, and the symmetry to its canonical board.
#[must_use]
pub fn key_of(position: &Position, moves: &[Point]) -> (String, Symmetry) {
    let size = position.rules().size();
    let mut white = Vec::new();
    let mut black = Vec::new();
    for y in 0..size {
        for x in 0..size {
            let p = Point::new(x, y);
            match position.stone_at(p) {
                Some(Color::White) => white.push(p),
                Some(Color::Black) => black.push(p),
                None => {}
            }
        }
    }
    let stones = Stones { white, black };
    let (canonical, symmetry) = canonical_stones(&stones, size);
    let choices: Vec<Point> = moves.iter().copied().filter(|p| p.is_choice()).collect();
    let key = format!(
        "{} {}:{} [{}] {}",
        position.ply(),
        position.captured(Color::White),
        position.captured(Color::Black),
        format_move_list(&choices, false),
        canonical
    );
    (key, symmetry)
}

/// A stable 64-bit hash of a key (FNV-1a), for the seeds of its games.
#[must_use]
pub fn key_hash(key: &str) -> u64 {
    key.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pente_core::parse_move_list;

    fn locate(moves: &str) -> Located {
        Located::after(Rules::pente(), &parse_move_list(moves).unwrap()).unwrap()
    }

    #[test]
    fn the_eight_images_of_an_opening_share_a_node() {
        let moves = parse_move_list("K10 L9 N12 K12 H10").unwrap();
        let keys: std::collections::BTreeSet<String> = Symmetry::ALL
            .iter()
            .map(|s| {
                let image: Vec<Point> = moves.iter().map(|&p| s.apply(p, 19)).collect();
                Located::after(Rules::pente(), &image).unwrap().key
            })
            .collect();
        assert_eq!(keys.len(), 1);
        assert_ne!(locate("K10 L9 N12 K12 H10").key, locate("K10 L9 N12 K12 H11").key);
    }

    #[test]
    fn transpositions_merge_and_move_numbers_do_not() {
        // White's K10 and N10 (moves 1 and 3) in either order... after the
        // forced centre, swap Black's two replies instead.
        assert_eq!(locate("K10 L9 N12 J9").key, locate("K10 J9 N12 L9").key);
        assert_ne!(locate("K10 L9").key, locate("K10").key);
    }

    #[test]
    fn the_symmetry_maps_moves_onto_the_node() {
        let a = locate("K10 J11");
        let b = locate("K10 L9");
        assert_eq!(a.key, b.key);
        let p: Point = "N13".parse().unwrap();
        // The same move seen from either board lands on the same point of the node's.
        let from_a = a.from_node(b.to_node(p));
        assert_eq!(locate("K10 L9 N13").key, locate(&format!("K10 J11 {from_a}")).key);
        assert_eq!(a.to_node(a.from_node(p)), p);
    }

    #[test]
    fn illegal_moves_are_named() {
        let error = Located::after(Rules::pente(), &parse_move_list("K10 L9 L10").unwrap()).err().unwrap();
        assert!(error.to_string().contains("move 3"), "{error}");
    }
}
