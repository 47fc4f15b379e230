//! The book file: one SQLite database (format in `docs/book.md`).
//!
//! Every write is its own transaction, so a build killed at any moment
//! leaves a book that opens, holding every node and game finished before.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pente_core::{Color, Point, Rules, Seat, parse_move_list};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use crate::error::BookError;
use crate::settings::BookSettings;
use crate::stats::Tally;

/// The format this code writes and reads (`meta.format`).
pub const FORMAT: u32 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS nodes (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    moves TEXT NOT NULL,
    depth INTEGER NOT NULL,
    parent INTEGER REFERENCES nodes(id),
    cost REAL NOT NULL,
    actor TEXT NOT NULL,
    value REAL,
    proof TEXT,
    visits INTEGER,
    backed REAL
);
CREATE TABLE IF NOT EXISTS moves (
    node INTEGER NOT NULL REFERENCES nodes(id),
    move TEXT NOT NULL,
    rank INTEGER NOT NULL,
    prior REAL NOT NULL,
    visits INTEGER NOT NULL,
    value REAL,
    child INTEGER REFERENCES nodes(id),
    PRIMARY KEY (node, move)
);
CREATE TABLE IF NOT EXISTS games (
    node INTEGER NOT NULL REFERENCES nodes(id),
    game INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    moves TEXT NOT NULL,
    winner TEXT NOT NULL,
    winner_seat TEXT NOT NULL,
    reason TEXT NOT NULL,
    plies INTEGER NOT NULL,
    PRIMARY KEY (node, game)
);
";

/// A node of the book.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Its row id.
    pub id: i64,
    /// Its key ([`crate::key::key_of`]).
    pub key: String,
    /// A way to reach it from the empty board, on the node's board (the
    /// orientation every move stored for it uses).
    pub moves: Vec<Point>,
    /// Plies from the empty board.
    pub depth: u32,
    /// The node it was expanded from (`None` for the root).
    pub parent: Option<i64>,
    /// Its expansion cost: lower costs were expanded first.
    pub cost: f64,
    /// The player to act (values are theirs).
    pub actor: Seat,
    /// The evaluation, once made.
    pub evaluation: Option<Evaluation>,
    /// The value backed up from its children (the actor's), once evaluated.
    pub backed: Option<f32>,
}

/// A node's evaluation by the book's `evaluate` search.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// The root value for the player to act, in `[-1, 1]`.
    pub value: f32,
    /// `win`, `loss` or `unknown`: what the search proved.
    pub proof: String,
    /// Playouts.
    pub visits: u32,
    /// The best moves, most visited first.
    pub candidates: Vec<Candidate>,
}

/// One of a node's best moves.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The move, on the node's board.
    pub point: Point,
    /// Its rank by visits (0 is the search's move).
    pub rank: u32,
    /// The network's prior.
    pub prior: f32,
    /// Playouts through it.
    pub visits: u32,
    /// Its mean value for the node's actor, if visited.
    pub value: Option<f32>,
    /// The node it leads to, once expanded.
    pub child: Option<i64>,
}

/// A game played out from a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRecord {
    /// The node it started from.
    pub node: i64,
    /// Its number among the node's games (0, 1, ...).
    pub game: u64,
    /// The seed it was played with.
    pub seed: u64,
    /// Every move from the empty board, on the node's board.
    pub moves: Vec<Point>,
    /// The winning colour, `None` for a draw.
    pub winner: Option<Color>,
    /// The winning player (who may hold Black after a colour choice).
    pub winner_seat: Option<Seat>,
    /// `five`, `captures` or `full`.
    pub reason: String,
}

/// An open book.
pub struct Book {
    connection: Connection,
    path: PathBuf,
    settings: BookSettings,
    player: String,
}

fn seat_name(seat: Seat) -> &'static str {
    match seat {
        Seat::First => "p1",
        Seat::Second => "p2",
    }
}

fn parse_seat(text: &str) -> Option<Seat> {
    match text {
        "p1" => Some(Seat::First),
        "p2" => Some(Seat::Second),
        _ => None,
    }
}

fn color_name(color: Option<Color>) -> &'static str {
    match color {
        Some(Color::White) => "white",
        Some(Color::Black) => "black",
        None => "draw",
    }
}

impl Book {
    /// Creates a book at `path` with `settings` for `player`, or opens the
    /// one there to go on building it. An existing book keeps the settings
    /// that decide its games (rules, seed, searches, temperature) and its
    /// player; budgets (nodes, depth, games) take the new values.
    ///
    /// # Errors
    /// [`BookError::Settings`] for a book built otherwise, SQLite's errors.
    pub fn create_or_open(path: &Path, settings: &BookSettings, player: &str) -> Result<Book, BookError> {
        let existed = path.exists();
        let connection = Connection::open(path).map_err(BookError::sqlite(path))?;
        connection.execute_batch("PRAGMA synchronous = NORMAL;").map_err(BookError::sqlite(path))?;
        if existed {
            let mut book = Book::from_connection(connection, path)?;
            book.check_same_games(settings, player)?;
            book.set_meta("settings", &toml::to_string(settings).expect("settings serialize"))?;
            book.settings = settings.clone();
            return Ok(book);
        }
        connection.execute_batch(SCHEMA).map_err(BookError::sqlite(path))?;
        let book = Book { connection, path: path.to_path_buf(), settings: settings.clone(), player: player.into() };
        book.set_meta("format", &FORMAT.to_string())?;
        book.set_meta("settings", &toml::to_string(settings).expect("settings serialize"))?;
        book.set_meta("player", player)?;
        Ok(book)
    }

    /// Opens an existing book to read it.
    ///
    /// # Errors
    /// A missing file, or not a book of this format.
    pub fn open(path: &Path) -> Result<Book, BookError> {
        if !path.is_file() {
            return Err(BookError::Format { path: path.into(), reason: "no such book".into() });
        }
        let connection =
            Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(BookError::sqlite(path))?;
        Book::from_connection(connection, path)
    }

    fn from_connection(connection: Connection, path: &Path) -> Result<Book, BookError> {
        let not_a_book = |reason: String| BookError::Format { path: path.into(), reason };
        let meta = |key: &str| -> Result<String, BookError> {
            connection
                .query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| row.get::<_, String>(0))
                .optional()
                .map_err(|e| not_a_book(format!("not a pente book ({e})")))?
                .ok_or_else(|| not_a_book(format!("not a pente book (no {key} in its meta table)")))
        };
        let format = meta("format")?;
        if format != FORMAT.to_string() {
            return Err(not_a_book(format!("book format {format}; this pente reads format {FORMAT}")));
        }
        let settings =
            BookSettings::parse(&meta("settings")?).map_err(|reason| not_a_book(format!("its settings: {reason}")))?;
        let player = meta("player")?;
        Ok(Book { connection, path: path.into(), settings, player })
    }

    fn check_same_games(&self, new: &BookSettings, player: &str) -> Result<(), BookError> {
        let old = &self.settings;
        let differs = [
            ("variant", old.variant != new.variant),
            ("size", old.size != new.size),
            ("seed", old.seed != new.seed),
            ("evaluate", old.evaluate != new.evaluate),
            ("play", old.play != new.play),
            ("games.temperature_plies", old.games.temperature_plies != new.games.temperature_plies),
            ("games.temperature", old.games.temperature != new.games.temperature),
        ];
        if let Some((name, _)) = differs.iter().find(|(_, differs)| *differs) {
            return Err(BookError::Settings {
                path: self.path.clone(),
                reason: format!("the book was built with another {name}; build a new book for new settings"),
            });
        }
        if self.player != player {
            return Err(BookError::Settings {
                path: self.path.clone(),
                reason: format!("the book was built by {}, not {player}", self.player),
            });
        }
        Ok(())
    }

    fn set_meta(&self, key: &str, value: &str) -> Result<(), BookError> {
        self.connection
            .execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)", params![key, value])
            .map_err(BookError::sqlite(&self.path))?;
        Ok(())
    }

    /// The book's file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The settings it was built with.
    #[must_use]
    pub fn settings(&self) -> &BookSettings {
        &self.settings
    }

    /// Its rules.
    #[must_use]
    pub fn rules(&self) -> Rules {
        self.settings.rules().expect("checked when the book was opened")
    }

    /// The player that built it (a model id, `heuristic` or `uniform`).
    #[must_use]
    pub fn player(&self) -> &str {
        &self.player
    }

    fn node_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Node> {
        let moves: String = row.get(2)?;
        let actor: String = row.get(6)?;
        let value: Option<f32> = row.get(7)?;
        let proof: Option<String> = row.get(8)?;
        let visits: Option<u32> = row.get(9)?;
        let evaluation = match (value, proof, visits) {
            (Some(value), Some(proof), Some(visits)) => {
                Some(Evaluation { value, proof, visits, candidates: Vec::new() })
            }
            _ => None,
        };
        Ok(Node {
            id: row.get(0)?,
            key: row.get(1)?,
            moves: parse_move_list(&moves).unwrap_or_default(),
            depth: row.get(3)?,
            parent: row.get(4)?,
            cost: row.get(5)?,
            actor: parse_seat(&actor).unwrap_or(Seat::First),
            evaluation,
            backed: row.get(10)?,
        })
    }

    const NODE_COLUMNS: &str = "id, key, moves, depth, parent, cost, actor, value, proof, visits, backed";

    /// The node with this key, if the book has it (candidates included).
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn node_by_key(&self, key: &str) -> Result<Option<Node>, BookError> {
        let sql = format!("SELECT {} FROM nodes WHERE key = ?1", Book::NODE_COLUMNS);
        let node = self
            .connection
            .query_row(&sql, [key], Book::node_from_row)
            .optional()
            .map_err(BookError::sqlite(&self.path))?;
        node.map(|node| self.with_candidates(node)).transpose()
    }

    /// The node with this id (candidates included).
    ///
    /// # Errors
    /// SQLite's errors (a missing id among them).
    pub fn node(&self, id: i64) -> Result<Node, BookError> {
        let sql = format!("SELECT {} FROM nodes WHERE id = ?1", Book::NODE_COLUMNS);
        let node = self.connection.query_row(&sql, [id], Book::node_from_row).map_err(BookError::sqlite(&self.path))?;
        self.with_candidates(node)
    }

    /// Every node, by id (candidates included).
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn nodes(&self) -> Result<Vec<Node>, BookError> {
        let sql = format!("SELECT {} FROM nodes ORDER BY id", Book::NODE_COLUMNS);
        let mut statement = self.connection.prepare(&sql).map_err(BookError::sqlite(&self.path))?;
        let nodes = statement
            .query_map([], Book::node_from_row)
            .and_then(Iterator::collect::<rusqlite::Result<Vec<Node>>>)
            .map_err(BookError::sqlite(&self.path))?;
        let mut candidates = self.all_candidates()?;
        Ok(nodes
            .into_iter()
            .map(|mut node| {
                if let Some(evaluation) = &mut node.evaluation {
                    evaluation.candidates = candidates.remove(&node.id).unwrap_or_default();
                }
                node
            })
            .collect())
    }

    fn with_candidates(&self, mut node: Node) -> Result<Node, BookError> {
        if let Some(evaluation) = &mut node.evaluation {
            let mut statement = self
                .connection
                .prepare(
                    "SELECT node, move, rank, prior, visits, value, child FROM moves WHERE node = ?1 ORDER BY rank",
                )
                .map_err(BookError::sqlite(&self.path))?;
            evaluation.candidates = statement
                .query_map([node.id], candidate_from_row)
                .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
                .map_err(BookError::sqlite(&self.path))?
                .into_iter()
                .map(|(_, c)| c)
                .collect();
        }
        Ok(node)
    }

    fn all_candidates(&self) -> Result<HashMap<i64, Vec<Candidate>>, BookError> {
        let mut statement = self
            .connection
            .prepare("SELECT node, move, rank, prior, visits, value, child FROM moves ORDER BY node, rank")
            .map_err(BookError::sqlite(&self.path))?;
        let rows = statement
            .query_map([], candidate_from_row)
            .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
            .map_err(BookError::sqlite(&self.path))?;
        let mut map: HashMap<i64, Vec<Candidate>> = HashMap::new();
        for (node, candidate) in rows {
            map.entry(node).or_default().push(candidate);
        }
        Ok(map)
    }

    /// Adds a node unless one with its key exists; returns its id either way.
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn add_node(
        &self,
        key: &str,
        moves: &[Point],
        parent: Option<i64>,
        cost: f64,
        actor: Seat,
    ) -> Result<i64, BookError> {
        let text = pente_core::format_move_list(moves, false);
        self.connection
            .execute(
                "INSERT OR IGNORE INTO nodes (key, moves, depth, parent, cost, actor) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![key, text, moves.len() as u32, parent, cost, seat_name(actor)],
            )
            .map_err(BookError::sqlite(&self.path))?;
        self.connection
            .query_row("SELECT id FROM nodes WHERE key = ?1", [key], |row| row.get(0))
            .map_err(BookError::sqlite(&self.path))
    }

    /// Stores a node's evaluation and its candidates, in one transaction.
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn set_evaluation(&mut self, node: i64, evaluation: &Evaluation) -> Result<(), BookError> {
        let path = self.path.clone();
        let transaction = self.connection.transaction().map_err(BookError::sqlite(&path))?;
        transaction
            .execute(
                "UPDATE nodes SET value = ?2, proof = ?3, visits = ?4, backed = ?2 WHERE id = ?1",
                params![node, evaluation.value, evaluation.proof, evaluation.visits],
            )
            .map_err(BookError::sqlite(&path))?;
        transaction.execute("DELETE FROM moves WHERE node = ?1", [node]).map_err(BookError::sqlite(&path))?;
        for c in &evaluation.candidates {
            transaction
                .execute(
                    "INSERT OR IGNORE INTO moves (node, move, rank, prior, visits, value, child) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    params![node, c.point.to_string(), c.rank, c.prior, c.visits, c.value, c.child],
                )
                .map_err(BookError::sqlite(&path))?;
        }
        transaction.commit().map_err(BookError::sqlite(&path))
    }

    /// Links a node's move to the node it leads to, adding the move to its
    /// candidates (unvisited by the evaluation) if it is not one.
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn link(&self, node: i64, point: Point, child: i64) -> Result<(), BookError> {
        let path = &self.path;
        let updated = self
            .connection
            .execute(
                "UPDATE moves SET child = ?3 WHERE node = ?1 AND move = ?2",
                params![node, point.to_string(), child],
            )
            .map_err(BookError::sqlite(path))?;
        if updated == 0 {
            self.connection
                .execute(
                    "INSERT INTO moves (node, move, rank, prior, visits, value, child) \
                     VALUES (?1, ?2, (SELECT COALESCE(MAX(rank) + 1, 0) FROM moves WHERE node = ?1), 0, 0, NULL, ?3)",
                    params![node, point.to_string(), child],
                )
                .map_err(BookError::sqlite(path))?;
        }
        Ok(())
    }

    /// Stores backed-up values, in one transaction.
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn set_backed(&mut self, values: &[(i64, f32)]) -> Result<(), BookError> {
        let path = self.path.clone();
        let transaction = self.connection.transaction().map_err(BookError::sqlite(&path))?;
        for (node, value) in values {
            transaction
                .execute("UPDATE nodes SET backed = ?2 WHERE id = ?1", params![node, value])
                .map_err(BookError::sqlite(&path))?;
        }
        transaction.commit().map_err(BookError::sqlite(&path))
    }

    /// Adds a played-out game; `false` if the node already has a game of
    /// that number (it is not counted twice).
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn add_game(&self, game: &GameRecord) -> Result<bool, BookError> {
        let added = self
            .connection
            .execute(
                "INSERT OR IGNORE INTO games (node, game, seed, moves, winner, winner_seat, reason, plies) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    game.node,
                    game.game as i64,
                    // SQLite's integers are signed: the seed's bits are stored as they are.
                    game.seed as i64,
                    pente_core::format_move_list(&game.moves, false),
                    color_name(game.winner),
                    game.winner_seat.map_or("draw", seat_name),
                    game.reason,
                    game.moves.len() as u32,
                ],
            )
            .map_err(BookError::sqlite(&self.path))?;
        Ok(added == 1)
    }

    /// The numbers of the games a node has.
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn game_numbers(&self, node: i64) -> Result<Vec<u64>, BookError> {
        let mut statement = self
            .connection
            .prepare("SELECT game FROM games WHERE node = ?1 ORDER BY game")
            .map_err(BookError::sqlite(&self.path))?;
        statement
            .query_map([node], |row| row.get::<_, i64>(0).map(|n| n as u64))
            .and_then(Iterator::collect)
            .map_err(BookError::sqlite(&self.path))
    }

    /// The games played out from a node (every node's with `None`).
    ///
    /// # Errors
    /// SQLite's errors; a stored move list that does not parse.
    pub fn games(&self, node: Option<i64>) -> Result<Vec<GameRecord>, BookError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT node, game, seed, moves, winner, winner_seat, reason FROM games \
                 WHERE ?1 IS NULL OR node = ?1 ORDER BY node, game",
            )
            .map_err(BookError::sqlite(&self.path))?;
        let rows = statement
            .query_map([node], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, i64>(1)? as u64,
                    row.get::<_, i64>(2)? as u64,
                    row.get::<_, String>(3)?,
                    row.get::<_, String>(4)?,
                    row.get::<_, String>(5)?,
                    row.get::<_, String>(6)?,
                ))
            })
            .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
            .map_err(BookError::sqlite(&self.path))?;
        rows.into_iter()
            .map(|(node, game, seed, moves, winner, seat, reason)| {
                let bad = |what: String| BookError::Format {
                    path: self.path.clone(),
                    reason: format!("game {game} of node {node}: {what}"),
                };
                Ok(GameRecord {
                    node,
                    game,
                    seed,
                    moves: parse_move_list(&moves).map_err(|e| bad(e.to_string()))?,
                    winner: match winner.as_str() {
                        "white" => Some(Color::White),
                        "black" => Some(Color::Black),
                        "draw" => None,
                        other => return Err(bad(format!("winner {other}"))),
                    },
                    winner_seat: parse_seat(&seat),
                    reason,
                })
            })
            .collect()
    }

    /// Each node's tally of its games, by node id.
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn tallies(&self) -> Result<HashMap<i64, Tally>, BookError> {
        self.tally_query(None)
    }

    /// A node's tally.
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn tally(&self, node: i64) -> Result<Tally, BookError> {
        Ok(self.tally_query(Some(node))?.remove(&node).unwrap_or_default())
    }

    fn tally_query(&self, node: Option<i64>) -> Result<HashMap<i64, Tally>, BookError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT node, COUNT(*), SUM(winner = 'white'), SUM(winner = 'black'), SUM(winner_seat = 'p1') \
                 FROM games WHERE ?1 IS NULL OR node = ?1 GROUP BY node",
            )
            .map_err(BookError::sqlite(&self.path))?;
        statement
            .query_map([node], |row| {
                let games = row.get::<_, i64>(1)? as u64;
                let white = row.get::<_, i64>(2)? as u64;
                let black = row.get::<_, i64>(3)? as u64;
                let first = row.get::<_, i64>(4)? as u64;
                let draws = games - white - black;
                Ok((row.get(0)?, Tally { games, white, black, draws, first, second: games - first - draws }))
            })
            .and_then(Iterator::collect)
            .map_err(BookError::sqlite(&self.path))
    }
}

fn candidate_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<(i64, Candidate)> {
    let text: String = row.get(1)?;
    let point = text.parse().map_err(|_| {
        rusqlite::Error::FromSqlConversionFailure(1, rusqlite::types::Type::Text, format!("move {text}").into())
    })?;
    Ok((
        row.get(0)?,
        Candidate {
            point,
            rank: row.get(2)?,
            prior: row.get(3)?,
            visits: row.get(4)?,
            value: row.get(5)?,
            child: row.get(6)?,
        },
    ))
}
