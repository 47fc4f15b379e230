//! The solver's soundness rests on two facts checked here against the rules
//! crate by brute force: the threat bits say exactly which moves win at once,
//! and the defender replies it tries include every move that stops a threat.

use pente_core::{Game, Point, Position, Rules, Variant};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use super::threats::Board;
use super::{Kind, Solver, SolverParams, forced_replies_on};

/// A random game whose moves stay near the stones already played, so that
/// lines, captures and threats come up often.
fn clustered_game(rules: Rules, seed: u64, max_plies: usize) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut position = Position::new(rules);
    let mut positions = vec![position.clone()];
    while !position.is_over() && positions.len() <= max_plies {
        let moves: Vec<Point> = position.legal_moves().collect();
        let near: Vec<Point> =
            moves.iter().copied().filter(|&p| position.ply() == 0 || neighbours(&position, p, 2)).collect();
        let pool = if near.is_empty() || rng.random_range(0..10) == 0 { &moves } else { &near };
        let p = pool[rng.random_range(0..pool.len())];
        position.play_unchecked(p);
        positions.push(position.clone());
    }
    positions
}

fn neighbours(position: &Position, p: Point, reach: i32) -> bool {
    let size = i32::from(position.rules().size());
    (-reach..=reach).any(|dy| {
        (-reach..=reach).any(|dx| {
            let (x, y) = (i32::from(p.x()) + dx, i32::from(p.y()) + dy);
            (0..size).contains(&x)
                && (0..size).contains(&y)
                && position.stone_at(Point::new(x as u8, y as u8)).is_some()
        })
    })
}

fn all_rules() -> Vec<Rules> {
    rules_on(&[9, 13, 19])
}

/// Every rule set the solver is exact for (not Poof-Pente's) on `sizes`.
/// The colour-choice variants are Pente and Keryo once the colours are
/// chosen, which is when the solver reads them: their rules are covered.
fn rules_on(sizes: &[u8]) -> Vec<Rules> {
    Variant::ALL
        .iter()
        .flat_map(|&variant| sizes.iter().map(move |&size| Rules::new(variant, size).unwrap()))
        .filter(|rules| super::sound_for(rules) && rules.colour_choice().is_none())
        .collect()
}

#[test]
fn poof_pente_is_left_to_the_search() {
    let rules = Rules::new(Variant::PoofPente, 19).unwrap();
    assert!(!super::sound_for(&rules));
    // Black to move wins with P10 (five L10..P10) under both rules; under
    // Poof-Pente the solver leaves even that to the search.
    let moves = "K10 L10 A1 M10 A3 N10 A5 O10 A7";
    for (rules, wins) in [(Rules::pente(), true), (rules, false)] {
        let position = Game::from_move_list(rules, moves).unwrap().position().clone();
        let solution = Solver::new(1 << 10).solve(&position, &SolverParams::default());
        assert_eq!(solution.line.is_some(), wins, "{rules}");
        assert_eq!(Solver::new(1 << 10).winning_moves(&position, &SolverParams::default()).is_empty(), !wins);
    }
}

/// Whether the side to move has a move that wins at once.
fn naive_has_win(position: &Position) -> bool {
    let me = position.to_move();
    position.legal_moves().any(|p| {
        let mut next = position.clone();
        next.play_unchecked(p);
        next.outcome().is_some_and(|o| o.winner == Some(me))
    })
}

/// Moves that win at once for the side to move, by playing every legal move.
fn naive_wins(position: &Position) -> Vec<Point> {
    let me = position.to_move();
    position
        .legal_moves()
        .filter(|&p| {
            let mut next = position.clone();
            next.play_unchecked(p);
            next.outcome().is_some_and(|o| o.winner == Some(me))
        })
        .collect()
}

fn points(board: &Board, bits: super::Bits) -> Vec<Point> {
    let mut points: Vec<Point> = bits.iter().map(|i| board.point(i)).collect();
    points.sort();
    points
}

#[test]
fn threat_bits_stay_equal_to_a_fresh_build() {
    for (k, rules) in all_rules().into_iter().enumerate() {
        for seed in 0..6 {
            let positions = clustered_game(rules, 100 * k as u64 + seed, 120);
            let mut board = Board::new(positions[0].clone());
            for next in positions.windows(2) {
                let p = next[1].last_move().unwrap();
                board.play(p);
                assert_eq!(board.position, next[1]);
                assert_eq!(board.threats, Board::new(next[1].clone()).threats, "{rules} seed {seed} after {p}");
            }
        }
    }
}

#[test]
fn immediate_wins_are_exactly_the_winning_moves() {
    let mut wins_seen = 0;
    for (k, rules) in all_rules().into_iter().enumerate() {
        for seed in 0..8 {
            for position in clustered_game(rules, 7000 + 100 * k as u64 + seed, 150) {
                if position.is_over() {
                    continue;
                }
                let board = Board::new(position.clone());
                let me = position.to_move();
                let mut naive = naive_wins(&position);
                naive.sort();
                let wins: Vec<Point> =
                    points(&board, board.wins(me)).into_iter().filter(|&p| position.is_legal(p)).collect();
                assert_eq!(wins, naive, "{rules}:\n{position:?}");
                assert_eq!(board.has_win(me), !naive.is_empty());
                wins_seen += naive.len();
            }
        }
    }
    assert!(wins_seen > 100, "the games should reach winning moves ({wins_seen})");
}

#[test]
fn forced_replies_are_exactly_the_moves_that_stop_the_threat() {
    let mut threats_seen = 0;
    // Every legal move is tried against every reply: smaller boards keep it quick.
    for (k, rules) in rules_on(&[9, 13]).into_iter().enumerate() {
        for seed in 0..8 {
            for position in clustered_game(rules, 9000 + 100 * k as u64 + seed, 150) {
                if position.is_over() {
                    continue;
                }
                let board = Board::new(position.clone());
                let them = position.to_move().opponent();
                let threatened = board.has_win(them);
                let forced = forced_replies_on(&board);
                assert_eq!(forced.is_some(), threatened);
                let Some(mut forced) = forced else { continue };
                threats_seen += 1;
                // Every legal move after which the opponent cannot win at once.
                let mut naive: Vec<Point> = position
                    .legal_moves()
                    .filter(|&p| {
                        let mut next = position.clone();
                        next.play_unchecked(p);
                        next.is_over() || !naive_has_win(&next)
                    })
                    .collect();
                naive.sort();
                forced.sort();
                assert_eq!(forced, naive, "{rules}:\n{position:?}");
            }
        }
    }
    assert!(threats_seen > 100, "the games should reach threats ({threats_seen})");
}

/// Whether the side to move wins within `n` of its moves against every
/// defence, by trying every move of both sides.
fn wins_within(position: &Position, n: u32) -> bool {
    let me = position.to_move();
    position.legal_moves().any(|p| {
        let mut next = position.clone();
        next.play_unchecked(p);
        match next.outcome() {
            Some(outcome) => outcome.winner == Some(me),
            None => {
                n > 1
                    && next.legal_moves().all(|r| {
                        let mut after = next.clone();
                        after.play_unchecked(r);
                        !after.is_over() && wins_within(&after, n - 1)
                    })
            }
        }
    })
}

#[test]
fn every_win_found_is_a_win_by_brute_force() {
    let params = SolverParams { max_depth: 2, max_threes: 1, max_nodes: 20_000, vcf_threats: true };
    let mut solver = Solver::new(1 << 12);
    let mut checked = 0;
    for variant in [Variant::Pente, Variant::Keryo, Variant::GomokuExact] {
        let rules = Rules::new(variant, 9).unwrap();
        for seed in 0..40 {
            let positions = clustered_game(rules, 500 + seed, 60);
            for position in positions.iter().rev().skip(2).take(4) {
                let solution = solver.solve(position, &params);
                let Some(line) = solution.line.clone() else { continue };
                let n = solution.moves_to_win().unwrap() as u32;
                assert!(wins_within(position, n), "{variant}: claimed win in {n} ({line:?}) is not one:\n{position:?}");
                // The line is legal and ends the game for the attacker.
                let mut game = position.clone();
                for &p in &line {
                    game.play(p).unwrap();
                }
                assert_eq!(game.outcome().and_then(|o| o.winner), Some(position.to_move()));
                checked += 1;
            }
        }
    }
    assert!(checked > 20, "the games should reach solvable positions ({checked})");
}

/// Whether the solver's win from `position` within `n` of the attacker's
/// moves holds against every defence: the attacker plays the solver's move,
/// found afresh at each turn, and the defender every legal move; each line
/// must end in the attacker's win by the rules crate's verdict.
fn holds_against_every_defence(solver: &mut Solver, position: &Position, n: u8, params: SolverParams) -> bool {
    let me = position.to_move();
    let Some(line) = solver.solve(position, &SolverParams { max_depth: n, ..params }).line else { return false };
    let mut next = position.clone();
    next.play(line[0]).unwrap();
    if let Some(outcome) = next.outcome() {
        return outcome.winner == Some(me);
    }
    n > 1
        && next.legal_moves().all(|r| {
            let mut after = next.clone();
            after.play_unchecked(r);
            !after.is_over() && holds_against_every_defence(solver, &after, n - 1, params)
        })
}

#[test]
fn every_vct_found_holds_against_every_defence() {
    // After a three the solver tries every reply itself; this checks the
    // whole proof, with one solver (and table) for all three rule sets.
    let params = SolverParams { max_depth: 4, max_threes: 2, max_nodes: 50_000, vcf_threats: true };
    let vcf = SolverParams { max_threes: 0, ..params };
    let mut solver = Solver::new(1 << 14);
    let mut checked = 0;
    for variant in [Variant::Pente, Variant::Keryo, Variant::GomokuExact] {
        let rules = Rules::new(variant, 9).unwrap();
        for seed in 0..30 {
            for position in clustered_game(rules, 900 + seed, 60).iter().skip(8) {
                if solver.solve(position, &vcf).line.is_some() {
                    continue;
                }
                let Some(n) = solver.solve(position, &params).moves_to_win() else { continue };
                let n = n as u8;
                assert!(
                    holds_against_every_defence(&mut solver, position, n, params),
                    "{variant}: a claimed win in {n} does not hold:\n{position:?}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 20, "the games should reach wins that need threes ({checked})");
}

fn free() -> Rules {
    Rules::new(Variant::FreePente, 19).unwrap()
}

fn solve(rules: Rules, moves: &str, params: SolverParams) -> super::Solution {
    let game = Game::from_move_list(rules, moves).unwrap();
    Solver::default().solve(game.position(), &params)
}

fn line(solution: &super::Solution) -> String {
    solution.line.iter().flatten().map(ToString::to_string).collect::<Vec<_>>().join(" ")
}

#[test]
fn finds_an_open_four_and_a_double_four() {
    let vcf = SolverParams { max_threes: 0, ..SolverParams::default() };
    // White K10 K11 K12 K13 with both ends open: win at once.
    let open_four = "K10 A1 K11 A3 K12 A5 K13 A7";
    let solution = solve(free(), open_four, vcf);
    assert_eq!(solution.moves_to_win(), Some(1), "{}", line(&solution));
    // White has an open three K10 K11 K12: it becomes an open four (VCF of 2).
    let three = "K10 A1 K11 A3 K12 A5";
    let solution = solve(free(), three, vcf);
    assert_eq!(solution.moves_to_win(), Some(2), "{}", line(&solution));
    assert!(["K9", "K13"].contains(&line(&solution).split(' ').next().unwrap()), "{}", line(&solution));
}

#[test]
fn a_capture_that_breaks_the_four_refutes_it() {
    let vcf = SolverParams { max_threes: 0, ..SolverParams::default() };
    let rules = Rules::new(Variant::FreePente, 9).unwrap();
    // White's open three E4 E5 E6, White to move: E3 or E7 makes an open four.
    let open = "E5 A1 E4 J9 E6 A9 F6 J1";
    let solution = solve(rules, open, vcf);
    assert_eq!(solution.moves_to_win(), Some(2), "{}", line(&solution));
    // With Black on D6, G6 captures E6 F6 and breaks either four.
    let flanked = "E5 A1 E4 D6 E6 A9 F6 J1";
    let solution = solve(rules, flanked, vcf);
    assert_ne!(solution.moves_to_win(), Some(2), "{}", line(&solution));
    let position = Game::from_move_list(rules, flanked).unwrap().position().clone();
    assert!(!wins_within(&position, 2));
}

#[test]
fn reports_no_win_when_there_is_none() {
    let solution = solve(free(), "K10 L11", SolverParams::default());
    assert_eq!(solution.line, None);
    assert!(!solution.exhausted);
}

/// White has captured four pairs (rows 2, 5, 8, 11) and Black has the
/// pairs M15 N15 and L14 L13: White L15 threatens O15 and L12, either of
/// which reaches 10 captured stones.
const EIGHT_CAPTURED: &str = "pente W1W3W11B/19/4W14/15W3/11BB6/10B8/10B4W3/17B1/W2W15/9W9/19/W2W13B1/15W3/19/\
     W2W15/17B1/15W3/W2W15/17B1 w ply=34 captures=8-0 recent=L13,G19,L14,E17";

#[test]
fn threatens_two_captures_at_the_winning_count() {
    let position: Position = EIGHT_CAPTURED.parse().unwrap();
    assert_eq!(position.captured(pente_core::Color::White), 8);
    let vcf = SolverParams { max_threes: 0, ..SolverParams::default() };
    let solution = Solver::default().solve(&position, &vcf);
    assert_eq!(solution.moves_to_win(), Some(2), "{}", line(&solution));
    assert_eq!(solution.line.as_ref().unwrap()[0], "L15".parse().unwrap());
    let mut after = position.clone();
    for &p in solution.line.as_ref().unwrap() {
        after.play(p).unwrap();
    }
    assert_eq!(after.outcome().unwrap().reason, pente_core::EndReason::Captures);
    let winning = Solver::default().winning_moves(&position, &vcf);
    assert_eq!(winning.first(), Some(&("L15".parse().unwrap(), 2)));
}

#[test]
fn every_win_by_a_vcf_threat_holds_against_every_defence() {
    // The widest pass plays quiet moves that are no open three but threaten
    // a VCF; each must hold against every reply, checked move by move.
    let params = SolverParams { max_depth: 4, max_threes: 1, max_nodes: 20_000, vcf_threats: true };
    let mut solver = Solver::new(1 << 14);
    let mut checked = 0;
    for variant in [Variant::Pente, Variant::GomokuExact] {
        let rules = Rules::new(variant, 11).unwrap();
        for seed in 0..60 {
            for position in clustered_game(rules, 1300 + seed, 80).iter().skip(6) {
                let Some(line) = solver.solve(position, &params).line else { continue };
                let board = Board::new(position.clone());
                let me = board.to_move();
                let first = board.index(line[0]);
                let threat = [Kind::Five, Kind::Four, Kind::Three, Kind::Capture, Kind::Setup]
                    .into_iter()
                    .any(|kind| board.points(kind, me).contains(first) || board.wins(me.opponent()).contains(first));
                if threat {
                    continue;
                }
                let n = line.len().div_ceil(2) as u8;
                assert!(
                    holds_against_every_defence(&mut solver, position, n, params),
                    "{variant}: a claimed win in {n} by the quiet {} does not hold:\n{position:?}",
                    line[0]
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 5, "the games should reach wins that start with a VCF threat ({checked})");
}

/// From a game lost to `pente -text` at level 9: after M13 N13, L14 makes no
/// open three, but every White reply but a few loses to a short VCF, and
/// those to one more three.
#[test]
fn finds_a_win_that_starts_with_a_vcf_threat() {
    let moves = "K10 L12 L13 J14 K13 M13 K11 J13 K9 K8 H13 J12 K12 K13 N14 L13 H11 M13 N13";
    let position = Game::from_move_list(Rules::pente(), moves).unwrap().position().clone();
    let params = SolverParams { max_depth: 6, max_threes: 2, max_nodes: 2_000_000, vcf_threats: true };
    let narrow = SolverParams { vcf_threats: false, ..params };
    let solution = Solver::default().solve(&position, &narrow);
    assert_eq!(solution.line, None, "open threes alone find no win");
    assert!(!solution.exhausted);
    let solution = Solver::default().solve(&position, &params);
    let line = solution.line.expect("a win for Black");
    assert_eq!(line[0], "L14".parse().unwrap());
    let board = Board::new(position.clone());
    assert!(!board.points(Kind::Three, board.to_move()).contains(board.index(line[0])));
    let mut after = position.clone();
    for &p in &line {
        after.play(p).unwrap();
    }
    assert_eq!(after.outcome().and_then(|o| o.winner), Some(pente_core::Color::Black));
}
