//! Why a self-play game ended, as `games.csv` and `games.jsonl` record it:
//! a module of its own, so that the datasets and the rule check (whose
//! violations name it) both use it and neither depends on the other.

use std::fmt;

use pente_core::EndReason;
use serde::{Deserialize, Serialize};

/// Why a self-play game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameEnd {
    /// A winning line.
    Five,
    /// The capture threshold.
    Captures,
    /// A full board: a draw.
    Full,
    /// The loser resigned (its search judged the game lost).
    Resign,
    /// The loser's game clock ran out (an arena with a clock).
    Time,
}

impl GameEnd {
    /// Lower-case name, as in the files: `five`, `captures`, `full`, `resign`, `time`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            GameEnd::Five => "five",
            GameEnd::Captures => "captures",
            GameEnd::Full => "full",
            GameEnd::Resign => "resign",
            GameEnd::Time => "time",
        }
    }

    /// The rules' reason this stands for; `None` for a resignation or a loss on time.
    #[must_use]
    pub const fn end_reason(self) -> Option<EndReason> {
        match self {
            GameEnd::Five => Some(EndReason::Five),
            GameEnd::Captures => Some(EndReason::Captures),
            GameEnd::Full => Some(EndReason::Full),
            GameEnd::Resign | GameEnd::Time => None,
        }
    }
}

impl From<EndReason> for GameEnd {
    fn from(reason: EndReason) -> GameEnd {
        match reason {
            EndReason::Five => GameEnd::Five,
            EndReason::Captures => GameEnd::Captures,
            EndReason::Full => GameEnd::Full,
        }
    }
}

impl fmt::Display for GameEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
