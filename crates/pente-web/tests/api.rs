//! The JSON API through the router, without a socket; the browser tests
//! (`crates/pente-web/browser`) drive the page itself.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use pente_analysis::{ReportOptions, Stats, StatsOptions};
use pente_search::{Evaluator, UniformEvaluator};
use pente_web::protocol::Defaults;
use pente_web::{AppState, Engine, EvaluatorSource, Guard, Library, router};
use serde_json::Value;
use tower::ServiceExt;

/// Uniform priors for every model but `missing`.
struct Uniform;

impl EvaluatorSource for Uniform {
    fn load(&mut self, model: Option<&Path>) -> Result<(Box<dyn Evaluator>, String), String> {
        match model {
            Some(path) if path == Path::new("missing") => Err("missing: no such model".into()),
            _ => Ok((Box::new(UniformEvaluator::default()), "uniform".into())),
        }
    }
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/sample-games.pgn")
}

const TOKEN: &str = "0123456789abcdef0123456789abcdef";
const HOST: &str = "127.0.0.1:8080";

/// A server on 127.0.0.1:8080 with the token [`TOKEN`].
fn state() -> AppState {
    let mut library = Library::default();
    library.load(&sample(), "sample-games.pgn").unwrap();
    AppState {
        engine: Engine::start(Box::new(Uniform)),
        library: Arc::new(RwLock::new(library)),
        defaults: Defaults::default(),
        guard: Arc::new(Guard::new(Some(TOKEN.into()), Some(Guard::loopback_hosts(8080)), 8080)),
        book: None,
    }
}

/// A request as a script sends it: the server's name and the token.
fn request(method: &str, uri: &str) -> axum::http::request::Builder {
    Request::builder().method(method).uri(uri).header("host", HOST).header(pente_web::guard::TOKEN_HEADER, TOKEN)
}

async fn call(state: &AppState, method: &str, uri: &str, body: &str) -> (StatusCode, Value) {
    send(state, request(method, uri).body(Body::from(body.to_string())).unwrap()).await
}

async fn send(state: &AppState, request: Request<Body>) -> (StatusCode, Value) {
    let response = router(state.clone()).oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 24).await.unwrap();
    let json = serde_json::from_slice(&bytes).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
    (status, json)
}

#[tokio::test]
async fn analyze_answers_as_the_engine_does_and_names_bad_requests() {
    let state = state();
    let (status, answer) =
        call(&state, "POST", "/api/analyze", r#"{"id": "a", "moves": ["K10"], "visits": 250}"#).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!((answer["id"].as_str(), answer["visits"].as_u64()), (Some("a"), Some(250)));
    assert_eq!(answer["evaluator"], "uniform");
    assert!(answer["best_move"].is_string() && !answer["candidates"].as_array().unwrap().is_empty());
    assert!(answer.get("policy").is_none());
    let (_, answer) = call(&state, "POST", "/api/analyze", r#"{"moves": ["K10"], "visits": 8, "policy": true}"#).await;
    // Every legal move: all points but K10.
    assert_eq!(answer["policy"].as_array().map(Vec::len), Some(360));

    for (body, words) in [
        ("{", "not JSON"),
        (r#"{"id": 2, "moves": ["K10", "K10"]}"#, "move 2"),
        (r#"{"id": 2, "model": "missing"}"#, "no such model"),
        (r#"{"id": 2, "level": 0}"#, "level 0"),
    ] {
        let (status, answer) = call(&state, "POST", "/api/analyze", body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(answer["error"].as_str().unwrap().contains(words), "{body}: {answer}");
        if body != "{" {
            assert_eq!(answer["id"], 2, "{body}");
        }
    }
    let (status, answer) = call(&state, "GET", "/api/nothing", "").await;
    assert_eq!((status, answer["error"].is_string()), (StatusCode::NOT_FOUND, true));
}

#[tokio::test]
async fn the_explorer_counts_as_pente_stats_does() {
    let state = state();
    let (status, mut answer) = call(&state, "GET", "/api/explorer?variant=pente&size=19&moves=K10", "").await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    // The explorer adds the book's node beside the games' counts: none is loaded here.
    let book = answer.as_object_mut().unwrap().remove("book");
    assert_eq!(book, Some(serde_json::Value::Null), "no book is loaded");
    let options = StatsOptions {
        moves: Some(pente_core::parse_move_list("K10").unwrap()),
        variant: Some(pente_core::Variant::Pente),
        size: Some(19),
        ..StatsOptions::default()
    };
    let mut stats = Stats::new(options);
    stats.read_files(&[sample()], false, |_| {}).unwrap();
    let mut report = stats.report(&ReportOptions::default());
    report.files = vec!["sample-games.pgn".into()];
    assert_eq!(answer, serde_json::to_value(&report).unwrap());
    assert!(!report.explorer.unwrap().next.is_empty(), "the sample games go on from K10");

    let (status, answer) = call(&state, "GET", "/api/explorer?size=13&moves=S19", "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(answer["error"].as_str().unwrap().contains("off the 13x13 board"), "{answer}");
}

#[tokio::test]
async fn games_positions_graphs_and_pgn() {
    let state = state();
    let (_, games) = call(&state, "GET", "/api/games", "").await;
    let games = games["games"].as_array().unwrap().clone();
    assert!(games.len() > 3);
    let first = &games[0];
    let moves = first["moves"].clone();
    let body = serde_json::json!({ "variant": first["variant"], "size": first["size"], "moves": moves }).to_string();
    let (status, view) = call(&state, "POST", "/api/position", &body).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    assert_eq!(view["result"], first["result"], "{view}");
    let (status, graph) = call(&state, "POST", "/api/graph", &body).await;
    assert_eq!(status, StatusCode::OK, "{graph}");
    assert_eq!(graph["white_winrate"].as_array().unwrap().len(), moves.as_array().unwrap().len() + 1);
    // The tournament rule's zone on White's second move.
    let (_, view) = call(&state, "POST", "/api/position", r#"{"moves": ["K10", "L9"]}"#).await;
    let zone: Vec<&str> = view["restricted"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    assert!(zone.contains(&"K11") && !zone.contains(&"K13") && !zone.contains(&"L9"), "{zone:?}");

    let (status, upload) = call(&state, "POST", "/api/games?name=../bad.csv", "hello\n").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(upload["error"].as_str().unwrap().starts_with("bad.csv:1:"), "{upload}");
    // The upload's name only: not where the server stored it.
    let temp = std::env::temp_dir();
    assert!(!upload["error"].as_str().unwrap().contains(temp.to_str().unwrap()), "{upload}");
    let text = std::fs::read_to_string(sample()).unwrap();
    let (status, upload) = call(&state, "POST", "/api/games?name=more.pgn", &text).await;
    assert_eq!(status, StatusCode::OK, "{upload}");
    assert_eq!(upload["games"].as_array().unwrap().len(), 2 * games.len());
    // The same file sent again replaces itself: uploads cannot pile up.
    let (status, upload) = call(&state, "POST", "/api/games?name=more.pgn", &text).await;
    assert_eq!(status, StatusCode::OK, "{upload}");
    assert_eq!(upload["games"].as_array().unwrap().len(), 2 * games.len());
    assert_eq!(upload["files"].as_array().unwrap().len(), 2, "{}", upload["files"]);

    let request = request("POST", "/api/pgn").body(Body::from(body)).unwrap();
    let response = router(state.clone()).oneshot(request).await.unwrap();
    let pgn = String::from_utf8(axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap().to_vec()).unwrap();
    let record = &pente_records::parse_pgn(&pgn).unwrap()[0];
    assert_eq!(serde_json::to_value(&record.moves).unwrap(), moves);
}

#[tokio::test]
async fn searches_take_turns_stream_and_stop_when_dropped() {
    let engine = Engine::start(Box::new(Uniform));
    let prepare = |text: &str| pente_web::protocol::Request::parse(text).unwrap().prepare(Defaults::default()).unwrap();
    let mut long = engine.search(prepare(r#"{"moves": ["K10"], "visits": 1000000}"#), true);
    let mut seen = Vec::new();
    while seen.len() < 3 {
        let update = long.recv().await.unwrap().unwrap();
        assert!(!update.done);
        seen.push(update.response.visits);
    }
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
    // A second search finishes while the first still runs.
    let mut short = engine.search(prepare(r#"{"moves": ["K10", "L9"], "visits": 300}"#), false);
    let done = short.recv().await.unwrap().unwrap();
    assert!(done.done && done.response.visits == 300);
    assert_eq!(engine.running(), 1);
    drop(long);
    let started = Instant::now();
    while engine.running() > 0 {
        assert!(started.elapsed() < Duration::from_secs(20), "the dropped search goes on");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[test]
fn a_load_error_names_the_file_as_loaded_and_keeps_the_cause() {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-such-games.csv");
    let error = Library::default().load(&path, "games.csv").unwrap_err();
    assert!(error.to_string().starts_with("games.csv: cannot open: "), "{error}");
    assert!(!error.to_string().contains(path.to_str().unwrap()), "{error}");
    assert_eq!(error.source.path, path);
    let io = error.source.source.as_ref().and_then(|cause| cause.error().downcast_ref::<std::io::Error>());
    assert_eq!(io.map(std::io::Error::kind), Some(std::io::ErrorKind::NotFound), "{error:?}");
}

#[tokio::test]
async fn requests_without_the_token_or_from_other_sites_or_names_are_refused() {
    let state = state();
    let analysis = r#"{"moves": ["K10"], "visits": 10}"#;
    // No token: neither the API nor the page.
    let bare = |method: &str, uri: &str| Request::builder().method(method).uri(uri).header("host", HOST);
    let (status, answer) = send(&state, bare("POST", "/api/analyze").body(Body::from(analysis)).unwrap()).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{answer}");
    assert!(answer["error"].as_str().unwrap().contains("token"), "{answer}");
    assert_eq!(send(&state, bare("GET", "/").body(Body::empty()).unwrap()).await.0, StatusCode::UNAUTHORIZED);
    let wrong = bare("GET", "/api/info").header(pente_web::guard::TOKEN_HEADER, "0123");
    assert_eq!(send(&state, wrong.body(Body::empty()).unwrap()).await.0, StatusCode::UNAUTHORIZED);
    // The page's assets hold no secret.
    assert_eq!(send(&state, bare("GET", "/app.js").body(Body::empty()).unwrap()).await.0, StatusCode::OK);

    // Another site's page posting text/plain, as any page may without asking.
    let cross =
        request("POST", "/api/analyze").header("origin", "http://evil.example").header("content-type", "text/plain");
    let (status, answer) = send(&state, cross.body(Body::from(analysis)).unwrap()).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
    assert!(answer["error"].as_str().unwrap().contains("evil.example"), "{answer}");
    // The page's own requests carry its origin.
    let same = request("POST", "/api/analyze").header("origin", format!("http://{HOST}"));
    assert_eq!(send(&state, same.body(Body::from(analysis)).unwrap()).await.0, StatusCode::OK);

    // A name rebound to this machine, even with the token.
    let rebound = Request::builder()
        .uri("/api/info")
        .header("host", "evil.example:8080")
        .header(pente_web::guard::TOKEN_HEADER, TOKEN);
    let (status, answer) = send(&state, rebound.body(Body::empty()).unwrap()).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
    let no_host = Request::builder().uri("/api/info").header(pente_web::guard::TOKEN_HEADER, TOKEN);
    assert_eq!(send(&state, no_host.body(Body::empty()).unwrap()).await.0, StatusCode::FORBIDDEN);
    for host in ["localhost:8080", "[::1]:8080"] {
        let named = request("GET", "/api/info").header("host", host);
        let mut named = named.body(Body::empty()).unwrap();
        named.headers_mut().insert("host", host.parse().unwrap());
        assert_eq!(send(&state, named).await.0, StatusCode::OK, "{host}");
    }
}

#[tokio::test]
async fn the_token_in_the_url_becomes_a_cookie_that_opens_the_page_and_the_api() {
    let state = state();
    let first = Request::builder().uri(format!("/?token={TOKEN}")).header("host", HOST).body(Body::empty()).unwrap();
    let response = router(state.clone()).oneshot(first).await.unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(response.headers()["location"], "/");
    let cookie = response.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(cookie.starts_with(&format!("pente_token_8080={TOKEN};")) && cookie.contains("HttpOnly"), "{cookie}");
    let cookie = cookie.split(';').next().unwrap().to_string();
    let with_cookie = |uri: &str| Request::builder().uri(uri).header("host", HOST).header("cookie", cookie.clone());
    let page = router(state.clone()).oneshot(with_cookie("/").body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    assert_eq!(send(&state, with_cookie("/api/info").body(Body::empty()).unwrap()).await.0, StatusCode::OK);
    // Another server's cookie (another port) is not this one's.
    let other =
        Request::builder().uri("/api/info").header("host", HOST).header("cookie", format!("pente_token_8081={TOKEN}"));
    assert_eq!(send(&state, other.body(Body::empty()).unwrap()).await.0, StatusCode::UNAUTHORIZED);
    let wrong = Request::builder().uri("/?token=nope").header("host", HOST).body(Body::empty()).unwrap();
    assert_eq!(send(&state, wrong).await.0, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn searches_beyond_the_limit_get_a_429_and_large_bodies_a_413() {
    let mut state = state();
    let mut guard = (*state.guard).clone();
    guard.max_searches = 0;
    state.guard = Arc::new(guard);
    let (status, answer) = call(&state, "POST", "/api/analyze", r#"{"moves": ["K10"], "visits": 10}"#).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{answer}");
    assert!(answer["error"].as_str().unwrap().contains("try again"), "{answer}");
    let (status, _) = call(&state, "GET", "/api/analyze/stream?request=%7B%7D", "").await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    // One client's own limit, the server's not reached.
    let mut guard = (*state.guard).clone();
    (guard.max_searches, guard.max_searches_per_client) = (16, 0);
    state.guard = Arc::new(guard);
    let (status, answer) = call(&state, "POST", "/api/graph", r#"{"moves": ["K10"]}"#).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{answer}");
    assert!(answer["error"].as_str().unwrap().contains("this client"), "{answer}");
    // Positions and the explorer are not searches.
    assert_eq!(call(&state, "POST", "/api/position", r#"{"moves": ["K10"]}"#).await.0, StatusCode::OK);
    let huge = "x".repeat((64 << 20) + 1);
    assert_eq!(call(&state, "POST", "/api/games?name=big.pgn", &huge).await.0, StatusCode::PAYLOAD_TOO_LARGE);
}

#[test]
fn loopback_names_are_told_from_others() {
    for host in ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"] {
        assert!(pente_web::is_loopback(host), "{host}");
    }
    for host in ["0.0.0.0", "192.168.1.2", "pente.lan", ""] {
        assert!(!pente_web::is_loopback(host), "{host}");
    }
}
