//! `pente engine`: a JSON-lines analysis protocol on stdin and stdout, in
//! the spirit of KataGo's analysis engine. The request and response objects
//! are `pente_web::protocol`'s, shared with `pente serve`'s `/api/analyze`.
//!
//! Request: `{"id": "a", "variant": "pente", "size": 19, "moves": ["K10", "L9"], "visits": 200}`
//! (`variant`, `size`, `visits` or `level` (1-9), `seconds`, `model` and
//! `policy` optional; `best_move` is the move the level plays, drawn at its
//! temperature). Response: `{"id": "a", "best_move": "K7", "value": 0.12,
//! "candidates": [{"move": "K7", "visits": 120, "prior": 0.31, "winrate":
//! 0.55}, ...], "evaluator": "..."}`. A proven result adds `"proven": "win"`
//! (or `"loss"`, `"draw"`), and for a win or a loss `"proven_line"` (moves
//! from the best one to the end of the game) and `"moves_to_end"` (the
//! winner's moves in it: win or loss in N). A bad request gets `{"id": ...,
//! "error": "..."}` and the engine keeps serving. With `--book BOOK`, a
//! position of the book's rules that the book has gets the book's move as
//! `best_move` and `"book": true`.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use pente_search::Search;
use pente_web::protocol::{Failure, Request, Response};

use crate::player::{BackendArgs, LazyBackend, LoadedEvaluator, PlayingBookArgs, StrengthArgs, load_evaluator};

/// Arguments of `pente engine`.
#[derive(Debug, Args)]
pub struct EngineArgs {
    /// Default network for requests without `model` (as for `pente analyze`).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Defaults for requests without `visits`, `level` or `seconds`.
    #[command(flatten)]
    strength: StrengthArgs,
    /// With a book, `best_move` is the book's move while the position is in
    /// it (of the book's variant and size) and the request's level plays from
    /// one, and `"book": true` says so; the candidates and value still come
    /// from the search.
    #[command(flatten)]
    book: PlayingBookArgs,
    #[command(flatten)]
    backend: BackendArgs,
}

/// Runs `pente engine` until stdin closes.
pub fn run(args: &EngineArgs) -> anyhow::Result<ExitCode> {
    let mut evaluators: HashMap<Option<PathBuf>, LoadedEvaluator> = HashMap::new();
    let mut backend = LazyBackend::new(&args.backend);
    let book = args.book.open(None)?;
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lines() {
        let line = line.context("reading a request from stdin")?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = match answer(&line, args, book.as_deref(), &mut backend, &mut evaluators) {
            Ok(response) => serde_json::to_string(&response)?,
            Err(failure) => serde_json::to_string(&failure)?,
        };
        writeln!(stdout, "{reply}")?;
        stdout.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Answers one request line, or says what is wrong with it (and its id, if it has one).
fn answer(
    line: &str,
    args: &EngineArgs,
    book: Option<&pente_book::BookPlayer>,
    backend: &mut LazyBackend,
    evaluators: &mut HashMap<Option<PathBuf>, LoadedEvaluator>,
) -> Result<Response, Failure> {
    let defaults = args.strength.defaults();
    let prepared = Request::parse(line)?.prepare(defaults)?;
    let model = prepared.model.clone().or_else(|| args.model.clone());
    if !evaluators.contains_key(&model) {
        let loaded = load_evaluator(model.as_deref(), backend)
            .map_err(|e| Failure { id: prepared.id.clone(), error: crate::output::describe(&e) })?;
        evaluators.insert(model.clone(), loaded);
    }
    let loaded = &evaluators[&model];
    let from_book = prepared.book_move(book);
    let mut search = Search::new(prepared.game.position().clone(), prepared.params, 0);
    let mut result = search.run(loaded.evaluator.as_ref());
    result.best_move = from_book.or_else(|| search.play_move(&result));
    let mut response = Response::new(prepared.id, &result, loaded.description.clone(), prepared.policy);
    response.book = from_book.is_some();
    Ok(response)
}
