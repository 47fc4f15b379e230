//! Tree reuse: moving the root to a child and keeping its subtree (Lc0's
//! `NodeTree`), or starting a fresh tree.

use pente_core::Point;

use super::node::{Node, NodeState, Proof, terminal_proof};
use super::{ROOT, RootState, Search};

impl Search {
    /// A fresh tree of one root node, and a fresh root state.
    pub(super) fn reset_tree(&mut self) {
        self.nodes.clear();
        let mover = self.root_position.ply().checked_sub(1).map(|k| self.root_position.rules().colour_of_stone(k));
        self.nodes.push(Node::new(terminal_proof(&self.root_position, mover), true));
        self.root = RootState::default();
    }

    /// Moves the root to the position after `point`, keeping the subtree
    /// below it (tree reuse). Pending evaluations are dropped.
    ///
    /// # Panics
    /// If `point` is not legal in the searched position.
    pub fn advance(&mut self, point: Point) {
        self.root_position.play(point).expect("advance with a legal move");
        self.pending.clear();
        let kept = self.nodes[ROOT as usize].edges.iter().find(|e| e.point == point).and_then(|e| e.child);
        // A kept node the solver decided before it had edges would leave the
        // root without a move to play: start afresh instead.
        let Some(new_root) = kept.filter(|&c| self.nodes[c as usize].state == NodeState::Expanded) else {
            self.reset_tree();
            return;
        };
        // Copy the kept subtree into a fresh arena, root first.
        let mut old = std::mem::take(&mut self.nodes);
        let mut remap = vec![u32::MAX; old.len()];
        let mut queue = std::collections::VecDeque::from([new_root]);
        remap[new_root as usize] = 0;
        let mut order = Vec::new();
        while let Some(n) = queue.pop_front() {
            order.push(n);
            for edge in &old[n as usize].edges {
                if let Some(c) = edge.child {
                    remap[c as usize] = (order.len() + queue.len()) as u32;
                    queue.push_back(c);
                }
            }
        }
        for &n in &order {
            let mut node = std::mem::replace(&mut old[n as usize], Node::new(Proof::Unknown, true));
            node.in_flight = 0;
            if node.state == NodeState::Pending {
                node.state = NodeState::Leaf;
            }
            for edge in &mut node.edges {
                edge.child = edge.child.map(|c| remap[c as usize]);
            }
            self.nodes.push(node);
        }
        self.root = RootState::default();
        if self.nodes[ROOT as usize].state == NodeState::Expanded {
            self.prepare_root();
        }
    }
}
