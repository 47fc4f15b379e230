//! Self-play datasets: `games.csv` and `games.jsonl` golden files, round
//! trips, streaming, and every kind of bad row or line.
//!
//! `tests/data/games.csv` and `games.jsonl` hold the same four legal games,
//! one for each way a game ends (resign, captures, five, full board), made
//! with
//!
//! ```text
//! cargo run -p pente-records --example random_games -- keryo/11,pente/13,pente,gomoku/7 4 7 70 csv
//! cargo run -p pente-records --example random_games -- keryo/11,pente/13,pente,gomoku/7 4 7 70 jsonl
//! ```
//!
//! and then frozen.

use std::io::{self, BufReader, Read};
use std::path::PathBuf;

use pente_core::{Color, IllegalMove, Point, Rules, Variant};
use pente_records::{
    CSV_HEADER, Conclusion, CsvGame, DATASET_SCHEMA, Format, GameEnd, GameReport, GameResult, JsonGame, ParseErrorKind,
    Summary, Termination, Verdict, Violation, csv_games, jsonl_games, open_games_csv, open_games_jsonl, parse_csv,
    parse_jsonl, validate_csv, validate_jsonl, validate_text, write_csv_header, write_csv_row, write_jsonl_game,
};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn read(name: &str) -> String {
    std::fs::read_to_string(data(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn csv_file() -> Vec<(usize, CsvGame)> {
    parse_csv(&read("games.csv")).unwrap()
}

fn jsonl_file() -> Vec<(usize, JsonGame)> {
    parse_jsonl(&read("games.jsonl")).unwrap()
}

fn pt(s: &str) -> Point {
    s.parse().unwrap()
}

/// What is wrong with a game that must be invalid.
fn violation(report: GameReport) -> Violation {
    match report.verdict {
        Ok(Verdict::Invalid(v)) => v,
        other => panic!("line {}: expected a violation, got {other:?}", report.line),
    }
}

/// The games of the golden file as one-game JSONL texts, to break one at a time.
fn json_line(game: &JsonGame) -> String {
    let mut out = Vec::new();
    write_jsonl_game(&mut out, game).unwrap();
    String::from_utf8(out).unwrap()
}

fn csv_text(games: &[&CsvGame]) -> String {
    let mut out = Vec::new();
    write_csv_header(&mut out).unwrap();
    for game in games {
        write_csv_row(&mut out, game).unwrap();
    }
    String::from_utf8(out).unwrap()
}

const CONCLUSIONS: [&str; 4] = [
    "unfinished: white resigned",
    "black won by captures at move 50",
    "black won by five at move 40",
    "draw (full) at move 49",
];

#[test]
fn the_golden_files_are_valid() {
    let csv = csv_file();
    assert_eq!(csv.iter().map(|(line, _)| *line).collect::<Vec<_>>(), [2, 3, 4, 5]);
    let jsonl = jsonl_file();
    assert_eq!(jsonl.iter().map(|(line, _)| *line).collect::<Vec<_>>(), [1, 2, 3, 4]);

    let text = read("games.csv");
    assert_eq!(Format::detect(&text), Format::Csv);
    let report = validate_text(&text, Format::Csv, Rules::pente());
    let text = read("games.jsonl");
    assert_eq!(Format::detect(&text), Format::Jsonl);
    let streamed: Vec<GameReport> =
        validate_jsonl(BufReader::new(std::fs::File::open(data("games.jsonl")).unwrap())).collect();
    for reports in [&report.games, &streamed] {
        let got: Vec<String> = reports
            .iter()
            .map(|g| match &g.verdict {
                Ok(Verdict::Valid(c)) => c.to_string(),
                other => panic!("line {}: {other:?}", g.line),
            })
            .collect();
        assert_eq!(got, CONCLUSIONS);
    }
    assert_eq!(report.summary(), Summary { games: 4, valid: 4, invalid: 0, unfinished: 1 });
    assert!(matches!(
        report.games[0].verdict,
        Ok(Verdict::Valid(Conclusion::Terminated(Termination::Resign { by: Color::White })))
    ));
    // The files cover the rules and fields they should.
    let (_, json) = &jsonl[1];
    assert_eq!(json.schema, DATASET_SCHEMA);
    assert_eq!(json.rules, Rules::new(Variant::Pente, 13).unwrap());
    assert_eq!(json.reason, GameEnd::Captures);
    assert!(json.resign_check.is_some() && jsonl[0].1.resign_check.is_none());
    assert!(json.moves[0].policy.is_empty() && !json.moves[1].policy.is_empty());
}

#[test]
fn csv_and_jsonl_hold_the_same_games() {
    let csv = csv_file();
    let jsonl = jsonl_file();
    assert_eq!(csv.len(), jsonl.len());
    for ((_, row), (_, json)) in csv.iter().zip(&jsonl) {
        assert_eq!(&CsvGame::from_json(json), row);
        assert_eq!(row.to_record(0).unwrap(), json.to_record(0));
    }
}

#[test]
fn golden_round_trips() {
    let text = read("games.csv");
    let mut out = Vec::new();
    write_csv_header(&mut out).unwrap();
    for game in csv_games(text.as_bytes()) {
        write_csv_row(&mut out, &game.unwrap().1).unwrap();
    }
    assert_eq!(String::from_utf8(out).unwrap(), text);

    let text = read("games.jsonl");
    let mut out = Vec::new();
    for game in jsonl_games(text.as_bytes()) {
        write_jsonl_game(&mut out, &game.unwrap().1).unwrap();
    }
    assert_eq!(String::from_utf8(out).unwrap(), text);
}

#[test]
fn writers_write_one_line_per_game() {
    let (_, mut game) = csv_file().remove(2);
    game.white = "net \"a\", v2".into();
    let mut out = Vec::new();
    write_csv_row(&mut out, &game).unwrap();
    let row = String::from_utf8(out).unwrap();
    assert!(row.starts_with("2,pente,19,\"net \"\"a\"\", v2\",random,"), "{row}");
    assert_eq!(row.matches('\n').count(), 1);
    assert!(row.ends_with('\n'));
    let again = parse_csv(&format!("{CSV_HEADER}\n{row}")).unwrap();
    assert_eq!(again, [(2, game.clone())]);

    game.black = "two\nlines".into();
    let mut out = Vec::new();
    let err = write_csv_row(&mut out, &game).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    assert!(err.to_string().contains("`black`"), "{err}");
    assert!(out.is_empty());

    let mut out = Vec::new();
    write_csv_header(&mut out).unwrap();
    assert_eq!(out, format!("{CSV_HEADER}\n").as_bytes());

    let (_, mut json) = jsonl_file().remove(0);
    let line = json_line(&json);
    assert_eq!(line.matches('\n').count(), 1);
    assert!(line.ends_with("}\n"));
    json.moves[3].policy[0].1 = f32::NAN;
    let mut out = Vec::new();
    let err = write_jsonl_game(&mut out, &json).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    assert!(err.to_string().contains("move 4"), "{err}");
    assert!(out.is_empty());
}

#[test]
fn csv_errors_name_the_line_and_reading_goes_on() {
    let good = &csv_file()[2].1;
    let row = csv_text(&[good]).lines().nth(1).unwrap().to_string();
    let text = [
        CSV_HEADER.to_string(),
        row.clone(),
        String::new(),
        "2,pente,19,a,b,white,five".to_string(),
        row.replacen(",pente,", ",renju,", 1),
        row.replacen(",19,", ",12,", 1),
        row.replacen(" K4 ", " Z99 ", 1),
        row.replacen(",40,", ",forty,", 1),
        row.replacen(",five,", ",won,", 1),
        row.replacen(",random,", ",\"random,", 1),
        format!("{row},extra"),
        row.clone(),
    ]
    .join("\r\n");
    let games: Vec<_> = csv_games(text.as_bytes()).collect();
    let lines: Vec<usize> = games.iter().map(|g| g.as_ref().map_or_else(|e| e.line, |g| g.0)).collect();
    assert_eq!(lines, [2, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    assert_eq!(games[0].as_ref().unwrap().1, *good);
    assert_eq!(games[9].as_ref().unwrap().1, *good);
    let errors: Vec<String> = games[1..9].iter().map(|g| g.as_ref().unwrap_err().to_string()).collect();
    assert_eq!(errors[0], "line 4: expected 11 comma-separated fields, found 7");
    assert!(errors[1].starts_with("line 5: column `variant`: `renju`: unknown variant `renju`"), "{}", errors[1]);
    assert!(errors[2].starts_with("line 6: bad board size `12`"), "{}", errors[2]);
    assert!(errors[3].starts_with("line 7: move 9: `Z99` is not a move"), "{}", errors[3]);
    assert_eq!(errors[4], "line 8: column `plies`: `forty`: invalid digit found in string");
    assert!(errors[5].starts_with("line 9: column `reason`: `won`: unknown variant `won`"), "{}", errors[5]);
    assert_eq!(errors[6], "line 10: not a CSV row: a quoted field is not closed on this line");
    assert_eq!(errors[7], "line 11: expected 11 comma-separated fields, found 12");
    let kind = &games[4].as_ref().unwrap_err().kind;
    assert!(matches!(kind, ParseErrorKind::BadMove { ply: 9, token, .. } if token == "Z99"), "{kind:?}");
    // The CSV reader's error is kept behind a bad field.
    let ParseErrorKind::BadField { source, .. } = &games[5].as_ref().unwrap_err().kind else { panic!("{games:?}") };
    assert!(source.error().downcast_ref::<csv::DeserializeError>().is_some(), "{source:?}");

    // The validator reports the same, with game numbers.
    let report = validate_text(&text, Format::Csv, Rules::pente());
    assert_eq!(report.summary(), Summary { games: 10, valid: 2, invalid: 8, unfinished: 0 });
    assert_eq!((report.games[1].number, report.games[1].line), (2, 4));
}

#[test]
fn a_csv_needs_its_header() {
    let row = csv_text(&[&csv_file()[0].1]).lines().nth(1).unwrap().to_string();
    let games: Vec<_> = csv_games(format!("{row}\n{row}\n").as_bytes()).collect();
    assert_eq!(games.len(), 1, "nothing is read after a bad header");
    let err = games[0].as_ref().unwrap_err();
    assert_eq!(err.line, 1);
    assert!(err.to_string().starts_with("line 1: the first line must be the header `game_id,variant,"), "{err}");
    let other = CSV_HEADER.replace("plies", "moves_played");
    let err = parse_csv(&format!("\n{other}\n{row}\n")).unwrap_err();
    assert_eq!(err.line, 2);
    assert!(matches!(err.kind, ParseErrorKind::CsvHeader { ref found, .. } if *found == other));
    // A byte order mark and CRLF line ends are fine; an empty file has no games.
    assert_eq!(parse_csv(&format!("\u{feff}{CSV_HEADER}\r\n{row}\r\n")).unwrap().len(), 1);
    assert_eq!(parse_csv("").unwrap(), []);
    assert_eq!(parse_csv(&format!("{CSV_HEADER}\n")).unwrap(), []);
}

#[test]
fn jsonl_errors_name_the_line_and_reading_goes_on() {
    let good = &jsonl_file()[2].1;
    let line = json_line(good);
    let line = line.trim_end();
    let text = [
        line.to_string(),
        "   ".to_string(),
        "{\"schema\": 1, \"game_id\": ".to_string(),
        line.replacen("\"plies\"", "\"plys\"", 1),
        line.replacen("\"schema\":1", "\"schema\":2", 1).replacen("\"seed\"", "\"new_field\":true,\"seed\"", 1),
        line.replacen("\"schema\":1", "\"schema\":0", 1),
        line.replacen("\"move\":\"K10\"", "\"move\":\"Z99\"", 1),
        line.replacen("\"rules\":\"pente\"", "\"rules\":\"renju\"", 1),
        "[1, 2]".to_string(),
        line.to_string(),
    ]
    .join("\n");
    let games: Vec<_> = jsonl_games(text.as_bytes()).collect();
    let lines: Vec<usize> = games.iter().map(|g| g.as_ref().map_or_else(|e| e.line, |g| g.0)).collect();
    assert_eq!(lines, [1, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert_eq!(games[0].as_ref().unwrap().1, *good);
    assert_eq!(games[8].as_ref().unwrap().1, *good);
    let errors: Vec<String> = games[1..8].iter().map(|g| g.as_ref().unwrap_err().to_string()).collect();
    assert!(errors[0].starts_with("line 3: not a game object: EOF while parsing"), "{}", errors[0]);
    assert!(errors[1].starts_with("line 4: not a game object: unknown field `plys`"), "{}", errors[1]);
    assert!(errors[1].ends_with(&format!("(column {})", line.find("\"plies\"").unwrap() + 6)), "{}", errors[1]);
    assert_eq!(errors[2], "line 5: schema 2 is newer than 1, the newest this version of pente reads");
    assert_eq!(errors[3], "line 6: schema 0 does not exist: versions start at 1");
    assert!(errors[4].contains("line 7: not a game object: `Z99`"), "{}", errors[4]);
    assert!(errors[5].contains("line 8: not a game object: unknown variant `renju`"), "{}", errors[5]);
    assert_eq!(errors[6], "line 9: not a game object: a line must be a JSON object `{...}` (column 1)");
    // serde_json's error is kept; it displays without its position, which
    // would name line 1 of the one line it was given.
    let ParseErrorKind::BadJson { source, .. } = &games[2].as_ref().unwrap_err().kind else { panic!("{games:?}") };
    let json = source.error().downcast_ref::<serde_json::Error>().expect("a JSON error");
    assert!(json.is_data() && json.to_string().contains(" at line 1 column "), "{json}");
    assert!(source.to_string().starts_with("unknown field `plys`") && !source.to_string().contains(" at line "));
}

#[test]
fn jsonl_lines_that_are_not_text() {
    let line = json_line(&jsonl_file()[3].1);
    let mut bytes = format!("\u{feff}{line}\r\n").into_bytes();
    bytes.extend_from_slice(b"{\"white\": \"\xff\"}\n");
    bytes.extend_from_slice(line.as_bytes());
    let games: Vec<_> = jsonl_games(bytes.as_slice()).collect();
    assert_eq!(games.len(), 3);
    assert!(games[0].is_ok() && games[2].is_ok());
    let err = games[1].as_ref().unwrap_err();
    assert_eq!(err.line, 3);
    assert_eq!(err.kind, ParseErrorKind::NotUtf8 { byte: 11 });
}

/// A reader that fails after some bytes, as a disk might.
struct Failing<'a>(&'a [u8]);

impl Read for Failing<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.0.is_empty() {
            return Err(io::Error::other("disk on fire"));
        }
        let n = self.0.read(buf)?;
        Ok(n)
    }
}

#[test]
fn io_errors_end_the_reading() {
    let text = read("games.jsonl");
    let first = text.lines().next().unwrap().len() + 1;
    let games: Vec<_> = jsonl_games(BufReader::new(Failing(&text.as_bytes()[..first]))).collect();
    assert_eq!(games.len(), 2);
    assert!(games[0].is_ok());
    let err = games[1].as_ref().unwrap_err();
    assert_eq!(err.to_string(), "line 2: cannot read: disk on fire");
    // The I/O error itself is kept.
    let ParseErrorKind::Read { source } = &err.kind else { panic!("{err:?}") };
    let io = source.error().downcast_ref::<io::Error>().expect("an I/O error");
    assert_eq!((io.kind(), io.to_string()), (io::ErrorKind::Other, "disk on fire".to_string()));

    let text = read("games.csv");
    let games: Vec<_> = csv_games(BufReader::new(Failing(text.as_bytes()))).collect();
    assert_eq!(games.len(), 5);
    assert!(games[..4].iter().all(Result::is_ok));
    assert_eq!(games[4].as_ref().unwrap_err().line, 6);
}

/// `count` copies of a line, made as they are read: no file, no big string.
struct Repeat {
    line: Vec<u8>,
    count: usize,
    at: usize,
}

impl Read for Repeat {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.count == 0 {
            return Ok(0);
        }
        let n = buf.len().min(self.line.len() - self.at);
        buf[..n].copy_from_slice(&self.line[self.at..self.at + n]);
        self.at += n;
        if self.at == self.line.len() {
            self.at = 0;
            self.count -= 1;
        }
        Ok(n)
    }
}

#[test]
fn reading_streams() {
    let line = json_line(&jsonl_file()[2].1).into_bytes();
    let input = BufReader::new(Repeat { line, count: 1000, at: 0 });
    let mut summary = Summary::default();
    for report in validate_jsonl(input) {
        summary.count(&report);
    }
    assert_eq!(summary, Summary { games: 1000, valid: 1000, invalid: 0, unfinished: 0 });

    let row = csv_text(&[&csv_file()[1].1]).lines().nth(1).unwrap().to_string() + "\n";
    let header = format!("{CSV_HEADER}\n");
    let reader = header.as_bytes().chain(Repeat { line: row.into_bytes(), count: 1000, at: 0 });
    let last = validate_csv(BufReader::new(reader)).last().unwrap();
    assert!(last.is_valid());
    assert_eq!((last.number, last.line), (1000, 1001));
}

/// Validates the one game of a JSONL line.
fn check_json(game: &JsonGame) -> GameReport {
    let mut reports: Vec<GameReport> = validate_jsonl(json_line(game).as_bytes()).collect();
    assert_eq!(reports.len(), 1);
    reports.remove(0)
}

/// Validates the one game of a CSV row (after the header: line 2).
fn check_csv(game: &CsvGame) -> GameReport {
    let mut reports: Vec<GameReport> = validate_csv(csv_text(&[game]).as_bytes()).collect();
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].line, 2);
    reports.remove(0)
}

#[test]
fn summaries_must_agree_with_the_replay() {
    let games = jsonl_file();
    let [resigned, captures, five, full] = [0, 1, 2, 3].map(|i| games[i].1.clone());

    let mut game = five.clone();
    game.plies = 41;
    assert_eq!(violation(check_json(&game)), Violation::PliesMismatch { stated: 41, played: 40 });
    assert_eq!(violation(check_json(&game)).to_string(), "plies is 41 but the game has 40 stones");

    let mut game = captures.clone();
    game.captures.black = 8;
    let v = Violation::CapturesMismatch { color: Color::Black, stated: 8, replayed: 10 };
    assert_eq!(violation(check_json(&game)), v);
    assert_eq!(v.to_string(), "black captures are 8 but the replay gives 10");

    let mut game = captures.clone();
    game.reason = GameEnd::Five;
    let v = violation(check_json(&game));
    assert!(matches!(&v, Violation::ReasonContradicts { stated: GameEnd::Five, end: 50, .. }), "{v:?}");
    assert_eq!(v.to_string(), "reason five contradicts the rules: black won by captures at move 50");

    let mut game = full.clone();
    game.reason = GameEnd::Five;
    assert!(matches!(violation(check_json(&game)), Violation::ReasonContradicts { .. }));

    // Stopping early: the rules have not ended the game.
    let mut game = five.clone();
    game.moves.truncate(30);
    game.plies = 30;
    game.captures.black = 0;
    let v = violation(check_json(&game));
    assert_eq!(v, Violation::ReasonUnfinished { stated: GameEnd::Five, plies: 30 });
    assert_eq!(v.to_string(), "reason five, but the rules have not ended the game after 30 moves");

    // The winner must be the rules' winner.
    let mut game = five.clone();
    game.result = GameResult::White;
    assert!(matches!(violation(check_json(&game)), Violation::ResultContradicts { .. }));

    // Resignation needs an unfinished game and a winner.
    let mut game = five.clone();
    game.reason = GameEnd::Resign;
    let v = violation(check_json(&game));
    assert!(matches!(&v, Violation::TerminationAfterEnd { termination: Termination::Resign { by: Color::White }, .. }));
    let mut game = resigned.clone();
    game.result = GameResult::Draw;
    assert_eq!(violation(check_json(&game)), Violation::ResignWithoutWinner);

    // The same checks on CSV rows, which name their line.
    let (_, row) = csv_file().remove(1);
    let mut bad = row.clone();
    bad.white_captures = 7;
    let report = check_csv(&bad);
    assert_eq!(violation(report), Violation::CapturesMismatch { color: Color::White, stated: 7, replayed: 6 });
    let mut bad = row.clone();
    bad.plies = 0;
    assert!(matches!(violation(check_csv(&bad)), Violation::PliesMismatch { stated: 0, played: 50 }));
    let mut bad = row;
    bad.reason = GameEnd::Full;
    assert!(matches!(violation(check_csv(&bad)), Violation::ReasonContradicts { stated: GameEnd::Full, .. }));
}

#[test]
fn illegal_moves_are_caught() {
    let (_, mut game) = jsonl_file().remove(2);
    game.moves[5].point = game.moves[2].point;
    let v = violation(check_json(&game));
    assert!(matches!(&v, Violation::Illegal { ply: 6, reason: IllegalMove::Occupied { .. }, .. }), "{v:?}");

    // Off a smaller board: the CSV row parses, the replay rejects it.
    let (_, mut row) = csv_file().remove(3);
    row.moves = row.moves.replacen("C6", "T19", 1);
    let report = check_csv(&row);
    let v = violation(report);
    assert!(matches!(&v, Violation::Illegal { ply: 2, reason: IllegalMove::OffBoard { size: 7, .. }, .. }), "{v:?}");
}

#[test]
fn policies_cover_legal_points_with_sane_probabilities() {
    let (_, game) = jsonl_file().remove(2);

    // A policy over a stone already on the board.
    let mut bad = game.clone();
    bad.moves[4].policy.push((game.moves[0].point, 0.0));
    let v = violation(check_json(&bad));
    assert_eq!(
        v,
        Violation::PolicyIllegal { ply: 5, point: pt("K10"), reason: IllegalMove::Occupied { point: pt("K10") } }
    );
    assert_eq!(v.to_string(), "move 5: the policy covers an illegal point: K10: the point is occupied");

    // Off the board, and against the tournament rule on move 3.
    let mut bad = game.clone();
    bad.moves[1].policy.push((pt("T25"), 0.1));
    assert!(matches!(
        violation(check_json(&bad)),
        Violation::PolicyIllegal { ply: 2, reason: IllegalMove::OffBoard { .. }, .. }
    ));
    let mut bad = game.clone();
    bad.moves[2].policy.push((pt("K11"), 0.1));
    assert!(matches!(
        violation(check_json(&bad)),
        Violation::PolicyIllegal { ply: 3, reason: IllegalMove::Opening { .. }, .. }
    ));

    // Negative or out-of-range probabilities (JSON has no NaN; 1e39 is past
    // f32, which the exact float reader refuses, naming line and column).
    let mut bad = game.clone();
    bad.moves[6].policy[0].1 = -0.25;
    let v = violation(check_json(&bad));
    assert!(matches!(&v, Violation::BadProbability { ply: 7, probability, .. } if probability == "-0.25"), "{v:?}");
    assert!(v.to_string().contains("not a finite non-negative number"), "{v}");
    let line = json_line(&game).replacen("0.5]", "1e39]", 1);
    let report = validate_jsonl(line.as_bytes()).next().unwrap();
    let error = report.verdict.unwrap_err().to_string();
    assert!(error.contains("line 1") && error.contains("number out of range"), "{error}");
}

#[test]
fn validation_problems_name_the_line() {
    let games = jsonl_file();
    let mut broken = games[1].1.clone();
    broken.plies += 1;
    let text = [json_line(&games[0].1), "\n".to_string(), json_line(&broken), json_line(&games[2].1)].concat();
    let report = validate_text(&text, Format::detect(&text), Rules::pente());
    assert_eq!(report.format, Format::Jsonl);
    assert_eq!(report.summary().to_string(), "3 games: 2 valid, 1 invalid (1 unfinished)");
    let bad = &report.games[1];
    assert_eq!((bad.number, bad.line), (2, 3));
    assert_eq!(bad.problem().unwrap(), "plies is 51 but the game has 50 stones");
}

#[test]
fn appending_to_dataset_files() {
    let dir = std::env::temp_dir().join(format!("pente-records-append-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv_path = dir.join("games.csv");
    let jsonl_path = dir.join("games.jsonl");
    let _ = std::fs::remove_file(&csv_path);
    let _ = std::fs::remove_file(&jsonl_path);
    let csv = csv_file();
    let jsonl = jsonl_file();
    for (i, ((_, row), (_, json))) in csv.iter().zip(&jsonl).enumerate() {
        // Reopened for every game, as a run that is stopped and resumed.
        let mut file = open_games_csv(&csv_path).unwrap();
        write_csv_row(&mut file, row).unwrap();
        let mut file = open_games_jsonl(&jsonl_path).unwrap();
        write_jsonl_game(&mut file, json).unwrap();
        assert_eq!(std::fs::read_to_string(&csv_path).unwrap().lines().count(), i + 2);
    }
    assert_eq!(std::fs::read_to_string(&csv_path).unwrap(), read("games.csv"));
    assert_eq!(std::fs::read_to_string(&jsonl_path).unwrap(), read("games.jsonl"));

    // A cut-off last line or another header is refused, not appended to.
    std::fs::write(&jsonl_path, &read("games.jsonl")[..100]).unwrap();
    let err = open_games_jsonl(&jsonl_path).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    assert!(err.to_string().contains("incomplete"), "{err}");
    std::fs::write(&csv_path, "game_id,moves\n1,K10\n").unwrap();
    let err = open_games_csv(&csv_path).unwrap_err();
    assert!(err.to_string().contains("header"), "{err}");
    std::fs::write(&csv_path, "").unwrap();
    drop(open_games_csv(&csv_path).unwrap());
    assert_eq!(std::fs::read_to_string(&csv_path).unwrap(), format!("{CSV_HEADER}\n"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn nothing_panics_on_damaged_files() {
    // Bytes spread over the start of each file replaced in turn by a few
    // troublemakers, and the files cut short there.
    for (name, format) in [("games.csv", Format::Csv), ("games.jsonl", Format::Jsonl)] {
        let text = read(name);
        let bytes = text.as_bytes();
        for at in (0..bytes.len()).step_by(11).take(80) {
            for with in [b'"', b',', b'\n', b'{', b'9', 0xff] {
                let mut damaged = bytes.to_vec();
                damaged[at] = with;
                let reports: Vec<GameReport> = match format {
                    Format::Csv => validate_csv(damaged.as_slice()).collect(),
                    _ => validate_jsonl(damaged.as_slice()).collect(),
                };
                assert!(!reports.is_empty());
            }
            let _ = validate_text(&String::from_utf8_lossy(&bytes[..at]), format, Rules::pente());
        }
    }
    for junk in
        ["{}", "{\"schema\": 4294967296}", "\u{0}", "\"", ",,,,,,,,,,", "[[[[", "{\"policy\": [[\"A1\", -1e999]]}"]
    {
        let _ = validate_text(junk, Format::Jsonl, Rules::pente());
        let _ = validate_text(&format!("{CSV_HEADER}\n{junk}"), Format::Csv, Rules::pente());
    }
}

#[test]
fn a_csv_row_is_its_whole_line() {
    // A carriage return inside a line is data, not the end of the row.
    let row = csv_text(&[&csv_file()[2].1]).lines().nth(1).unwrap().to_string();
    let err = parse_csv(&format!("{CSV_HEADER}\n{row}\rjunk,more\n")).unwrap_err();
    assert_eq!(err.line, 2);
    assert_eq!(err.kind, ParseErrorKind::FieldCount { expected: 11, found: 12 });
}
