//! Arenas: two players, colours alternated, openings paired, many games at
//! once sharing network calls; the score and the Elo difference with its
//! 95 % interval.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};

use pente_core::{Color, Game, Rules, Seat};
use pente_external::{TextPente, TextPenteConfig};
use pente_records::{Captures, DATASET_SCHEMA, GameEnd, GameResult, JsonGame, JsonMove};
use pente_search::{Backend, Evaluator, HeuristicEvaluator, Search, SearchParams, UniformEvaluator, search_many};
use pente_selfplay::game_seed;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use serde::{Deserialize, Serialize};

use crate::error::{TrainError, io};

/// A player as named on the command line: `heuristic`, `uniform`, or a
/// model directory, each with an optional `@visits` (default 64) or
/// `@SECONDSs` / `@MILLISms` (a time per move instead), and an optional
/// `+nosolver` (search without the threat solver) or `+verifyN` (after the
/// search, check up to N best moves for a forced win of the opponent with
/// the solver, as the top strength levels do), or `@levelN`, a strength
/// level of [`pente_search::level`] (its visits, move temperature and solver
/// budget), or `@clockMAIN+INC`, a game clock of MAIN seconds and INC more
/// after each move (the search takes [`pente_search::level::move_time`] of
/// it; a player whose clock runs out loses the game, `time` in its record),
/// e.g. `runs/quick/models/quick-3@200+nosolver`, `data/models/default@400+verify2`,
/// `data/models/default@1.5s`, `data/models/default@level3` or
/// `data/models/default@clock60+1`;
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
    /// Best moves the solver checks after the search (`verify_moves`).
    pub verify: u32,
    /// A strength level (1 to [`pente_search::level::LEVELS`]): its settings
    /// replace `visits` and `solver`.
    pub level: Option<u8>,
    /// A game clock instead of a budget a move.
    pub clock: Option<GameClock>,
}

/// A game clock: main time and the increment each move adds, in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GameClock {
    /// Seconds on the clock at the start.
    pub main: f64,
    /// Seconds added after each move.
    pub increment: f64,
}

impl GameClock {
    /// Parses `MAIN+INC` or `MAIN` (seconds).
    fn parse(text: &str) -> Option<GameClock> {
        let (main, increment) = text.split_once('+').unwrap_or((text, "0"));
        let (main, increment) = (main.parse::<f64>().ok()?, increment.parse::<f64>().ok()?);
        (main > 0.0 && main.is_finite() && increment >= 0.0 && increment.is_finite())
            .then_some(GameClock { main, increment })
    }
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
        PlayerSpec {
            kind: PlayerKind::Model(dir.to_path_buf()),
            visits,
            seconds: None,
            solver: true,
            verify: 0,
            level: None,
            clock: None,
        }
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
                verify: 0,
                level: None,
                clock: None,
            });
        }
        let (rest, verify) = match text.rsplit_once("+verify") {
            Some((rest, n)) => {
                let n =
                    n.parse::<u32>().ok().filter(|&n| n > 0).ok_or_else(|| {
                        format!("`{text}`: +verify takes how many best moves to check, as in +verify2")
                    })?;
                (rest, n)
            }
            None => (text, 0),
        };
        let (rest, solver) = match rest.strip_suffix("+nosolver") {
            Some(rest) => (rest, false),
            None => (rest, true),
        };
        if verify > 0 && !solver {
            return Err(format!("`{text}`: +verify checks moves with the solver; leave out +nosolver"));
        }
        let mut clock = None;
        let (name, visits, seconds, level) = match rest.rsplit_once('@') {
            Some((name, budget)) if let Some(numbers) = budget.strip_prefix("clock") => {
                let parsed = GameClock::parse(numbers).ok_or_else(|| {
                    format!("`{text}`: bad clock `{numbers}` (main seconds and an increment, as in clock60+1)")
                })?;
                clock = Some(parsed);
                // Each move's time limit is set from the clock as it is played.
                (name, TIMED_VISITS, None, None)
            }
            Some((name, budget)) if let Some(number) = budget.strip_prefix("level") => {
                let level = number
                    .parse::<u8>()
                    .map_err(|_| format!("`{text}`: bad level `{number}`"))
                    .and_then(|n| pente_search::level::level(n).map_err(|e| format!("`{text}`: {e}")))?;
                if !solver || verify > 0 {
                    return Err(format!("`{text}`: a level sets the solver itself; leave out +nosolver and +verify"));
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
        Ok(PlayerSpec { kind, visits, seconds, solver, verify, level, clock })
    }

    /// Loads the player, a network on `backend` with every core.
    ///
    /// # Errors
    /// [`TrainError::Load`] if a model does not load, [`TrainError::External`]
    /// for a pente-text level outside 1-9, [`TrainError::Config`] for a
    /// strength level that does not exist.
    pub fn load(&self, backend: &dyn Backend) -> Result<Player, TrainError> {
        let (evaluator, name): (Box<dyn Evaluator>, String) = match &self.kind {
            PlayerKind::TextPente(level) => {
                let config = TextPenteConfig::new(*level)?;
                return Ok(Player { name: config.name(), engine: Engine::TextPente(config), book: None, clock: None });
            }
            PlayerKind::Heuristic => (Box::new(HeuristicEvaluator::default()), "heuristic".into()),
            PlayerKind::Uniform => (Box::new(UniformEvaluator::default()), "uniform".into()),
            PlayerKind::Model(dir) => {
                let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
                let evaluator = backend.load(dir, threads)?;
                let name = evaluator.name();
                (evaluator, name)
            }
        };
        if let Some(number) = self.level {
            let params = pente_search::level::level(number).map_err(TrainError::Config)?.params();
            let name = format!("{name}@level{number}");
            return Ok(Player { name, engine: Engine::Search { evaluator, params }, book: None, clock: None });
        }
        let mut params = SearchParams { visits: self.visits, max_seconds: self.seconds, ..SearchParams::default() };
        params.tactics.enabled = self.solver;
        params.tactics.verify_moves = self.verify;
        let budget = match (self.clock, self.seconds) {
            (Some(clock), _) => format!("clock{}+{}", clock.main, clock.increment),
            (None, Some(seconds)) => format!("{seconds}s"),
            (None, None) => self.visits.to_string(),
        };
        let suffix = match (self.solver, self.verify) {
            (false, _) => "+nosolver".to_string(),
            (true, 0) => String::new(),
            (true, n) => format!("+verify{n}"),
        };
        Ok(Player {
            name: format!("{name}@{budget}{suffix}"),
            engine: Engine::Search { evaluator, params },
            book: None,
            clock: self.clock,
        })
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
    /// An opening book it plays from while the game is in it (our search only).
    pub book: Option<std::sync::Arc<pente_book::BookPlayer>>,
    /// Its game clock, if it plays on one (our search only).
    pub clock: Option<GameClock>,
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
    /// This player following `book` while the game is in it: `NAME+book`.
    ///
    /// # Errors
    /// [`TrainError::Config`] for a `pente -text` player (it has its own play).
    pub fn with_book(mut self, book: std::sync::Arc<pente_book::BookPlayer>) -> Result<Player, TrainError> {
        if matches!(self.engine, Engine::TextPente(_)) {
            return Err(TrainError::Config(format!("{}: an external program cannot follow a book", self.name)));
        }
        self.name.push_str("+book");
        self.book = Some(book);
        Ok(self)
    }

    /// This player with some of its search settings changed: each of
    /// `settings` a TOML assignment to a field of [`SearchParams`], as
    /// `c_puct = 2.0` or `tactics.verify_moves = 3` (its name gets
    /// `+c_puct=2.0` for each). For tuning a setting against the player
    /// without it.
    ///
    /// # Errors
    /// [`TrainError::Config`] for an assignment that is not TOML, names no
    /// setting or has a value of the wrong type, and for a `pente -text`
    /// player (its program has its own settings).
    pub fn with_settings(mut self, settings: &[String]) -> Result<Player, TrainError> {
        if settings.is_empty() {
            return Ok(self);
        }
        let name = self.name.clone();
        let Engine::Search { params, .. } = &mut self.engine else {
            return Err(TrainError::Config(format!("{name}: an external program has no search settings to change")));
        };
        let bad = |e: &dyn std::fmt::Display| TrainError::Config(format!("{name}: search settings {settings:?}: {e}"));
        let patch: toml::Table = settings.join("\n").parse().map_err(|e| bad(&e))?;
        let mut merged = toml::Table::try_from(&*params).map_err(|e| bad(&e))?;
        merge_table(&mut merged, patch);
        *params = merged.try_into().map_err(|e| bad(&e))?;
        params.check().map_err(|e| bad(&e))?;
        for setting in settings {
            self.name.push('+');
            self.name.extend(setting.chars().filter(|c| !c.is_whitespace()));
        }
        Ok(self)
    }

    /// What it is, for the game records.
    fn settings(&self) -> serde_json::Value {
        match &self.engine {
            Engine::Search { .. } if let Some(clock) = self.clock => {
                serde_json::json!({ "clock": { "main": clock.main, "increment": clock.increment } })
            }
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
            Engine::TextPente(config) => Side::TextPente(TextPente::start(config, color)?),
        })
    }
}

/// Writes `patch` over `base`, table into table, so that a dotted key
/// changes one field of a nested table and leaves its others.
fn merge_table(base: &mut toml::Table, patch: toml::Table) {
    for (key, value) in patch {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(inner)), toml::Value::Table(patch)) => merge_table(inner, patch),
            (_, value) => {
                base.insert(key, value);
            }
        }
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
    /// `sides[0]` is A's.
    sides: [Side; 2],
    played: PlayedGame,
    /// Seconds left on each side's clock (A's first), for players with one.
    clocks: [f64; 2],
}

/// A game's moves so far and who sits where.
struct PlayedGame {
    id: u64,
    game: Game,
    /// A's seat: the first player (White, but where the players choose
    /// colours after the opening stones) or the second.
    a_seat: Seat,
    moves: Vec<JsonMove>,
    /// Set when a clock ran out: whether it was A's.
    a_out_of_time: Option<bool>,
}

impl ArenaGame {
    fn player_to_move(&self) -> usize {
        usize::from(self.played.game.position().actor() != self.played.a_seat)
    }

    /// Plays the mover's move (its search done, or the program's reply) and
    /// tells the other side.
    fn play_move(&mut self, players: [&Player; 2]) -> Result<(), TrainError> {
        let mover = self.player_to_move();
        let played = match &mut self.sides[mover] {
            Side::Search(search) => {
                let result = search.result();
                let game = &self.played.game;
                let from_book = players[mover].book.as_ref().and_then(|book| book.choose(game.rules(), game.moves()));
                let point = match from_book {
                    Some(point) => point,
                    None => search.play_move(&result).expect("an unfinished game has a move"),
                };
                JsonMove { point, value: result.value, visits: result.visits, policy: vec![] }
            }
            Side::TextPente(program) => JsonMove { point: program.next_move()?, value: 0.0, visits: 0, policy: vec![] },
        };
        let point = played.point;
        self.played.game.play(point).map_err(|source| TrainError::RefusedMove {
            player: players[mover].name.clone(),
            point,
            source,
        })?;
        self.played.moves.push(played);
        for (k, side) in self.sides.iter_mut().enumerate() {
            match side {
                Side::Search(search) => search.advance(point),
                Side::TextPente(program) if k != mover => program.play(point)?,
                Side::TextPente(_) => {}
            }
        }
        Ok(())
    }
}

impl PlayedGame {
    /// Whether A holds `color` (at the end of the game, when the colours
    /// are chosen).
    fn a_holds(&self, color: Color) -> bool {
        let position = self.game.position();
        position.holder(color).unwrap_or(if color == Color::White { Seat::First } else { Seat::Second }) == self.a_seat
    }

    /// A's result in the finished game: a win, a loss, or `None` for a draw.
    fn a_won(&self) -> Option<bool> {
        if let Some(a_out) = self.a_out_of_time {
            return Some(!a_out);
        }
        let winner = self.game.position().outcome().expect("finished").winner?;
        Some(self.a_holds(winner))
    }

    /// The record of the finished game.
    fn record(self, a: &Player, b: &Player, seed: u64) -> JsonGame {
        let position = self.game.position();
        let (winner, reason) = match self.a_out_of_time {
            Some(a_out) => {
                let a_color = if self.a_holds(Color::White) { Color::White } else { Color::Black };
                (Some(if a_out { a_color.opponent() } else { a_color }), GameEnd::Time)
            }
            None => {
                let outcome = position.outcome().expect("finished");
                (outcome.winner, GameEnd::from(outcome.reason))
            }
        };
        let (white, black) = if self.a_holds(Color::White) { (a, b) } else { (b, a) };
        JsonGame {
            schema: DATASET_SCHEMA,
            game_id: self.id,
            rules: *position.rules(),
            white: white.name.clone(),
            black: black.name.clone(),
            model: match_name(a, b),
            seed,
            search: serde_json::json!({ "white": white.settings(), "black": black.settings() }),
            result: GameResult::from_winner(winner),
            reason,
            plies: position.ply(),
            captures: Captures { white: position.captured(Color::White), black: position.captured(Color::Black) },
            resign_check: None,
            moves: self.moves,
        }
    }
}

/// The `model` field of a match's records: `A vs B`.
fn match_name(a: &Player, b: &Player) -> String {
    format!("{} vs {}", a.name, b.name)
}

/// Where an arena writes its games (JSONL, one line as each game ends, the
/// whole file sorted by game at the end), and whether it goes on from the
/// games of the same match already there, as after a killed run.
#[derive(Debug, Clone, Copy)]
pub struct Records<'a> {
    /// The `games.jsonl`-format file.
    pub path: &'a Path,
    /// Keep the finished games of this match found in `path` and play only
    /// the others. Without it the file is started afresh.
    pub resume: bool,
}

/// Plays `a` against `b`. Calls `on_game(done, total)` as games finish.
/// With `records`, each game is written as it ends, so a killed match keeps
/// its finished games, and one resumed plays only the rest.
///
/// Against an external program the games start from the empty board (it
/// cannot be given an opening), so `opening_plies` is not used.
///
/// # Errors
/// [`TrainError::Config`] if an external program cannot play these rules,
/// [`TrainError::External`] if it fails, [`TrainError::RefusedMove`] if it
/// makes a move our rules refuse, [`TrainError::Io`] if the games cannot be
/// written to (or, resuming, read from) `records`, [`TrainError::Resume`]
/// (or [`TrainError::ResumeParse`], [`TrainError::ResumeMove`]) if a game
/// there is not one of this match.
pub fn play_match(
    a: &Player,
    b: &Player,
    config: &ArenaConfig,
    records: Option<Records<'_>>,
    on_game: &mut dyn FnMut(u32, u32),
) -> Result<MatchResult, TrainError> {
    let players = [a, b];
    let external = players.iter().any(|p| matches!(p.engine, Engine::TextPente(_)));
    if external && config.rules != TextPenteConfig::rules() {
        return Err(TrainError::Config(format!("pente -text plays only 19x19 Pente, not {}", config.rules)));
    }
    let openings = match_openings(config, if external { 0 } else { config.opening_plies });
    let total = 2 * config.pairs();
    let kept = match records {
        Some(Records { path, resume: true }) if path.exists() => resumed_games(path, a, b, config, &openings)?,
        _ => Vec::new(),
    };
    let mut sheet = Scoresheet::start(records, kept)?;
    let mut waiting = schedule(players, config, &openings, &sheet.game_ids())?;
    on_game(sheet.count(), total);
    let in_flight = if takes_turns(players) { 1 } else { waiting.len() };
    let mut games: Vec<ArenaGame> = Vec::new();
    loop {
        while games.len() < in_flight
            && let Some(game) = waiting.pop_front()
        {
            games.push(game);
        }
        if games.is_empty() {
            break;
        }
        step(&mut games, players)?;
        for game in take_ended(&mut games) {
            sheet.add(game, players, config.seed)?;
        }
        on_game(sheet.count(), total);
    }
    Ok(tally(&a.name, &b.name, &sheet.close()?))
}

impl ArenaConfig {
    /// Pairs of games: the games rounded up to pairs, at least one.
    fn pairs(&self) -> u32 {
        self.games.div_ceil(2).max(1)
    }
}

/// The opening of each pair of games: `plies` random legal moves, seeded
/// by the pair.
fn match_openings(config: &ArenaConfig, plies: u32) -> Vec<Game> {
    (0..u64::from(config.pairs()))
        .map(|pair| {
            let mut rng = SmallRng::seed_from_u64(game_seed(config.seed, pair));
            let mut opening = Game::new(config.rules);
            for _ in 0..plies {
                let Some(point) = opening.position().random_legal_move(&mut rng) else { break };
                opening.play(point).expect("a random legal move is legal");
            }
            opening
        })
        .collect()
}

/// The games still to play, in game order: each opening twice, A first and
/// then second, leaving out the games `done`.
fn schedule(
    [a, b]: [&Player; 2],
    config: &ArenaConfig,
    openings: &[Game],
    done: &HashSet<u64>,
) -> Result<VecDeque<ArenaGame>, TrainError> {
    let mut waiting = VecDeque::new();
    for (pair, opening) in openings.iter().enumerate() {
        for (k, a_seat) in [Seat::First, Seat::Second].into_iter().enumerate() {
            let id = 2 * pair as u64 + k as u64;
            if done.contains(&id) {
                continue;
            }
            let position = opening.position();
            let seed = game_seed(config.seed, id);
            // An external program plays Pente, where the first player is White.
            let a_color = if a_seat == Seat::First { Color::White } else { Color::Black };
            waiting.push_back(ArenaGame {
                sides: [a.side(position, a_color, seed)?, b.side(position, a_color.opponent(), seed ^ 1)?],
                played: PlayedGame {
                    id,
                    game: opening.clone(),
                    a_seat,
                    moves: opening_moves(opening),
                    a_out_of_time: None,
                },
                clocks: [a, b].map(|p| p.clock.map_or(0.0, |c| c.main)),
            });
        }
    }
    Ok(waiting)
}

/// The records of an opening's moves, searched by neither player.
fn opening_moves(opening: &Game) -> Vec<JsonMove> {
    opening.moves().iter().map(|&point| JsonMove { point, value: 0.0, visits: 0, policy: vec![] }).collect()
}

/// Whether the games take turns: with a time per move or a clock, a move's
/// time is then its own, not shared with the searches of other games.
fn takes_turns(players: [&Player; 2]) -> bool {
    players.iter().any(|p| {
        p.clock.is_some() || matches!(&p.engine, Engine::Search { params, .. } if params.max_seconds.is_some())
    })
}

/// One move in every game: the searches of each player run together (their
/// network calls batched), then each game plays its mover's move.
fn step(games: &mut [ArenaGame], players: [&Player; 2]) -> Result<(), TrainError> {
    for (p, player) in players.iter().enumerate() {
        let Engine::Search { evaluator, params } = &player.engine else { continue };
        let mut movers: Vec<&mut ArenaGame> = games.iter_mut().filter(|g| g.player_to_move() == p).collect();
        if let Some(clock) = player.clock {
            // The move's share of the clock (a clock's games take turns,
            // so the search's time is this game's alone).
            for game in &mut movers {
                let share =
                    pente_search::level::move_time(game.clocks[p], clock.increment, game.played.game.moves().len());
                if let Side::Search(search) = &mut game.sides[p] {
                    search.set_params(SearchParams { max_seconds: Some(share.max(1e-3)), ..params.clone() });
                }
            }
        }
        let started = std::time::Instant::now();
        let mut searches: Vec<&mut Search> = movers
            .iter_mut()
            .filter_map(|g| match &mut g.sides[p] {
                Side::Search(search) => Some(search),
                Side::TextPente(_) => None,
            })
            .collect();
        search_many(&mut searches, evaluator.as_ref());
        if let Some(clock) = player.clock {
            let spent = started.elapsed().as_secs_f64();
            for game in movers {
                game.clocks[p] -= spent;
                if game.clocks[p] < 0.0 {
                    game.played.a_out_of_time = Some(p == 0);
                } else {
                    game.clocks[p] += clock.increment;
                }
            }
        }
    }
    // Our moves are sent to the programs as they are made, so every
    // program thinks while the other games are being played.
    for game in games.iter_mut().filter(|g| g.played.a_out_of_time.is_none()) {
        game.play_move(players)?;
    }
    Ok(())
}

/// Removes the finished games from `games` and returns them.
fn take_ended(games: &mut Vec<ArenaGame>) -> Vec<ArenaGame> {
    let (ended, playing) = std::mem::take(games)
        .into_iter()
        .partition(|g| g.played.game.position().is_over() || g.played.a_out_of_time.is_some());
    *games = playing;
    ended
}

/// The finished games of a match with A's result in each (a win, a loss,
/// `None` a draw), and the records file each is appended to as it ends.
struct Scoresheet<'a> {
    finished: Vec<(JsonGame, Option<bool>)>,
    out: Option<(std::fs::File, &'a Path)>,
}

impl<'a> Scoresheet<'a> {
    /// The sheet holding the games `kept` from an earlier run; the records
    /// file, if any, starts with them.
    fn start(records: Option<Records<'a>>, kept: Vec<(JsonGame, Option<bool>)>) -> Result<Self, TrainError> {
        let out = records.map(|r| start_records(r.path, &kept).map(|file| (file, r.path))).transpose()?;
        Ok(Scoresheet { finished: kept, out })
    }

    fn count(&self) -> u32 {
        self.finished.len() as u32
    }

    fn game_ids(&self) -> HashSet<u64> {
        self.finished.iter().map(|(g, _)| g.game_id).collect()
    }

    /// Adds a finished game, appending its record to the file.
    fn add(&mut self, game: ArenaGame, [a, b]: [&Player; 2], seed: u64) -> Result<(), TrainError> {
        let a_won = game.played.a_won();
        let record = game.played.record(a, b, seed);
        if let Some((file, path)) = &mut self.out {
            append_game(file, path, &record)?;
        }
        self.finished.push((record, a_won));
        Ok(())
    }

    /// A's results in game order, the records file rewritten in that order.
    fn close(mut self) -> Result<Vec<Option<bool>>, TrainError> {
        self.finished.sort_by_key(|(g, _)| g.game_id);
        if let Some((_, path)) = &self.out {
            let games: Vec<&JsonGame> = self.finished.iter().map(|(g, _)| g).collect();
            write_games(path, &games)?;
        }
        Ok(self.finished.iter().map(|&(_, a_won)| a_won).collect())
    }
}

/// The result of a match of `a` against `b` from A's results in its games
/// (a win, a loss, `None` a draw).
pub(crate) fn tally(a: &str, b: &str, results: &[Option<bool>]) -> MatchResult {
    let (mut wins, mut losses, mut draws) = (0, 0, 0);
    for a_won in results {
        match a_won {
            None => draws += 1,
            Some(true) => wins += 1,
            Some(false) => losses += 1,
        }
    }
    let n = f64::from(wins + losses + draws);
    MatchResult {
        a: a.to_string(),
        b: b.to_string(),
        wins,
        losses,
        draws,
        score: (f64::from(wins) + 0.5 * f64::from(draws)) / n,
        elo: elo_from_results(wins, losses, draws),
    }
}

/// The finished games of this match in `path`, a file of an earlier,
/// killed run of it, with A's result in each. A last line cut short (the
/// game being written when the run was killed) is left out.
fn resumed_games(
    path: &Path,
    a: &Player,
    b: &Player,
    config: &ArenaConfig,
    openings: &[Game],
) -> Result<Vec<(JsonGame, Option<bool>)>, TrainError> {
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    let complete = text.rfind('\n').map_or("", |end| &text[..=end]);
    let name = match_name(a, b);
    let mut games: Vec<(JsonGame, Option<bool>)> = Vec::new();
    for parsed in pente_records::jsonl_games(complete.as_bytes()) {
        let (line, game) = parsed.map_err(|source| TrainError::ResumeParse { path: path.to_path_buf(), source })?;
        let at = |message: String| TrainError::Resume { path: path.to_path_buf(), line, message };
        if game.model != name || game.seed != config.seed || game.rules != config.rules {
            return Err(at(format!(
                "a game of `{}` (seed {}, {}), not of this match (`{name}`, seed {}, {}); \
                 give another --out, or delete the file to start afresh",
                game.model, game.seed, game.rules, config.seed, config.rules
            )));
        }
        let opening = usize::try_from(game.game_id / 2).ok().and_then(|pair| openings.get(pair));
        let Some(opening) = opening else {
            return Err(at(format!("game {} is past the {} games of this match", game.game_id, 2 * openings.len())));
        };
        if games.iter().any(|(g, _)| g.game_id == game.game_id) {
            return Err(at(format!("game {} is there twice", game.game_id)));
        }
        let moves: Vec<_> = game.moves.iter().map(|m| m.point).collect();
        if !moves.starts_with(opening.moves()) {
            return Err(at(format!("game {} does not start from this match's opening", game.game_id)));
        }
        let mut replay = Game::new(config.rules);
        for &point in &moves {
            replay.play(point).map_err(|source| TrainError::ResumeMove {
                path: path.to_path_buf(),
                line,
                game: game.game_id,
                source,
            })?;
        }
        let a_seat = if game.game_id % 2 == 0 { Seat::First } else { Seat::Second };
        let mut played = PlayedGame { id: game.game_id, game: replay, a_seat, moves: Vec::new(), a_out_of_time: None };
        match (game.reason, game.result.winner()) {
            (GameEnd::Time, Some(winner)) => played.a_out_of_time = Some(!played.a_holds(winner)),
            (GameEnd::Time, None) => return Err(at(format!("game {} was lost on time by nobody", game.game_id))),
            _ if !played.game.position().is_over() => {
                return Err(at(format!("game {} is not finished", game.game_id)));
            }
            _ => {}
        }
        let a_won = played.a_won();
        games.push((game, a_won));
    }
    Ok(games)
}

/// Starts the records file with the games kept from an earlier run (none
/// unless resuming), whole, and opens it for the games to come.
fn start_records(path: &Path, kept: &[(JsonGame, Option<bool>)]) -> Result<std::fs::File, TrainError> {
    let games: Vec<&JsonGame> = kept.iter().map(|(g, _)| g).collect();
    write_games(path, &games)?;
    std::fs::OpenOptions::new().append(true).open(path).map_err(io(path))
}

/// Appends one finished game to the records, a whole line in one write.
fn append_game(file: &mut std::fs::File, path: &Path, game: &JsonGame) -> Result<(), TrainError> {
    use std::io::Write;
    let mut line = Vec::new();
    pente_records::write_jsonl_game(&mut line, game).map_err(io(path))?;
    file.write_all(&line).and_then(|()| file.flush()).map_err(io(path))
}

/// Writes arena games as a JSONL file, through a temporary file.
fn write_games(path: &Path, games: &[&JsonGame]) -> Result<(), TrainError> {
    let mut text = Vec::new();
    for game in games {
        pente_records::write_jsonl_game(&mut text, game).map_err(io(path))?;
    }
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))
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

    /// A's results, in any order, become its wins, losses and draws, a
    /// score counting draws half, and the Elo of that score.
    #[test]
    fn a_match_is_tallied_from_a_side() {
        let result = tally("x@8", "y@8", &[Some(true), None, Some(false), Some(true), Some(true)]);
        assert_eq!((result.a.as_str(), result.b.as_str()), ("x@8", "y@8"));
        assert_eq!((result.wins, result.losses, result.draws), (3, 1, 1));
        // (3 + 1/2) / 5 games.
        assert!((result.score - 0.7).abs() < 1e-12, "{}", result.score);
        // 400 log10(0.7 / 0.3); the interval's top is clamped at 4.5 / 5
        // games, 400 log10(9).
        assert!((result.elo.diff - 147.19).abs() < 0.01, "{:?}", result.elo);
        assert!((result.elo.high - 381.70).abs() < 0.01, "{:?}", result.elo);
        assert!((result.elo.low + 108.01).abs() < 0.01, "{:?}", result.elo);

        let drawn = tally("x@8", "y@8", &[None; 4]);
        assert_eq!((drawn.wins, drawn.losses, drawn.draws, drawn.score), (0, 0, 4, 0.5));
        assert_eq!((drawn.elo.diff, drawn.elo.low, drawn.elo.high), (0.0, 0.0, 0.0), "no spread, no interval");
        let swept = tally("x@8", "y@8", &[Some(false); 2]);
        assert_eq!((swept.wins, swept.losses, swept.score), (0, 2, 0.0));
    }

    #[test]
    fn player_specs() {
        assert_eq!(
            PlayerSpec::parse("heuristic@200").unwrap(),
            PlayerSpec {
                kind: PlayerKind::Heuristic,
                visits: 200,
                seconds: None,
                solver: true,
                verify: 0,
                level: None,
                clock: None
            }
        );
        assert_eq!(PlayerSpec::parse("uniform").unwrap().visits, 64);
        assert_eq!(
            PlayerSpec::parse("runs/m+x@100+nosolver").unwrap(),
            PlayerSpec {
                kind: PlayerKind::Model(PathBuf::from("runs/m+x")),
                visits: 100,
                seconds: None,
                solver: false,
                verify: 0,
                level: None,
                clock: None
            }
        );
        let verified = PlayerSpec::parse("runs/m+x@400+verify2").unwrap();
        assert_eq!((verified.visits, verified.solver, verified.verify), (400, true, 2));
        for bad in
            ["heuristic@64+verify0", "heuristic+verifyx", "heuristic+nosolver+verify1", "heuristic@level9+verify1"]
        {
            assert!(PlayerSpec::parse(bad).is_err(), "{bad}");
        }
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
        let clocked = PlayerSpec::parse("runs/m@clock60+1.5+nosolver").unwrap();
        assert_eq!(clocked.clock, Some(GameClock { main: 60.0, increment: 1.5 }));
        assert_eq!((clocked.visits, clocked.solver), (TIMED_VISITS, false));
        assert_eq!(
            PlayerSpec::parse("heuristic@clock90").unwrap().clock,
            Some(GameClock { main: 90.0, increment: 0.0 })
        );
        for bad in ["heuristic@clock", "heuristic@clock0+1", "heuristic@clock60+-1", "heuristic@clockx+1"] {
            assert!(PlayerSpec::parse(bad).unwrap_err().contains("clock"), "{bad}");
        }
    }

    /// A clock too short for one search loses every game on time (recorded
    /// as `time`, and counted so on a resume); a clock with room to think
    /// loses none and the player still plays well.
    #[test]
    fn a_player_whose_clock_runs_out_loses_on_time() {
        let rules = Rules::new(pente_core::Variant::Pente, 9).unwrap();
        let config = ArenaConfig { games: 2, rules, opening_plies: 2, seed: 7 };
        let cpu = pente_nn::BurnBackend::cpu();
        let heuristic = PlayerSpec::parse("heuristic@16").unwrap().load(&cpu).unwrap();
        let hasty = PlayerSpec::parse("heuristic@clock0.000001").unwrap().load(&cpu).unwrap();
        assert_eq!(hasty.name, "heuristic@clock0.000001+0");
        let dir = std::env::temp_dir().join(format!("pente-arena-clock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.jsonl");
        let records = Some(Records { path: &path, resume: false });
        let result = play_match(&hasty, &heuristic, &config, records, &mut |_, _| {}).unwrap();
        assert_eq!((result.wins, result.losses), (0, 2));
        let games: Vec<JsonGame> =
            pente_records::jsonl_games(std::fs::read(&path).unwrap().as_slice()).map(|g| g.unwrap().1).collect();
        for game in &games {
            assert_eq!(game.reason, GameEnd::Time);
            assert!(game.plies <= 3, "it ran out on its first move, after the opening's 2 and at most one reply");
            let loser = if game.white == hasty.name { Color::White } else { Color::Black };
            assert_eq!(game.result.winner(), Some(loser.opponent()));
            assert_eq!(game.search[if loser == Color::White { "white" } else { "black" }]["clock"]["main"], 0.000001);
        }
        let resumed =
            play_match(&hasty, &heuristic, &config, Some(Records { path: &path, resume: true }), &mut |_, _| {})
                .unwrap();
        assert_eq!(resumed, result, "a loss on time read back from the records");

        let patient = PlayerSpec::parse("heuristic@clock20+0.2").unwrap().load(&cpu).unwrap();
        let uniform = PlayerSpec::parse("uniform@16").unwrap().load(&cpu).unwrap();
        let config = ArenaConfig { games: 2, ..config };
        let result = play_match(&patient, &uniform, &config, None, &mut |_, _| {}).unwrap();
        assert_eq!(result.wins, 2, "{result:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `--set-a`/`--set-b`: assignments change the named settings, nested
    /// ones by dotted keys, leave the others, and name the player by them;
    /// a setting that does not exist, a value of the wrong type or out of
    /// range, and an external program are refused, naming the setting.
    #[test]
    fn search_settings_are_changed_by_name() {
        let cpu = pente_nn::BurnBackend::cpu();
        let load = || PlayerSpec::parse("heuristic@100+verify2").unwrap().load(&cpu).unwrap();
        let settings = ["c_puct = 2.5".to_string(), "tactics.root.max_nodes=700".to_string()];
        let changed = load().with_settings(&settings).unwrap();
        assert_eq!(changed.name, "heuristic@100+verify2+c_puct=2.5+tactics.root.max_nodes=700");
        let Engine::Search { params, .. } = &changed.engine else { panic!("a search") };
        let Engine::Search { params: base, .. } = &load().engine else { panic!("a search") };
        let mut expected = base.clone();
        expected.c_puct = 2.5;
        expected.tactics.root.max_nodes = 700;
        assert_eq!(params, &expected, "two settings changed, the verify step and every other setting kept");
        assert_eq!(load().with_settings(&[]).unwrap().name, "heuristic@100+verify2");

        let refused = |setting: &str| match load().with_settings(&[setting.to_string()]) {
            Err(TrainError::Config(message)) => message,
            Err(e) => panic!("{setting}: {e}"),
            Ok(_) => panic!("{setting} accepted"),
        };
        assert!(refused("c_pct = 2").contains("unknown field `c_pct`"));
        assert!(refused("visits = \"many\"").contains("visits"));
        assert!(refused("visits = 0").contains("visits must be at least 1"));
        assert!(refused("tactics.root.nodes = 5").contains("unknown field `nodes`"));
        assert!(refused("c_puct 2").contains("c_puct 2"));
        let external = PlayerSpec::parse("pente-text:3").unwrap().load(&cpu);
        if let Ok(external) = external {
            assert!(external.with_settings(&settings).is_err());
        }
    }

    #[test]
    fn heuristic_beats_uniform_search() {
        let rules = Rules::new(pente_core::Variant::Pente, 9).unwrap();
        let config = ArenaConfig { games: 8, rules, opening_plies: 2, seed: 3 };
        let heuristic = PlayerSpec::parse("heuristic@32").unwrap().load(&pente_nn::BurnBackend::cpu()).unwrap();
        let uniform = PlayerSpec::parse("uniform@32").unwrap().load(&pente_nn::BurnBackend::cpu()).unwrap();
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

    /// A match killed after some games goes on from its records: the games
    /// there are kept (a line cut short is not), only the rest are played,
    /// and the result and the file are those of an unbroken run.
    #[test]
    fn a_killed_match_resumes_from_its_records() {
        let rules = Rules::new(pente_core::Variant::Pente, 9).unwrap();
        let config = ArenaConfig { games: 6, rules, opening_plies: 2, seed: 5 };
        let heuristic = PlayerSpec::parse("heuristic@16").unwrap().load(&pente_nn::BurnBackend::cpu()).unwrap();
        let uniform = PlayerSpec::parse("uniform@16").unwrap().load(&pente_nn::BurnBackend::cpu()).unwrap();
        let dir = std::env::temp_dir().join(format!("pente-arena-resume-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let full_path = dir.join("full.jsonl");
        let full_records = Some(Records { path: &full_path, resume: false });
        let full = play_match(&heuristic, &uniform, &config, full_records, &mut |_, _| {}).unwrap();
        let full_text = std::fs::read_to_string(&full_path).unwrap();
        let lines: Vec<&str> = full_text.lines().collect();
        assert_eq!(lines.len(), 6);

        // Games 3 and 0 finished, game 1 was being written.
        let killed = dir.join("killed.jsonl");
        std::fs::write(&killed, format!("{}\n{}\n{}", lines[3], lines[0], &lines[1][..40])).unwrap();
        let mut first = None;
        let records = Some(Records { path: &killed, resume: true });
        let resumed = play_match(&heuristic, &uniform, &config, records, &mut |done, _| {
            first.get_or_insert(done);
        })
        .unwrap();
        assert_eq!(first, Some(2));
        assert_eq!(resumed, full);
        assert_eq!(std::fs::read_to_string(&killed).unwrap(), full_text);

        // Another match's games are refused, and the file is left as it was.
        let other = ArenaConfig { seed: 6, ..config };
        let error = play_match(&heuristic, &uniform, &other, records, &mut |_, _| {}).unwrap_err().to_string();
        assert!(error.contains("killed.jsonl line 1") && error.contains("not of this match"), "{error}");
        assert_eq!(std::fs::read_to_string(&killed).unwrap(), full_text);
        // Without --resume the file starts afresh.
        let fresh =
            play_match(&heuristic, &uniform, &other, Some(Records { path: &killed, resume: false }), &mut |_, _| {})
                .unwrap();
        assert_eq!(fresh.wins + fresh.losses + fresh.draws, 6);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn external_programs_need_their_rules() {
        let rules = Rules::new(pente_core::Variant::Pente, 9).unwrap();
        let config = ArenaConfig { games: 2, rules, opening_plies: 2, seed: 0 };
        let program = PlayerSpec::parse("pente-text:1").unwrap().load(&pente_nn::BurnBackend::cpu()).unwrap();
        let heuristic = PlayerSpec::parse("heuristic@8").unwrap().load(&pente_nn::BurnBackend::cpu()).unwrap();
        let error = play_match(&heuristic, &program, &config, None, &mut |_, _| {}).expect_err("9x9 refused");
        assert!(error.to_string().contains("19x19"), "{error}");
    }

    /// A match against Debian's `pente -text` (skipped when it is not
    /// installed, unless `PENTE_REQUIRE_EXTERNAL` is set, as in CI).
    #[test]
    fn heuristic_against_pente_text() {
        let program = PlayerSpec::parse("pente-text:1").unwrap().load(&pente_nn::BurnBackend::cpu()).unwrap();
        let Engine::TextPente(settings) = &program.engine else { unreachable!() };
        if !settings.program.is_file() {
            assert!(std::env::var_os("PENTE_REQUIRE_EXTERNAL").is_none(), "{} is missing", settings.program.display());
            eprintln!("skipped: {} is not installed", settings.program.display());
            return;
        }
        let config = ArenaConfig { games: 4, rules: TextPenteConfig::rules(), opening_plies: 2, seed: 0 };
        let heuristic = PlayerSpec::parse("heuristic@16").unwrap().load(&pente_nn::BurnBackend::cpu()).unwrap();
        let dir = std::env::temp_dir().join(format!("pente-arena-text-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.jsonl");
        let result =
            play_match(&heuristic, &program, &config, Some(Records { path: &path, resume: false }), &mut |_, _| {})
                .unwrap();
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
