//! A threat-space solver: victory by continuous forcing moves (VCF) and,
//! within a budget, by quiet threats (VCT), exact under the rules crate's
//! rules.
//!
//! The attacker plays only moves that threaten to win at once (a four, or a
//! capture that would reach the winning count); with VCT also quiet
//! threats: open threes first, then any move near his stones after which,
//! were the defender to pass, he would win by VCF (a threat-space search
//! one level up, as in lambda search). The defender's replies are never
//! guessed: after a forcing move they are every move that leaves the
//! attacker without an immediate win (a block, a capture that breaks the
//! line or removes a flanking stone, his own win), found from the threat
//! bits and checked by playing them; after a quiet threat they are every
//! legal move. A line a capture can break is therefore no
//! win, and a win the solver returns is a proof.
//!
//! Under Poof-Pente's rules a stone placed between opponent stones can be
//! removed, and under Boat-Pente's a five can wait a move: the threat
//! patterns model neither, so there the solver finds nothing, and the
//! search reads one move instead (`crate::one_move`).

#[cfg(test)]
mod tests;
mod threats;

use pente_core::{Color, Point, Position};
use serde::{Deserialize, Serialize};

use threats::Bits;
pub(crate) use threats::Board;
pub use threats::Kind as ThreatKind;
use threats::Kind;

/// Whether the solver's threat patterns are exact under `rules`: not in
/// Poof-Pente, where moving into a flank removes one's own stones, nor in
/// Boat-Pente, where a five is not always a win, nor in Connect6, whose
/// turns are two stones.
#[must_use]
pub fn sound_for(rules: &pente_core::Rules) -> bool {
    !rules.poofs() && !rules.boat() && !rules.two_stone_turns()
}

/// Whether the solver reads `position`: under rules it is sound for, once
/// the players hold their colours (before the colour choice of D-Pente and
/// Swap2, the player placing a stone may not end up with its colour).
#[must_use]
pub fn sound_at(position: &Position) -> bool {
    sound_for(position.rules()) && position.seats_decided()
}

/// The solver's threat analysis of a position, for other readers (the
/// network's input planes): for every empty point, on how many of its four
/// lines a stone of either colour would make each kind of threat.
pub struct ThreatMap(Board);

impl ThreatMap {
    /// The analysis of `position`, or `None` where the solver does not read
    /// it ([`sound_at`]: its patterns would not be exact there).
    #[must_use]
    pub fn new(position: &Position) -> Option<ThreatMap> {
        sound_at(position).then(|| ThreatMap(Board::new(position.clone())))
    }

    /// The empty points where a stone of `color` would make `kind`, each with
    /// the number of lines it makes it on (1 to 4).
    pub fn points(&self, kind: ThreatKind, color: Color) -> impl Iterator<Item = (Point, u8)> + '_ {
        let board = &self.0;
        board.points(kind, color).iter().map(move |i| (board.point(i), board.lines(kind, color, i)))
    }
}

/// How hard the solver looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SolverParams {
    /// Attacker moves in a line, the winning move included (win in N).
    pub max_depth: u8,
    /// Quiet threats (open threes, moves that threaten a VCF) allowed in a
    /// line; 0 searches VCF only.
    pub max_threes: u8,
    /// Moves played before the solver gives up.
    pub max_nodes: u64,
    /// After the VCT with open threes fails, one more with quiet moves that
    /// threaten a VCF as threats too: it finds more wins, and on a position
    /// without one it spends what is left of the budget. Off unless set (a
    /// config's partial solver table keeps it off).
    pub vcf_threats: bool,
}

impl Default for SolverParams {
    fn default() -> SolverParams {
        SolverParams { max_depth: 12, max_threes: 1, max_nodes: 200_000, vcf_threats: false }
    }
}

/// What the solver found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solution {
    /// A forced win for the side to move: its principal line, attacker's
    /// move first, ending with the winning move. The defender's moves in it
    /// are the most stubborn the solver saw.
    pub line: Option<Vec<Point>>,
    /// Moves played while solving.
    pub nodes: u64,
    /// Whether the node budget ran out (so "no win" means "none found").
    pub exhausted: bool,
}

impl Solution {
    /// The number of the attacker's moves in the line (win in N).
    #[must_use]
    pub fn moves_to_win(&self) -> Option<usize> {
        self.line.as_ref().map(|line| line.len().div_ceil(2))
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    key: u64,
    /// Smallest depth proven to win (0: none).
    win: u8,
    /// Largest depth proven to fail.
    fail: u8,
    /// The winning move + 1, as a dense index (0: none).
    best: u16,
}

/// A reusable solver with its own transposition table.
pub struct Solver {
    table: Vec<Entry>,
    /// The rules the table's entries hold under: a position's hash does not
    /// name them, and the same stones can win under one rule set and not
    /// under another (Keryo's triples, its 15 stones).
    rules: Option<pente_core::Rules>,
    nodes: u64,
    limit: u64,
    /// The last winning move found at each ply: after most replies to a
    /// threat, the same move wins again.
    killers: [u16; 64],
    /// Whether quiet moves that threaten a VCF count as threats beside open
    /// threes (the last, widest pass of the schedule).
    vcf_threats: bool,
}

impl Default for Solver {
    fn default() -> Solver {
        Solver::new(1 << 16)
    }
}

impl Solver {
    /// A solver whose transposition table holds `entries` positions
    /// (rounded up to a power of two).
    #[must_use]
    pub fn new(entries: usize) -> Solver {
        Solver {
            table: vec![Entry::default(); entries.max(1).next_power_of_two()],
            rules: None,
            nodes: 0,
            limit: 0,
            killers: [u16::MAX; 64],
            vcf_threats: false,
        }
    }

    /// Looks for a forced win of the side to move, shortest VCF first.
    pub fn solve(&mut self, position: &Position, params: &SolverParams) -> Solution {
        self.solve_board(&Board::new(position.clone()), params)
    }

    fn solve_board(&mut self, board: &Board, params: &SolverParams) -> Solution {
        let found = self.find(board, params);
        let exhausted = self.exhausted();
        let line = found.map(|Pass { depth, threes, .. }| {
            // Following the line may re-search what the table lost.
            self.limit = self.nodes + params.max_nodes.max(100_000) * 4;
            let mut moves = Vec::new();
            self.principal_line(board, depth, threes, &mut moves);
            moves
        });
        Solution { line, nodes: self.nodes, exhausted }
    }

    /// Whether the side to move has a forced win, without its line (the
    /// search's leaves need no more); returns the moves played.
    pub(crate) fn proves_win(&mut self, board: &Board, params: &SolverParams) -> (bool, u64) {
        let found = self.find(board, params).is_some();
        (found, self.nodes)
    }

    /// The first pass of the schedule that proves a win (left set, so that
    /// its line can be followed).
    fn find(&mut self, board: &Board, params: &SolverParams) -> Option<Pass> {
        self.start(board, params);
        if board.position.is_over() || !sound_at(&board.position) {
            return None;
        }
        for pass in schedule(params, 1) {
            self.vcf_threats = pass.vcf_threats;
            if self.attack(board, pass.depth, pass.threes) {
                return Some(pass);
            }
            if self.exhausted() {
                break;
            }
        }
        None
    }

    /// Every first move that wins by force within the budget (which each
    /// move gets afresh), with its win in N, fastest first.
    pub fn winning_moves(&mut self, position: &Position, params: &SolverParams) -> Vec<(Point, u8)> {
        if position.is_over() || !sound_at(position) {
            return Vec::new();
        }
        let board = Board::new(position.clone());
        let me = board.to_move();
        let mut candidates = board
            .wins(me)
            .union(board.wins(me.opponent()))
            .union(board.points(Kind::Four, me))
            .union(board.points(Kind::Capture, me))
            .union(board.points(Kind::Setup, me))
            .union(if params.max_threes > 0 { board.points(Kind::Three, me) } else { Bits::default() });
        if params.max_threes > 0 && params.vcf_threats {
            // The quiet moves that threaten a VCF, as the widest pass has them.
            self.start(&board, params);
            for i in near_lines(&board, me).minus(candidates).iter().filter(|&i| legal(&board, i)) {
                let child = self.play(&board, i);
                if !child.position.is_over() && self.threatens_vcf(&child, params.max_depth.saturating_sub(1)) {
                    candidates.insert(i);
                }
            }
        }
        let mut wins: Vec<(Point, u8)> = candidates
            .iter()
            .filter(|&i| legal(&board, i))
            .filter_map(|i| self.move_wins_on(&board, i, params).map(|n| (board.point(i), n)))
            .collect();
        wins.sort_by_key(|&(p, n)| (n, p));
        wins
    }

    /// Whether playing `p` wins by force within the budget: `Some(N)` for a
    /// win in N (this move included).
    ///
    /// # Panics
    /// If `p` is not a legal move.
    pub fn move_wins(&mut self, position: &Position, p: Point, params: &SolverParams) -> Option<u8> {
        assert!(position.is_legal(p), "{p} is not a legal move");
        if !sound_at(position) {
            return None;
        }
        let board = Board::new(position.clone());
        self.move_wins_on(&board, board.index(p), params)
    }

    fn move_wins_on(&mut self, board: &Board, i: usize, params: &SolverParams) -> Option<u8> {
        self.start(board, params);
        if !sound_at(&board.position) {
            return None;
        }
        let me = board.to_move();
        if board.wins(me).contains(i) {
            return Some(1);
        }
        let child = self.play(board, i);
        if child.position.is_over() || child.has_win(me.opponent()) {
            return None;
        }
        let forced = child.has_win(me);
        for Pass { depth, threes, vcf_threats } in schedule(params, 2) {
            self.vcf_threats = vcf_threats;
            let won = if forced {
                self.defend(&child, depth - 1, threes)
            } else {
                threes > 0 && self.defend_all(&child, depth - 1, threes - 1)
            };
            if won {
                return Some(depth);
            }
            if self.exhausted() {
                break;
            }
        }
        None
    }

    /// Sets the budget for a new question about `board`, emptying the
    /// table if it was filled under other rules.
    fn start(&mut self, board: &Board, params: &SolverParams) {
        self.nodes = 0;
        self.limit = params.max_nodes;
        let rules = *board.rules();
        if self.rules != Some(rules) {
            self.table.fill(Entry::default());
            self.rules = Some(rules);
        }
    }

    fn exhausted(&self) -> bool {
        self.nodes >= self.limit
    }

    fn slot(&self, key: u64) -> usize {
        (key as usize) & (self.table.len() - 1)
    }

    /// A position's entry under the current pass: a search with fewer
    /// threes, or without VCF threats, may fail where this one wins.
    fn key(&self, board: &Board, threes: u8) -> u64 {
        let threats = u64::from(threes) * 2 + u64::from(threes > 0 && self.vcf_threats);
        board.position.hash() ^ threats.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    fn probe(&self, key: u64) -> Option<Entry> {
        let entry = self.table[self.slot(key)];
        (entry.key == key).then_some(entry)
    }

    fn store(&mut self, key: u64, depth: u8, best: Option<usize>) {
        let slot = self.slot(key);
        let mut entry = self.table[slot];
        if entry.key != key {
            entry = Entry { key, ..Entry::default() };
        }
        match best {
            Some(i) => {
                if entry.win == 0 || depth < entry.win {
                    entry.win = depth;
                    entry.best = i as u16 + 1;
                }
            }
            None => entry.fail = entry.fail.max(depth),
        }
        self.table[slot] = entry;
    }

    fn play(&mut self, board: &Board, i: usize) -> Board {
        self.nodes += 1;
        let mut child = board.clone();
        child.play(board.point(i));
        child
    }

    /// Whether the side to move wins within `depth` of its moves.
    fn attack(&mut self, board: &Board, depth: u8, threes: u8) -> bool {
        let me = board.to_move();
        let them = me.opponent();
        let legal = |i: usize| legal(board, i);
        if let Some(i) = board.wins(me).iter().find(|&i| legal(i)) {
            self.store(self.key(board, threes), 1, Some(i));
            return true;
        }
        if depth <= 1 || self.exhausted() {
            return false;
        }
        let key = self.key(board, threes);
        if let Some(entry) = self.probe(key) {
            if entry.win != 0 && entry.win <= depth {
                return true;
            }
            if entry.fail >= depth {
                return false;
            }
        }
        let their_wins = board.wins(them);
        let forcing = if their_wins.is_empty() {
            board.points(Kind::Four, me).union(board.points(Kind::Capture, me)).union(self.capture_threats(board, me))
        } else {
            // Their win comes first unless this move stops it.
            their_wins.union(board.points(Kind::Capture, me))
        };
        let killer = self.killers[board.position.ply() as usize % 64];
        for i in ordered(board, forcing, killer) {
            if !legal(i) {
                continue;
            }
            let child = self.play(board, i);
            if child.position.is_over() || child.has_win(them) || !child.has_win(me) {
                continue;
            }
            if self.defend(&child, depth - 1, threes) {
                self.store(key, depth, Some(i));
                self.killers[board.position.ply() as usize % 64] = i as u16;
                return true;
            }
            if self.exhausted() {
                return false;
            }
        }
        if threes > 0 && their_wins.is_empty() {
            let threes_made = board.points(Kind::Three, me);
            let near = if self.vcf_threats { near_lines(board, me) } else { Bits::default() };
            let quiet = threes_made.union(near).minus(forcing);
            // Open threes first (the order scores them), then the quiet
            // moves that threaten a VCF.
            for i in ordered(board, quiet, killer) {
                if !legal(i) {
                    continue;
                }
                let child = self.play(board, i);
                if child.position.is_over() || child.has_win(them) {
                    continue;
                }
                if !threes_made.contains(i) && !self.threatens_vcf(&child, depth - 1) {
                    continue;
                }
                if self.defend_all(&child, depth - 1, threes - 1) {
                    self.store(key, depth, Some(i));
                    self.killers[board.position.ply() as usize % 64] = i as u16;
                    return true;
                }
                if self.exhausted() {
                    return false;
                }
            }
        }
        if !self.exhausted() {
            self.store(key, depth, None);
        }
        false
    }

    /// Whether the player who just moved into `board` would win by VCF
    /// within `depth` moves if the opponent passed: a quiet move that
    /// threatens this must be answered like an open three.
    fn threatens_vcf(&mut self, board: &Board, depth: u8) -> bool {
        if depth < 2 {
            return false;
        }
        let passed = Board { position: board.position.with_other_to_move(), threats: board.threats.clone() };
        self.attack(&passed, depth, 0)
    }

    /// Points where `me` would threaten to reach the capture win at once.
    fn capture_threats(&self, board: &Board, me: Color) -> Bits {
        match board.rules().capture_win() {
            // A pair (or a Keryo triple) is the most one flank threatens.
            Some(needed) if board.position.captured(me) + 3 >= needed => board.points(Kind::Setup, me),
            _ => Bits::default(),
        }
    }

    /// Whether the attacker (who just moved) wins against every reply to his
    /// threat of an immediate win.
    fn defend(&mut self, board: &Board, depth: u8, threes: u8) -> bool {
        self.wins_against(board, forced_defences(board).iter(), depth, threes)
    }

    /// Whether the attacker, after a quiet threat, wins against every legal
    /// reply. The likely refutations go first.
    fn defend_all(&mut self, board: &Board, depth: u8, threes: u8) -> bool {
        let likely = likely_defences(board);
        let rest = empty_points(board).minus(likely);
        self.wins_against(board, likely.iter().chain(rest.iter()), depth, threes)
    }

    /// Whether the attacker wins after each of `replies` of the side to move
    /// (a reply after which he wins at once needs no search).
    fn wins_against(&mut self, board: &Board, replies: impl Iterator<Item = usize>, depth: u8, threes: u8) -> bool {
        let me = board.to_move();
        let them = me.opponent();
        if board.has_win(me) {
            return false;
        }
        for i in replies {
            if !legal(board, i) {
                continue;
            }
            let child = self.play(board, i);
            if child.position.is_over() {
                return false;
            }
            if child.has_win(them) {
                continue;
            }
            if !self.attack(&child, depth, threes) {
                return false;
            }
        }
        true
    }

    /// Follows a proven win, choosing the defender's reply that delays it most.
    fn principal_line(&mut self, board: &Board, depth: u8, threes: u8, line: &mut Vec<Point>) {
        if line.len() > 64 || !self.attack(board, depth, threes) {
            return;
        }
        let Some(entry) = self.probe(self.key(board, threes)).filter(|e| e.best != 0) else { return };
        let i = usize::from(entry.best - 1);
        line.push(board.point(i));
        let child = self.play(board, i);
        if child.position.is_over() {
            return;
        }
        let me = child.to_move();
        let them = me.opponent();
        let forced = child.has_win(them);
        let threes = if forced { threes } else { threes.saturating_sub(1) };
        let replies = if forced { forced_defences(&child) } else { likely_defences(&child) };
        // The reply that needs the deepest win; any legal move when no
        // candidate is (a reply that loses at once needs 1).
        let mut best: Option<(u8, Board, Point)> = None;
        for r in replies.iter() {
            if let Some((needed, grandchild)) = self.reply_cost(&child, r, depth, threes)
                && best.as_ref().is_none_or(|(n, _, _)| needed > *n)
            {
                best = Some((needed, grandchild, child.point(r)));
            }
        }
        if best.is_none() {
            best = empty_points(&child).iter().find_map(|r| {
                self.reply_cost(&child, r, depth, threes)
                    .map(|(needed, grandchild)| (needed, grandchild, child.point(r)))
            });
        }
        if let Some((needed, grandchild, reply)) = best {
            line.push(reply);
            self.principal_line(&grandchild, needed, threes, line);
        }
    }

    /// The attacker's moves still needed after the defender's reply `r`, or
    /// `None` when `r` is illegal or ends the game.
    fn reply_cost(&mut self, child: &Board, r: usize, depth: u8, threes: u8) -> Option<(u8, Board)> {
        if !legal(child, r) {
            return None;
        }
        let grandchild = self.play(child, r);
        if grandchild.position.is_over() {
            return None;
        }
        let needed = if grandchild.has_win(grandchild.to_move()) {
            1
        } else {
            (2..depth).find(|&d| self.attack(&grandchild, d, threes)).unwrap_or(depth)
        };
        Some((needed, grandchild))
    }
}

/// The moves that stop the opponent's immediate win, if he has one: `None`
/// when nothing is threatened, `Some(empty)` when the side to move cannot
/// stop it (and has no win of its own). Exact: every candidate is played.
#[must_use]
pub fn forced_replies(position: &Position) -> Option<Vec<Point>> {
    let board = Board::new(position.clone());
    forced_replies_on(&board)
}

pub(crate) fn forced_replies_on(board: &Board) -> Option<Vec<Point>> {
    let them = board.to_move().opponent();
    let stops = threat_stops(board)?;
    Some(
        stops
            .into_iter()
            .filter(|&p| {
                let mut child = board.clone();
                child.play(p);
                child.position.is_over() || !child.has_win(them)
            })
            .collect(),
    )
}

/// When the opponent threatens to win at once: the legal moves that might
/// stop it (his winning points, captures, a win of one's own), a superset
/// of the moves that do.
pub(crate) fn threat_stops(board: &Board) -> Option<Vec<Point>> {
    let me = board.to_move();
    let them = me.opponent();
    if board.position.is_over() || !board.has_win(them) {
        return None;
    }
    let stops = forced_defences(board).union(board.wins(me));
    Some(stops.iter().filter(|&i| legal(board, i)).map(|i| board.point(i)).collect())
}

/// One iteration of the solver's deepening.
#[derive(Debug, Clone, Copy)]
struct Pass {
    /// Attacker moves allowed.
    depth: u8,
    /// Quiet threats allowed.
    threes: u8,
    /// Whether a quiet threat may be a move that threatens a VCF, not only
    /// an open three.
    vcf_threats: bool,
}

/// Iterative deepening from `first` attacker moves: VCF to the full depth
/// first (cheap, and the shortest wins), then VCT with open threes, then,
/// with `vcf_threats`, VCT where a quiet move that threatens a VCF is a
/// threat too (each is answered by every legal reply: the costliest pass).
fn schedule(params: &SolverParams, first: u8) -> impl Iterator<Item = Pass> {
    let vcf = (first..=params.max_depth).map(|depth| Pass { depth, threes: 0, vcf_threats: false });
    let passes = match (params.max_threes, params.vcf_threats) {
        (0, _) => &[][..],
        (_, false) => &[false][..],
        (_, true) => &[false, true][..],
    };
    let vct = passes.iter().flat_map(move |&vcf_threats| {
        (first.max(2)..=params.max_depth).map(move |depth| Pass { depth, threes: params.max_threes, vcf_threats })
    });
    vcf.chain(vct)
}

/// Whether dense index `i` is a legal move (empty, and allowed by the opening rule).
#[inline]
fn legal(board: &Board, i: usize) -> bool {
    board.position.is_legal(board.point(i))
}

/// The replies that may stop an immediate win of the opponent: his winning
/// points and every capture (a superset of the moves that do).
fn forced_defences(board: &Board) -> Bits {
    board.wins(board.to_move().opponent()).union(board.points(Kind::Capture, board.to_move()))
}

/// Replies to a quiet threat most likely to refute it: the defender's own
/// threats and captures, and the points of the attacker's threats.
fn likely_defences(board: &Board) -> Bits {
    let me = board.to_move();
    let them = me.opponent();
    [Kind::Five, Kind::Four, Kind::Capture, Kind::Setup]
        .into_iter()
        .map(|kind| board.points(kind, me))
        .chain([Kind::Four, Kind::Three, Kind::Capture].into_iter().map(|kind| board.points(kind, them)))
        .fold(Bits::default(), Bits::union)
}

/// Empty points one or two steps from a stone of `color` along one of the
/// four lines: where a quiet move can build a threat with it.
fn near_lines(board: &Board, color: Color) -> Bits {
    let size = i32::from(board.rules().size());
    let mut bits = Bits::default();
    for y in 0..size {
        for x in 0..size {
            if board.position.stone_at(Point::new(x as u8, y as u8)) != Some(color) {
                continue;
            }
            for (dx, dy) in [(1, 0), (0, 1), (1, 1), (1, -1), (-1, 0), (0, -1), (-1, -1), (-1, 1)] {
                for step in 1..=2 {
                    let (qx, qy) = (x + dx * step, y + dy * step);
                    if !(0..size).contains(&qx) || !(0..size).contains(&qy) {
                        break;
                    }
                    let q = Point::new(qx as u8, qy as u8);
                    if board.position.stone_at(q).is_none() {
                        bits.insert(board.index(q));
                    }
                }
            }
        }
    }
    bits
}

fn empty_points(board: &Board) -> Bits {
    let mut bits = Bits::default();
    for p in board.position.legal_moves() {
        bits.insert(board.index(p));
    }
    bits
}

/// Candidates, the killer move first, then the most threatening (then
/// row-major, so equal positions search alike), in a buffer on the stack.
fn ordered(board: &Board, candidates: Bits, killer: u16) -> impl Iterator<Item = usize> {
    let me = board.to_move();
    let mut buffer = [(0u8, 0u16); 361];
    let mut n = 0;
    for i in candidates.iter() {
        let score = if i == usize::from(killer) {
            u8::MAX
        } else {
            4 * board.lines(Kind::Four, me, i) + 2 * board.lines(Kind::Three, me, i) + board.lines(Kind::Capture, me, i)
        };
        buffer[n] = (score, i as u16);
        n += 1;
    }
    buffer[..n].sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    (0..n).map(move |k| usize::from(buffer[k].1))
}
