//! `pente solve`: the threat-space solver alone on a position.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use pente_search::solver::{Solver, SolverParams};

/// Arguments of `pente solve`.
#[derive(Debug, Args)]
pub struct SolveArgs {
    #[command(flatten)]
    position: crate::PositionArgs,
    /// Longest win looked for, in moves of the side to move (win in N).
    #[arg(long, default_value_t = 12)]
    depth: u8,
    /// Quiet threats (open threes, moves that threaten a VCF) allowed in a line; 0 looks for VCF only.
    #[arg(long, default_value_t = 2)]
    threes: u8,
    /// Moves the solver may play, for each candidate first move.
    #[arg(long, default_value_t = 1_000_000)]
    nodes: u64,
    /// Also try every other first move and list all that win.
    #[arg(long)]
    all: bool,
    /// Count only open threes as quiet threats, not moves that threaten a
    /// VCF (as the search's root solve does: faster, finds fewer wins).
    #[arg(long)]
    no_vcf_threats: bool,
}

/// Runs `pente solve`; a bad position exits with code 2.
pub fn run(args: &SolveArgs) -> anyhow::Result<ExitCode> {
    let game = args.position.game()?;
    let position = game.position();
    let rules = position.rules();
    let params = SolverParams {
        max_depth: args.depth,
        max_threes: args.threes,
        max_nodes: args.nodes,
        vcf_threats: !args.no_vcf_threats,
    };
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "position: {} {}x{}, {} moves played, {} to move",
        rules.variant(),
        rules.size(),
        rules.size(),
        position.ply(),
        position.to_move()
    )?;
    if let Some(outcome) = position.outcome() {
        writeln!(out, "the game is over: {outcome}")?;
        return Ok(ExitCode::SUCCESS);
    }
    if !pente_search::solver::sound_at(position) {
        let why = if !position.seats_decided() {
            "before the colour choice the player placing a stone may not end up with its colour"
        } else if rules.two_stone_turns() {
            "its turns are two stones"
        } else {
            "its moves can remove the mover's own stones, or its fives can wait a move"
        };
        return Err(crate::usage_error(&format!("the solver does not read {} positions here: {why}", rules.variant())));
    }
    let mut solver = Solver::default();
    let start = Instant::now();
    let solution = solver.solve(position, &params);
    let seconds = start.elapsed().as_secs_f64();
    let budget = format!("{} nodes in {seconds:.2} s", solution.nodes);
    match (&solution.line, solution.moves_to_win()) {
        (Some(line), Some(n)) => {
            let moves: Vec<String> = line.iter().map(ToString::to_string).collect();
            writeln!(out, "{} wins in {n}: {}  ({budget})", position.to_move(), moves.join(" "))?;
        }
        _ => {
            let why = if solution.exhausted { "the node budget ran out" } else { "searched to the end" };
            writeln!(
                out,
                "no forced win found for {} within {} moves and {} three(s) ({why}; {budget})",
                position.to_move(),
                args.depth,
                args.threes
            )?;
        }
    }
    if args.all {
        let start = Instant::now();
        let wins = solver.winning_moves(position, &params);
        let list: Vec<String> = wins.iter().map(|(p, n)| format!("{p} (in {n})")).collect();
        writeln!(
            out,
            "winning first moves: {}  ({:.2} s)",
            if list.is_empty() { "none found".to_string() } else { list.join(", ") },
            start.elapsed().as_secs_f64()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
