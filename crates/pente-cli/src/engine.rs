//! `pente engine`: a JSON-lines analysis protocol on stdin and stdout, in
//! the spirit of KataGo's analysis engine.
//!
//! Request: `{"id": "a", "variant": "pente", "size": 19, "moves": ["K10", "L9"], "visits": 200}`
//! (`variant`, `size`, `visits` or `level` (1-9), and `model` optional;
//! `best_move` is the move the level plays, drawn at its temperature). Response:
//! `{"id": "a", "best_move": "K7", "value": 0.12, "candidates": [{"move": "K7", "visits": 120,
//! "prior": 0.31, "winrate": 0.55}, ...], "evaluator": "..."}`. A proven
//! result adds `"proven": "win"` (or `"loss"`, `"draw"`), and for a win or a
//! loss `"proven_line"` (moves from the best one to the end of the game) and
//! `"moves_to_end"` (the winner's moves in it: win or loss in N). A bad request
//! gets `{"id": ..., "error": "..."}` and the engine keeps serving.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use pente_core::{Game, Point, Rules, Variant};
use pente_search::{Proof, Search};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::analyze::winrate;
use crate::player::{BackendArgs, LazyBackend, LoadedEvaluator, StrengthArgs, load_evaluator, strength};

/// Arguments of `pente engine`.
#[derive(Debug, Args)]
pub struct EngineArgs {
    /// Default network for requests without `model` (as for `pente analyze`).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Defaults for requests without `visits` or `level`.
    #[command(flatten)]
    strength: StrengthArgs,
    #[command(flatten)]
    backend: BackendArgs,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    #[serde(default)]
    id: Value,
    #[serde(default = "default_variant")]
    variant: String,
    #[serde(default = "default_size")]
    size: u8,
    #[serde(default)]
    moves: Vec<String>,
    visits: Option<u32>,
    level: Option<u8>,
    model: Option<PathBuf>,
}

fn default_variant() -> String {
    "pente".into()
}

fn default_size() -> u8 {
    19
}

#[derive(Debug, Serialize)]
struct Response {
    id: Value,
    best_move: Option<Point>,
    value: f32,
    winrate: f32,
    proven: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    proven_line: Vec<Point>,
    #[serde(skip_serializing_if = "Option::is_none")]
    moves_to_end: Option<usize>,
    visits: u32,
    candidates: Vec<CandidateJson>,
    evaluator: String,
}

#[derive(Debug, Serialize)]
struct CandidateJson {
    #[serde(rename = "move")]
    point: Point,
    visits: u32,
    prior: f32,
    winrate: Option<f32>,
}

/// Runs `pente engine` until stdin closes.
pub fn run(args: &EngineArgs) -> anyhow::Result<ExitCode> {
    let mut evaluators: HashMap<Option<PathBuf>, LoadedEvaluator> = HashMap::new();
    let mut backend = LazyBackend::new(&args.backend);
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lines() {
        let line = line.context("reading a request from stdin")?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = match answer(&line, args, &mut backend, &mut evaluators) {
            Ok(response) => serde_json::to_string(&response)?,
            Err((id, error)) => serde_json::json!({ "id": id, "error": error }).to_string(),
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
    backend: &mut LazyBackend,
    evaluators: &mut HashMap<Option<PathBuf>, LoadedEvaluator>,
) -> Result<Response, (Value, String)> {
    let json: Value = serde_json::from_str(line).map_err(|e| (Value::Null, format!("not JSON: {e}")))?;
    let id = json.get("id").cloned().unwrap_or(Value::Null);
    let fail = |message: String| (id.clone(), message);
    let request: Request = serde_json::from_value(json).map_err(|e| fail(format!("bad request: {e}")))?;
    let variant: Variant = request.variant.parse().map_err(|e| fail(format!("{e}")))?;
    let rules = Rules::new(variant, request.size).map_err(|e| fail(format!("{e}")))?;
    let game = Game::from_move_list(rules, &request.moves.join(" ")).map_err(|e| fail(e.to_string()))?;
    let model = request.model.clone().or_else(|| args.model.clone());
    if !evaluators.contains_key(&model) {
        let loaded = load_evaluator(model.as_deref(), backend).map_err(|e| fail(format!("{e:#}")))?;
        evaluators.insert(model.clone(), loaded);
    }
    let loaded = &evaluators[&model];
    let (level, visits) = match (request.level, request.visits) {
        (None, None) => (args.strength.level, args.strength.visits),
        (Some(_), Some(_)) => return Err(fail("give visits or level, not both".into())),
        given => given,
    };
    let (params, _) = strength(level, visits).map_err(|e| fail(e.to_string()))?;
    let mut search = Search::new(game.position().clone(), params, 0);
    let mut result = search.run(loaded.evaluator.as_ref());
    result.best_move = search.play_move(&result);
    Ok(Response {
        id: request.id,
        best_move: result.best_move,
        value: result.value,
        winrate: winrate(result.value),
        proven: match result.proof {
            Proof::Win => Some("win"),
            Proof::Loss => Some("loss"),
            Proof::Draw => Some("draw"),
            Proof::Unknown => None,
        },
        proven_line: result.proven_line.clone(),
        moves_to_end: result.moves_to_end(),
        visits: result.visits,
        candidates: result
            .candidates
            .iter()
            .filter(|c| c.visits > 0 || c.proof != Proof::Unknown)
            .map(|c| CandidateJson {
                point: c.point,
                visits: c.visits,
                prior: c.prior,
                winrate: match c.proof {
                    Proof::Win => Some(1.0),
                    Proof::Loss => Some(0.0),
                    Proof::Draw => Some(0.5),
                    Proof::Unknown => c.value.map(winrate),
                },
            })
            .collect(),
        evaluator: loaded.description.clone(),
    })
}
