//! `pente loop`: self-play, train, evaluate, promote, again.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use pente_train::{LoopConfig, LoopEvent, final_matches, run_loop};

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
    let bars = MultiProgress::new();
    if args.quiet {
        bars.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let bar = bars.add(ProgressBar::new(0));
    let style = |template: &str| ProgressStyle::with_template(template).expect("a valid template");
    let state = run_loop(&config, &backend, &mut |event| match event {
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
