//! The HTTP routes: the page and its assets, and the JSON API it uses.
//! Every error is a 4xx (the request's fault) or 5xx with a JSON body
//! `{"error": "..."}`; no request can stop the server.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, RwLock};

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{DefaultBodyLimit, Query, State};
use axum::http::{StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use pente_core::{Color, Game, Point, Position, Rules, Seat, Variant, parse_move_list};
use pente_records::GameRecord;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;

use crate::engine::Engine;
use crate::guard::{Client, Guard, Permit};
use crate::library::Library;
use crate::protocol::{Defaults, Failure, Request};

/// The page and its assets, compiled in: the board works offline.
const INDEX_HTML: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const STYLE_CSS: &str = include_str!("../assets/style.css");

/// Uploaded game files may be this large (64 MiB); a larger body gets a 413.
const MAX_UPLOAD: usize = 64 << 20;

/// Games the board keeps, loaded and uploaded together: an upload beyond
/// gets a 413, so that uploads cannot fill the server's memory.
const MAX_LIBRARY_GAMES: usize = 200_000;

/// Visits a position for the win-rate graph, unless the request says.
const GRAPH_VISITS: u32 = 32;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    /// The engine thread.
    pub engine: Engine,
    /// The games loaded.
    pub library: Arc<RwLock<Library>>,
    /// The strength of requests that give none.
    pub defaults: Defaults,
    /// Who may use the server.
    pub guard: Arc<Guard>,
    /// An opening book: the explorer shows its numbers, and the engine's
    /// `best_move` comes from it while the game is in it.
    pub book: Option<Arc<pente_book::BookPlayer>>,
}

/// The routes of `pente serve`.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/", get(|| async { ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], INDEX_HTML) }))
        .route("/app.js", get(|| async { ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], APP_JS) }))
        .route("/style.css", get(|| async { ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE_CSS) }))
        .route("/api/info", get(info))
        .route("/api/position", post(position))
        .route("/api/analyze", post(analyze))
        .route("/api/analyze/stream", get(analyze_stream))
        .route("/api/graph", post(graph))
        .route("/api/games", get(games).post(upload))
        .route("/api/explorer", get(explorer))
        .route("/api/pgn", post(pgn))
        .fallback(|| async {
            ApiError {
                status: StatusCode::NOT_FOUND,
                id: None,
                message: "no such page or API endpoint (see GET /api/info)".into(),
            }
        })
        .layer(DefaultBodyLimit::max(MAX_UPLOAD))
        .layer(axum::middleware::from_fn_with_state(state.guard.clone(), crate::guard::check))
        .with_state(state)
}

/// An error answer: its status and `{"error": "..."}` (with the request's
/// `id` for engine requests).
#[derive(Debug)]
struct ApiError {
    status: StatusCode,
    id: Option<Value>,
    message: String,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = match self.id {
            Some(id) => json!({ "id": id, "error": self.message }),
            None => json!({ "error": self.message }),
        };
        (self.status, Json(body)).into_response()
    }
}

impl From<Failure> for ApiError {
    fn from(failure: Failure) -> ApiError {
        ApiError { status: StatusCode::BAD_REQUEST, id: Some(failure.id), message: failure.error }
    }
}

/// A 400: the request's fault.
fn bad(message: impl Into<String>) -> ApiError {
    ApiError { status: StatusCode::BAD_REQUEST, id: None, message: message.into() }
}

/// A 500: the server's.
fn broken(message: &str) -> ApiError {
    ApiError { status: StatusCode::INTERNAL_SERVER_ERROR, id: None, message: message.into() }
}

/// A permit for one more search, or a 429 when the server or this client
/// runs as many as it may ([`Guard::admit`]).
fn admit(state: &AppState, client: Client) -> Result<Permit, ApiError> {
    state.guard.admit(client.0, state.engine.running()).map_err(|message| ApiError {
        status: StatusCode::TOO_MANY_REQUESTS,
        id: None,
        message,
    })
}

fn engine_gone() -> ApiError {
    broken("the engine thread has stopped")
}

type Answer = Result<Response, ApiError>;

/// A JSON body of type `T`, or a 400 naming what is wrong.
fn parse_body<T: for<'de> Deserialize<'de>>(body: &Bytes) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| bad(format!("bad request body: {e}")))
}

/// A position as the page and `/api/position` name it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PositionRequest {
    #[serde(default = "default_variant")]
    variant: Variant,
    #[serde(default = "default_size")]
    size: u8,
    #[serde(default)]
    moves: Vec<String>,
    /// `/api/graph`: visits a position.
    visits: Option<u32>,
    /// `/api/graph`: the network.
    model: Option<std::path::PathBuf>,
    /// `/api/pgn`: the players' names.
    white: Option<String>,
    black: Option<String>,
}

fn default_variant() -> Variant {
    Variant::Pente
}

fn default_size() -> u8 {
    19
}

impl PositionRequest {
    fn game(&self) -> Result<Game, ApiError> {
        crate::protocol::replay(self.variant, self.size, &self.moves).map_err(bad)
    }
}

/// `GET /api/info`: what the server offers.
async fn info(State(state): State<AppState>) -> Json<Value> {
    let variants: Vec<Value> = Variant::ALL
        .iter()
        .map(|v| {
            let sizes: Vec<u8> = (7..=pente_core::MAX_SIZE).step_by(2).filter(|&s| Rules::new(*v, s).is_ok()).collect();
            json!({ "name": v.to_string(), "sizes": sizes })
        })
        .collect();
    let levels: Vec<Value> = pente_search::level::TABLE
        .iter()
        .map(|l| json!({ "level": l.number, "visits": l.visits, "describe": l.describe() }))
        .collect();
    let files = state.library.read().map(|l| l.files()).unwrap_or_default();
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "variants": variants,
        "levels": levels,
        "default_level": state.defaults.level,
        "default_visits": state.defaults.visits.unwrap_or(pente_search::SearchParams::default().visits),
        "files": files,
        "book": state.book.as_ref().map(|b| {
            let rules = b.rules();
            json!({ "variant": rules.variant().to_string(), "size": rules.size(), "player": b.player() })
        }),
        "searches_running": state.engine.running(),
        "endpoints": [
            "POST /api/position", "POST /api/analyze", "GET /api/analyze/stream?request=JSON",
            "POST /api/graph", "GET /api/games", "POST /api/games?name=FILE", "GET /api/explorer?variant=V&size=S&moves=M",
            "POST /api/pgn"
        ],
    }))
}

/// The position after some moves, as the board draws it.
#[derive(Debug, Serialize)]
struct PositionView {
    variant: Variant,
    size: u8,
    moves: Vec<Point>,
    to_move: Color,
    /// Stones captured by each side.
    captured: HashMap<&'static str, u16>,
    /// Captured stones that win, if captures win.
    capture_win: Option<u16>,
    /// `white`, `black` or `draw` once the game is over.
    result: Option<&'static str>,
    reason: Option<&'static str>,
    /// Top row first: `W`, `B` and `.`.
    board: Vec<String>,
    last_move: Option<Point>,
    /// Empty points the opening rule forbids now (the tournament rule's
    /// zone on White's second move).
    restricted: Vec<Point>,
    /// Who acts next, `p1` (the first player) or `p2`: in most variants the
    /// holder of `to_move`; before the colour choice of D-Pente and Swap2
    /// the player placing the opening stones, or the chooser.
    actor: Seat,
    /// Who must choose a colour now (D-Pente, Swap2): `p1`, `p2` or null;
    /// the moves open are then `choices`.
    choice: Option<Seat>,
    choices: Vec<Point>,
    /// Whether the colours were exchanged (the first player holds Black).
    swapped: bool,
}

fn view(position: &Position, moves: &[Point]) -> PositionView {
    let rules = position.rules();
    let outcome = position.outcome();
    let restricted = if outcome.is_some() {
        Vec::new()
    } else {
        (0..rules.size())
            .flat_map(|y| (0..rules.size()).map(move |x| Point::new(x, y)))
            .filter(|&p| position.stone_at(p).is_none() && !rules.opening_allows(position.ply(), p))
            .collect()
    };
    PositionView {
        variant: rules.variant(),
        size: rules.size(),
        moves: moves.to_vec(),
        to_move: position.to_move(),
        captured: HashMap::from([
            ("white", position.captured(Color::White)),
            ("black", position.captured(Color::Black)),
        ]),
        capture_win: rules.capture_win(),
        result: outcome.map(|o| o.winner.map_or("draw", Color::name)),
        reason: outcome.map(|o| o.reason.name()),
        board: position.board_rows(),
        last_move: position.last_move(),
        restricted,
        actor: position.actor(),
        choice: position.choice_pending(),
        choices: position.choices().to_vec(),
        swapped: position.swapped(),
    }
}

/// `POST /api/position`: the position after `moves`, or which move is illegal.
async fn position(body: Bytes) -> Answer {
    let game = parse_body::<PositionRequest>(&body)?.game()?;
    Ok(Json(view(game.position(), game.moves())).into_response())
}

/// `POST /api/analyze`: the engine's request object in, its response out.
async fn analyze(State(state): State<AppState>, client: Client, body: Bytes) -> Answer {
    let _permit = admit(&state, client)?;
    let prepared = Request::parse(&String::from_utf8_lossy(&body))?.prepare(state.defaults)?;
    let book_move = prepared.book_move(state.book.as_deref());
    let mut updates = state.engine.search(prepared, false);
    while let Some(update) = updates.recv().await {
        let mut update = update?;
        if update.done {
            follow_book(&mut update.response, book_move);
            return Ok(Json(update.response).into_response());
        }
    }
    Err(engine_gone())
}

/// `GET /api/analyze/stream?request=JSON`: server-sent events, an `update`
/// after every slice of the search and a `done` with the final response
/// (or one `failure`). Closing the connection stops the search.
async fn analyze_stream(
    State(state): State<AppState>,
    client: Client,
    query: Result<Query<Params>, QueryRejection>,
) -> Answer {
    let query = query_of(query)?;
    let text = query.get("request").ok_or_else(|| bad("give the engine request as ?request=JSON"))?;
    let prepared = Request::parse(text)?.prepare(state.defaults)?;
    let permit = admit(&state, client)?;
    let book_move = prepared.book_move(state.book.as_deref());
    let updates = ReceiverStream::new(state.engine.search(prepared, true));
    // The permit lives as long as the stream: until the search ends or the client goes.
    let events = updates.map(move |update| {
        let _held = &permit;
        let event = match update {
            Ok(mut update) => {
                if update.done {
                    follow_book(&mut update.response, book_move);
                }
                Event::default().event(if update.done { "done" } else { "update" }).json_data(update.response)
            }
            Err(f) => Event::default().event("failure").json_data(f),
        };
        Ok::<Event, Infallible>(event.unwrap_or_else(|_| Event::default().event("failure").data("{}")))
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::default()).into_response())
}

type Params = HashMap<String, String>;

/// Makes the book's move the one the engine plays.
fn follow_book(response: &mut crate::protocol::Response, book_move: Option<Point>) {
    if let Some(point) = book_move {
        response.best_move = Some(point);
        response.book = true;
    }
}

/// The query string's parameters, or a 400.
fn query_of(query: Result<Query<Params>, QueryRejection>) -> Result<Params, ApiError> {
    query.map(|Query(q)| q).map_err(|e| bad(format!("bad query string: {e}")))
}

/// `POST /api/graph`: White's win rate after every move of a game.
async fn graph(State(state): State<AppState>, client: Client, body: Bytes) -> Answer {
    let request: PositionRequest = parse_body(&body)?;
    let game = request.game()?;
    let visits = request.visits.unwrap_or(GRAPH_VISITS);
    if visits == 0 || visits > 10_000 {
        return Err(bad(format!("visits must be between 1 and 10000, not {visits}")));
    }
    let _permit = admit(&state, client)?;
    let graph = state.engine.graph(game.positions().to_vec(), visits, request.model).recv().await;
    Ok(Json(graph.ok_or_else(engine_gone)?.map_err(bad)?).into_response())
}

/// `GET /api/games`: every game loaded.
async fn games(State(state): State<AppState>) -> Answer {
    let library = state.library.read().map_err(|_| broken("the game library is unreadable"))?;
    Ok(Json(json!({ "files": library.files(), "games": library.entries() })).into_response())
}

/// `POST /api/games?name=FILE`: loads the body as a game file named FILE
/// (its extension or first line tells the format, as for `pente stats`).
async fn upload(State(state): State<AppState>, query: Result<Query<Params>, QueryRejection>, body: Bytes) -> Answer {
    let name = query_of(query)?.get("name").cloned().unwrap_or_else(|| "upload".into());
    // Only the file name: its extension says the format; no path is used.
    let name = std::path::Path::new(&name).file_name().map_or("upload".into(), |n| n.to_string_lossy().to_string());
    let stored = name.clone();
    let loaded = tokio::task::spawn_blocking(move || {
        let name = stored;
        let dir = tempfile::tempdir().map_err(|e| format!("cannot make a temporary folder: {e}"))?;
        let path = dir.path().join(&name);
        std::fs::write(&path, &body).map_err(|e| format!("cannot store the upload: {e}"))?;
        let mut file = Library::default();
        // The message names the upload, not where it was stored.
        file.load(&path, &name).map(|count| (file, count)).map_err(|e| e.to_string())
    })
    .await;
    let (file, count) = loaded.map_err(|_| broken("loading the upload failed"))?.map_err(bad)?;
    let mut library = state.library.write().map_err(|_| broken("the game library is unwritable"))?;
    let after = library.len_without(&name) + count;
    if after > MAX_LIBRARY_GAMES {
        return Err(ApiError {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            id: None,
            message: format!(
                "the board keeps at most {MAX_LIBRARY_GAMES} games; with this upload it would hold {after}"
            ),
        });
    }
    library.append(file);
    Ok(Json(json!({ "loaded": count, "files": library.files(), "games": library.entries() })).into_response())
}

/// `GET /api/explorer?variant=V&size=S&moves=M`: the next moves from the
/// position in the loaded games, as `pente stats --moves M --format json`.
async fn explorer(State(state): State<AppState>, query: Result<Query<Params>, QueryRejection>) -> Answer {
    let query = query_of(query)?;
    let variant = query.get("variant").map_or(Ok(Variant::Pente), |v| v.parse::<Variant>());
    let variant = variant.map_err(|e| bad(format!("variant: {e}")))?;
    let size = query.get("size").map_or(Ok(19), |s| s.parse::<u8>()).map_err(|e| bad(format!("size: {e}")))?;
    let rules = Rules::new(variant, size).map_err(|e| bad(e.to_string()))?;
    let moves =
        parse_move_list(query.get("moves").map_or("", String::as_str)).map_err(|e| bad(format!("moves: {e}")))?;
    if let Some((i, p)) = moves.iter().enumerate().find(|(_, p)| !rules.contains(**p)) {
        return Err(bad(format!("moves: move {}: {p} is off the {size}x{size} board", i + 1)));
    }
    let library = Arc::clone(&state.library);
    let book = state.book.clone();
    let answer = tokio::task::spawn_blocking(move || {
        let report = library.read().map(|l| l.explore(rules, moves.clone())).ok()?;
        let node = book.and_then(|b| b.lookup(&rules, &moves).ok().flatten());
        Some((report, node))
    })
    .await;
    let (report, node) = answer.ok().flatten().ok_or_else(|| broken("the game library is unreadable"))?;
    let mut report = serde_json::to_value(report).map_err(|e| broken(&e.to_string()))?;
    report["book"] = serde_json::to_value(node).map_err(|e| broken(&e.to_string()))?;
    Ok(Json(report).into_response())
}

/// `POST /api/pgn`: the game as a pente.org PGN file.
async fn pgn(body: Bytes) -> Answer {
    let request: PositionRequest = parse_body(&body)?;
    let mut record = GameRecord::from_game(&request.game()?);
    for (name, value) in [("White", &request.white), ("Black", &request.black)] {
        if let Some(value) = value {
            record.set_header(name, value);
        }
    }
    let text = pente_records::write_pgn(&[record]);
    let headers = [
        (header::CONTENT_TYPE, "application/x-chess-pgn; charset=utf-8"),
        (header::CONTENT_DISPOSITION, "attachment; filename=\"game.pgn\""),
    ];
    Ok((headers, text).into_response())
}
