//! Connect6 as `shared/VARIANTS.md` specifies it: two stones a turn after
//! the first, no captures, six or more in a row wins, checked after each stone.

use pente_core::{Color, EndReason, Game, IllegalMove, Outcome, Point, Position, Rules, Variant};

fn rules(size: u8) -> Rules {
    Rules::new(Variant::Connect6, size).expect("valid rules")
}

fn replay(size: u8, moves: &str) -> Position {
    Game::from_move_list(rules(size), moves).unwrap_or_else(|e| panic!("{moves}: {e}")).position().clone()
}

fn win(color: Color) -> Option<Outcome> {
    Some(Outcome { winner: Some(color), reason: EndReason::Five })
}

#[test]
fn colours_go_w_then_pairs() {
    let rules = rules(19);
    let order: String = (0..9).map(|k| rules.colour_of_stone(k).char()).collect();
    assert_eq!(order, "WBBWWBBWW");
    let mut position = Position::new(rules);
    for (k, stone) in ["K10", "A1", "A3", "A5", "A7", "A9"].into_iter().enumerate() {
        assert_eq!(position.to_move(), rules.colour_of_stone(k as u32));
        position.play(stone.parse().unwrap()).unwrap();
    }
    // After three stones the next is White's.
    assert_eq!(replay(19, "K10 A1 A3").to_move(), Color::White);
}

#[test]
fn the_first_stone_goes_on_the_centre() {
    let mut position = Position::new(rules(19));
    assert!(matches!(position.play("A1".parse().unwrap()), Err(IllegalMove::Opening { .. })));
    // No move-3 rule.
    replay(19, "K10 L10 K9");
}

#[test]
fn nothing_is_captured_and_five_does_not_win() {
    // W K10, B L10 M10, W N10: X O O X takes nothing.
    let position = replay(19, "K10 L10 M10 N10");
    assert_eq!((position.stone_at("L10".parse().unwrap()), position.captured(Color::White)), (Some(Color::Black), 0));
    // White: K10, then A1 A2, A3 A4, then A5 makes five: no win.
    let five = replay(19, "K10 T1 T3 A1 A2 T5 T7 A3 A4 T9 T11 A5");
    assert_eq!(five.outcome(), None);
}

#[test]
fn six_wins_with_either_stone_of_a_turn() {
    // The first stone of White's turn makes six: the game ends and the
    // second stone of the turn is refused.
    let mut first = replay(19, "K10 T1 T3 A1 A2 T5 T7 A3 A4 T9 T11 A5 A6");
    assert_eq!(first.outcome(), win(Color::White));
    assert!(matches!(first.play("B1".parse().unwrap()), Err(IllegalMove::GameOver { .. })));
    // The second stone makes it (B9 was the first of the turn).
    let second = replay(19, "K10 T1 T3 A1 A2 T5 T7 A3 A4 T9 T11 A5 B7 T13 T15 B9 A6");
    assert_eq!(second.ply() % 2, 1, "stone 17 is the second of its turn");
    assert_eq!(second.outcome(), win(Color::White));
    assert_eq!(second.last_move(), Some(Point::new(0, 5)));
    // Black's six.
    let black = replay(19, "K10 A1 A2 T1 T3 A3 A4 T5 T7 A5 A6");
    assert_eq!(black.outcome(), win(Color::Black));
}

#[test]
fn seven_wins() {
    // A1-A3 and A5-A7, then A4.
    let seven = replay(19, "K10 T1 T3 A1 A2 T5 T7 A3 A5 T9 T11 A6 A7 T13 T15 A4");
    assert_eq!(seven.outcome(), win(Color::White));
}

#[test]
fn six_wins_on_13x13() {
    let position = replay(13, "G7 N1 N3 A1 B2 N5 N7 C3 D4 N9 N11 E5 F6");
    assert_eq!(position.outcome(), win(Color::White));
}

#[test]
fn a_full_7x7_board_without_six_is_a_draw() {
    // (x + 2y) mod 4 < 2 is White: no run of three in any direction, 25
    // White points (the centre among them) and 24 Black.
    let white = |p: Point| (u32::from(p.x()) + 2 * u32::from(p.y())) % 4 < 2;
    let rules = rules(7);
    let centre = rules.centre();
    let points: Vec<Point> = (0..7).flat_map(|y| (0..7).map(move |x| Point::new(x, y))).collect();
    let mut whites: Vec<Point> = points.iter().copied().filter(|&p| white(p) && p != centre).collect();
    let mut blacks: Vec<Point> = points.iter().copied().filter(|&p| !white(p)).collect();
    assert!(white(centre));
    let mut position = Position::new(rules);
    position.play(centre).unwrap();
    while position.outcome().is_none() {
        let next = if position.to_move() == Color::White { whites.pop() } else { blacks.pop() };
        position.play(next.expect("the colours add up")).unwrap();
    }
    assert_eq!(position.outcome(), Some(Outcome { winner: None, reason: EndReason::Full }));
    assert_eq!((position.ply(), whites.len(), blacks.len()), (49, 0, 0));
}
