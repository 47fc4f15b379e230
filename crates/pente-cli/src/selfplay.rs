//! `pente selfplay`: generate a self-play dataset.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use pente_nn::BurnBackend;
use pente_search::Backend;
use pente_selfplay::{ModelSource, Progress, SelfPlayConfig};

use crate::player::BackendArgs;

/// Arguments of `pente selfplay`; flags override the config file.
#[derive(Debug, Args)]
pub struct SelfPlayArgs {
    /// The settings (TOML), e.g. configs/selfplay.toml.
    #[arg(long, default_value = "configs/selfplay.toml")]
    config: PathBuf,
    /// Games the output should hold when done (a rerun continues up to it).
    #[arg(long)]
    games: Option<u64>,
    /// A model directory (or its ONNX file, e.g. `DIR/model.int8.onnx`, on ONNX Runtime), or
    /// `heuristic` / `uniform`.
    #[arg(long, conflicts_with = "store")]
    model: Option<String>,
    /// Play with the current model of a store of distributed self-play (a
    /// directory or an object store URL). `pente worker` commits its games there.
    #[arg(long, value_name = "STORE")]
    store: Option<String>,
    /// Output directory (games.csv, games.jsonl, samples.bin, selfplay.toml).
    #[arg(long, default_value = "runs/selfplay")]
    out: PathBuf,
    /// Worker threads (0 = one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Seed of the run.
    #[arg(long)]
    seed: Option<u64>,
    /// No progress bar; only the summary.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

/// Runs `pente selfplay`.
pub fn run(args: &SelfPlayArgs) -> anyhow::Result<ExitCode> {
    let mut config = SelfPlayConfig::load(&args.config)?;
    if let Some(games) = args.games {
        config.games = games;
    }
    if let Some(model) = &args.model {
        config.model.clone_from(model);
    }
    if let Some(spec) = &args.store {
        let store = pente_store::Store::open(spec)?;
        config.model = store.fetch_model(&store.current_model()?)?.display().to_string();
    }
    if let Some(threads) = args.threads {
        config.threads = threads;
    }
    if let Some(seed) = args.seed {
        config.seed = seed;
    }
    config.check().map_err(|e| anyhow::anyhow!("{}: {e}", args.config.display()))?;
    let model = ModelSource::parse(&config.model);
    let backend: Arc<dyn Backend> =
        if matches!(model, ModelSource::Network(_)) { args.backend.choose()? } else { Arc::new(BurnBackend::cpu()) };
    let bar = if args.quiet { ProgressBar::hidden() } else { ProgressBar::new(config.games) };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games  {elapsed_precise} eta {eta}  {msg}")
            .expect("a valid template"),
    );
    let started = Instant::now();
    let mut first = true;
    let progress = pente_selfplay::run(&config, &args.out, &model, backend.as_ref(), &mut |p: &Progress| {
        if first {
            bar.set_position(p.games - 1);
            bar.reset_eta();
            first = false;
        }
        bar.set_position(p.games);
        bar.set_message(format!(
            "{:.2} games/s  {:.1} moves/game  white {:.0}% black {:.0}% draw {:.0}%",
            p.new_games as f64 / started.elapsed().as_secs_f64(),
            p.mean_plies(),
            percent(p.wins[0], p.new_games),
            percent(p.wins[1], p.new_games),
            percent(p.wins[2], p.new_games),
        ));
    })
    .with_context(|| format!("self-play into {}", args.out.display()))?;
    bar.finish_and_clear();
    print_summary(&progress, started.elapsed().as_secs_f64(), &args.out);
    Ok(ExitCode::SUCCESS)
}

fn percent(n: u64, of: u64) -> f64 {
    100.0 * n as f64 / of.max(1) as f64
}

fn print_summary(p: &Progress, seconds: f64, out: &std::path::Path) {
    println!("{}: {} games ({} new in {seconds:.1} s)", out.display(), p.games, p.new_games);
    if p.new_games == 0 {
        return;
    }
    println!(
        "new games: white {} ({:.1} %), black {} ({:.1} %), draws {} ({:.1} %); by five {}, by captures {}, resigned {}",
        p.wins[0],
        percent(p.wins[0], p.new_games),
        p.wins[1],
        percent(p.wins[1], p.new_games),
        p.wins[2],
        percent(p.wins[2], p.new_games),
        p.fives,
        p.capture_wins,
        p.resigned
    );
    println!(
        "{:.1} moves per game, {:.0} games/hour, {:.1} positions/s ({} training samples)",
        p.mean_plies(),
        3600.0 * p.new_games as f64 / seconds,
        p.plies as f64 / seconds,
        p.samples
    );
    if p.resign_checks > 0 {
        println!(
            "resignation check: {} of {} played-out games would have been resigned wrongly ({:.1} %)",
            p.false_resigns,
            p.resign_checks,
            percent(p.false_resigns, p.resign_checks)
        );
    }
}
