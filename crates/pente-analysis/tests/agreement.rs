//! The CSV and JSON outputs agree with a count made directly from the
//! records, without the crate's canonical forms: openings are compared as
//! the set of all 8 images of their moves.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use pente_analysis::{Format, ReportOptions, Stats, StatsOptions};
use pente_core::{Point, Symmetry, parse_move_list};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/sample-selfplay/games.csv")
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/games.csv")
}

/// An opening as the set of its 8 images: equal for mirror images, with no
/// choice of a representative.
type Orbit = (String, BTreeSet<Vec<(u8, u8)>>);

fn orbit(rules: &str, size: u8, moves: &[Point]) -> Orbit {
    let images = Symmetry::ALL
        .iter()
        .map(|s| moves.iter().map(|&p| s.apply(p, size)).map(|p| (p.x(), p.y())).collect())
        .collect();
    (rules.to_string(), images)
}

/// White wins, Black wins, draws.
type Counts = [u64; 3];

#[derive(Default)]
struct Direct {
    by_rules: HashMap<String, Counts>,
    openings: HashMap<Orbit, Counts>,
    reasons: HashMap<String, u64>,
    plies: u64,
}

/// Counts `games.csv` rows with the csv crate alone.
fn direct_count(path: &Path, depth: usize) -> Direct {
    let mut direct = Direct::default();
    let mut reader = csv::Reader::from_path(path).unwrap();
    for row in reader.records() {
        let row = row.unwrap();
        let (variant, size, result, reason) = (&row[1], row[2].parse::<u8>().unwrap(), &row[5], &row[6]);
        let rules = if size == 19 { variant.to_string() } else { format!("{variant}/{size}") };
        let moves = parse_move_list(&row[10]).unwrap();
        let slot = match result {
            "white" => 0,
            "black" => 1,
            _ => 2,
        };
        for key in ["all", rules.as_str()] {
            direct.by_rules.entry(key.to_string()).or_default()[slot] += 1;
        }
        if slot < 2 {
            *direct.reasons.entry(reason.to_string()).or_default() += 1;
        }
        direct.plies += moves.len() as u64;
        if moves.len() >= depth {
            direct.openings.entry(orbit(&rules, size, &moves[..depth])).or_default()[slot] += 1;
        }
    }
    direct
}

fn outputs(path: &Path, depth: usize) -> (serde_json::Value, Vec<csv::StringRecord>, csv::StringRecord) {
    let mut stats = Stats::new(StatsOptions { depth, ..StatsOptions::default() });
    stats.read_files(&[path], false, |_| {}).unwrap();
    let report = stats.report(&ReportOptions { min_games: 1, top: 0, ..ReportOptions::default() });
    let mut json = Vec::new();
    report.write(Format::Json, &mut json).unwrap();
    let mut csv_text = Vec::new();
    report.write(Format::Csv, &mut csv_text).unwrap();
    let mut reader = csv::Reader::from_reader(csv_text.as_slice());
    let header = reader.headers().unwrap().clone();
    (serde_json::from_slice(&json).unwrap(), reader.records().map(Result::unwrap).collect(), header)
}

fn check(path: &Path, depth: usize) {
    let direct = direct_count(path, depth);
    let (json, rows, header) = outputs(path, depth);
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (section, rules, key, games) = (column("section"), column("rules"), column("key"), column("games"));
    let (white, black, draws) = (column("white"), column("black"), column("draws"));
    let number = |row: &csv::StringRecord, i: usize| row[i].parse::<u64>().unwrap();

    // Overall: JSON and CSV rows against the direct count.
    let overall: Vec<&csv::StringRecord> = rows.iter().filter(|r| &r[section] == "overall").collect();
    assert_eq!(overall.len(), direct.by_rules.len());
    assert_eq!(json["overall"].as_array().unwrap().len(), overall.len());
    for (row, value) in overall.iter().zip(json["overall"].as_array().unwrap()) {
        let counts = direct.by_rules[&row[rules]];
        let csv_counts = [number(row, white), number(row, black), number(row, draws)];
        assert_eq!(csv_counts, counts, "{}", &row[rules]);
        let json_counts = ["white", "black", "draws"].map(|k| value[k].as_u64().unwrap());
        assert_eq!(json_counts, counts, "{}", &row[rules]);
        assert_eq!(value["rules"], &row[rules]);
        assert_eq!(number(row, games), counts.iter().sum::<u64>());
    }
    let all = &json["overall"][0];
    assert_eq!(all["five"].as_u64(), Some(direct.reasons.get("five").copied().unwrap_or(0)));
    assert_eq!(all["captures"].as_u64(), Some(direct.reasons.get("captures").copied().unwrap_or(0)));
    let games_all = direct.by_rules["all"].iter().sum::<u64>();
    let average = (direct.plies as f64 / games_all as f64 * 100.0).round() / 100.0;
    assert_eq!(all["avg_plies"].as_f64(), Some(average));
    let percent = (direct.by_rules["all"][0] as f64 * 10000.0 / games_all as f64).round() / 100.0;
    assert_eq!(all["white_pct"].as_f64(), Some(percent));

    // Openings: every orbit once, with its counts, in both outputs.
    let openings: Vec<&csv::StringRecord> = rows.iter().filter(|r| &r[section] == "opening").collect();
    let json_openings = json["openings"].as_array().unwrap();
    assert_eq!(openings.len(), direct.openings.len(), "mirror images are merged, nothing else");
    assert_eq!(json_openings.len(), openings.len());
    for (row, value) in openings.iter().zip(json_openings) {
        let size = if row[rules].ends_with("/13") { 13 } else { 19 };
        let moves = parse_move_list(&row[key]).unwrap();
        let counts = direct.openings[&orbit(&row[rules], size, &moves)];
        assert_eq!([number(row, white), number(row, black), number(row, draws)], counts, "{}", &row[key]);
        assert_eq!(value["key"], &row[key]);
        assert_eq!(["white", "black", "draws"].map(|k| value[k].as_u64().unwrap()), counts);
        let low = row[column("white_score_low")].parse::<f64>().unwrap();
        let high = row[column("white_score_high")].parse::<f64>().unwrap();
        assert_eq!(value["white_score_low"].as_f64(), Some(low));
        assert!(low <= high);
    }
    // Sorted by games, most first.
    let counts: Vec<u64> = openings.iter().map(|r| number(r, games)).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]));
}

#[test]
fn outputs_agree_with_a_direct_count_of_the_fixture() {
    for depth in [1, 2, 3, 5] {
        check(&fixture(), depth);
    }
}

#[test]
fn outputs_agree_with_a_direct_count_of_the_sample_data() {
    for depth in [2, 3, 4] {
        check(&sample(), depth);
    }
}

#[test]
fn the_explorer_agrees_with_a_direct_count() {
    let path = sample();
    // Black's replies to K10 on 19x19, by orbit of the reply (K10 is fixed
    // by all 8 symmetries).
    let mut direct: HashMap<BTreeSet<(u8, u8)>, u64> = HashMap::new();
    let mut reader = csv::Reader::from_path(&path).unwrap();
    for row in reader.records() {
        let row = row.unwrap();
        let moves = parse_move_list(&row[10]).unwrap();
        if &row[2] == "19" && moves.len() >= 2 && moves[0].to_string() == "K10" {
            let images = Symmetry::ALL.iter().map(|s| s.apply(moves[1], 19)).map(|p| (p.x(), p.y())).collect();
            *direct.entry(images).or_default() += 1;
        }
    }
    let mut stats =
        Stats::new(StatsOptions { moves: Some(parse_move_list("K10").unwrap()), ..StatsOptions::default() });
    stats.read_files(&[&path], false, |_| {}).unwrap();
    let report = stats.report(&ReportOptions { min_games: 1, top: 0, ..ReportOptions::default() });
    let explorer = report.explorer.unwrap();
    assert_eq!(explorer.next.len(), direct.len());
    for row in &explorer.next {
        let point: Point = row.key.parse().unwrap();
        let images = Symmetry::ALL.iter().map(|s| s.apply(point, 19)).map(|p| (p.x(), p.y())).collect();
        assert_eq!(row.games, direct[&images], "{}", row.key);
    }
    let total: u64 = direct.values().sum();
    assert_eq!(explorer.positions[0].games, total);
    let shares: f64 = explorer.next.iter().map(|r| r.share_pct.unwrap()).sum();
    assert!((shares - 100.0).abs() < 0.1, "{shares}");
}
