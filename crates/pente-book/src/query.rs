//! Reading a book: the node a move sequence reaches, its children and best
//! line seen on the caller's board, and a move to play from it.

use std::collections::BTreeMap;

use pente_core::Point;
use rand::{Rng, RngExt, SeedableRng};
use serde::Serialize;

use crate::error::BookError;
use crate::key::Located;
use crate::stats::{Score, Tally};
use crate::store::{Book, Node};

/// The longest best line shown (it ends earlier where the book does).
const MAX_LINE: usize = 40;

/// A node as seen from a move sequence.
#[derive(Debug, Clone, Serialize)]
pub struct NodeView {
    /// The sequence asked for.
    #[serde(serialize_with = "crate::query::moves_text")]
    pub moves: Vec<Point>,
    /// The node's id.
    pub id: i64,
    /// The player to act: `p1` or `p2`.
    pub actor: pente_core::Seat,
    /// The evaluation's value for the player to act (`None` before it is made).
    pub value: Option<f32>,
    /// The value backed up from the children.
    pub backed: Option<f32>,
    /// What the evaluation proved (`win`, `loss`, `draw`, `unknown`).
    pub proof: Option<String>,
    /// The evaluation's playouts.
    pub visits: Option<u32>,
    /// The node's played-out games.
    pub tally: Tally,
    /// White's score in them.
    pub white_score: Score,
    /// The first player's score.
    pub first_score: Score,
    /// The moves from here, best first, on the caller's board.
    pub children: Vec<ChildView>,
    /// The line of best backed values from here, on the caller's board.
    #[serde(serialize_with = "crate::query::moves_text")]
    pub best_line: Vec<Point>,
}

/// A move from a node.
#[derive(Debug, Clone, Serialize)]
pub struct ChildView {
    /// The move, on the caller's board.
    pub point: Point,
    /// Moves that reach the same node (the move's mirror images), on the caller's board.
    #[serde(serialize_with = "crate::query::moves_text")]
    pub same_as: Vec<Point>,
    /// Rank by the evaluation's visits (moves added to the book without
    /// being among the evaluation's best come after those).
    pub rank: u32,
    /// The network's prior.
    pub prior: f32,
    /// The evaluation's playouts through the move.
    pub visits: u32,
    /// The value for the player to act at the parent: the child node's
    /// backed value where the book has it, else the evaluation's mean.
    pub value: Option<f32>,
    /// The child node's id, if the book expanded the move.
    pub node: Option<i64>,
    /// The child node's games.
    pub tally: Tally,
    /// White's score in them.
    pub white_score: Score,
}

fn moves_text<S: serde::Serializer>(moves: &[Point], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&pente_core::format_move_list(moves, false))
}

impl Book {
    /// The node `moves` reach, seen from their board; `None` if the book
    /// does not have it.
    ///
    /// # Errors
    /// An illegal move; the book's errors.
    pub fn lookup(&self, moves: &[Point]) -> Result<Option<NodeView>, BookError> {
        let located = Located::after(self.rules(), moves)?;
        let Some(node) = self.node_by_key(&located.key)? else { return Ok(None) };
        let tallies = self.tallies()?;
        let tally = tallies.get(&node.id).copied().unwrap_or_default();
        let children = self.children(&node, &located, &tallies)?;
        let best_line = self.best_line(moves)?;
        let evaluation = node.evaluation.as_ref();
        Ok(Some(NodeView {
            moves: moves.to_vec(),
            id: node.id,
            actor: node.actor,
            value: evaluation.map(|e| e.value),
            backed: node.backed,
            proof: evaluation.map(|e| e.proof.clone()),
            visits: evaluation.map(|e| e.visits),
            tally,
            white_score: tally.white_score(),
            first_score: tally.first_score(),
            children,
            best_line,
        }))
    }

    /// A node's moves, merged where they reach the same node.
    fn children(
        &self,
        node: &Node,
        located: &Located,
        tallies: &std::collections::HashMap<i64, Tally>,
    ) -> Result<Vec<ChildView>, BookError> {
        let Some(evaluation) = &node.evaluation else { return Ok(Vec::new()) };
        let mut children: Vec<ChildView> = Vec::new();
        let mut by_node: BTreeMap<i64, usize> = BTreeMap::new();
        for candidate in &evaluation.candidates {
            let point = located.from_node(candidate.point);
            if let Some(&i) = candidate.child.and_then(|id| by_node.get(&id)) {
                children[i].same_as.push(point);
                continue;
            }
            let (value, tally) = match candidate.child {
                Some(id) => {
                    let child = self.node(id)?;
                    let value = child.backed.map(|v| if child.actor == node.actor { v } else { -v });
                    (value.or(candidate.value), tallies.get(&id).copied().unwrap_or_default())
                }
                None => (candidate.value, Tally::default()),
            };
            if let Some(id) = candidate.child {
                by_node.insert(id, children.len());
            }
            children.push(ChildView {
                point,
                same_as: Vec::new(),
                rank: candidate.rank,
                prior: candidate.prior,
                visits: candidate.visits,
                value,
                node: candidate.child,
                tally,
                white_score: tally.white_score(),
            });
        }
        Ok(children)
    }

    /// The best expanded move from the node `moves` reach, on their board:
    /// the highest backed value for the player to act, or one drawn among
    /// those within `variety` of it. `None` out of the book.
    ///
    /// # Errors
    /// An illegal move; the book's errors.
    pub fn book_move(&self, moves: &[Point], variety: f32, rng: &mut impl Rng) -> Result<Option<Point>, BookError> {
        let located = Located::after(self.rules(), moves)?;
        if located.position.is_over() {
            return Ok(None);
        }
        let Some(node) = self.node_by_key(&located.key)? else { return Ok(None) };
        let Some(evaluation) = &node.evaluation else { return Ok(None) };
        let mut options: Vec<(Point, f32)> = Vec::new();
        for candidate in &evaluation.candidates {
            let Some(id) = candidate.child else { continue };
            let child = self.node(id)?;
            let Some(value) = child.backed else { continue };
            let value = if child.actor == node.actor { value } else { -value };
            options.push((located.from_node(candidate.point), value));
        }
        let Some(best) = options.iter().map(|o| o.1).reduce(f32::max) else { return Ok(None) };
        let near: Vec<Point> = options.iter().filter(|o| o.1 >= best - variety.max(0.0)).map(|o| o.0).collect();
        if variety <= 0.0 {
            return Ok(options.iter().find(|o| o.1 == best).map(|o| o.0));
        }
        Ok(Some(near[rng.random_range(0..near.len())]))
    }

    /// The line of best expanded moves from the node `moves` reach.
    fn best_line(&self, moves: &[Point]) -> Result<Vec<Point>, BookError> {
        let mut line = moves.to_vec();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(0);
        while line.len() < moves.len() + MAX_LINE {
            match self.book_move(&line, 0.0, &mut rng)? {
                Some(point) => line.push(point),
                None => break,
            }
        }
        Ok(line[moves.len()..].to_vec())
    }
}

/// A book a player follows while the game is in it: the best expanded
/// move by backed value, or (with `variety` above 0) one drawn among the
/// moves within `variety` of the best. Shareable between threads.
pub struct BookPlayer {
    book: std::sync::Mutex<Book>,
    variety: f32,
    rng: std::sync::Mutex<rand::rngs::SmallRng>,
}

impl std::fmt::Debug for BookPlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BookPlayer").field("path", &self.path()).field("variety", &self.variety).finish()
    }
}

impl BookPlayer {
    /// Opens `path` for play.
    ///
    /// # Errors
    /// The book does not open.
    pub fn open(path: &std::path::Path, variety: f32, seed: u64) -> Result<BookPlayer, BookError> {
        Ok(BookPlayer {
            book: std::sync::Mutex::new(Book::open(path)?),
            variety,
            rng: std::sync::Mutex::new(rand::rngs::SmallRng::seed_from_u64(seed)),
        })
    }

    /// The rules the book is for.
    #[must_use]
    pub fn rules(&self) -> pente_core::Rules {
        self.book.lock().expect("no panic while holding the book").rules()
    }

    /// The book's file, for messages.
    #[must_use]
    pub fn path(&self) -> std::path::PathBuf {
        self.book.lock().expect("no panic while holding the book").path().to_path_buf()
    }

    /// The book's move after `moves` under `rules`; `None` out of the book,
    /// under other rules, or if the book cannot be read (the player then searches).
    pub fn choose(&self, rules: &pente_core::Rules, moves: &[Point]) -> Option<Point> {
        let book = self.book.lock().expect("no panic while holding the book");
        if book.rules() != *rules {
            return None;
        }
        let mut rng = self.rng.lock().expect("no panic while holding the generator");
        book.book_move(moves, self.variety, &mut *rng).ok().flatten()
    }
}

impl BookPlayer {
    /// The node `moves` reach under `rules`, as [`Book::lookup`]; `None`
    /// out of the book or under other rules.
    ///
    /// # Errors
    /// An illegal move; the book's errors.
    pub fn lookup(&self, rules: &pente_core::Rules, moves: &[Point]) -> Result<Option<NodeView>, BookError> {
        let book = self.book.lock().expect("no panic while holding the book");
        if book.rules() != *rules {
            return Ok(None);
        }
        book.lookup(moves)
    }

    /// The player that built the book.
    #[must_use]
    pub fn player(&self) -> String {
        self.book.lock().expect("no panic while holding the book").player().to_string()
    }
}
