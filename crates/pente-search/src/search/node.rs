//! The tree's data: nodes, their edges and proofs, and the values of
//! positions as the player to act sees them.

use pente_core::{Color, Point, Position, Seat};

/// A game-theoretic value proven in the tree, from the point of view of the
/// player who moved INTO the node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Proof {
    /// Not decided yet.
    #[default]
    Unknown,
    /// The mover wins with best play.
    Win,
    /// The mover loses with best play.
    Loss,
    /// A draw with best play.
    Draw,
}

impl Proof {
    /// The same result seen by the other player.
    pub(super) fn flipped(self) -> Proof {
        match self {
            Proof::Win => Proof::Loss,
            Proof::Loss => Proof::Win,
            other => other,
        }
    }

    /// The exact value for the mover into the node, if proven.
    pub(super) fn value(self) -> Option<f32> {
        match self {
            Proof::Unknown => None,
            Proof::Win => Some(1.0),
            Proof::Loss => Some(-1.0),
            Proof::Draw => Some(0.0),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NodeState {
    /// Not evaluated.
    Leaf,
    /// Sent to the evaluator, answer not back yet.
    Pending,
    /// Evaluated, edges created.
    Expanded,
}

#[derive(Debug, Clone)]
pub(super) struct Edge {
    pub(super) point: Point,
    pub(super) prior: f32,
    /// Index of the child node, created on first visit.
    pub(super) child: Option<u32>,
}

#[derive(Debug, Clone)]
pub(super) struct Node {
    pub(super) state: NodeState,
    pub(super) edges: Vec<Edge>,
    pub(super) visits: u32,
    pub(super) in_flight: u32,
    /// Sum of backed-up values for the player who moved into this node.
    pub(super) value_sum: f64,
    pub(super) proof: Proof,
    /// Whether the player to act here is not the one who moved into it:
    /// true but for the second stone of a Connect6 turn and a colour choice
    /// that leaves the chooser to place the next stone. The root's values
    /// are kept for the other player, as if the turn passed into it.
    pub(super) turn_passes: bool,
}

impl Node {
    pub(super) fn new(proof: Proof, turn_passes: bool) -> Node {
        Node { state: NodeState::Leaf, edges: Vec::new(), visits: 0, in_flight: 0, value_sum: 0.0, proof, turn_passes }
    }

    /// A value for the player who moved into this node, as the player to act
    /// here sees it, and the other way round.
    pub(super) fn for_actor(&self, value: f32) -> f32 {
        if self.turn_passes { -value } else { value }
    }

    /// The proof for the player to act here.
    pub(super) fn actor_proof(&self) -> Proof {
        if self.turn_passes { self.proof.flipped() } else { self.proof }
    }

    /// Mean value for the mover into this node, virtual losses counted.
    pub(super) fn q(&self) -> Option<f32> {
        let n = self.visits + self.in_flight;
        (n > 0).then(|| ((self.value_sum - f64::from(self.in_flight)) / f64::from(n)) as f32)
    }
}

/// Who makes a move, for the node it leads to.
#[derive(Debug, Clone, Copy)]
pub(super) struct Mover {
    /// The player to act before it.
    pub(super) seat: Seat,
    /// The colour of the stone it places; `None` for a colour choice.
    pub(super) stone: Option<Color>,
}

impl Mover {
    pub(super) fn of(position: &Position, point: Point) -> Mover {
        Mover { seat: position.actor(), stone: (!point.is_choice()).then(|| position.to_move()) }
    }
}

/// The proof of a node from its position alone: a finished game is decided
/// for the player who moved into it, who placed the last stone, of colour
/// `stone` (no game ends on a colour choice).
pub(super) fn terminal_proof(position: &Position, stone: Option<Color>) -> Proof {
    match position.outcome() {
        None => Proof::Unknown,
        Some(outcome) => match outcome.winner {
            None => Proof::Draw,
            Some(winner) if Some(winner) == stone => Proof::Win,
            Some(_) => Proof::Loss,
        },
    }
}

/// An evaluator's value, for the colour of the next stone, as the value for
/// the player to act. Once the players hold their colours the two agree.
/// Before the colour choice of D-Pente or Swap2 the chooser will take the
/// better side, so the chooser gets the better of the two values and the
/// player placing the opening stones the worse.
pub(super) fn value_for_actor(position: &Position, value: f32) -> f32 {
    if position.seats_decided() {
        value
    } else if position.choice_pending().is_some() {
        value.abs()
    } else {
        -value.abs()
    }
}
