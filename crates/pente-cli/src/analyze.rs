//! `pente analyze`: search a position and print the candidate moves.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use pente_core::{Color, Point, Position};
use pente_search::{Proof, Search, SearchParams, SearchResult};

use crate::player::{BackendArgs, LazyBackend, load_evaluator};

/// Arguments of `pente analyze`.
#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    position: crate::PositionArgs,
    /// Network directory (or its ONNX file, e.g. `DIR/model.int8.onnx`, on ONNX Runtime), or
    /// `heuristic` / `uniform`; default: the shipped network, else the heuristic.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Playouts.
    #[arg(long, default_value_t = 800)]
    visits: u32,
    /// Candidate moves to list.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Use Gumbel root selection (sequential halving).
    #[arg(long)]
    gumbel: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

/// Runs `pente analyze`; a bad position exits with code 2.
pub fn run(args: &AnalyzeArgs) -> anyhow::Result<ExitCode> {
    let game = args.position.game()?;
    let rules = *game.rules();
    let loaded = load_evaluator(args.model.as_deref(), &mut LazyBackend::new(&args.backend))?;
    let params = SearchParams {
        visits: args.visits.max(1),
        gumbel: args.gumbel.then(Default::default),
        ..SearchParams::default()
    };
    let position = game.position().clone();
    let result = Search::new(position.clone(), params, 0).run(loaded.evaluator.as_ref());
    let mut out = std::io::stdout().lock();
    writeln!(out, "evaluator: {}", loaded.description)?;
    writeln!(
        out,
        "position: {} {}x{}, {} moves played, {}, captured: white {} black {}",
        rules.variant(),
        rules.size(),
        rules.size(),
        position.ply(),
        whose_turn(&position),
        position.captured(Color::White),
        position.captured(Color::Black)
    )?;
    write_result(&mut out, &result, args.top)?;
    Ok(ExitCode::SUCCESS)
}

pub use pente_web::protocol::winrate;

/// `white to move`; in D-Pente and Swap2 also who places the stone, or who
/// must choose and between what.
pub(crate) fn whose_turn(position: &Position) -> String {
    if let Some(chooser) = position.choice_pending() {
        let choices: Vec<String> = position.choices().iter().map(Point::to_string).collect();
        return format!("{chooser} to choose: {}", choices.join(", "));
    }
    if position.rules().colour_choice().is_none() {
        return format!("{} to move", position.to_move());
    }
    format!("{} to move ({})", position.to_move(), position.actor())
}

fn write_result(out: &mut impl Write, result: &SearchResult, top: usize) -> std::io::Result<()> {
    let Some(best) = result.best_move else {
        return writeln!(out, "the game is over");
    };
    let proof = match result.proof {
        Proof::Win => " (proven win)",
        Proof::Loss => " (proven loss)",
        Proof::Draw => " (proven draw)",
        Proof::Unknown => "",
    };
    writeln!(
        out,
        "best move: {best}  win rate {:.1} %{proof}  ({} visits)",
        100.0 * winrate(result.value),
        result.visits
    )?;
    if let Some(n) = result.moves_to_end() {
        let line: Vec<String> = result.proven_line.iter().map(ToString::to_string).collect();
        let kind = if result.proof == Proof::Win { "win" } else { "loss" };
        writeln!(out, "proven {kind} in {n}: {}", line.join(" "))?;
    }
    writeln!(out, "{:<6} {:>7} {:>8} {:>9}", "move", "visits", "prior", "win rate")?;
    for candidate in result.candidates.iter().take(top) {
        let rate = match (candidate.proof, candidate.value) {
            (Proof::Win, _) => "win".to_string(),
            (Proof::Loss, _) => "loss".to_string(),
            (_, Some(value)) => format!("{:.1} %", 100.0 * winrate(value)),
            (_, None) => "-".to_string(),
        };
        writeln!(
            out,
            "{:<6} {:>7} {:>7.1}% {:>9}",
            candidate.point.to_string(),
            candidate.visits,
            100.0 * candidate.prior,
            rate
        )?;
    }
    Ok(())
}
