//! Self-play runs end to end on small boards with the heuristic evaluator:
//! determinism, resume after a kill, and settings checks.

use std::path::{Path, PathBuf};

use pente_nn::BurnBackend;
use pente_records::{CsvGame, GameEnd, JsonGame, SamplesReader};
use pente_selfplay::{CSV_FILE, JSONL_FILE, ModelSource, SAMPLES_FILE, SelfPlayConfig, run};

fn config(games: u64) -> SelfPlayConfig {
    SelfPlayConfig::parse(&format!(
        r#"
        games = {games}
        seed = 5
        threads = 2
        games_in_flight = 3
        model = "heuristic"
        [[rules]]
        variant = "pente"
        size = 9
        [[rules]]
        variant = "keryo"
        size = 7
        [search]
        visits = 12
        noise = true
        [opening]
        random_plies = 1
        temperature_plies = 4
        [resign]
        threshold = -0.5
        consecutive = 2
        playout_fraction = 0.5
        "#
    ))
    .unwrap()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pente-selfplay-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn files(dir: &Path) -> Vec<Vec<u8>> {
    [CSV_FILE, JSONL_FILE, SAMPLES_FILE].iter().map(|f| std::fs::read(dir.join(f)).unwrap()).collect()
}

fn jsonl_games(dir: &Path) -> Vec<JsonGame> {
    std::fs::read_to_string(dir.join(JSONL_FILE)).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn same_seed_same_games_and_consistent_files() {
    let (a, b) = (temp_dir("det-a"), temp_dir("det-b"));
    let progress = run(&config(8), &a, &ModelSource::Heuristic, &BurnBackend::cpu(), &mut |_| {}).unwrap();
    assert_eq!(progress.games, 8);
    assert_eq!(progress.new_games, 8);
    run(&config(8), &b, &ModelSource::Heuristic, &BurnBackend::cpu(), &mut |_| {}).unwrap();
    assert_eq!(files(&a), files(&b), "same seed, config and threads: same bytes");

    // The three files hold the same games, in id order.
    let games = jsonl_games(&a);
    assert_eq!(games.len(), 8);
    let csv_text = std::fs::read_to_string(a.join(CSV_FILE)).unwrap();
    let mut csv = csv::Reader::from_reader(csv_text.as_bytes());
    let rows: Vec<CsvGame> = csv.deserialize().map(Result::unwrap).collect();
    let samples: Vec<_> =
        SamplesReader::new(std::fs::File::open(a.join(SAMPLES_FILE)).unwrap()).map(Result::unwrap).collect();
    for (i, game) in games.iter().enumerate() {
        assert_eq!(game.game_id, i as u64);
        assert_eq!(rows[i], CsvGame::from_json(game));
        assert_eq!(samples[i].game_id, i as u64);
        assert_eq!(samples[i].moves, game.moves.iter().map(|m| m.point).collect::<Vec<_>>());
        assert_eq!(samples[i].result, game.result);
        // Every searched move is a sample (a move the solver proved has a
        // one-hot policy and no visits); the random first move is not.
        assert_eq!(samples[i].samples.len(), game.moves.iter().filter(|m| !m.policy.is_empty()).count());
        assert_eq!(game.moves[0].visits, 0);
        assert!(pente_records::check(&game.to_record(i + 1)).is_valid(), "game {i} replays");
        if game.reason == GameEnd::Resign {
            assert!(game.resign_check.is_none());
        }
    }
    // A different seed plays other games.
    let c = temp_dir("det-c");
    let mut other = config(8);
    other.seed = 6;
    run(&other, &c, &ModelSource::Heuristic, &BurnBackend::cpu(), &mut |_| {}).unwrap();
    assert_ne!(files(&a)[0], files(&c)[0]);
    for dir in [a, b, c] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn playout_cap_randomization_samples_only_full_searches() {
    let dir = temp_dir("cap");
    let mut capped = config(6);
    capped.playout_cap = Some(pente_selfplay::PlayoutCap { full_fraction: 0.3, fast_visits: 3 });
    run(&capped, &dir, &ModelSource::Heuristic, &BurnBackend::cpu(), &mut |_| {}).unwrap();
    let games = jsonl_games(&dir);
    let samples: Vec<_> =
        SamplesReader::new(std::fs::File::open(dir.join(SAMPLES_FILE)).unwrap()).map(Result::unwrap).collect();
    // (searches, visits) of the sampled moves and of the other searched moves.
    let (mut full, mut fast) = ((0u32, 0u32), (0u32, 0u32));
    for (game, samples) in games.iter().zip(&samples) {
        for (ply, m) in game.moves.iter().enumerate().filter(|(_, m)| m.visits > 0) {
            let side = if samples.samples.iter().any(|s| s.ply as usize == ply) { &mut full } else { &mut fast };
            *side = (side.0 + 1, side.1 + m.visits);
        }
    }
    assert!(full.0 > 0 && fast.0 > full.0, "{full:?} full and {fast:?} fast searches");
    // Full searches run 12 visits, fast ones 3 (plus what the reused tree had).
    let mean = |(n, v): (u32, u32)| f64::from(v) / f64::from(n);
    assert!(mean(full) > 2.0 * mean(fast), "{full:?} full, {fast:?} fast");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_killed_run_resumes_to_the_same_files() {
    let (whole, resumed) = (temp_dir("whole"), temp_dir("resumed"));
    run(&config(10), &whole, &ModelSource::Heuristic, &BurnBackend::cpu(), &mut |_| {}).unwrap();
    run(&config(6), &resumed, &ModelSource::Heuristic, &BurnBackend::cpu(), &mut |_| {}).unwrap();
    // A kill in the middle of writing game 6: half a row, half a line, half a chunk.
    for (file, tail) in
        [(CSV_FILE, "6,pente,9,heur"), (JSONL_FILE, "{\"schema\":1,\"game_id\":6,"), (SAMPLES_FILE, "\u{30}\0\0")]
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().append(true).open(resumed.join(file)).unwrap();
        f.write_all(tail.as_bytes()).unwrap();
    }
    // And game 5 made it to the samples and JSONL but not the CSV.
    let csv = std::fs::read_to_string(resumed.join(CSV_FILE)).unwrap();
    let cut = csv.trim_end_matches("6,pente,9,heur").trim_end().rfind('\n').unwrap() + 1;
    std::fs::write(resumed.join(CSV_FILE), &csv[..cut]).unwrap();

    let progress = run(&config(10), &resumed, &ModelSource::Heuristic, &BurnBackend::cpu(), &mut |_| {}).unwrap();
    assert_eq!(progress.games, 10);
    assert_eq!(progress.new_games, 5, "games 0-4 were complete everywhere; 5-9 are replayed");
    assert_eq!(files(&whole), files(&resumed));
    // Asking for fewer games than there are changes nothing.
    let progress = run(&config(4), &resumed, &ModelSource::Heuristic, &BurnBackend::cpu(), &mut |_| {}).unwrap();
    assert_eq!((progress.games, progress.new_games), (10, 0));
    assert_eq!(files(&whole), files(&resumed));
    for dir in [whole, resumed] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn other_settings_do_not_mix_into_a_run() {
    let dir = temp_dir("mix");
    run(&config(2), &dir, &ModelSource::Heuristic, &BurnBackend::cpu(), &mut |_| {}).unwrap();
    let mut other = config(4);
    other.search.visits = 20;
    let error = run(&other, &dir, &ModelSource::Heuristic, &BurnBackend::cpu(), &mut |_| {}).unwrap_err().to_string();
    assert!(error.contains("selfplay.toml") && error.contains("other settings"), "{error}");
    // More threads are fine.
    let mut more_threads = config(3);
    more_threads.threads = 1;
    assert_eq!(run(&more_threads, &dir, &ModelSource::Heuristic, &BurnBackend::cpu(), &mut |_| {}).unwrap().games, 3);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_configs_name_the_problem() {
    for (text, needle) in [
        ("games = 1\nvisits = 3", "visits"),
        ("games = 1\n[[rules]]\nvariant = \"renju\"", "renju"),
        ("games = 1\n[[rules]]\nvariant = \"pente\"\nsize = 12", "size 12"),
        ("games = 1\ngames_in_flight = 0", "games_in_flight"),
        ("games = 1\n[search]\nvisits = 0", "visits"),
        ("games = 1\n[resign]\nplayout_fraction = 2.0", "playout_fraction"),
        ("games = 1\n[playout_cap]\nfull_fraction = 0.0\nfast_visits = 8", "playout_cap"),
        ("games = 1\n[playout_cap]\nfull_fraction = 0.25", "fast_visits"),
        ("games = \"many\"", "games"),
    ] {
        let error = SelfPlayConfig::parse(text).unwrap_err().to_string();
        assert!(error.contains(needle), "{text}: {error}");
    }
}

#[test]
fn shipped_configs_parse() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    let path = dir.join("selfplay.toml");
    let config = SelfPlayConfig::load(&path).unwrap();
    assert!(config.games > 0);
}
