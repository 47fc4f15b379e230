//! `pente play`: a human against the engine in the terminal.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use pente_core::{Color, Game, Point, Position, Variant, column_letter};
use pente_search::{Search, SearchParams};

use crate::analyze::winrate;
use crate::player::{BackendArgs, LazyBackend, load_evaluator};

/// The colour the human plays.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Side {
    White,
    Black,
}

/// Arguments of `pente play`.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// Network directory, or `heuristic` / `uniform`; default: the shipped network, else the heuristic.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Engine playouts per move.
    #[arg(long, default_value_t = 400)]
    visits: u32,
    /// Your colour; White moves first.
    #[arg(long, value_enum, default_value = "white")]
    color: Side,
    /// Rule variant: pente, free-pente, keryo, gomoku, gomoku-exact.
    #[arg(long, default_value = "pente")]
    variant: Variant,
    /// Board side, odd, 7 to 19.
    #[arg(long, default_value_t = 19)]
    size: u8,
    #[command(flatten)]
    backend: BackendArgs,
}

/// Draws the board with coordinates, the last move in brackets, and the captures.
pub fn draw(position: &Position) -> String {
    let size = position.rules().size();
    let letters: String = (0..size).map(|x| format!(" {} ", column_letter(x))).collect();
    let mut out = format!("    {letters}\n");
    for y in (0..size).rev() {
        out.push_str(&format!("{:>3} ", y + 1));
        for x in 0..size {
            let p = Point::new(x, y);
            let c = position.stone_at(p).map_or('.', Color::char);
            if position.last_move() == Some(p) {
                out.push_str(&format!("[{c}]"));
            } else {
                out.push_str(&format!(" {c} "));
            }
        }
        out.push_str(&format!(" {}\n", y + 1));
    }
    out.push_str(&format!("    {letters}\n"));
    out.push_str(&format!(
        "captured: white {}  black {}   move {}, {} to play\n",
        position.captured(Color::White),
        position.captured(Color::Black),
        position.ply() + 1,
        position.to_move()
    ));
    out
}

/// Runs `pente play` until the game ends or the human quits.
pub fn run(args: &PlayArgs) -> anyhow::Result<ExitCode> {
    let rules = crate::rules(args.variant, args.size)?;
    let loaded = load_evaluator(args.model.as_deref(), &mut LazyBackend::new(&args.backend))?;
    let human = match args.color {
        Side::White => Color::White,
        Side::Black => Color::Black,
    };
    let params = SearchParams { visits: args.visits.max(1), ..SearchParams::default() };
    let mut game = Game::new(rules);
    let mut search = Search::new(game.position().clone(), params.clone(), 0);
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    writeln!(out, "engine: {} with {} visits; you play {human}", loaded.description, args.visits)?;
    writeln!(out, "enter moves like K10; also: undo, hint, quit")?;
    loop {
        writeln!(out, "\n{}", draw(game.position()))?;
        if let Some(outcome) = game.position().outcome() {
            writeln!(out, "game over: {outcome}")?;
            return Ok(ExitCode::SUCCESS);
        }
        if game.position().to_move() != human {
            let result = search.run(loaded.evaluator.as_ref());
            let point = result.best_move.expect("a game that goes on has a move");
            writeln!(out, "engine plays {point} (its win rate {:.1} %)", 100.0 * winrate(result.value))?;
            game.play(point)?;
            search.advance(point);
            continue;
        }
        write!(out, "your move: ")?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            writeln!(out)?;
            return Ok(ExitCode::SUCCESS);
        }
        match line.trim().to_ascii_lowercase().as_str() {
            "" => {}
            "quit" | "exit" | "resign" => return Ok(ExitCode::SUCCESS),
            "undo" => {
                // Take back the engine's reply and your move.
                game.undo();
                if game.position().to_move() != human {
                    game.undo();
                }
                search = Search::new(game.position().clone(), params.clone(), 0);
            }
            "hint" => {
                let result = Search::new(game.position().clone(), params.clone(), 0).run(loaded.evaluator.as_ref());
                if let Some(point) = result.best_move {
                    writeln!(out, "hint: {point} (win rate {:.1} %)", 100.0 * winrate(result.value))?;
                }
            }
            text => match text.parse::<Point>() {
                Err(error) => writeln!(out, "{error}; try again")?,
                Ok(point) => match game.play(point) {
                    Err(error) => writeln!(out, "{error}; try again")?,
                    Ok(()) => search.advance(point),
                },
            },
        }
    }
}
