//! Arenas: two players, colours alternated, openings paired, many games at
//! once sharing network calls; the score and the Elo difference with its
//! 95 % interval.

use std::path::{Path, PathBuf};

use pente_core::{Color, EndReason, Game, Point, Rules};
use pente_records::{Captures, DATASET_SCHEMA, GameEnd, GameResult, JsonGame, JsonMove};
use pente_search::{Evaluator, HeuristicEvaluator, Search, SearchParams, UniformEvaluator, search_many};
use pente_selfplay::game_seed;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use serde::{Deserialize, Serialize};

use crate::error::TrainError;

/// A player as named on the command line: `heuristic`, `uniform`, or a
/// model directory, each with an optional `@visits` (default 64), e.g.
/// `runs/quick/models/quick-3@200`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerSpec {
    /// What evaluates positions.
    pub kind: PlayerKind,
    /// Playouts per move.
    pub visits: u32,
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
}

impl PlayerSpec {
    /// Parses `NAME[@VISITS]`.
    ///
    /// # Errors
    /// A message if the visit count is not a positive number.
    pub fn parse(text: &str) -> Result<PlayerSpec, String> {
        let (name, visits) = match text.rsplit_once('@') {
            Some((name, visits)) => (
                name,
                visits.parse::<u32>().ok().filter(|&v| v > 0).ok_or(format!("`{text}`: bad visit count `{visits}`"))?,
            ),
            None => (text, 64),
        };
        let kind = match name {
            "heuristic" => PlayerKind::Heuristic,
            "uniform" => PlayerKind::Uniform,
            "" => return Err(format!("`{text}`: no player named")),
            path => PlayerKind::Model(PathBuf::from(path)),
        };
        Ok(PlayerSpec { kind, visits })
    }

    /// Loads the player.
    ///
    /// # Errors
    /// [`TrainError::Model`] if a model does not load.
    pub fn load(&self) -> Result<Player, TrainError> {
        let (evaluator, name): (Box<dyn Evaluator>, String) = match &self.kind {
            PlayerKind::Heuristic => (Box::new(HeuristicEvaluator::default()), "heuristic".into()),
            PlayerKind::Uniform => (Box::new(UniformEvaluator::default()), "uniform".into()),
            PlayerKind::Model(dir) => {
                let device = pente_nn::cpu();
                let (model, info) =
                    pente_nn::store::load(dir, &device).map_err(|e| TrainError::Model(e.to_string()))?;
                let name = info.id.clone();
                (Box::new(pente_nn::NetworkEvaluator::new(model, device, info.id)), name)
            }
        };
        Ok(Player {
            name: format!("{name}@{}", self.visits),
            evaluator,
            params: SearchParams { visits: self.visits, ..SearchParams::default() },
        })
    }
}

/// A loaded player.
pub struct Player {
    /// `id@visits`.
    pub name: String,
    /// Its evaluator.
    pub evaluator: Box<dyn Evaluator>,
    /// Its search settings (no noise: arenas play their best).
    pub params: SearchParams,
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

/// One arena game in progress: a search per player.
struct ArenaGame {
    id: u64,
    game: Game,
    /// `searches[0]` is A's.
    searches: [Search; 2],
    /// Colour A plays.
    a_color: Color,
    moves: Vec<JsonMove>,
}

impl ArenaGame {
    fn player_to_move(&self) -> usize {
        usize::from(self.game.position().to_move() != self.a_color)
    }
}

/// Plays `a` against `b`. Calls `on_game(done, total)` as games finish.
///
/// # Errors
/// [`TrainError::Io`] if the games cannot be written to `records`.
pub fn play_match(
    a: &Player,
    b: &Player,
    config: &ArenaConfig,
    records: Option<&Path>,
    on_game: &mut dyn FnMut(u32, u32),
) -> Result<MatchResult, TrainError> {
    let pairs = config.games.div_ceil(2).max(1);
    let players = [a, b];
    let mut games: Vec<ArenaGame> = Vec::new();
    for pair in 0..u64::from(pairs) {
        let mut rng = SmallRng::seed_from_u64(game_seed(config.seed, pair));
        let mut opening = Game::new(config.rules);
        for _ in 0..config.opening_plies {
            let Some(point) = opening.position().random_legal_move(&mut rng) else { break };
            opening.play(point).expect("a random legal move is legal");
        }
        for (k, a_color) in [Color::White, Color::Black].into_iter().enumerate() {
            let position = opening.position().clone();
            let seed = game_seed(config.seed, 2 * pair + k as u64);
            games.push(ArenaGame {
                id: 2 * pair + k as u64,
                game: opening.clone(),
                searches: [
                    Search::new(position.clone(), a.params.clone(), seed),
                    Search::new(position, b.params.clone(), seed ^ 1),
                ],
                a_color,
                moves: opening
                    .moves()
                    .iter()
                    .map(|&point| JsonMove { point, value: 0.0, visits: 0, policy: vec![] })
                    .collect(),
            });
        }
    }
    let total = games.len() as u32;
    let mut finished = Vec::new();
    while !games.is_empty() {
        for (p, player) in players.iter().enumerate() {
            let mut searches: Vec<&mut Search> =
                games.iter_mut().filter(|g| g.player_to_move() == p).map(|g| &mut g.searches[p]).collect();
            search_many(&mut searches, player.evaluator.as_ref());
        }
        for game in &mut games {
            let mover = game.player_to_move();
            let result = game.searches[mover].result();
            let point: Point = result.best_move.expect("an unfinished game has a move");
            game.moves.push(JsonMove { point, value: result.value, visits: result.visits, policy: vec![] });
            game.game.play(point).expect("the search plays legal moves");
            for search in &mut game.searches {
                search.advance(point);
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
            Some(winner) if winner == game.a_color => wins += 1,
            Some(_) => losses += 1,
        }
        let (white, black) = if game.a_color == Color::White { (a, b) } else { (b, a) };
        records_out.push(JsonGame {
            schema: DATASET_SCHEMA,
            game_id: game.id,
            rules: *position.rules(),
            white: white.name.clone(),
            black: black.name.clone(),
            model: format!("{} vs {}", a.name, b.name),
            seed: config.seed,
            search: serde_json::json!({ "white_visits": white.params.visits, "black_visits": black.params.visits }),
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
            PlayerSpec { kind: PlayerKind::Heuristic, visits: 200 }
        );
        assert_eq!(PlayerSpec::parse("uniform").unwrap().visits, 64);
        assert_eq!(
            PlayerSpec::parse("runs/a@b/model@8").unwrap().kind,
            PlayerKind::Model(PathBuf::from("runs/a@b/model"))
        );
        assert!(PlayerSpec::parse("heuristic@0").is_err());
        assert!(PlayerSpec::parse("heuristic@x").is_err());
    }

    #[test]
    fn heuristic_beats_uniform_search() {
        let rules = Rules::new(pente_core::Variant::Pente, 9).unwrap();
        let config = ArenaConfig { games: 8, rules, opening_plies: 2, seed: 3 };
        let heuristic = PlayerSpec::parse("heuristic@32").unwrap().load().unwrap();
        let uniform = PlayerSpec::parse("uniform@32").unwrap().load().unwrap();
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
}
