//! A game record: headers, rules, moves, the stated result and how it ended.

use std::fmt;

use pente_core::{Color, Game, Point, Rules, Variant};

use crate::game_name::{game_name, unrated};

/// The result a record states. Player 1 is White and moves first, so `1-0`
/// is a White win. Serialized (CSV, JSON) as `white`, `black`, `draw`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameResult {
    /// `1-0`.
    White,
    /// `0-1`.
    Black,
    /// `1/2-1/2`.
    Draw,
}

impl GameResult {
    /// The winner, `None` for a draw.
    #[must_use]
    pub const fn winner(self) -> Option<Color> {
        match self {
            GameResult::White => Some(Color::White),
            GameResult::Black => Some(Color::Black),
            GameResult::Draw => None,
        }
    }

    /// The result with this winner (`None`: a draw).
    #[must_use]
    pub const fn from_winner(winner: Option<Color>) -> GameResult {
        match winner {
            Some(Color::White) => GameResult::White,
            Some(Color::Black) => GameResult::Black,
            None => GameResult::Draw,
        }
    }

    /// The PGN token: `1-0`, `0-1` or `1/2-1/2`.
    #[must_use]
    pub const fn token(self) -> &'static str {
        match self {
            GameResult::White => "1-0",
            GameResult::Black => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// Reads a result token: `Some(Some(result))`, `Some(None)` for an unknown
    /// or open result (`*`, `?`), `None` if `token` is not a result. `0-0` is
    /// a draw, as pente.org reads it.
    pub(crate) fn parse_token(token: &str) -> Option<Option<GameResult>> {
        match token {
            "1-0" => Some(Some(GameResult::White)),
            "0-1" => Some(Some(GameResult::Black)),
            "1/2-1/2" | "0-0" => Some(Some(GameResult::Draw)),
            "*" | "?" => Some(None),
            _ => None,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

/// A game that ended outside the rules, by a token in the move text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Termination {
    /// `Resign`: the player to move at that point gave up.
    Resign {
        /// Who resigned.
        by: Color,
    },
    /// `Forfeit`: the player to move at that point lost by forfeit (pente.org
    /// uses it for a forced resignation, e.g. a turn-based game that timed out).
    Forfeit {
        /// Who forfeited.
        by: Color,
    },
}

impl Termination {
    /// The player who gave up.
    #[must_use]
    pub const fn by(self) -> Color {
        match self {
            Termination::Resign { by } | Termination::Forfeit { by } => by,
        }
    }

    /// The winner: the other player.
    #[must_use]
    pub const fn winner(self) -> Color {
        self.by().opponent()
    }

    /// The move-text token: `Resign` or `Forfeit`.
    #[must_use]
    pub const fn token(self) -> &'static str {
        match self {
            Termination::Resign { .. } => "Resign",
            Termination::Forfeit { .. } => "Forfeit",
        }
    }

    /// Reads a move-text token case-insensitively; `by` is the player to move.
    pub(crate) fn parse_token(token: &str, by: Color) -> Option<Termination> {
        if token.eq_ignore_ascii_case("resign") {
            Some(Termination::Resign { by })
        } else if token.eq_ignore_ascii_case("forfeit") {
            Some(Termination::Forfeit { by })
        } else {
            None
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Termination::Resign { by } => write!(f, "{by} resigned"),
            Termination::Forfeit { by } => write!(f, "{by} forfeited"),
        }
    }
}

/// One game as a file records it.
///
/// Only syntax is guaranteed: the moves are points but may be illegal, and
/// the stated result may contradict them; [`crate::check`] tells.
///
/// `headers` keeps every header of a PGN game in file order, including the
/// ones this crate does not interpret, so that export writes them back.
/// `rules` and `result` are read from the `Game`, `Size` and `Result`
/// headers (and the result token); on export those headers are brought in
/// line with the fields, so edit the fields, not the header values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRecord {
    /// Headers as `(name, value)` pairs, in file order.
    pub headers: Vec<(String, String)>,
    /// The rules the game is played under.
    pub rules: Rules,
    /// The moves, in order: the stones placed, White first, and in D-Pente
    /// and Swap2 the colour choices (`swap`, `stay`, `pass`).
    pub moves: Vec<Point>,
    /// The stated result, `None` when open or unknown (`*`, `?`, or none given).
    pub result: Option<GameResult>,
    /// A `Resign` or `Forfeit` token that ended the move list. `by` is the
    /// player to move after `moves`, which is who the token names.
    pub termination: Option<Termination>,
    /// 1-based line where the game starts in its file; 0 for a record built
    /// in memory. Provenance only: export ignores it.
    pub line: usize,
}

impl GameRecord {
    /// A record of `moves` under `rules` with a `Game` header (and a `Size`
    /// header off 19x19), no result and no termination.
    #[must_use]
    pub fn new(rules: Rules, moves: Vec<Point>) -> GameRecord {
        let mut headers = vec![("Game".to_string(), game_name(rules.variant()).to_string())];
        if unrated(rules.variant()) {
            headers.push(("Rated".to_string(), "N".to_string()));
        }
        if rules.size() != pente_core::MAX_SIZE {
            headers.push(("Size".to_string(), rules.size().to_string()));
        }
        GameRecord { headers, rules, moves, result: None, termination: None, line: 0 }
    }

    /// A record of a played game; the result is the game's outcome, if it has
    /// ended, and a `Result` header states it.
    #[must_use]
    pub fn from_game(game: &Game) -> GameRecord {
        let mut record = GameRecord::new(*game.rules(), game.moves().to_vec());
        record.result = game.position().outcome().map(|o| GameResult::from_winner(o.winner));
        let value = record.result.map_or("*", GameResult::token);
        record.set_header("Result", value);
        record
    }

    /// The value of the first header named `name` (case-insensitive).
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Sets the first header named `name` (case-insensitive) to `value`, or
    /// appends it. Use the fields for `Game`, `Size` and `Result`: export
    /// rewrites those headers from them.
    pub fn set_header(&mut self, name: &str, value: &str) {
        match self.headers.iter_mut().find(|(k, _)| k.eq_ignore_ascii_case(name)) {
            Some((_, v)) => *v = value.to_string(),
            None => self.headers.push((name.to_string(), value.to_string())),
        }
    }

    /// The variant, for convenience.
    #[must_use]
    pub fn variant(&self) -> Variant {
        self.rules.variant()
    }

    /// The colour of the next stone after the recorded moves.
    #[must_use]
    pub fn side_to_move(&self) -> Color {
        let stones = self.moves.iter().filter(|p| !p.is_choice()).count();
        self.rules.colour_of_stone(stones as u32)
    }
}
