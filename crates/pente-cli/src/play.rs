//! `pente play`: a human against the engine in the terminal.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use pente_core::{Color, Game, Point, Position, Seat, Variant, column_letter};
use pente_search::{Search, SearchParams, level};

use crate::analyze::{whose_turn, winrate};
use crate::player::{BackendArgs, LazyBackend, PlayingBookArgs, StrengthArgs, load_evaluator};

/// The colour the human plays: in D-Pente and Swap2, the seat (`white`:
/// the first player, who places the opening stones).
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Side {
    White,
    Black,
}

/// Arguments of `pente play`.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// Network directory (or its ONNX file, e.g. `DIR/model.int8.onnx`, on ONNX Runtime), or
    /// `heuristic` / `uniform`; default: the shipped network, else the heuristic.
    #[arg(long)]
    model: Option<PathBuf>,
    #[command(flatten)]
    strength: StrengthArgs,
    /// Your colour; White moves first. In d-pente, dk-pente and swap2-*
    /// the colours are chosen during the game: `white` makes you the first
    /// player, who places the opening stones, `black` the one who chooses.
    #[arg(long, value_enum, default_value = "white")]
    color: Side,
    /// Rule variant (the README's variant table says what each is).
    #[arg(value_parser = crate::variant_parser(), ignore_case = true, long, default_value = "pente")]
    variant: Variant,
    /// Board side, odd, 7 to 19.
    #[arg(long, default_value_t = 19)]
    size: u8,
    #[command(flatten)]
    book: PlayingBookArgs,
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
        "captured: white {}  black {}   move {}, {}\n",
        position.captured(Color::White),
        position.captured(Color::Black),
        position.ply() + 1,
        whose_turn(position)
    ));
    out
}

/// Runs `pente play` until the game ends or the human quits.
pub fn run(args: &PlayArgs) -> anyhow::Result<ExitCode> {
    let rules = crate::rules(args.variant, args.size)?;
    // The weaker levels play their own openings.
    let book = args.book.open(Some(rules))?.filter(|_| level::plays_book(args.strength.level));
    let loaded = load_evaluator(args.model.as_deref(), &mut LazyBackend::new(&args.backend))?;
    let human = match args.color {
        Side::White => Seat::First,
        Side::Black => Seat::Second,
    };
    let you_play = match (rules.colour_choice(), human) {
        (None, Seat::First) => "white".to_string(),
        (None, Seat::Second) => "black".to_string(),
        (Some(_), seat) => format!(
            "{seat} ({} player; colours are chosen in the game)",
            if seat == Seat::First { "first" } else { "second" }
        ),
    };
    let (params, strength) = match args.strength.params() {
        Ok(chosen) => chosen,
        Err(error) => return Err(crate::usage_error(&format!("--visits: {error}"))),
    };
    // A new game each time at the levels that draw their moves.
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let mut game = Game::new(rules);
    let mut search = Search::new(game.position().clone(), params.clone(), seed);
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    writeln!(out, "engine: {} at {strength}; you play {you_play}", loaded.description)?;
    if let Some(book) = &book {
        writeln!(out, "opening book: {} (the engine plays from it while the game is in it)", book.path().display())?;
    } else if let (Some(path), Some(level)) = (&args.book.book.book, args.strength.level) {
        writeln!(out, "opening book: {} not used: level {level} plays its own openings", path.display())?;
    }
    writeln!(out, "enter moves like K10 (or swap, stay, pass when choosing colours); also: undo, hint, quit")?;
    loop {
        writeln!(out, "\n{}", draw(game.position()))?;
        if let Some(outcome) = game.position().outcome() {
            writeln!(out, "game over: {outcome}")?;
            return Ok(ExitCode::SUCCESS);
        }
        if game.position().actor() != human {
            if let Some(point) = book.as_ref().and_then(|b| b.choose(&rules, game.moves())) {
                writeln!(out, "engine plays {point} (from the book)")?;
                game.play(point)?;
                search.advance(point);
                continue;
            }
            let result = search.run(loaded.evaluator.as_ref());
            let point = search.play_move(&result).expect("a game that goes on has a move");
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
                // Take back the engine's reply and your move: back to your
                // turn with one of your moves undone.
                game.undo();
                while game.position().actor() != human && game.undo().is_some() {}
                search = Search::new(game.position().clone(), params.clone(), seed);
            }
            "hint" => {
                let hint = SearchParams { move_temperature: 0.0, ..params.clone() };
                let result = Search::new(game.position().clone(), hint, 0).run(loaded.evaluator.as_ref());
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
