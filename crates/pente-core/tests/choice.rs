//! The colour-choice openings of `shared/VARIANTS.md`: D-Pente, DK-Pente,
//! Swap2-Pente and Swap2-Keryo, case by case.

use pente_core::{Choice, Color, Game, IllegalMove, Point, Position, Rules, Seat, Variant};

fn rules(variant: Variant) -> Rules {
    Rules::new(variant, 19).expect("valid rules")
}

fn replay(variant: Variant, moves: &str) -> Position {
    Game::from_move_list(rules(variant), moves).unwrap_or_else(|e| panic!("{variant} {moves}: {e}")).position().clone()
}

fn refused(variant: Variant, moves: &str, last: &str) -> IllegalMove {
    let mut position = replay(variant, moves);
    let before = position.clone();
    let error = position.play(last.parse().unwrap()).expect_err("the move is illegal");
    assert_eq!(position, before, "a refused move changes nothing");
    error
}

#[test]
fn d_pente_opener_places_four_stones_anywhere_then_the_other_chooses() {
    for variant in [Variant::DPente, Variant::DkPente] {
        let mut position = Position::new(rules(variant));
        for (i, stone) in ["A1", "B3", "S19", "K9"].into_iter().enumerate() {
            assert_eq!((position.actor(), position.choice_pending()), (Seat::First, None), "{variant} stone {i}");
            assert_eq!(position.holder(Color::White), None);
            position.play(stone.parse().unwrap()).unwrap();
        }
        assert_eq!(position.ply(), 4);
        assert_eq!(position.choice_pending(), Some(Seat::Second));
        assert_eq!(position.actor(), Seat::Second);
        assert_eq!(position.legal_moves().collect::<Vec<_>>(), [Point::SWAP, Point::STAY]);
        assert_eq!(position.to_move(), Color::White, "stone 5 is White whoever places it");
    }
}

#[test]
fn d_pente_swap_and_stay_give_the_same_board_and_different_seats() {
    let swap = replay(Variant::DPente, "K10 L10 M10 N10 swap");
    let stay = replay(Variant::DPente, "K10 L10 M10 N10 STAY");
    assert_eq!(swap.board_rows(), stay.board_rows());
    assert_eq!((swap.ply(), stay.ply()), (4, 4), "a choice is not a ply");
    assert_eq!((swap.to_move(), stay.to_move()), (Color::White, Color::White));
    // Swap: the chooser takes White and places stone 5.
    assert!(swap.swapped() && !stay.swapped());
    assert_eq!((swap.holder(Color::White), swap.actor()), (Some(Seat::Second), Seat::Second));
    assert_eq!((stay.holder(Color::White), stay.actor()), (Some(Seat::First), Seat::First));
    assert_ne!(swap.hash(), stay.hash());
    assert_eq!(swap.last_move(), Some("N10".parse().unwrap()), "a choice is not a stone");
    // Then play alternates as in Pente, White first.
    let after = replay(Variant::DPente, "K10 L10 M10 N10 swap A1 A2");
    assert_eq!((after.to_move(), after.actor()), (Color::White, Seat::Second));
}

#[test]
fn d_pente_refuses_stones_while_choosing_and_choices_elsewhere() {
    for variant in [Variant::DPente, Variant::DkPente] {
        assert!(matches!(
            refused(variant, "K10 L10 M10 N10", "A1"),
            IllegalMove::ChoicePending { chooser: Seat::Second, can_pass: false, .. }
        ));
        assert_eq!(
            refused(variant, "K10 L10 M10 N10", "pass"),
            IllegalMove::NoSuchChoice { choice: Choice::Pass, pending: true }
        );
        for early in ["", "K10", "K10 L10 M10"] {
            assert_eq!(
                refused(variant, early, "swap"),
                IllegalMove::NoSuchChoice { choice: Choice::Swap, pending: false },
                "{early}"
            );
        }
        assert!(matches!(refused(variant, "K10 L10 M10 N10 stay", "swap"), IllegalMove::NoSuchChoice { .. }));
        assert!(matches!(refused(variant, "K10 L10 M10 N10 stay A1", "stay"), IllegalMove::NoSuchChoice { .. }));
        // The message names who must choose.
        let message = refused(variant, "K10 L10 M10 N10", "A1").to_string();
        assert!(message.contains("p2 must choose"), "{message}");
    }
}

#[test]
fn d_pente_has_no_move_three_rule_and_the_first_stone_goes_anywhere() {
    for variant in [Variant::DPente, Variant::DkPente, Variant::Swap2Pente, Variant::Swap2Keryo] {
        replay(variant, "K10 L9 K9");
        replay(variant, "A1 T19 B2");
    }
}

#[test]
fn the_opening_stones_can_capture() {
    // Stone 4, Black, placed by the opener, takes K10 and L10.
    let position = replay(Variant::DPente, "K10 J10 L10 M10");
    assert_eq!(position.captured(Color::Black), 2);
    assert_eq!(position.choice_pending(), Some(Seat::Second));
    let position = replay(Variant::Swap2Pente, "K10 J10 L10 pass M10");
    assert_eq!(position.captured(Color::Black), 2);
}

#[test]
fn dk_pente_and_swap2_keryo_capture_three() {
    let d = replay(Variant::DPente, "K10 J10 L10 A1 stay M10 N10");
    let dk = replay(Variant::DkPente, "K10 J10 L10 A1 stay M10 N10");
    assert_eq!((d.captured(Color::Black), dk.captured(Color::Black)), (0, 3));
    let s = replay(Variant::Swap2Pente, "K10 J10 L10 stay A1 M10 N10");
    let sk = replay(Variant::Swap2Keryo, "K10 J10 L10 stay A1 M10 N10");
    assert_eq!((s.captured(Color::Black), sk.captured(Color::Black)), (0, 3));
    assert_eq!(rules(Variant::DkPente).capture_win(), Some(15));
}

#[test]
fn swap2_first_choice_swap_stay_or_pass() {
    for variant in [Variant::Swap2Pente, Variant::Swap2Keryo] {
        let three = replay(variant, "K10 L10 M10");
        assert_eq!(three.choice_pending(), Some(Seat::Second));
        assert_eq!(three.legal_moves().collect::<Vec<_>>(), [Point::SWAP, Point::STAY, Point::PASS]);
        // Swap: P2 takes White; the opener takes Black and places stone 4.
        let swap = replay(variant, "K10 L10 M10 swap");
        assert_eq!(
            (swap.holder(Color::White), swap.actor(), swap.to_move()),
            (Some(Seat::Second), Seat::First, Color::Black)
        );
        assert!(swap.swapped());
        // Stay: P2 keeps Black and places stone 4.
        let stay = replay(variant, "K10 L10 M10 stay");
        assert_eq!((stay.holder(Color::Black), stay.actor()), (Some(Seat::Second), Seat::Second));
        assert!(!stay.swapped());
        // Pass: P2 places stones 4 (Black) and 5 (White), then P1 chooses.
        let pass = replay(variant, "K10 L10 M10 pass");
        assert_eq!((pass.holder(Color::White), pass.actor(), pass.to_move()), (None, Seat::Second, Color::Black));
        let four = replay(variant, "K10 L10 M10 pass A1");
        assert_eq!((four.actor(), four.to_move(), four.choice_pending()), (Seat::Second, Color::White, None));
        let five = replay(variant, "K10 L10 M10 pass A1 A2");
        assert_eq!(five.choice_pending(), Some(Seat::First));
        assert_eq!(five.legal_moves().collect::<Vec<_>>(), [Point::SWAP, Point::STAY]);
    }
}

#[test]
fn swap2_second_choice_after_a_pass() {
    // Swap: P1 takes Black and places stone 6; the opener ends up with Black.
    let swap = replay(Variant::Swap2Pente, "K10 L10 M10 pass A1 A2 swap");
    assert_eq!(
        (swap.holder(Color::Black), swap.actor(), swap.to_move()),
        (Some(Seat::First), Seat::First, Color::Black)
    );
    assert!(swap.swapped());
    // Stay: P1 keeps White; P2 places stone 6.
    let stay = replay(Variant::Swap2Pente, "K10 L10 M10 pass A1 A2 stay");
    assert_eq!((stay.holder(Color::White), stay.actor()), (Some(Seat::First), Seat::Second));
    assert!(!stay.swapped());
    assert_eq!(swap.board_rows(), stay.board_rows());
}

#[test]
fn swap2_refuses_choices_out_of_turn() {
    let v = Variant::Swap2Pente;
    // A second pass, a token after stone 4 without a pass, a token after stay.
    assert_eq!(
        refused(v, "K10 L10 M10 pass A1 A2", "pass"),
        IllegalMove::NoSuchChoice { choice: Choice::Pass, pending: true }
    );
    assert!(matches!(refused(v, "K10 L10 M10 stay A1", "swap"), IllegalMove::NoSuchChoice { pending: false, .. }));
    assert!(matches!(refused(v, "K10 L10 M10 stay", "stay"), IllegalMove::NoSuchChoice { .. }));
    assert!(matches!(refused(v, "K10 L10 M10 pass A1", "swap"), IllegalMove::NoSuchChoice { .. }));
    assert!(matches!(refused(v, "K10 L10 M10", "A1"), IllegalMove::ChoicePending { can_pass: true, .. }));
    assert!(matches!(
        refused(v, "K10 L10 M10 pass A1 A2", "A3"),
        IllegalMove::ChoicePending { chooser: Seat::First, .. }
    ));
    // Choices are refused in every other variant.
    for variant in Variant::ALL.into_iter().filter(|v| rules(*v).colour_choice().is_none()) {
        let mut position = Position::new(rules(variant));
        for choice in [Point::SWAP, Point::STAY, Point::PASS] {
            assert!(position.play(choice).is_err(), "{variant}");
        }
    }
}

#[test]
fn a_move_list_may_end_with_a_choice_pending_and_prints_its_tokens() {
    let game = Game::from_move_list(rules(Variant::DPente), "1. K10 L10 2. M10 N10 swap 3. O10").unwrap();
    assert_eq!(game.moves().len(), 6);
    assert_eq!(game.moves()[4], Point::SWAP);
    assert_eq!(pente_core::format_move_list(game.moves(), false), "K10 L10 M10 N10 swap O10");
    let pending = Game::from_move_list(rules(Variant::DPente), "K10 L10 M10 N10").unwrap();
    assert_eq!(pending.position().choice_pending(), Some(Seat::Second));
}
