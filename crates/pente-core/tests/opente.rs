//! O-Pente, case by case as `shared/VARIANTS.md` lists them: Keryo's
//! captures and 15 to win, Poof-Pente's poofs of pairs and of triples (the
//! placed stone at an end or in the middle), and Boat-Pente's fives that a
//! capture of a pair or a triple could break.

use pente_core::{Color, EndReason, Outcome, Point, Position, Rules, Variant};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

fn o_pente() -> Rules {
    Rules::new(Variant::OPente, 19).unwrap()
}

fn pt(s: &str) -> Point {
    s.parse().unwrap()
}

fn replay(rules: Rules, moves: &str) -> Position {
    let mut position = Position::new(rules);
    for m in moves.split_whitespace() {
        position.play(pt(m)).unwrap_or_else(|e| panic!("{m}: {e}\n{position:?}"));
    }
    position
}

fn credited(position: &Position) -> (u16, u16) {
    (position.captured(Color::White), position.captured(Color::Black))
}

fn empty(position: &Position, points: &str) -> bool {
    points.split_whitespace().all(|p| position.stone_at(pt(p)).is_none())
}

#[test]
fn a_stone_at_the_end_of_its_own_flanked_triple_goes_with_it() {
    // C5 Black, [D5] E5 F5 White, G5 Black.
    let moves = "K10 C5 E5 G5 F5 A19 D5";
    let position = replay(o_pente(), moves);
    assert!(empty(&position, "D5 E5 F5"), "{position:?}");
    assert_eq!(credited(&position), (0, 3), "the three are credited to Black");
    assert_eq!(position.empty_count(), 361 - 4);
    assert_eq!(position.hash(), position.compute_hash());
    // Poof-Pente poofs pairs only, Keryo not at all.
    for rules in [Rules::new(Variant::PoofPente, 19).unwrap(), Rules::new(Variant::Keryo, 19).unwrap()] {
        let kept = replay(rules, moves);
        assert_eq!(credited(&kept), (0, 0), "{rules}");
        assert_eq!(kept.stone_at(pt("D5")), Some(Color::White), "{rules}");
    }
}

#[test]
fn a_stone_in_the_middle_of_its_own_flanked_triple_goes_with_it() {
    // C5 Black, D5 [E5] F5 White, G5 Black.
    let position = replay(o_pente(), "K10 C5 D5 G5 F5 A19 E5");
    assert!(empty(&position, "D5 E5 F5"), "{position:?}");
    assert_eq!(credited(&position), (0, 3));
    let kept = replay(Rules::new(Variant::PoofPente, 19).unwrap(), "K10 C5 D5 G5 F5 A19 E5");
    assert_eq!(credited(&kept), (0, 0), "Poof-Pente has no middle poof");
}

#[test]
fn three_flanked_stones_are_captured() {
    let mut position = replay(o_pente(), "K10 D5 C5 E5 A19 F5");
    assert_eq!(position.play(pt("G5")).unwrap(), 3);
    assert!(empty(&position, "D5 E5 F5"));
    assert_eq!(credited(&position), (3, 0));
}

#[test]
fn a_poof_in_three_lines_takes_six_stones() {
    // E5: a pair end along row 5 (C5 B, D5 W, [E5], F5 B), a triple end
    // along column E (E2 B, E3 E4 W, [E5], E6 B), the middle of a triple on
    // the diagonal (C3 B, D4 W, [E5], F6 W, G7 B).
    let position = replay(o_pente(), "K10 F5 D5 C5 E4 E6 E3 E2 F6 G7 D4 C3 E5");
    assert!(empty(&position, "E5 D5 E4 E3 F6 D4"), "{position:?}");
    assert_eq!(credited(&position), (0, 6));
    assert_eq!(position.outcome(), None);
    assert_eq!(position.hash(), position.compute_hash());
}

/// White's five K10..K14, which Black can break by capturing the triple
/// K11 L11 M11 at J11 (N11 is Black's).
const TRIPLE_CAPTURABLE: &str = "K10 N11 K13 A1 L11 A3 M11 A5 K11 A7 K12 A9 K14";

#[test]
fn a_five_a_triple_capture_can_break_waits_for_the_reply() {
    let position = replay(o_pente(), TRIPLE_CAPTURABLE);
    assert_eq!(position.outcome(), None, "Black may capture three at J11");
    let boat = replay(Rules::new(Variant::BoatPente, 19).unwrap(), TRIPLE_CAPTURABLE);
    let white_five = Some(Outcome { winner: Some(Color::White), reason: EndReason::Five });
    assert_eq!(boat.outcome(), white_five, "Boat-Pente captures pairs only: an immediate win");

    let mut broken = position.clone();
    assert_eq!(broken.play(pt("J11")).unwrap(), 3);
    assert_eq!(broken.outcome(), None, "the five is broken; play goes on");
    let mut survived = position;
    survived.play(pt("A11")).unwrap();
    assert_eq!(survived.outcome(), white_five, "the five survived Black's reply");
}

#[test]
fn a_capture_win_goes_to_the_player_with_more_and_a_tie_plays_on() {
    // Random games: every capture win has 15 or more and a lead, whoever
    // moved; a tie at 15 or more never ends the game.
    let (mut capture_wins, mut by_the_opponent) = (0, 0);
    for seed in 0..400 {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut position = Position::new(Rules::new(Variant::OPente, 9).unwrap());
        while !position.is_over() {
            let moves: Vec<Point> = position.legal_moves().collect();
            let mover = position.to_move();
            position.play(moves[rng.random_range(0..moves.len())]).unwrap();
            let (white, black) = credited(&position);
            if white == black && white >= 15 {
                assert!(position.outcome().is_none_or(|o| o.reason != EndReason::Captures), "{position:?}");
            }
            if let Some(Outcome { winner: Some(winner), reason: EndReason::Captures }) = position.outcome() {
                capture_wins += 1;
                let (more, less) = if winner == Color::White { (white, black) } else { (black, white) };
                assert!(more >= 15 && more > less, "{position:?}");
                by_the_opponent += usize::from(winner != mover);
            }
        }
    }
    assert!(capture_wins > 20, "{capture_wins}");
    assert!(by_the_opponent > 0, "a poof must hand the opponent the win sometimes");
}
