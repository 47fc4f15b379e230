//! The `pente` command: one binary over the whole toolkit.

mod bench;
mod output;
mod replay;
mod validate;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Self-play training and analysis of the board game Pente.
#[derive(Debug, Parser)]
#[command(name = "pente", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Replay a move list and print the final position as one JSON object.
    Replay(replay::ReplayArgs),
    /// Check every game in PGN or move-list files against the rules.
    Validate(validate::ValidateArgs),
    /// Measure the speed of a component.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Replay(args) => replay::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Bench(command) => bench::run(command),
    };
    match result {
        Ok(code) => code,
        Err(error) if output::is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
