//! Setups and their text form over random games of every variant: a
//! position -> setup -> text -> setup -> position round trip gives the same
//! position (equal, same hash, same legal moves), which then plays on
//! exactly as the original; and a setup changed in one field is refused.

use pente_core::{Color, EndReason, Point, Position, Rules, Setup, SetupError, Symmetry, Variant};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

const SIZES: [u8; 4] = [7, 9, 13, 19];

fn rules_strategy() -> impl Strategy<Value = Rules> {
    (prop::sample::select(Variant::ALL.to_vec()), prop::sample::select(SIZES.to_vec()))
        .prop_map(|(variant, size)| Rules::new(variant, size).expect("valid rules"))
}

/// A legal move: usually one near the last few stones (where captures,
/// poofs and lines happen), otherwise `random_legal_move`; `None` once the
/// game is over.
fn pick_move(position: &Position, rng: &mut StdRng) -> Option<Point> {
    if position.is_over() {
        return None;
    }
    let recent: Vec<Point> = position.recent_moves().collect();
    if !recent.is_empty() && position.choices().is_empty() && rng.random_range(0..4) != 0 {
        let size = i32::from(position.rules().size());
        for _ in 0..8 {
            let base = recent[rng.random_range(0..recent.len())];
            let x = i32::from(base.x()) + rng.random_range(-2..=2);
            let y = i32::from(base.y()) + rng.random_range(-2..=2);
            if (0..size).contains(&x) && (0..size).contains(&y) && position.is_legal(Point::new(x as u8, y as u8)) {
                return Some(Point::new(x as u8, y as u8));
            }
        }
    }
    position.random_legal_move(rng)
}

/// The positions of a random game of up to `length` moves, the start included.
fn random_game(rules: Rules, seed: u64, length: usize) -> Vec<Position> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut position = Position::new(rules);
    let mut positions = vec![position.clone()];
    while positions.len() <= length {
        let Some(p) = pick_move(&position, &mut rng) else { break };
        position.play(p).unwrap_or_else(|e| panic!("picked an illegal move {p}: {e}\n{position:?}"));
        positions.push(position.clone());
    }
    positions
}

/// Asserts that two positions are the same in every respect the rules and
/// a network read.
fn assert_same(a: &Position, b: &Position, context: &str) {
    assert_eq!(a, b, "{context}");
    assert_eq!(a.hash(), b.hash(), "{context}");
    assert_eq!(b.hash(), b.compute_hash(), "{context}");
    assert_eq!(a.outcome(), b.outcome(), "{context}");
    assert_eq!(a.empty_count(), b.empty_count(), "{context}");
    assert_eq!((a.actor(), a.choice_pending()), (b.actor(), b.choice_pending()), "{context}");
    assert_eq!(Color::ALL.map(|c| a.holder(c)), Color::ALL.map(|c| b.holder(c)), "{context}");
    assert!(a.recent_moves().eq(b.recent_moves()), "{context}");
    assert!(a.legal_moves().eq(b.legal_moves()), "{context}");
}

/// Position -> setup -> text -> setup -> position; returns the rebuilt one.
fn round_trip(position: &Position) -> Position {
    let setup = position.setup();
    let text = setup.to_string();
    let parsed: Setup = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(parsed, setup, "{text}");
    assert_eq!(parsed.to_string(), text);
    let back = Position::from_setup(&parsed).unwrap_or_else(|e| panic!("{text}: {e}\n{position:?}"));
    assert_same(position, &back, &text);
    assert_eq!(back.setup(), setup, "{text}");
    back
}

/// Plays the same random moves from both positions and compares them after each.
fn plays_on_alike(original: &Position, rebuilt: &Position, seed: u64, moves: usize) {
    let (mut a, mut b) = (original.clone(), rebuilt.clone());
    let mut rng = StdRng::seed_from_u64(seed);
    for k in 0..moves {
        let Some(p) = pick_move(&a, &mut rng) else { break };
        assert_eq!(a.play(p), b.play(p), "move {k} {p} from {}", original.setup());
        assert_same(&a, &b, &format!("after {k} moves ({p}) from {}", original.setup()));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Every position of a random game, and its transforms, round-trip and
    /// play on as the original.
    #[test]
    fn every_position_round_trips_and_plays_on_alike(
        rules in rules_strategy(),
        seed in any::<u64>(),
        length in 0usize..250,
    ) {
        for (k, position) in random_game(rules, seed, length).iter().enumerate() {
            let rebuilt = round_trip(position);
            plays_on_alike(position, &rebuilt, seed ^ k as u64, 6);
            let symmetry = Symmetry::ALL[k % Symmetry::ALL.len()];
            round_trip(&position.transformed(symmetry));
        }
    }

    /// A setup changed in one field no longer adds up, and is refused.
    #[test]
    fn a_setup_changed_in_one_field_is_refused(
        rules in rules_strategy(),
        seed in any::<u64>(),
        length in 1usize..200,
    ) {
        let positions = random_game(rules, seed, length);
        let position = positions.last().unwrap();
        let setup = position.setup();
        let refused = |edit: &dyn Fn(&mut Setup)| {
            let mut changed = setup.clone();
            edit(&mut changed);
            Position::from_setup(&changed).expect_err(&format!("{changed} is refused"))
        };
        let error = refused(&|s| s.to_move = s.to_move.opponent());
        prop_assert!(matches!(error, SetupError::SideToMove { .. }), "{}", error);
        let error = refused(&|s| s.ply += 1);
        prop_assert!(matches!(error, SetupError::PlyCount { .. } | SetupError::StoneCount { .. }), "{}", error);
        if let Some((&p, _)) = setup.stones.iter().next() {
            let error = refused(&|s| { s.stones.remove(&p); });
            prop_assert!(matches!(error, SetupError::PlyCount { .. } | SetupError::StoneCount { .. }), "{}", error);
        }
        if let Some(p) = position.legal_moves().find(|p| !p.is_choice()) {
            for color in Color::ALL {
                let error = refused(&|s| { s.stones.insert(p, color); });
                prop_assert!(matches!(error, SetupError::PlyCount { .. } | SetupError::StoneCount { .. }), "{}", error);
            }
        }
        if rules.colour_choice().is_none() {
            let error = refused(&|s| s.choices.push(pente_core::Choice::Stay));
            prop_assert!(matches!(error, SetupError::ChoicesInVariant { .. }), "{}", error);
        }
    }
}

/// Whole random games of every variant on every size, to their end: every
/// position round-trips, and the games reach what the derived outcome and
/// the seats must get right.
#[test]
fn whole_games_of_every_variant_round_trip() {
    for variant in Variant::ALL {
        let (mut fives, mut capture_wins, mut pending, mut waiting_fives) = (0, 0, 0, 0);
        for size in SIZES {
            let rules = Rules::new(variant, size).unwrap();
            for seed in 0..12 {
                let positions = random_game(rules, 1000 * u64::from(size) + seed, 2000);
                for (k, position) in positions.iter().enumerate() {
                    let rebuilt = round_trip(position);
                    if k + 3 >= positions.len() {
                        plays_on_alike(position, &rebuilt, seed, 4);
                    }
                    pending += usize::from(position.choice_pending().is_some());
                    match position.outcome().map(|o| o.reason) {
                        Some(EndReason::Five) => fives += 1,
                        Some(EndReason::Captures) => capture_wins += 1,
                        _ => {}
                    }
                    // Boat-Pente: the last mover's five is on the board, and
                    // the game goes on.
                    let last_mover = position.ply().checked_sub(1).map(|s| rules.colour_of_stone(s));
                    if rules.boat() && !position.is_over() && last_mover.is_some_and(|c| has_five(position, c)) {
                        waiting_fives += 1;
                    }
                }
                assert!(positions.last().unwrap().is_over(), "{rules} seed {seed}: the game ends");
            }
        }
        assert!(fives > 0, "{variant}: no game ended with a line");
        let rules = Rules::new(variant, 19).unwrap();
        if rules.capture_win().is_some() {
            assert!(capture_wins > 0, "{variant}: no game ended on captures");
        }
        if rules.colour_choice().is_some() {
            assert!(pending > 0, "{variant}: no colour choice was pending");
        }
        if rules.boat() {
            assert!(waiting_fives > 0, "{variant}: no five waited for a reply");
        }
    }
}

fn has_five(position: &Position, color: Color) -> bool {
    let size = i32::from(position.rules().size());
    let at = |x: i32, y: i32| {
        (0..size).contains(&x)
            && (0..size).contains(&y)
            && position.stone_at(Point::new(x as u8, y as u8)) == Some(color)
    };
    (0..size).any(|y| {
        (0..size).any(|x| {
            [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dx, dy)| (0..5).all(|k| at(x + k * dx, y + k * dy)))
        })
    })
}
