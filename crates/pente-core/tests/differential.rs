//! Differential test: a deliberately naive second implementation of
//! `shared/RULES.md` (a `Vec<Vec<Option<Stone>>>` board and plain loops, no
//! code shared with the crate) plays thousands of random games, biased toward
//! crowded play and captures, in lockstep with `pente_core::Position`. At every
//! ply both must agree on the legal moves, the board, the capture counts, the
//! side to move and the outcome, and on which random tries are illegal.
//! Colour choices (D-Pente, Swap2) are spelled as the crate spells them,
//! `(25, 0..3)` for swap, stay and pass; their rules are the naive side's own.

use std::collections::BTreeMap;

use pente_core::{Color, EndReason, IllegalMove, Point, Position, Rules, Seat, Variant};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

// ---------------------------------------------------------------------------
// The naive rules, written from RULES.md

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stone {
    First,
    Second,
}

impl Stone {
    fn other(self) -> Stone {
        match self {
            Stone::First => Stone::Second,
            Stone::Second => Stone::First,
        }
    }

    fn slot(self) -> usize {
        match self {
            Stone::First => 0,
            Stone::Second => 1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Five,
    Captures,
    Full,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    Finished,
    OffBoard,
    Taken,
    Opening,
    /// A stone while a colour choice is pending.
    MustChoose,
    /// A choice that is not open now.
    NoSuchChoice,
}

/// The colour-choice openings of VARIANTS.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChoiceRule {
    /// P1 places four stones, P2 swaps or stays.
    D,
    /// P1 places three; P2 swaps, stays or passes (places two, P1 chooses).
    Swap2,
}

const SWAP: (i32, i32) = (25, 0);
const STAY: (i32, i32) = (25, 1);
const PASS: (i32, i32) = (25, 2);

/// The parameters of a variant, read off the table in RULES.md.
#[derive(Debug, Clone)]
struct NaiveRules {
    size: i32,
    first_move_on_centre: bool,
    /// Chebyshev distance move 3 must keep from the centre, if any.
    move_three_distance: Option<i32>,
    /// Distances from the centre along its row and column that move 3 may
    /// not take either (G-Pente, VARIANTS.md).
    move_three_axis_bar: Vec<i32>,
    /// Lengths of flanked runs that are captured.
    capture_runs: Vec<usize>,
    /// Captured stones that win, if captures win.
    capture_win: Option<usize>,
    /// Only exactly five wins (an overline does not).
    exactly_five: bool,
    /// Poof-Pente: a stone placed into `O X* X O` goes with its partner,
    /// credited to the opponent; a capture win needs a lead. Where triples
    /// are captured (O-Pente), `O X* X X O` and `O X X* X O` poof too.
    poof: bool,
    /// Boat-Pente: a five the opponent could capture into must survive one reply.
    boat: bool,
    /// Stones in a row that win (6 in Connect6).
    win_length: usize,
    /// Connect6: two stones a turn after the first.
    two_per_turn: bool,
    choice: Option<ChoiceRule>,
}

impl NaiveRules {
    fn new(name: &str, size: i32) -> NaiveRules {
        let mut move_three_axis_bar = Vec::new();
        // The unrated presets differ only in lifting the move-3 rule.
        let (free, base) = match name.strip_prefix("free-") {
            Some(base @ ("poof-pente" | "boat-pente" | "o-pente")) => (true, base),
            _ => (false, name),
        };
        let poof = base == "poof-pente" || base == "o-pente";
        let boat = base == "boat-pente" || base == "o-pente";
        let choice = match base {
            "d-pente" | "dk-pente" => Some(ChoiceRule::D),
            "swap2-pente" | "swap2-keryo" => Some(ChoiceRule::Swap2),
            _ => None,
        };
        let (first_move_on_centre, mut move_three_distance, capture_runs, capture_win, exactly_five) = match base {
            "d-pente" | "swap2-pente" => (false, None, vec![2], Some(10), false),
            "dk-pente" | "swap2-keryo" => (false, None, vec![2, 3], Some(15), false),
            "connect6" => (true, None, vec![], None, false),
            "pente" => (true, Some(3), vec![2], Some(10), false),
            "free-pente" => (true, None, vec![2], Some(10), false),
            "keryo" => (true, Some(3), vec![2, 3], Some(15), false),
            "free-keryo" => (true, None, vec![2, 3], Some(15), false),
            "o-pente" => (true, Some(3), vec![2, 3], Some(15), false),
            "poof-pente" | "boat-pente" => (true, Some(3), vec![2], Some(10), false),
            "g-pente" => {
                move_three_axis_bar = vec![3, 4];
                (true, Some(3), vec![2], Some(10), false)
            }
            "gomoku" => (false, None, vec![], None, false),
            "gomoku-exact" => (false, None, vec![], None, true),
            other => panic!("no naive rules for {other}"),
        };
        if free {
            move_three_distance = None;
        }
        NaiveRules {
            size,
            first_move_on_centre,
            move_three_distance,
            move_three_axis_bar,
            capture_runs,
            capture_win,
            exactly_five,
            poof,
            boat,
            win_length: if base == "connect6" { 6 } else { 5 },
            two_per_turn: base == "connect6",
            choice,
        }
    }
}

#[derive(Debug, Clone)]
struct Naive {
    rules: NaiveRules,
    /// `board[y][x]`, row 0 at the bottom.
    board: Vec<Vec<Option<Stone>>>,
    /// Stones captured by each player.
    captured: [usize; 2],
    to_move: Stone,
    moves_played: usize,
    result: Option<(Option<Stone>, End)>,
    /// Who holds White (1 or 2) once the colours are chosen; `Some(1)`
    /// from the start without a colour choice.
    white_holder: Option<u8>,
    /// Swap2: P2 passed the choice to P1.
    passed: bool,
}

const EIGHT: [(i32, i32); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)];
const FOUR: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

impl Naive {
    fn new(rules: NaiveRules) -> Naive {
        let n = rules.size as usize;
        let has_choice = rules.choice.is_some();
        Naive {
            rules,
            board: vec![vec![None; n]; n],
            captured: [0, 0],
            to_move: Stone::First,
            moves_played: 0,
            result: None,
            white_holder: if has_choice { None } else { Some(1) },
            passed: false,
        }
    }

    /// The colour of the stone placed as number `k` (from 1).
    fn colour_of_stone(&self, k: usize) -> Stone {
        let white = if self.rules.two_per_turn { (k / 2).is_multiple_of(2) } else { !k.is_multiple_of(2) };
        if white { Stone::First } else { Stone::Second }
    }

    /// The choices open now, and who makes them (1 or 2).
    fn pending(&self) -> Option<(u8, Vec<(i32, i32)>)> {
        if self.result.is_some() || self.white_holder.is_some() {
            return None;
        }
        match (self.rules.choice?, self.moves_played, self.passed) {
            (ChoiceRule::D, 4, _) => Some((2, vec![SWAP, STAY])),
            (ChoiceRule::Swap2, 3, false) => Some((2, vec![SWAP, STAY, PASS])),
            (ChoiceRule::Swap2, 5, true) => Some((1, vec![SWAP, STAY])),
            _ => None,
        }
    }

    /// The player (1 or 2) who acts next.
    fn actor(&self) -> u8 {
        if let Some((chooser, _)) = self.pending() {
            return chooser;
        }
        match self.white_holder {
            Some(holder) if self.to_move == Stone::First => holder,
            Some(holder) => 3 - holder,
            // Before the choice: P1 places, or P2 after a pass.
            None if self.passed => 2,
            None => 1,
        }
    }

    /// Makes a choice (it must be open).
    fn choose(&mut self, token: (i32, i32)) {
        let (chooser, open) = self.pending().expect("a choice is pending");
        assert!(open.contains(&token));
        match token {
            // The chooser takes the colour the other player held: White at a
            // first choice, Black after a pass.
            SWAP => self.white_holder = Some(if self.passed { 3 - chooser } else { chooser }),
            STAY => self.white_holder = Some(if self.passed { chooser } else { 3 - chooser }),
            _ => self.passed = true,
        }
    }

    fn on_board(&self, x: i32, y: i32) -> bool {
        x >= 0 && y >= 0 && x < self.rules.size && y < self.rules.size
    }

    fn get(&self, x: i32, y: i32) -> Option<Stone> {
        if self.on_board(x, y) { self.board[y as usize][x as usize] } else { None }
    }

    fn legality(&self, x: i32, y: i32) -> Result<(), Refusal> {
        if self.result.is_some() {
            return Err(Refusal::Finished);
        }
        let open = self.pending().map(|(_, open)| open);
        if x == 25 && (0..3).contains(&y) {
            return if open.is_some_and(|open| open.contains(&(x, y))) { Ok(()) } else { Err(Refusal::NoSuchChoice) };
        }
        if open.is_some() {
            return Err(Refusal::MustChoose);
        }
        if !self.on_board(x, y) {
            return Err(Refusal::OffBoard);
        }
        if self.get(x, y).is_some() {
            return Err(Refusal::Taken);
        }
        let centre = self.rules.size / 2;
        if self.rules.first_move_on_centre && self.moves_played == 0 && (x != centre || y != centre) {
            return Err(Refusal::Opening);
        }
        if let Some(min) = self.rules.move_three_distance {
            let distance = (x - centre).abs().max((y - centre).abs());
            if self.moves_played == 2 && distance < min {
                return Err(Refusal::Opening);
            }
        }
        let (dx, dy) = ((x - centre).abs(), (y - centre).abs());
        let axis = if dx == 0 {
            dy
        } else if dy == 0 {
            dx
        } else {
            0
        };
        if self.moves_played == 2 && self.rules.move_three_axis_bar.contains(&axis) {
            return Err(Refusal::Opening);
        }
        Ok(())
    }

    /// All legal moves, bottom row first, left to right.
    fn legal_moves(&self) -> Vec<(i32, i32)> {
        if let Some((_, open)) = self.pending() {
            return open;
        }
        let mut out = Vec::new();
        for y in 0..self.rules.size {
            for x in 0..self.rules.size {
                if self.legality(x, y).is_ok() {
                    out.push((x, y));
                }
            }
        }
        out
    }

    /// Places a stone (the move must be legal); returns the stones captured.
    fn play(&mut self, x: i32, y: i32) -> usize {
        assert_eq!(self.legality(x, y), Ok(()), "the naive side was asked to play an illegal move");
        if x == 25 {
            self.choose((x, y));
            return 0;
        }
        let me = self.to_move;
        let them = me.other();
        self.board[y as usize][x as usize] = Some(me);

        // Poofs are read off the board before this move's captures go.
        let mut partners: Vec<(i32, i32)> = Vec::new();
        if self.rules.poof {
            for (dx, dy) in EIGHT {
                // The placed stone at the end of its own run of 1 or 2 (2 only
                // where triples are captured), flanked by the opponent.
                let behind = (1..).take_while(|&k| self.get(x - k * dx, y - k * dy) == Some(me)).count() as i32;
                let run_ok = behind == 1 || (behind == 2 && self.rules.capture_runs.contains(&3));
                if run_ok
                    && self.get(x + dx, y + dy) == Some(them)
                    && self.get(x - (behind + 1) * dx, y - (behind + 1) * dy) == Some(them)
                {
                    partners.extend((1..=behind).map(|k| (x - k * dx, y - k * dy)));
                }
            }
            if self.rules.capture_runs.contains(&3) {
                // The placed stone in the middle of its own flanked triple.
                for (dx, dy) in FOUR {
                    if self.get(x + dx, y + dy) == Some(me)
                        && self.get(x - dx, y - dy) == Some(me)
                        && self.get(x + 2 * dx, y + 2 * dy) == Some(them)
                        && self.get(x - 2 * dx, y - 2 * dy) == Some(them)
                    {
                        partners.extend([(x + dx, y + dy), (x - dx, y - dy)]);
                    }
                }
            }
        }
        let mut taken = 0;
        for (dx, dy) in EIGHT {
            let mut run = 0;
            while self.get(x + (run + 1) * dx, y + (run + 1) * dy) == Some(them) {
                run += 1;
            }
            let beyond = self.get(x + (run + 1) * dx, y + (run + 1) * dy);
            if self.rules.capture_runs.contains(&(run as usize)) && beyond == Some(me) {
                for k in 1..=run {
                    self.board[(y + k * dy) as usize][(x + k * dx) as usize] = None;
                }
                taken += run as usize;
            }
        }
        self.captured[me.slot()] += taken;
        let poofed = !partners.is_empty();
        if poofed {
            for &(px, py) in partners.iter().chain(&[(x, y)]) {
                self.board[py as usize][px as usize] = None;
            }
            self.captured[them.slot()] += partners.len() + 1;
        }

        let mut line = false;
        for (dx, dy) in FOUR {
            let mut count = 1;
            let mut k = 1;
            while self.get(x + k * dx, y + k * dy) == Some(me) {
                count += 1;
                k += 1;
            }
            k = 1;
            while self.get(x - k * dx, y - k * dy) == Some(me) {
                count += 1;
                k += 1;
            }
            if if self.rules.exactly_five { count == 5 } else { count >= self.rules.win_length } {
                line = true;
            }
        }
        let full = self.board.iter().all(|row| row.iter().all(Option::is_some));
        let [first, second] = self.captured;
        if self.rules.boat {
            // pente.org's BoatPenteState.isGameOver, read literally: whole-board scans.
            self.result = if !self.fives(them).is_empty() {
                Some((Some(them), End::Five))
            } else if self.fives(me).iter().any(|five| !five.iter().any(|&(x, y)| self.capturable(x, y, me))) {
                Some((Some(me), End::Five))
            } else if self.rules.poof && first != second && first.max(second) >= self.rules.capture_win.unwrap() {
                // O-Pente: the capture win as in Poof-Pente, by a lead.
                Some((Some(if first > second { Stone::First } else { Stone::Second }), End::Captures))
            } else if !self.rules.poof && self.rules.capture_win.is_some_and(|win| self.captured[me.slot()] >= win) {
                Some((Some(me), End::Captures))
            } else if full {
                Some((None, End::Full))
            } else {
                None
            };
        } else if self.rules.poof
            && first != second
            && first.max(second) >= self.rules.capture_win.unwrap_or(usize::MAX)
        {
            let winner = if first > second { Stone::First } else { Stone::Second };
            self.result = Some((Some(winner), End::Captures));
        } else if self.rules.poof && poofed {
            if full {
                self.result = Some((None, End::Full));
            }
        } else if line {
            self.result = Some((Some(me), End::Five));
        } else if !self.rules.poof && self.rules.capture_win.is_some_and(|win| self.captured[me.slot()] >= win) {
            self.result = Some((Some(me), End::Captures));
        } else if full {
            self.result = Some((None, End::Full));
        }
        self.moves_played += 1;
        self.to_move = self.colour_of_stone(self.moves_played + 1);
        taken
    }
}

impl Naive {
    /// Every maximal run of five or more stones of `color` on the board.
    fn fives(&self, color: Stone) -> Vec<Vec<(i32, i32)>> {
        let mut out = Vec::new();
        for y in 0..self.rules.size {
            for x in 0..self.rules.size {
                for (dx, dy) in FOUR {
                    // Runs start where the previous point is not `color`.
                    if self.get(x, y) != Some(color) || self.get(x - dx, y - dy) == Some(color) {
                        continue;
                    }
                    let run: Vec<(i32, i32)> = (0..)
                        .map(|k| (x + k * dx, y + k * dy))
                        .take_while(|&(a, b)| self.get(a, b) == Some(color))
                        .collect();
                    if run.len() >= 5 {
                        out.push(run);
                    }
                }
            }
        }
        out
    }

    /// Whether the other player's next stone could capture a run of a
    /// length the rules capture (a pair; a triple too in O-Pente) holding
    /// the stone of `color` on `(x, y)`: the run is all `color`, one flank
    /// holds the other player's stone and the other flank is empty.
    fn capturable(&self, x: i32, y: i32, color: Stone) -> bool {
        let other = Some(color.other());
        let empty = |(a, b): (i32, i32)| self.on_board(a, b) && self.get(a, b).is_none();
        EIGHT.iter().any(|&(dx, dy)| {
            self.rules.capture_runs.iter().any(|&length| {
                let length = length as i32;
                (0..length).any(|offset| {
                    let at = |k: i32| (x + (k - offset) * dx, y + (k - offset) * dy);
                    let (before, after) = (at(-1), at(length));
                    (0..length).all(|k| self.get(at(k).0, at(k).1) == Some(color))
                        && ((self.get(before.0, before.1) == other && empty(after))
                            || (empty(before) && self.get(after.0, after.1) == other))
                })
            })
        })
    }

    /// The longest run of one colour through the stone on `(x, y)`.
    fn longest_line_through(&self, x: i32, y: i32) -> usize {
        let Some(color) = self.get(x, y) else { return 0 };
        let mut longest = 0;
        for (dx, dy) in FOUR {
            let mut count = 1;
            for sign in [1, -1] {
                let mut k = 1;
                while self.get(x + sign * k * dx, y + sign * k * dy) == Some(color) {
                    count += 1;
                    k += 1;
                }
            }
            longest = longest.max(count);
        }
        longest
    }
}

// ---------------------------------------------------------------------------
// Comparison

fn stone_of(color: Color) -> Stone {
    match color {
        Color::White => Stone::First,
        Color::Black => Stone::Second,
    }
}

fn end_of(reason: EndReason) -> End {
    match reason {
        EndReason::Five => End::Five,
        EndReason::Captures => End::Captures,
        EndReason::Full => End::Full,
    }
}

fn refusal_of(error: IllegalMove) -> Refusal {
    match error {
        IllegalMove::GameOver { .. } => Refusal::Finished,
        IllegalMove::OffBoard { .. } => Refusal::OffBoard,
        IllegalMove::Occupied { .. } => Refusal::Taken,
        IllegalMove::Opening { .. } => Refusal::Opening,
        IllegalMove::ChoicePending { .. } => Refusal::MustChoose,
        IllegalMove::NoSuchChoice { .. } => Refusal::NoSuchChoice,
    }
}

fn point(x: i32, y: i32) -> Point {
    match (x, y) {
        SWAP => Point::SWAP,
        STAY => Point::STAY,
        PASS => Point::PASS,
        _ => Point::new(u8::try_from(x).expect("x fits"), u8::try_from(y).expect("y fits")),
    }
}

/// Asserts that both sides describe the same position; returns the legal moves.
fn assert_same(core: &Position, naive: &Naive, context: &dyn Fn() -> String) -> Vec<(i32, i32)> {
    let n = naive.rules.size;
    for y in 0..n {
        for x in 0..n {
            let ours = core.stone_at(point(x, y)).map(stone_of);
            assert_eq!(ours, naive.get(x, y), "stone at {} differs; {}", point(x, y), context());
        }
    }
    assert_eq!(usize::from(core.captured(Color::White)), naive.captured[0], "White's captures; {}", context());
    assert_eq!(usize::from(core.captured(Color::Black)), naive.captured[1], "Black's captures; {}", context());
    assert_eq!(stone_of(core.to_move()), naive.to_move, "side to move; {}", context());
    let actor = match core.actor() {
        Seat::First => 1,
        Seat::Second => 2,
    };
    assert_eq!(actor, naive.actor(), "player to act; {}", context());
    assert_eq!(core.choice_pending().is_some(), naive.pending().is_some(), "pending choice; {}", context());
    assert_eq!(core.ply() as usize, naive.moves_played, "ply; {}", context());
    let outcome = core.outcome().map(|o| (o.winner.map(stone_of), end_of(o.reason)));
    assert_eq!(outcome, naive.result, "outcome; {}", context());
    let empty = naive.board.iter().flatten().filter(|s| s.is_none()).count();
    assert_eq!(core.empty_count(), empty, "empty points; {}", context());
    let legal: Vec<(i32, i32)> = core.legal_moves().map(|p| (i32::from(p.x()), i32::from(p.y()))).collect();
    let expected = naive.legal_moves();
    assert_eq!(legal, expected, "legal moves; {}", context());
    expected
}

/// Asserts that both sides accept or refuse `(x, y)` alike, and that a refused
/// checked move leaves the crate's position unchanged.
fn assert_same_verdict(core: &Position, naive: &Naive, x: i32, y: i32, context: &dyn Fn() -> String) {
    let expected = naive.legality(x, y);
    let p = point(x, y);
    let verdict = core.check(p).map_err(refusal_of);
    assert_eq!(verdict, expected, "verdict on {p}; {}", context());
    assert_eq!(core.is_legal(p), expected.is_ok());
    if expected.is_err() {
        let mut copy = core.clone();
        assert!(copy.play(p).is_err());
        assert!(copy == *core && copy.hash() == core.hash(), "a refused move changed the position; {}", context());
    }
}

// ---------------------------------------------------------------------------
// Random games

#[derive(Debug, Default)]
struct Tally {
    games: usize,
    plies: usize,
    capture_moves: usize,
    multi_capture_moves: usize,
    triples: usize,
    /// Moves that made six or more in a row.
    overlines: usize,
    /// Moves whose stone was poofed (Poof-Pente).
    poofs: usize,
    /// Fives that did not win at once (Boat-Pente).
    waiting_fives: usize,
    /// Colour choices made (D-Pente, Swap2).
    choices: usize,
    /// Choices after which the first player holds Black.
    swapped: usize,
    /// Moves that made five and did not win (Connect6).
    fives_not_won: usize,
    endings: BTreeMap<String, usize>,
}

/// A legal move for the naive side: mostly next to recent stones or flanking
/// an opponent pair (where captures happen), sometimes anywhere.
fn choose(naive: &Naive, history: &[(i32, i32)], legal: &[(i32, i32)], rng: &mut StdRng) -> (i32, i32) {
    let roll = rng.random_range(0..100);
    if !history.is_empty() && roll < 30 {
        // Hunt: find an opponent stone with a neighbour of the same colour and
        // play at either end of the pair (or of a longer run).
        let them = Some(naive.to_move.other());
        for _ in 0..12 {
            let (x, y) = history[rng.random_range(0..history.len())];
            if naive.get(x, y) != them {
                continue;
            }
            let (dx, dy) = EIGHT[rng.random_range(0..8)];
            if naive.get(x + dx, y + dy) != them {
                continue;
            }
            let mut end = 2;
            while naive.get(x + end * dx, y + end * dy) == them {
                end += 1;
            }
            let candidates = [(x + end * dx, y + end * dy), (x - dx, y - dy)];
            let (cx, cy) = candidates[rng.random_range(0..2)];
            if naive.legality(cx, cy).is_ok() {
                return (cx, cy);
            }
        }
    }
    if !history.is_empty() && roll < 90 {
        // Near one of the recent stones, within distance 1 or 2.
        let reach = if rng.random_range(0..2) == 0 { 1 } else { 2 };
        for _ in 0..12 {
            let (x, y) = history[rng.random_range(history.len().saturating_sub(8)..history.len())];
            let (cx, cy) = (x + rng.random_range(-reach..=reach), y + rng.random_range(-reach..=reach));
            if naive.legality(cx, cy).is_ok() {
                return (cx, cy);
            }
        }
    }
    legal[rng.random_range(0..legal.len())]
}

/// Plays one random game in lockstep; returns nothing, panics on disagreement.
fn differential_game(variant: Variant, size: u8, seed: u64, tally: &mut Tally) {
    let rules = Rules::new(variant, size).expect("valid rules");
    let mut core = Position::new(rules);
    let mut naive = Naive::new(NaiveRules::new(variant.name(), i32::from(size)));
    let mut rng = StdRng::seed_from_u64(seed);
    let mut history: Vec<(i32, i32)> = Vec::new();
    let n = i32::from(size);
    let limit = n + 3;
    loop {
        let context = || format!("{rules} seed {seed} after {history:?}\n{core:?}");
        let legal = assert_same(&core, &naive, &context);
        // Random tries, on and a little off the board, must get the same verdict.
        for _ in 0..3 {
            let (x, y) = (rng.random_range(0..limit.min(25)), rng.random_range(0..limit.min(25)));
            assert_same_verdict(&core, &naive, x, y, &context);
        }
        if let Some(&(x, y)) = history.last() {
            assert_same_verdict(&core, &naive, x, y, &context);
        }
        for (x, y) in [SWAP, STAY, PASS] {
            assert_same_verdict(&core, &naive, x, y, &context);
        }
        if naive.result.is_some() {
            let key = format!("{:?}", naive.result.map(|(winner, end)| (winner.is_some(), end)).unwrap());
            *tally.endings.entry(key).or_default() += 1;
            break;
        }
        // The crate's own random move must be legal on the naive side.
        let theirs = core.random_legal_move(&mut rng).expect("an unfinished game has a move");
        assert_eq!(naive.legality(i32::from(theirs.x()), i32::from(theirs.y())), Ok(()), "{}", context());

        if naive.pending().is_some() {
            let (x, y) = legal[rng.random_range(0..legal.len())];
            naive.play(x, y);
            if let Err(e) = core.play(point(x, y)) {
                panic!("{e}; {rules} seed {seed} after {history:?}");
            }
            assert_eq!(core.hash(), core.compute_hash());
            tally.choices += 1;
            continue;
        }
        let (x, y) = choose(&naive, &history, &legal, &mut rng);
        let credited_before = naive.captured[naive.to_move.other().slot()];
        let taken = naive.play(x, y);
        if naive.captured[naive.to_move.slot()] > credited_before {
            tally.poofs += 1;
        }
        if naive.result.is_none() && naive.longest_line_through(x, y) >= 5 {
            tally.waiting_fives += 1;
        }
        if naive.result.is_none() && naive.longest_line_through(x, y) == 5 {
            tally.fives_not_won += 1;
        }
        let reported = match core.play(point(x, y)) {
            Ok(reported) => reported,
            Err(e) => panic!("{e}; {rules} seed {seed} after {history:?}\n{core:?}"),
        };
        assert_eq!(
            usize::from(reported),
            taken,
            "stones captured by {}; {rules} seed {seed} after {history:?}",
            point(x, y)
        );
        assert_eq!(core.hash(), core.compute_hash());
        history.push((x, y));
        tally.plies += 1;
        if taken > 0 {
            tally.capture_moves += 1;
        }
        if taken >= 4 {
            tally.multi_capture_moves += 1;
        }
        if taken % 2 == 1 {
            tally.triples += 1;
        }
        if naive.longest_line_through(x, y) >= 6 {
            tally.overlines += 1;
        }
    }
    if core.swapped() {
        tally.swapped += 1;
    }
    tally.games += 1;
}

/// Games per board size for one variant: thousands in all.
const GAMES: [(u8, u64); 4] = [(7, 400), (9, 240), (13, 90), (19, 36)];

fn run_variant(variant: Variant) -> Tally {
    let mut tally = Tally::default();
    for (size, games) in GAMES {
        for game in 0..games {
            let seed = (variant as u64) << 48 ^ u64::from(size) << 32 ^ game;
            differential_game(variant, size, seed, &mut tally);
        }
    }
    eprintln!("{variant}: {tally:?}");
    tally
}

fn ending(tally: &Tally, winner: bool, end: End) -> usize {
    tally.endings.get(&format!("{:?}", (winner, end))).copied().unwrap_or(0)
}

#[test]
fn pente_agrees_with_the_naive_rules() {
    let tally = run_variant(Variant::Pente);
    assert!(tally.capture_moves > 500, "the games must exercise captures: {tally:?}");
    assert!(tally.multi_capture_moves > 0, "{tally:?}");
    assert_eq!(tally.triples, 0, "Pente never takes three");
    assert!(ending(&tally, true, End::Five) > 0 && ending(&tally, true, End::Captures) > 0, "{tally:?}");
}

#[test]
fn free_pente_agrees_with_the_naive_rules() {
    let tally = run_variant(Variant::FreePente);
    assert!(tally.capture_moves > 500, "{tally:?}");
    assert!(ending(&tally, true, End::Five) > 0 && ending(&tally, true, End::Captures) > 0, "{tally:?}");
}

#[test]
fn keryo_agrees_with_the_naive_rules() {
    let tally = run_variant(Variant::Keryo);
    assert!(tally.capture_moves > 500, "{tally:?}");
    assert!(tally.triples > 20, "Keryo games must take triples: {tally:?}");
    assert!(ending(&tally, true, End::Five) > 0 && ending(&tally, true, End::Captures) > 0, "{tally:?}");
}

#[test]
fn free_keryo_agrees_with_the_naive_rules() {
    let tally = run_variant(Variant::FreeKeryo);
    assert!(tally.capture_moves > 500 && tally.triples > 20, "{tally:?}");
    assert!(ending(&tally, true, End::Five) > 0 && ending(&tally, true, End::Captures) > 0, "{tally:?}");
}

#[test]
fn g_pente_agrees_with_the_naive_rules() {
    let tally = run_variant(Variant::GPente);
    assert!(tally.capture_moves > 500, "{tally:?}");
    assert_eq!(tally.triples, 0, "G-Pente never takes three");
    assert!(ending(&tally, true, End::Five) > 0 && ending(&tally, true, End::Captures) > 0, "{tally:?}");
}

#[test]
fn poof_pente_agrees_with_the_naive_rules() {
    let tally = run_variant(Variant::PoofPente);
    assert!(tally.capture_moves > 500 && tally.poofs > 100, "{tally:?}");
    assert!(ending(&tally, true, End::Five) > 0 && ending(&tally, true, End::Captures) > 0, "{tally:?}");
}

#[test]
fn boat_pente_agrees_with_the_naive_rules() {
    let tally = run_variant(Variant::BoatPente);
    assert!(tally.capture_moves > 500, "{tally:?}");
    assert!(tally.waiting_fives > 50, "capturable fives must occur: {tally:?}");
    assert!(ending(&tally, true, End::Five) > 0 && ending(&tally, true, End::Captures) > 0, "{tally:?}");
}

#[test]
fn o_pente_agrees_with_the_naive_rules() {
    let tally = run_variant(Variant::OPente);
    assert!(tally.capture_moves > 500 && tally.triples > 20 && tally.poofs > 100, "{tally:?}");
    assert!(tally.waiting_fives > 50, "capturable fives must occur: {tally:?}");
    assert!(ending(&tally, true, End::Five) > 0 && ending(&tally, true, End::Captures) > 0, "{tally:?}");
}

#[test]
fn the_unrated_poof_boat_and_o_pente_agree_with_the_naive_rules() {
    for variant in [Variant::FreePoofPente, Variant::FreeBoatPente, Variant::FreeOPente] {
        let tally = run_variant(variant);
        assert!(tally.capture_moves > 500, "{variant}: {tally:?}");
        assert!(ending(&tally, true, End::Five) > 0 && ending(&tally, true, End::Captures) > 0, "{variant}: {tally:?}");
    }
}

#[test]
fn gomoku_agrees_with_the_naive_rules() {
    let tally = run_variant(Variant::Gomoku);
    assert_eq!(tally.capture_moves, 0);
    assert!(ending(&tally, true, End::Five) > 0, "{tally:?}");
}

#[test]
fn gomoku_exact_agrees_with_the_naive_rules() {
    let tally = run_variant(Variant::GomokuExact);
    assert_eq!(tally.capture_moves, 0);
    assert!(ending(&tally, true, End::Five) > 0 && ending(&tally, false, End::Full) > 0, "{tally:?}");
    assert!(tally.overlines > 0, "overlines that do not win must occur: {tally:?}");
}

#[test]
fn d_pente_and_dk_pente_agree_with_the_naive_rules() {
    for variant in [Variant::DPente, Variant::DkPente] {
        let tally = run_variant(variant);
        assert!(tally.capture_moves > 500, "{variant}: {tally:?}");
        assert_eq!(tally.choices, tally.games, "one choice a game: {variant}: {tally:?}");
        assert!(tally.swapped > 100 && tally.swapped < tally.games - 100, "{variant}: {tally:?}");
        assert!(ending(&tally, true, End::Five) > 0 && ending(&tally, true, End::Captures) > 0, "{variant}: {tally:?}");
        assert_eq!(tally.triples > 0, variant == Variant::DkPente, "{variant}: {tally:?}");
    }
}

#[test]
fn swap2_agrees_with_the_naive_rules() {
    for variant in [Variant::Swap2Pente, Variant::Swap2Keryo] {
        let tally = run_variant(variant);
        assert!(tally.capture_moves > 500, "{variant}: {tally:?}");
        // A third of first choices pass, and each pass brings a second choice.
        assert!(tally.choices > tally.games + 200, "passes must occur: {variant}: {tally:?}");
        assert!(tally.swapped > 100 && tally.swapped < tally.games - 100, "{variant}: {tally:?}");
        assert!(ending(&tally, true, End::Five) > 0 && ending(&tally, true, End::Captures) > 0, "{variant}: {tally:?}");
    }
}

#[test]
fn connect6_agrees_with_the_naive_rules() {
    let tally = run_variant(Variant::Connect6);
    assert_eq!(tally.capture_moves, 0);
    assert!(ending(&tally, true, End::Five) > 0 && ending(&tally, false, End::Full) > 0, "{tally:?}");
    assert!(tally.fives_not_won > 50, "fives that do not win must occur: {tally:?}");
}
