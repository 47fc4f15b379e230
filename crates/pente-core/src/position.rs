//! A position: stones, capture counts, side to move, outcome and hash.

use std::fmt;

use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::board::{self, CELLS, DIRECTIONS, EDGE, EMPTY, LINES, WORDS, cell, step};
use crate::color::{Color, Seat};
use crate::point::{Choice, Point};
use crate::rules::{ColourChoice, LineWin, OpeningViolation, Rules};
use crate::symmetry::Symmetry;
use crate::zobrist;

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EndReason {
    /// The mover made a line that wins (five or more, or exactly five).
    Five,
    /// The mover reached the variant's capture threshold.
    Captures,
    /// No empty point was left: a draw.
    Full,
}

impl EndReason {
    /// Lower-case name used in records: `five`, `captures`, `full`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            EndReason::Five => "five",
            EndReason::Captures => "captures",
            EndReason::Full => "full",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a finished game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Outcome {
    /// The winner, `None` for a draw.
    pub winner: Option<Color>,
    /// What ended the game.
    pub reason: EndReason,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.winner {
            Some(color) => write!(f, "{color} won by {}", self.reason),
            None => write!(f, "draw ({})", self.reason),
        }
    }
}

/// Why a move is illegal. The position it was tried on is unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum IllegalMove {
    /// The game has already ended.
    #[error("{point}: the game is already over ({outcome})")]
    GameOver {
        /// The move tried.
        point: Point,
        /// How the game ended.
        outcome: Outcome,
    },
    /// The point is not on this board.
    #[error("{point}: off the {size}x{size} board")]
    OffBoard {
        /// The move tried.
        point: Point,
        /// The board side.
        size: u8,
    },
    /// A stone is already there.
    #[error("{point}: the point is occupied")]
    Occupied {
        /// The move tried.
        point: Point,
    },
    /// The opening rule forbids it.
    #[error("{point}: {violation}")]
    Opening {
        /// The move tried.
        point: Point,
        /// The rule broken.
        violation: OpeningViolation,
    },
    /// A stone while a colour choice is pending.
    #[error("{point}: {chooser} must choose a colour first (swap or stay{pass})", pass = if *can_pass { " or pass" } else { "" })]
    ChoicePending {
        /// The move tried.
        point: Point,
        /// Who must choose.
        chooser: Seat,
        /// Whether `pass` is one of the choices.
        can_pass: bool,
    },
    /// A colour choice where none is pending, or `pass` where it is not one
    /// of the choices.
    #[error("{choice}: {}", if *pending { "only Swap2's first choice can pass" } else { "no colour choice is pending here" })]
    NoSuchChoice {
        /// The choice tried.
        choice: Choice,
        /// Whether some other choice is pending.
        pending: bool,
    },
}

/// A game state under some [`Rules`].
///
/// Cloning is a plain copy of under a kilobyte, cheap enough to serve as undo
/// in search. [`Position::play`] checks legality and leaves the position
/// untouched on error; [`Position::play_unchecked`] is the fast path.
#[derive(Clone)]
pub struct Position {
    rules: Rules,
    board: [u8; CELLS],
    /// Bit per padded cell: set for every empty point on the board.
    empty: [u64; WORDS],
    empty_count: u16,
    /// Stones captured BY each colour.
    captured: [u16; 2],
    to_move: Color,
    ply: u32,
    hash: u64,
    outcome: Option<Outcome>,
    /// The last moves, newest first: history a network may want to see.
    /// Stones only: a colour choice is not a stone.
    recent_moves: [Option<Point>; RECENT_MOVES],
    seats: Seats,
}

/// Where the colour choice of D-Pente and Swap2 stands. Every other variant
/// starts decided, the first player holding White.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Seats {
    /// The players hold their colours for the rest of the game.
    decided: bool,
    /// The first player holds Black.
    swapped: bool,
    /// Swap2: the second player passed the choice back.
    passed: bool,
}

/// How many of the last moves a [`Position`] remembers.
pub const RECENT_MOVES: usize = 4;

#[inline]
const fn stone(color: Color) -> u8 {
    color as u8 + 1
}

impl Position {
    /// The empty board, White to move.
    #[must_use]
    pub fn new(rules: Rules) -> Position {
        let mut board = [EDGE; CELLS];
        let mut empty = [0; WORDS];
        let size = rules.size();
        for y in 0..size {
            for x in 0..size {
                let c = cell(Point::new(x, y));
                board[c] = EMPTY;
                empty[c / 64] |= 1 << (c % 64);
            }
        }
        Position {
            rules,
            board,
            empty,
            empty_count: (rules.area()) as u16,
            captured: [0; 2],
            to_move: Color::White,
            ply: 0,
            hash: 0,
            outcome: None,
            recent_moves: [None; RECENT_MOVES],
            seats: Seats { decided: rules.colour_choice().is_none(), swapped: false, passed: false },
        }
    }

    /// The rules in force.
    #[must_use]
    pub const fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The colour of the next stone (even after the game has ended: the
    /// one it would be). In Connect6 a colour places two stones in a row;
    /// who places it is [`Position::actor`].
    #[must_use]
    pub const fn to_move(&self) -> Color {
        self.to_move
    }

    /// The player who acts next: places the next stone or, when a colour
    /// choice is pending, chooses. Before the choice of D-Pente and Swap2
    /// this is the player placing the opening stones, whatever their colour.
    #[must_use]
    pub fn actor(&self) -> Seat {
        if let Some(chooser) = self.choice_pending() {
            chooser
        } else if let Some(holder) = self.holder(self.to_move) {
            holder
        } else if self.seats.passed {
            Seat::Second
        } else {
            Seat::First
        }
    }

    /// Who holds `color`, once the colour choice (if the variant has one)
    /// is made; `None` before it.
    #[must_use]
    pub const fn holder(&self, color: Color) -> Option<Seat> {
        if !self.seats.decided {
            None
        } else if matches!(color, Color::White) != self.seats.swapped {
            Some(Seat::First)
        } else {
            Some(Seat::Second)
        }
    }

    /// Who must make a colour choice now (`swap`, `stay`, or in Swap2's
    /// first choice `pass`), if one is pending.
    #[must_use]
    pub fn choice_pending(&self) -> Option<Seat> {
        if self.seats.decided || self.outcome.is_some() {
            return None;
        }
        let first = self.rules.colour_choice()?.stones_before_choice();
        // After a Swap2 pass the second player places two more stones and
        // hands the choice back.
        if self.seats.passed {
            (self.ply == first + 2).then_some(Seat::First)
        } else {
            (self.ply == first).then_some(Seat::Second)
        }
    }

    /// The choices open now: empty unless a colour choice is pending.
    #[inline]
    #[must_use]
    pub fn choices(&self) -> &'static [Point] {
        if self.seats.decided {
            return &[];
        }
        match self.choice_pending() {
            None => &[],
            Some(_) if self.can_pass() => &[Point::SWAP, Point::STAY, Point::PASS],
            Some(_) => &[Point::SWAP, Point::STAY],
        }
    }

    /// Whether Swap2's first choice is the pending one (the one that may pass).
    fn can_pass(&self) -> bool {
        self.rules.colour_choice() == Some(ColourChoice::Swap2) && !self.seats.passed
    }

    /// Whether the players have their colours for the rest of the game
    /// (always, in variants without a colour choice).
    #[must_use]
    pub const fn seats_decided(&self) -> bool {
        self.seats.decided
    }

    /// Whether the colours were exchanged: the first player holds Black.
    #[must_use]
    pub const fn swapped(&self) -> bool {
        self.seats.swapped
    }

    /// Whether Swap2's first choice was passed back: the second player
    /// placed stones 4 and 5 and the first chooses (or chose) after them.
    #[must_use]
    pub const fn passed(&self) -> bool {
        self.seats.passed
    }

    /// Moves played so far; the next move is number `ply + 1`.
    #[must_use]
    pub const fn ply(&self) -> u32 {
        self.ply
    }

    /// Stones captured BY `color`.
    #[must_use]
    pub const fn captured(&self, color: Color) -> u16 {
        self.captured[color.index()]
    }

    /// How the game ended, or `None` while it goes on.
    #[must_use]
    pub const fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Whether the game has ended.
    #[must_use]
    pub const fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// The last stone placed, if any.
    #[must_use]
    pub const fn last_move(&self) -> Option<Point> {
        self.recent_moves[0]
    }

    /// Up to [`RECENT_MOVES`] last moves, newest first.
    pub fn recent_moves(&self) -> impl Iterator<Item = Point> + '_ {
        self.recent_moves.iter().map_while(|p| *p)
    }

    /// Empty points left on the board.
    #[must_use]
    pub const fn empty_count(&self) -> usize {
        self.empty_count as usize
    }

    /// Zobrist hash of stones, side to move and both capture counts.
    #[must_use]
    pub const fn hash(&self) -> u64 {
        self.hash
    }

    /// The stone on `p`, if any (`None` off the board too).
    #[inline]
    #[must_use]
    pub fn stone_at(&self, p: Point) -> Option<Color> {
        if !self.rules.contains(p) {
            return None;
        }
        match self.board[cell(p)] {
            1 => Some(Color::White),
            2 => Some(Color::Black),
            _ => None,
        }
    }

    /// Why `p` is not a legal move here, or `Ok` if it is.
    ///
    /// # Errors
    /// The [`IllegalMove`] that playing `p` would raise.
    pub fn check(&self, p: Point) -> Result<(), IllegalMove> {
        if let Some(outcome) = self.outcome {
            return Err(IllegalMove::GameOver { point: p, outcome });
        }
        if let Some(choice) = p.choice() {
            return if self.choices().contains(&p) {
                Ok(())
            } else {
                Err(IllegalMove::NoSuchChoice { choice, pending: self.choice_pending().is_some() })
            };
        }
        if let Some(chooser) = self.choice_pending() {
            return Err(IllegalMove::ChoicePending { point: p, chooser, can_pass: self.can_pass() });
        }
        if !self.rules.contains(p) {
            return Err(IllegalMove::OffBoard { point: p, size: self.rules.size() });
        }
        if self.board[cell(p)] != EMPTY {
            return Err(IllegalMove::Occupied { point: p });
        }
        if let Some(violation) = self.rules.opening_violation(self.ply, p) {
            return Err(IllegalMove::Opening { point: p, violation });
        }
        Ok(())
    }

    /// Whether `p` is a legal move here.
    #[inline]
    #[must_use]
    pub fn is_legal(&self, p: Point) -> bool {
        self.check(p).is_ok()
    }

    /// Plays `p` (a stone, or a colour choice) after checking it; returns
    /// the number of stones it captured.
    ///
    /// # Errors
    /// An [`IllegalMove`]; the position is then unchanged.
    pub fn play(&mut self, p: Point) -> Result<u16, IllegalMove> {
        self.check(p)?;
        Ok(self.play_unchecked(p))
    }

    /// Plays `p` without checking legality; returns the number of stones
    /// captured. The fast path for search and playouts.
    ///
    /// # Panics
    /// May panic, or corrupt the position, if `p` is off the board. Playing an
    /// occupied point or after the end is a logic error with unspecified (but
    /// memory-safe) results.
    #[inline]
    pub fn play_unchecked(&mut self, p: Point) -> u16 {
        if p.is_choice() {
            self.choose(p);
            return 0;
        }
        let me = self.to_move;
        let mine = stone(me);
        let theirs = stone(me.opponent());
        let c = cell(p);
        self.board[c] = mine;
        self.empty[c / 64] &= !(1 << (c % 64));
        self.empty_count -= 1;
        self.hash ^= zobrist::STONES[me.index()][c];

        let taken = if self.rules.poofs() || self.rules.boat() {
            self.play_variant_end(c, mine, theirs)
        } else {
            let lengths = self.rules.capture_lengths();
            let taken = if lengths == 0 { 0 } else { self.capture_around(c, mine, theirs, lengths) };
            if taken != 0 {
                self.credit(me, taken);
            }
            self.outcome = if self.makes_line(c, mine) {
                Some(Outcome { winner: Some(me), reason: EndReason::Five })
            } else {
                self.captures_or_full(me)
            };
            taken
        };

        // Connect6: the first stone of a turn is followed by one of the same colour.
        let next = if self.rules.two_stone_turns() { self.rules.colour_of_stone(self.ply + 1) } else { me.opponent() };
        if next != me {
            self.to_move = next;
            self.hash ^= zobrist::BLACK_TO_MOVE;
        }
        self.ply += 1;
        self.recent_moves.copy_within(0..RECENT_MOVES - 1, 1);
        self.recent_moves[0] = Some(p);
        taken
    }

    /// Makes a colour choice (the move is one of [`Position::choices`]).
    #[cold]
    fn choose(&mut self, p: Point) {
        match p.choice() {
            Some(Choice::Swap) => {
                self.seats.swapped = true;
                self.seats.decided = true;
                self.hash ^= zobrist::SWAPPED ^ zobrist::SEATS_DECIDED;
            }
            Some(Choice::Stay) => {
                self.seats.decided = true;
                self.hash ^= zobrist::SEATS_DECIDED;
            }
            Some(Choice::Pass) => {
                self.seats.passed = true;
                self.hash ^= zobrist::PASSED;
            }
            None => unreachable!("choose is called with a choice"),
        }
    }

    /// The captures and the end of a move under rules whose moves can
    /// remove the mover's own stones (Poof-Pente) or whose fives can wait
    /// (Boat-Pente), or both (O-Pente); kept off the plain rules' path.
    /// Returns the stones captured.
    #[cold]
    fn play_variant_end(&mut self, c: usize, mine: u8, theirs: u8) -> u16 {
        let me = self.to_move;
        // Poofs are found on the board as the stone left it, before the
        // captures of the same move are taken off (VARIANTS.md).
        let poofs = if self.rules.poofs() { self.poofs_at(c, mine, theirs) } else { 0 };
        let lengths = self.rules.capture_lengths();
        let taken = if lengths == 0 { 0 } else { self.capture_around(c, mine, theirs, lengths) };
        if taken != 0 {
            self.credit(me, taken);
        }
        if poofs != 0 {
            let poofed = self.remove_poofed(c, poofs, me);
            self.credit(me.opponent(), poofed);
        }
        self.outcome = if self.rules.boat() {
            self.boat_outcome(c, mine, theirs)
        } else {
            // A poofed stone makes no five.
            self.poof_outcome(poofs == 0 && self.makes_line(c, mine))
        };
        taken
    }

    /// Adds `stones` to those credited to `color`.
    #[inline]
    fn credit(&mut self, color: Color, stones: u16) {
        let before = self.captured[color.index()];
        let after = before + stones;
        self.captured[color.index()] = after;
        self.hash ^= zobrist::captures(color, before) ^ zobrist::captures(color, after);
    }

    /// The poofs of the stone just placed on `c`. Bit `i`: it ends its own
    /// pair along direction `i`, flanked (`O X* X O`, an opponent stone at
    /// `+1` and beyond the partner at `-1`). Where triples are captured
    /// (O-Pente), bit `8 + i`: it ends its own triple (`O X* X X O`), and
    /// bit `16 + j`: it is the middle of one along line `j` (`O X X* X O`).
    #[inline]
    fn poofs_at(&self, c: usize, mine: u8, theirs: u8) -> u32 {
        let at = |d: isize, k: isize| self.board[step(c, d, k)];
        let triples = self.rules.captures_run_of(3);
        let mut found = 0;
        for (i, &d) in DIRECTIONS.iter().enumerate() {
            let flanked = at(d, 1) == theirs && at(d, -1) == mine;
            found |= u32::from(flanked && at(d, -2) == theirs) << i;
            found |= u32::from(triples && flanked && at(d, -2) == mine && at(d, -3) == theirs) << (8 + i);
        }
        if triples {
            for (j, &d) in LINES.iter().enumerate() {
                let middle = at(d, 1) == mine && at(d, -1) == mine && at(d, 2) == theirs && at(d, -2) == theirs;
                found |= u32::from(middle) << (16 + j);
            }
        }
        found
    }

    /// Takes off the stone on `c` and its partners in each poof of `poofs`
    /// (as [`Position::poofs_at`] found them); returns the stones removed,
    /// the placed one counted once. No partner is in two poofs: their
    /// patterns need different stones on the cells they share.
    fn remove_poofed(&mut self, c: usize, poofs: u32, color: Color) -> u16 {
        self.lift(c, color);
        let mut removed = 1;
        for (i, &d) in DIRECTIONS.iter().enumerate() {
            let partners: &[isize] = match (poofs >> i & 1, poofs >> (8 + i) & 1) {
                (1, _) => &[-1],
                (_, 1) => &[-1, -2],
                _ => &[],
            };
            for &k in partners {
                self.lift(step(c, d, k), color);
            }
            removed += partners.len() as u16;
        }
        for (j, &d) in LINES.iter().enumerate() {
            if poofs >> (16 + j) & 1 != 0 {
                self.lift(step(c, d, 1), color);
                self.lift(step(c, d, -1), color);
                removed += 2;
            }
        }
        self.empty_count += removed;
        removed
    }

    /// Takes `color`'s stone off cell `x` (the caller counts the empties).
    #[inline]
    fn lift(&mut self, x: usize, color: Color) {
        self.board[x] = EMPTY;
        self.empty[x / 64] |= 1 << (x % 64);
        self.hash ^= zobrist::STONES[color.index()][x];
    }

    /// Boat-Pente's end after the mover's stone on `c`, in pente.org's order:
    /// the opponent's five from his last move, if it survived this one; a
    /// five of the mover's the opponent cannot capture into (none if the
    /// stone was poofed, O-Pente); the capture win (O-Pente's: by a lead, as
    /// in Poof-Pente); the full board. A capturable five waits for the reply.
    fn boat_outcome(&self, c: usize, mine: u8, theirs: u8) -> Option<Outcome> {
        let me = self.to_move;
        // Any five of the opponent's went through his last stone: an older
        // one would have won at this move's predecessor.
        if let Some(last) = self.recent_moves[0]
            && self.five_survives(cell(last), theirs)
        {
            Some(Outcome { winner: Some(me.opponent()), reason: EndReason::Five })
        } else if self.board[c] == mine && self.safe_five(c, mine, theirs) {
            Some(Outcome { winner: Some(me), reason: EndReason::Five })
        } else if self.rules.poofs() {
            self.poof_outcome(false)
        } else {
            self.captures_or_full(me)
        }
    }

    /// The end by `me`'s capture count, else by the full board.
    #[inline]
    fn captures_or_full(&self, me: Color) -> Option<Outcome> {
        if self.rules.capture_win().is_some_and(|win| self.captured[me.index()] >= win) {
            Some(Outcome { winner: Some(me), reason: EndReason::Captures })
        } else if self.empty_count == 0 {
            Some(Outcome { winner: None, reason: EndReason::Full })
        } else {
            None
        }
    }

    /// Stones of `stone` next to `c` along `d`, not counting `c`.
    #[inline]
    fn run(&self, c: usize, d: isize, stone: u8) -> isize {
        let mut n = 0;
        while self.board[step(c, d, n + 1)] == stone {
            n += 1;
        }
        n
    }

    /// Whether five or more of `stone` lie in a row through `c`, or (where
    /// `c` has since been emptied) right beside it on one side.
    fn five_survives(&self, c: usize, stone: u8) -> bool {
        LINES.iter().any(|&d| {
            let (ahead, behind) = (self.run(c, d, stone), self.run(c, -d, stone));
            if self.board[c] == stone { ahead + behind + 1 >= 5 } else { ahead >= 5 || behind >= 5 }
        })
    }

    /// Whether a line of five or more through `c` has no stone the
    /// opponent could capture into (of two fives, one safe one wins): for
    /// a line stone `s` and a direction `e`, a pair `s, s + e` (flanks
    /// `s - e`, `s + 2e`), or where triples are captured a triple
    /// `s, s + e, s + 2e` (flanks `s - e`, `s + 3e`) or `s - e, s, s + e`
    /// (flanks `s - 2e`, `s + 2e`), all `mine`, with one flank `theirs` and
    /// the other empty.
    fn safe_five(&self, c: usize, mine: u8, theirs: u8) -> bool {
        let triples = self.rules.captures_run_of(3);
        let open = |a: u8, b: u8| (a == theirs && b == EMPTY) || (a == EMPTY && b == theirs);
        LINES.iter().any(|&d| {
            let (ahead, behind) = (self.run(c, d, mine), self.run(c, -d, mine));
            ahead + behind + 1 >= 5
                && !(-behind..=ahead).any(|k| {
                    let s = step(c, d, k);
                    DIRECTIONS.iter().any(|&e| {
                        let at = |n: isize| self.board[step(s, e, n)];
                        (at(1) == mine && open(at(-1), at(2)))
                            || (triples && at(1) == mine && at(2) == mine && open(at(-1), at(3)))
                            || (triples && at(1) == mine && at(-1) == mine && open(at(-2), at(2)))
                    })
                })
        })
    }

    /// Poof-Pente's end after a move (and O-Pente's after its fives), in
    /// pente.org's order: unequal credited totals with one at the capture
    /// win or more go to the player with
    /// more (the opponent too); then a five through the placed stone (only
    /// if it stayed); then the full board.
    fn poof_outcome(&self, five: bool) -> Option<Outcome> {
        let [white, black] = self.captured;
        let win = self.rules.capture_win().unwrap_or(u16::MAX);
        if white != black && white.max(black) >= win {
            let winner = if white > black { Color::White } else { Color::Black };
            Some(Outcome { winner: Some(winner), reason: EndReason::Captures })
        } else if five {
            Some(Outcome { winner: Some(self.to_move), reason: EndReason::Five })
        } else if self.empty_count == 0 {
            Some(Outcome { winner: None, reason: EndReason::Full })
        } else {
            None
        }
    }

    /// Removes every run of opponent stones the stone on `c` flanks, if the
    /// rules capture runs of that length. Returns the stones taken.
    #[inline]
    fn capture_around(&mut self, c: usize, mine: u8, theirs: u8, lengths: u8) -> u16 {
        // The four cells beyond `c` in each direction, packed two bits each,
        // are matched against `t t m` and `t t t m` without a branch per
        // direction: captures are rare and the branches would be unpredictable.
        let (m, t) = (u32::from(mine), u32::from(theirs));
        let pair = t | t << 2 | m << 4;
        let triple = t | t << 2 | t << 4 | m << 6;
        let mut found = 0u16; // bit i: a pair in direction i; bit 8 + i: a triple
        for (i, &d) in DIRECTIONS.iter().enumerate() {
            let cells = u32::from(self.board[step(c, d, 1)])
                | u32::from(self.board[step(c, d, 2)]) << 2
                | u32::from(self.board[step(c, d, 3)]) << 4
                | u32::from(self.board[step(c, d, 4)]) << 6;
            found |= u16::from(cells & 0x3F == pair) << i | u16::from(cells == triple) << (8 + i);
        }
        if lengths & (1 << 2) == 0 {
            found &= 0xFF00;
        }
        if lengths & (1 << 3) == 0 {
            found &= 0x00FF;
        }
        if found == 0 {
            return 0;
        }
        let color = if theirs == stone(Color::White) { Color::White } else { Color::Black };
        let mut taken = 0;
        for (i, &d) in DIRECTIONS.iter().enumerate() {
            let run = if found & (1 << i) != 0 {
                2
            } else if found & (1 << (8 + i)) != 0 {
                3
            } else {
                continue;
            };
            for k in 1..=run {
                self.lift(step(c, d, k), color);
            }
            taken += run as u16;
        }
        self.empty_count += taken;
        taken
    }

    /// Stones `color` would capture by placing a stone on the empty point
    /// `p`, under these rules (0 when nothing is flanked). The position is
    /// unchanged: threat analysis asks this of points it does not play.
    ///
    /// # Panics
    /// May panic if `p` is off the board.
    #[inline]
    #[must_use]
    pub fn capture_gain(&self, p: Point, color: Color) -> u16 {
        let lengths = self.rules.capture_lengths();
        if lengths == 0 {
            return 0;
        }
        let c = cell(p);
        let (mine, theirs) = (stone(color), stone(color.opponent()));
        let mut gain = 0;
        for &d in &DIRECTIONS {
            let at = |k| self.board[step(c, d, k)];
            if at(1) != theirs || at(2) != theirs {
                continue;
            }
            if at(3) == mine && lengths & (1 << 2) != 0 {
                gain += 2;
            } else if at(3) == theirs && at(4) == mine && lengths & (1 << 3) != 0 {
                gain += 3;
            }
        }
        gain
    }

    /// Whether the stone on `c` is part of a winning line.
    #[inline]
    fn makes_line(&self, c: usize, mine: u8) -> bool {
        let run = |d: isize| self.run(c, d, mine);
        match self.rules.line_win() {
            LineWin::FiveOrMore => LINES.iter().any(|&d| 1 + run(d) + run(-d) >= 5),
            LineWin::ExactlyFive => LINES.iter().any(|&d| 1 + run(d) + run(-d) == 5),
            LineWin::SixOrMore => LINES.iter().any(|&d| 1 + run(d) + run(-d) >= 6),
        }
    }

    /// The legal moves, in row-major order from `A1`; none once the game
    /// is over; the [`Position::choices`] alone while a colour choice is pending.
    #[must_use]
    pub fn legal_moves(&self) -> LegalMoves<'_> {
        // A finished game or a pending choice starts the iterator past the
        // last word, so it yields no point.
        let restricted = self.opening_restricts();
        if self.is_over() || !self.choices().is_empty() {
            return LegalMoves { position: self, word: WORDS, bits: 0, restricted, choices_given: 0 };
        }
        LegalMoves { position: self, word: 0, bits: self.empty[0], restricted, choices_given: 0 }
    }

    /// Whether the opening rule may forbid some empty points at this ply.
    #[inline]
    fn opening_restricts(&self) -> bool {
        self.ply <= 2 && !matches!(self.rules.opening(), crate::rules::Opening::Free)
    }

    /// A legal move drawn uniformly at random, or `None` once the game is over.
    pub fn random_legal_move<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<Point> {
        if self.is_over() {
            return None;
        }
        let choices = self.choices();
        if !choices.is_empty() {
            return Some(choices[rng.random_range(0..choices.len())]);
        }
        let size = self.rules.size();
        let restricted = self.opening_restricts();
        // Rejection sampling from the whole board is uniform over the legal
        // points and, with the board at most about half full in practice,
        // needs one or two draws.
        for _ in 0..16 {
            let p = Point::new(rng.random_range(0..size), rng.random_range(0..size));
            if self.board[cell(p)] == EMPTY && (!restricted || self.rules.opening_allows(self.ply, p)) {
                return Some(p);
            }
        }
        // A nearly full board: pick among the legal moves directly.
        let count = self.legal_moves().count();
        self.legal_moves().nth(rng.random_range(0..count))
    }

    /// `count` unfinished positions of `rules`, each after up to `plies(rng,
    /// i)` random moves (`i` the positions made so far): test and benchmark
    /// inputs. A game that ends on the way is dropped and another begun.
    pub fn random_positions<R: Rng + ?Sized>(
        rules: Rules,
        count: usize,
        rng: &mut R,
        mut plies: impl FnMut(&mut R, usize) -> usize,
    ) -> Vec<Position> {
        let mut positions = Vec::with_capacity(count);
        while positions.len() < count {
            let mut position = Position::new(rules);
            for _ in 0..plies(rng, positions.len()) {
                match position.random_legal_move(rng) {
                    Some(p) => position.play_unchecked(p),
                    None => break,
                };
            }
            if !position.is_over() {
                positions.push(position);
            }
        }
        positions
    }

    /// Plays uniformly random legal moves to the end; returns the outcome and
    /// the number of stones placed.
    pub fn random_playout<R: Rng + ?Sized>(&mut self, rng: &mut R) -> (Outcome, u32) {
        let start = self.ply;
        while let Some(p) = self.random_legal_move(rng) {
            self.play_unchecked(p);
        }
        (self.outcome.expect("a game with no legal move is over"), self.ply - start)
    }

    /// The hash recomputed from scratch; equals [`Position::hash`] (a check
    /// for tests and for positions built by hand).
    #[must_use]
    pub fn compute_hash(&self) -> u64 {
        let mut hash = 0;
        for (c, &v) in self.board.iter().enumerate() {
            if v == 1 || v == 2 {
                hash ^= zobrist::STONES[usize::from(v - 1)][c];
            }
        }
        for color in Color::ALL {
            hash ^= zobrist::captures(color, self.captured[color.index()]);
        }
        if self.to_move == Color::Black {
            hash ^= zobrist::BLACK_TO_MOVE;
        }
        if self.rules.colour_choice().is_some() {
            let keys = [
                (self.seats.decided, zobrist::SEATS_DECIDED),
                (self.seats.swapped, zobrist::SWAPPED),
                (self.seats.passed, zobrist::PASSED),
            ];
            for (set, key) in keys {
                if set {
                    hash ^= key;
                }
            }
        }
        hash
    }

    /// Whether the stone on `p` is part of a winning line under the rules
    /// (false on an empty point): a five that has not ended the game is one
    /// that must wait, as Boat-Pente's capturable fives do.
    #[must_use]
    pub fn in_winning_line(&self, p: Point) -> bool {
        let c = cell(p);
        let s = self.board[c];
        (s == stone(Color::White) || s == stone(Color::Black)) && self.makes_line(c, s)
    }

    /// The same stones with the other colour to move: what the opponent
    /// could play if it were its turn (threat reads). Not a position any
    /// game reaches: only for rules of one stone a turn, the colours held.
    #[must_use]
    pub fn with_other_to_move(&self) -> Position {
        let mut out = self.clone();
        out.to_move = self.to_move.opponent();
        out.hash ^= zobrist::BLACK_TO_MOVE;
        out
    }

    /// The same position seen through a board symmetry.
    #[must_use]
    pub fn transformed(&self, symmetry: Symmetry) -> Position {
        let size = self.rules.size();
        let mut out = Position::new(self.rules);
        for y in 0..size {
            for x in 0..size {
                let p = Point::new(x, y);
                let v = self.board[cell(p)];
                if v != EMPTY {
                    let q = cell(symmetry.apply(p, size));
                    out.board[q] = v;
                    out.empty[q / 64] &= !(1 << (q % 64));
                }
            }
        }
        out.empty_count = self.empty_count;
        out.captured = self.captured;
        out.to_move = self.to_move;
        out.ply = self.ply;
        out.outcome = self.outcome;
        out.recent_moves = self.recent_moves.map(|m| m.map(|p| symmetry.apply(p, size)));
        out.seats = self.seats;
        out.hash = out.compute_hash();
        out
    }

    /// The board as `size` strings, top row first, with `W`, `B` and `.`.
    #[must_use]
    pub fn board_rows(&self) -> Vec<String> {
        let size = self.rules.size();
        (0..size)
            .rev()
            .map(|y| (0..size).map(|x| self.stone_at(Point::new(x, y)).map_or('.', Color::char)).collect())
            .collect()
    }
}

/// Building a position from its parts, for [`crate::Setup`], which checks
/// them first.
impl Position {
    /// The position with these stones, counts and seats, the colour of stone
    /// `ply` to move, its hash computed and its outcome derived from the last
    /// move as [`Position::play`] would have decided it.
    ///
    /// The caller has checked that every stone and recent move lies on the
    /// board and that the recent moves hold the last move (and, under
    /// Boat-Pente's rules, the one before it) whenever there was one.
    pub(crate) fn from_parts(
        rules: Rules,
        stones: impl IntoIterator<Item = (Point, Color)>,
        captured: [u16; 2],
        ply: u32,
        recent: &[Point],
        (decided, swapped, passed): (bool, bool, bool),
    ) -> Position {
        let mut position = Position::new(rules);
        for (p, color) in stones {
            let c = cell(p);
            position.board[c] = stone(color);
            position.empty[c / 64] &= !(1 << (c % 64));
            position.empty_count -= 1;
        }
        position.captured = captured;
        position.ply = ply;
        position.to_move = rules.colour_of_stone(ply);
        for (slot, &p) in position.recent_moves.iter_mut().zip(recent) {
            *slot = Some(p);
        }
        position.seats = Seats { decided, swapped, passed };
        position.derive_outcome();
        position.hash = position.compute_hash();
        position
    }

    /// Sets the outcome to the one the last stone decided: the end checks of
    /// [`Position::play_unchecked`] are run again on the board it left, with
    /// its colour to move and the stone before it as the last move, which
    /// is all they read. A colour choice since changes none of it.
    fn derive_outcome(&mut self) {
        self.outcome = None;
        let Some(last) = self.recent_moves[0] else { return };
        let Some(stones) = self.ply.checked_sub(1) else { return };
        let mover = self.rules.colour_of_stone(stones);
        let (to_move, recent) = (self.to_move, self.recent_moves);
        self.to_move = mover;
        self.recent_moves.copy_within(1.., 0);
        self.recent_moves[RECENT_MOVES - 1] = None;
        let (c, mine, theirs) = (cell(last), stone(mover), stone(mover.opponent()));
        // A poofed stone left its point empty, and makes no five.
        let stayed = self.board[c] == mine;
        self.outcome = if self.rules.boat() {
            self.boat_outcome(c, mine, theirs)
        } else if self.rules.poofs() {
            self.poof_outcome(stayed && self.makes_line(c, mine))
        } else if stayed && self.makes_line(c, mine) {
            Some(Outcome { winner: Some(mover), reason: EndReason::Five })
        } else {
            self.captures_or_full(mover)
        };
        self.to_move = to_move;
        self.recent_moves = recent;
    }

    /// In a game that goes on, a stone of a winning line the rules would not
    /// have let stand: a line that wins makes the game end at the move that
    /// made it, except under Boat-Pente's rules a five of the last mover's
    /// the opponent may still break (one through or beside his last stone).
    pub(crate) fn stray_line(&self) -> Option<(Color, Point)> {
        if self.outcome.is_some() {
            return None;
        }
        let last_mover = self.ply.checked_sub(1).map(|stones| self.rules.colour_of_stone(stones));
        let pending = |color: Color| {
            self.rules.boat()
                && last_mover == Some(color)
                && self.recent_moves[0].is_some_and(|last| self.five_survives(cell(last), stone(color)))
        };
        let size = self.rules.size();
        (0..size).flat_map(|y| (0..size).map(move |x| Point::new(x, y))).find_map(|p| {
            let color = self.stone_at(p)?;
            (self.makes_line(cell(p), stone(color)) && !pending(color)).then_some((color, p))
        })
    }
}

impl PartialEq for Position {
    /// Same rules, stones, captures, side to move, ply and outcome. The recent
    /// moves are history, not state, and are ignored.
    fn eq(&self, other: &Position) -> bool {
        self.rules == other.rules
            && self.board == other.board
            && self.captured == other.captured
            && self.to_move == other.to_move
            && self.ply == other.ply
            && self.outcome == other.outcome
            && self.seats == other.seats
    }
}

impl Eq for Position {}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Position {{ rules: {}, ply: {}, to_move: {}, captured: W{} B{}, outcome: {:?} }}",
            self.rules, self.ply, self.to_move, self.captured[0], self.captured[1], self.outcome
        )?;
        if self.rules.colour_choice().is_some() {
            writeln!(f, "seats: {:?}, actor: {}", self.seats, self.actor())?;
        }
        for row in self.board_rows() {
            writeln!(f, "{row}")?;
        }
        Ok(())
    }
}

/// Iterator over the legal moves of a [`Position`].
pub struct LegalMoves<'a> {
    position: &'a Position,
    word: usize,
    bits: u64,
    /// Whether the opening rule may forbid some empty points.
    restricted: bool,
    /// Colour choices yielded so far (only while one is pending).
    choices_given: u8,
}

impl LegalMoves<'_> {
    /// The next colour choice, once the points are done.
    #[cold]
    #[inline(never)]
    fn next_choice(&mut self) -> Option<Point> {
        let choice = *self.position.choices().get(usize::from(self.choices_given))?;
        self.choices_given += 1;
        Some(choice)
    }
}

impl Iterator for LegalMoves<'_> {
    type Item = Point;

    #[inline(always)]
    fn next(&mut self) -> Option<Point> {
        loop {
            while self.bits == 0 {
                self.word += 1;
                if self.word >= WORDS {
                    // Past the points (none are legal while a choice is
                    // pending): the choices, if any.
                    return self.next_choice();
                }
                self.bits = self.position.empty[self.word];
            }
            let c = self.word * 64 + self.bits.trailing_zeros() as usize;
            self.bits &= self.bits - 1;
            let p = board::point(c);
            if !self.restricted || self.position.rules.opening_allows(self.position.ply, p) {
                return Some(p);
            }
        }
    }
}
