//! The `pente` command: one binary over the whole toolkit.

mod allocator;
mod analyze;
mod arena;
mod bench;
mod book;
mod engine;
mod export;
mod improve;
mod model;
mod output;
mod play;
mod player;
mod plot;
mod replay;
mod selfplay;
mod serve;
mod solve;
mod stats;
mod store;
mod train;
mod validate;

use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use pente_core::{Game, Rules, Variant};

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
    /// Check every game in PGN, move-list, games.csv or games.jsonl files against the rules.
    Validate(validate::ValidateArgs),
    /// Search a position and list the candidate moves with visits, prior and win rate.
    Analyze(analyze::AnalyzeArgs),
    /// Look for a forced win of the side to move with the threat-space solver alone.
    Solve(solve::SolveArgs),
    /// Play the engine in the terminal.
    Play(play::PlayArgs),
    /// Serve analysis requests as JSON lines on stdin and stdout.
    Engine(engine::EngineArgs),
    /// Generate self-play games: games.csv, games.jsonl and training samples.
    Selfplay(selfplay::SelfPlayArgs),
    /// Train a network on self-play samples.
    Train(train::TrainArgs),
    /// Play two players against each other; report the score and Elo.
    Arena(arena::ArenaArgs),
    /// The self-improvement loop: self-play, train, evaluate, promote, repeat.
    Loop(improve::LoopArgs),
    /// Create or inspect a store of distributed self-play (models and chunks).
    #[command(subcommand)]
    Store(store::StoreCommand),
    /// A stateless self-play worker: plays chunks with a store's current model and commits them there.
    Worker(store::WorkerArgs),
    /// Create or inspect network model directories.
    #[command(subcommand)]
    Model(model::ModelCommand),
    /// Measure the speed of a component.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Write datasets for other tools: samples as a NumPy .npz.
    #[command(subcommand)]
    Export(export::ExportCommand),
    /// Win statistics of game files: overall, per opening, or the next moves from a position.
    Stats(stats::StatsArgs),
    /// Draw PNG pictures: next-move heatmaps on the board, training curves,
    /// several campaigns' Elo by CPU-hour.
    #[command(subcommand)]
    Plot(plot::PlotCommand),
    /// A web board in the browser: play, live analysis, game viewer, opening explorer.
    Serve(serve::ServeArgs),
    /// Opening books grown by strong self-play: build, show, and the fairness table.
    #[command(subcommand)]
    Book(book::BookCommand),
}

fn main() -> ExitCode {
    allocator::keep_freed_memory();
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Replay(args) => replay::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Analyze(args) => analyze::run(args),
        Command::Solve(args) => solve::run(args),
        Command::Play(args) => play::run(args),
        Command::Engine(args) => engine::run(args),
        Command::Selfplay(args) => selfplay::run(args),
        Command::Train(args) => train::run(args),
        Command::Arena(args) => arena::run(args),
        Command::Loop(args) => improve::run(args),
        Command::Store(command) => store::run(command),
        Command::Worker(args) => store::worker(args),
        Command::Model(command) => model::run(command),
        Command::Bench(command) => bench::run(command),
        Command::Book(command) => book::run(command),
        Command::Export(command) => export::run(command),
        Command::Stats(args) => stats::run(args),
        Command::Plot(command) => plot::run(command),
        Command::Serve(args) => serve::run(args),
    };
    match result {
        Ok(code) => code,
        Err(error) if output::is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) if error.downcast_ref::<UsageError>().is_some() => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
        Err(error) => {
            eprintln!("error: {}", output::describe(&error));
            ExitCode::FAILURE
        }
    }
}

/// A bad position, move list or board size given on the command line:
/// reported on one line with exit code 2.
#[derive(Debug)]
struct UsageError(String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// A [`UsageError`] saying `message`.
fn usage_error(message: &dyn std::fmt::Display) -> anyhow::Error {
    UsageError(message.to_string()).into()
}

/// Parses `--variant`; `--help` and the error for an unknown name list
/// every variant.
fn variant_parser() -> impl clap::builder::TypedValueParser<Value = Variant> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Variant::ALL.map(Variant::name))
        .map(|name| name.parse::<Variant>().expect("the names listed are variants"))
}

/// The rules of `variant` on a `size` board.
fn rules(variant: Variant, size: u8) -> anyhow::Result<Rules> {
    Rules::new(variant, size).map_err(|e| usage_error(&e))
}

/// A position as the moves that reach it (`analyze`, `solve`).
#[derive(Debug, Args)]
struct PositionArgs {
    /// Moves from the empty board, White first: "K10 L9 K7".
    #[arg(long, allow_hyphen_values = true, default_value = "")]
    moves: String,
    /// Rule variant (the README's variant table says what each is).
    #[arg(value_parser = crate::variant_parser(), ignore_case = true, long, default_value = "pente")]
    variant: Variant,
    /// Board side, odd, 7 to 19.
    #[arg(long, default_value_t = 19)]
    size: u8,
}

impl PositionArgs {
    /// The game of these moves; a bad move is a usage error.
    fn game(&self) -> anyhow::Result<Game> {
        replay_moves(self.variant, self.size, &self.moves)
    }
}

/// Replays `moves` from the empty board.
fn replay_moves(variant: Variant, size: u8, moves: &str) -> anyhow::Result<Game> {
    Game::from_move_list(rules(variant, size)?, moves).map_err(|e| usage_error(&e))
}
