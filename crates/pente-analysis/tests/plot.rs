//! Pictures: heatmaps and training curves come out as PNG files of the
//! expected size; training files with bad rows name the line.

use std::fs;
use std::path::{Path, PathBuf};

use pente_analysis::plot::{BoardMap, write_campaign_comparison, write_heatmaps, write_training_curves};
use pente_analysis::training::{losses_by_iteration, read_elo, read_metrics};
use pente_analysis::{Stats, StatsOptions};
use pente_core::{Rules, parse_move_list};

fn workspace(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("pente-analysis-plot");
    fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Width and height of a PNG file, read back with the png decoder.
fn png_size(path: &Path) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::BufReader::new(fs::File::open(path).unwrap()));
    let reader = decoder.read_info().unwrap();
    let info = reader.info();
    (info.width, info.height)
}

fn board_map(moves: &str) -> BoardMap {
    let moves = parse_move_list(moves).unwrap();
    let rules = Rules::pente();
    let mut stats = Stats::new(StatsOptions { moves: Some(moves.clone()), size: Some(19), ..StatsOptions::default() });
    stats.read_files(&[workspace("data/sample-selfplay/games.csv")], false, |_| {}).unwrap();
    BoardMap::new(&stats, rules, &moves).unwrap()
}

#[test]
fn heatmaps_of_the_reply_to_the_centre_and_the_third_move() {
    let first = board_map("K10");
    assert!(first.games > 100);
    assert!(first.forbidden.is_empty(), "Black's reply is free");
    // Mirror images share one cell each: K10 is fixed by all 8 symmetries.
    let reply = first.most_played().unwrap();
    let cell = first.cells[&reply];
    assert!(cell.images == 4 || cell.images == 8);
    let share_sum: f64 = first.cells.values().map(|c| c.share(first.games)).sum();
    assert!((share_sum - 1.0).abs() < 1e-9, "the shares of all points add up to 1: {share_sum}");

    let second = board_map(&format!("K10 {reply}"));
    assert_eq!(second.stones.len(), 2);
    // The tournament rule: White's third move keeps out of the central 5x5.
    let inside = usize::from(reply.distance(Rules::pente().centre()) < 3);
    assert_eq!(second.forbidden.len(), 25 - 1 - inside);
    assert!(second.cells.keys().all(|p| !second.forbidden.contains(p)));

    let path = scratch("heatmap.png");
    write_heatmaps(&[first, second], 3, &path).unwrap();
    assert_eq!(png_size(&path), (1120, 2 * 626));
    assert!(
        BoardMap::new(&Stats::new(StatsOptions::default()), Rules::pente(), &parse_move_list("K10 K10").unwrap())
            .is_err()
    );
}

#[test]
fn training_curves_from_the_example_run() {
    let metrics = read_metrics(&workspace("data/sample-run/metrics.csv")).unwrap();
    let elo = read_elo(&workspace("data/sample-run/elo.csv")).unwrap();
    let losses = losses_by_iteration(&metrics);
    assert_eq!(losses.len(), 12);
    assert!(losses.windows(2).all(|w| w[0].iteration < w[1].iteration));
    assert!(losses[0].policy_loss > losses[11].policy_loss);
    assert_eq!(elo.len(), 7);
    let path = scratch("curves.png");
    write_training_curves(&losses, &elo, "example", &path).unwrap();
    assert_eq!(png_size(&path), (1000, 40 + 3 * 300));
    // Losses alone, or ratings alone, make smaller pictures.
    write_training_curves(&losses, &[], "losses", &path).unwrap();
    assert_eq!(png_size(&path), (1000, 40 + 2 * 300));
    write_training_curves(&[], &elo, "elo", &path).unwrap();
    assert_eq!(png_size(&path), (1000, 40 + 300));
    assert!(write_training_curves(&[], &[], "nothing", &path).is_err());
}

/// Runs before the loop measured CPU time have no `cpu_hours`; a campaign's
/// table has it on every row and is drawn by CPU-hour.
#[test]
fn ratings_by_cpu_hour() {
    let old = read_elo(&workspace("data/sample-run/elo.csv")).unwrap();
    assert!(old.iter().all(|r| r.cpu_hours.is_none()));
    let path = scratch("elo-hours.csv");
    fs::write(
        &path,
        "iteration,model,elo,elo_low,elo_high,games,cpu_hours\n\
         0,c-0,0.0,0.0,0.0,0,5.6\n\
         0,heuristic@64,-436.4,-759.1,-292.5,40,5.6\n\
         1,c-1,214.8,104.2,390.4,40,6.6\n\
         1,c-1 (final),127.0,20.8,263.6,40,6.6\n",
    )
    .unwrap();
    let elo = read_elo(&path).unwrap();
    assert_eq!(elo.iter().map(|r| r.cpu_hours.unwrap()).collect::<Vec<_>>(), [5.6, 5.6, 6.6, 6.6]);
    let picture = scratch("elo-hours.png");
    write_training_curves(&[], &elo, "campaign", &picture).unwrap();
    assert_eq!(png_size(&picture), (1000, 40 + 300));

    // Two campaigns in one chart; a table without CPU-hours cannot join it.
    let both = scratch("campaigns.png");
    let wide: Vec<_> = elo
        .iter()
        .map(|r| pente_analysis::training::EloRow { cpu_hours: r.cpu_hours.map(|h| h + 1.0), ..r.clone() })
        .collect();
    write_campaign_comparison(&[("c".into(), elo.clone()), ("wide".into(), wide)], "two", &both).unwrap();
    assert_eq!(png_size(&both), (1000, 560));
    // More lines than colours: the second round is dashed.
    let many: Vec<(String, Vec<_>)> = (0..7).map(|k| (format!("c{k}"), elo.clone())).collect();
    write_campaign_comparison(&many, "fourteen lines", &both).unwrap();
    assert_eq!(png_size(&both), (1000, 560));
    let error = write_campaign_comparison(&[("c".into(), elo), ("old".into(), old)], "x", &both).unwrap_err();
    assert!(error.to_string().contains("old: ") && error.to_string().contains("CPU-hours"), "{error}");
}

#[test]
fn bad_training_files_name_the_line() {
    let path = scratch("metrics.csv");
    fs::write(
        &path,
        "iteration,step,samples,policy_loss,value_loss,learning_rate,samples_per_second\n\
         1,100,6400,4.5,0.9,0.02,2000\n\
         2,200,12800,four,0.8,0.02,2000\n",
    )
    .unwrap();
    let error = read_metrics(&path).unwrap_err();
    assert_eq!(error.line, Some(3), "{error}");
    assert!(error.to_string().contains("metrics.csv:3:"), "{error}");

    // Columns are found by name; extra ones are fine, missing ones are not.
    fs::write(&path, "step,iteration,policy_loss,value_loss,extra\n5,1,4.0,0.5,x\n").unwrap();
    let rows = read_metrics(&path).unwrap();
    assert_eq!((rows[0].iteration, rows[0].step, rows[0].samples), (1, 5, None));
    fs::write(&path, "iteration,step,value_loss\n1,5,0.5\n").unwrap();
    let error = read_metrics(&path).unwrap_err();
    assert!(error.message.contains("policy_loss"), "{error}");

    // Rows of networks without the auxiliary heads end before `aux_loss`.
    fs::write(
        &path,
        "iteration,step,samples,policy_loss,value_loss,learning_rate,samples_per_second,aux_loss\n\
         1,100,6400,3.0,0.9,2.0e-3,1000.0\n\
         2,200,12800,2.5,0.8,2.0e-3,1000.0,0.7\n",
    )
    .unwrap();
    let rows = read_metrics(&path).unwrap();
    assert_eq!((rows[0].aux_loss, rows[1].aux_loss), (None, Some(0.7)));
}
