//! Connect6's one-turn tactics, exact: where the player to act completes
//! six this turn, and which stones stop the opponent's six on the next.
//!
//! The threat solver models one stone a turn and is off in Connect6; without
//! these reads the search would have to find both stones of a block (or a
//! win) by their priors alone, and a network that never saw a line grow on
//! the edge does not. A turn's stones may be placed in either order with the
//! same result (no captures; a first stone that wins only wins sooner), so
//! the blocks can be asked of the turn's first stone.

use pente_core::{Color, Point, Position};

/// What one turn decides at a Connect6 position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TurnRead {
    /// The player to act completes six with the stones left this turn; the
    /// points that do it (any one of them starts a winning turn).
    Wins(Vec<Point>),
    /// The opponent has more sixes to complete next turn than this turn's
    /// stones can stop.
    Lost,
    /// The opponent completes six next turn unless one of these points is
    /// played this turn: one of them must be the next stone.
    Blocks(Vec<Point>),
    /// Nothing decided in one turn.
    Open,
}

/// The points of every six-point window on a board of `size`.
fn windows(size: u8) -> impl Iterator<Item = [Point; 6]> {
    const AXES: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];
    let n = i32::from(size);
    AXES.into_iter().flat_map(move |(dx, dy)| {
        (0..n).flat_map(move |y| (0..n).map(move |x| (x, y))).filter_map(move |(x, y)| {
            let (ex, ey) = (x + 5 * dx, y + 5 * dy);
            ((0..n).contains(&ex) && (0..n).contains(&ey)).then(|| {
                std::array::from_fn(|k| {
                    let k = k as i32;
                    // In range: both ends are on the board.
                    Point::new((x + k * dx) as u8, (y + k * dy) as u8)
                })
            })
        })
    })
}

/// The empty points of `window` if it holds no stone of `other`'s and at
/// most `empties` empty points, else `None`.
fn open_points(position: &Position, window: &[Point; 6], other: Color, empties: usize) -> Option<Vec<Point>> {
    let mut open = Vec::with_capacity(empties);
    for &p in window {
        match position.stone_at(p) {
            Some(c) if c == other => return None,
            Some(_) => {}
            None if open.len() == empties => return None,
            None => open.push(p),
        }
    }
    Some(open)
}

/// Stones the player to act still places this turn: 2 on the first stone
/// of a turn after the opening move, else 1.
fn stones_left(position: &Position) -> usize {
    let rules = position.rules();
    let ply = position.ply();
    1 + usize::from(rules.colour_of_stone(ply + 1) == rules.colour_of_stone(ply))
}

/// Reads `position` (Connect6's rules, game not over) one turn deep.
pub(crate) fn read_turn(position: &Position) -> TurnRead {
    let me = position.to_move();
    let left = stones_left(position);
    let size = position.rules().size();
    let mut wins: Vec<Point> = Vec::new();
    // The opponent's windows it fills next turn (two stones) if untouched.
    let mut threats: Vec<Vec<Point>> = Vec::new();
    for window in windows(size) {
        if let Some(open) = open_points(position, &window, me.opponent(), left) {
            wins.extend(open);
        } else if let Some(open) = open_points(position, &window, me, 2) {
            threats.push(open);
        }
    }
    if !wins.is_empty() {
        wins.sort_unstable_by_key(|p| (p.y(), p.x()));
        wins.dedup();
        return TurnRead::Wins(wins);
    }
    if threats.is_empty() {
        return TurnRead::Open;
    }
    // A first stone on `p` works if the stones left after it can hit every
    // window it misses: none left and none missed, or one left on a point
    // all of them share.
    let works = |p: Point| {
        let mut missed = threats.iter().filter(|open| !open.contains(&p));
        match left {
            1 => missed.next().is_none(),
            _ => match missed.next() {
                None => true,
                Some(first) => {
                    let mut shared = first.clone();
                    for open in missed {
                        shared.retain(|q| open.contains(q));
                    }
                    !shared.is_empty()
                }
            },
        }
    };
    let mut blocks: Vec<Point> = threats.iter().flatten().copied().filter(|&p| works(p)).collect();
    if blocks.is_empty() {
        return TurnRead::Lost;
    }
    blocks.sort_unstable_by_key(|p| (p.y(), p.x()));
    blocks.dedup();
    TurnRead::Blocks(blocks)
}

#[cfg(test)]
mod tests {
    use pente_core::{Game, Rules, Variant};

    use super::*;

    fn position(moves: &str) -> Position {
        let mut game = Game::new(Rules::new(Variant::Connect6, 19).unwrap());
        for m in moves.split_whitespace() {
            game.play(m.parse().unwrap()).unwrap();
        }
        game.position().clone()
    }

    fn points(list: &str) -> Vec<Point> {
        let mut points: Vec<Point> = list.split_whitespace().map(|p| p.parse().unwrap()).collect();
        points.sort_unstable_by_key(|p| (p.y(), p.x()));
        points
    }

    #[test]
    fn a_turn_counts_its_stones() {
        assert_eq!(stones_left(&position("")), 1);
        assert_eq!(stones_left(&position("K10")), 2);
        assert_eq!(stones_left(&position("K10 A1")), 1);
        assert_eq!(stones_left(&position("K10 A1 A3")), 2);
    }

    #[test]
    fn nothing_to_read_in_the_opening() {
        assert_eq!(read_turn(&position("K10 A1 A3")), TurnRead::Open);
    }

    /// Black's five on the A file, from the arena game that showed the
    /// network blind to lines on the edge (A12-A16 with A11 and A17 open).
    const EDGE_FIVE: &str = "K10 C18 A16 K8 K9 K7 A14 K11 K12 K13 A13 H10 J10 A15 A12";

    #[test]
    fn two_stones_must_block_both_ends_of_a_five() {
        // White's first stone: A11 or A17, then the other.
        let first = position(EDGE_FIVE);
        assert_eq!(read_turn(&first), TurnRead::Blocks(points("A11 A17")));
        let mut second = first.clone();
        second.play("A11".parse().unwrap()).unwrap();
        assert_eq!(read_turn(&second), TurnRead::Blocks(points("A17")));
        // A first stone elsewhere leaves one stone for two ends: lost.
        let mut astray = first;
        astray.play("L10".parse().unwrap()).unwrap();
        assert_eq!(read_turn(&astray), TurnRead::Lost);
    }

    #[test]
    fn a_win_this_turn_comes_before_any_block() {
        // White holds J10-M10 and places two: six on row 10, though Black
        // threatens A1-A6 (A5 and A6 open).
        let p = position("K10 A1 A2 J10 L10 A3 A4 M10 T19 T1 T3");
        assert_eq!(read_turn(&p), TurnRead::Wins(points("G10 H10 N10 O10")));
        // With one stone left White cannot make six: one of Black's two
        // open points must be taken.
        let mut after = p;
        after.play("T18".parse().unwrap()).unwrap();
        assert_eq!(read_turn(&after), TurnRead::Blocks(points("A5 A6")));
    }

    #[test]
    fn more_sixes_than_stones_is_lost() {
        // Black threatens A1-A6 and C1-C6, with no point in common: White's
        // two stones can stop both, each with its first stone on either.
        let two = "K10 A1 A2 T19 T15 A3 A4 P19 P15 C1 C2 M19 M15 C3 C4";
        assert_eq!(read_turn(&position(two)), TurnRead::Blocks(points("A5 A6 C5 C6")));
        // And E1-E6 as well: three threats, two stones.
        let three = format!("{two} H19 H15 E1 E2 D19 D15 E3 E4");
        assert_eq!(read_turn(&position(&three)), TurnRead::Lost);
    }
}
