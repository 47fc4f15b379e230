//! The `pente` binary end to end: output shapes, exit codes, error lines.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn pente(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pente")).args(args).output().expect("run pente")
}

fn pente_with_stdin(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pente"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run pente");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).expect("stdout is one JSON object")
}

#[test]
fn replay_prints_the_final_position() {
    let out = pente(&["replay", "--moves", "K10 L9 K7 L8 K8 L7 K9 L10 K6"]);
    assert!(out.status.success());
    let v = json(&out);
    assert_eq!(v["variant"], "pente");
    assert_eq!(v["size"], 19);
    assert_eq!(v["plies"], 9);
    assert_eq!(v["to_move"], "black");
    assert_eq!(v["captured"]["white"], 0);
    assert_eq!(v["result"], "white");
    assert_eq!(v["reason"], "five");
    let board = v["board"].as_array().unwrap();
    assert_eq!(board.len(), 19);
    // Row 10 is the 10th string from the top; K is column 9.
    assert_eq!(board[9].as_str().unwrap(), ".........WB........");
    assert_eq!(board[13].as_str().unwrap(), ".........W.........");
}

#[test]
fn replay_counts_captures_and_open_games() {
    let out = pente(&["replay", "--variant", "keryo", "--size", "13", "--moves", "G7 H7 G10 J7 G11 K7 L7"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    assert_eq!(v["variant"], "keryo");
    assert_eq!(v["captured"]["white"], 3);
    assert_eq!(v["captured"]["black"], 0);
    assert_eq!(v["result"], serde_json::Value::Null);
    assert_eq!(v["reason"], serde_json::Value::Null);
    assert_eq!(v["board"][6].as_str().unwrap(), "......W...W..");
}

#[test]
fn replay_rejects_bad_moves_with_exit_code_2() {
    for (moves, needle) in [
        ("K10 L9 K8", "move 3: K8"),
        ("K10 K10", "move 2: K10"),
        ("K10 L9 K7 L8 K8 L7 K9 L10 K6 A1", "move 10: A1"),
        ("K10 L9 X99", "move 3"),
        ("K10 L9 I5", "move 3"),
        ("A1", "move 1: A1"),
    ] {
        let out = pente(&["replay", "--moves", moves]);
        assert_eq!(out.status.code(), Some(2), "{moves}");
        assert!(out.stdout.is_empty(), "{moves}: nothing on stdout");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{moves}: one line: {stderr}");
        assert!(stderr.contains(needle), "{moves}: {stderr}");
    }
    let out = pente(&["replay", "--size", "7", "--moves", "D4 A1 H1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("off the 7x7 board"));
    let out = pente(&["replay", "--size", "12", "--moves", "K10"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn validate_reports_invalid_games_by_file_and_line() {
    let dir = std::env::temp_dir().join(format!("pente-cli-validate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.txt");
    let bad = dir.join("bad.txt");
    std::fs::write(&good, "K10 L9 K7 L8 K8 L7 K9 L10 K6 1-0\n# a comment\n1. K10 L9 2. K7\n").unwrap();
    std::fs::write(&bad, "K10 L9 K7\nK10 L9 K8 *\n").unwrap();
    let out = pente(&["validate", good.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("2 games: 2 valid, 0 invalid"));
    let out = pente(&["validate", good.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains(&format!("{}:2:", bad.display())), "{stdout}");
    assert!(stdout.contains("K8"), "{stdout}");
    let out = pente(&["validate", dir.join("missing.pgn").to_str().unwrap()]);
    assert_ne!(out.status.code(), Some(0));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn validate_accepts_the_sample_data() {
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample-games.pgn");
    let out = pente(&["validate", sample]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn engine_answers_good_and_bad_requests() {
    let requests = [
        r#"{"id": "a", "variant": "pente", "size": 19, "moves": ["K10", "L9", "K13", "A1", "K11", "A3", "K12", "A5"], "visits": 60, "model": "heuristic"}"#,
        r#"{"id": 7, "moves": ["K10", "L9", "K8"], "model": "heuristic"}"#,
        "this is not json",
        r#"{"id": "c", "moves": ["K10"], "visits": 0, "model": "heuristic"}"#,
        r#"{"id": "d", "variant": "renju", "model": "heuristic"}"#,
        r#"{"id": "e", "moves": ["K10"], "vists": 5, "model": "heuristic"}"#,
        "",
        r#"{"id": "f", "variant": "gomoku", "size": 9, "moves": [], "visits": 20, "model": "uniform"}"#,
    ];
    let out = pente_with_stdin(&["engine"], &(requests.join("\n") + "\n"));
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 7, "one response per non-empty request");
    let first = &lines[0];
    assert_eq!(first["id"], "a");
    assert!(["K9", "K14"].contains(&first["best_move"].as_str().unwrap()), "{first}");
    assert_eq!(first["proven"], "win");
    let candidate = &first["candidates"][0];
    for key in ["move", "visits", "prior", "winrate"] {
        assert!(candidate.get(key).is_some(), "candidate has {key}");
    }
    assert_eq!(lines[1]["id"], 7);
    assert!(lines[1]["error"].as_str().unwrap().contains("move 3: K8"));
    assert_eq!(lines[2]["id"], serde_json::Value::Null);
    assert!(lines[2]["error"].as_str().unwrap().contains("not JSON"));
    assert!(lines[3]["error"].as_str().unwrap().contains("visits"));
    assert!(lines[4]["error"].as_str().unwrap().contains("renju"));
    assert!(lines[5]["error"].as_str().unwrap().contains("vists"));
    assert_eq!(lines[6]["id"], "f");
    assert!(lines[6]["best_move"].is_string());
}

/// A level sets the visits (and the rest); it excludes `visits`, and only
/// levels 1-9 exist, in requests and on the command line.
#[test]
fn engine_and_play_take_a_level() {
    let requests = [
        r#"{"id": 1, "moves": ["K10"], "level": 4, "model": "heuristic"}"#,
        r#"{"id": 2, "moves": ["K10"], "level": 10, "model": "heuristic"}"#,
        r#"{"id": 3, "moves": ["K10"], "level": 2, "visits": 10, "model": "heuristic"}"#,
    ];
    let out = pente_with_stdin(
        &["engine", "--level", "1"],
        &(requests.join(
            "
",
        ) + "
"),
    );
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["visits"], 32, "{}", lines[0]);
    assert!(lines[1]["error"].as_str().unwrap().contains("1 (weakest) to 9"), "{}", lines[1]);
    assert!(lines[2]["error"].as_str().unwrap().contains("not both"), "{}", lines[2]);
    let out = pente_with_stdin(&["engine", "--level", "10"], "");
    assert_eq!(out.status.code(), Some(2), "clap refuses level 10");
    let out = pente_with_stdin(&["engine", "--level", "3", "--visits", "10"], "");
    assert_eq!(out.status.code(), Some(2), "clap refuses --level with --visits");

    let out = pente_with_stdin(
        &["play", "--model", "heuristic", "--level", "2", "--size", "9"],
        "E5
quit
",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("at level 2 (1 visit, temperature 0.5, no solver)"), "{stdout}");
    assert!(stdout.contains("engine plays"), "{stdout}");
}

/// Without --book, the default player and levels 7-9 play the committed
/// book's moves in 19x19 Pente; the weaker levels and --no-book do not.
#[test]
fn the_full_strength_player_plays_from_the_committed_book() {
    let book_move = |args: &[&str]| {
        let out = pente_with_stdin(&[&["play", "--model", "heuristic"], args].concat(), "K10\nquit\n");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().contains("(from the book)")
    };
    assert!(book_move(&["--visits", "8"]));
    assert!(book_move(&["--level", "7", "--seconds", "0.1"]));
    assert!(!book_move(&["--visits", "8", "--no-book"]));
    assert!(!book_move(&["--level", "3"]));

    let requests = [
        r#"{"id": 1, "moves": ["K10"], "visits": 8, "model": "heuristic"}"#,
        r#"{"id": 2, "moves": ["K10"], "level": 3, "model": "heuristic"}"#,
        r#"{"id": 3, "moves": ["E5"], "size": 9, "visits": 8, "model": "heuristic"}"#,
    ];
    let out = pente_with_stdin(&["engine"], &(requests.join("\n") + "\n"));
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let from_book: Vec<bool> = lines.iter().map(|l| l["book"] == true).collect();
    assert_eq!(from_book, [true, false, false], "{lines:?}");
}

#[test]
fn analyze_lists_candidates() {
    let out = pente(&["analyze", "--moves", "K10 L9 K7", "--visits", "100", "--model", "heuristic"]);
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("evaluator: heuristic"), "{stdout}");
    assert!(stdout.contains("best move: "), "{stdout}");
    assert!(stdout.contains("win rate"), "{stdout}");
    let out = pente(&["analyze", "--moves", "K10 K10"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn play_reasks_bad_input_and_quits() {
    let out = pente_with_stdin(
        &["play", "--model", "heuristic", "--visits", "20", "--size", "9", "--variant", "gomoku"],
        "Z99\nA1\nA1\nundo\nhint\nquit\n",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("try again"), "{stdout}");
    assert!(stdout.contains("engine plays"), "{stdout}");
    assert!(stdout.contains("hint:"), "{stdout}");
    assert!(stdout.contains("captured: white 0  black 0"), "{stdout}");
}

#[test]
fn validate_reads_self_play_datasets() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../pente-records/tests/data/");
    let (csv, jsonl) = (format!("{data}games.csv"), format!("{data}games.jsonl"));
    let out = pente(&["validate", &csv, &jsonl]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("games.csv: 4 games: 4 valid, 0 invalid (1 unfinished)"), "{stdout}");
    assert!(stdout.contains("games.jsonl: 4 games: 4 valid, 0 invalid (1 unfinished)"), "{stdout}");

    let dir = std::env::temp_dir().join(format!("pente-cli-datasets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // No extension: the header says it is a games.csv.
    let sniffed = dir.join("games");
    std::fs::copy(&csv, &sniffed).unwrap();
    let out = pente(&["validate", sniffed.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));

    // Line 3 claims 51 plies for 50 moves; line 2 of the JSONL has a bad move.
    let bad_csv = dir.join("bad.csv");
    let text = std::fs::read_to_string(&csv).unwrap().replacen(",captures,50,", ",captures,51,", 1);
    std::fs::write(&bad_csv, text).unwrap();
    let bad_jsonl = dir.join("bad.jsonl");
    let mut lines: Vec<String> = std::fs::read_to_string(&jsonl).unwrap().lines().map(String::from).collect();
    lines[1] = lines[1].replacen("\"move\":\"E8\"", "\"move\":\"Z99\"", 1);
    std::fs::write(&bad_jsonl, lines.join("\n")).unwrap();
    let out = pente(&["validate", bad_csv.to_str().unwrap(), bad_jsonl.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let csv_line = format!("{}:3: game 2: plies is 51 but the game has 50 stones", bad_csv.display());
    assert!(stdout.contains(&csv_line), "{stdout}");
    assert!(stdout.contains(&format!("{}:2: game 2: not a game object: `Z99`", bad_jsonl.display())), "{stdout}");
    assert!(stdout.contains("total: 8 games: 6 valid, 2 invalid"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn selfplay_killed_with_sigkill_resumes_to_complete_valid_files() {
    let dir = std::env::temp_dir().join(format!("pente-cli-selfplay-kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("selfplay.toml");
    std::fs::write(
        &config,
        "games = 120\nseed = 3\nthreads = 2\ngames_in_flight = 4\nmodel = \"heuristic\"\n\
         [[rules]]\nvariant = \"pente\"\nsize = 9\n[search]\nvisits = 8\nnoise = true\n\
         [search.tactics]\nverify_moves = 0\nroot = { max_nodes = 2000 }\n",
    )
    .unwrap();
    let out = dir.join("run");
    let args = ["selfplay", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"];
    let mut child = Command::new(env!("CARGO_BIN_EXE_pente")).args(args).stdout(Stdio::null()).spawn().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(400));
    let _ = child.kill(); // SIGKILL
    let status = child.wait().unwrap();
    let csv_rows = |path: &std::path::Path| std::fs::read_to_string(path).unwrap_or_default().lines().count();
    if !status.success() {
        // Killed: whatever is there is a prefix of complete games.
        assert!(csv_rows(&out.join("games.csv")) <= 121);
    }
    let rerun = pente(&args);
    assert!(rerun.status.success(), "{}", String::from_utf8_lossy(&rerun.stderr));
    assert!(String::from_utf8_lossy(&rerun.stdout).contains("120 games"));
    assert_eq!(csv_rows(&out.join("games.csv")), 121, "header and 120 games");
    let validate =
        pente(&["validate", out.join("games.csv").to_str().unwrap(), out.join("games.jsonl").to_str().unwrap()]);
    assert!(validate.status.success(), "{}", String::from_utf8_lossy(&validate.stdout));
    let samples = pente(&["bench", "samples", out.join("samples.bin").to_str().unwrap()]);
    assert!(
        String::from_utf8_lossy(&samples.stdout).contains("120 games"),
        "{}",
        String::from_utf8_lossy(&samples.stdout)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file of the committed sample data.
fn sample(path: &str) -> String {
    format!("{}/../../data/{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn stats_counts_mixed_inputs_as_json_csv_and_tables() {
    let (csv, jsonl) = (sample("sample-selfplay/games.csv"), sample("sample-selfplay/games.jsonl"));
    let out = pente(&["stats", &csv, &jsonl, "--format", "json", "--top", "0"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    let games = v["games_read"].as_u64().unwrap();
    assert_eq!(games % 2, 0, "the CSV and the JSONL hold the same games");
    let all = &v["overall"][0];
    assert_eq!(all["rules"], "all");
    assert_eq!(all["games"].as_u64(), Some(games));
    let sum = ["white", "black", "draws"].iter().map(|k| all[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(sum, games);
    let openings = v["openings"].as_array().unwrap();
    assert_eq!(openings.len() as u64, v["opening_count"].as_u64().unwrap());
    assert!(openings.iter().all(|o| o["games"].as_u64().unwrap() % 2 == 0), "each game counted twice");

    let out = pente(&["stats", &csv, "--format", "csv", "--moves", "K10", "--top", "3"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("section,rules,key,games,white,black,draws,"), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("next,pente,")).count(), 3, "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("position,pente,K10,")).count(), 1, "{text}");

    let out = pente(&["stats", &csv, "--depth", "2", "--sort", "name", "--min-games", "5"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("White ") && text.contains(" %)   Black "), "{text}");
    assert!(text.contains("Openings: first 2 moves, mirror images merged"), "{text}");
}

#[test]
fn stats_names_the_file_and_line_of_a_bad_record() {
    let dir = std::env::temp_dir().join(format!("pente-cli-stats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.csv");
    let mut lines: Vec<String> = std::fs::read_to_string(sample("sample-selfplay/games.csv"))
        .unwrap()
        .lines()
        .take(5)
        .map(String::from)
        .collect();
    lines[2] = lines[2].replacen(",pente,", ",pentagon,", 1);
    std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let path = bad.to_str().unwrap();

    let out = pente(&["stats", path]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "no partial statistics");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.starts_with(&format!("error: {path}:3: column `variant`: `pentagon`")), "{stderr}");

    let out = pente(&["stats", path, "--skip-bad", "--format", "json"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).starts_with(&format!("{path}:3: skipped: column `variant`")));
    let v = json(&out);
    assert_eq!((v["skipped"].as_u64(), v["games_counted"].as_u64()), (Some(1), Some(3)));

    for (moves, message) in [("K10 Q", "--moves: move 2"), ("K10 X9", "move 2: X9 is off the 19x19 board")] {
        let out = pente(&["stats", path, "--moves", moves]);
        assert_eq!(out.status.code(), Some(2), "{moves}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(message), "{moves}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn plot_writes_heatmap_and_training_pngs() {
    let dir = std::env::temp_dir().join(format!("pente-cli-plot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let is_png = |path: &std::path::Path| std::fs::read(path).unwrap().starts_with(b"\x89PNG\r\n\x1a\n");

    let heatmap = dir.join("heatmap.png");
    let csv = sample("sample-selfplay/games.csv");
    let out = pente(&["plot", "heatmap", &csv, "--out", heatmap.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("wrote ") && stdout.contains("after K10:") && stdout.contains("after K10 "), "{stdout}");
    assert!(is_png(&heatmap));

    let small = dir.join("small.png");
    let args = ["plot", "heatmap", &csv, "--size", "13", "--moves", "G7 H6", "--out", small.to_str().unwrap()];
    assert!(pente(&args).status.success());
    assert!(is_png(&small));

    let curves = dir.join("curves.png");
    let out = pente(&["plot", "training", &sample("sample-run"), "--out", curves.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(is_png(&curves));
    // The campaign's folder, by CPU-hour, its ratings alone.
    let campaign = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/models/campaign");
    let out = pente(&["plot", "training", campaign, "--elo-only", "--out", curves.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("(0 iterations with losses"), "{out:?}");
    // Two campaigns' Elo by CPU-hour in one chart (the variants fine-tune
    // went on from campaign-9, on its Elo scale).
    let variants = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/models/variants");
    let both = dir.join("campaigns.png");
    let out = pente(&["plot", "campaigns", campaign, variants, "--out", both.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(is_png(&both));
    let out = pente(&["plot", "campaigns", campaign, dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "no elo.csv there");
    let out = pente(&["plot", "training", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "no metrics.csv or elo.csv there");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_shipped_network_is_the_default_from_any_directory() {
    let out = Command::new(env!("CARGO_BIN_EXE_pente"))
        .args(["analyze", "--moves", "K10 L9 K13", "--visits", "16"])
        .current_dir(std::env::temp_dir())
        .output()
        .expect("run pente");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("evaluator: network ") && stdout.contains("data/models/default"), "{stdout}");
    assert!(stdout.contains("best move: "), "{stdout}");
}

/// `pente` with `env` set.
fn pente_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pente"));
    command.args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("run pente")
}

/// Whether ONNX Runtime is there; without it (and without `PENTE_REQUIRE_ORT`) its tests pass with a note.
fn ort_available() -> bool {
    let out = pente(&["analyze", "--visits", "1", "--backend", "ort"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("ONNX Runtime not found") && std::env::var_os("PENTE_REQUIRE_ORT").is_none() {
        eprintln!("skipped: {stderr}");
        return false;
    }
    true
}

/// The candidate table of `pente analyze` (the lines after `best move:`).
fn candidates(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout.lines().skip_while(|line| !line.starts_with("best move")).collect::<Vec<_>>().join("\n")
}

#[test]
fn both_backends_analyze_alike() {
    if !ort_available() {
        return;
    }
    let args = |backend| ["analyze", "--moves", "K10 L9 K7 L8", "--visits", "200", "--backend", backend];
    let (ort, burn) = (pente(&args("ort")), pente(&args("burn")));
    assert!(ort.status.success(), "{}", String::from_utf8_lossy(&ort.stderr));
    assert!(burn.status.success(), "{}", String::from_utf8_lossy(&burn.stderr));
    assert!(String::from_utf8_lossy(&ort.stderr).contains("backend: ONNX Runtime"));
    assert!(String::from_utf8_lossy(&burn.stderr).contains("backend: burn"));
    // Same network, same search: the same moves, visits and win rates.
    assert_eq!(candidates(&ort), candidates(&burn));
    assert!(candidates(&ort).contains("best move: "));
}

#[test]
fn a_bad_onnx_runtime_library_is_a_clear_error() {
    let out = pente_env(
        &["analyze", "--moves", "K10", "--visits", "8", "--backend", "auto"],
        &[("ORT_DYLIB_PATH", "/nonexistent/libonnxruntime.so.1.32.0")],
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("/nonexistent/libonnxruntime.so.1.32.0: no such file"), "{stderr}");
    assert!(stderr.contains("1.31 or newer"), "{stderr}");
    // Something that is not ONNX Runtime at all.
    let not_a_library = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let out = pente_env(&["analyze", "--visits", "8", "--backend", "ort"], &[("ORT_DYLIB_PATH", not_a_library)]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(not_a_library) && stderr.contains("failed to load"), "{stderr}");
    // burn needs no library, and heuristic players no backend at all.
    let out = pente_env(
        &["analyze", "--visits", "8", "--backend", "burn"],
        &[("ORT_DYLIB_PATH", "/nonexistent/libonnxruntime.so")],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = pente_env(
        &["analyze", "--visits", "8", "--model", "heuristic"],
        &[("PENTE_BACKEND", "ort"), ("ORT_DYLIB_PATH", "/x")],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = pente_env(&["analyze", "--visits", "8"], &[("PENTE_BACKEND", "tpu")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected auto, ort or burn"));
}

#[test]
fn bench_nn_measures_both_backends() {
    if !ort_available() {
        return;
    }
    let out =
        pente(&["bench", "nn", "--blocks", "1", "--channels", "8", "--size", "9", "--batch", "4", "--seconds", "0.1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("backend burn"), "{stdout}");
    assert!(stdout.contains("backend ort"), "{stdout}");
    assert_eq!(stdout.matches("positions/s").count(), 2, "{stdout}");
}

#[test]
fn solve_prints_the_winning_line_or_that_none_was_found() {
    let out = pente(&["solve", "--variant", "free-pente", "--moves", "K10 A1 K11 A3 K12 A5", "--all"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("white wins in 2: K"), "{text}");
    assert!(text.contains("winning first moves: K9 (in 2), K13 (in 2)"), "{text}");
    let out = pente(&["solve", "--moves", "K10 L9"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("no forced win found for white"));
    let out = pente(&["solve", "--moves", "K10 K10"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("K10"));
}

#[test]
fn analyze_and_engine_show_the_proven_line() {
    let moves = "K10 A1 K11 A3 K12 A5";
    let out = pente(&["analyze", "--variant", "free-pente", "--moves", moves, "--model", "uniform", "--visits", "50"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("(proven win)") && text.contains("proven win in 2: K"), "{text}");
    let request =
        r#"{"id": 1, "variant": "free-pente", "moves": ["K10", "A1", "K11", "A3", "K12", "A5"], "model": "uniform"}"#;
    let out = pente_with_stdin(&["engine"], &format!("{request}\n"));
    let v = json(&out);
    assert_eq!(v["proven"], "win");
    assert_eq!(v["moves_to_end"], 2);
    assert_eq!(v["proven_line"].as_array().unwrap().len(), 3);
}

#[test]
fn serve_refuses_a_bad_game_file_and_a_taken_port() {
    let dir = std::env::temp_dir().join(format!("pente-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "hello\n").unwrap();
    let out = pente(&["serve", "--port", "0", "--games", bad.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("bad.csv:1:") && stderr.contains("header"), "{stderr}");

    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = pente(&["serve", "--port", &port, "--model", "heuristic"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&format!("cannot listen on 127.0.0.1:{port}")), "{stderr}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn serve_refuses_another_address_than_loopback_without_a_token() {
    let out = pente(&["serve", "--host", "0.0.0.0", "--port", "0", "--no-token", "--model", "heuristic"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("0.0.0.0 without a token") && stderr.contains("drop --no-token"), "{stderr}");
    let out = pente(&["serve", "--token", "t", "--no-token"]);
    assert_eq!(out.status.code(), Some(2));
}

/// A short self-play sample of every variant (9x9, the heuristic, 8
/// visits): the games validate, and `pente stats` counts each variant with
/// its first player's score.
#[test]
fn every_variant_self_plays_games_that_validate_and_count() {
    let dir = std::env::temp_dir().join(format!("pente-cli-variants-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    for variant in pente_core::Variant::ALL {
        let config = dir.join(format!("{variant}.toml"));
        std::fs::write(
            &config,
            format!(
                "games = 2\nseed = 5\nthreads = 1\ngames_in_flight = 2\nmodel = \"heuristic\"\n\
                 [[rules]]\nvariant = \"{variant}\"\nsize = 9\n[search]\nvisits = 8\n\
                 [search.tactics]\nroot = {{ max_nodes = 500 }}\n"
            ),
        )
        .unwrap();
        let out = dir.join(variant.name());
        let run = pente(&["selfplay", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
        assert!(run.status.success(), "{variant}: {}", String::from_utf8_lossy(&run.stderr));
        files.push(out.join("games.jsonl").to_str().unwrap().to_string());
        files.push(out.join("games.csv").to_str().unwrap().to_string());
    }
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let validate = pente(&[&["validate"], &files[..]].concat());
    let report = String::from_utf8_lossy(&validate.stdout);
    assert!(validate.status.success(), "{report}");
    assert!(report.contains("total: 72 games: 72 valid, 0 invalid"), "{report}");
    let stats = pente(&[&["stats", "--format", "json", "--top", "0"], &files[..]].concat());
    assert!(stats.status.success(), "{}", String::from_utf8_lossy(&stats.stderr));
    let v = json(&stats);
    let rows = v["overall"].as_array().unwrap();
    for variant in pente_core::Variant::ALL {
        let row = rows
            .iter()
            .find(|r| r["rules"] == format!("{variant}/9"))
            .unwrap_or_else(|| panic!("no row for {variant}: {rows:?}"));
        assert_eq!(row["games"], 4, "{variant}: the CSV and the JSONL hold the same 2 games");
        assert!(row["white_score"].as_f64().is_some(), "{variant}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn model_upgrade_copies_a_network_to_the_latest_features_and_it_plays_the_same() {
    let root = env!("CARGO_MANIFEST_DIR");
    // default-2, the first shipped network, reads version 1.
    let old = format!("{root}/../../data/models/default-2");
    let dir = std::env::temp_dir().join(format!("pente-cli-upgrade-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let new = dir.join("v2");
    let new = new.to_str().unwrap();
    let out = pente(&["model", "upgrade", &old, "--out", new]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let info: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("v2/model.json")).unwrap()).unwrap();
    assert_eq!(info["features_version"], 2);
    assert_eq!(info["net"]["in_planes"], 26);
    assert_eq!(info["id"], "default-2-f2");
    assert_eq!(info["parent"], "default-2");
    // The new planes start at zero: the same search, move and win rate.
    let analysis = |model: &str| {
        let out = pente(&["analyze", "--moves", "K10 L9 K7 L8", "--visits", "50", "--model", model]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8(out.stdout).unwrap();
        stdout.lines().skip_while(|l| !l.starts_with("position:")).collect::<Vec<_>>().join("\n")
    };
    assert_eq!(analysis(&old), analysis(new));
    // Already the latest, or a model already at --out: refused.
    let again = pente(&["model", "upgrade", new, "--out", dir.join("v3").to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already reads the latest"), "{again:?}");
    let taken = pente(&["model", "upgrade", &old, "--out", new]);
    assert!(String::from_utf8_lossy(&taken.stderr).contains("a model is already there"), "{taken:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `model grow` makes a larger network that searches exactly as the one it
/// grew from, on either backend, and refuses a smaller shape.
#[test]
fn model_grow_keeps_the_play_and_refuses_a_smaller_shape() {
    let root = env!("CARGO_MANIFEST_DIR");
    let old = format!("{root}/../../data/models/campaign");
    let dir = std::env::temp_dir().join(format!("pente-cli-grow-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let grown = dir.join("wide");
    let grown = grown.to_str().unwrap();
    let out = pente(&["model", "grow", &old, "--out", grown, "--blocks", "5", "--channels", "40"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let info: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("wide/model.json")).unwrap()).unwrap();
    assert_eq!((info["net"]["blocks"].as_u64(), info["net"]["channels"].as_u64()), (Some(5), Some(40)));
    assert_eq!(info["parent"], "campaign-9");
    assert_eq!(info["id"], "campaign-9-b5c40");
    let analysis = |model: &str, backend: &str| {
        let out =
            pente(&["analyze", "--moves", "K10 L9 K7 L8", "--visits", "50", "--model", model, "--backend", backend]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8(out.stdout).unwrap();
        stdout.lines().skip_while(|l| !l.starts_with("position:")).collect::<Vec<_>>().join("\n")
    };
    assert_eq!(analysis(&old, "burn"), analysis(grown, "burn"));
    let narrower = pente(&[
        "model",
        "grow",
        &old,
        "--out",
        dir.join("narrow").to_str().unwrap(),
        "--blocks",
        "6",
        "--channels",
        "16",
    ]);
    assert_eq!(narrower.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&narrower.stderr);
    assert!(stderr.contains("channels: 16 is smaller than the network's 32"), "{stderr}");
    assert!(!dir.join("narrow").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
