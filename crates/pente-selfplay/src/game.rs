//! One self-play game in progress: its search, its record so far, and the
//! resignation bookkeeping.

use pente_core::{Color, EndReason, Game, Rules};
use pente_records::{
    Captures, DATASET_SCHEMA, GameEnd, GameResult, GameSamples, JsonGame, JsonMove, PositionSample, ResignCheck,
};
use pente_search::{Search, SearchParams};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::config::SelfPlayConfig;

/// A finished game, ready to be written.
#[derive(Debug, Clone)]
pub struct FinishedGame {
    /// The record for `games.jsonl` (and `games.csv`).
    pub record: JsonGame,
    /// The training samples.
    pub samples: GameSamples,
}

/// The seed of game `id` of a run seeded with `seed`.
#[must_use]
pub fn game_seed(seed: u64, id: u64) -> u64 {
    // splitmix64 of the pair: neighbouring ids get unrelated seeds.
    let mut z = seed ^ id.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A game being played.
pub struct GameInProgress {
    id: u64,
    seed: u64,
    game: Game,
    search: Search,
    moves: Vec<JsonMove>,
    samples: Vec<PositionSample>,
    /// Consecutive moves each colour judged lost.
    losing_streak: [u32; 2],
    /// Played to the end whatever the values say.
    no_resign: bool,
    resign_check: Option<ResignCheck>,
    resigned: Option<Color>,
    /// Draws which moves get the full search (playout-cap randomization).
    cap_rng: SmallRng,
    /// Whether the search under way is a full one (its move is a sample).
    full_search: bool,
}

impl GameInProgress {
    /// Starts game `id`: draws its rules and plays its random opening moves.
    #[must_use]
    pub fn new(id: u64, config: &SelfPlayConfig) -> GameInProgress {
        let seed = game_seed(config.seed, id);
        let mut rng = SmallRng::seed_from_u64(seed);
        let total: f64 = config.rules.iter().map(|r| r.weight).sum();
        let mut pick = rng.random_range(0.0..total);
        let entry = config
            .rules
            .iter()
            .find(|r| {
                pick -= r.weight;
                pick < 0.0
            })
            .unwrap_or(&config.rules[config.rules.len() - 1]);
        let rules = Rules::new(entry.variant, entry.size).expect("checked when the config was read");
        let mut game = Game::new(rules);
        let mut moves = Vec::new();
        for _ in 0..config.opening.random_plies {
            let Some(point) = game.position().random_legal_move(&mut rng) else { break };
            game.play(point).expect("a random legal move is legal");
            moves.push(JsonMove { point, value: 0.0, visits: 0, policy: Vec::new() });
        }
        let no_resign = !config.resign.enabled || rng.random_bool(config.resign.playout_fraction);
        let search = Search::new(game.position().clone(), config.search.clone(), seed);
        let mut game_in_progress = GameInProgress {
            id,
            seed,
            game,
            search,
            moves,
            samples: Vec::new(),
            losing_streak: [0; 2],
            no_resign,
            resign_check: None,
            resigned: None,
            cap_rng: SmallRng::seed_from_u64(seed ^ 0xCA9),
            full_search: true,
        };
        game_in_progress.choose_search(config);
        game_in_progress
    }

    /// Sets the budget of the next search: full, or (with a playout cap and
    /// by chance) fast and without noise.
    fn choose_search(&mut self, config: &SelfPlayConfig) {
        let Some(cap) = &config.playout_cap else { return };
        let full = self.cap_rng.random_bool(cap.full_fraction);
        if full != self.full_search {
            let params = if full {
                config.search.clone()
            } else {
                SearchParams { visits: cap.fast_visits, noise: false, ..config.search.clone() }
            };
            self.search.set_params(params);
            self.full_search = full;
        }
    }

    /// The search to run before the next [`GameInProgress::step`].
    pub fn search_mut(&mut self) -> &mut Search {
        &mut self.search
    }

    /// Whether the game has ended (by the rules or by resignation).
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.game.position().is_over() || self.resigned.is_some()
    }

    /// Plays the move of the finished search (or resigns).
    pub fn step(&mut self, config: &SelfPlayConfig) {
        if self.is_over() {
            return;
        }
        let result = self.search.result();
        let position = self.game.position();
        let mover = position.to_move();
        let ply = position.ply();
        // A sample is a position and the moves before it, colour choices included.
        let moves_before = self.game.moves().len() as u32;
        // Before the colour choice of D-Pente or Swap2 the value is not a
        // colour's, and a colour choice has no place in the network's
        // policy: no resigning there, and no sample of a choice.
        let seats_decided = position.seats_decided();
        let choosing = position.choice_pending().is_some();
        if config.resign.enabled && seats_decided && result.value < config.resign.threshold {
            self.losing_streak[mover.index()] += 1;
        } else {
            self.losing_streak[mover.index()] = 0;
        }
        if config.resign.enabled
            && seats_decided
            && self.losing_streak[mover.index()] >= config.resign.consecutive.max(1)
        {
            if !self.no_resign {
                self.resigned = Some(mover);
                return;
            }
            self.resign_check.get_or_insert(ResignCheck { color: mover, ply });
        }
        let opening_plies = config.opening.random_plies + config.opening.temperature_plies;
        let temperature = if ply < opening_plies { config.opening.temperature } else { 0.0 };
        let point = self.search.sample_move(&result, temperature).expect("a game that goes on has a move");
        let mut policy = result.policy_target;
        policy.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        if self.full_search && !choosing {
            self.samples.push(PositionSample { ply: moves_before, policy: policy.clone() });
        }
        self.moves.push(JsonMove { point, value: result.value, visits: result.visits, policy });
        self.game.play(point).expect("the search plays legal moves");
        self.search.advance(point);
        self.choose_search(config);
    }

    /// The finished game's record and samples.
    ///
    /// # Panics
    /// If the game is not over.
    #[must_use]
    pub fn finish(self, config: &SelfPlayConfig, model: &str) -> FinishedGame {
        let position = self.game.position();
        let rules = *position.rules();
        let (result, reason) = match (self.resigned, position.outcome()) {
            (Some(loser), _) => (GameResult::from_winner(Some(loser.opponent())), GameEnd::Resign),
            (None, Some(outcome)) => (
                GameResult::from_winner(outcome.winner),
                match outcome.reason {
                    EndReason::Five => GameEnd::Five,
                    EndReason::Captures => GameEnd::Captures,
                    EndReason::Full => GameEnd::Full,
                },
            ),
            (None, None) => panic!("finish called on a game that goes on"),
        };
        let record = JsonGame {
            schema: DATASET_SCHEMA,
            game_id: self.id,
            rules,
            white: model.to_string(),
            black: model.to_string(),
            model: model.to_string(),
            seed: self.seed,
            search: serde_json::to_value(&config.search).expect("search settings serialize"),
            result,
            reason,
            plies: position.ply(),
            captures: Captures { white: position.captured(Color::White), black: position.captured(Color::Black) },
            resign_check: self.resign_check,
            moves: self.moves,
        };
        let samples =
            GameSamples { game_id: self.id, rules, moves: self.game.moves().to_vec(), result, samples: self.samples };
        FinishedGame { record, samples }
    }
}
