//! Bad input: every error names the file and the line, nothing panics, and
//! bad records are skipped only when asked.

use std::fs;
use std::path::{Path, PathBuf};

use pente_analysis::{InputError, ReportOptions, Stats, StatsOptions};
use pente_core::IllegalMove;

const HEADER: &str = "game_id,variant,size,white,black,result,reason,plies,white_captures,black_captures,moves";

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("pente-analysis-errors");
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    path
}

fn row(id: u32, size: u8, result: &str, moves: &str) -> String {
    let plies = moves.split_whitespace().count();
    format!("{id},pente,{size},a,b,{result},five,{plies},0,0,{moves}\n")
}

const WIN: &str = "K10 L9 K7 L8 K8 L7 K9 L10 K6";

/// Reads `path` without skipping: the error.
fn first_error(path: &Path, options: StatsOptions) -> InputError {
    Stats::new(options).read_files(&[path], false, |_| {}).unwrap_err()
}

#[test]
fn a_bad_csv_row_names_file_line_and_column() {
    let text = format!("{HEADER}\n{}{}{}", row(0, 19, "white", WIN), row(1, 19, "whit", WIN), row(2, 19, "white", WIN));
    let path = scratch("bad-row.csv", &text);
    let error = first_error(&path, StatsOptions::default());
    let message = error.to_string();
    assert!(message.starts_with(&format!("{}:3: ", path.display())), "{message}");
    assert!(message.contains("column `result`") && message.contains("whit"), "{message}");

    let mut skipped = Vec::new();
    let mut stats = Stats::new(StatsOptions::default());
    let count = stats.read_files(&[&path], true, |e| skipped.push(e.line)).unwrap();
    assert_eq!((count, skipped), (1, vec![Some(3)]));
    assert_eq!(stats.report(&ReportOptions::default()).games_counted, 2);
}

#[test]
fn a_bad_header_stops_even_when_skipping() {
    let path = scratch("bad-header.csv", &format!("game,variant\n{}", row(0, 19, "white", WIN)));
    let error = Stats::new(StatsOptions::default()).read_files(&[&path], true, |_| {}).unwrap_err();
    assert_eq!(error.line, Some(1));
    assert!(error.fatal);
    assert!(error.to_string().contains("header"), "{error}");
}

#[test]
fn moves_off_the_board_are_errors_not_panics() {
    let path = scratch("off-board.csv", &format!("{HEADER}\n{}", row(0, 13, "white", "G7 T19 G4")));
    let error = first_error(&path, StatsOptions::default());
    assert_eq!(error.line, Some(2));
    assert!(error.message.contains("move 2: T19 is off the 13x13 board"), "{error}");
    assert!(error.source.is_none(), "a check of ours, no other error behind it");
    // Unchecked dataset rows are replayed only to merge transpositions.
    let path = scratch("illegal.csv", &format!("{HEADER}\n{}", row(0, 19, "white", "K10 K10 K7")));
    let mut stats = Stats::new(StatsOptions::default());
    stats.read_files(&[&path], false, |_| {}).unwrap();
    let error = first_error(&path, StatsOptions { merge_transpositions: true, ..StatsOptions::default() });
    assert_eq!(error.line, Some(2));
    assert!(error.message.contains("move 2 is illegal"), "{error}");
    let illegal = error.source.as_ref().and_then(|cause| cause.error().downcast_ref::<IllegalMove>());
    assert!(matches!(illegal, Some(IllegalMove::Occupied { .. })), "{error:?}");
    assert!(error.message.contains(&illegal.unwrap().to_string()), "{error}");
}

#[test]
fn a_bad_jsonl_line_names_its_line() {
    let good = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/games.jsonl")).unwrap();
    let first = good.lines().next().unwrap();
    let text = format!("{first}\n\n{}\n{first}\n", &first[..first.len() / 2]);
    let path = scratch("bad.jsonl", &text);
    let error = first_error(&path, StatsOptions::default());
    assert_eq!(error.line, Some(3), "blank lines count: {error}");
    assert!(error.to_string().starts_with(&format!("{}:3: not a game object", path.display())), "{error}");
}

#[test]
fn a_bad_pgn_game_names_the_line_it_starts_on() {
    let text = "[Game \"Pente\"]\n[Result \"1-0\"]\n\n1. K10 L9 2. K7 L8 3. K8 L7 4. K9 L10 5. K6 1-0\n\n\
                [Game \"Pente\"]\n[Result \"1-0\"]\n\n1. K10 L9 2. K8 L8 1-0\n\n\
                [Game \"Pente\"]\n[Result \"0-1\"]\n\n1. K10 L9 2. K7 L8 3. K8 L7 4. K9 L10 5. K6 0-1\n\n\
                [Game \"Pente\"]\n[Reslt 1-0]\n\n1. K10\n";
    let path = scratch("bad.pgn", text);
    let mut errors = Vec::new();
    Stats::new(StatsOptions::default()).read_files(&[&path], true, |e| errors.push(e.to_string())).unwrap();
    let place = path.display().to_string();
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(errors[0].starts_with(&format!("{place}:6: move 3 is illegal: K8")), "{}", errors[0]);
    assert!(errors[1].starts_with(&format!("{place}:11: the result 0-1 contradicts the moves")), "{}", errors[1]);
    assert!(errors[2].starts_with(&format!("{place}:17: bad header")), "{}", errors[2]);
}

#[test]
fn unreadable_and_unknown_files() {
    let missing = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-such-file.csv");
    let error = first_error(&missing, StatsOptions::default());
    assert_eq!(error.line, None);
    assert!(error.to_string().starts_with(&format!("{}: cannot open", missing.display())), "{error}");
    let io = error.source.as_ref().and_then(|cause| cause.error().downcast_ref::<std::io::Error>());
    assert_eq!(io.map(std::io::Error::kind), Some(std::io::ErrorKind::NotFound), "{error:?}");

    let path = scratch("moves.txt", "K10 L9 K7\n");
    let error = Stats::new(StatsOptions::default()).read_files(&[&path], true, |_| {}).unwrap_err();
    assert!(error.to_string().contains("not a games.csv, games.jsonl or pente.org PGN file"), "{error}");

    let path = scratch("binary.pgn", "");
    fs::write(&path, b"[Game \"Pente\"]\n\n1. K10 \xff\xfe\n").unwrap();
    let error = first_error(&path, StatsOptions::default());
    assert_eq!(error.line, Some(3));
    assert!(error.message.contains("UTF-8"), "{error}");
}

#[test]
fn games_built_in_code_with_off_board_moves_are_errors() {
    use pente_analysis::{Ending, GameSummary};
    use pente_core::{Point, Rules, Variant};
    let rules = Rules::new(Variant::Pente, 9).unwrap();
    let game = GameSummary {
        rules,
        moves: vec![Point::centre(9), Point::new(18, 18), Point::new(0, 0)],
        result: Some(pente_records::GameResult::White),
        ending: Ending::Five,
        line: 0,
    };
    for options in [
        StatsOptions::default(),
        StatsOptions { merge_transpositions: true, ..StatsOptions::default() },
        StatsOptions { moves: Some(vec![Point::centre(9)]), ..StatsOptions::default() },
    ] {
        let mut stats = Stats::new(options);
        let error = stats.add(&game).unwrap_err();
        assert_eq!(error, "move 2: T19 is off the 9x9 board");
        assert_eq!(stats.report(&ReportOptions::default()).games_read, 0, "not counted at all");
    }
}
