//! Each input format: `tests/data` holds the same 12 self-play games as
//! `games.csv`, `games.jsonl` and pente.org PGN.

use std::fs;
use std::path::{Path, PathBuf};

use pente_analysis::{Ending, GameSummary, InputError, ReportOptions, Stats, StatsOptions, read_games};
use pente_core::Rules;
use pente_records::{GameResult, pgn_games};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("pente-analysis-inputs");
    fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn games(path: &Path) -> Vec<GameSummary> {
    read_games(path).unwrap().collect::<Result<_, _>>().unwrap()
}

/// The games without their lines, which differ between formats.
fn facts(games: &[GameSummary]) -> Vec<(Rules, Vec<pente_core::Point>, Option<GameResult>, Ending)> {
    games.iter().map(|g| (g.rules, g.moves.clone(), g.result, g.ending)).collect()
}

#[test]
fn the_three_formats_hold_the_same_games() {
    let csv = games(&data("games.csv"));
    let jsonl = games(&data("games.jsonl"));
    let pgn = games(&data("games.pgn"));
    assert_eq!(csv.len(), 12);
    assert_eq!(facts(&csv), facts(&jsonl));
    assert_eq!(facts(&csv), facts(&pgn), "PGN games are replayed: five and captures come from the moves");
    assert_eq!(csv.iter().map(|g| g.line).collect::<Vec<_>>(), (2..14).collect::<Vec<_>>());
    assert_eq!(jsonl.iter().map(|g| g.line).collect::<Vec<_>>(), (1..13).collect::<Vec<_>>());
    assert_eq!(pgn[0].line, 1);
    assert_eq!(csv.iter().filter(|g| g.ending == Ending::Captures).count(), 2);
    assert!(csv.iter().any(|g| g.rules.size() == 13) && csv.iter().any(|g| g.rules.size() == 19));
}

#[test]
fn mixed_inputs_add_up() {
    let one = |path: PathBuf| {
        let mut stats = Stats::new(StatsOptions::default());
        stats.read_files(&[path], false, |_| {}).unwrap();
        stats.report(&ReportOptions::default())
    };
    let csv = one(data("games.csv"));
    let mut stats = Stats::new(StatsOptions::default());
    let skipped =
        stats.read_files(&[data("games.csv"), data("games.jsonl"), data("games.pgn")], false, |_| {}).unwrap();
    assert_eq!(skipped, 0);
    let all = stats.report(&ReportOptions::default());
    assert_eq!(all.games_read, 36);
    assert_eq!(all.overall[0].games, 3 * csv.overall[0].games);
    assert_eq!(all.overall[0].white, 3 * csv.overall[0].white);
    assert_eq!(all.overall[0].captures, 3 * csv.overall[0].captures);
    let (a, b) = (all.openings.unwrap(), csv.openings.unwrap());
    assert_eq!(a.len(), b.len());
    for (a, b) in a.iter().zip(&b) {
        assert_eq!(a.games, 3 * b.games);
    }
}

#[test]
fn formats_are_found_by_content_without_an_extension() {
    for name in ["games.csv", "games.jsonl", "games.pgn"] {
        let copy = scratch(&format!("{name}.data"));
        fs::copy(data(name), &copy).unwrap();
        assert_eq!(facts(&games(&copy)), facts(&games(&data(name))), "{name}");
    }
}

#[test]
fn pgn_resignations_forfeits_and_open_games() {
    let path = scratch("endings.pgn");
    fs::write(
        &path,
        "[Game \"Pente\"]\n[Result \"0-1\"]\n\n1. K10 L9 2. Resign 0-1\n\n\
         [Game \"Keryo-Pente\"]\n[Size \"13\"]\n[Result \"1-0\"]\n\n1. G7 H6 2. G4 Forfeit 1-0\n\n\
         [Game \"Pente\"]\n[Result \"?\"]\n\n1. K10 L9 2. K7 ?\n\n\
         [Game \"Pente\"]\n[Result \"1/2-1/2\"]\n\n1. K10 L9 2. K7 1/2-1/2\n",
    )
    .unwrap();
    let games = games(&path);
    let endings: Vec<(Option<GameResult>, Ending)> = games.iter().map(|g| (g.result, g.ending)).collect();
    assert_eq!(
        endings,
        vec![
            (Some(GameResult::Black), Ending::Resign),
            (Some(GameResult::White), Ending::Forfeit),
            (None, Ending::Unknown),
            (Some(GameResult::Draw), Ending::Unknown),
        ]
    );
    assert_eq!(games[1].rules.to_string(), "keryo/13");
    let mut stats = Stats::new(StatsOptions::default());
    stats.read_files(&[&path], false, |_| {}).unwrap();
    let report = stats.report(&ReportOptions::default());
    assert_eq!((report.games_read, report.no_result, report.games_counted), (4, 1, 3));
    let all = &report.overall[0];
    assert_eq!((all.resign, all.other, all.draws, all.five + all.captures), (1, 1, 1, 0));
}

/// A PGN file bigger than the reader's chunk, with broken games on both
/// sides of a chunk boundary, reads exactly as the whole-text parser does.
#[test]
fn large_pgn_files_read_in_chunks_as_a_whole() {
    let game = fs::read_to_string(data("games.pgn")).unwrap();
    let broken = "[Game \"Pente\"]\n[Result \"1-0\"]\n\n1. K10 K10 1-0\n\n";
    let unknown = "[Game \"Renju\"]\n[Result \"1-0\"]\n\n1. K10 L9 1-0\n\n";
    let mut text = String::new();
    let mut copies = 0;
    while text.len() < 3 << 20 {
        text.push_str(&game);
        copies += 1;
        if copies % 97 == 0 {
            text.push_str(broken);
            text.push_str(unknown);
        }
    }
    let path = scratch("large.pgn");
    fs::write(&path, &text).unwrap();

    let ours: Vec<Result<usize, (usize, bool)>> = read_games(&path)
        .unwrap()
        .map(|g| g.map(|g| g.line).map_err(|e: InputError| (e.line.unwrap(), e.message.contains("illegal"))))
        .collect();
    let whole: Vec<Result<usize, usize>> = pgn_games(&text).map(|g| g.map(|r| r.line).map_err(|e| e.line)).collect();
    assert_eq!(ours.len(), whole.len());
    for (a, b) in ours.iter().zip(&whole) {
        match (a, b) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            // The broken game parses but does not replay; the unknown game does not parse.
            (Err((a, true)), Ok(b)) | (Err((a, false)), Err(b)) => assert_eq!(a, b),
            other => panic!("{other:?}"),
        }
    }
    let errors = ours.iter().filter(|g| g.is_err()).count();
    assert_eq!(errors, 2 * (copies / 97));
    assert!(errors >= 4, "broken games on several chunks");
}
