//! `pente book`: a build killed mid-way and resumed, and the queries.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use pente_book::Book;
use pente_book::fairness::recount;

fn pente<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pente")).args(args).output().expect("run pente")
}

fn tiny_config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/book-tiny.toml")
}

/// `pente book build` of configs/book-tiny.toml into `book` with the
/// heuristic, and `more`.
fn tiny_build(config: &Path, book: &Path, more: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "book",
        "build",
        "--config",
        config.to_str().unwrap(),
        "--out",
        book.to_str().unwrap(),
        "--model",
        "heuristic",
    ]
    .map(String::from)
    .to_vec();
    args.extend(more.iter().map(|s| (*s).to_string()));
    args
}

/// Every game of the book by (node key, number): its moves and winner.
fn games(path: &Path) -> BTreeMap<(String, u64), String> {
    let Ok(book) = Book::open(path) else { return BTreeMap::new() };
    let keys: BTreeMap<i64, String> = book.nodes().unwrap().into_iter().map(|n| (n.id, n.key)).collect();
    book.games(None)
        .unwrap()
        .into_iter()
        .map(|g| ((keys[&g.node].clone(), g.game), format!("{:?} {:?}", g.moves, g.winner)))
        .collect()
}

#[test]
fn a_build_killed_mid_way_resumes_without_losing_or_repeating_a_game() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("tiny.sqlite");
    let config = tiny_config();
    let args = tiny_build(&config, &book, &["--root-games", "400", "--quiet"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_pente")).args(&args).stdout(Stdio::null()).spawn().unwrap();
    // Kill it (SIGKILL) once it has written some games, not all.
    let started = Instant::now();
    while games(&book).len() < 20 && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let status = child.wait().unwrap();
    let before = games(&book);
    assert!(!status.success(), "the build was killed before it ended ({} games)", before.len());
    assert!(!before.is_empty());

    let rerun = pente(&args);
    assert!(rerun.status.success(), "{}", String::from_utf8_lossy(&rerun.stderr));
    let after = games(&book);
    for (key, game) in &before {
        assert_eq!(after.get(key), Some(game), "a game written before the kill is kept as it was");
    }
    let opened = Book::open(&book).unwrap();
    let nodes = opened.nodes().unwrap();
    assert_eq!(nodes.len(), 6, "configs/book-tiny.toml's node budget");
    for node in &nodes {
        let want: u64 = if node.depth == 0 { 400 } else { 4 };
        assert_eq!(opened.game_numbers(node.id).unwrap(), (0..want).collect::<Vec<_>>(), "node {}", node.key);
    }
    let counted = recount(&opened).unwrap();
    for (node, tally) in opened.tallies().unwrap() {
        assert_eq!(counted[&node], tally);
    }
    // Nothing left to do: a third run plays no game.
    let again = pente(&args);
    assert!(String::from_utf8_lossy(&again.stdout).contains("(0 played now)"));

    // The queries.
    let show = pente(&["book", "show", book.to_str().unwrap(), "--moves", "E5", "--format", "json"]);
    assert!(show.status.success(), "{}", String::from_utf8_lossy(&show.stderr));
    let view: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
    assert_eq!(view["tally"]["games"], 4);
    assert!(!view["children"].as_array().unwrap().is_empty());
    let csv = pente(&["book", "show", book.to_str().unwrap(), "--format", "csv"]);
    assert!(String::from_utf8_lossy(&csv.stdout).starts_with("moves,move,games,"));
    let out = pente(&["book", "show", book.to_str().unwrap(), "--moves", "E5 A1"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not in the book"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let illegal = pente(&["book", "show", book.to_str().unwrap(), "--moves", "E5 E5"]);
    assert!(
        String::from_utf8_lossy(&illegal.stderr).contains("move 2"),
        "{}",
        String::from_utf8_lossy(&illegal.stderr)
    );
    let table = pente(&["book", "fairness", book.to_str().unwrap(), "--format", "csv"]);
    assert!(
        String::from_utf8_lossy(&table.stdout).contains("pente,9,heuristic"),
        "{}",
        String::from_utf8_lossy(&table.stdout)
    );
}

#[test]
fn bad_books_and_settings_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.sqlite");
    let out = pente(&["book", "show", missing.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("none.sqlite: no such book"));
    let out = pente(&["book", "build", "--out", missing.to_str().unwrap(), "--model", "heuristic"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--config"), "{}", String::from_utf8_lossy(&out.stderr));
    let config = dir.path().join("bad.toml");
    std::fs::write(&config, "variant = \"pente\"\nsize = 9\n[games]\ntemperature = -1\n").unwrap();
    let out = pente(&["book", "build", "--config", config.to_str().unwrap(), "--out", missing.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("games.temperature"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!missing.exists(), "no book is created from bad settings");
}

/// A build over a store: the coordinator killed once it has posted its
/// batches, a worker that plays them all meanwhile, and the coordinator run
/// again, which adds the worker's games and closes the project. The book
/// is the one a local build makes (the heuristic plays the same games).
#[test]
fn a_shared_build_takes_the_games_workers_played_while_it_was_down() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let (store_arg, config) = (store.to_str().unwrap(), tiny_config());
    let init = pente(&["store", "init", "--store", store_arg]);
    assert!(init.status.success(), "{}", String::from_utf8_lossy(&init.stderr));
    let book = dir.path().join("shared.sqlite");
    let args = tiny_build(&config, &book, &["--store", store_arg, "--no-play", "--poll", "0.1", "--quiet"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_pente")).args(&args).stdout(Stdio::null()).spawn().unwrap();
    let projects = store.join("projects");
    let started = Instant::now();
    while std::fs::read_dir(&projects).map_or(true, |mut d| d.next().is_none())
        && started.elapsed() < Duration::from_secs(60)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    assert!(!child.wait().unwrap().success(), "the coordinator was killed while it waited for workers");
    assert!(games(&book).is_empty(), "no worker had played yet");

    let work = pente(&["book", "work", "--store", store_arg, "--until-idle", "--quiet", "--id", "w1"]);
    let said = String::from_utf8_lossy(&work.stdout);
    assert!(work.status.success(), "{}", String::from_utf8_lossy(&work.stderr));
    assert!(said.contains("6 batches (32 games) committed"), "{said}");

    let rerun = pente(&args);
    let said = String::from_utf8_lossy(&rerun.stdout);
    assert!(rerun.status.success(), "{}", String::from_utf8_lossy(&rerun.stderr));
    assert!(said.contains("32 games (32 played now)") && said.contains("from w1 added"), "{said}");
    assert!(std::fs::read_dir(&projects).map_or(true, |mut d| d.next().is_none()), "the project is closed");

    let local = dir.path().join("local.sqlite");
    let out = pente(&tiny_build(&config, &local, &["--quiet"]));
    assert!(out.status.success());
    assert_eq!(games(&book), games(&local));

    let missing = dir.path().join("nowhere");
    let other = dir.path().join("other.sqlite");
    let args = tiny_build(&config, &other, &["--store", missing.to_str().unwrap()]);
    let out = pente(&args);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no store here"), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!other.exists(), "no book without its store");
}
