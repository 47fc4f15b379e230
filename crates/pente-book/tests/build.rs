//! Building books with the heuristic player: the tree, the games, the
//! resume, and the numbers against a recount.

mod common;

use std::collections::HashSet;

use common::{build_book, games_by_key, tiny};
use pente_book::Book;
use pente_book::fairness::{fairness, recount};
use pente_core::{Point, Rules, Variant, parse_move_list};

#[test]
fn a_book_grows_evaluates_and_plays_its_games() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("book.sqlite");
    let settings = tiny();
    let summary = build_book(&path, &settings);
    assert_eq!(summary.nodes, 6);
    let book = Book::open(&path).unwrap();
    let nodes = book.nodes().unwrap();
    assert!(nodes.iter().all(|n| n.evaluation.is_some()), "every node is evaluated");
    // The root, the forced centre, then the replies within one point of it:
    // the eight are two nodes up to symmetry (straight and diagonal).
    let depths: Vec<u32> = nodes.iter().map(|n| n.depth).collect();
    assert_eq!(depths.iter().filter(|&&d| d == 0).count(), 1);
    assert_eq!(depths.iter().filter(|&&d| d == 1).count(), 1);
    let wide: HashSet<String> = ["E5 E6", "E5 F6", "E5 D5", "E5 D4", "E5 F4"]
        .iter()
        .map(|m| pente_book::key::Located::after(book.rules(), &parse_move_list(m).unwrap()).unwrap().key)
        .collect();
    assert_eq!(wide.len(), 2);
    for key in &wide {
        assert!(book.node_by_key(key).unwrap().is_some(), "the wide reply {key} is a node");
    }
    // Games: the root's and three a node, each number once.
    let tallies = book.tallies().unwrap();
    for node in &nodes {
        let want = if node.depth == 0 { 10 } else { 3 };
        assert_eq!(book.game_numbers(node.id).unwrap(), (0..want).collect::<Vec<u64>>(), "node {}", node.key);
        assert_eq!(tallies[&node.id].games, want);
    }
    assert_eq!(summary.games, 10 + 5 * 3);
    // Each game starts with its node's moves and is a finished legal game.
    for game in book.games(None).unwrap() {
        let node = book.node(game.node).unwrap();
        assert_eq!(&game.moves[..node.moves.len()], &node.moves[..]);
        let end = pente_book::key::Located::after(book.rules(), &game.moves).unwrap();
        assert!(end.position.is_over());
        assert_eq!(end.position.outcome().unwrap().winner, game.winner);
    }
}

#[test]
fn the_numbers_agree_with_a_recount_of_the_games() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("book.sqlite");
    build_book(&path, &tiny());
    let book = Book::open(&path).unwrap();
    let sums = book.tallies().unwrap();
    let counted = recount(&book).unwrap();
    assert_eq!(sums.len(), counted.len());
    for (node, tally) in &counted {
        assert_eq!(&sums[node], tally);
        assert_eq!(tally.games, tally.white + tally.black + tally.draws);
        // No colour choice in Pente: the first player is White.
        assert_eq!(tally.first, tally.white);
    }
    let root = book.lookup(&[]).unwrap().unwrap();
    let line = fairness(&book, 3, 0).unwrap();
    assert_eq!(line.tally, root.tally);
    assert_eq!(line.openings.iter().map(|s| s.games).sum::<u64>(), root.tally.games);
}

#[test]
fn a_build_in_two_sittings_plays_the_same_games_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.sqlite");
    build_book(&whole, &tiny());
    // The first sitting stops early (fewer nodes and games, as a kill
    // would); the second, with the full budget, goes on.
    let parts = dir.path().join("parts.sqlite");
    let mut small = tiny();
    small.expand.max_nodes = 3;
    small.games.root = 4;
    small.games.node = 1;
    build_book(&parts, &small);
    let first = games_by_key(&Book::open(&parts).unwrap());
    let summary = build_book(&parts, &tiny());
    assert!(summary.games_played > 0 && summary.evaluated > 0);
    let second = games_by_key(&Book::open(&parts).unwrap());
    for (key, game) in &first {
        assert_eq!(second.get(key), Some(game), "a game of the first sitting is kept as it was");
    }
    assert_eq!(second, games_by_key(&Book::open(&whole).unwrap()));
    // A third run has nothing left to do.
    let again = build_book(&parts, &tiny());
    assert_eq!((again.evaluated, again.games_played), (0, 0));
}

#[test]
fn a_book_refuses_other_settings_and_other_players() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("book.sqlite");
    build_book(&path, &tiny());
    let mut other = tiny();
    other.play.visits = 9;
    let error = Book::create_or_open(&path, &other, "heuristic").err().unwrap().to_string();
    assert!(error.contains("play"), "{error}");
    let error = Book::create_or_open(&path, &tiny(), "campaign-8").err().unwrap().to_string();
    assert!(error.contains("built by heuristic"), "{error}");
    let not_a_book = dir.path().join("games.csv");
    std::fs::write(&not_a_book, "a,b\n1,2\n").unwrap();
    let error = Book::open(&not_a_book).err().unwrap().to_string();
    assert!(error.contains("games.csv"), "{error}");
}

#[test]
fn lookups_see_the_node_from_any_orientation_and_book_moves_are_legal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("book.sqlite");
    build_book(&path, &tiny());
    let book = Book::open(&path).unwrap();
    let rules = Rules::new(Variant::Pente, 9).unwrap();
    let a = book.lookup(&parse_move_list("E5 E6").unwrap()).unwrap().unwrap();
    let b = book.lookup(&parse_move_list("E5 D5").unwrap()).unwrap().unwrap();
    assert_eq!(a.id, b.id);
    assert_eq!(a.tally, b.tally);
    // The same child seen from the two boards: each is legal on its own board.
    for (view, moves) in [(&a, "E5 E6"), (&b, "E5 D5")] {
        let mut moves = parse_move_list(moves).unwrap();
        for child in &view.children {
            let mut next = moves.clone();
            next.push(child.point);
            assert!(pente_book::key::Located::after(rules, &next).is_ok());
        }
        let mut rng = <rand::rngs::SmallRng as rand::SeedableRng>::seed_from_u64(1);
        if let Some(point) = book.book_move(&moves, 0.0, &mut rng).unwrap() {
            moves.push(point);
            assert!(book.lookup(&moves).unwrap().is_some(), "a book move stays in the book");
        }
    }
    let out: Vec<Point> = parse_move_list("E5 A1").unwrap();
    assert!(book.lookup(&out).unwrap().is_none());
}
