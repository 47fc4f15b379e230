//! Boat-Pente, case by case as `shared/VARIANTS.md` lists them: a five the
//! opponent could capture into wins only if it survives his reply.

use pente_core::{Color, EndReason, Outcome, Position, Rules, Variant};

fn boat(size: u8) -> Rules {
    Rules::new(Variant::BoatPente, size).unwrap()
}

fn replay(rules: Rules, moves: &str) -> Position {
    let mut position = Position::new(rules);
    for m in moves.split_whitespace() {
        position.play(m.parse().unwrap()).unwrap_or_else(|e| panic!("{m}: {e}\n{position:?}"));
    }
    position
}

fn white(reason: EndReason) -> Option<Outcome> {
    Some(Outcome { winner: Some(Color::White), reason })
}

/// White's five K10..O10 by N10, which Black could capture into at K9
/// (K10 K11 with Black's K12 beyond); Black holds a four A1..A4.
const CAPTURABLE: &str = "K10 K12 O10 A1 K11 A2 L10 A3 M10 A4 N10";

#[test]
fn a_five_no_one_can_capture_into_wins_at_once() {
    assert_eq!(replay(boat(19), "K10 A1 O10 A3 L10 A5 M10 A7 N10").outcome(), white(EndReason::Five));
    // On 13x13 too, vertically (pente.org's 19-wide directions miss it).
    assert_eq!(replay(boat(13), "G7 A1 G10 A3 G8 A5 G9 A7 G11").outcome(), white(EndReason::Five));
}

#[test]
fn a_capturable_five_waits_for_the_reply() {
    let position = replay(boat(19), CAPTURABLE);
    assert_eq!(position.outcome(), None, "Black may still capture into it");
    assert_eq!(replay(Rules::pente(), CAPTURABLE).outcome(), white(EndReason::Five), "plain Pente: at once");

    // Captured: the five is broken and play goes on.
    let mut broken = position.clone();
    assert_eq!(broken.play("K9".parse().unwrap()), Ok(2));
    assert_eq!(broken.outcome(), None);
    // Surviving: it wins on Black's move.
    let mut survived = position.clone();
    survived.play("A9".parse().unwrap()).unwrap();
    assert_eq!(survived.outcome(), white(EndReason::Five));
    // Black's own five does not save him: the surviving five comes first.
    let mut answered = position;
    answered.play("A5".parse().unwrap()).unwrap();
    assert_eq!(answered.outcome(), white(EndReason::Five));
}

#[test]
fn an_overline_capturable_at_its_end_wins_a_move_later() {
    // N10 makes K10..P10; P10 P11 can be captured at P9 (Black's P12 beyond).
    let mut position = replay(boat(19), "K10 P12 O10 A1 P11 A2 P10 A4 L10 A6 M10 A8 N10");
    assert_eq!(position.outcome(), None);
    assert_eq!(position.play("P9".parse().unwrap()), Ok(2));
    assert_eq!(position.outcome(), white(EndReason::Five), "K10..O10 is left, and wins");
    assert_eq!(position.hash(), position.compute_hash());
}

#[test]
fn boat_pente_keeps_the_tournament_rule() {
    let mut position = replay(boat(19), "K10 L9");
    assert!(position.play("K11".parse().unwrap()).is_err());
    assert_eq!("boat-pente".parse::<Variant>(), Ok(Variant::BoatPente));
    assert!(boat(19).boat() && !Rules::pente().boat());
}

#[test]
fn of_two_fives_made_at_once_the_safe_one_wins() {
    // Free Boat-Pente on 9x9 (a random game the differential test found):
    // C1 makes A1-F1, which Black cannot capture into, and the diagonal
    // C1-G5, which he can (D4 takes E3 and F2 against G1): the safe five
    // wins at once.
    let mut position: Position = "free-boat-pente/9 1BBBBW1W1/B2B2B1W/1B2BB3/3WBWB2/3BWBWW1/W1W1WWBWB/BWB1WBBBW/\
         WB1WBWBBW/WW1WWWB1B w ply=58 captures=2-4 recent=G2,A4,B9,D2"
        .parse()
        .unwrap();
    assert_eq!(position.play("C1".parse().unwrap()), Ok(0));
    assert_eq!(position.outcome(), white(EndReason::Five));
}

#[test]
fn a_five_that_waits_is_still_a_winning_line() {
    // Black's capturable five stands while the game goes on.
    let mut position = Position::new(Rules::new(Variant::BoatPente, 19).unwrap());
    for m in "K10 J15 H15 K15 A1 L15 A3 L16 L17 M15 A5".split_whitespace() {
        position.play(m.parse().unwrap()).unwrap();
    }
    assert!(!position.in_winning_line("N15".parse().unwrap()), "empty");
    position.play("N15".parse().unwrap()).unwrap();
    assert_eq!(position.outcome(), None, "the five can be captured into from L14");
    assert!(position.in_winning_line("N15".parse().unwrap()));
    assert!(position.in_winning_line("J15".parse().unwrap()));
    assert!(!position.in_winning_line("L16".parse().unwrap()));
}
