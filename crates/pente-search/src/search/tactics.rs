//! The threat solver's calls: once at the root, at every new leaf before
//! the evaluator is asked, and on the best root moves after the search;
//! in Connect6 one turn's reads at every new leaf instead, and under
//! poofs and boats one move's.

use std::time::{Duration, Instant};

use pente_core::{Point, Position};

use super::node::{Mover, Proof};
use super::{ROOT, Search};
use crate::connect6::{TurnRead, read_turn};
use crate::one_move::{self, MoveRead, read_move};
use crate::solver::{Board, forced_replies_on, threat_stops};

/// What the solver made of a new leaf.
pub(super) enum LeafTactics {
    /// Decided: the exact value for the side to move there.
    Decided(f32),
    /// The opponent threatens to win at once; only these moves stop it.
    Forced(Vec<Point>),
    /// Nothing forced.
    Open,
}

/// The solver's share of a search.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SolverStats {
    /// Moves the solver played.
    pub nodes: u64,
    /// Time spent in the solver (and its threat detection).
    pub time: Duration,
}

impl Search {
    /// Runs the solver on the root once: a win it proves ends the search.
    pub(super) fn read_root(&mut self) {
        self.root.read = true;
        if !self.reads(&self.root_position) || self.nodes[ROOT as usize].proof != Proof::Unknown {
            return;
        }
        let start = Instant::now();
        let solution = self.solver.solve(&self.root_position, &self.params.tactics.root);
        self.solver_stats.nodes += solution.nodes;
        self.solver_stats.time += start.elapsed();
        if let Some(line) = solution.line {
            // The root's proof is for the player who moved into it.
            self.nodes[ROOT as usize].proof = Proof::Loss;
            self.root.line = Some(line);
        }
    }

    /// Checks the best root moves for a forced win of the opponent, once per
    /// move: a move that loses is proven so (and avoided), and the next best
    /// is checked, up to `verify_moves`. Deep threes that the leaves' short
    /// VCF and a few hundred visits do not see are caught here.
    pub fn verify_best_moves(&mut self) {
        let tactics = &self.params.tactics;
        if self.root.verified || !self.reads(&self.root_position) || tactics.verify_moves == 0 {
            return;
        }
        self.root.verified = true;
        let params = tactics.verify;
        for _ in 0..tactics.verify_moves {
            if self.nodes[ROOT as usize].proof != Proof::Unknown {
                return;
            }
            let Some(i) = self.best_edge() else { return };
            let point = self.nodes[ROOT as usize].edges[i].point;
            let mover = Mover::of(&self.root_position, point);
            let mut after = self.root_position.clone();
            after.play_unchecked(point);
            // An unvisited move gets its node, to carry the proof.
            let child = self.child_node(ROOT, i, mover, &after);
            if self.nodes[child as usize].proof != Proof::Unknown {
                return;
            }
            let start = Instant::now();
            let solution = self.solver.solve(&after, &params);
            self.solver_stats.nodes += solution.nodes;
            self.solver_stats.time += start.elapsed();
            if solution.line.is_none() {
                return;
            }
            // The move loses: the proof is for us, who move into the child.
            self.nodes[child as usize].proof = Proof::Loss;
            self.update_proof(ROOT);
        }
    }

    /// Whether the solver reads `position`: when it is on, and once the
    /// players hold their colours (the solver plays colours, and before a
    /// colour choice the player placing a stone may not end up with it).
    pub(super) fn reads(&self, position: &Position) -> bool {
        self.params.tactics.enabled && crate::solver::sound_at(position)
    }

    /// Whether new leaves of `position` are read: by the solver where it
    /// reads, in Connect6 one turn deep ([`read_turn`]), under poofs and
    /// boats one move deep ([`read_move`]).
    pub(super) fn reads_leaf(&self, position: &Position) -> bool {
        self.params.tactics.enabled
            && (crate::solver::sound_at(position) || position.rules().two_stone_turns() || one_move::applies(position))
    }

    /// Immediate wins, threats that cannot be stopped, and short forced wins
    /// at a new leaf, before the evaluator is asked.
    pub(super) fn read_leaf(&mut self, position: &Position, at_root: bool) -> LeafTactics {
        let start = Instant::now();
        if position.rules().two_stone_turns() {
            let tactics = match read_turn(position) {
                // The root is left to the tree, with its winning moves or
                // its blocks to search.
                TurnRead::Wins(moves) | TurnRead::Blocks(moves) if at_root => LeafTactics::Forced(moves),
                TurnRead::Wins(_) => LeafTactics::Decided(1.0),
                TurnRead::Lost if !at_root => LeafTactics::Decided(-1.0),
                TurnRead::Blocks(moves) => LeafTactics::Forced(moves),
                TurnRead::Lost | TurnRead::Open => LeafTactics::Open,
            };
            self.solver_stats.time += start.elapsed();
            return tactics;
        }
        if one_move::applies(position) {
            let tactics = match read_move(position) {
                // The root is left to the tree: it finds the win itself.
                MoveRead::Wins if !at_root => LeafTactics::Decided(1.0),
                MoveRead::Lost if !at_root => LeafTactics::Decided(-1.0),
                MoveRead::Stops(moves) => LeafTactics::Forced(moves),
                MoveRead::Wins | MoveRead::Lost | MoveRead::Open => LeafTactics::Open,
            };
            self.solver_stats.time += start.elapsed();
            return tactics;
        }
        let board = Board::new(position.clone());
        let forced = forced_replies_on(&board);
        // The root is left to the tree, so that it gets edges and a move to
        // play even when lost (the read_root solver already looked for wins).
        let tactics = if at_root {
            match forced {
                // Lost whatever it plays: the tree proves it on the blocks.
                Some(moves) if moves.is_empty() => {
                    threat_stops(&board).filter(|m| !m.is_empty()).map_or(LeafTactics::Open, LeafTactics::Forced)
                }
                Some(moves) => LeafTactics::Forced(moves),
                None => LeafTactics::Open,
            }
        } else if board.has_win(position.to_move()) {
            LeafTactics::Decided(1.0)
        } else if forced.as_ref().is_some_and(Vec::is_empty) {
            LeafTactics::Decided(-1.0)
        } else {
            let (won, nodes) = self.solver.proves_win(&board, &self.params.tactics.leaf);
            self.solver_stats.nodes += nodes;
            if won { LeafTactics::Decided(1.0) } else { forced.map_or(LeafTactics::Open, LeafTactics::Forced) }
        };
        self.solver_stats.time += start.elapsed();
        tactics
    }
}
