//! The self-play configuration, read from TOML (see `configs/selfplay.toml`).

use std::path::Path;

use pente_core::{Rules, Variant};
use pente_search::SearchParams;
use serde::{Deserialize, Serialize};

use crate::error::SelfPlayError;

/// Everything that decides the games of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelfPlayConfig {
    /// Games the run should contain when it is done.
    pub games: u64,
    /// Seed of the run; game `i` derives its own seed from it.
    #[serde(default)]
    pub seed: u64,
    /// Worker threads, each with its own one-thread network (0 = one per core).
    #[serde(default)]
    pub threads: usize,
    /// Games each worker plays at once; their searches share network calls.
    #[serde(default = "default_games_in_flight")]
    pub games_in_flight: usize,
    /// A model directory, or `heuristic` / `uniform`.
    #[serde(default = "default_model")]
    pub model: String,
    /// The variants and board sizes to play, drawn per game by weight.
    #[serde(default = "default_rules_mix")]
    pub rules: Vec<RulesWeight>,
    /// Search settings of both players.
    #[serde(default)]
    pub search: SearchParams,
    /// Variety at the start of games.
    #[serde(default)]
    pub opening: OpeningConfig,
    /// Resignation.
    #[serde(default)]
    pub resign: ResignConfig,
    /// Playout-cap randomization (KataGo): most moves get a fast search and
    /// only the full searches become training samples. Off when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub playout_cap: Option<PlayoutCap>,
}

/// Full searches on a random fraction of moves, fast ones on the rest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayoutCap {
    /// Probability that a move gets the full search (`search.visits`, with
    /// noise) and becomes a training sample.
    pub full_fraction: f64,
    /// Visits of the other moves' searches (no noise); they only play.
    pub fast_visits: u32,
}

fn default_games_in_flight() -> usize {
    16
}

fn default_model() -> String {
    "heuristic".into()
}

fn default_rules_mix() -> Vec<RulesWeight> {
    vec![RulesWeight { variant: Variant::Pente, size: 19, weight: 1.0 }]
}

/// One entry of the rules mix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesWeight {
    /// The variant.
    pub variant: Variant,
    /// The board side (odd, 7 to 19).
    #[serde(default = "default_size")]
    pub size: u8,
    /// Relative frequency.
    #[serde(default = "default_weight")]
    pub weight: f64,
}

fn default_size() -> u8 {
    19
}

fn default_weight() -> f64 {
    1.0
}

/// How games start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OpeningConfig {
    /// Moves played uniformly at random (legal) before the searches start;
    /// they are not training samples.
    pub random_plies: u32,
    /// Moves chosen in proportion to visits^(1/temperature) at the start.
    pub temperature_plies: u32,
    /// The temperature of those moves.
    pub temperature: f32,
}

impl Default for OpeningConfig {
    fn default() -> OpeningConfig {
        OpeningConfig { random_plies: 0, temperature_plies: 12, temperature: 1.0 }
    }
}

/// When a player gives up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ResignConfig {
    /// Whether players resign at all.
    pub enabled: bool,
    /// Resign when the root value of the side to move stays below this.
    pub threshold: f32,
    /// ... for this many of its consecutive moves.
    pub consecutive: u32,
    /// Fraction of games played out to the end anyway, to measure how often
    /// resigning would have been wrong.
    pub playout_fraction: f64,
}

impl Default for ResignConfig {
    fn default() -> ResignConfig {
        ResignConfig { enabled: true, threshold: -0.95, consecutive: 3, playout_fraction: 0.2 }
    }
}

/// A self-play config that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Not TOML of a self-play config.
    #[error(transparent)]
    Toml(#[from] toml::de::Error),
    /// A setting out of range.
    #[error("{0}")]
    Invalid(String),
}

impl SelfPlayConfig {
    /// Reads and checks a TOML config file.
    ///
    /// # Errors
    /// [`SelfPlayError::Io`] if it cannot be read, [`SelfPlayError::Config`]
    /// naming the file and what is wrong.
    pub fn load(path: &Path) -> Result<SelfPlayConfig, SelfPlayError> {
        let text = std::fs::read_to_string(path).map_err(crate::error::io(path))?;
        SelfPlayConfig::parse(&text).map_err(|source| SelfPlayError::Config { path: path.to_path_buf(), source })
    }

    /// Parses and checks a TOML config.
    ///
    /// # Errors
    /// [`ConfigError`]: the TOML parser's error (with its line), or the
    /// first setting out of range.
    pub fn parse(text: &str) -> Result<SelfPlayConfig, ConfigError> {
        let config: SelfPlayConfig = toml::from_str(text)?;
        config.check().map_err(ConfigError::Invalid)?;
        Ok(config)
    }

    /// Checks values the types allow but the generator does not.
    ///
    /// # Errors
    /// The first setting that is out of range.
    pub fn check(&self) -> Result<(), String> {
        if self.rules.is_empty() {
            return Err("`rules` is empty: give at least one variant".into());
        }
        for entry in &self.rules {
            Rules::new(entry.variant, entry.size).map_err(|e| format!("rules: {e}"))?;
            if !(entry.weight.is_finite() && entry.weight > 0.0) {
                return Err(format!("rules: the weight of {} {} must be positive", entry.variant, entry.size));
            }
        }
        if self.games_in_flight == 0 {
            return Err("games_in_flight must be at least 1".into());
        }
        self.search.check().map_err(|e| format!("search.{e}"))?;
        if !(0.0..=1.0).contains(&self.resign.playout_fraction) {
            return Err("resign.playout_fraction must be between 0 and 1".into());
        }
        if let Some(cap) = &self.playout_cap
            && !((0.0..=1.0).contains(&cap.full_fraction) && cap.full_fraction > 0.0 && cap.fast_visits >= 1)
        {
            return Err("playout_cap: full_fraction must be in (0, 1] and fast_visits at least 1".into());
        }
        if !(self.opening.temperature.is_finite() && self.opening.temperature >= 0.0) {
            return Err("opening.temperature must be 0 or more".into());
        }
        Ok(())
    }

    /// The TOML text of this config (what a run writes next to its output).
    #[must_use]
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("a config serializes")
    }

    /// Worker threads to start: `threads`, or one per core.
    #[must_use]
    pub fn worker_threads(&self) -> usize {
        if self.threads > 0 { self.threads } else { std::thread::available_parallelism().map_or(1, |n| n.get()) }
    }

    /// Whether `other` generates games the same way. The number of games
    /// and the parallelism may differ: a run can be resumed to more games,
    /// or on another machine.
    #[must_use]
    pub fn same_games_as(&self, other: &SelfPlayConfig) -> bool {
        let strip = |c: &SelfPlayConfig| SelfPlayConfig { games: 0, threads: 0, games_in_flight: 1, ..c.clone() };
        strip(self) == strip(other)
    }
}
