//! What the book tests share: a tiny 9x9 book, the heuristic player, and
//! a book's games by node key.

#![allow(dead_code)] // each test file uses its own part

use std::collections::BTreeMap;
use std::path::Path;

use pente_book::{Book, BookSettings, build};
use pente_core::Variant;
use pente_search::{Evaluator, HeuristicEvaluator};

/// Six nodes of 9x9 Pente: the root, the centre and its replies within one
/// point; 10 games from the root, 3 from every other node.
pub fn tiny() -> BookSettings {
    let mut settings = BookSettings::new(Variant::Pente, 9);
    settings.expand.max_nodes = 6;
    settings.expand.max_depth = 3;
    settings.expand.children = 2;
    settings.expand.value_margin = 1.0;
    settings.expand.wide_depths = vec![1];
    settings.expand.wide_radius = 1;
    settings.evaluate.visits = 32;
    settings.play.visits = 8;
    settings.games.root = 10;
    settings.games.node = 3;
    settings.games.temperature_plies = 4;
    settings.games.in_flight = 4;
    settings
}

/// The heuristic player (deterministic: a build plays the same games however it is split).
pub fn heuristic(_threads: usize) -> Result<Box<dyn Evaluator>, String> {
    Ok(Box::new(HeuristicEvaluator::default()))
}

/// Builds (or goes on building) the book at `path` locally with the heuristic.
pub fn build_book(path: &Path, settings: &BookSettings) -> pente_book::Summary {
    let mut book = Book::create_or_open(path, settings, "heuristic").unwrap();
    build(&mut book, 2, &heuristic, &mut |_| {}).unwrap()
}

/// Every game of a book as (node key, game number) -> moves and winners.
pub fn games_by_key(book: &Book) -> BTreeMap<(String, u64), String> {
    let keys: BTreeMap<i64, String> = book.nodes().unwrap().into_iter().map(|n| (n.id, n.key)).collect();
    book.games(None)
        .unwrap()
        .into_iter()
        .map(|g| ((keys[&g.node].clone(), g.game), format!("{:?} {:?} {:?}", g.moves, g.winner, g.winner_seat)))
        .collect()
}
