//! Invariants of positions, hashes, symmetries, move generation and notation,
//! checked over random games (a seed and a length, played with a seeded RNG
//! and biased toward crowded, capture-prone play).

use pente_core::{Color, Game, Point, Position, Rules, Symmetry, Variant, format_move_list, parse_move_list};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

const SIZES: [u8; 4] = [7, 9, 13, 19];

fn rules_strategy() -> impl Strategy<Value = Rules> {
    (prop::sample::select(Variant::ALL.to_vec()), prop::sample::select(SIZES.to_vec()))
        .prop_map(|(variant, size)| Rules::new(variant, size).expect("valid rules"))
}

/// A legal move: usually one near the last few stones (where captures and
/// lines happen), otherwise `random_legal_move`. `None` once the game is over.
fn pick_move(position: &Position, history: &[Point], rng: &mut StdRng) -> Option<Point> {
    if position.is_over() {
        return None;
    }
    if !history.is_empty() && rng.random_range(0..4) != 0 {
        let size = i32::from(position.rules().size());
        for _ in 0..8 {
            let base = history[rng.random_range(history.len().saturating_sub(6)..history.len())];
            let x = i32::from(base.x()) + rng.random_range(-2..=2);
            let y = i32::from(base.y()) + rng.random_range(-2..=2);
            if let (Ok(x), Ok(y)) = (u8::try_from(x), u8::try_from(y))
                && i32::from(x) < size
                && i32::from(y) < size
                && position.is_legal(Point::new(x, y))
            {
                return Some(Point::new(x, y));
            }
        }
    }
    position.random_legal_move(rng)
}

/// Plays up to `length` moves of a random game, calling `visit` with the
/// position before each move, the move, the stones `play` reported captured
/// and the position after it.
fn random_game(
    rules: Rules,
    seed: u64,
    length: usize,
    mut visit: impl FnMut(&Position, Point, u16, &Position),
) -> Vec<Point> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut position = Position::new(rules);
    let mut history = Vec::new();
    while history.len() < length {
        let Some(p) = pick_move(&position, &history, &mut rng) else { break };
        let before = position.clone();
        let taken = position.play(p).unwrap_or_else(|e| panic!("picked an illegal move {p}: {e}\n{before:?}"));
        visit(&before, p, taken, &position);
        history.push(p);
    }
    history
}

fn all_points(size: u8) -> impl Iterator<Item = Point> {
    (0..size).flat_map(move |y| (0..size).map(move |x| Point::new(x, y)))
}

fn count_stones(position: &Position, color: Color) -> usize {
    all_points(position.rules().size()).filter(|&p| position.stone_at(p) == Some(color)).count()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Stones on the board = stones placed minus stones credited to the
    /// opponent (captured by him, or poofed in Poof-Pente); `play` reports
    /// exactly the stones it captured; empties add up.
    #[test]
    fn stones_and_captures_add_up(rules in rules_strategy(), seed in any::<u64>(), length in 0usize..160) {
        let mut placed = [0usize; 2];
        let mut credited = [0usize; 2];
        let area = rules.area();
        random_game(rules, seed, length, |before, p, reported, after| {
            if p.is_choice() {
                // A colour choice places nothing and moves no stone.
                assert_eq!((reported, after.ply(), after.to_move()), (0, before.ply(), before.to_move()));
                assert_eq!(after.board_rows(), before.board_rows());
                assert_eq!(after.last_move(), before.last_move());
                assert!(after.choice_pending().is_none() || p == Point::PASS, "a pass hands the choice on later");
                return;
            }
            let mover = before.to_move();
            placed[mover.index()] += 1;
            let taken = usize::from(after.captured(mover) - before.captured(mover));
            let poofed = usize::from(after.captured(mover.opponent()) - before.captured(mover.opponent()));
            assert_eq!(usize::from(reported), taken);
            credited[mover.index()] += taken;
            credited[mover.opponent().index()] += poofed;
            assert_eq!(before.stone_at(p), None);
            if poofed == 0 {
                assert_eq!(after.stone_at(p), Some(mover), "the placed stone stays");
            } else {
                assert!(rules.poofs() && (2..=5).contains(&poofed), "{poofed} poofed under {rules}");
                assert_eq!(after.stone_at(p), None, "a poofed stone goes");
            }
            let white = count_stones(after, Color::White);
            let black = count_stones(after, Color::Black);
            assert_eq!(white, placed[0] - credited[1]);
            assert_eq!(black, placed[1] - credited[0]);
            assert_eq!(usize::from(after.captured(Color::White)), credited[0]);
            assert_eq!(usize::from(after.captured(Color::Black)), credited[1]);
            assert_eq!(after.empty_count(), area - white - black);
            assert_eq!(count_stones(after, mover) + poofed, count_stones(before, mover) + 1);
            assert_eq!(count_stones(after, mover.opponent()), count_stones(before, mover.opponent()) - taken);
            assert_eq!(after.ply(), before.ply() + 1);
            assert_eq!(after.to_move(), rules.colour_of_stone(after.ply()));
            if !rules.two_stone_turns() {
                assert_eq!(after.to_move(), mover.opponent());
            }
            assert_eq!(after.last_move(), Some(p));
            if !rules.has_captures() {
                assert_eq!(taken, 0);
            }
        });
    }

    /// The incrementally updated hash always equals the hash recomputed from scratch.
    #[test]
    fn incremental_hash_equals_recomputed(rules in rules_strategy(), seed in any::<u64>(), length in 0usize..160) {
        random_game(rules, seed, length, |before, _, _, after| {
            assert_eq!(before.hash(), before.compute_hash());
            assert_eq!(after.hash(), after.compute_hash(), "{after:?}");
            assert_ne!(after.hash(), before.hash(), "every move changes the hash");
        });
    }

    /// `legal_moves` lists exactly the points `is_legal` accepts, in row-major
    /// order from A1, and never an off-board point.
    #[test]
    fn legal_moves_agree_with_is_legal(rules in rules_strategy(), seed in any::<u64>(), length in 0usize..160) {
        let size = rules.size();
        let check = |position: &Position| {
            let listed: Vec<Point> = position.legal_moves().collect();
            let accepted: Vec<Point> =
                [Point::SWAP, Point::STAY, Point::PASS].into_iter().chain(all_points(size)).filter(|&p| position.is_legal(p)).collect();
            assert_eq!(listed.iter().any(|p| p.is_choice()), position.choice_pending().is_some());
            assert_eq!(listed, accepted, "{position:?}");
            // Off the board, up to the notation's limit, nothing is legal.
            let beyond = size.saturating_add(3).min(25);
            for x in 0..beyond {
                for y in 0..beyond {
                    if x >= size || y >= size {
                        assert!(!position.is_legal(Point::new(x, y)));
                    }
                }
            }
            assert_eq!(listed.is_empty(), position.is_over());
            if !position.is_over() && position.ply() > 2 && position.choice_pending().is_none() {
                assert_eq!(listed.len(), position.empty_count(), "after move 3 every empty point is legal");
            }
        };
        random_game(rules, seed, length, |before, _, _, after| {
            if before.ply() == 0 {
                check(before);
            }
            check(after);
        });
    }

    /// `random_legal_move` returns a legal move while the game goes on, and
    /// `None` after it.
    #[test]
    fn random_legal_move_is_legal(rules in rules_strategy(), seed in any::<u64>(), length in 0usize..160) {
        let mut rng = StdRng::seed_from_u64(seed ^ 0x5EED);
        let mut last = Position::new(rules);
        random_game(rules, seed, length, |before, _, _, after| {
            for _ in 0..4 {
                match before.random_legal_move(&mut rng) {
                    Some(p) => assert!(before.is_legal(p), "{p} in\n{before:?}"),
                    None => panic!("no move in an unfinished game\n{before:?}"),
                }
            }
            last = after.clone();
        });
        match last.random_legal_move(&mut rng) {
            Some(p) => assert!(last.is_legal(p)),
            None => assert!(last.is_over()),
        }
    }

    /// A game replays from its move list, and undo walks back through the
    /// same positions.
    #[test]
    fn games_replay_and_undo(rules in rules_strategy(), seed in any::<u64>(), length in 0usize..120) {
        let mut positions = vec![Position::new(rules)];
        let moves = random_game(rules, seed, length, |_, _, _, after| positions.push(after.clone()));
        let text = format_move_list(&moves, true);
        let mut game = Game::from_move_list(rules, &text).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(game.moves(), &moves[..]);
        assert_eq!(game.positions(), &positions[..]);
        for i in (0..moves.len()).rev() {
            assert_eq!(game.undo(), Some(moves[i]));
            assert_eq!(game.position(), &positions[i]);
            assert_eq!(game.position().hash(), positions[i].hash());
        }
        assert_eq!(game.undo(), None);
    }

    /// Illegal moves leave the position untouched, whatever the reason.
    #[test]
    fn illegal_moves_change_nothing(rules in rules_strategy(), seed in any::<u64>(), length in 0usize..120, tries in prop::collection::vec((0u8..25, 0u8..25), 8)) {
        random_game(rules, seed, length, |_, _, _, after| {
            let choices = [Point::SWAP, Point::STAY, Point::PASS];
            for p in tries.iter().map(|&(x, y)| Point::new(x, y)).chain(choices) {
                let mut copy = after.clone();
                match copy.play(p) {
                    Ok(_) => assert!(after.is_legal(p)),
                    Err(e) => {
                        assert_eq!(after.check(p), Err(e));
                        assert_eq!(&copy, after);
                        assert_eq!(copy.hash(), after.hash());
                        assert_eq!(copy.board_rows(), after.board_rows());
                        assert_eq!(copy.last_move(), after.last_move());
                    }
                }
            }
        });
    }

    /// Any text either fails to parse as a point or parses to one that prints
    /// back to the same (upper-case) text.
    #[test]
    fn point_text_round_trips(text in "[A-Za-z]{0,2}[0-9]{0,3}|[A-HJ-Ta-hj-t][1-9][0-9]?") {
        if let Ok(p) = text.parse::<Point>() {
            // One letter, then the row; printing drops leading zeros.
            let (letter, row) = text.split_at(1);
            let row: u32 = row.parse().expect("a parsed point has a numeric row");
            assert_eq!(p.to_string(), format!("{}{row}", letter.to_ascii_uppercase()));
            assert_eq!(p.to_string().parse::<Point>(), Ok(p));
            assert_eq!(p.y() + 1, u8::try_from(row).unwrap());
        }
    }

    /// Move lists print and parse back, plain and numbered.
    #[test]
    fn move_lists_round_trip(moves in prop::collection::vec((0u8..19, 0u8..19), 0..60)) {
        let moves: Vec<Point> = moves.into_iter().map(|(x, y)| Point::new(x, y)).collect();
        for numbered in [false, true] {
            let text = format_move_list(&moves, numbered);
            assert_eq!(parse_move_list(&text), Ok(moves.clone()), "{text}");
            assert_eq!(parse_move_list(&text.to_lowercase()), Ok(moves.clone()), "{text}");
        }
        let spaced = moves.iter().map(Point::to_string).collect::<Vec<_>>().join(", ");
        assert_eq!(parse_move_list(&spaced), Ok(moves));
    }
}

proptest! {
    // Each case checks 8 transformed positions per move: fewer cases.
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Transforming then playing the transformed move equals playing then
    /// transforming, for all 8 symmetries.
    #[test]
    fn symmetries_commute_with_play(rules in rules_strategy(), seed in any::<u64>(), length in 0usize..100) {
        let size = rules.size();
        let mut images: Vec<Position> = Symmetry::ALL.iter().map(|&s| Position::new(rules).transformed(s)).collect();
        random_game(rules, seed, length, |before, p, taken, after| {
            for (&s, image) in Symmetry::ALL.iter().zip(&mut images) {
                // `image` is `before.transformed(s)` (checked on the previous
                // move), so this is: transform, then play the transformed move.
                assert_eq!(image.play(s.apply(p, size)), Ok(taken), "{s}");
                let expected = after.transformed(s);
                assert_eq!(image, &expected, "{s}");
                // And literally, from a freshly transformed copy, one symmetry per move.
                if usize::from(s.index()) == before.ply() as usize % 8 {
                    let mut fresh = before.transformed(s);
                    assert_eq!(fresh.play(s.apply(p, size)), Ok(taken), "{s}");
                    assert_eq!(fresh, expected, "{s}");
                    assert_eq!(fresh.hash(), expected.hash(), "{s}");
                }
                assert_eq!(image.hash(), expected.hash(), "{s}");
                assert_eq!(image.hash(), image.compute_hash(), "{s}");
                assert_eq!(image.outcome(), after.outcome());
                let last = if p.is_choice() { before.last_move() } else { Some(p) };
                assert_eq!(image.last_move(), last.map(|q| s.apply(q, size)));
                assert_eq!(s.inverse().apply(s.apply(p, size), size), p);
                assert_eq!(expected.transformed(s.inverse()), *after);
                // Legal moves map onto legal moves.
                let mut mapped: Vec<Point> = after.legal_moves().map(|q| s.apply(q, size)).collect();
                mapped.sort_by_key(|q| (q.y(), q.x()));
                assert_eq!(image.legal_moves().collect::<Vec<_>>(), mapped, "{s}");
            }
        });
    }
}

#[test]
fn every_point_prints_and_parses_back() {
    for p in all_points(19) {
        let text = p.to_string();
        assert!(!text.contains('I'));
        assert_eq!(text.parse::<Point>(), Ok(p));
        assert_eq!(text.to_lowercase().parse::<Point>(), Ok(p));
    }
    let names: Vec<String> = (0..19).map(|x| Point::new(x, 0).to_string()).collect();
    assert_eq!(names.concat(), "A1B1C1D1E1F1G1H1J1K1L1M1N1O1P1Q1R1S1T1");
}

#[test]
fn pente_org_index_round_trips_on_every_size() {
    for size in [7u8, 9, 11, 13, 15, 17, 19] {
        let area = usize::from(size) * usize::from(size);
        let mut seen = vec![false; area];
        for p in all_points(size) {
            let i = p.pente_org_index(size);
            assert!(!seen[i], "{p} collides on {size}");
            seen[i] = true;
            assert_eq!(Point::from_pente_org_index(i, size), Some(p));
            // Row `size` (the top) comes first.
            assert_eq!(i / usize::from(size), usize::from(size - 1 - p.y()));
            assert_eq!(p.dense_index(size) % usize::from(size), usize::from(p.x()));
            assert_eq!(Point::from_dense_index(p.dense_index(size), size), Some(p));
        }
        assert_eq!(Point::from_pente_org_index(area, size), None);
        assert_eq!(Point::from_dense_index(area, size), None);
    }
}

/// Plays `moves` from the empty board.
fn replay(rules: Rules, moves: &str) -> Position {
    let mut position = Position::new(rules);
    for p in parse_move_list(moves).expect("a valid move list") {
        position.play(p).unwrap_or_else(|e| panic!("{e}"));
    }
    position
}

#[test]
fn hash_tells_apart_capture_counts_and_side_to_move() {
    // The same stones (W K10 A2 D2, B A5 D5), Black to move, with no captures
    // or with a pair taken by each side.
    let quiet = replay(Rules::pente(), "K10 A5 A2 D5 D2");
    let traded = replay(Rules::pente(), "K10 B2 B5 C2 C5 A5 A2 D5 D2");
    assert_eq!(quiet.board_rows(), traded.board_rows());
    assert_eq!(quiet.to_move(), traded.to_move());
    assert_eq!((traded.captured(Color::White), traded.captured(Color::Black)), (2, 2));
    assert_ne!(quiet, traded);
    assert_ne!(quiet.hash(), traded.hash());

    // Keryo: the same stones (W K10 A2 E2, B A5 D5) with Black to move and no
    // captures, or White to move after a triple and a pair were taken.
    let keryo = Rules::new(Variant::Keryo, 19).unwrap();
    let quiet = replay(keryo, "K10 A5 A2 D5 E2");
    let traded = replay(keryo, "K10 B2 B5 C2 C5 D2 A2 A5 E2 D5");
    assert_eq!(quiet.board_rows(), traded.board_rows());
    assert_eq!((quiet.to_move(), traded.to_move()), (Color::Black, Color::White));
    assert_eq!((traded.captured(Color::White), traded.captured(Color::Black)), (3, 2));
    assert_ne!(quiet.hash(), traded.hash());

    // A transposition reaches the same position and the same hash.
    let gomoku = Rules::new(Variant::Gomoku, 19).unwrap();
    let a = replay(gomoku, "A1 B1 C1 D1 E2");
    let b = replay(gomoku, "E2 D1 C1 B1 A1");
    assert_eq!(a, b);
    assert_eq!(a.hash(), b.hash());
    assert_ne!(a.hash(), replay(gomoku, "A1 B1 C1 D1").hash());
    assert_ne!(a.hash(), replay(gomoku, "A1 B1 C1 D1 E3").hash());
}

#[test]
fn random_positions_are_unfinished_reproducible_and_as_long_as_asked() {
    let rules = Rules::new(Variant::Keryo, 9).unwrap();
    let make = |seed| Position::random_positions(rules, 40, &mut StdRng::seed_from_u64(seed), |_, i| i);
    let positions = make(3);
    assert_eq!(positions.len(), 40);
    assert!(positions.iter().all(|p| !p.is_over()));
    // Position i has i stones placed: every one of these games outlasts its plies.
    assert!(positions.iter().take(8).enumerate().all(|(i, p)| p.ply() as usize == i));
    assert_eq!(positions, make(3));
    assert_ne!(positions, make(4));
}
