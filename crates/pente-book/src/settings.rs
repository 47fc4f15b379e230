//! What a book is built with: the rules, the two searches, the expansion
//! budget and the games played out from each node. Stored in the book, so
//! that a resumed build goes on with the settings it started with.

use pente_core::{Rules, Variant};
use pente_search::SearchParams;
use pente_search::solver::SolverParams;
use serde::{Deserialize, Serialize};

/// A book's settings (`configs/book-*.toml`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BookSettings {
    /// The variant the book studies.
    pub variant: Variant,
    /// Its board size.
    pub size: u8,
    /// Seed of the games: game `i` of a node plays from a seed derived from
    /// this, the node's key and `i`, so a resumed build plays the same games.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// How the book grows.
    #[serde(default)]
    pub expand: ExpandSettings,
    /// The search that evaluates each node once (its value and best moves).
    #[serde(default = "default_evaluate")]
    pub evaluate: SearchParams,
    /// The player of the played-out games (both sides).
    #[serde(default = "default_play")]
    pub play: SearchParams,
    /// The played-out games: how many and how they differ.
    #[serde(default)]
    pub games: GameSettings,
}

/// How the book grows from the empty board.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExpandSettings {
    /// Nodes the book may hold, the root included.
    pub max_nodes: usize,
    /// Plies below the empty board a node may lie (the root is at 0).
    pub max_depth: u32,
    /// The evaluation's best moves (by visits) a node may expand.
    pub children: usize,
    /// ... of those, only the moves whose value is within this margin of
    /// the best move's (values run from -1 to 1).
    pub value_margin: f32,
    /// Nodes at these depths expand every legal move within `wide_radius`
    /// of the board's centre as well, whatever the evaluation thinks of it
    /// (e.g. every reply to the first stone).
    pub wide_depths: Vec<u32>,
    /// The distance (in lines, as a king moves) of `wide_depths`.
    pub wide_radius: u8,
}

impl Default for ExpandSettings {
    fn default() -> ExpandSettings {
        ExpandSettings {
            max_nodes: 32,
            max_depth: 3,
            children: 5,
            value_margin: 0.2,
            wide_depths: Vec::new(),
            wide_radius: 2,
        }
    }
}

/// The games played out from the book's nodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GameSettings {
    /// Games played out from the empty board.
    pub root: u64,
    /// Games played out from every other node up to `max_depth`.
    pub node: u64,
    /// The deepest node that gets games (deeper nodes get none).
    pub max_depth: u32,
    /// The player is deterministic: the first moves of each game from its
    /// node are drawn with weights visits^(1/temperature), so the games differ.
    pub temperature_plies: u32,
    /// The temperature of those moves.
    pub temperature: f32,
    /// Games each worker plays at once; their searches share one network call.
    pub in_flight: usize,
}

impl Default for GameSettings {
    fn default() -> GameSettings {
        GameSettings { root: 100, node: 20, max_depth: 3, temperature_plies: 6, temperature: 1.0, in_flight: 16 }
    }
}

fn default_seed() -> u64 {
    1
}

/// The evaluation: the analysis default of 1600 visits (level 9's budget,
/// without its checks).
fn default_evaluate() -> SearchParams {
    SearchParams { visits: 1600, ..SearchParams::default() }
}

/// The strong player at self-play's cost: 64 visits with the solver at the
/// root (one quiet threat, 5 000 nodes) and at the leaves.
#[must_use]
pub fn default_play() -> SearchParams {
    let mut params = SearchParams { visits: 64, ..SearchParams::default() };
    params.tactics.root = SolverParams { max_depth: 12, max_threes: 1, max_nodes: 5_000, vcf_threats: false };
    params
}

impl BookSettings {
    /// Default settings for `variant` on a `size` board.
    #[must_use]
    pub fn new(variant: Variant, size: u8) -> BookSettings {
        BookSettings {
            variant,
            size,
            seed: default_seed(),
            expand: ExpandSettings::default(),
            evaluate: default_evaluate(),
            play: default_play(),
            games: GameSettings::default(),
        }
    }

    /// Reads settings from TOML text.
    ///
    /// # Errors
    /// The parser's message (with its line) or what [`BookSettings::check`] refuses.
    pub fn parse(text: &str) -> Result<BookSettings, String> {
        let settings: BookSettings = toml::from_str(text).map_err(|e| e.to_string())?;
        settings.check()?;
        Ok(settings)
    }

    /// The rules of the book.
    ///
    /// # Errors
    /// The variant does not exist on this board size.
    pub fn rules(&self) -> Result<Rules, String> {
        Rules::new(self.variant, self.size).map_err(|e| e.to_string())
    }

    /// Refuses settings that cannot build a book.
    ///
    /// # Errors
    /// What is wrong, naming the setting.
    pub fn check(&self) -> Result<(), String> {
        self.rules()?;
        if self.expand.max_nodes == 0 {
            return Err("expand.max_nodes must be 1 or more (the root)".into());
        }
        if !(self.expand.value_margin.is_finite() && self.expand.value_margin >= 0.0) {
            return Err("expand.value_margin must be 0 or more".into());
        }
        for (name, params) in [("evaluate", &self.evaluate), ("play", &self.play)] {
            params.check().map_err(|e| format!("{name}.{e}"))?;
            if params.max_seconds.is_some() {
                return Err(format!("{name}.max_seconds: a book's searches are budgeted in visits, not time"));
            }
            if params.noise {
                return Err(format!("{name}.noise: a book's searches run without noise"));
            }
        }
        if !(self.games.temperature.is_finite() && self.games.temperature >= 0.0) {
            return Err("games.temperature must be 0 or more".into());
        }
        if self.games.in_flight == 0 {
            return Err("games.in_flight must be 1 or more".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_fill_what_a_file_leaves_out() {
        let settings = BookSettings::parse("variant = \"keryo\"\nsize = 19\n[games]\nroot = 7\n").unwrap();
        assert_eq!(settings.games.root, 7);
        assert_eq!(settings.games.node, GameSettings::default().node);
        assert_eq!(settings.play.visits, 64);
        assert_eq!(settings.evaluate.visits, 1600);
        assert_eq!(settings, BookSettings::parse(&toml::to_string(&settings).unwrap()).unwrap());
    }

    #[test]
    fn bad_settings_name_the_field() {
        let error = BookSettings::parse("variant = \"pente\"\nsize = 19\n[play]\nvisits = 0\n").unwrap_err();
        assert!(error.contains("play.visits"), "{error}");
        let error = BookSettings::parse("variant = \"pente\"\nsize = 19\n[expand]\nbogus = 1\n").unwrap_err();
        assert!(error.contains("bogus"), "{error}");
        let error = BookSettings::parse("variant = \"pente\"\nsize = 4\n").unwrap_err();
        assert!(error.contains('4'), "{error}");
    }
}
