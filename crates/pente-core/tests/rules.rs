//! One test per corner case of `shared/RULES.md`, for every variant and on
//! small boards (13x13, 7x7) as well as 19x19.
//!
//! Positions are reached by playing checked moves from the empty board, so
//! every setup also exercises the opening rule and the capture logic; the
//! few whose long preparation is not the point (a board one stone short of
//! full, eight captured stones and a four) start from a setup's text
//! (`pente_core::Setup`) and play only the moves that matter.

use pente_core::{
    Color, EndReason, Game, IllegalMove, Opening, OpeningViolation, Outcome, Point, Position, ReplayError, Rules,
    Variant,
};

/// The capturing variants whose move 3 may go anywhere outside the
/// tournament square (G-Pente bars more: it has tests of its own).
const CAPTURING: [Variant; 4] = [Variant::Pente, Variant::FreePente, Variant::Keryo, Variant::FreeKeryo];
const SIZES: [u8; 3] = [7, 13, 19];
/// The eight directions, diagonals first so a flank far from the centre comes first.
const DIRECTIONS: [(i32, i32); 8] = [(1, 1), (-1, -1), (1, -1), (-1, 1), (1, 0), (-1, 0), (0, 1), (0, -1)];
/// One direction per line axis.
const AXES: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

fn pt(s: &str) -> Point {
    s.parse().unwrap_or_else(|e| panic!("bad point in test: {e}"))
}

fn pts(s: &str) -> Vec<Point> {
    s.split_whitespace().map(pt).collect()
}

fn rules(variant: Variant, size: u8) -> Rules {
    Rules::new(variant, size).expect("valid rules")
}

/// Whether stones simply alternate from the first, White first, and five
/// wins: every variant but Connect6 (two stones a turn, six wins) and the
/// colour-choice openings (a choice comes after the opening stones), which
/// have tests of their own.
fn alternating(variant: Variant) -> bool {
    let rules = rules(variant, 19);
    !rules.two_stone_turns() && rules.colour_choice().is_none()
}

fn at(x: i32, y: i32) -> Point {
    Point::new(u8::try_from(x).expect("x on the board"), u8::try_from(y).expect("y on the board"))
}

/// `p` moved `k` steps in direction `d`.
fn shift(p: Point, d: (i32, i32), k: i32) -> Point {
    at(i32::from(p.x()) + d.0 * k, i32::from(p.y()) + d.1 * k)
}

/// Plays `moves` with checked `play`; returns the stones each move captured.
fn play_all(position: &mut Position, moves: &[Point]) -> Vec<u16> {
    moves
        .iter()
        .map(|&p| position.play(p).unwrap_or_else(|e| panic!("{} move {p}: {e}\n{position:?}", position.rules())))
        .collect()
}

fn play_str(position: &mut Position, moves: &str) -> Vec<u16> {
    play_all(position, &pts(moves))
}

fn replay(rules: Rules, moves: &str) -> Position {
    let mut position = Position::new(rules);
    play_str(&mut position, moves);
    position
}

/// Plays `white[0], black[0], white[1], ...` and asserts that no move captures
/// and that the game goes on: a quiet setup.
fn arrange(rules: Rules, white: &[Point], black: &[Point]) -> Position {
    assert!(white.len() == black.len() || white.len() == black.len() + 1, "White moves first");
    let mut position = Position::new(rules);
    for (i, &w) in white.iter().enumerate() {
        for p in std::iter::once(w).chain(black.get(i).copied()) {
            let taken = play_all(&mut position, &[p]);
            assert_eq!(taken, [0], "setup move {p} captured under {rules}\n{position:?}");
            assert_eq!(position.outcome(), None, "setup move {p} ended the game under {rules}\n{position:?}");
        }
    }
    position
}

/// `count` points at least 3 from the centre (legal as move 3), at least 2
/// from every point of `avoid` and from each other: stones there neither
/// capture, nor get captured, nor join a line.
fn spare_points(rules: Rules, avoid: &[Point], count: usize) -> Vec<Point> {
    let centre = rules.centre();
    let mut chosen: Vec<Point> = Vec::new();
    let size = rules.size();
    'scan: for y in (0..size).rev() {
        for x in 0..size {
            let p = Point::new(x, y);
            if p.distance(centre) >= 3 && avoid.iter().chain(&chosen).all(|&q| p.distance(q) >= 2) {
                chosen.push(p);
                if chosen.len() == count {
                    break 'scan;
                }
            }
        }
    }
    assert_eq!(chosen.len(), count, "not enough spare points on {rules}");
    chosen
}

fn all_points(size: u8) -> impl Iterator<Item = Point> {
    (0..size).flat_map(move |y| (0..size).map(move |x| Point::new(x, y)))
}

/// Asserts that `after` is `before` in every observable respect.
fn assert_untouched(before: &Position, after: &Position) {
    assert_eq!(after, before);
    assert_eq!(after.hash(), before.hash());
    assert_eq!(after.hash(), after.compute_hash());
    assert_eq!(after.board_rows(), before.board_rows());
    assert_eq!(after.last_move(), before.last_move());
    assert_eq!(after.empty_count(), before.empty_count());
    assert_eq!(after.to_move(), before.to_move());
    assert_eq!(after.ply(), before.ply());
    for color in Color::ALL {
        assert_eq!(after.captured(color), before.captured(color));
    }
    assert_eq!(after.outcome(), before.outcome());
    assert!(after.legal_moves().eq(before.legal_moves()));
}

fn win(color: Color, reason: EndReason) -> Option<Outcome> {
    Some(Outcome { winner: Some(color), reason })
}

// ---------------------------------------------------------------------------
// Board, players, notation

#[test]
fn white_moves_first_then_players_alternate() {
    for variant in Variant::ALL.into_iter().filter(|&v| alternating(v)) {
        for size in SIZES {
            let rules = rules(variant, size);
            let mut position = Position::new(rules);
            assert_eq!(position.to_move(), Color::White);
            assert_eq!((position.ply(), position.empty_count(), position.last_move()), (0, rules.area(), None));
            let centre = rules.centre();
            let far = Point::new(0, 0);
            position.play(centre).unwrap();
            assert_eq!(position.stone_at(centre), Some(Color::White));
            assert_eq!(position.to_move(), Color::Black);
            position.play(far).unwrap();
            assert_eq!(position.stone_at(far), Some(Color::Black));
            assert_eq!(position.to_move(), Color::White);
            assert_eq!((position.ply(), position.empty_count()), (2, rules.area() - 2));
            assert_eq!(position.last_move(), Some(far));
        }
    }
}

#[test]
fn centre_is_k10_on_19_g7_on_13_d4_on_7() {
    assert_eq!(Rules::pente().centre(), pt("K10"));
    assert_eq!(rules(Variant::Pente, 13).centre(), pt("G7"));
    assert_eq!(rules(Variant::Keryo, 7).centre(), pt("D4"));
    assert_eq!(rules(Variant::FreePente, 9).centre(), pt("E5"));
}

#[test]
fn coordinates_skip_i_and_parse_case_insensitively() {
    assert_eq!(pt("H1").x() + 1, pt("J1").x());
    assert_eq!(pt("T19"), Point::new(18, 18));
    assert!("I5".parse::<Point>().is_err());
    assert_eq!(pt("k10"), pt("K10"));
    assert_eq!(pt("t1").to_string(), "T1");
    assert_eq!(Point::new(8, 0).to_string(), "J1");
}

#[test]
fn pente_org_index() {
    assert_eq!(pt("K10").pente_org_index(19), 180);
    assert_eq!(pt("A19").pente_org_index(19), 0);
    assert_eq!(pt("T1").pente_org_index(19), 360);
    assert_eq!(pt("T19").pente_org_index(19), 18);
    assert_eq!(pt("A1").pente_org_index(19), 342);
    assert_eq!(Point::from_pente_org_index(180, 19), Some(pt("K10")));
    assert_eq!(Point::from_pente_org_index(0, 19), Some(pt("A19")));
    assert_eq!(Point::from_pente_org_index(360, 19), Some(pt("T1")));
    assert_eq!(Point::from_pente_org_index(361, 19), None);
    // Smaller boards count their own rows from the top.
    assert_eq!(pt("G7").pente_org_index(13), 84);
    assert_eq!(pt("A13").pente_org_index(13), 0);
    assert_eq!(pt("N1").pente_org_index(13), 168);
    assert_eq!(Point::from_pente_org_index(169, 13), None);
}

// ---------------------------------------------------------------------------
// Placing: centre first, tournament rule

#[test]
fn first_move_must_be_on_the_centre_except_in_gomoku() {
    for size in SIZES {
        for variant in CAPTURING {
            let rules = rules(variant, size);
            let position = Position::new(rules);
            let centre = rules.centre();
            assert_eq!(position.legal_moves().collect::<Vec<_>>(), [centre], "{rules}");
            for p in all_points(size).filter(|&p| p != centre) {
                let expected =
                    IllegalMove::Opening { point: p, violation: OpeningViolation::FirstNotCentre { centre } };
                assert_eq!(position.clone().play(p), Err(expected), "{rules} {p}");
                assert!(!position.is_legal(p));
            }
            assert_eq!(position.clone().play(centre), Ok(0));
        }
        for variant in [Variant::Gomoku, Variant::GomokuExact] {
            let rules = rules(variant, size);
            let position = Position::new(rules);
            assert_eq!(position.legal_moves().count(), rules.area(), "{rules}");
            assert!(all_points(size).all(|p| position.is_legal(p)));
            let mut corner = position.clone();
            assert_eq!(corner.play(pt("A1")), Ok(0));
        }
    }
}

#[test]
fn tournament_rule_after_k10_l9_k8_is_illegal_and_k7_legal() {
    for variant in [Variant::Pente, Variant::Keryo] {
        let position = replay(rules(variant, 19), "K10 L9");
        let too_close = IllegalMove::Opening {
            point: pt("K8"),
            violation: OpeningViolation::TooClose { centre: pt("K10"), min_distance: 3 },
        };
        assert_eq!(position.check(pt("K8")), Err(too_close));
        assert_eq!(position.clone().play(pt("K8")), Err(too_close));
        assert!(position.is_legal(pt("K7")));
        assert_eq!(position.clone().play(pt("K7")), Ok(0));
    }
    for variant in [Variant::FreePente, Variant::Gomoku, Variant::GomokuExact] {
        let position = replay(rules(variant, 19), "K10 L9");
        assert!(position.is_legal(pt("K8")), "{variant} has no move-3 restriction");
        assert!(position.is_legal(pt("K11")), "{variant} has no move-3 restriction");
    }
}

#[test]
fn tournament_rule_forbids_exactly_the_central_5x5_square() {
    let position = replay(Rules::pente(), "K10 L9");
    // The square is H..M x 8..12; its edges are forbidden, the ring outside allowed.
    for forbidden in pts("H8 H12 M8 M12 H10 M10 K8 K12 J9 L11") {
        assert!(!position.is_legal(forbidden), "{forbidden}");
    }
    for allowed in pts("G7 G13 N7 N13 G10 N10 K7 K13 H7 M13 G8 N12 A1 T19") {
        assert!(position.is_legal(allowed), "{allowed}");
    }
    for p in all_points(19) {
        let outside = p.distance(pt("K10")) >= 3;
        assert_eq!(position.is_legal(p), outside, "{p}");
    }
    // L9 (Black's stone) is inside the square, so exactly 361 - 25 moves remain.
    assert_eq!(position.legal_moves().count(), 361 - 25);

    // Black's first stone outside the square takes one more point away.
    let position = replay(Rules::pente(), "K10 A1");
    assert_eq!(position.legal_moves().count(), 361 - 25 - 1);
    assert!(!position.is_legal(pt("A1")));
}

#[test]
fn tournament_rule_on_small_boards() {
    for variant in [Variant::Pente, Variant::Keryo] {
        // 13x13: same Chebyshev >= 3 rule around G7.
        let position = replay(rules(variant, 13), "G7 H6");
        assert!(!position.is_legal(pt("G5")));
        assert!(position.is_legal(pt("G4")));
        assert!(!position.is_legal(pt("E9")));
        assert!(position.is_legal(pt("D10")));
        for p in all_points(13) {
            assert_eq!(position.is_legal(p), p.distance(pt("G7")) >= 3, "13x13 {p}");
        }
        assert_eq!(position.legal_moves().count(), 169 - 25);

        // 7x7: only the outer ring remains.
        let position = replay(rules(variant, 7), "D4 E3");
        let ring: Vec<Point> = all_points(7).filter(|p| p.x() == 0 || p.y() == 0 || p.x() == 6 || p.y() == 6).collect();
        assert_eq!(ring.len(), 24);
        assert_eq!(position.legal_moves().collect::<Vec<_>>(), ring);
        let position = replay(rules(variant, 7), "D4 A1");
        assert_eq!(position.legal_moves().count(), 23);
    }
}

#[test]
fn black_and_later_moves_are_unrestricted() {
    for variant in CAPTURING {
        for size in SIZES {
            let rules = rules(variant, size);
            let centre = rules.centre();
            let mut position = Position::new(rules);
            position.play(centre).unwrap();
            // Move 2 (Black): anywhere but the occupied centre, even next to it.
            assert_eq!(position.legal_moves().count(), rules.area() - 1, "{rules}");
            position.play(shift(centre, (1, -1), 1)).unwrap();
            // Move 3 far away, then move 4 and move 5 next to the centre.
            position.play(shift(centre, (0, -1), 3)).unwrap();
            let near = shift(centre, (0, -1), 1);
            assert!(position.is_legal(near), "{rules}: move 4 is free");
            position.play(near).unwrap();
            let near = shift(centre, (0, 1), 1);
            assert!(position.is_legal(near), "{rules}: move 5 is free");
            position.play(near).unwrap();
            assert_eq!(position.legal_moves().count(), rules.area() - 5);
        }
    }
}

#[test]
fn legal_moves_at_ply_two_excludes_the_square_only_under_the_tournament_rule() {
    for size in SIZES {
        let centre = Point::centre(size);
        let black = Point::new(0, size - 1);
        let moves = [centre, black];
        for variant in Variant::ALL {
            let rules = rules(variant, size);
            let mut position = Position::new(rules);
            play_all(&mut position, &moves);
            let legal: Vec<Point> = position.legal_moves().collect();
            let expected: Vec<Point> = all_points(size)
                .filter(|&p| !moves.contains(&p))
                .filter(|&p| !matches!(rules.opening(), Opening::Tournament { .. }) || p.distance(centre) >= 3)
                .filter(|&p| variant != Variant::GPente || !g_pente_axis(p, centre))
                .collect();
            assert_eq!(legal, expected, "{rules}");
        }
    }
}

// ---------------------------------------------------------------------------
// Captures

/// The point of the first spare corner of the board, away from `avoid`.
fn spare_corner(size: u8, avoid: &[Point]) -> Point {
    let n = size - 1;
    [Point::new(0, 0), Point::new(n, 0), Point::new(0, n), Point::new(n, n)]
        .into_iter()
        .find(|&c| avoid.iter().all(|&q| c.distance(q) >= 2))
        .expect("a free corner")
}

#[test]
fn white_captures_a_pair_in_each_of_the_8_directions() {
    for variant in CAPTURING {
        for size in SIZES {
            let rules = rules(variant, size);
            let c = rules.centre();
            for d in DIRECTIONS {
                // W c, B c+d, W corner, B c+2d, W c+3d: X O O X from the new stone.
                let (b1, b2, flank) = (shift(c, d, 1), shift(c, d, 2), shift(c, d, 3));
                let corner = spare_corner(size, &[c, b1, b2, flank]);
                let mut position = arrange(rules, &[c, corner], &[b1, b2]);
                assert_eq!(position.play(flank), Ok(2), "{rules} direction {d:?}");
                assert_eq!(position.stone_at(b1), None);
                assert_eq!(position.stone_at(b2), None);
                assert_eq!(position.stone_at(c), Some(Color::White));
                assert_eq!(position.stone_at(flank), Some(Color::White));
                assert_eq!((position.captured(Color::White), position.captured(Color::Black)), (2, 0));
                assert_eq!(position.empty_count(), rules.area() - 3);
                assert_eq!(position.outcome(), None);
                assert_eq!(position.hash(), position.compute_hash());
            }
        }
    }
}

#[test]
fn black_captures_a_pair_in_each_of_the_8_directions() {
    for variant in CAPTURING {
        for size in [13, 19] {
            let rules = rules(variant, size);
            let c = rules.centre();
            for d in DIRECTIONS {
                // c . B W W B: White's pair at distance 3 and 4 from the centre.
                let (flank1, w1, w2, flank2) = (shift(c, d, 2), shift(c, d, 3), shift(c, d, 4), shift(c, d, 5));
                let corner = spare_corner(size, &[c, flank1, w1, w2, flank2]);
                let mut position = arrange(rules, &[c, w1, w2], &[flank1, corner]);
                assert_eq!(position.play(flank2), Ok(2), "{rules} direction {d:?}");
                assert_eq!((position.stone_at(w1), position.stone_at(w2)), (None, None));
                assert_eq!(position.stone_at(flank1), Some(Color::Black));
                assert_eq!((position.captured(Color::White), position.captured(Color::Black)), (0, 2));
                assert_eq!(position.empty_count(), rules.area() - 4);
            }
        }
    }
}

#[test]
fn gomoku_never_captures() {
    for variant in [Variant::Gomoku, Variant::GomokuExact] {
        for size in SIZES {
            let rules = rules(variant, size);
            let c = rules.centre();
            for d in DIRECTIONS {
                let (b1, b2, flank) = (shift(c, d, 1), shift(c, d, 2), shift(c, d, 3));
                let corner = spare_corner(size, &[c, b1, b2, flank]);
                let mut position = arrange(rules, &[c, corner], &[b1, b2]);
                assert_eq!(position.play(flank), Ok(0), "{rules}");
                assert_eq!(position.stone_at(flank), Some(Color::White));
                assert_eq!((position.stone_at(b1), position.stone_at(b2)), (Some(Color::Black), Some(Color::Black)));
                assert_eq!(position.captured(Color::White), 0);
            }
        }
        // Five pair captures that would win Pente capture nothing here.
        let position = replay(rules(variant, 19), TEN_BY_WHITE);
        assert_eq!((position.captured(Color::White), position.captured(Color::Black)), (0, 0));
        assert_eq!(position.outcome(), None);
        assert_eq!(position.empty_count(), 361 - 21);
    }
}

#[test]
fn captures_at_the_edge_and_no_wrap_around() {
    for variant in CAPTURING {
        let rules = rules(variant, 19);
        // Flanking stone on the edge column A and on the top row.
        let mut position = replay(rules, "K10 B5 A5 C5");
        assert_eq!(position.play(pt("D5")), Ok(2));
        let mut position = replay(rules, "K10 E18 E19 E17");
        assert_eq!(position.play(pt("E16")), Ok(2));
        // S10 T10 against the right edge: the board does not wrap to A11.
        let mut position = replay(rules, "K10 S10 A11 T10");
        assert_eq!(position.play(pt("R10")), Ok(0));
        assert_eq!(
            (position.stone_at(pt("S10")), position.stone_at(pt("T10"))),
            (Some(Color::Black), Some(Color::Black))
        );
        // Nor does it wrap from the top row to the bottom one.
        let mut position = replay(rules, "K10 C19 C1 C18");
        assert_eq!(position.play(pt("C17")), Ok(0));
        // The same on 7x7: F4 G4 against the edge, a White stone on A5.
        let mut position = replay(self::rules(variant, 7), "D4 F4 A5 G4");
        assert_eq!(position.play(pt("E4")), Ok(0));
        assert_eq!(position.stone_at(pt("G4")), Some(Color::Black));
    }
}

#[test]
fn a_pair_needs_the_movers_stone_right_beyond_it() {
    for variant in CAPTURING {
        let rules = rules(variant, 19);
        // X O O . X: a gap is no flank.
        let mut position = replay(rules, "K10 D15 C15 E15");
        assert_eq!(position.play(pt("G15")), Ok(0), "{rules}");
        assert_eq!(
            (position.stone_at(pt("D15")), position.stone_at(pt("E15"))),
            (Some(Color::Black), Some(Color::Black))
        );
        // Filling the gap then captures.
        play_str(&mut position, "T1");
        assert_eq!(position.play(pt("F15")), Ok(2), "{rules}");
    }
}

#[test]
fn one_or_three_flanked_stones_are_not_captured_in_pente() {
    for variant in [Variant::Pente, Variant::FreePente] {
        for size in [13, 19] {
            let rules = rules(variant, size);
            let c = rules.centre();
            for d in DIRECTIONS {
                // X O X from the placed stone.
                let (o, x) = (shift(c, d, 1), shift(c, d, 2));
                let spare = spare_points(rules, &[c, o, x], 2);
                let mut position = arrange(rules, &[c, spare[0]], &[o, spare[1]]);
                assert_eq!(position.to_move(), Color::White);
                assert_eq!(position.play(x), Ok(0), "{rules} X O X {d:?}");
                assert_eq!((position.stone_at(o), position.stone_at(x)), (Some(Color::Black), Some(Color::White)));
                // X O O O X from the placed stone.
                let (o1, o2, o3, x) = (shift(c, d, 1), shift(c, d, 2), shift(c, d, 3), shift(c, d, 4));
                let spare = spare_points(rules, &[c, o1, o2, o3, x], 2);
                let mut position = arrange(rules, &[c, spare[0], spare[1]], &[o1, o2, o3]);
                assert_eq!(position.to_move(), Color::White);
                assert_eq!(position.play(x), Ok(0), "{rules} X O O O X {d:?}");
                assert!([o1, o2, o3].iter().all(|&o| position.stone_at(o) == Some(Color::Black)));
                assert_eq!(position.captured(Color::White), 0);
            }
        }
    }
    // Triples that Keryo would capture, five times over, capture nothing in Pente.
    for variant in [Variant::Pente, Variant::FreePente] {
        let position = replay(rules(variant, 19), FIFTEEN_BY_WHITE_IN_TRIPLES);
        assert_eq!((position.captured(Color::White), position.outcome()), (0, None));
    }
}

#[test]
fn keryo_captures_exactly_two_or_three_not_one_or_four() {
    for size in [13, 19] {
        let rules = rules(Variant::Keryo, size);
        let c = rules.centre();
        for d in DIRECTIONS {
            for run in 1..=4 {
                // X O..O X with `run` opponent stones, the new stone at the far end.
                let stones: Vec<Point> = (1..=run).map(|k| shift(c, d, k)).collect();
                let flank = shift(c, d, run + 1);
                let mut avoid = stones.clone();
                avoid.extend([c, flank]);
                // White's flank comes at move 5 or later, free of the tournament rule.
                let spare = spare_points(rules, &avoid, stones.len() + 1);
                let mut white = vec![c];
                white.extend(&spare[..stones.len()]);
                let mut black = stones.clone();
                black.push(spare[stones.len()]);
                let mut position = arrange(rules, &white, &black);
                let expected = if run == 2 || run == 3 { u16::try_from(run).unwrap() } else { 0 };
                assert_eq!(position.play(flank), Ok(expected), "keryo/{size} run {run} direction {d:?}");
                assert_eq!(position.captured(Color::White), expected);
                for &s in &stones {
                    let kept = if expected == 0 { Some(Color::Black) } else { None };
                    assert_eq!(position.stone_at(s), kept);
                }
                assert_eq!(position.hash(), position.compute_hash());
            }
        }
    }
}

/// White takes runs of Black stones in several directions from `target` with
/// one move; `runs` gives each direction and its length. Returns the position
/// after the capturing move and the stones it took.
fn capture_star(rules: Rules, target: Point, runs: &[((i32, i32), i32)]) -> (Position, u16) {
    let centre = rules.centre();
    let flanks: Vec<Point> = runs.iter().map(|&(d, n)| shift(target, d, n + 1)).collect();
    // Black places the stones nearest the target first, so White's flanks are
    // all down before any run is complete.
    let max_run = runs.iter().map(|&(_, n)| n).max().unwrap_or(0);
    let black: Vec<Point> = (1..=max_run)
        .flat_map(|k| runs.iter().filter(move |&&(_, n)| k <= n).map(move |&(d, _)| shift(target, d, k)))
        .collect();
    let mut avoid = vec![target, centre];
    avoid.extend(flanks.iter().chain(&black));
    let mut white = vec![centre];
    white.extend(&flanks);
    // White moves first and plays the capture: as many moves as Black before it.
    white.extend(spare_points(rules, &avoid, black.len() - flanks.len() - 1));
    let mut position = arrange(rules, &white, &black);
    let taken = position.play(target).unwrap_or_else(|e| panic!("{e}"));
    let expected: usize = runs.iter().map(|&(_, n)| usize::try_from(n).unwrap()).sum();
    assert_eq!(usize::from(taken), expected, "{rules} {runs:?}");
    assert!(black.iter().all(|&b| position.stone_at(b).is_none()), "{rules} {runs:?}");
    assert!(flanks.iter().all(|&f| position.stone_at(f) == Some(Color::White)));
    assert_eq!(position.captured(Color::White), taken);
    assert_eq!(position.empty_count(), rules.area() - white.len() - 1);
    assert_eq!(position.hash(), position.compute_hash());
    (position, taken)
}

#[test]
fn one_move_captures_several_pairs_at_once() {
    for variant in CAPTURING {
        let rules = rules(variant, 19);
        // Every two of the 8 directions: 4 stones, the game goes on.
        for (i, &d1) in DIRECTIONS.iter().enumerate() {
            for &d2 in &DIRECTIONS[i + 1..] {
                let (position, taken) = capture_star(rules, pt("Q16"), &[(d1, 2), (d2, 2)]);
                assert_eq!((taken, position.outcome()), (4, None));
            }
        }
        // All 8 pairs at once: 16 stones, which wins by captures.
        let runs: Vec<_> = DIRECTIONS.iter().map(|&d| (d, 2)).collect();
        let (position, taken) = capture_star(rules, pt("Q16"), &runs);
        assert_eq!(taken, 16);
        assert_eq!(position.outcome(), win(Color::White, EndReason::Captures), "{rules}");
    }
    // Keryo: a pair and a triple with one stone (5), and three triples (9).
    let keryo = rules(Variant::Keryo, 19);
    let (position, taken) = capture_star(keryo, pt("P15"), &[((-1, 0), 3), ((0, 1), 2)]);
    assert_eq!((taken, position.outcome()), (5, None));
    let (position, taken) = capture_star(keryo, pt("P15"), &[((1, 0), 3), ((0, 1), 3), ((1, 1), 3)]);
    assert_eq!((taken, position.outcome()), (9, None));
}

#[test]
fn moving_into_a_flanked_position_is_safe() {
    for variant in CAPTURING {
        for size in [13, 19] {
            let rules = rules(variant, size);
            let c = rules.centre();
            for d in DIRECTIONS {
                // W c ... W c+3d, Black fills c+d then c+2d (and the other order).
                for order in [[1, 2], [2, 1]] {
                    let (w2, b1, b2) = (shift(c, d, 3), shift(c, d, order[0]), shift(c, d, order[1]));
                    let spare = spare_points(rules, &[c, w2, b1, b2], 2);
                    let mut position = arrange(rules, &[c, w2, spare[0]], &[spare[1], b1]);
                    assert_eq!(position.play(b2), Ok(0), "{rules} {d:?}");
                    assert_eq!(
                        (position.stone_at(b1), position.stone_at(b2)),
                        (Some(Color::Black), Some(Color::Black))
                    );
                    // White playing elsewhere does not take them later either.
                    let elsewhere = spare_points(rules, &[c, w2, b1, b2, spare[0], spare[1]], 1)[0];
                    assert_eq!(position.play(elsewhere), Ok(0));
                    assert_eq!(
                        (position.stone_at(b1), position.stone_at(b2)),
                        (Some(Color::Black), Some(Color::Black))
                    );
                    assert_eq!(position.captured(Color::White), 0);
                }
            }
        }
    }
    // Keryo: filling W _ _ _ W with three Black stones is safe too.
    let rules = rules(Variant::Keryo, 19);
    let mut position = arrange(rules, &pts("K10 D15 H15 T1"), &pts("T19 E15 F15"));
    assert_eq!(position.play(pt("G15")), Ok(0));
    assert_eq!(position.board_rows()[4], format!("...WBBBW{}", ".".repeat(11)));
    // White entering a Black flank is equally safe.
    let rules = Rules::pente();
    let mut position = arrange(rules, &pts("K10 T1 E15"), &pts("D15 G15"));
    assert_eq!(position.play(pt("T19")), Ok(0));
    assert_eq!(position.play(pt("F15")), Ok(0));
    assert_eq!(position.board_rows()[4], format!("...BWWB{}", ".".repeat(12)));
}

#[test]
fn captures_are_counted_in_stones_for_the_mover_only() {
    // A pair is 2 stones.
    let mut position = replay(Rules::pente(), "K10 L10 A1 M10");
    assert_eq!(position.play(pt("N10")), Ok(2));
    assert_eq!((position.captured(Color::White), position.captured(Color::Black)), (2, 0));
    // A second pair makes 4.
    play_str(&mut position, "L9 A3 L8");
    assert_eq!(position.play(pt("L7")), Ok(0));
    play_str(&mut position, "T19");
    assert_eq!(position.play(pt("L10")), Ok(2));
    assert_eq!((position.captured(Color::White), position.captured(Color::Black)), (4, 0));
    // A Keryo triple is 3.
    let mut position = replay(rules(Variant::Keryo, 19), "K10 L10 A1 M10 A3 N10");
    assert_eq!(position.play(pt("O10")), Ok(3));
    assert_eq!((position.captured(Color::White), position.captured(Color::Black)), (3, 0));
    // Black's count is its own.
    let position = replay(Rules::pente(), BLACK_TEN);
    assert_eq!((position.captured(Color::White), position.captured(Color::Black)), (0, 10));
}

#[test]
fn captured_points_become_empty_and_playable_again() {
    for variant in CAPTURING {
        for size in [7, 13, 19] {
            let rules = rules(variant, size);
            let c = rules.centre();
            let d = (1, 0);
            let (b1, b2, flank) = (shift(c, d, 1), shift(c, d, 2), shift(c, d, 3));
            let corner = spare_corner(size, &[c, b1, b2, flank]);
            let mut position = arrange(rules, &[c, corner], &[b1, b2]);
            assert_eq!(position.play(flank), Ok(2));
            let legal: Vec<Point> = position.legal_moves().collect();
            assert!(legal.contains(&b1) && legal.contains(&b2), "{rules}");
            assert_eq!(legal.len(), rules.area() - 3);
            assert!(position.is_legal(b1) && position.is_legal(b2));
            // Both players may use the freed points again.
            assert_eq!(position.play(b1), Ok(0));
            assert_eq!(position.play(b2), Ok(0));
            assert_eq!((position.stone_at(b1), position.stone_at(b2)), (Some(Color::Black), Some(Color::White)));
            assert_eq!(position.empty_count(), rules.area() - 5);
            assert_eq!(position.hash(), position.compute_hash());
        }
    }
}

// ---------------------------------------------------------------------------
// End of the game: fives and overlines

/// `mover` builds `line` (all but index `last`) from the start, the other
/// player answering on spare points; returns the position before the last stone.
fn five_setup(rules: Rules, line: &[Point], last: usize, mover: Color) -> Position {
    let centre = rules.centre();
    let mut others: Vec<Point> = line.iter().enumerate().filter(|&(i, _)| i != last).map(|(_, &p)| p).collect();
    // The first of them may be move 3: farthest from the centre first.
    others.sort_by_key(|p| std::cmp::Reverse(p.distance(centre)));
    let mut avoid = line.to_vec();
    avoid.push(centre);
    match mover {
        Color::White => {
            // Move 3 must be 3 from the centre; if no line stone is, White spends it elsewhere.
            let detour = others.first().is_some_and(|p| p.distance(centre) < 3);
            let mut spare = spare_points(rules, &avoid, others.len() + 1 + 2 * usize::from(detour));
            let mut white = vec![centre];
            if detour {
                white.push(spare.pop().expect("spare"));
            }
            white.extend(others);
            arrange(rules, &white, &spare)
        }
        Color::Black => {
            let mut white = vec![centre];
            white.extend(spare_points(rules, &avoid, others.len()));
            arrange(rules, &white, &others)
        }
    }
}

/// A line of `len` points from `start` along `axis`.
fn line(start: Point, axis: (i32, i32), len: i32) -> Vec<Point> {
    (0..len).map(|k| shift(start, axis, k)).collect()
}

/// Starts of five-point lines, one per axis, that avoid the centre.
fn line_starts(size: u8) -> [Point; 4] {
    [Point::new(0, 0), Point::new(0, 0), Point::new(1, 0), Point::new(1, size - 1)]
}

#[test]
fn five_in_a_row_wins_in_every_direction_for_both_players() {
    for variant in Variant::ALL.into_iter().filter(|&v| alternating(v)) {
        for size in SIZES {
            let rules = rules(variant, size);
            for (axis, start) in AXES.into_iter().zip(line_starts(size)) {
                let five = line(start, axis, 5);
                assert!(!five.contains(&rules.centre()));
                for last in 0..5 {
                    for mover in Color::ALL {
                        let mut position = five_setup(rules, &five, last, mover);
                        assert_eq!(position.to_move(), mover);
                        assert_eq!(position.outcome(), None, "four does not win");
                        assert_eq!(position.play(five[last]), Ok(0));
                        assert_eq!(position.outcome(), win(mover, EndReason::Five), "{rules} {axis:?} last {last}");
                        assert!(position.is_over());
                    }
                }
            }
        }
    }
}

#[test]
fn broken_lines_do_not_win() {
    for variant in Variant::ALL.into_iter().filter(|&v| alternating(v)) {
        let rules = rules(variant, 19);
        // W W W W . W : four and one.
        let mut position = five_setup(rules, &pts("A1 B1 C1 D1 E1"), 4, Color::White);
        assert_eq!(position.play(pt("F1")), Ok(0));
        assert_eq!(position.outcome(), None, "{rules}");
        // A stone completing two fours at once is not five either.
        let mut position = arrange(rules, &pts("K10 A5 B5 C5 D2 D3 D4"), &pts("T19 T17 T15 T13 T11 T9"));
        assert_eq!(position.play(pt("D5")), Ok(0));
        assert_eq!(position.outcome(), None, "{rules}: A5..D5 and D2..D5 are fours");
    }
}

/// White builds `stones` (a row with a gap) then plays `last`.
fn overline(rules: Rules, stones: &str, last: &str) -> Position {
    let white = pts(stones);
    let mut position = five_setup(rules, &[white.clone(), vec![pt(last)]].concat(), white.len(), Color::White);
    assert_eq!(position.outcome(), None);
    assert_eq!(position.play(pt(last)), Ok(0));
    position
}

#[test]
fn overlines_win_except_in_gomoku_exact() {
    for variant in Variant::ALL.into_iter().filter(|&v| alternating(v)) {
        for size in SIZES {
            let rules = rules(variant, size);
            // 6 in a row: A1 B1 C1 . E1 F1, then D1.
            let six = overline(rules, "A1 B1 C1 E1 F1", "D1");
            // 7 in a row: A1 B1 C1 D1 . F1 G1, then E1 (the whole 7x7 edge).
            let seven = overline(rules, "A1 B1 C1 D1 F1 G1", "E1");
            let expected = if variant == Variant::GomokuExact { None } else { win(Color::White, EndReason::Five) };
            assert_eq!(six.outcome(), expected, "{rules} six");
            assert_eq!(seven.outcome(), expected, "{rules} seven");
        }
    }
    // Vertical and diagonal overlines too.
    for variant in Variant::ALL.into_iter().filter(|&v| alternating(v)) {
        let rules = rules(variant, 19);
        let expected = if variant == Variant::GomokuExact { None } else { win(Color::White, EndReason::Five) };
        assert_eq!(overline(rules, "A1 A2 A3 A4 A6", "A5").outcome(), expected, "{rules}");
        assert_eq!(overline(rules, "B1 C2 D3 F5 G6 H7", "E4").outcome(), expected, "{rules}");
        assert_eq!(overline(rules, "H1 G2 F3 D5 C6", "E4").outcome(), expected, "{rules}");
    }
}

#[test]
fn gomoku_exact_wins_with_exactly_five_next_to_an_overline_elsewhere() {
    for variant in [Variant::Gomoku, Variant::GomokuExact] {
        let rules = rules(variant, 19);
        // K10 makes G10..M10 (six, horizontal) and K8..K12 (exactly five, vertical).
        let mut position =
            arrange(rules, &pts("G10 H10 J10 L10 M10 K8 K9 K11 K12"), &pts("A1 C1 E1 G1 J1 L1 N1 P1 R1"));
        assert_eq!(position.play(pt("K10")), Ok(0));
        assert_eq!(position.outcome(), win(Color::White, EndReason::Five), "{rules}");
    }
    let rules = rules(Variant::GomokuExact, 19);
    // Without the vertical five the overline alone is no win.
    let mut position = arrange(rules, &pts("G10 H10 J10 L10 M10"), &pts("A1 C1 E1 G1 J1"));
    assert_eq!(position.play(pt("K10")), Ok(0));
    assert_eq!(position.outcome(), None);
    // A six A10..F10, then exactly five H10..M10 on the same row past the gap G10.
    let mut position =
        arrange(rules, &pts("A10 B10 C10 D10 F10 E10 H10 J10 K10 L10"), &pts("A1 C1 E1 G1 J1 L1 N1 P1 R1 T1"));
    assert_eq!(position.board_rows()[9], format!("WWWWWW.WWWW{}", ".".repeat(8)));
    assert_eq!(position.play(pt("M10")), Ok(0));
    assert_eq!(position.outcome(), win(Color::White, EndReason::Five));
}

// ---------------------------------------------------------------------------
// End of the game: captures

/// Pente: White captures pairs on rows 2, 4, 6 and 8 (8 stones), then on row 10.
const EIGHT_BY_WHITE: &str = "K10 B2 A2 C2 D2 B4 A4 C4 D4 B6 A6 C6 D6 B8 A8 C8 D8";
const TEN_BY_WHITE: &str = "K10 B2 A2 C2 D2 B4 A4 C4 D4 B6 A6 C6 D6 B8 A8 C8 D8 B10 A10 C10 D10";
/// Keryo: White captures triples on rows 2..10, with spare moves on column T.
const FIFTEEN_BY_WHITE_IN_TRIPLES: &str = "K10 B2 A2 C2 T19 D2 E2 B4 A4 C4 T17 D4 E4 B6 A6 C6 T15 D6 E6 \
     B8 A8 C8 T13 D8 E8 B10 A10 C10 T11 D10 E10";
/// Pente: Black captures White pairs on rows 2..10.
const BLACK_TEN: &str = "K10 A2 B2 A4 C2 D2 B4 A6 C4 D4 B6 A8 C6 D6 B8 A10 C8 D8 B10 T19 C10 D10";

#[test]
fn ten_captured_stones_win_pente() {
    for variant in [Variant::Pente, Variant::FreePente] {
        let rules = rules(variant, 19);
        let mut position = replay(rules, EIGHT_BY_WHITE);
        assert_eq!((position.captured(Color::White), position.outcome()), (8, None), "8 stones do not win");
        play_str(&mut position, "B10 A10 C10");
        assert_eq!(position.play(pt("D10")), Ok(2));
        assert_eq!(position.captured(Color::White), 10);
        assert_eq!(position.outcome(), win(Color::White, EndReason::Captures), "{rules}");

        let position = replay(rules, BLACK_TEN);
        assert_eq!(position.captured(Color::Black), 10);
        assert_eq!(position.outcome(), win(Color::Black, EndReason::Captures), "{rules}");
    }
}

#[test]
fn keryo_needs_fifteen_captured_stones() {
    let rules = rules(Variant::Keryo, 19);
    // Ten stones in pairs do not win Keryo.
    let position = replay(rules, TEN_BY_WHITE);
    assert_eq!((position.captured(Color::White), position.outcome()), (10, None));
    let position = replay(rules, BLACK_TEN);
    assert_eq!((position.captured(Color::Black), position.outcome()), (10, None));
    // Fifteen in triples do.
    let moves = pts(FIFTEEN_BY_WHITE_IN_TRIPLES);
    let (last, before) = moves.split_last().unwrap();
    let mut position = Position::new(rules);
    play_all(&mut position, before);
    assert_eq!((position.captured(Color::White), position.outcome()), (12, None));
    assert_eq!(position.play(*last), Ok(3));
    assert_eq!(position.captured(Color::White), 15);
    assert_eq!(position.outcome(), win(Color::White, EndReason::Captures));
    // Fourteen (seven pairs) do not, sixteen (eight pairs) do: 10 + 4 then + 2.
    let mut position = replay(rules, TEN_BY_WHITE);
    play_str(&mut position, "B12 A12 C12 D12 B14 A14 C14 D14");
    assert_eq!((position.captured(Color::White), position.outcome()), (14, None));
    play_str(&mut position, "B16 A16 C16 D16");
    assert_eq!(position.captured(Color::White), 16);
    assert_eq!(position.outcome(), win(Color::White, EndReason::Captures));
}

/// White has captured 8 stones (pairs on rows 2, 4, 6 and 8, as
/// `EIGHT_BY_WHITE`) and built E15..H15; Black's J14 J13 stand on White's
/// J12. The board, side to move and counts of a setup's text, after the rules.
const EIGHT_AND_A_FOUR: &str = "19/19/19/19/4WWWW11/8B10/8B10/8W10/19/9W9/19/W2W15/18B/W2W15/18B/W2W15/18B/W2W15/\
     18B w ply=28 captures=8-0 recent=T7,H15,T5,G15";
/// Keryo: White has captured 12 stones (triples on rows 2, 4, 6 and 8, as
/// `FIFTEEN_BY_WHITE_IN_TRIPLES`) and built E15..H15; Black's J14 J13 J12
/// stand on White's J11.
const TWELVE_AND_A_FOUR: &str = "keryo 18W/19/18W/19/4WWWW10W/8B10/8B9W/8B10/8W10/9W9/19/W3W14/19/W3W14/18B/W3W14/\
     18B/W3W14/18B w ply=36 captures=12-0 recent=T5,H15,T3,G15";

#[test]
fn five_and_capture_threshold_in_one_move_is_one_win_by_five() {
    for variant in [Variant::Pente, Variant::FreePente] {
        let rules = rules(variant, 19);
        let mut position: Position = format!("{rules} {EIGHT_AND_A_FOUR}").parse().unwrap();
        assert_eq!(position.rules(), &rules);
        // J15 completes the five and takes J14 J13, the 9th and 10th stones.
        assert_eq!((position.captured(Color::White), position.outcome()), (8, None));
        assert_eq!(position.play(pt("J15")), Ok(2));
        assert_eq!(position.captured(Color::White), 10);
        assert_eq!(position.outcome(), win(Color::White, EndReason::Five), "{rules}");
    }
    // The same in Keryo with a triple under J15 taking White from 12 to 15.
    let mut position: Position = TWELVE_AND_A_FOUR.parse().unwrap();
    assert_eq!((position.captured(Color::White), position.outcome()), (12, None));
    assert_eq!(position.play(pt("J15")), Ok(3));
    assert_eq!(position.captured(Color::White), 15);
    assert_eq!(position.outcome(), win(Color::White, EndReason::Five));
}

// ---------------------------------------------------------------------------
// End of the game: full board

/// A 7x7 fill with no five for either side, in an order where no move
/// captures pairs or triples (so it is the same game in every variant).
const FULL_7X7: &str = "D4 A6 B7 A2 E3 B6 D2 A4 F2 B2 F5 F7 A5 D5 C5 D3 B5 C7 G3 G4 A7 G7 B1 F1 F4 G1 E1 E2 A3 \
     B3 G2 D1 C1 B4 E7 C4 C2 E5 F3 D6 A1 D7 C3 F6 E6 G6 E4 G5 C6";
const FULL_7X7_ROWS: [&str; 7] = ["WWBBWBB", "BBWBWBB", "WWWBBWB", "BBBWWWB", "WBWBWWW", "BBWWBWW", "WWWBWBB"];

/// Whether `rows` hold five (or more) of one colour in a row anywhere.
fn has_five(rows: &[String]) -> bool {
    let n = i32::try_from(rows.len()).unwrap();
    let cell = |x: i32, y: i32| -> Option<u8> {
        let (x, y) = (usize::try_from(x).ok()?, usize::try_from(y).ok()?);
        rows.get(y)?.as_bytes().get(x).copied()
    };
    (0..n).any(|y| {
        (0..n).any(|x| {
            AXES.iter().any(|&(dx, dy)| {
                let c = cell(x, y);
                c != Some(b'.') && (1..5).all(|k| cell(x + k * dx, y + k * dy) == c)
            })
        })
    })
}

#[test]
fn full_board_is_a_draw_only_at_the_last_stone() {
    // The fill below poofs stones under Poof-Pente's rules.
    for variant in Variant::ALL.into_iter().filter(|&v| alternating(v) && !rules(v, 7).poofs()) {
        let rules = rules(variant, 7);
        let moves = pts(FULL_7X7);
        assert_eq!(moves.len(), 49);
        let mut position = Position::new(rules);
        for (i, &p) in moves.iter().enumerate() {
            assert_eq!(position.outcome(), None, "{rules} before move {}", i + 1);
            assert_eq!(position.empty_count(), 49 - i);
            assert_eq!(position.play(p), Ok(0), "{rules} move {} {p}", i + 1);
        }
        assert_eq!(position.outcome(), Some(Outcome { winner: None, reason: EndReason::Full }), "{rules}");
        assert_eq!(position.empty_count(), 0);
        assert_eq!(position.board_rows(), FULL_7X7_ROWS);
        assert!(!has_five(&position.board_rows()), "the draw is genuine");
        assert_eq!(position.legal_moves().count(), 0);
    }
}

/// 7x7: 48 stones placed without a capture, the last empty point F4, White
/// to move; F4 takes F3 F2 where captures are made. A setup's text after the
/// rules.
const LAST_POINT_CAPTURES: &str = "WBBBBWW/BBBWBWW/WWWWBBB/BBBWB1W/BBBBWBW/WBWWWBW/WBBWWWW w ply=48 captures=0-0 \
     recent=F2,G7,C6,D6";

fn last_point(variant: Variant) -> Position {
    let rules = rules(variant, 7);
    format!("{rules} {LAST_POINT_CAPTURES}").parse().unwrap_or_else(|e| panic!("{rules}: {e}"))
}

#[test]
fn the_full_board_is_checked_after_removing_captures() {
    for variant in [Variant::Pente, Variant::FreePente] {
        let mut position = last_point(variant);
        assert_eq!(position.empty_count(), 1);
        assert_eq!(position.captured(Color::White) + position.captured(Color::Black), 0);
        assert_eq!(position.play(pt("F4")), Ok(2));
        assert_eq!(position.empty_count(), 2);
        assert_eq!(position.outcome(), None, "{variant}: not full after the capture");
        assert_eq!(position.legal_moves().collect::<Vec<_>>(), pts("F2 F3"));
    }
    // Gomoku captures nothing: the same move fills the board, a draw.
    for variant in [Variant::Gomoku, Variant::GomokuExact] {
        let mut position = last_point(variant);
        assert_eq!(position.play(pt("F4")), Ok(0));
        assert_eq!(position.outcome(), Some(Outcome { winner: None, reason: EndReason::Full }));
    }
}

// ---------------------------------------------------------------------------
// A finished game takes no more moves; a checked move never half-happens

/// Finished games: a five, a capture win and a full board.
fn finished_games() -> Vec<Position> {
    vec![
        replay(Rules::pente(), "K10 L9 K7 L8 K8 L7 K9 L10 K6"),
        replay(Rules::pente(), BLACK_TEN),
        replay(rules(Variant::Keryo, 19), FIFTEEN_BY_WHITE_IN_TRIPLES),
        replay(rules(Variant::GomokuExact, 7), FULL_7X7),
        replay(rules(Variant::Gomoku, 13), "A1 A2 B1 B2 C1 C2 D1 D2 E1"),
    ]
}

#[test]
fn no_move_after_the_game_ended() {
    for position in finished_games() {
        let outcome = position.outcome().expect("finished");
        let size = position.rules().size();
        assert_eq!(position.legal_moves().count(), 0);
        let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(7);
        assert_eq!(position.random_legal_move(&mut rng), None);
        for p in all_points(size).chain([Point::new(size, 0)]) {
            assert!(!position.is_legal(p));
            let mut copy = position.clone();
            assert_eq!(copy.play(p), Err(IllegalMove::GameOver { point: p, outcome }), "{p}");
            assert_untouched(&position, &copy);
        }
    }
}

#[test]
fn checked_play_leaves_the_position_untouched_on_every_error() {
    let mid_game = replay(Rules::pente(), "K10 L10 A1 M10 N10 B2");
    assert_eq!(mid_game.captured(Color::White), 2);
    let tournament = replay(Rules::pente(), "K10 L9");
    let small = replay(rules(Variant::Keryo, 7), "D4 E4");
    let empty13 = Position::new(rules(Variant::Pente, 13));
    let finished = replay(Rules::pente(), "K10 L9 K7 L8 K8 L7 K9 L10 K6");
    let outcome = finished.outcome().unwrap();
    let cases: Vec<(&Position, Point, IllegalMove)> = vec![
        (&mid_game, pt("K10"), IllegalMove::Occupied { point: pt("K10") }),
        (&mid_game, pt("B2"), IllegalMove::Occupied { point: pt("B2") }),
        (&mid_game, Point::new(19, 3), IllegalMove::OffBoard { point: Point::new(19, 3), size: 19 }),
        (&mid_game, Point::new(24, 24), IllegalMove::OffBoard { point: Point::new(24, 24), size: 19 }),
        (&small, Point::new(7, 0), IllegalMove::OffBoard { point: Point::new(7, 0), size: 7 }),
        (&small, Point::new(3, 7), IllegalMove::OffBoard { point: Point::new(3, 7), size: 7 }),
        (&small, pt("E4"), IllegalMove::Occupied { point: pt("E4") }),
        (
            &small,
            pt("F6"),
            IllegalMove::Opening {
                point: pt("F6"),
                violation: OpeningViolation::TooClose { centre: pt("D4"), min_distance: 3 },
            },
        ),
        (
            &tournament,
            pt("K8"),
            IllegalMove::Opening {
                point: pt("K8"),
                violation: OpeningViolation::TooClose { centre: pt("K10"), min_distance: 3 },
            },
        ),
        (
            &empty13,
            pt("A1"),
            IllegalMove::Opening { point: pt("A1"), violation: OpeningViolation::FirstNotCentre { centre: pt("G7") } },
        ),
        (&finished, pt("A1"), IllegalMove::GameOver { point: pt("A1"), outcome }),
        (&finished, pt("K10"), IllegalMove::GameOver { point: pt("K10"), outcome }),
        (&finished, Point::new(20, 20), IllegalMove::GameOver { point: Point::new(20, 20), outcome }),
    ];
    for (position, p, expected) in cases {
        assert_eq!(position.check(p), Err(expected));
        assert!(!position.is_legal(p));
        let mut copy = position.clone();
        assert_eq!(copy.play(p), Err(expected), "{p}");
        assert_untouched(position, &copy);
        // And the copy still plays on exactly like the original.
        if let Some(next) = position.legal_moves().next() {
            let mut a = position.clone();
            a.play(next).unwrap();
            copy.play(next).unwrap();
            assert_untouched(&a, &copy);
        }
    }
}

// ---------------------------------------------------------------------------
// Game history

#[test]
fn game_undo_restores_the_previous_position() {
    // White captures L10 M10, plays on the freed points and makes K10..K14.
    let moves = pts("K10 L10 A1 M10 N10 B2 L10 B4 M10 B6 K11 B8 K12 B10 K13 B12 K14");
    let mut game = Game::new(Rules::pente());
    assert_eq!(game.undo(), None);
    let mut snapshots = vec![game.position().clone()];
    for &p in &moves {
        game.play(p).unwrap_or_else(|e| panic!("{e}"));
        snapshots.push(game.position().clone());
    }
    assert_eq!(game.position().outcome(), win(Color::White, EndReason::Five));
    assert_eq!(game.position().captured(Color::White), 2);
    assert_eq!(game.moves(), &moves[..]);
    assert_eq!(game.positions().len(), moves.len() + 1);
    for (i, &p) in moves.iter().enumerate().rev() {
        assert_eq!(game.undo(), Some(p));
        assert_untouched(&snapshots[i], game.position());
        assert_eq!(game.moves(), &moves[..i]);
    }
    assert_eq!(game.undo(), None);
    assert_eq!(game.position(), &Position::new(Rules::pente()));
    // After undoing the winning move the game takes moves again.
    let mut game = Game::from_moves(Rules::pente(), moves.iter().copied()).unwrap();
    assert!(game.play(pt("T19")).is_err());
    game.undo();
    assert!(game.position().outcome().is_none());
    game.play(pt("T19")).unwrap();
    // Undo across a capture brings the captured stones back.
    let mut game = Game::from_move_list(Rules::pente(), "K10 L10 A1 M10 N10").unwrap();
    assert_eq!(game.position().stone_at(pt("L10")), None);
    game.undo();
    assert_eq!(game.position().stone_at(pt("L10")), Some(Color::Black));
    assert_eq!(game.position().stone_at(pt("M10")), Some(Color::Black));
    assert_eq!(game.position().captured(Color::White), 0);
}

#[test]
fn game_rejects_illegal_moves_and_names_them() {
    let err = Game::from_move_list(Rules::pente(), "K10 L9 K8").unwrap_err();
    let ReplayError::Illegal { ply, point, reason } = err else { panic!("expected an illegal move, got {err}") };
    assert_eq!((ply, point), (3, pt("K8")));
    assert!(matches!(reason, IllegalMove::Opening { .. }));
    let mut game = Game::from_move_list(Rules::pente(), "1. K10 L9 2. K7").unwrap();
    let before = game.position().clone();
    assert!(matches!(game.play(pt("L9")), Err(ReplayError::Illegal { ply: 4, .. })));
    assert_untouched(&before, game.position());
    assert_eq!(game.moves().len(), 3);
    assert!(matches!(Game::from_move_list(Rules::pente(), "K10 I9"), Err(ReplayError::Parse(_))));
}

#[test]
fn recent_moves_newest_first_and_transformed() {
    let game = pente_core::Game::from_move_list(pente_core::Rules::pente(), "K10 L9 K7 L8 K13").unwrap();
    let position = game.position();
    let recent: Vec<String> = position.recent_moves().map(|p| p.to_string()).collect();
    assert_eq!(recent, ["K13", "L8", "K7", "L9"]);
    assert_eq!(position.last_move().unwrap().to_string(), "K13");
    let flipped = position.transformed(pente_core::Symmetry::from_index(5));
    let recent: Vec<String> = flipped.recent_moves().map(|p| p.to_string()).collect();
    assert_eq!(recent, ["K7", "L12", "K13", "L11"]);
    let start = pente_core::Position::new(pente_core::Rules::pente());
    assert_eq!(start.recent_moves().count(), 0);
}

/// VARIANTS.md's cases of `free-keryo`: Keryo without the move-3 rule, the
/// first stone still on the centre, triples captured.
#[test]
fn free_keryo_is_keryo_without_the_tournament_rule() {
    let free = rules(Variant::FreeKeryo, 19);
    assert!(Game::from_move_list(free, "K10 L9 K9").is_ok());
    assert!(Game::from_move_list(rules(Variant::Keryo, 19), "K10 L9 K9").is_err());
    assert!(Game::from_move_list(rules(Variant::FreeKeryo, 13), "G7 H6 G6").is_ok());
    assert!(Game::from_move_list(rules(Variant::Keryo, 13), "G7 H6 G6").is_err());
    assert!(Game::from_move_list(free, "A1").is_err(), "an off-centre first stone");
    let position = replay(free, "K10 L10 A1 M10 A3 N10 O10");
    assert_eq!(position.captured(Color::White), 3, "White's O10 takes L10 M10 N10");
    assert_eq!((free.capture_win(), "free-keryo".parse::<Variant>()), (Some(15), Ok(Variant::FreeKeryo)));
}

/// Whether G-Pente bars `p` on move 3 beyond the tournament square: on the
/// centre's row or column at distance 3 or 4.
fn g_pente_axis(p: Point, centre: Point) -> bool {
    (p.x() == centre.x() || p.y() == centre.y()) && matches!(p.distance(centre), 3 | 4)
}

/// The points G-Pente bars on move 3 beyond the tournament square, and
/// whether each is refused for that reason.
fn g_pente_bars(size: u8, expected: &str) {
    let rules = rules(Variant::GPente, size);
    let centre = rules.centre();
    let black = Point::new(centre.x() + 1, centre.y() - 1);
    let mut position = Position::new(rules);
    play_all(&mut position, &[centre, black]);
    let barred: Vec<Point> = all_points(size)
        .filter(|&p| {
            matches!(
                position.check(p),
                Err(IllegalMove::Opening { violation: OpeningViolation::OnBarredAxis { .. }, .. })
            )
        })
        .collect();
    let mut expected = pts(expected);
    expected.sort();
    let mut barred = barred;
    barred.sort();
    assert_eq!(barred, expected, "{size}x{size}");
}

#[test]
fn g_pente_bars_eight_more_points_on_move_3_only() {
    let g = rules(Variant::GPente, 19);
    assert_eq!("g-pente".parse::<Variant>(), Ok(Variant::GPente));
    g_pente_bars(19, "K14 K13 K7 K6 F10 G10 N10 O10");
    let after = |moves: &str| Game::from_move_list(g, moves);
    for barred in ["K14", "K13", "K7", "K6", "F10", "G10", "N10", "O10", "K8"] {
        let error = after(&format!("K10 L9 {barred}")).unwrap_err().to_string();
        assert!(error.contains(barred), "{barred}: {error}");
    }
    for legal in ["K5", "E10", "L7", "N13", "K15", "P10", "N7"] {
        assert!(after(&format!("K10 L9 {legal}")).is_ok(), "{legal}");
    }
    assert!(after("K10 K7").is_ok(), "Black's first stone may be K7");
    assert!(after("K10 L9 A1 K7").is_ok(), "the bar binds only move 3");
    assert!(after("A1").is_err(), "the first stone goes on the centre");
    let pente = rules(Variant::Pente, 19);
    assert!(Game::from_move_list(pente, "K10 L9 K13").is_ok(), "plain Pente allows K13");
    assert_eq!((g.capture_win(), g.captures_run_of(2), g.captures_run_of(3)), (Some(10), true, false));
    // Ours on any board: distance 3 and 4 from the centre, absolute.
    g_pente_bars(13, "G3 G4 G10 G11 C7 D7 K7 L7");
    g_pente_bars(9, "E1 E2 E8 E9 A5 B5 H5 J5");
    g_pente_bars(7, "A4 G4 D1 D7");
}
