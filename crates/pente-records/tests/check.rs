//! Checking records against the rules, and validating whole files.

use std::path::PathBuf;

use pente_core::{Color, EndReason, IllegalMove, OpeningViolation, Rules, Variant};
use pente_records::{
    Conclusion, Format, GameRecord, GameResult, Summary, Termination, Verdict, Violation, check, parse_move_list_file,
    parse_pgn, validate_text,
};

fn read(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn conclusion(record: &GameRecord) -> Conclusion {
    match check(record) {
        Verdict::Valid(conclusion) => conclusion,
        Verdict::Invalid(violation) => panic!("game at line {}: {violation}", record.line),
    }
}

#[test]
fn the_pente_org_file_is_valid() {
    let games = parse_pgn(&read("pente_org.pgn")).unwrap();
    let got: Vec<String> = games.iter().map(|g| conclusion(g).to_string()).collect();
    assert_eq!(
        got,
        [
            "white won by five at move 43",
            "black won by captures at move 56",
            "white won by captures at move 81",
            "white won by five at move 15",
            "unfinished: black resigned",
            "unfinished (resignation or time), 0-1",
            "black won by five at move 44",
            "black won by captures at move 70",
            "white won by five at move 51",
            "unfinished: white forfeited",
            "unfinished, no result",
        ]
    );
    for game in &games {
        let c = conclusion(game);
        assert_eq!(c.result(), game.result, "line {}", game.line);
    }
}

#[test]
fn every_invalid_game_is_caught() {
    let games = parse_pgn(&read("invalid.pgn")).unwrap();
    let verdicts: Vec<(String, Violation)> = games
        .iter()
        .map(|g| match check(g) {
            Verdict::Invalid(v) => (g.header("Event").unwrap_or_default().to_string(), v),
            Verdict::Valid(c) => panic!("line {}: {c}, expected invalid", g.line),
        })
        .collect();
    assert_eq!(verdicts.len(), 9);
    for (label, violation) in &verdicts {
        let ok = match label.as_str() {
            "occupied point" => {
                matches!(violation, Violation::Illegal { ply: 11, reason: IllegalMove::Occupied { .. }, .. })
            }
            "tournament rule" => matches!(
                violation,
                Violation::Illegal {
                    ply: 3,
                    reason: IllegalMove::Opening { violation: OpeningViolation::TooClose { .. }, .. },
                    ..
                }
            ),
            "moves after five" => matches!(violation, Violation::AfterEnd { ply: 24, end: 23, .. }),
            "result contradicts five" => matches!(
                violation,
                Violation::ResultContradicts { stated: GameResult::White, outcome, .. }
                    if outcome.winner == Some(Color::Black) && outcome.reason == EndReason::Five
            ),
            "draw but black won" => {
                matches!(violation, Violation::ResultContradicts { stated: GameResult::Draw, .. })
            }
            "white resigns but wins" => matches!(
                violation,
                Violation::TerminationContradicts {
                    stated: GameResult::White,
                    termination: Termination::Resign { by: Color::White }
                }
            ),
            "resign after five" => matches!(violation, Violation::TerminationAfterEnd { .. }),
            "off the board" => {
                matches!(violation, Violation::Illegal { ply: 7, reason: IllegalMove::OffBoard { size: 13, .. }, .. })
            }
            "first move off centre" => matches!(
                violation,
                Violation::Illegal {
                    ply: 1,
                    reason: IllegalMove::Opening { violation: OpeningViolation::FirstNotCentre { .. }, .. },
                    ..
                }
            ),
            other => panic!("unexpected label {other}"),
        };
        assert!(ok, "{label}: {violation}");
    }
}

#[test]
fn violation_messages() {
    let games = parse_pgn(&read("invalid.pgn")).unwrap();
    let messages: Vec<String> = games
        .iter()
        .map(|g| match check(g) {
            Verdict::Invalid(v) => v.to_string(),
            Verdict::Valid(c) => c.to_string(),
        })
        .collect();
    assert_eq!(messages[0], "move 11 is illegal: H14: the point is occupied");
    assert_eq!(
        messages[1],
        "move 3 is illegal: K8: tournament rule: move 3 must be at least 3 points from the centre K10 in every direction"
    );
    assert_eq!(messages[2], "move 24 (A1) comes after the end of the game: white won by five at move 23");
    assert_eq!(messages[4], "result 1/2-1/2 contradicts the rules: black won by five at move 82");
    assert_eq!(messages[5], "result 1-0 contradicts the move list: white resigned");
}

#[test]
fn results_of_unfinished_games() {
    let rules = Rules::pente();
    let record = |text: &str| parse_move_list_file(text, rules).unwrap().remove(0);
    assert_eq!(conclusion(&record("K10 L9 K7")), Conclusion::Open);
    assert_eq!(conclusion(&record("K10 L9 K7 1-0")), Conclusion::Stated(GameResult::White));
    assert_eq!(conclusion(&record("K10 L9 K7 1/2-1/2")), Conclusion::Stated(GameResult::Draw));
    let resigned = conclusion(&record("K10 L9 K7 Resign"));
    assert_eq!(resigned, Conclusion::Terminated(Termination::Resign { by: Color::Black }));
    assert_eq!(resigned.result(), Some(GameResult::White));
    assert!(resigned.is_unfinished());
    assert!(conclusion(&record("K10 L9 K7 Resign 1-0")).is_unfinished());
    assert!(!check(&record("K10 L9 K7 Resign 0-1")).is_valid());
    assert!(!check(&record("K10 L9 K7 Resign 1/2-1/2")).is_valid());
    // Finished with no stated result is fine.
    let five = conclusion(&record("K10 L9 K7 L8 K8 L7 K9 L10 K6"));
    assert!(matches!(five, Conclusion::Finished { ply: 9, .. }) && !five.is_unfinished());
}

#[test]
fn real_pente_org_games_replay() {
    // Move texts of two pente.org games quoted in public code: one won by
    // five, one that ended without a token (resignation or time).
    let text = "[Game \"Pente\"]\n[Result \"1-0\"]\n\n\
        1. K10 M9 2. N10 M7 3. M8 O7 4. L10 J10 5. M10 O10 6. L9 N7 7. L7 P7 8. Q7 L11\n\
        9. L8 L6 10. K8 J9 11. J11 H12 12. J8 N8 13. H8 1-0\n\n\
        [Game \"Pente\"]\n[Result \"0-1\"]\n\n\
        1. K10 L10 2. K7 L6 3. L8 J6 4. M9 K6 5. N10 O11 6. M6 H6 7. G6 K8 8. J7 H7 9.\n\
        H5 L7 10. L5 K7 11. K5 J5 12. G8 M5 13. K5 G7 14. F8 K4 15. L3 J7 16. H7 G5 17.\n\
        L7 F9 18. L5 N7 19. J6 L4 0-1\n";
    let games = parse_pgn(text).unwrap();
    assert_eq!(conclusion(&games[0]).to_string(), "white won by five at move 25");
    assert_eq!(conclusion(&games[1]), Conclusion::Stated(GameResult::Black));
    // pente.org's wrapping is ours: the export is the text.
    assert_eq!(pente_records::write_pgn(&games), text);
}

#[test]
fn move_list_file() {
    let text = read("games.txt");
    let games = parse_move_list_file(&text, Rules::pente()).unwrap();
    let got: Vec<(usize, String)> = games.iter().map(|g| (g.line, conclusion(g).to_string())).collect();
    assert_eq!(
        got,
        [
            (3, "white won by five at move 23".to_string()),
            (4, "black won by five at move 98".to_string()),
            (7, "unfinished, no result".to_string()),
            (8, "unfinished: black resigned".to_string()),
        ]
    );
    // The same moves under other rules: gomoku has no captures, so stones
    // land on occupied points or the game ends early.
    let gomoku = Rules::new(Variant::Gomoku, 19).unwrap();
    let report = validate_text(&text, Format::detect(&text), gomoku);
    assert_eq!(report.format, Format::MoveList);
    assert!(!report.all_valid());
}

#[test]
fn validating_files() {
    let text = read("pente_org.pgn");
    let report = validate_text(&text, Format::detect(&text), Rules::pente());
    assert_eq!(report.format, Format::Pgn);
    assert_eq!(report.summary(), Summary { games: 11, valid: 11, invalid: 0, unfinished: 4 });
    assert!(report.games.iter().all(|g| g.problem().is_none()));

    let text = read("invalid.pgn");
    let report = validate_text(&text, Format::Pgn, Rules::pente());
    assert_eq!(report.summary().to_string(), "9 games: 0 valid, 9 invalid (0 unfinished)");
    assert_eq!(report.games[1].line, 7);
    assert_eq!(report.games[1].number, 2);

    let text = "[Game \"Pente\"]\n\n1. K10 L9\n\n[Game \"Pente\"]\n\n1. K10 I9\n\n[Game \"Pente\"]\n\n1. K10 K10\n";
    let report = validate_text(text, Format::detect(text), Rules::pente());
    let lines: Vec<(usize, Option<String>)> = report.games.iter().map(|g| (g.line, g.problem())).collect();
    assert_eq!(
        lines,
        [
            (1, None),
            (7, Some("move 2: `I9` is not a move (`I9`: a point starts with a column letter A-T (there is no I), as in K10)".into())),
            (9, Some("move 2 is illegal: K10: the point is occupied".into())),
        ]
    );
    assert_eq!(report.summary(), Summary { games: 3, valid: 1, invalid: 2, unfinished: 1 });
}

#[test]
fn nothing_panics_on_junk() {
    let junk = [
        "",
        "[",
        "[]",
        "[\"\"]",
        "[Game \"\"]",
        "[Game \"Pente\"]\n\n\u{0}\u{feff}",
        "[Game \"Pente\"]\n\n1.",
        "[Game \"Pente\"]\n\n99999999999999999999999. K10",
        "[Game \"Pente\"]\n\n1... K10",
        "[Game \"Pente\"]\n\nK10 Resign Resign",
        "[Size \"255\"]",
        "[Size \"0x0\"]",
        "\r\r\r[Game \"Pente\"]\r\r",
        "é[Game \"Pente\"]",
        "[Game \"Pente\"]\n\nK10 L9 K7 L8 K8 L7 K9 L10 K6 Z25 Y24 ?",
    ];
    for text in junk {
        for format in [Format::Pgn, Format::MoveList] {
            let _ = validate_text(text, format, Rules::pente());
        }
    }
}
