//! `pente loop`: self-play, train, evaluate, promote, again.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use pente_train::{LoopConfig, LoopEvent, StoreLoop, final_matches, run_loop};

use crate::player::BackendArgs;

/// Arguments of `pente loop`.
#[derive(Debug, Args)]
pub struct LoopArgs {
    /// Loop settings (TOML).
    #[arg(long, default_value = "configs/loop-quick.toml")]
    config: PathBuf,
    /// Iterations to reach; overrides the config.
    #[arg(long)]
    iterations: Option<u32>,
    /// Only stage lines and the final table, no progress bars.
    #[arg(long, short)]
    quiet: bool,
    /// Train on the games of a store's workers (`pente worker`) and publish
    /// promoted networks there; the run starts from the store's current model.
    #[arg(long, value_name = "STORE")]
    store: Option<String>,
    /// With --store: play self-play too while waiting for the workers' games.
    #[arg(long, requires = "store")]
    selfplay: bool,
    /// With --store: seconds between looks at the store while waiting.
    #[arg(long, default_value_t = 5.0, requires = "store")]
    poll: f64,
    #[command(flatten)]
    backend: BackendArgs,
}

/// Runs `pente loop`, then prints the Elo table.
pub fn run(args: &LoopArgs) -> anyhow::Result<ExitCode> {
    let mut config = LoopConfig::load(&args.config)?;
    if let Some(iterations) = args.iterations {
        config.iterations = iterations;
    }
    let backend = args.backend.choose()?;
    let store = args.store.as_deref().map(pente_store::Store::open).transpose()?;
    let poll = std::time::Duration::try_from_secs_f64(args.poll).map_err(|e| anyhow::anyhow!("--poll: {e}"))?;
    let link = store.as_ref().map(|store| StoreLoop { store, selfplay: args.selfplay, poll });
    let bars = MultiProgress::new();
    if args.quiet {
        bars.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let bar = bars.add(ProgressBar::new(0));
    let style = |template: &str| ProgressStyle::with_template(template).expect("a valid template");
    let state = run_loop(&config, backend.as_ref(), link.as_ref(), &mut |event| match event {
        LoopEvent::Stage { iteration, stage, detail } => {
            bar.finish_and_clear();
            bars.suspend(|| println!("iteration {iteration}: {stage} ({detail})"));
            bar.reset();
            bar.set_position(0);
        }
        LoopEvent::Game(p) => {
            bar.set_style(style("  selfplay {bar:30} {pos}/{len} games  eta {eta}  {msg}"));
            bar.set_length(p.target);
            bar.set_position(p.games);
            bar.set_message(format!("{:.1} moves/game", p.mean_plies()));
        }
        LoopEvent::StoreGames { have, want } => {
            bar.set_style(style("  store    {bar:30} {pos}/{len} games  (waiting for the workers)"));
            bar.set_length(want);
            bar.set_position(have.min(want));
        }
        LoopEvent::SetAside { manifest, reason } => {
            bars.suspend(|| eprintln!("store: set aside {manifest}: {reason}"));
        }
        LoopEvent::Step(s) => {
            bar.set_style(style("  train    {bar:30} {pos}/{len} steps  eta {eta}  {msg}"));
            crate::train::show_step(&bar, s);
        }
        LoopEvent::ArenaGame { done, total } => {
            bar.set_style(style("  arena    {bar:30} {pos}/{len} games  eta {eta}"));
            bar.set_length(u64::from(total));
            bar.set_position(u64::from(done));
        }
        LoopEvent::Timing(times) => {
            bar.finish_and_clear();
            bars.suspend(|| println!("iteration {}: {}", times.iteration, times.summary()));
        }
        LoopEvent::Match(result) => {
            bar.finish_and_clear();
            bars.suspend(|| println!("  {result}"));
        }
    })?;
    bar.finish_and_clear();
    println!("\nElo table ({}):", config.run_dir().join("elo.csv").display());
    println!("{:>9}  {:<32} {:>8} {:>17} {:>6}", "iteration", "player", "elo", "95 % interval", "games");
    for e in &state.table {
        println!(
            "{:>9}  {:<32} {:>+8.0} {:>17} {:>6}",
            e.iteration,
            e.model,
            e.elo,
            if e.games > 0 { format!("{:+.0} to {:+.0}", e.elo_low, e.elo_high) } else { "reference".into() },
            e.games
        );
    }
    println!("best network: {}", state.best.display());
    if let Some(latest) = state.latest.as_ref().filter(|latest| **latest != state.best) {
        println!("newest candidate, which the next iteration goes on from: {}", latest.display());
    }
    let matches = final_matches(&config, &state);
    if !matches.is_empty() {
        println!("\nthe final network at {} visits:", config.arena.visits);
        for m in &matches {
            println!(
                "  against {:<24} {:>3}-{}-{} ({:.1} %): {}",
                m.b,
                m.wins,
                m.losses,
                m.draws,
                100.0 * m.score,
                m.verdict()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
