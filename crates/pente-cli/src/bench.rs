//! `pente bench`: speed figures of the toolkit's components.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use pente_core::{EndReason, Position, Rules, Variant};
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// What to measure.
#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Random playouts on one thread: stone placements (with capture and
    /// five detection and random move choice) per second, and games per second.
    Rules(RulesBenchArgs),
}

/// Arguments of `pente bench rules`.
#[derive(Debug, Args)]
pub struct RulesBenchArgs {
    /// Variants to measure (repeat the flag for several); all by default.
    #[arg(long)]
    variant: Vec<Variant>,
    /// Board side, odd, 7 to 19.
    #[arg(long, default_value_t = 19)]
    size: u8,
    /// Seconds of playouts per variant.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Seed of the random playouts.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs a `pente bench` subcommand.
pub fn run(command: &BenchCommand) -> anyhow::Result<ExitCode> {
    match command {
        BenchCommand::Rules(args) => bench_rules(args),
    }
}

#[derive(Default)]
struct Tally {
    games: u64,
    placements: u64,
    wins: [u64; 2],
    draws: u64,
    fives: u64,
    capture_wins: u64,
}

fn bench_rules(args: &RulesBenchArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(args.seconds > 0.0 && args.seconds.is_finite(), "--seconds must be a positive number");
    let variants = if args.variant.is_empty() { Variant::ALL.to_vec() } else { args.variant.clone() };
    println!("random playouts, one thread, {0}x{0}, {1} s per variant, seed {2}", args.size, args.seconds, args.seed);
    println!(
        "{:<13} {:>8} {:>11} {:>10} {:>14} {:>10} {:>7} {:>7} {:>6} {:>7} {:>9}",
        "variant",
        "games",
        "placements",
        "plies/game",
        "placements/s",
        "games/s",
        "white%",
        "black%",
        "draw%",
        "five%",
        "captures%"
    );
    for variant in variants {
        let rules = Rules::new(variant, args.size)?;
        let (tally, elapsed) = playouts(rules, args.seed, Duration::from_secs_f64(args.seconds));
        let games = tally.games as f64;
        let pct = |n: u64| 100.0 * n as f64 / games;
        println!(
            "{:<13} {:>8} {:>11} {:>10.1} {:>14.0} {:>10.0} {:>7.2} {:>7.2} {:>6.2} {:>7.2} {:>9.2}",
            variant.name(),
            tally.games,
            tally.placements,
            tally.placements as f64 / games,
            tally.placements as f64 / elapsed,
            games / elapsed,
            pct(tally.wins[0]),
            pct(tally.wins[1]),
            pct(tally.draws),
            pct(tally.fives),
            pct(tally.capture_wins),
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Plays random games for about `budget`; returns the tally and the seconds spent.
fn playouts(rules: Rules, seed: u64, budget: Duration) -> (Tally, f64) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut tally = Tally::default();
    let start = Instant::now();
    // Check the clock every batch of games, not every game.
    while start.elapsed() < budget {
        for _ in 0..64 {
            let (outcome, placements) = Position::new(rules).random_playout(&mut rng);
            tally.games += 1;
            tally.placements += u64::from(placements);
            match outcome.winner {
                Some(color) => tally.wins[color.index()] += 1,
                None => tally.draws += 1,
            }
            match outcome.reason {
                EndReason::Five => tally.fives += 1,
                EndReason::Captures => tally.capture_wins += 1,
                EndReason::Full => {}
            }
        }
    }
    (tally, start.elapsed().as_secs_f64())
}
