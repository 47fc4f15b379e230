//! The engine's JSON request and response, shared by `pente engine` (one
//! JSON object a line on stdin and stdout) and `pente serve` (HTTP).
//!
//! Request: `{"id": "a", "variant": "pente", "size": 19, "moves": ["K10", "L9"], "visits": 200}`
//! (every field optional; `visits` or `level` (1-9), `seconds` (a time
//! limit), `model`, `policy` (true: every move's prior in the response)). Response: `{"id": "a", "best_move": "K7", "value": 0.12,
//! "winrate": 0.56, "visits": 200, "candidates": [{"move": "K7", "visits":
//! 120, "prior": 0.31, "winrate": 0.55}, ...], "evaluator": "..."}`; a
//! proven result adds `"proven": "win"` (or `"loss"`, `"draw"`), and for a
//! win or a loss `"proven_line"` and `"moves_to_end"`. A bad request gets
//! `{"id": ..., "error": "..."}`.

use std::path::PathBuf;

use pente_core::{Game, Point, Rules, Variant};
use pente_search::{Proof, SearchParams, SearchResult, level};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use pente_search::level::MAX_SECONDS;

/// An analysis request, as sent.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// Echoed in the response.
    #[serde(default)]
    pub id: Value,
    /// A variant name (`pente`, `keryo`, ...); default `pente`.
    #[serde(default = "default_variant")]
    pub variant: String,
    /// The board side; default 19.
    #[serde(default = "default_size")]
    pub size: u8,
    /// Moves from the empty board, White first.
    #[serde(default)]
    pub moves: Vec<String>,
    /// Playouts (not with `level`).
    pub visits: Option<u32>,
    /// A strength level, 1-9 (not with `visits`).
    pub level: Option<u8>,
    /// A time limit in seconds; alone, the search runs until it (or a
    /// million visits).
    pub seconds: Option<f64>,
    /// The mover's game clock (not with `seconds`): the search gets a share
    /// of it ([`level::move_time`]).
    pub clock: Option<Clock>,
    /// A network directory, `heuristic` or `uniform`; default: the server's.
    pub model: Option<PathBuf>,
    /// Add `policy`: the prior of every legal move (for a heatmap).
    #[serde(default)]
    pub policy: bool,
}

/// A game clock: main time left and the increment each move adds, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clock {
    /// Seconds left on the mover's clock.
    pub remaining: f64,
    /// Seconds added after each move.
    #[serde(default)]
    pub increment: f64,
}

fn default_variant() -> String {
    "pente".into()
}

fn default_size() -> u8 {
    19
}

/// A request that cannot be answered, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    /// The request's id, if it had one.
    pub id: Value,
    /// What is wrong.
    pub error: String,
}

/// A request checked and ready to search.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The request's id.
    pub id: Value,
    /// The position to search, with the moves that reached it.
    pub game: Game,
    /// The search settings.
    pub params: SearchParams,
    /// The network asked for; `None` for the server's default.
    pub model: Option<PathBuf>,
    /// Whether the response carries every move's prior.
    pub policy: bool,
    /// Whether the move may come from an opening book: the request's level
    /// plays from one ([`level::plays_book`]).
    pub book: bool,
}

/// The default strength of requests that give none.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Defaults {
    /// A level, or
    pub level: Option<u8>,
    /// visits (else the default search),
    pub visits: Option<u32>,
    /// and a time per move.
    pub seconds: Option<f64>,
}

impl Prepared {
    /// The book's move for this request: `None` without a book, out of it,
    /// under other rules, or at a level that plays its own openings.
    #[must_use]
    pub fn book_move(&self, book: Option<&pente_book::BookPlayer>) -> Option<Point> {
        book.filter(|_| self.book).and_then(|book| book.choose(self.game.rules(), self.game.moves()))
    }
}

impl Request {
    /// Reads a request from JSON text, naming what is wrong.
    ///
    /// # Errors
    /// Text that is not JSON, or not a request.
    pub fn parse(text: &str) -> Result<Request, Failure> {
        let json: Value =
            serde_json::from_str(text).map_err(|e| Failure { id: Value::Null, error: format!("not JSON: {e}") })?;
        let id = json.get("id").cloned().unwrap_or(Value::Null);
        serde_json::from_value(json).map_err(|e| Failure { id, error: format!("bad request: {e}") })
    }

    /// The rules and moves replayed, and the search settings, checked.
    ///
    /// # Errors
    /// An unknown variant, a bad size, an illegal move (named), both visits
    /// and level, or a budget out of range.
    pub fn prepare(self, defaults: Defaults) -> Result<Prepared, Failure> {
        let fail = |error: String| Failure { id: self.id.clone(), error };
        let variant: Variant = self.variant.parse().map_err(|e| fail(format!("{e}")))?;
        let game = replay(variant, self.size, &self.moves).map_err(fail)?;
        let seconds = match (self.seconds, self.clock) {
            (Some(_), Some(_)) => return Err(fail("give seconds or clock, not both".into())),
            (_, Some(Clock { remaining, increment })) => {
                if !(remaining > 0.0 && remaining.is_finite() && increment >= 0.0 && increment.is_finite()) {
                    return Err(fail(format!(
                        "clock: remaining must be above 0 and increment at least 0, not {remaining} and {increment}"
                    )));
                }
                Some(level::move_time(remaining, increment, game.moves().len()).min(MAX_SECONDS))
            }
            (seconds, None) => seconds,
        };
        let (level, visits, seconds) = match (self.level, self.visits, seconds) {
            (Some(_), Some(_), _) => return Err(fail("give visits or level, not both".into())),
            (None, None, None) => (defaults.level, defaults.visits, defaults.seconds),
            budget => budget,
        };
        let (params, _) = level::timed_strength(level, visits, seconds).map_err(fail)?;
        let book = level::plays_book(level);
        Ok(Prepared { id: self.id, game, params, model: self.model, policy: self.policy, book })
    }
}

/// The game of `moves` under `variant` on a `size` board, or why not (a
/// bad size, or the illegal move, numbered).
///
/// # Errors
/// As [`Rules::new`] and [`Game::from_move_list`], as text.
pub fn replay(variant: Variant, size: u8, moves: &[String]) -> Result<Game, String> {
    let rules = Rules::new(variant, size).map_err(|e| e.to_string())?;
    Game::from_move_list(rules, &moves.join(" ")).map_err(|e| e.to_string())
}

/// What the engine found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Response {
    /// The request's id.
    pub id: Value,
    /// The move the engine plays (at its level's temperature); `None` when
    /// the game is over.
    pub best_move: Option<Point>,
    /// The root value for the side to move, -1 to 1.
    pub value: f32,
    /// The side to move's win rate, 0 to 1.
    pub winrate: f32,
    /// `win`, `loss` or `draw` when the search proved it.
    pub proven: Option<&'static str>,
    /// A line to the end of the game from the best move, when proven.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub proven_line: Vec<Point>,
    /// The winner's moves in the proven line (win or loss in N).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves_to_end: Option<usize>,
    /// Playouts of the root.
    pub visits: u32,
    /// The moves searched (or proven), most visited first.
    pub candidates: Vec<CandidateJson>,
    /// Which evaluator answered.
    pub evaluator: String,
    /// With `"policy": true`: every legal move's prior, highest first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<Vec<PriorJson>>,
    /// `best_move` came from an opening book (`pente engine` at levels 7-9 and by default).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub book: bool,
}

/// One move's prior in [`Response::policy`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PriorJson {
    /// The move.
    #[serde(rename = "move")]
    pub point: Point,
    /// The evaluator's prior, 0 to 1.
    pub prior: f32,
}

/// One candidate move of a [`Response`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CandidateJson {
    /// The move.
    #[serde(rename = "move")]
    pub point: Point,
    /// Playouts through it.
    pub visits: u32,
    /// The evaluator's prior, 0 to 1.
    pub prior: f32,
    /// The mover's win rate through it (1 or 0 when proven); `None` if unvisited.
    pub winrate: Option<f32>,
}

/// Win rate for the side to move from a value in `[-1, 1]`.
#[must_use]
pub fn winrate(value: f32) -> f32 {
    (value + 1.0) / 2.0
}

impl Response {
    /// The response to request `id` for `result`, from `evaluator`; with
    /// `policy`, every legal move's prior too.
    #[must_use]
    pub fn new(id: Value, result: &SearchResult, evaluator: String, policy: bool) -> Response {
        let policy = policy.then(|| {
            let mut priors: Vec<PriorJson> =
                result.candidates.iter().map(|c| PriorJson { point: c.point, prior: c.prior }).collect();
            priors.sort_by(|a, b| b.prior.total_cmp(&a.prior));
            priors
        });
        Response {
            id,
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
            evaluator,
            policy,
            book: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_checked_and_name_the_problem() {
        let prepare = |text: &str| Request::parse(text).and_then(|r| r.prepare(Defaults::default()));
        let ok = prepare(r#"{"id": 3, "moves": ["K10", "L9"], "level": 4}"#).unwrap();
        assert_eq!((ok.id, ok.game.moves().len(), ok.params.visits, ok.book), (Value::from(3), 2, 32, false));
        let timed = prepare(r#"{"seconds": 0.5}"#).unwrap();
        assert_eq!((timed.params.max_seconds, timed.params.visits, timed.book), (Some(0.5), 1_000_000, true));
        // Level 4 plays its own openings, and so do requests of a weak server default.
        let weak = Defaults { level: Some(4), ..Defaults::default() };
        assert!(!Request::parse("{}").and_then(|r| r.prepare(weak)).unwrap().book);
        assert!(Request::parse(r#"{"level": 8}"#).and_then(|r| r.prepare(weak)).unwrap().book);
        // The server's default time per move holds for requests that give no budget.
        let defaults = Defaults { seconds: Some(2.0), ..Defaults::default() };
        let by_default = Request::parse(r#"{"moves": []}"#).and_then(|r| r.prepare(defaults)).unwrap();
        assert_eq!((by_default.params.max_seconds, by_default.params.visits), (Some(2.0), 1_000_000));
        let own = Request::parse(r#"{"visits": 30}"#).and_then(|r| r.prepare(defaults)).unwrap();
        assert_eq!((own.params.max_seconds, own.params.visits), (None, 30));
        // A game clock: the move gets its share (5 minutes, no move played: 12 s).
        let clocked = prepare(r#"{"clock": {"remaining": 300}}"#).unwrap();
        assert_eq!((clocked.params.max_seconds, clocked.params.visits), (Some(12.0), 1_000_000));
        assert_eq!(prepare("{").unwrap_err().id, Value::Null);
        for (text, error) in [
            (r#"{"id": "x", "moves": ["K10", "K10"]}"#, "move 2"),
            (r#"{"id": "x", "variant": "chess"}"#, "chess"),
            (r#"{"id": "x", "size": 8}"#, "8"),
            (r#"{"id": "x", "visits": 5, "level": 2}"#, "not both"),
            (r#"{"id": "x", "level": 10}"#, "level 10"),
            (r#"{"id": "x", "seconds": -1}"#, "seconds"),
            (r#"{"id": "x", "seconds": 1, "clock": {"remaining": 9}}"#, "not both"),
            (r#"{"id": "x", "clock": {"remaining": 0}}"#, "clock"),
            (r#"{"id": "x", "clock": {"remaining": 9, "increment": -1}}"#, "clock"),
            (r#"{"id": "x", "colour": "white"}"#, "colour"),
        ] {
            let failure = prepare(text).unwrap_err();
            assert_eq!(failure.id, Value::from("x"), "{text}");
            assert!(failure.error.contains(error), "{text}: {}", failure.error);
        }
    }
}
