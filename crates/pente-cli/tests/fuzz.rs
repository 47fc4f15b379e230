//! Mutation fuzzing of every parser the toolkit exposes to files and
//! requests: move lists, PGN, `games.csv`, `games.jsonl`, `samples.bin`,
//! engine requests, configs, and arena player specs and search settings.
//! Inputs are the golden files and samples, mutated (bit flips, bytes and
//! tokens inserted, cut, repeated or spliced from another seed); a parser
//! may refuse any input with an error, but must never panic.
//!
//! The default run tries a few thousand inputs per parser. The full run,
//! a million per parser (`PENTE_FUZZ_INPUTS` to change it):
//!
//! ```sh
//! cargo test --release -p pente-cli --test fuzz -- --ignored --nocapture
//! ```

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::time::Instant;

use pente_core::{Game, Point, Rules, Variant, parse_move_list};
use pente_records::{
    GameResult, GameSamples, PositionSample, SamplesReader, check, parse_csv, parse_jsonl, parse_move_list_file,
    parse_pgn, write_game_samples, write_samples_header,
};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Inputs per parser in the default run.
const QUICK: u64 = 3_000;

/// Fragments that parsers care about, for insertion.
const TOKENS: &[&str] = &[
    "K10",
    "T19",
    "A1",
    "Z99",
    "I5",
    "0",
    "-1",
    "1-0",
    "0-1",
    "1/2-1/2",
    "*",
    "[Game \"",
    "\"]",
    "[Size \"",
    "\n",
    "\r\n",
    ",",
    "\"",
    "{",
    "}",
    "[",
    "]",
    ":",
    "1.",
    "resign",
    "pente",
    "keryo",
    "g-pente",
    "poof-pente",
    "boat-pente",
    "o-pente",
    "gomoku",
    "d-pente",
    "dk-pente",
    "swap2-pente",
    "swap2-keryo",
    "connect6",
    "swap",
    "stay",
    "pass",
    "[Player's Swapped? \"Yes\"]",
    "999999999999999999999",
    "1e39",
    "NaN",
    "-0",
    "true",
    "null",
    "\u{0}",
    "é",
    "=",
    "#",
    "[[rules]]",
    "visits",
    "level",
    "seconds",
    "@",
    "@1.5s",
    "@level9",
    "+nosolver",
    "pente-text:",
];

struct Mutator {
    rng: SmallRng,
    seeds: Vec<Vec<u8>>,
}

impl Mutator {
    fn new(seeds: Vec<Vec<u8>>, seed: u64) -> Mutator {
        assert!(!seeds.is_empty());
        Mutator { rng: SmallRng::seed_from_u64(seed), seeds }
    }

    fn range(&mut self, len: usize) -> (usize, usize) {
        let a = self.rng.random_range(0..=len);
        let b = self.rng.random_range(a..=len.min(a + 64));
        (a, b)
    }

    /// A seed with one to eight mutations.
    fn next(&mut self) -> Vec<u8> {
        let mut data = self.seeds[self.rng.random_range(0..self.seeds.len())].clone();
        for _ in 0..self.rng.random_range(1..=8) {
            let len = data.len();
            match self.rng.random_range(0..8) {
                0 if len > 0 => {
                    let i = self.rng.random_range(0..len);
                    data[i] ^= 1 << self.rng.random_range(0..8);
                }
                1 if len > 0 => {
                    let i = self.rng.random_range(0..len);
                    data[i] = self.rng.random();
                }
                2 => {
                    let token = TOKENS[self.rng.random_range(0..TOKENS.len())].as_bytes();
                    let i = self.rng.random_range(0..=len);
                    data.splice(i..i, token.iter().copied());
                }
                3 => {
                    let (a, b) = self.range(len);
                    data.drain(a..b);
                }
                4 => {
                    let (a, b) = self.range(len);
                    let copy = data[a..b].to_vec();
                    let i = self.rng.random_range(0..=data.len());
                    data.splice(i..i, copy);
                }
                5 => {
                    let other = self.seeds[self.rng.random_range(0..self.seeds.len())].clone();
                    let (a, b) = self.range(other.len());
                    let i = self.rng.random_range(0..=len);
                    data.splice(i.., other[a..b].iter().copied());
                }
                6 => {
                    let cut = self.rng.random_range(0..=len);
                    data.truncate(cut);
                }
                _ if len > 0 => {
                    // A digit run made huge or a number's sign flipped.
                    let i = self.rng.random_range(0..len);
                    let digits = ["9".repeat(self.rng.random_range(1..30)), "-".into()];
                    let pick = digits[self.rng.random_range(0..2)].clone();
                    data.splice(i..i, pick.into_bytes());
                }
                _ => {}
            }
        }
        data
    }
}

/// Feeds `inputs` mutated inputs to `parse`; fails naming the first input
/// that panicked.
fn fuzz(name: &str, seeds: Vec<Vec<u8>>, inputs: u64, parse: impl Fn(&[u8])) {
    let mut mutator = Mutator::new(seeds.clone(), name.len() as u64 ^ 0x5eed);
    let started = Instant::now();
    let mut panics = 0;
    let mut first = None;
    // The seeds themselves first: they must parse without a panic too.
    let all = seeds.into_iter().chain(std::iter::repeat_with(|| mutator.next())).take(inputs as usize);
    for input in all {
        if catch_unwind(AssertUnwindSafe(|| parse(&input))).is_err() {
            panics += 1;
            first.get_or_insert(input);
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    eprintln!("{name}: {inputs} inputs, {panics} panics, {seconds:.1} s ({:.0} inputs/s)", inputs as f64 / seconds);
    if let Some(input) = first {
        panic!("{name}: {panics} panics; the first on {:?}", String::from_utf8_lossy(&input));
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn file(path: &str) -> Vec<u8> {
    std::fs::read(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The golden file's records one by one, and whole.
fn records(path: &str, split: &str) -> Vec<Vec<u8>> {
    let whole = file(path);
    let mut seeds: Vec<Vec<u8>> = text(&whole).split(split).map(|s| s.as_bytes().to_vec()).collect();
    seeds.push(whole);
    seeds
}

fn move_lists(inputs: u64) {
    let mut seeds = records("crates/pente-records/tests/data/games.txt", "\n");
    seeds.extend(
        [
            "K10 L9 K7",
            "1. K10 L9 2. K7 L8 *",
            "k10 l9 K7 L8 K8 L7 K9 L10 K6",
            "",
            "1. K10 L10 2. M10 N10 swap 3. O10",
            "K10 L10 M10 pass A1 A2 STAY A3",
            "K10 A1 A2 B1 B2 C1 C2",
        ]
        .map(|s| s.as_bytes().to_vec()),
    );
    fuzz("move lists", seeds, inputs, |input| {
        let text = text(input);
        let _ = parse_move_list(&text);
        for variant in [
            Variant::Pente,
            Variant::Keryo,
            Variant::PoofPente,
            Variant::BoatPente,
            Variant::Gomoku,
            Variant::DPente,
            Variant::Swap2Keryo,
            Variant::Connect6,
        ] {
            let _ = Game::from_move_list(Rules::new(variant, 13).unwrap(), &text);
        }
        let _ = parse_move_list_file(&text, Rules::pente());
    });
}

fn pgn(inputs: u64) {
    let mut seeds = records("crates/pente-records/tests/data/pente_org.pgn", "\n\n[");
    seeds.extend(records("crates/pente-records/tests/data/invalid.pgn", "\n\n["));
    seeds.extend(records("data/sample-games.pgn", "\n\n["));
    for variant in [Variant::DPente, Variant::DkPente, Variant::Swap2Pente, Variant::Swap2Keryo, Variant::Connect6] {
        seeds.push(file(&format!("crates/pente-records/tests/data/variants/{variant}.pgn")));
    }
    fuzz("PGN", seeds, inputs, |input| {
        if let Ok(games) = parse_pgn(&text(input)) {
            for game in &games {
                let _ = check(game);
                let _ = pente_records::write_pgn(std::slice::from_ref(game));
            }
        }
    });
}

fn csv(inputs: u64) {
    let whole = text(&file("crates/pente-records/tests/data/games.csv"));
    let header = whole.lines().next().unwrap().to_string();
    let mut seeds: Vec<Vec<u8>> = whole.lines().skip(1).map(|row| format!("{header}\n{row}\n").into_bytes()).collect();
    seeds.push(whole.into_bytes());
    fuzz("games.csv", seeds, inputs, |input| {
        if let Ok(rows) = parse_csv(&text(input)) {
            for (line, row) in rows {
                let _ = row.check(line);
            }
        }
    });
}

fn jsonl(inputs: u64) {
    let seeds = records("crates/pente-records/tests/data/games.jsonl", "\n");
    fuzz("games.jsonl", seeds, inputs, |input| {
        if let Ok(games) = parse_jsonl(&text(input)) {
            for (_, game) in games {
                let _ = game.check();
                let _ = pente_records::CsvGame::from_json(&game).check(0);
            }
        }
    });
}

/// FNV-1a, as `samples.bin` checksums its chunks.
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

fn samples(inputs: u64) {
    let game = |id: u64, variant: Variant, moves: &str| {
        let moves: Vec<Point> = parse_move_list(moves).unwrap();
        let samples = (0..moves.len() as u32)
            .filter(|&ply| !moves[ply as usize].is_choice())
            .map(|ply| PositionSample { ply, policy: vec![(moves[ply as usize], 0.75), (Point::new(0, 0), 0.25)] })
            .collect();
        GameSamples { game_id: id, rules: Rules::new(variant, 19).unwrap(), moves, result: GameResult::White, samples }
    };
    let mut file = Vec::new();
    write_samples_header(&mut file).unwrap();
    write_game_samples(&mut file, &game(0, Variant::Pente, "K10 L9 K7 L8 K8 L7 K9 L10 K6")).unwrap();
    write_game_samples(&mut file, &game(1, Variant::Keryo, "K10 L10 A1 M10 A3 N10 O10")).unwrap();
    write_game_samples(&mut file, &game(2, Variant::Swap2Pente, "K10 L10 M10 pass A1 A2 swap A3")).unwrap();
    let header = pente_records::SAMPLES_HEADER_LEN as usize;
    fuzz("samples.bin", vec![file], inputs, |input| {
        for game in SamplesReader::new(input) {
            if game.is_err() {
                break;
            }
        }
        // Most mutations break the checksum; fixing it up reaches the decoder.
        let mut fixed = input.to_vec();
        if fixed.len() >= header + 8 {
            let len = u32::from_le_bytes(fixed[header..header + 4].try_into().unwrap()) as usize;
            if let Some(end) = (header + 4).checked_add(len).filter(|&end| end + 4 <= fixed.len()) {
                let sum = fnv1a(&fixed[header + 4..end]).to_le_bytes();
                fixed[end..end + 4].copy_from_slice(&sum);
                for game in SamplesReader::new(fixed.as_slice()) {
                    if game.is_err() {
                        break;
                    }
                }
            }
        }
    });
}

fn engine_requests(inputs: u64) {
    let seeds = [
        r#"{"id": "a", "variant": "pente", "size": 19, "moves": ["K10", "L9"], "visits": 200}"#,
        r#"{"id": 7, "variant": "poof-pente", "size": 13, "moves": ["G7"], "level": 3, "policy": true}"#,
        r#"{"moves": ["K10", "A1", "K11", "A3", "K12", "A5"], "variant": "free-pente", "seconds": 0.5}"#,
        r#"{"model": "heuristic", "moves": []}"#,
        r#"{"variant": "d-pente", "moves": ["K10", "L10", "M10", "N10", "swap"], "visits": 20}"#,
        r#"{"variant": "connect6", "size": 9, "moves": ["E5", "A1", "A2"], "visits": 20}"#,
    ];
    fuzz("engine requests", seeds.map(|s| s.as_bytes().to_vec()).to_vec(), inputs, |input| {
        let _ = pente_web::protocol::Request::parse(&text(input))
            .and_then(|request| request.prepare(pente_web::Defaults::default()));
    });
}

fn configs(inputs: u64) {
    let names = ["loop-campaign", "loop-ci", "loop-default", "loop-quick", "selfplay", "train"];
    let seeds: Vec<Vec<u8>> = names.iter().map(|name| file(&format!("configs/{name}.toml"))).collect();
    fuzz("configs", seeds, inputs, |input| {
        let text = text(input);
        if let Ok(config) = toml::from_str::<pente_train::LoopConfig>(&text) {
            let _ = config.check();
        }
        let _ = pente_selfplay::SelfPlayConfig::parse(&text);
        let _ = toml::from_str::<pente_train::TrainConfig>(&text).map(|c| c.check());
    });
    let specs = ["heuristic@64", "data/models/default@level9", "uniform@1.5s+nosolver", "pente-text:6"];
    fuzz("player specs", specs.map(|s| s.as_bytes().to_vec()).to_vec(), inputs, |input| {
        let _ = pente_train::PlayerSpec::parse(&text(input));
    });
    // `pente arena --set-a`: an assignment merged into a player's settings.
    let backend = pente_nn::BurnBackend::cpu();
    let player = pente_train::PlayerSpec::parse("heuristic@64").unwrap();
    let settings = ["c_puct = 2.0", "tactics.root.max_nodes = 700", "gumbel = { considered = 8 }", "max_seconds = 0.5"];
    fuzz("search settings", settings.map(|s| s.as_bytes().to_vec()).to_vec(), inputs, |input| {
        let _ = player.load(&backend).unwrap().with_settings(&[text(input)]);
    });
}

/// Fuzzing panics on purpose; the default hook would print every one.
fn quiet() {
    std::panic::set_hook(Box::new(|_| {}));
}

fn full_inputs() -> u64 {
    std::env::var("PENTE_FUZZ_INPUTS").ok().and_then(|n| n.parse().ok()).unwrap_or(1_000_000)
}

#[test]
fn parsers_never_panic_quick() {
    quiet();
    for run in [move_lists, pgn, csv, jsonl, samples, engine_requests, configs] {
        run(QUICK);
    }
}

#[test]
#[ignore = "a million inputs per parser: run with --release -- --ignored"]
fn parsers_never_panic_a_million_inputs() {
    quiet();
    let inputs = full_inputs();
    for run in [move_lists, pgn, csv, jsonl, samples, engine_requests, configs] {
        run(inputs);
    }
}
