//! `pente replay`: replay a move list, print the final position as JSON.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use pente_core::{Color, Position, Seat, Variant};
use pente_nn::features::Features;
use serde::Serialize;

/// Arguments of `pente replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// Rule variant (the README's variant table says what each is).
    #[arg(value_parser = crate::variant_parser(), ignore_case = true, long, default_value = "pente")]
    variant: Variant,
    /// Board side, odd, 7 to 19.
    #[arg(long, default_value_t = 19)]
    size: u8,
    /// Moves, White first: "K10 L9 K7" or "1. K10 L9 2. K7".
    #[arg(long, allow_hyphen_values = true)]
    moves: String,
    /// Also print the network's input planes of the final position in this
    /// features version (1 or 2): `features`, plane by plane, rows from row 1.
    #[arg(long, value_name = "VERSION")]
    features: Option<u32>,
}

/// The final position as `pente replay` prints it.
#[derive(Debug, Serialize)]
struct PositionReport {
    variant: Variant,
    size: u8,
    plies: u32,
    to_move: Color,
    /// Stones captured BY each side.
    captured: Captured,
    result: Option<&'static str>,
    reason: Option<&'static str>,
    /// Top row first, `W`, `B` and `.`.
    board: Vec<String>,
    last_move: Option<String>,
    hash: String,
    /// Who must choose a colour now (D-Pente, Swap2): `p1`, `p2` or null.
    choice: Option<Seat>,
    /// Whether the colours were exchanged (the first player holds Black).
    swapped: bool,
    /// The input planes, when asked for: `[planes][size * size]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    features: Option<Vec<Vec<f32>>>,
}

#[derive(Debug, Serialize)]
struct Captured {
    white: u16,
    black: u16,
}

impl PositionReport {
    fn new(position: &Position) -> PositionReport {
        let rules = position.rules();
        let outcome = position.outcome();
        PositionReport {
            variant: rules.variant(),
            size: rules.size(),
            plies: position.ply(),
            to_move: position.to_move(),
            captured: Captured { white: position.captured(Color::White), black: position.captured(Color::Black) },
            result: outcome.map(|o| o.winner.map_or("draw", Color::name)),
            reason: outcome.map(|o| o.reason.name()),
            board: position.board_rows(),
            last_move: position.last_move().map(|p| p.to_string()),
            hash: format!("{:016x}", position.hash()),
            choice: position.choice_pending(),
            swapped: position.swapped(),
            features: None,
        }
    }
}

/// Runs `pente replay`. A bad move list exits with code 2 and one line on stderr.
pub fn run(args: &ReplayArgs) -> anyhow::Result<ExitCode> {
    let game = crate::replay_moves(args.variant, args.size, &args.moves)?;
    let mut report = PositionReport::new(game.position());
    if let Some(version) = args.features {
        let kind = Features::from_version(version)?;
        let area = game.rules().area();
        let mut planes = vec![0.0; kind.planes() * area];
        kind.encode(game.position(), &mut planes);
        report.features = Some(planes.chunks(area).map(<[f32]>::to_vec).collect());
    }
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer(&mut stdout, &report).context("writing the position")?;
    writeln!(stdout).context("writing the position")?;
    Ok(ExitCode::SUCCESS)
}
