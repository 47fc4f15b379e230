//! Search behaviour with fake evaluators: exact wins, forced defences,
//! capture tactics, determinism, batching, tree reuse and Gumbel roots.

use pente_core::{Game, Point, Position, Rules, Variant};
use pente_search::{
    Evaluation, Evaluator, GumbelParams, HeuristicEvaluator, Proof, Search, SearchParams, UniformEvaluator, search_many,
};

fn p(s: &str) -> Point {
    s.parse().unwrap()
}

fn position(moves: &str) -> Position {
    Game::from_move_list(Rules::pente(), moves).unwrap().position().clone()
}

fn params(visits: u32) -> SearchParams {
    SearchParams { visits, ..SearchParams::default() }
}

/// White to move with four in a column K10-K13 (open at K9 and K14).
const WHITE_FOUR: &str = "K10 A1 K13 A3 K11 A5 K12 A7";

#[test]
fn wins_in_one_with_uniform_priors() {
    let position = position(WHITE_FOUR);
    for evaluator in [&UniformEvaluator::default() as &dyn Evaluator, &HeuristicEvaluator::default()] {
        let result = Search::new(position.clone(), params(50), 1).run(evaluator);
        let best = result.best_move.unwrap();
        assert!(best == p("K9") || best == p("K14"), "{} played {best}", evaluator.name());
        assert_eq!(result.proof, Proof::Win);
        assert_eq!(result.value, 1.0);
    }
}

/// Builds a pente game where White has captured `pairs` pairs on rows 2, 5,
/// 8, 11 (columns A-D) and then sets up one more pair on row 17.
fn capture_setup(pairs: u32) -> Game {
    let mut moves = vec!["K10", "T19"];
    let rows = ["2", "5", "8", "11", "14"];
    let white_fillers = ["Q3", "Q7", "Q13", "Q16", "O18"];
    let black_fillers = ["S1", "S4", "S8", "S12", "S16"];
    let mut owned = Vec::new();
    for (i, row) in rows.iter().take(pairs as usize).enumerate() {
        owned.push([
            format!("A{row}"),
            format!("B{row}"),
            white_fillers[i].to_string(),
            format!("C{row}"),
            format!("D{row}"),
            black_fillers[i].to_string(),
        ]);
    }
    let mut all: Vec<String> = moves.drain(..).map(String::from).collect();
    for block in owned {
        all.extend(block);
    }
    // One more pair, flanked on one side: White D17 takes it.
    all.extend(["A17", "B17", "O2", "C17"].map(String::from));
    Game::from_move_list(Rules::pente(), &all.join(" ")).unwrap()
}

#[test]
fn takes_a_capture_win() {
    let game = capture_setup(4);
    let position = game.position();
    assert_eq!(position.captured(pente_core::Color::White), 8);
    assert_eq!(position.to_move(), pente_core::Color::White);
    let result = Search::new(position.clone(), params(50), 3).run(&UniformEvaluator::default());
    assert_eq!(result.best_move, Some(p("D17")));
    assert_eq!(result.proof, Proof::Win);
    let mut after = position.clone();
    after.play(p("D17")).unwrap();
    assert_eq!(after.outcome().unwrap().reason, pente_core::EndReason::Captures);
}

#[test]
fn blocks_a_four() {
    // Black has C5 D5 E5 F5 with White on B5: White must take G5.
    let position = position("K10 C5 B5 D5 R18 E5 R16 F5");
    for evaluator in [&UniformEvaluator::default() as &dyn Evaluator, &HeuristicEvaluator::default()] {
        let result = Search::new(position.clone(), params(800), 5).run(evaluator);
        assert_eq!(result.best_move, Some(p("G5")), "{}", evaluator.name());
        assert_ne!(result.proof, Proof::Win);
    }
}

#[test]
fn sees_that_a_capture_breaks_a_four() {
    // Black: C5 D5 E5 F5 (closed by White B5) and D6; White D7. White D4
    // captures D5 and D6, breaking the four, as well as G5 blocks it.
    let position = position("K10 C5 B5 D5 D7 E5 R16 F5 R14 D6");
    assert_eq!(position.to_move(), pente_core::Color::White);
    let result = Search::new(position.clone(), params(1500), 7).run(&UniformEvaluator::default());
    let best = result.best_move.unwrap();
    assert!(best == p("G5") || best == p("D4"), "played {best}");
    let capture = result.candidates.iter().find(|c| c.point == p("D4")).unwrap();
    assert_ne!(capture.proof, Proof::Loss, "the capture removes D5 from the four");
    // Any move that neither blocks nor captures loses at once once visited.
    for candidate in result.candidates.iter().filter(|c| c.visits > 0) {
        if candidate.point != p("G5") && candidate.point != p("D4") {
            assert_eq!(candidate.proof, Proof::Loss, "{} does not stop the four", candidate.point);
        }
    }
    // The heuristic finds a defence too.
    let result = Search::new(position, params(200), 7).run(&HeuristicEvaluator::default());
    let best = result.best_move.unwrap();
    assert!(best == p("G5") || best == p("D4"), "heuristic played {best}");
}

#[test]
fn same_seed_same_search() {
    let position = position("K10 L9 K7");
    let noisy = SearchParams { noise: true, visits: 300, ..SearchParams::default() };
    let run = |seed| Search::new(position.clone(), noisy.clone(), seed).run(&HeuristicEvaluator::default());
    assert_eq!(run(11), run(11));
    let a = run(11);
    let b = run(12);
    assert_ne!(a.candidates, b.candidates, "different noise, different tree");
}

#[test]
fn batched_searches_match_single_searches() {
    let evaluator = HeuristicEvaluator::default();
    let starts = [position("K10 L9"), position("K10 L9 K7"), position(WHITE_FOUR)];
    let single: Vec<_> =
        starts.iter().enumerate().map(|(i, s)| Search::new(s.clone(), params(120), i as u64).run(&evaluator)).collect();
    let mut searches: Vec<Search> =
        starts.iter().enumerate().map(|(i, s)| Search::new(s.clone(), params(120), i as u64)).collect();
    // Count the network calls: all searches share each call.
    struct Counting<'a>(&'a HeuristicEvaluator, std::cell::Cell<usize>, std::cell::Cell<usize>);
    impl Evaluator for Counting<'_> {
        fn evaluate(&self, positions: &[&Position]) -> Vec<Evaluation> {
            self.1.set(self.1.get() + 1);
            self.2.set(self.2.get().max(positions.len()));
            self.0.evaluate(positions)
        }
        fn name(&self) -> String {
            "counting".into()
        }
    }
    let counting = Counting(&evaluator, Default::default(), Default::default());
    search_many(&mut searches, &counting);
    let batched: Vec<_> = searches.iter().map(Search::result).collect();
    assert_eq!(single, batched);
    assert!(counting.2.get() > 8, "one call carries the leaves of several searches");
}

#[test]
fn tree_reuse_keeps_visits() {
    let evaluator = HeuristicEvaluator::default();
    let mut search = Search::new(position("K10 L9 K7"), params(400), 1);
    let result = search.run(&evaluator);
    let best = result.best_move.unwrap();
    let kept = result.candidates.iter().find(|c| c.point == best).unwrap().visits;
    search.advance(best);
    assert_eq!(search.visits(), kept);
    assert!(kept > 0);
    let again = search.run(&evaluator);
    assert_eq!(again.visits, 400);
    assert!(again.best_move.is_some());
    // Advancing along an unexplored move starts a fresh tree.
    let unexplored = again.candidates.iter().find(|c| c.visits == 0).unwrap().point;
    search.advance(unexplored);
    assert_eq!(search.visits(), 0);
}

#[test]
fn gumbel_root_with_a_small_budget() {
    let gumbel = SearchParams { visits: 16, gumbel: Some(GumbelParams::default()), ..SearchParams::default() };
    let result = Search::new(position(WHITE_FOUR), gumbel.clone(), 1).run(&HeuristicEvaluator::default());
    let best = result.best_move.unwrap();
    assert!(best == p("K9") || best == p("K14"));
    let result = Search::new(position("K10 L9 K7 L8"), gumbel.clone(), 1).run(&HeuristicEvaluator::default());
    assert_eq!(result.visits, 16);
    let total: f32 = result.policy_target.iter().map(|x| x.1).sum();
    assert!((total - 1.0).abs() < 1e-4);
    let visited = result.candidates.iter().filter(|c| c.visits > 0).count();
    assert!(visited > 1 && visited <= 16, "sequential halving spreads visits over the field: {visited}");
    // Noise makes self-play Gumbel searches differ by seed but not run to run.
    let noisy = SearchParams { noise: true, ..gumbel };
    let run = |seed| Search::new(position("K10 L9 K7"), noisy.clone(), seed).run(&HeuristicEvaluator::default());
    assert_eq!(run(4), run(4));
}

#[test]
fn finished_game_has_no_move() {
    let over = position("K10 L9 K7 L8 K8 L7 K9 L10 K6");
    let result = Search::new(over, params(10), 1).run(&UniformEvaluator::default());
    assert_eq!(result.best_move, None);
    assert!(result.candidates.is_empty());
}

#[test]
fn every_variant_and_size() {
    for variant in Variant::ALL {
        for size in [7, 13] {
            let rules = Rules::new(variant, size).unwrap();
            let mut position = Position::new(rules);
            let mut search = Search::new(position.clone(), params(30), 9);
            for _ in 0..6 {
                let result = search.run(&HeuristicEvaluator::default());
                let Some(best) = result.best_move else { break };
                assert!(position.is_legal(best), "{variant} {size}: {best}");
                position.play(best).unwrap();
                search.advance(best);
            }
        }
    }
}

/// Counts the positions it is asked about.
#[derive(Default)]
struct Counting {
    positions: std::cell::Cell<usize>,
}

impl Evaluator for Counting {
    fn evaluate(&self, positions: &[&Position]) -> Vec<Evaluation> {
        self.positions.set(self.positions.get() + positions.len());
        UniformEvaluator::default().evaluate(positions)
    }

    fn name(&self) -> String {
        "counting".into()
    }
}

fn free_position(moves: &str) -> Position {
    Game::from_move_list(Rules::new(Variant::FreePente, 19).unwrap(), moves).unwrap().position().clone()
}

#[test]
fn the_solver_decides_a_forced_win_without_the_network() {
    // White's open three K10 K11 K12: K9 or K13 makes an open four.
    let position = free_position("K10 A1 K11 A3 K12 A5");
    let counting = Counting::default();
    let result = Search::new(position.clone(), params(400), 1).run(&counting);
    assert_eq!(counting.positions.get(), 0, "a proven root needs no evaluation");
    assert_eq!(result.proof, Proof::Win);
    assert_eq!(result.moves_to_end(), Some(2));
    let best = result.best_move.unwrap();
    assert!(best == p("K9") || best == p("K13"), "played {best}");
    assert_eq!(result.proven_line.first(), Some(&best));
    assert_eq!(result.policy_target, vec![(best, 1.0)]);
    // The line is legal and White wins at its end.
    let mut game = position.clone();
    for &point in &result.proven_line {
        game.play(point).unwrap();
    }
    assert_eq!(game.outcome().unwrap().winner, Some(pente_core::Color::White));
    // Without the solver the same search asks the network.
    let mut plain = params(400);
    plain.tactics.enabled = false;
    Search::new(position, plain, 1).run(&counting);
    assert!(counting.positions.get() > 0);
}

#[test]
fn only_the_moves_that_stop_a_four_are_searched() {
    // Black has C5 D5 E5 F5 closed by White B5: only G5 stops the five.
    let position = position("K10 C5 B5 D5 R18 E5 R16 F5");
    let result = Search::new(position.clone(), params(100), 1).run(&UniformEvaluator::default());
    let moves: Vec<Point> = result.candidates.iter().map(|c| c.point).collect();
    assert_eq!(moves, vec![p("G5")]);
    let mut plain = params(100);
    plain.tactics.enabled = false;
    let result = Search::new(position, plain, 1).run(&UniformEvaluator::default());
    assert!(result.candidates.len() > 300);
}

#[test]
fn a_proven_loss_comes_with_the_winners_line() {
    // Black to move cannot stop White's open four K10-K13.
    let position = free_position("K10 A1 K11 A3 K12 A5 K13");
    let result = Search::new(position, params(200), 1).run(&UniformEvaluator::default());
    assert_eq!(result.proof, Proof::Loss);
    assert_eq!(result.moves_to_end(), Some(1));
    assert_eq!(result.proven_line.len(), 2, "{:?}", result.proven_line);
    assert_eq!(result.proven_line.first(), result.best_move.as_ref(), "a lost side still gets a move");
}

#[test]
fn games_played_with_tree_reuse_always_get_a_move() {
    // Heuristic self-play from tactical openings, reusing the tree: decided
    // positions come up on both sides and each still gets a move.
    for (k, moves) in ["K10 L9 K7", "K10 A1 K11 A3 K12", "K10 K11 L10 L11 M10"].iter().enumerate() {
        let mut quick = params(24);
        quick.tactics.root.max_nodes = 2000;
        let mut search = Search::new(free_position(moves), quick, k as u64);
        while !search.position().is_over() {
            let result = search.run(&HeuristicEvaluator::default());
            let best = result.best_move.unwrap_or_else(|| panic!("no move in\n{:?}", search.position()));
            search.advance(best);
        }
    }
}

#[test]
fn checking_the_best_moves_finds_the_defence_against_a_three() {
    // White's open three K10 K11 K12, Black to move: only K9 and K13 stop
    // the open four (K8 or K14 leave K9-K12 or K10-K13 open at both ends).
    let position = free_position("K10 A1 K11 A3 K12");
    let mut checked = params(30);
    checked.tactics.verify_moves = 400;
    let result = Search::new(position, checked, 1).run(&UniformEvaluator::default());
    let best = result.best_move.unwrap();
    assert!(best == p("K9") || best == p("K13"), "played {best}");
    let lost = result.candidates.iter().filter(|c| c.proof == Proof::Loss).count();
    assert!(lost > 100, "the checks prove the moves before it lost ({lost})");
}

fn replay(variant: Variant, moves: &str) -> Position {
    Game::from_move_list(Rules::new(variant, 19).unwrap(), moves).unwrap().position().clone()
}

#[test]
fn connect6_two_stones_of_a_turn_make_a_proven_six() {
    // White (K10, then A1 A2, A3 A4) to place two stones: A5 and A6 make six.
    let position = replay(Variant::Connect6, "K10 T1 T3 A1 A2 T5 T7 A3 A4 T9 T11");
    let result = Search::new(position.clone(), params(200), 1).run(&HeuristicEvaluator::default());
    assert_eq!(result.proof, Proof::Win, "{result:?}");
    let best = result.best_move.unwrap();
    assert!(best == p("A5") || best == p("A6"), "played {best}");
    // The second stone of the turn is the same player's: it wins at once.
    let mut after = position.clone();
    after.play(best).unwrap();
    let result = Search::new(after, params(50), 1).run(&HeuristicEvaluator::default());
    assert_eq!((result.proof, result.value), (Proof::Win, 1.0));
}

#[test]
fn connect6_the_opponent_blocks_a_five_with_one_of_two_stones() {
    // White has A1-A5 open at A6 only (A0 is off the board); Black must block.
    let position = replay(Variant::Connect6, "K10 T1 T3 A1 A2 T5 T7 A3 A4 T9 T11 A5 M12");
    let result = Search::new(position, params(300), 1).run(&HeuristicEvaluator::default());
    assert_eq!(result.best_move, Some(p("A6")), "{:?}", result.candidates.iter().take(3).collect::<Vec<_>>());
    assert_ne!(result.proof, Proof::Loss);
}

#[test]
fn connect6_a_five_on_the_edge_is_blocked_at_both_ends_by_uniform_priors() {
    // From an arena game the network lost: Black's A12-A16, open at A11 and
    // A17; White's two stones must take both, and priors cannot find them.
    let position = replay(Variant::Connect6, "K10 C18 A16 K8 K9 K7 A14 K11 K12 K13 A13 H10 J10 A15 A12");
    let result = Search::new(position.clone(), params(64), 1).run(&UniformEvaluator::default());
    let moves: Vec<Point> = result.candidates.iter().map(|c| c.point).collect();
    assert!(moves.iter().all(|&m| m == p("A11") || m == p("A17")) && !moves.is_empty(), "{moves:?}");
    let mut after = position.clone();
    after.play(result.best_move.unwrap()).unwrap();
    let result = Search::new(after, params(64), 1).run(&UniformEvaluator::default());
    let second = result.best_move.unwrap();
    assert!(second == p("A11") || second == p("A17"), "played {second}");
    // Without tactics the uniform search spreads over the board.
    let mut plain = params(64);
    plain.tactics.enabled = false;
    let result = Search::new(position, plain, 1).run(&UniformEvaluator::default());
    assert!(result.candidates.len() > 300);
}

#[test]
fn under_poofs_and_boats_only_the_stops_of_a_four_are_searched() {
    // Black's K19-N19 on the edge, closed by White's J19: O19 alone stops
    // the five, where the threat solver does not read.
    for variant in [Variant::PoofPente, Variant::BoatPente, Variant::OPente] {
        let position = replay(variant, "K10 N19 J19 L19 N11 M19 N13 K19");
        let result = Search::new(position.clone(), params(64), 1).run(&UniformEvaluator::default());
        let moves: Vec<Point> = result.candidates.iter().map(|c| c.point).collect();
        assert_eq!(moves, vec![p("O19")], "{variant:?}");
        let mut plain = params(64);
        plain.tactics.enabled = false;
        let result = Search::new(position, plain, 1).run(&UniformEvaluator::default());
        assert!(result.candidates.len() > 300, "{variant:?}");
    }
}

#[test]
fn the_chooser_takes_the_better_colour() {
    let heuristic = HeuristicEvaluator::default();
    // D-Pente: White's K10 L10 in the centre, Black's stones on the edge,
    // White to place stone 5: the second player swaps to take White.
    let d = replay(Variant::DPente, "K10 A1 L10 A3");
    let result = Search::new(d.clone(), params(200), 1).run(&heuristic);
    assert_eq!(result.best_move, Some(Point::SWAP), "{:?}", result.candidates);
    let value = |choice: Point| result.candidates.iter().find(|c| c.point == choice).and_then(|c| c.value).unwrap();
    assert!(value(Point::SWAP) > value(Point::STAY), "{:?}", result.candidates);
    // Swap2 after a pass: White's open three, Black to place stone 6. The
    // first player, choosing, keeps White (stay) rather than take Black.
    let swap2 = replay(Variant::Swap2Pente, "K10 A1 L10 pass A3 M10");
    let result = Search::new(swap2, params(200), 1).run(&heuristic);
    assert_eq!(result.best_move, Some(Point::STAY), "{:?}", result.candidates);
    // The opener, placing stone 4 before the choice, gets the worse side.
    let opener = replay(Variant::DPente, "K10 A1 L10");
    let result = Search::new(opener, params(200), 1).run(&heuristic);
    assert!(result.value <= 0.0, "the opener cannot gain: {}", result.value);
    assert!(!result.best_move.unwrap().is_choice());
}

/// Priors that fall off geometrically with the distance from the centre;
/// a stone on K11 is worth a lot to its owner, nothing else matters.
struct Peaked;

impl Evaluator for Peaked {
    fn evaluate(&self, positions: &[&Position]) -> Vec<Evaluation> {
        positions
            .iter()
            .map(|position| {
                let size = position.rules().size();
                let centre = f32::from(size / 2);
                let policy = (0..usize::from(size) * usize::from(size))
                    .map(|i| {
                        let (x, y) = ((i % usize::from(size)) as f32, (i / usize::from(size)) as f32);
                        0.3f32.powf((x - centre).abs() + (y - centre).abs())
                    })
                    .collect();
                let value = if position.stone_at(p("K11")) == Some(position.to_move().opponent()) { -0.9 } else { 0.0 };
                Evaluation { policy, value }
            })
            .collect()
    }
    fn name(&self) -> String {
        "peaked".into()
    }
}

/// Forced playouts (self-play): every visited root move gets about
/// sqrt(k P N) of the root's N playouts, taken from the favourites, and the
/// training target takes back the ones a move did not earn.
#[test]
fn forced_playouts_widen_the_root_and_leave_the_target() {
    let position = position("K10 L9 K7");
    // Noise on, but no Dirichlet mass: the priors stay the evaluator's.
    let plain = SearchParams {
        noise: true,
        dirichlet_fraction: 0.0,
        visits: 400,
        leaves_per_call: 1,
        ..SearchParams::default()
    };
    let forced = SearchParams { forced_playouts: 2.0, ..plain.clone() };
    let without = Search::new(position.clone(), plain, 1).run(&Peaked);
    let with = Search::new(position.clone(), forced.clone(), 1).run(&Peaked);

    for c in with.candidates.iter().filter(|c| c.visits > 0 && c.proof == Proof::Unknown) {
        // Owed at the last playout's selection, when the root had one fewer.
        let owed = (2.0 * c.prior * (with.visits - 1) as f32).sqrt().floor();
        assert!(c.visits as f32 + 1.0 >= owed, "{} has {} of its {owed:.1} forced playouts", c.point, c.visits);
    }
    let most = |r: &pente_search::SearchResult| r.candidates.iter().map(|c| c.visits).max().unwrap();
    assert!(most(&with) < most(&without), "{} playouts of the favourite against {}", most(&with), most(&without));

    // Without forced playouts the target is the visit distribution.
    let raw_share = |r: &pente_search::SearchResult, point: Point| {
        let total: u32 = r.candidates.iter().map(|c| c.visits).sum();
        r.candidates.iter().find(|c| c.point == point).map_or(0.0, |c| c.visits as f32 / total as f32)
    };
    for &(point, share) in &without.policy_target {
        assert!((share - raw_share(&without, point)).abs() < 1e-6);
    }
    // With them, moves lose the playouts they did not earn (some all of
    // them): the favourite's share is no lower than without.
    let best = with.candidates.iter().max_by_key(|c| c.visits).unwrap().point;
    let target_share = |point| with.policy_target.iter().find(|&&(p, _)| p == point).map_or(0.0, |&(_, s)| s);
    assert!(target_share(best) > raw_share(&with, best) + 0.01);
    assert!(target_share(best) >= raw_share(&without, best));
    assert!(with.policy_target.len() < with.candidates.iter().filter(|c| c.visits > 0).count());
    assert!(
        with.policy_target.iter().all(|&(point, _)| with.candidates.iter().any(|c| c.point == point && c.visits >= 2))
    );
    assert!((with.policy_target.iter().map(|&(_, s)| s).sum::<f32>() - 1.0).abs() < 1e-5);

    // Outside self-play (no noise) they are off: the same search as without.
    let analysis = |k| SearchParams { noise: false, forced_playouts: k, ..forced.clone() };
    assert_eq!(
        Search::new(position.clone(), analysis(2.0), 1).run(&Peaked),
        Search::new(position, analysis(0.0), 1).run(&Peaked)
    );
}
