//! One-move reads for the rules the threat solver cannot read: Poof-, Boat-
//! and O-Pente and their free forms, where a stone placed into a flank is
//! removed or a five can wait for the reply. Every check is a move played
//! under the rules crate's rules, so the reads are exact whatever a poof or
//! a boat does: the mover's immediate wins, the opponent's (the stones it
//! could place now, were it its move), and the replies that leave it none.
//!
//! Without them a network that has not seen a line grow (on the edge, say)
//! lets an open three become five at a few dozen visits.

use pente_core::{Color, Point, Position};

/// What one move decides at a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MoveRead {
    /// The player to move wins at once.
    Wins,
    /// The opponent wins on its next move whatever this one is.
    Lost,
    /// The opponent wins on its next move unless one of these is played.
    Stops(Vec<Point>),
    /// Nothing decided in one move.
    Open,
}

/// Whether these reads apply at `position`: rules with poofs or boats, one
/// stone a turn, the colours held.
pub(crate) fn applies(position: &Position) -> bool {
    let rules = position.rules();
    (rules.poofs() || rules.boat()) && !rules.two_stone_turns() && position.seats_decided()
}

/// Reads `position` (game not over) one move deep for each side.
pub(crate) fn read_move(position: &Position) -> MoveRead {
    if near_stones(position, None).any(|p| wins_at(position, p)) {
        return MoveRead::Wins;
    }
    let theirs = position.with_other_to_move();
    let threats: Vec<Point> = near_stones(&theirs, None).filter(|&p| wins_at(&theirs, p)).collect();
    if threats.is_empty() {
        return MoveRead::Open;
    }
    // A five's stones lie within 4 of the winning point; in Boat-Pente a
    // stone that flanks a pair or triple of them (3 further) makes it
    // capturable, so it no longer wins at once.
    let reach = if position.rules().boat() { 7 } else { 4 };
    let stops: Vec<Point> = position
        .legal_moves()
        .filter(|p| !p.is_choice())
        .filter(|&reply| stops_all(position, reply, &threats, reach))
        .collect();
    if stops.is_empty() { MoveRead::Lost } else { MoveRead::Stops(stops) }
}

/// Whether the player to move at `position` wins at once by `p`.
fn wins_at(position: &Position, p: Point) -> bool {
    let mover = position.to_move();
    let mut next = position.clone();
    next.play_unchecked(p);
    next.outcome().is_some_and(|o| o.winner == Some(mover))
}

/// The empty points next to a stone (only they can win at once: a five
/// runs through a neighbour, a capture flanks one), within `around` and
/// `radius` of it if given.
fn near_stones(position: &Position, around: Option<(Point, u8)>) -> impl Iterator<Item = Point> + '_ {
    let last = position.rules().size() - 1;
    // The square within `radius` of `around` (the whole board without it),
    // so that a reply's check walks its neighbourhood, not the board.
    let (xs, ys) = match around {
        Some((c, radius)) => {
            let span = |v: u8| v.saturating_sub(radius)..=v.saturating_add(radius).min(last);
            (span(c.x()), span(c.y()))
        }
        None => (0..=last, 0..=last),
    };
    ys.flat_map(move |y| xs.clone().map(move |x| Point::new(x, y)))
        .filter(move |&p| position.stone_at(p).is_none() && touches_stone(position, p))
}

/// Whether a stone stands on one of the eight points around `p`: only such
/// a point can win at once.
pub(crate) fn touches_stone(position: &Position, p: Point) -> bool {
    let size = i16::from(position.rules().size());
    (-1i16..=1).any(|dy| {
        (-1i16..=1).any(|dx| {
            let (x, y) = (i16::from(p.x()) + dx, i16::from(p.y()) + dy);
            (0..size).contains(&x)
                && (0..size).contains(&y)
                && position.stone_at(Point::new(x as u8, y as u8)).is_some()
        })
    })
}

/// Whether `reply` leaves the opponent no win on its next move, given its
/// winning points now (`threats`).
fn stops_all(position: &Position, reply: Point, threats: &[Point], reach: u8) -> bool {
    let me = position.to_move();
    let mut after = position.clone();
    let credits = [position.captured(Color::White), position.captured(Color::Black)];
    let taken = after.play_unchecked(reply);
    if let Some(outcome) = after.outcome() {
        // A win (or the full board) stops it; a poof that hands the
        // opponent the capture win does not.
        return outcome.winner != Some(me.opponent());
    }
    let poofed = after.stone_at(reply).is_none();
    let near = threats.iter().any(|w| w.distance(reply) <= reach);
    // A five left standing (capturable, so the game goes on) wins on the
    // next move unless the opponent breaks it.
    let five = after.in_winning_line(reply);
    // Far from every winning point, a stone that takes nothing, stays on the
    // board and makes no five changes none of them.
    if !near && taken == 0 && !poofed && !five {
        return false;
    }
    let opponent_credited = after.captured(me.opponent()) != credits[me.opponent().index()];
    if opponent_credited || five {
        // The opponent was credited stones (a capture anywhere may now win),
        // or may break the five with a capture that wins: every point.
        return !near_stones(&after, None).any(|p| wins_at(&after, p));
    }
    // New wins can only come from what the reply changed: captures of pairs
    // it made, within 3 of it.
    let fresh = near_stones(&after, Some((reply, 3)));
    !threats.iter().copied().filter(|&w| after.stone_at(w).is_none()).chain(fresh).any(|p| wins_at(&after, p))
}

#[cfg(test)]
mod tests {
    use pente_core::{Game, Rules, Variant};

    use super::*;

    fn position(variant: Variant, moves: &str) -> Position {
        Game::from_move_list(Rules::new(variant, 19).unwrap(), moves).unwrap().position().clone()
    }

    fn points(list: &str) -> Vec<Point> {
        let mut points: Vec<Point> = list.split_whitespace().map(|p| p.parse().unwrap()).collect();
        points.sort_unstable_by_key(|p| (p.y(), p.x()));
        points
    }

    fn sorted(mut points: Vec<Point>) -> Vec<Point> {
        points.sort_unstable_by_key(|p| (p.y(), p.x()));
        points
    }

    /// From an arena game the network lost in O-Pente: Black's K19 L19 M19
    /// N19 on the edge, open at J19 and O19, White to move.
    const EDGE_FOUR: &str = "K10 N19 L13 L19 N11 M19 N13 K19";

    #[test]
    fn an_open_four_on_the_edge_is_lost() {
        for variant in [Variant::OPente, Variant::PoofPente, Variant::BoatPente] {
            assert_eq!(read_move(&position(variant, EDGE_FOUR)), MoveRead::Lost, "{variant:?}");
        }
    }

    #[test]
    fn a_four_has_its_blocks() {
        // Black's L19 M19 N19 K19 with White on J19: only O19 stops it.
        let p = position(Variant::PoofPente, "K10 N19 J19 L19 N11 M19 N13 K19");
        let MoveRead::Stops(stops) = read_move(&p) else { panic!("{:?}", read_move(&p)) };
        assert_eq!(sorted(stops), points("O19"));
    }

    #[test]
    fn a_win_comes_first() {
        // White's K10 K11 K12 K13 open: White to move wins at once.
        let p = position(Variant::BoatPente, "K10 A1 K13 A3 K11 A5 K12 A7");
        assert_eq!(read_move(&p), MoveRead::Wins);
        assert_eq!(read_move(&position(Variant::BoatPente, "K10 A1 K13")), MoveRead::Open);
    }

    #[test]
    fn in_boat_pente_a_flank_far_from_the_point_can_stop_a_five() {
        // Black's four J15 K15 L15 M15 (N15 open, H15 White) and L16. The
        // five N15 would be capturable into if White flanked a pair of its
        // stones (L15 L16 from L17, say): it would wait for White's reply,
        // so the stops include such flanks, off the line.
        let p = position(Variant::BoatPente, "K10 J15 H15 K15 A1 L15 A3 L16 A5 M15");
        let MoveRead::Stops(stops) = read_move(&p) else { panic!("{:?}", read_move(&p)) };
        for stop in ["N15", "L17", "L14"] {
            assert!(stops.contains(&stop.parse().unwrap()), "{stop} not in {stops:?}");
        }
        assert!(!stops.contains(&"A7".parse().unwrap()));
        // The same stones under Poof-Pente's rules (no boats): only N15.
        let poof = position(Variant::PoofPente, "K10 J15 H15 K15 A1 L15 A3 L16 A5 M15");
        assert_eq!(read_move(&poof), MoveRead::Stops(points("N15")));
        // Each stop leaves Black no win on its next move, checked by play.
        for stop in &stops {
            let mut after = p.clone();
            after.play(*stop).unwrap();
            assert!(!near_stones(&after, None).any(|q| wins_at(&after, q)), "{stop}");
        }
    }
}
