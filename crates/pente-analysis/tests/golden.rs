//! The table and Markdown formats against golden files. After a deliberate
//! change of format, rewrite them with `UPDATE_GOLDEN=1 cargo test -p pente-analysis --test golden`.

use std::fs;
use std::path::{Path, PathBuf};

use pente_analysis::{Format, ReportOptions, SortKey, Stats, StatsOptions};
use pente_core::parse_move_list;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn render(options: StatsOptions, format: Format) -> String {
    let mut stats = Stats::new(options);
    stats.read_files(&[data("games.csv"), data("games.pgn")], false, |_| {}).unwrap();
    let mut report = stats.report(&ReportOptions { min_games: 1, sort: SortKey::Games, top: 8 });
    report.files = vec!["games.csv".into(), "games.pgn".into()];
    let mut out = Vec::new();
    report.write(format, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn golden(name: &str, actual: &str) {
    let path = data(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        fs::write(&path, actual).unwrap();
    }
    let expected = fs::read_to_string(&path).unwrap_or_default();
    assert!(expected == actual, "{name} differs from the output:\n{actual}");
}

#[test]
fn openings_as_a_table_and_as_markdown() {
    golden("golden-openings.txt", &render(StatsOptions::default(), Format::Table));
    golden("golden-openings.md", &render(StatsOptions::default(), Format::Markdown));
}

#[test]
fn the_explorer_as_a_table() {
    let options = StatsOptions { moves: Some(parse_move_list("G7").unwrap()), ..StatsOptions::default() };
    golden("golden-explorer.txt", &render(options, Format::Table));
}
