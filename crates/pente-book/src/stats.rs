//! The numbers of a node: its games' tally with Wilson intervals, and
//! values backed up through the tree.

use std::collections::HashMap;

use pente_analysis::{Z95, wilson_interval};
use serde::Serialize;

use crate::store::Node;

/// The results of a node's played-out games.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Games.
    pub games: u64,
    /// Won by White.
    pub white: u64,
    /// Won by Black.
    pub black: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by the first player (White unless the colours were exchanged).
    pub first: u64,
    /// Won by the second player.
    pub second: u64,
}

/// A score (a draw counts half) with its 95 % Wilson interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Score {
    /// The share of points, in `[0, 1]` (0.5 with no games).
    pub score: f64,
    /// The interval's lower end.
    pub low: f64,
    /// ... and upper end.
    pub high: f64,
}

impl Score {
    /// The score of `wins` and `draws` out of `games`.
    #[must_use]
    pub fn of(wins: u64, draws: u64, games: u64) -> Score {
        let points = wins as f64 + 0.5 * draws as f64;
        let (low, high) = wilson_interval(points, games, Z95);
        let score = if games == 0 { 0.5 } else { points / games as f64 };
        Score { score, low, high }
    }

    /// The interval's half width, in points of percent: `±x`.
    #[must_use]
    pub fn half_width(&self) -> f64 {
        (self.high - self.low) * 50.0
    }
}

impl std::fmt::Display for Score {
    /// `54.2 % (51.0-57.4)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.1} % ({:.1}-{:.1})", self.score * 100.0, self.low * 100.0, self.high * 100.0)
    }
}

impl Tally {
    /// White's score.
    #[must_use]
    pub fn white_score(&self) -> Score {
        Score::of(self.white, self.draws, self.games)
    }

    /// The first player's score.
    #[must_use]
    pub fn first_score(&self) -> Score {
        Score::of(self.first, self.draws, self.games)
    }

    /// Adds another tally.
    pub fn add(&mut self, other: &Tally) {
        self.games += other.games;
        self.white += other.white;
        self.black += other.black;
        self.draws += other.draws;
        self.first += other.first;
        self.second += other.second;
    }
}

/// The least visits a candidate needs for its value to count in a back-up,
/// as a share of the node's: a move the search barely tried has a noisy value.
const BACKUP_VISIT_SHARE: f32 = 0.05;

/// Backs values up from the leaves: a node's value is the best, for the
/// player to act there, of its child nodes' backed values and the values of
/// its other well-visited candidates; a node without either keeps its
/// evaluation. A child whose actor is the other player counts negated
/// (Connect6's second stone and a colour choice keep the same player).
/// Returns the backed value of every evaluated node, by id.
#[must_use]
pub fn back_up(nodes: &[Node]) -> HashMap<i64, f32> {
    let by_id: HashMap<i64, &Node> = nodes.iter().map(|n| (n.id, n)).collect();
    let mut order: Vec<&Node> = nodes.iter().filter(|n| n.evaluation.is_some()).collect();
    // Deepest first, so that children are done before their parents.
    order.sort_by(|a, b| b.depth.cmp(&a.depth).then(a.id.cmp(&b.id)));
    let mut backed: HashMap<i64, f32> = HashMap::new();
    for node in order {
        let evaluation = node.evaluation.as_ref().expect("filtered");
        let min_visits = (evaluation.visits as f32 * BACKUP_VISIT_SHARE).max(1.0);
        let mut best: Option<f32> = None;
        for candidate in &evaluation.candidates {
            let value = match candidate.child.and_then(|id| Some((backed.get(&id)?, by_id.get(&id)?))) {
                Some((&child_value, child)) => {
                    if child.actor == node.actor {
                        child_value
                    } else {
                        -child_value
                    }
                }
                None => match candidate.value {
                    Some(value) if candidate.visits as f32 >= min_visits => value,
                    _ => continue,
                },
            };
            best = Some(best.map_or(value, |b: f32| b.max(value)));
        }
        backed.insert(node.id, best.unwrap_or(evaluation.value));
    }
    backed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Candidate, Evaluation};
    use pente_core::{Point, Seat};

    #[test]
    fn scores_count_draws_half_and_keep_the_interval_inside() {
        let score = Score::of(60, 20, 100);
        assert!((score.score - 0.7).abs() < 1e-12);
        assert!(score.low < 0.7 && score.high > 0.7);
        // Wilson's interval at 70 of 100: 0.604 to 0.781.
        assert!((score.low - 0.6041).abs() < 1e-3 && (score.high - 0.7810).abs() < 1e-3, "{score:?}");
        let sweep = Score::of(200, 0, 200);
        assert_eq!(sweep.high, 1.0);
        assert!(sweep.low > 0.98);
        assert_eq!(Score::of(0, 0, 0).score, 0.5);
        // 2000 games near an even score: about ±2.2 points.
        assert!((Score::of(1000, 0, 2000).half_width() - 2.19).abs() < 0.01);
    }

    fn node(id: i64, depth: u32, actor: Seat, value: f32, candidates: Vec<Candidate>) -> Node {
        Node {
            id,
            key: id.to_string(),
            moves: Vec::new(),
            depth,
            parent: None,
            cost: 0.0,
            actor,
            evaluation: Some(Evaluation { value, proof: "unknown".into(), visits: 100, candidates }),
            backed: None,
        }
    }

    fn candidate(x: u8, value: Option<f32>, visits: u32, child: Option<i64>) -> Candidate {
        Candidate { point: Point::new(x, 0), rank: 0, prior: 0.1, visits, value, child }
    }

    #[test]
    fn values_back_up_as_minimax() {
        // Root (p1 to act): move a leads to node 2 (p2 to act, who finds a
        // reply worth +0.6 to p2, so a is worth -0.6 to p1); move b is
        // worth +0.1 by the root's own search; move c was barely visited.
        let nodes = vec![
            node(
                1,
                0,
                Seat::First,
                0.3,
                vec![
                    candidate(0, Some(0.4), 60, Some(2)),
                    candidate(1, Some(0.1), 30, None),
                    candidate(2, Some(0.9), 2, None),
                ],
            ),
            node(2, 1, Seat::Second, -0.4, vec![candidate(3, Some(0.6), 80, Some(3))]),
            node(3, 2, Seat::First, -0.6, vec![]),
        ];
        let backed = back_up(&nodes);
        assert_eq!(backed[&3], -0.6);
        assert_eq!(backed[&2], 0.6);
        assert_eq!(backed[&1], 0.1);
        // A child of the same actor (Connect6's second stone) is not negated.
        let nodes = vec![
            node(1, 0, Seat::First, 0.0, vec![candidate(0, Some(0.2), 90, Some(2))]),
            node(2, 1, Seat::First, 0.5, vec![]),
        ];
        assert_eq!(back_up(&nodes)[&1], 0.5);
    }
}
