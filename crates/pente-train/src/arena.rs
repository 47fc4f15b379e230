//! Arenas: two players, colours alternated, openings paired, many games at
//! once sharing network calls; the score and the Elo difference with its
//! 95 % interval.

use std::path::{Path, PathBuf};

use pente_core::{Color, EndReason, Game, Rules, Seat};
use pente_external::{TextPente, TextPenteConfig};
use pente_ort::Backend;
use pente_records::{Captures, DATASET_SCHEMA, GameEnd, GameResult, JsonGame, JsonMove};
use pente_search::{Evaluator, HeuristicEvaluator, Search, SearchParams, UniformEvaluator, search_many};
use pente_selfplay::game_seed;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use serde::{Deserialize, Serialize};

use crate::error::TrainError;

/// A player as named on the command line: `heuristic`, `uniform`, or a
/// model directory, each with an optional `@visits` (default 64) or
/// `@SECONDSs` / `@MILLISms` (a time per move instead), and an optional
/// `+nosolver` (search without the threat solver), or `@levelN`, a strength
/// level of [`pente_search::level`] (its visits, move temperature and solver
/// budget), e.g. `runs/quick/models/quick-3@200+nosolver`,
/// `data/models/default@1.5s` or `data/models/default@level3`;
/// or `pente-text:LEVEL`, Debian's `pente -text` at computer level 1-9
/// (19x19 Pente only).
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerSpec {
    /// What chooses the moves.
    pub kind: PlayerKind,
    /// Playouts per move (0 for an external program, which has its own).
    pub visits: u32,
    /// A time per move: the search stops then, its visits capped at [`TIMED_VISITS`].
    pub seconds: Option<f64>,
    /// Whether the search reads tactics with the threat solver.
    pub solver: bool,
    /// A strength level (1 to [`pente_search::level::LEVELS`]): its settings
    /// replace `visits` and `solver`.
    pub level: Option<u8>,
}

/// The evaluator behind a [`PlayerSpec`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayerKind {
    /// The tactical heuristic.
    Heuristic,
    /// Uniform priors, zero value: search alone.
    Uniform,
    /// A model directory.
    Model(PathBuf),
    /// Debian's `pente -text` at this computer level (1-9).
    TextPente(u8),
}

impl PlayerSpec {
    /// The network in `dir` at `visits` a move, with the solver.
    #[must_use]
    pub fn model(dir: &Path, visits: u32) -> PlayerSpec {
        PlayerSpec { kind: PlayerKind::Model(dir.to_path_buf()), visits, seconds: None, solver: true, level: None }
    }

    /// Parses `NAME[@VISITS]`.
    ///
    /// # Errors
    /// A message if the visit count is not a positive number.
    pub fn parse(text: &str) -> Result<PlayerSpec, String> {
        PlayerSpec::parse_at(text, None)
    }

    /// As [`parse`](Self::parse), a player without a budget of its own
    /// playing at `level` if one is given (instead of 64 visits).
    ///
    /// # Errors
    /// As [`parse`](Self::parse), and a level that does not exist.
    pub fn parse_at(text: &str, level: Option<u8>) -> Result<PlayerSpec, String> {
        if let Some(level) = text.strip_prefix("pente-text:") {
            let level = level.parse::<u8>().ok().filter(|l| (1..=9).contains(l)).ok_or(format!(
                "`{text}`: pente-text takes a computer level 1-9 and no visit count, as in pente-text:5"
            ))?;
            return Ok(PlayerSpec {
                kind: PlayerKind::TextPente(level),
                visits: 0,
                seconds: None,
                solver: false,
                level: None,
            });
        }
        let (rest, solver) = match text.strip_suffix("+nosolver") {
            Some(rest) => (rest, false),
            None => (text, true),
        };
        let (name, visits, seconds, level) = match rest.rsplit_once('@') {
            Some((name, budget)) if let Some(number) = budget.strip_prefix("level") => {
                let level = number
                    .parse::<u8>()
                    .map_err(|_| format!("`{text}`: bad level `{number}`"))
                    .and_then(|n| pente_search::level::level(n).map_err(|e| format!("`{text}`: {e}")))?;
                if !solver {
                    return Err(format!("`{text}`: a level sets the solver itself; leave out +nosolver"));
                }
                (name, level.visits, None, Some(level.number))
            }
            Some((name, budget)) => {
                let bad = || format!("`{text}`: bad budget `{budget}` (a visit count, or a time like 1.5s or 500ms)");
                let time = match budget.strip_suffix("ms") {
                    Some(ms) => Some(ms.parse::<f64>().map_err(|_| bad())? / 1000.0),
                    None => budget.strip_suffix('s').map(|s| s.parse::<f64>().map_err(|_| bad())).transpose()?,
                };
                match time {
                    Some(seconds) if seconds > 0.0 && seconds.is_finite() => (name, TIMED_VISITS, Some(seconds), None),
                    Some(_) => return Err(bad()),
                    None => (name, budget.parse::<u32>().ok().filter(|&v| v > 0).ok_or_else(bad)?, None, None),
                }
            }
            None => match level {
                Some(number) => {
                    let level = pente_search::level::level(number)?;
                    (rest, level.visits, None, Some(number))
                }
                None => (rest, 64, None, None),
            },
        };
        let kind = match name {
            "heuristic" => PlayerKind::Heuristic,
            "uniform" => PlayerKind::Uniform,
            "" => return Err(format!("`{text}`: no player named")),
            path => PlayerKind::Model(PathBuf::from(path)),
        };
        Ok(PlayerSpec { kind, visits, seconds, solver, level })
    }

    /// Loads the player, a network on `backend` with every core.
    ///
    /// # Errors
    /// [`TrainError::Model`] if a model does not load, [`TrainError::Config`]
    /// for a pente-text level outside 1-9.
    pub fn load(&self, backend: &Backend) -> Result<Player, TrainError> {
        let (evaluator, name): (Box<dyn Evaluator>, String) = match &self.kind {
            PlayerKind::TextPente(level) => {
                let config = TextPenteConfig::new(*level).map_err(|e| TrainError::Config(e.to_string()))?;
                return Ok(Player { name: config.name(), engine: Engine::TextPente(config) });
            }
            PlayerKind::Heuristic => (Box::new(HeuristicEvaluator::default()), "heuristic".into()),
            PlayerKind::Uniform => (Box::new(UniformEvaluator::default()), "uniform".into()),
            PlayerKind::Model(dir) => {
                let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
                let evaluator = backend.load(dir, threads).map_err(|e| TrainError::Model(e.to_string()))?;
                let name = evaluator.name();
                (evaluator, name)
            }
        };
        if let Some(number) = self.level {
            let params = pente_search::level::level(number).map_err(TrainError::Config)?.params();
            let name = format!("{name}@level{number}");
            return Ok(Player { name, engine: Engine::Search { evaluator, params } });
        }
        let mut params = SearchParams { visits: self.visits, max_seconds: self.seconds, ..SearchParams::default() };
        params.tactics.enabled = self.solver;
        let budget = self.seconds.map_or(self.visits.to_string(), |s| format!("{s}s"));
        let suffix = if self.solver { "" } else { "+nosolver" };
        Ok(Player { name: format!("{name}@{budget}{suffix}"), engine: Engine::Search { evaluator, params } })
    }
}

/// The visit cap of a player with a time per move.
pub const TIMED_VISITS: u32 = 1_000_000;

/// A loaded player.
pub struct Player {
    /// `id@visits`, or `pente-text:LEVEL`.
    pub name: String,
    /// What chooses its moves.
    pub engine: Engine,
}

/// How a [`Player`] chooses moves.
pub enum Engine {
    /// Our search over an evaluator (no noise: arenas play their best).
    Search {
        /// The evaluator.
        evaluator: Box<dyn Evaluator>,
        /// The search settings.
        params: SearchParams,
    },
    /// A `pente -text` process a game.
    TextPente(TextPenteConfig),
}

impl Player {
    /// What it is, for the game records.
    fn settings(&self) -> serde_json::Value {
        match &self.engine {
            Engine::Search { params, .. } => match params.max_seconds {
                Some(seconds) => serde_json::json!({ "seconds": seconds }),
                None => serde_json::json!({ "visits": params.visits }),
            },
            Engine::TextPente(config) => serde_json::json!({ "program": config.program, "level": config.level }),
        }
    }

    /// The side of one game it plays as `color`.
    fn side(&self, position: &pente_core::Position, color: Color, seed: u64) -> Result<Side, TrainError> {
        Ok(match &self.engine {
            Engine::Search { params, .. } => Side::Search(Search::new(position.clone(), params.clone(), seed)),
            Engine::TextPente(config) => {
                Side::TextPente(TextPente::start(config, color).map_err(|e| TrainError::External(e.to_string()))?)
            }
        })
    }
}

/// One player's side of a game.
#[allow(clippy::large_enum_variant, reason = "two a game; boxing either only moves the lint")]
enum Side {
    Search(Search),
    TextPente(TextPente),
}

/// How an arena is played.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArenaConfig {
    /// Games; rounded up to an even number (pairs).
    pub games: u32,
    /// The rules, e.g. `pente/9`.
    #[serde(default)]
    pub rules: Rules,
    /// Random moves opening each pair of games (both colourings play them).
    #[serde(default = "default_opening_plies")]
    pub opening_plies: u32,
    /// Seed of the openings.
    #[serde(default)]
    pub seed: u64,
}

fn default_opening_plies() -> u32 {
    2
}

/// The Elo difference of A over B, with a 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Elo {
    /// Best estimate.
    pub diff: f64,
    /// Lower end of the 95 % interval.
    pub low: f64,
    /// Upper end of the 95 % interval.
    pub high: f64,
}

/// The outcome of an arena, from A's side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    /// Player A's name.
    pub a: String,
    /// Player B's name.
    pub b: String,
    /// Games won by A.
    pub wins: u32,
    /// Games lost by A.
    pub losses: u32,
    /// Drawn games.
    pub draws: u32,
    /// A's score: (wins + draws / 2) / games.
    pub score: f64,
    /// Elo of A over B.
    pub elo: Elo,
}

impl MatchResult {
    /// The same match from B's side.
    #[must_use]
    pub fn flipped(&self) -> MatchResult {
        MatchResult {
            a: self.b.clone(),
            b: self.a.clone(),
            wins: self.losses,
            losses: self.wins,
            draws: self.draws,
            score: 1.0 - self.score,
            elo: Elo { diff: -self.elo.diff, low: -self.elo.high, high: -self.elo.low },
        }
    }

    /// A's strength over B in words: `stronger` where the 95 % interval of
    /// the Elo difference lies above 0, `weaker` below it, else `level`.
    #[must_use]
    pub fn verdict(&self) -> &'static str {
        if self.elo.low > 0.0 {
            "stronger"
        } else if self.elo.high < 0.0 {
            "weaker"
        } else {
            "level (the 95 % interval spans 0)"
        }
    }
}

impl std::fmt::Display for MatchResult {
    /// `A vs B: 12 wins, 7 losses, 1 draws; score 62.5 %; Elo +89 (95 %: -48 to +262)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} vs {}: {} wins, {} losses, {} draws; score {:.1} %; Elo {:+.0} (95 %: {:+.0} to {:+.0})",
            self.a,
            self.b,
            self.wins,
            self.losses,
            self.draws,
            100.0 * self.score,
            self.elo.diff,
            self.elo.low,
            self.elo.high
        )
    }
}

/// Elo difference from a score, with a 95 % interval from the per-game
/// variance of the results (a normal approximation). Perfect scores are
/// pulled half a game in, so the estimate stays finite.
#[must_use]
pub fn elo_from_results(wins: u32, losses: u32, draws: u32) -> Elo {
    let n = f64::from(wins + losses + draws);
    if n == 0.0 {
        return Elo { diff: 0.0, low: f64::NEG_INFINITY, high: f64::INFINITY };
    }
    let score = (f64::from(wins) + 0.5 * f64::from(draws)) / n;
    let variance = (f64::from(wins) * (1.0 - score).powi(2)
        + f64::from(draws) * (0.5 - score).powi(2)
        + f64::from(losses) * score.powi(2))
        / n;
    let margin = 1.96 * (variance / n).sqrt();
    let clamp = |s: f64| s.clamp(0.5 / n, 1.0 - 0.5 / n);
    let elo = |s: f64| 400.0 * (clamp(s) / (1.0 - clamp(s))).log10();
    Elo { diff: elo(score), low: elo(score - margin), high: elo(score + margin) }
}

/// One arena game in progress: a side per player.
struct ArenaGame {
    id: u64,
    game: Game,
    /// `sides[0]` is A's.
    sides: [Side; 2],
    /// A's seat: the first player (White, but where the players choose
    /// colours after the opening stones) or the second.
    a_seat: Seat,
    moves: Vec<JsonMove>,
}

impl ArenaGame {
    fn player_to_move(&self) -> usize {
        usize::from(self.game.position().actor() != self.a_seat)
    }

    /// Whether A holds `color` (at the end of the game, when the colours
    /// are chosen).
    fn a_holds(&self, color: Color) -> bool {
        let position = self.game.position();
        position.holder(color).unwrap_or(if color == Color::White { Seat::First } else { Seat::Second }) == self.a_seat
    }
}

/// Plays `a` against `b`. Calls `on_game(done, total)` as games finish.
///
/// Against an external program the games start from the empty board (it
/// cannot be given an opening), so `opening_plies` is not used.
///
/// # Errors
/// [`TrainError::Config`] if an external program cannot play these rules,
/// [`TrainError::External`] if it fails or disagrees with our rules,
/// [`TrainError::Io`] if the games cannot be written to `records`.
pub fn play_match(
    a: &Player,
    b: &Player,
    config: &ArenaConfig,
    records: Option<&Path>,
    on_game: &mut dyn FnMut(u32, u32),
) -> Result<MatchResult, TrainError> {
    let external = [a, b].iter().any(|p| matches!(p.engine, Engine::TextPente(_)));
    if external && config.rules != TextPenteConfig::rules() {
        return Err(TrainError::Config(format!("pente -text plays only 19x19 Pente, not {}", config.rules)));
    }
    let opening_plies = if external { 0 } else { config.opening_plies };
    let pairs = config.games.div_ceil(2).max(1);
    let players = [a, b];
    let mut games: Vec<ArenaGame> = Vec::new();
    for pair in 0..u64::from(pairs) {
        let mut rng = SmallRng::seed_from_u64(game_seed(config.seed, pair));
        let mut opening = Game::new(config.rules);
        for _ in 0..opening_plies {
            let Some(point) = opening.position().random_legal_move(&mut rng) else { break };
            opening.play(point).expect("a random legal move is legal");
        }
        for (k, a_seat) in [Seat::First, Seat::Second].into_iter().enumerate() {
            let position = opening.position();
            let seed = game_seed(config.seed, 2 * pair + k as u64);
            // An external program plays Pente, where the first player is White.
            let a_color = if a_seat == Seat::First { Color::White } else { Color::Black };
            games.push(ArenaGame {
                id: 2 * pair + k as u64,
                game: opening.clone(),
                sides: [a.side(position, a_color, seed)?, b.side(position, a_color.opponent(), seed ^ 1)?],
                a_seat,
                moves: opening
                    .moves()
                    .iter()
                    .map(|&point| JsonMove { point, value: 0.0, visits: 0, policy: vec![] })
                    .collect(),
            });
        }
    }
    let total = games.len() as u32;
    // With a time per move, the games take turns: a move's time is then its
    // own, not shared with the searches of other games.
    let timed =
        players.iter().any(|p| matches!(&p.engine, Engine::Search { params, .. } if params.max_seconds.is_some()));
    let in_flight = if timed { 1 } else { games.len() };
    let mut waiting = std::collections::VecDeque::from(games);
    let mut games: Vec<ArenaGame> = Vec::new();
    let mut finished = Vec::new();
    let external_error = |e: pente_external::ExternalError| TrainError::External(e.to_string());
    loop {
        while games.len() < in_flight
            && let Some(game) = waiting.pop_front()
        {
            games.push(game);
        }
        if games.is_empty() {
            break;
        }
        for (p, player) in players.iter().enumerate() {
            let Engine::Search { evaluator, .. } = &player.engine else { continue };
            let mut searches: Vec<&mut Search> = games
                .iter_mut()
                .filter(|g| g.player_to_move() == p)
                .filter_map(|g| match &mut g.sides[p] {
                    Side::Search(search) => Some(search),
                    Side::TextPente(_) => None,
                })
                .collect();
            search_many(&mut searches, evaluator.as_ref());
        }
        // Our moves are sent to the programs as they are made, so every
        // program thinks while the other games are being played.
        for game in &mut games {
            let mover = game.player_to_move();
            let played = match &mut game.sides[mover] {
                Side::Search(search) => {
                    let result = search.result();
                    let point = search.play_move(&result).expect("an unfinished game has a move");
                    JsonMove { point, value: result.value, visits: result.visits, policy: vec![] }
                }
                Side::TextPente(program) => JsonMove {
                    point: program.next_move().map_err(external_error)?,
                    value: 0.0,
                    visits: 0,
                    policy: vec![],
                },
            };
            let point = played.point;
            game.game.play(point).map_err(|e| TrainError::External(format!("move {point}: {e}")))?;
            game.moves.push(played);
            for (k, side) in game.sides.iter_mut().enumerate() {
                match side {
                    Side::Search(search) => search.advance(point),
                    Side::TextPente(program) if k != mover => program.play(point).map_err(external_error)?,
                    Side::TextPente(_) => {}
                }
            }
        }
        let (done, playing): (Vec<_>, Vec<_>) = games.into_iter().partition(|g| g.game.position().is_over());
        games = playing;
        finished.extend(done);
        on_game(finished.len() as u32, total);
    }
    finished.sort_by_key(|g| g.id);
    let (mut wins, mut losses, mut draws) = (0, 0, 0);
    let mut records_out = Vec::new();
    for game in finished {
        let position = game.game.position();
        let outcome = position.outcome().expect("finished");
        match outcome.winner {
            None => draws += 1,
            Some(winner) if game.a_holds(winner) => wins += 1,
            Some(_) => losses += 1,
        }
        let (white, black) = if game.a_holds(Color::White) { (a, b) } else { (b, a) };
        records_out.push(JsonGame {
            schema: DATASET_SCHEMA,
            game_id: game.id,
            rules: *position.rules(),
            white: white.name.clone(),
            black: black.name.clone(),
            model: format!("{} vs {}", a.name, b.name),
            seed: config.seed,
            search: serde_json::json!({ "white": white.settings(), "black": black.settings() }),
            result: GameResult::from_winner(outcome.winner),
            reason: match outcome.reason {
                EndReason::Five => GameEnd::Five,
                EndReason::Captures => GameEnd::Captures,
                EndReason::Full => GameEnd::Full,
            },
            plies: position.ply(),
            captures: Captures { white: position.captured(Color::White), black: position.captured(Color::Black) },
            resign_check: None,
            moves: game.moves,
        });
    }
    if let Some(path) = records {
        write_games(path, &records_out)?;
    }
    let n = f64::from(wins + losses + draws);
    Ok(MatchResult {
        a: a.name.clone(),
        b: b.name.clone(),
        wins,
        losses,
        draws,
        score: (f64::from(wins) + 0.5 * f64::from(draws)) / n,
        elo: elo_from_results(wins, losses, draws),
    })
}

/// Writes arena games as a JSONL file, through a temporary file.
fn write_games(path: &Path, games: &[JsonGame]) -> Result<(), TrainError> {
    let mut text = Vec::new();
    for game in games {
        pente_records::write_jsonl_game(&mut text, game).map_err(|e| TrainError::Io(e.to_string()))?;
    }
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(|e| TrainError::Io(format!("{}: {e}", tmp.display())))?;
    std::fs::rename(&tmp, path).map_err(|e| TrainError::Io(format!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_of_known_scores() {
        let even = elo_from_results(10, 10, 0);
        assert!(even.diff.abs() < 1e-9);
        assert!(even.low < -100.0 && even.high > 100.0);
        // 75 % is +190.8 Elo.
        let three_to_one = elo_from_results(75, 25, 0);
        assert!((three_to_one.diff - 190.85).abs() < 0.1, "{}", three_to_one.diff);
        assert!(three_to_one.low < three_to_one.diff && three_to_one.diff < three_to_one.high);
        // Draws count half.
        assert!((elo_from_results(5, 5, 10).diff).abs() < 1e-9);
        // A clean sweep stays finite.
        assert!(elo_from_results(20, 0, 0).diff.is_finite());
    }

    #[test]
    fn player_specs() {
        assert_eq!(
            PlayerSpec::parse("heuristic@200").unwrap(),
            PlayerSpec { kind: PlayerKind::Heuristic, visits: 200, seconds: None, solver: true, level: None }
        );
        assert_eq!(PlayerSpec::parse("uniform").unwrap().visits, 64);
        assert_eq!(
            PlayerSpec::parse("runs/m+x@100+nosolver").unwrap(),
            PlayerSpec {
                kind: PlayerKind::Model(PathBuf::from("runs/m+x")),
                visits: 100,
                seconds: None,
                solver: false,
                level: None
            }
        );
        let timed = PlayerSpec::parse("heuristic@250ms").unwrap();
        assert_eq!((timed.visits, timed.seconds), (TIMED_VISITS, Some(0.25)));
        assert_eq!(PlayerSpec::parse("uniform@2s+nosolver").unwrap().seconds, Some(2.0));
        for bad in ["heuristic@0s", "heuristic@xs", "heuristic@-1ms", "heuristic@0"] {
            assert!(PlayerSpec::parse(bad).is_err(), "{bad}");
        }
        assert!(!PlayerSpec::parse("heuristic+nosolver").unwrap().solver);
        let leveled = PlayerSpec::parse("runs/m@level4").unwrap();
        assert_eq!((leveled.level, leveled.visits), (Some(4), 32));
        assert_eq!(PlayerSpec::parse_at("runs/m", Some(4)).unwrap(), leveled);
        assert_eq!(PlayerSpec::parse_at("runs/m@100", Some(4)).unwrap().level, None, "its own budget");
        for bad in ["heuristic@level0", "heuristic@level10", "heuristic@levelx", "heuristic@level3+nosolver"] {
            assert!(PlayerSpec::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            PlayerSpec::parse("runs/a@b/model@8").unwrap().kind,
            PlayerKind::Model(PathBuf::from("runs/a@b/model"))
        );
        assert_eq!(PlayerSpec::parse("pente-text:7").unwrap().kind, PlayerKind::TextPente(7));
        for bad in ["pente-text:0", "pente-text:10", "pente-text:5@64", "pente-text:"] {
            assert!(PlayerSpec::parse(bad).is_err(), "{bad}");
        }
        assert!(PlayerSpec::parse("heuristic@0").is_err());
        assert!(PlayerSpec::parse("heuristic@x").is_err());
    }

    #[test]
    fn heuristic_beats_uniform_search() {
        let rules = Rules::new(pente_core::Variant::Pente, 9).unwrap();
        let config = ArenaConfig { games: 8, rules, opening_plies: 2, seed: 3 };
        let heuristic = PlayerSpec::parse("heuristic@32").unwrap().load(&Backend::default()).unwrap();
        let uniform = PlayerSpec::parse("uniform@32").unwrap().load(&Backend::default()).unwrap();
        let mut seen = 0;
        let result = play_match(&heuristic, &uniform, &config, None, &mut |done, total| {
            assert!(done <= total);
            seen = done;
        })
        .unwrap();
        assert_eq!(seen, 8);
        assert_eq!(result.wins + result.losses + result.draws, 8);
        assert!(result.score > 0.7, "{result:?}");
        assert!(result.elo.diff > 0.0);
    }

    #[test]
    fn external_programs_need_their_rules() {
        let rules = Rules::new(pente_core::Variant::Pente, 9).unwrap();
        let config = ArenaConfig { games: 2, rules, opening_plies: 2, seed: 0 };
        let program = PlayerSpec::parse("pente-text:1").unwrap().load(&Backend::default()).unwrap();
        let heuristic = PlayerSpec::parse("heuristic@8").unwrap().load(&Backend::default()).unwrap();
        let error = play_match(&heuristic, &program, &config, None, &mut |_, _| {}).expect_err("9x9 refused");
        assert!(error.to_string().contains("19x19"), "{error}");
    }

    /// A match against Debian's `pente -text` (skipped when it is not
    /// installed, unless `PENTE_REQUIRE_EXTERNAL` is set, as in CI).
    #[test]
    fn heuristic_against_pente_text() {
        let program = PlayerSpec::parse("pente-text:1").unwrap().load(&Backend::default()).unwrap();
        let Engine::TextPente(settings) = &program.engine else { unreachable!() };
        if !settings.program.is_file() {
            assert!(std::env::var_os("PENTE_REQUIRE_EXTERNAL").is_none(), "{} is missing", settings.program.display());
            eprintln!("skipped: {} is not installed", settings.program.display());
            return;
        }
        let config = ArenaConfig { games: 4, rules: TextPenteConfig::rules(), opening_plies: 2, seed: 0 };
        let heuristic = PlayerSpec::parse("heuristic@16").unwrap().load(&Backend::default()).unwrap();
        let dir = std::env::temp_dir().join(format!("pente-arena-text-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.jsonl");
        let result = play_match(&heuristic, &program, &config, Some(&path), &mut |_, _| {}).unwrap();
        assert_eq!(result.wins + result.losses + result.draws, 4);
        assert_eq!(result.b, "pente-text:1");
        let text = std::fs::read_to_string(&path).unwrap();
        let games: Vec<JsonGame> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(games.len(), 4);
        for game in &games {
            // Both colours, every game from the centre (no random opening).
            assert_eq!(game.moves[0].point, pente_core::Point::centre(19));
            let mut replay = Game::new(game.rules);
            for m in &game.moves {
                replay.play(m.point).unwrap();
            }
            assert!(replay.position().is_over());
        }
        assert_eq!(games.iter().filter(|g| g.white == "pente-text:1").count(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
