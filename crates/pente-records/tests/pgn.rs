//! pente.org PGN import and export: golden files, round trips, errors.
//!
//! `tests/data/pente_org.pgn` is a multi-game file as pente.org writes it
//! (`\r\n`, 80-column wrapping) with some hand-made variations (other
//! wrapping, lower-case moves, `1.K10` without a space); its games are legal
//! games made by `examples/random_games.rs`. `pente_org.canonical.pgn` is its
//! export; run with `UPDATE_GOLDEN=1` to rewrite it after a deliberate change.

use std::path::PathBuf;

use pente_core::{Color, Game, Point, Rules, Variant};
use pente_records::{
    GameRecord, GameResult, ParseErrorKind, Termination, parse_pgn, pgn_games, write_pgn, write_pgn_game,
};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn read(name: &str) -> String {
    std::fs::read_to_string(data(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn pente_org() -> Vec<GameRecord> {
    parse_pgn(&read("pente_org.pgn")).unwrap()
}

/// Records without their line numbers, which depend on the file's layout.
fn without_lines(mut records: Vec<GameRecord>) -> Vec<GameRecord> {
    for record in &mut records {
        record.line = 0;
    }
    records
}

#[test]
fn golden_export() {
    let exported = write_pgn(&pente_org());
    let path = data("pente_org.canonical.pgn");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &exported).unwrap();
    }
    let golden = read("pente_org.canonical.pgn");
    if exported != golden {
        let line = exported.lines().zip(golden.lines()).position(|(a, b)| a != b);
        panic!("export differs from {} (first differing line: {line:?}); UPDATE_GOLDEN=1 rewrites it", path.display());
    }
}

#[test]
fn canonical_form_is_a_fixed_point() {
    let golden = read("pente_org.canonical.pgn");
    assert!(!golden.contains('\r'));
    assert!(golden.lines().all(|line| line.len() <= 80));
    assert_eq!(write_pgn(&parse_pgn(&golden).unwrap()), golden);
}

#[test]
fn import_export_import_round_trip() {
    let games = pente_org();
    let again = parse_pgn(&write_pgn(&games)).unwrap();
    assert_eq!(without_lines(again), without_lines(games));
}

#[test]
fn reads_every_game_with_its_rules_and_lines() {
    let games = pente_org();
    assert_eq!(games.len(), 11);
    let rules: Vec<String> = games.iter().map(|g| g.rules.to_string()).collect();
    // Unrated Pente (`[Rated "N"]`, games 2 and 7) is played without the
    // tournament rule on pente.org: free Pente.
    assert_eq!(
        rules,
        [
            "pente",
            "free-pente",
            "keryo",
            "gomoku",
            "pente",
            "pente",
            "free-pente/13",
            "free-pente",
            "gomoku-exact",
            "keryo",
            "pente"
        ]
    );
    assert_eq!(games[0].line, 1);
    assert_eq!(games[1].line, 22);
    let first = &games[0];
    assert_eq!(first.moves.len(), 43);
    assert_eq!(first.moves[..3], ["K10", "L9", "K7"].map(|p| p.parse::<Point>().unwrap()));
    assert_eq!(first.result, Some(GameResult::White));
    assert_eq!(first.header("Player 1 Name"), Some("alice"));
    assert_eq!(first.header("player 2 name"), Some("bob"));
    assert_eq!(first.headers.len(), 16);
}

#[test]
fn headers_stay_in_order_including_unknown_ones() {
    let games = pente_org();
    let names: Vec<&str> = games[9].headers.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names[0], "Game");
    assert_eq!(names[names.len() - 3..], ["Annotator", "Opening", "Result"]);
    assert_eq!(games[9].header("Game"), Some("Speed Keryo-Pente"));
    assert_eq!(games[9].header("Opening"), Some("K10 L9"));
    let exported = write_pgn_game_string(&games[9]);
    assert!(exported.starts_with("[Game \"Speed Keryo-Pente\"]\n[Site \"Pente.org\"]\n"));
    assert!(exported.contains("[Annotator \"uncle bob\"]\n[Opening \"K10 L9\"]\n[Result \"0-1\"]\n\n"));
}

fn write_pgn_game_string(record: &GameRecord) -> String {
    let mut out = String::new();
    write_pgn_game(record, &mut out);
    out
}

#[test]
fn terminations_results_and_odd_formatting() {
    let games = pente_org();
    assert_eq!(games[4].termination, Some(Termination::Resign { by: Color::Black }));
    assert_eq!(games[4].moves.len(), 41);
    assert!(write_pgn_game_string(&games[4]).ends_with(" Resign 1-0\n"));
    // Lower case, `1.k10` and one move pair per line read like the canonical form.
    assert_eq!(games[5].moves.len(), 50);
    assert_eq!(games[5].termination, None);
    assert_eq!(games[5].result, Some(GameResult::Black));
    assert_eq!(games[9].termination, Some(Termination::Forfeit { by: Color::White }));
    let words: Vec<String> = write_pgn_game_string(&games[9]).split_whitespace().map(String::from).collect();
    assert_eq!(words[words.len() - 3..], ["16.", "Forfeit", "0-1"], "White's resignation takes White's move number");
    assert_eq!(games[10].result, None);
    assert!(write_pgn_game_string(&games[10]).ends_with(" ?\n"), "pente.org's `?` is kept");
}

#[test]
fn same_games_with_lf_endings() {
    let crlf = read("pente_org.pgn");
    let lf = crlf.replace("\r\n", "\n");
    assert_eq!(parse_pgn(&lf).unwrap(), pente_org());
}

#[test]
fn export_follows_edited_fields() {
    let mut record = pente_org().remove(0);
    record.rules = Rules::new(Variant::Keryo, 13).unwrap();
    record.moves.truncate(2);
    record.result = None;
    let text = write_pgn_game_string(&record);
    assert!(text.starts_with("[Game \"Keryo-Pente\"]\n[Size \"13\"]\n[Site \"Pente.org\"]\n"), "{text}");
    assert!(text.contains("[Result \"*\"]\n"));
    assert!(text.ends_with("\n\n1. K10 L9 *\n"));
    let back = parse_pgn(&text).unwrap().remove(0);
    assert_eq!((back.rules, back.moves, back.result), (record.rules, record.moves, None));
}

#[test]
fn records_built_in_memory() {
    let game = Game::from_move_list(Rules::pente(), "K10 L9 K7 L8 K8 L7 K9 L10 K6").unwrap();
    let record = GameRecord::from_game(&game);
    assert_eq!(
        write_pgn(&[record]),
        "[Game \"Pente\"]\n[Result \"1-0\"]\n\n1. K10 L9 2. K7 L8 3. K8 L7 4. K9 L10 5. K6 1-0\n"
    );
    let small = GameRecord::new(Rules::new(Variant::Gomoku, 15).unwrap(), vec![Point::new(0, 0)]);
    assert_eq!(write_pgn(&[small]), "[Game \"Gomoku\"]\n[Size \"15\"]\n\n1. A1 *\n");
    // A game needs a header to be read back.
    let bare = GameRecord { headers: Vec::new(), ..GameRecord::new(Rules::pente(), Vec::new()) };
    assert_eq!(write_pgn(&[bare]), "[Game \"Pente\"]\n\n*\n");
}

#[test]
fn bad_move_token_names_its_line_and_move() {
    let text = "[Game \"Pente\"]\r\n[Result \"1-0\"]\r\n\r\n1. K10 L9 2. K7 L8\r\n3. K8 Z99 4. K9 1-0\r\n";
    let err = parse_pgn(text).unwrap_err();
    assert_eq!(err.line, 5);
    assert!(matches!(&err.kind, ParseErrorKind::BadMove { ply: 6, token, .. } if token == "Z99"));
    assert!(err.to_string().starts_with("line 5: move 6: `Z99` is not a move"), "{err}");
    let err = parse_pgn("[Game \"Pente\"]\n\n1. K10 {good} L9\n").unwrap_err();
    assert!(err.to_string().contains("`{good}`"), "{err}");
}

#[test]
fn unknown_game_names_its_line() {
    let err = parse_pgn("[Site \"Pente.org\"]\n[Game \"Renju\"]\n\n1. K10 *\n").unwrap_err();
    assert_eq!(err.line, 2);
    assert_eq!(err.kind, ParseErrorKind::UnknownGame { name: "Renju".into() });
    assert!(err.to_string().contains("unknown game `Renju`"), "{err}");
}

#[test]
fn broken_headers() {
    for (text, line) in [
        ("[Game \"Pente\"]\n[Result \"1-0\"\n\n1. K10 1-0\n", 2),
        ("[Game \"Pente\"]\n[Player 1 Name alice]\n", 2),
        ("[Game \"Pente\"]\n[\"alice\"]\n", 2),
        ("\n\n[Game \"Pente\n", 3),
    ] {
        let err = parse_pgn(text).unwrap_err();
        assert_eq!(err.line, line, "{text:?}");
        assert!(matches!(err.kind, ParseErrorKind::BadHeader { .. }), "{err}");
    }
    let err = parse_pgn("[Game \"Pente\"]\n[Size \"12\"]\n").unwrap_err();
    assert_eq!((err.line, err.to_string().contains("bad board size `12`")), (2, true), "{err}");
    let err = parse_pgn("[Result \"white\"]\n").unwrap_err();
    assert!(matches!(err.kind, ParseErrorKind::BadResult { .. }), "{err}");
}

#[test]
fn other_syntax_errors() {
    let err = parse_pgn("[Result \"1-0\"]\n\n1. K10 L9 0-1\n").unwrap_err();
    assert_eq!(
        (err.line, err.to_string()),
        (3, "line 3: result `0-1` disagrees with the header [Result \"1-0\"]".into())
    );
    let err = parse_pgn("1. K10 L9\n").unwrap_err();
    assert!(matches!(err.kind, ParseErrorKind::MissingHeaders { .. }), "{err}");
    let err = parse_pgn("[Game \"Pente\"]\n\n1. K10 L9 3. K7\n").unwrap_err();
    assert_eq!(err.kind, ParseErrorKind::BadMoveNumber { token: "3.".into(), expected: 2 });
    let err = parse_pgn("[Game \"Pente\"]\n\n1. K10 L9 1-0\n\nK7\n").unwrap_err();
    assert_eq!(err.line, 5);
}

#[test]
fn missing_result_and_missing_game_header_are_fine() {
    let games = parse_pgn("[Site \"x\"]\n\n1. K10 L9\n[Game \"gomoku\"]\n[Result \"0-1\"]\n1. A1 B2\n").unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!((games[0].rules, games[0].result), (Rules::pente(), None));
    assert_eq!(
        (games[1].rules.variant(), games[1].result, games[1].line),
        (Variant::Gomoku, Some(GameResult::Black), 4)
    );
    assert!(parse_pgn("").unwrap().is_empty());
    assert!(parse_pgn("\r\n\r\n").unwrap().is_empty());
}

#[test]
fn reading_goes_on_after_broken_games() {
    let text = "[Game \"Pente\"]\n[Bad header\n[Result \"1-0\"]\n\n1. K10 1-0\n\n\
                [Game \"Pente\"]\n\n1. K10 L9\n\n\
                [Game \"Pente\"]\n\n1. K10 I9\n2. K7\n\n\
                [Game \"Chess\"]\n\n1. e4 e5\n\n\
                [Game \"Pente\"]\n\n1. K10 1-0\n";
    let games: Vec<_> = pgn_games(text).collect();
    let lines: Vec<Result<usize, usize>> =
        games.iter().map(|g| g.as_ref().map(|r| r.line).map_err(|e| e.line)).collect();
    assert_eq!(lines, [Err(2), Ok(7), Err(13), Err(16), Ok(20)]);
}

/// A tiny deterministic generator, so the round trip covers many shapes.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

#[test]
fn random_records_round_trip() {
    let mut rng = Lcg(7);
    let mut records = Vec::new();
    // pente.org's PGN keeps no colour choice (another test covers those variants).
    let variants: Vec<Variant> =
        Variant::ALL.into_iter().filter(|&v| Rules::new(v, 19).unwrap().colour_choice().is_none()).collect();
    for i in 0..60 {
        let variant = variants[i % variants.len()];
        let rules = Rules::new(variant, [7, 13, 19][i % 3]).unwrap();
        let mut game = Game::new(rules);
        let plies = rng.below(120);
        while game.moves().len() < plies && !game.position().is_over() {
            let legal: Vec<Point> = game.position().legal_moves().collect();
            game.play(legal[rng.below(legal.len())]).unwrap();
        }
        let mut record = GameRecord::from_game(&game);
        if !game.position().is_over() && rng.below(2) == 0 {
            let by = record.side_to_move();
            record.termination =
                Some(if rng.below(2) == 0 { Termination::Resign { by } } else { Termination::Forfeit { by } });
            record.result = Some(GameResult::from_winner(Some(by.opponent())));
            record.set_header("Result", record.result.map_or("*", GameResult::token));
        }
        record.set_header("Player 1 Name", &format!("p{i}"));
        records.push(record);
    }
    let text = write_pgn(&records);
    assert!(text.lines().all(|line| line.len() <= 80));
    assert_eq!(without_lines(parse_pgn(&text).unwrap()), records);
}

/// Free Keryo is pente.org's unrated Keryo-Pente: read from `[Rated "N"]`,
/// written back the same way, and move 3 may go near the centre.
#[test]
fn free_keryo_is_unrated_keryo_pente() {
    let text = "[Game \"Keryo-Pente\"]\n[Rated \"N\"]\n\n1. K10 L9 2. K9 *\n";
    let games = parse_pgn(text).unwrap();
    assert_eq!(games[0].rules.variant(), Variant::FreeKeryo);
    assert_eq!(write_pgn(&games), text);
    let rated = parse_pgn(&text.replace("\"N\"", "\"Y\"")).unwrap();
    assert_eq!(rated[0].rules.variant(), Variant::Keryo);
    // Move 3 breaks the tournament rule in rated Keryo only.
    assert!(Game::from_move_list(rated[0].rules, "K10 L9 K9").is_err());
    assert!(Game::from_move_list(games[0].rules, "K10 L9 K9").is_ok());
    // A record made here says so the same way.
    let record = GameRecord::new(Rules::new(Variant::FreeKeryo, 13).unwrap(), vec![]);
    let written = write_pgn(&[record]);
    assert!(written.starts_with("[Game \"Keryo-Pente\"]\n[Rated \"N\"]\n[Size \"13\"]\n"), "{written}");
    assert_eq!(parse_pgn(&written).unwrap()[0].rules, Rules::new(Variant::FreeKeryo, 13).unwrap());
}

/// G-Pente keeps its move-3 bar in rated and unrated games alike, and its
/// records name it as pente.org does.
#[test]
fn g_pente_records_round_trip_and_keep_the_bar_unrated() {
    let text = "[Game \"G-Pente\"]\n[Result \"*\"]\n\n1. K10 L9 2. K5 M8 3. K6 N7 4. K7 O6 5. K8 *\n";
    for text in [text.to_string(), text.replace("[Result", "[Rated \"N\"]\n[Result")] {
        let games = parse_pgn(&text).unwrap();
        assert_eq!(games[0].rules.variant(), Variant::GPente, "{text}");
        assert!(Game::from_move_list(games[0].rules, "K10 L9 K13").is_err(), "{text}");
    }
    assert_eq!(parse_pgn("[Game \"Speed G-Pente\"]\n\n1. K10 *\n").unwrap()[0].rules.variant(), Variant::GPente);
    let game =
        Game::from_move_list(Rules::new(Variant::GPente, 19).unwrap(), "K10 L9 K5 M8 K6 N7 K7 O6 K8 P5").unwrap();
    let written = write_pgn(&[GameRecord::from_game(&game)]);
    assert!(written.starts_with("[Game \"G-Pente\"]\n"), "{written}");
    assert_eq!(parse_pgn(&written).unwrap()[0].moves, game.moves());
}

/// Poof-Pente and Boat-Pente records name the game as pente.org does, and
/// replay under their rules.
#[test]
fn poof_pente_records_round_trip() {
    let text = "[Game \"Poof-Pente\"]\n[Result \"*\"]\n\n1. K10 L9 2. N7 M8 *\n";
    let games = parse_pgn(text).unwrap();
    assert_eq!(games[0].rules.variant(), Variant::PoofPente);
    assert_eq!(write_pgn(&games), text);
    let game = Game::from_move_list(games[0].rules, "K10 L9 N7 M8").unwrap();
    assert_eq!(game.position().captured(Color::White), 2, "M8 poofs with L9");
    let boat = text.replace("Poof-Pente", "Boat-Pente");
    assert_eq!(parse_pgn(&boat).unwrap()[0].rules.variant(), Variant::BoatPente);
    assert_eq!(write_pgn(&parse_pgn(&boat).unwrap()), boat);
    let o_pente = text.replace("Poof-Pente", "O-Pente");
    assert_eq!(parse_pgn(&o_pente).unwrap()[0].rules.variant(), Variant::OPente);
    assert_eq!(write_pgn(&parse_pgn(&o_pente).unwrap()), o_pente);
}

/// A golden PGN file per variant (`tests/data/variants/<variant>.pgn`, a
/// game played to its end with seeded random moves near the stones): it
/// reads as that variant, replays to the recorded result, and writes back
/// byte for byte. `UPDATE_GOLDEN=1` plays and writes them again.
#[test]
fn every_variant_has_a_golden_pgn_that_round_trips() {
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    for (i, variant) in Variant::ALL.into_iter().enumerate() {
        let path = data(&format!("variants/{variant}.pgn"));
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            let mut rng = StdRng::seed_from_u64(i as u64);
            let mut game = Game::new(Rules::new(variant, 19).unwrap());
            while !game.position().is_over() {
                // Near the last stones, where captures, poofs and fives happen.
                let near: Vec<Point> = game
                    .position()
                    .legal_moves()
                    .filter(|p| {
                        game.moves().iter().rev().take(6).any(|q| p.x().abs_diff(q.x()).max(p.y().abs_diff(q.y())) <= 2)
                    })
                    .collect();
                let all: Vec<Point> = game.position().legal_moves().collect();
                let moves = if near.is_empty() { &all } else { &near };
                game.play(moves[rng.random_range(0..moves.len())]).unwrap();
            }
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, write_pgn(&[GameRecord::from_game(&game)])).unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let games = parse_pgn(&text).unwrap();
        assert_eq!(games.len(), 1, "{}", path.display());
        assert_eq!(games[0].rules.variant(), variant, "{}", path.display());
        let mut replayed = Game::new(games[0].rules);
        for &point in &games[0].moves {
            replayed.play(point).unwrap_or_else(|e| panic!("{}: {point}: {e}", path.display()));
        }
        let outcome = replayed.position().outcome().expect("the golden game is finished");
        assert_eq!(games[0].result, Some(GameResult::from_winner(outcome.winner)), "{}", path.display());
        assert_eq!(write_pgn(&games), text, "{} writes back unchanged", path.display());
    }
}

/// pente.org's PGN holds no colour choice: D-Pente's goes in the
/// `Player's Swapped?` header and comes back from it; DK-Pente's and
/// Swap2's are lost, and read back as `stay`, which gives the same board.
#[test]
fn colour_choices_leave_the_move_text_and_come_back() {
    let d_pente = Rules::new(Variant::DPente, 19).unwrap();
    for (choice, header) in [("swap", "Yes"), ("stay", "No")] {
        let game = Game::from_move_list(d_pente, &format!("K10 L10 M10 N10 {choice} O10")).unwrap();
        let text = write_pgn(&[GameRecord::from_game(&game)]);
        assert!(text.starts_with("[Game \"D-Pente\"]\n"), "{text}");
        assert!(text.contains(&format!("[Player's Swapped? \"{header}\"]\n")), "{text}");
        assert!(text.contains("\n1. K10 L10 2. M10 N10 3. O10 *\n"), "{text}");
        let back = parse_pgn(&text).unwrap();
        assert_eq!(back[0].moves, game.moves(), "{text}");
        assert_eq!(write_pgn(&back), text);
    }
    // Without the header (or with "No"): stay.
    let read = parse_pgn("[Game \"D-Pente\"]\n\n1. K10 L10 2. M10 N10 3. O10 *\n").unwrap();
    assert_eq!(read[0].moves[4], Point::STAY);
    // Swap2 after a pass: the record keeps the stones only.
    let swap2 = Rules::new(Variant::Swap2Keryo, 19).unwrap();
    let game = Game::from_move_list(swap2, "K10 L10 M10 pass A1 A2 swap A3").unwrap();
    let text = write_pgn(&[GameRecord::from_game(&game)]);
    assert!(text.starts_with("[Game \"Swap2-Keryo\"]\n") && !text.contains("Swapped"), "{text}");
    let back = parse_pgn(&text).unwrap();
    let replayed = Game::from_moves(swap2, back[0].moves.iter().copied()).unwrap();
    assert_eq!(back[0].moves[3], Point::STAY);
    assert_eq!(replayed.position().board_rows(), game.position().board_rows());
    // A game that stops before the choice gets none.
    let short = parse_pgn("[Game \"Swap2-Pente\"]\n\n1. K10 L10 *\n").unwrap();
    assert_eq!(short[0].moves.len(), 2);
}

/// Connect6 numbers its stones in pairs, like every PGN game, whatever
/// the turns; a resignation names the colour of the next stone.
#[test]
fn connect6_records_number_stones_in_pairs() {
    let rules = Rules::new(Variant::Connect6, 19).unwrap();
    let game = Game::from_move_list(rules, "K10 A1 A2 B1 B2").unwrap();
    let text = write_pgn(&[GameRecord::from_game(&game)]);
    assert!(text.starts_with("[Game \"Connect6\"]\n") && text.contains("\n1. K10 A1 2. A2 B1 3. B2 *\n"), "{text}");
    let resigned = parse_pgn("[Game \"Connect6\"]\n\n1. K10 A1 2. A2 B1 3. B2 Resign *\n").unwrap();
    // Stones 2-3 are Black's, 4-5 White's: the sixth is Black's.
    assert_eq!(resigned[0].termination.unwrap().by(), Color::Black);
}
