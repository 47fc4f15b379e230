//! Openings up to symmetry: every image of an opening has one key, and
//! transpositions merge when asked to.

use std::collections::HashSet;

use pente_analysis::canonical::{Stones, canonical_moves, canonical_stones, symmetries_between};
use pente_analysis::{Ending, GameSummary, ReportOptions, Stats, StatsOptions};
use pente_core::{Point, Rules, Symmetry, Variant, parse_move_list};
use pente_records::GameResult;
use proptest::prelude::*;

fn moves(text: &str) -> Vec<Point> {
    parse_move_list(text).unwrap()
}

fn image(moves: &[Point], symmetry: Symmetry, size: u8) -> Vec<Point> {
    moves.iter().map(|&p| symmetry.apply(p, size)).collect()
}

fn game(rules: Rules, moves: Vec<Point>, result: GameResult) -> GameSummary {
    GameSummary { rules, moves, result: Some(result), ending: Ending::Five, line: 0 }
}

#[test]
fn the_8_images_of_an_opening_have_one_key() {
    for (opening, size) in [("K10 L9 K7", 19), ("K10 M12 N9 L8", 19), ("K10 K11 K14", 19), ("G7 H6 G4", 13)] {
        let original = moves(opening);
        let (key, _) = canonical_moves(&original, size);
        let images: HashSet<Vec<Point>> = Symmetry::ALL.iter().map(|&s| image(&original, s, size)).collect();
        assert!(images.contains(&key), "{opening}: the key is one of its images");
        for symmetry in Symmetry::ALL {
            let (other, mapping) = canonical_moves(&image(&original, symmetry, size), size);
            assert_eq!(other, key, "{opening} under {symmetry}");
            assert_eq!(image(&image(&original, symmetry, size), mapping, size), key);
        }
    }
    // The key names the diagonal reply to the centre `L9`, the straight one `K9`.
    assert_eq!(canonical_moves(&moves("K10 J11"), 19).0, moves("K10 L9"));
    assert_eq!(canonical_moves(&moves("K10 J10"), 19).0, moves("K10 K9"));
}

#[test]
fn mirrored_games_count_as_one_opening() {
    let mut stats = Stats::new(StatsOptions { depth: 3, ..StatsOptions::default() });
    let rules = Rules::pente();
    let original = moves("K10 L9 K7 L8 K8 L7 K9 L10 K6");
    for (i, symmetry) in Symmetry::ALL.into_iter().enumerate() {
        let result = if i < 6 { GameResult::White } else { GameResult::Black };
        stats.add(&game(rules, image(&original, symmetry, 19), result)).unwrap();
    }
    stats.add(&game(rules, moves("K10 K9 K7"), GameResult::Black)).unwrap();
    let report = stats.report(&ReportOptions::default());
    let openings = report.openings.unwrap();
    assert_eq!(openings.len(), 2);
    assert_eq!((openings[0].key.as_str(), openings[0].games, openings[0].white), ("K10 L9 K7", 8, 6));
    assert_eq!((openings[1].key.as_str(), openings[1].games, openings[1].black), ("K10 K9 K7", 1, 1));
}

#[test]
fn transpositions_merge_only_when_asked() {
    let rules = Rules::pente();
    let a = moves("K10 L9 K7 L10 M7");
    let b = moves("K10 L10 K7 L9 M7");
    assert_eq!(Stones::after(rules, &a).unwrap(), Stones::after(rules, &b).unwrap());
    // The same stones seen in a mirror.
    let mirrored = image(&b, Symmetry::from_index(4), 19);
    for (merge, openings) in [(false, 2), (true, 1)] {
        let mut stats = Stats::new(StatsOptions { depth: 5, merge_transpositions: merge, ..StatsOptions::default() });
        stats.add(&game(rules, a.clone(), GameResult::White)).unwrap();
        stats.add(&game(rules, mirrored.clone(), GameResult::Black)).unwrap();
        let rows = stats.report(&ReportOptions::default()).openings.unwrap();
        assert_eq!(rows.len(), openings, "merge: {merge}");
        if merge {
            assert_eq!((rows[0].games, rows[0].white, rows[0].black), (2, 1, 1));
            assert!(rows[0].key.starts_with("W ") && rows[0].key.contains(" / B "), "{}", rows[0].key);
        }
    }
}

#[test]
fn captured_stones_are_not_part_of_a_transposition() {
    // White's K13 captures K11 K12: only K10 K13 K14 are left, all White's.
    let stones = Stones::after(Rules::pente(), &moves("K10 K11 K14 K12 K13")).unwrap();
    assert_eq!(stones.black, Vec::<Point>::new());
    assert_eq!(stones.white.len(), 3);
}

#[test]
fn the_explorer_maps_mirrored_games_back() {
    let rules = Rules::pente();
    let mut stats = Stats::new(StatsOptions { moves: Some(moves("K10 L9")), ..StatsOptions::default() });
    for text in ["K10 L9 M7 A1", "K10 J11 K7 A1", "K10 J9 K7", "K10 L9 M7", "K10 L9", "K10 K9 K7"] {
        stats.add(&game(rules, moves(text), GameResult::White)).unwrap();
    }
    let explorer = stats.report(&ReportOptions::default()).explorer.unwrap();
    assert_eq!(explorer.positions[0].games, 5, "K10 K9 does not reach K10 L9");
    assert_eq!(explorer.ended_there, 1);
    let mut next: Vec<(&str, u64)> = explorer.next.iter().map(|r| (r.key.as_str(), r.games)).collect();
    next.sort();
    // `K10 J11 K7` is `K10 L9 K13` turned by 180 degrees, and K13 is one
    // move with its mirror image G10 across the K10-L9 diagonal (the
    // position's own symmetry): the row names the one that sorts first.
    // `K10 J9 K7` mirrored left-right is `K10 L9 K7`.
    assert_eq!(symmetries_between(&moves("K10 L9"), &moves("K10 L9"), 19).count(), 2);
    assert_eq!(next, vec![("G10", 1), ("K7", 1), ("M7", 2)]);
    assert!(explorer.next.iter().all(|r| r.mover == Some(pente_core::Color::White)));
}

fn arb_opening(size: u8) -> impl Strategy<Value = Vec<Point>> {
    proptest::collection::vec((0..size, 0..size), 1..7).prop_map(|points| {
        let mut seen = HashSet::new();
        points.into_iter().map(|(x, y)| Point::new(x, y)).filter(|p| seen.insert(*p)).collect()
    })
}

proptest! {
    #[test]
    fn every_image_has_the_same_key(
        (size, opening) in prop_oneof![Just(7u8), Just(9u8), Just(13u8), Just(19u8)]
            .prop_flat_map(|size| (Just(size), arb_opening(size))),
        index in 0u8..8,
    ) {
        let symmetry = Symmetry::from_index(index);
        let (key, mapping) = canonical_moves(&opening, size);
        prop_assert_eq!(image(&opening, mapping, size), key.clone());
        prop_assert_eq!(canonical_moves(&image(&opening, symmetry, size), size).0, key);

        let half = opening.len() / 2;
        let stones = Stones::after(Rules::new(Variant::Gomoku, size).unwrap(), &opening).unwrap();
        prop_assert_eq!(stones.white.len() + stones.black.len(), opening.len());
        let (stone_key, _) = canonical_stones(&stones, size);
        prop_assert_eq!(canonical_stones(&stones.mapped(symmetry, size), size).0, stone_key);
        prop_assert!(stones.black.len() == half);
    }
}
