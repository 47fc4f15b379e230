//! Poof-Pente, case by case as `shared/VARIANTS.md` lists them: a stone
//! placed into a flank (`O X* X O`) goes with its partner, credited to the
//! opponent; the capture win needs a lead and can go to the opponent.

use pente_core::{Color, EndReason, Outcome, Point, Position, Rules, Variant};

fn poof() -> Rules {
    Rules::new(Variant::PoofPente, 19).unwrap()
}

fn pt(s: &str) -> Point {
    s.parse().unwrap()
}

/// Plays `moves` (checked); returns the stones each one captured.
fn play(position: &mut Position, moves: &str) -> Vec<u16> {
    moves
        .split_whitespace()
        .map(|m| position.play(pt(m)).unwrap_or_else(|e| panic!("{m}: {e}\n{position:?}")))
        .collect()
}

fn replay(rules: Rules, moves: &str) -> Position {
    let mut position = Position::new(rules);
    play(&mut position, moves);
    position
}

fn credited(position: &Position) -> (u16, u16) {
    (position.captured(Color::White), position.captured(Color::Black))
}

fn stones(position: &Position, points: &str) -> Vec<Option<Color>> {
    points.split_whitespace().map(|p| position.stone_at(pt(p))).collect()
}

#[test]
fn a_stone_placed_into_a_flank_goes_with_its_partner() {
    let position = replay(poof(), "K10 L9 N7 M8");
    assert_eq!(stones(&position, "L9 M8 K10 N7"), [None, None, Some(Color::White), Some(Color::White)]);
    assert_eq!(credited(&position), (2, 0), "both black stones are credited to White");
    assert_eq!(position.hash(), position.compute_hash());
    assert_eq!(position.empty_count(), 361 - 2);
    let pente = replay(Rules::pente(), "K10 L9 N7 M8");
    assert_eq!(stones(&pente, "L9 M8"), [Some(Color::Black), Some(Color::Black)], "plain Pente keeps them");
    // The point is playable again, and without a partner it stays.
    let mut position = position;
    play(&mut position, "A1 M8");
    assert_eq!(position.stone_at(pt("M8")), Some(Color::Black));
    assert_eq!(credited(&position), (2, 0));
}

#[test]
fn a_capture_and_a_poof_in_one_move_even_of_its_own_flank() {
    // C5 W, D5 B, [E5], F5 W, G5 W, H5 B: E5 takes F5 G5 and is poofed with
    // D5 between C5 and F5, F5 being taken by the same move.
    let mut position = replay(poof(), "K10 D5 C5 H5 F5 A19 G5");
    assert_eq!(play(&mut position, "E5"), [2]);
    assert_eq!(
        stones(&position, "C5 D5 E5 F5 G5 H5"),
        [Some(Color::White), None, None, None, None, Some(Color::Black)]
    );
    assert_eq!(credited(&position), (2, 2));
    assert_eq!(position.outcome(), None);
    assert_eq!(position.hash(), position.compute_hash());
}

#[test]
fn a_poof_in_two_lines_takes_three_stones() {
    let mut position = replay(poof(), "K10 D5 C5 E4 F5 A19 E6 C19 E3");
    play(&mut position, "E5");
    assert_eq!(stones(&position, "E5 D5 E4"), [None, None, None]);
    assert_eq!(credited(&position), (3, 0), "the placed stone counts once");
}

#[test]
fn a_poofed_stone_makes_no_five_and_the_same_five_wins_later() {
    // Black's G15 H15 J15 K15 and L15 would be five, but L15 lies in
    // L16 W, L14 B, L13 W and goes.
    let mut position = replay(poof(), "K10 G15 L16 H15 L13 J15 A1 K15 C1 L14 E1");
    play(&mut position, "L15");
    assert_eq!(position.outcome(), None);
    assert_eq!(stones(&position, "L15 L14"), [None, None]);
    assert_eq!(credited(&position), (2, 0));
    // Without its partner L15 stays, and the five wins.
    play(&mut position, "G1 L15");
    assert_eq!(position.outcome(), Some(Outcome { winner: Some(Color::Black), reason: EndReason::Five }));
}

/// White 8: Black has poofed himself four times on rows 2 4 6 8 of columns
/// A-D (B and C between White's A and D are empty again), White to move.
const WHITE_EIGHT: &str = "poof-pente 11B1B1B1B1/19/19/19/19/19/19/19/19/9W9/19/W2W15/19/W2W15/19/W2W15/15W3/\
     W2W15/15W1W1 w ply=24 captures=8-0 recent=C8,Q3,C6,S1";

#[test]
fn the_opponent_wins_on_the_movers_own_poof() {
    let mut position: Position = WHITE_EIGHT.parse().unwrap();
    assert_eq!((credited(&position), position.outcome()), ((8, 0), None));
    // A fifth poof: White reaches 10 on Black's move, and wins.
    play(&mut position, "A12 B12 D12 C12");
    assert_eq!(credited(&position), (10, 0));
    assert_eq!(position.outcome(), Some(Outcome { winner: Some(Color::White), reason: EndReason::Captures }));
}

#[test]
fn a_tie_at_ten_plays_on_and_the_next_lead_ends_it() {
    // 8-8: Black has poofed himself on columns A-D of rows 2 4 6 8, White
    // on columns Q-T; Black to move.
    let mut position: Position = "poof-pente 19/19/19/19/19/19/19/19/19/9W9/19/W2W11B2B/19/W2W11B2B/19/W2W11B2B/19/\
         W2W11B2B/19 b ply=33 captures=8-8 recent=S8,T8,R8,Q8"
        .parse()
        .unwrap();
    assert_eq!((credited(&position), position.outcome()), ((8, 8), None));
    // E16 captures F16 G16 (Black 10) and is poofed with D16 (White 10).
    play(&mut position, "D16 C16 H16 F16 Q18 G16");
    assert_eq!(play(&mut position, "E16"), [2]);
    assert_eq!((credited(&position), position.outcome()), ((10, 10), None));
    // White poofs itself: 10-12, Black wins on White's move.
    play(&mut position, "R18 T18 S18");
    assert_eq!(credited(&position), (10, 12));
    assert_eq!(position.outcome(), Some(Outcome { winner: Some(Color::Black), reason: EndReason::Captures }));
}

#[test]
fn the_tournament_rule_and_the_empty_board() {
    let empty = Position::new(poof());
    assert_eq!((empty.outcome(), empty.legal_moves().count()), (None, 1));
    let mut position = replay(poof(), "K10 L9");
    assert!(position.play(pt("K11")).is_err(), "move 3 inside the square");
    assert!(position.play(pt("K13")).is_ok());
    assert_eq!(("poof-pente".parse::<Variant>(), poof().capture_win()), (Ok(Variant::PoofPente), Some(10)));
}

#[test]
fn the_other_colour_to_move_reads_what_it_could_play() {
    // White to move; with Black to move instead, Black's M8 is poofed as
    // White's would be captured: the rules apply to whoever places it.
    let position = replay(poof(), "K10 L9 N7 A1");
    let other = position.with_other_to_move();
    assert_eq!((position.to_move(), other.to_move()), (Color::White, Color::Black));
    assert_eq!(other.hash(), other.compute_hash());
    assert_eq!(other.with_other_to_move().hash(), position.hash());
    let mut after = other.clone();
    play(&mut after, "M8");
    assert_eq!(stones(&after, "L9 M8"), [None, None]);
    assert_eq!(credited(&after), (2, 0));
    assert_eq!(after.to_move(), Color::White);
}
