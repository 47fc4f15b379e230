//! Incremental threat detection. For every empty point and each of the four
//! lines through it, a few bits say what a stone of either colour there
//! would make along that line: a five, a four, an open three, a capture, a
//! capture threat. A move changes the bits of the points within five cells
//! of the stones it placed or removed, along their lines, and nothing else:
//! no full-board rescans.

use pente_core::{Color, LineWin, Point, Position, Rules};

/// One bit per board point (dense index), enough for 19x19.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Bits([u64; 6]);

impl Bits {
    #[inline]
    pub(crate) fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    #[inline]
    fn remove(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }

    #[inline]
    pub(crate) fn contains(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    #[inline]
    pub(crate) fn union(mut self, other: Bits) -> Bits {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a |= b;
        }
        self
    }

    #[inline]
    pub(crate) fn minus(mut self, other: Bits) -> Bits {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a &= !b;
        }
        self
    }

    /// Dense indices in increasing order.
    pub(crate) fn iter(self) -> impl Iterator<Item = usize> {
        self.0.into_iter().enumerate().flat_map(|(word, mut bits)| {
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let i = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    word * 64 + i
                })
            })
        })
    }
}

/// What a stone on an empty point would make along one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A winning line.
    Five = 0,
    /// A new point that would then complete a winning line.
    Four = 1,
    /// An open three: `_ x x x _` with at most one gap inside.
    Three = 2,
    /// A capture.
    Capture = 3,
    /// A capture threat: a flanked pair (or Keryo triple) with the far end empty.
    Setup = 4,
}

impl Kind {
    /// Every kind, in the order of their values.
    pub const ALL: [Kind; KINDS] = [Kind::Five, Kind::Four, Kind::Three, Kind::Capture, Kind::Setup];
}

const KINDS: usize = 5;
const LINES: [(i8, i8); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];
/// How far along a line a point's bits look: a four beside an overline check.
const REACH: i32 = 5;
const WINDOW: usize = 2 * REACH as usize + 1;
const CENTRE: usize = REACH as usize;

const EMPTY: u8 = 0;
const EDGE: u8 = 3;

#[inline]
fn code(color: Color) -> u8 {
    match color {
        Color::White => 1,
        Color::Black => 2,
    }
}

/// The threat bits of every empty point: `[colour][kind][line]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Threats {
    bits: [[[Bits; 4]; KINDS]; 2],
}

/// A position with its threat bits kept up to date.
#[derive(Debug, Clone)]
pub(crate) struct Board {
    pub(crate) position: Position,
    pub(crate) threats: Threats,
}

impl Board {
    pub(crate) fn new(position: Position) -> Board {
        let mut board = Board { position, threats: Threats { bits: [[[Bits::default(); 4]; KINDS]; 2] } };
        let size = board.position.rules().size();
        // Every bit needs a stone within reach on its line, so rebuilding
        // around each stone covers all of them.
        for y in 0..size {
            for x in 0..size {
                let p = Point::new(x, y);
                if board.position.stone_at(p).is_some() {
                    board.refresh_around(p);
                }
            }
        }
        board
    }

    #[inline]
    pub(crate) fn rules(&self) -> &Rules {
        self.position.rules()
    }

    #[inline]
    pub(crate) fn to_move(&self) -> Color {
        self.position.to_move()
    }

    #[inline]
    pub(crate) fn index(&self, p: Point) -> usize {
        p.dense_index(self.rules().size())
    }

    #[inline]
    pub(crate) fn point(&self, i: usize) -> Point {
        Point::from_dense_index(i, self.rules().size()).expect("a dense index on the board")
    }

    /// Points where `color` would make `kind` along some line.
    #[inline]
    pub(crate) fn points(&self, kind: Kind, color: Color) -> Bits {
        let lines = &self.threats.bits[color.index()][kind as usize];
        lines[0].union(lines[1]).union(lines[2]).union(lines[3])
    }

    /// On how many lines `color` would make `kind` at dense index `i`.
    #[inline]
    pub(crate) fn lines(&self, kind: Kind, color: Color, i: usize) -> u8 {
        self.threats.bits[color.index()][kind as usize].iter().map(|line| u8::from(line.contains(i))).sum()
    }

    /// Points where a stone of `color` wins at once: a five, or a capture
    /// that reaches the winning count.
    pub(crate) fn wins(&self, color: Color) -> Bits {
        let mut wins = self.points(Kind::Five, color);
        if let Some(needed) = self.rules().capture_win() {
            let have = self.position.captured(color);
            for i in self.points(Kind::Capture, color).iter() {
                if have + self.position.capture_gain(self.point(i), color) >= needed {
                    wins.insert(i);
                }
            }
        }
        wins
    }

    /// Whether `color` has a move that wins at once.
    #[inline]
    pub(crate) fn has_win(&self, color: Color) -> bool {
        !self.points(Kind::Five, color).is_empty() || self.capture_wins(color)
    }

    fn capture_wins(&self, color: Color) -> bool {
        let Some(needed) = self.rules().capture_win() else { return false };
        let have = self.position.captured(color);
        self.points(Kind::Capture, color)
            .iter()
            .any(|i| have + self.position.capture_gain(self.point(i), color) >= needed)
    }

    /// Plays `p` (legal, game not over) and refreshes the bits around every
    /// stone placed or captured.
    pub(crate) fn play(&mut self, p: Point) {
        let theirs = self.to_move().opponent();
        // The only cells a move can empty are the up to three beyond it in
        // each direction that hold the opponent's stones.
        let mut flanked = [None; 24];
        let mut n = 0;
        if self.rules().has_captures() {
            for (dx, dy) in LINES.iter().flat_map(|&(dx, dy)| [(dx, dy), (-dx, -dy)]) {
                for k in 1..=3 {
                    match self.offset(p, i32::from(dx) * k, i32::from(dy) * k) {
                        Some(q) if self.position.stone_at(q) == Some(theirs) => {
                            flanked[n] = Some(q);
                            n += 1;
                        }
                        _ => break,
                    }
                }
            }
        }
        let taken = self.position.play_unchecked(p);
        self.refresh_around(p);
        if taken > 0 {
            for q in flanked[..n].iter().flatten() {
                if self.position.stone_at(*q).is_none() {
                    self.refresh_around(*q);
                }
            }
        }
    }

    #[inline]
    fn offset(&self, p: Point, dx: i32, dy: i32) -> Option<Point> {
        let size = i32::from(self.rules().size());
        let (x, y) = (i32::from(p.x()) + dx, i32::from(p.y()) + dy);
        ((0..size).contains(&x) && (0..size).contains(&y)).then(|| Point::new(x as u8, y as u8))
    }

    #[inline]
    fn cell(&self, x: i32, y: i32) -> u8 {
        let size = i32::from(self.rules().size());
        if !(0..size).contains(&x) || !(0..size).contains(&y) {
            return EDGE;
        }
        self.position.stone_at(Point::new(x as u8, y as u8)).map_or(EMPTY, code)
    }

    /// Recomputes the bits of the points within reach of `changed` along its
    /// four lines.
    fn refresh_around(&mut self, changed: Point) {
        let (cx, cy) = (i32::from(changed.x()), i32::from(changed.y()));
        let size = self.rules().size();
        let rules = *self.rules();
        for (line, &(dx, dy)) in LINES.iter().enumerate() {
            let (dx, dy) = (i32::from(dx), i32::from(dy));
            // One strip of cells covers the windows of all points in reach.
            let mut strip = [EDGE; 2 * WINDOW - 1];
            for (k, cell) in strip.iter_mut().enumerate() {
                let o = k as i32 - 2 * REACH;
                *cell = self.cell(cx + o * dx, cy + o * dy);
            }
            for o in -REACH..=REACH {
                let centre = (o + 2 * REACH) as usize;
                if strip[centre] == EDGE {
                    continue;
                }
                let q = Point::new((cx + o * dx) as u8, (cy + o * dy) as u8);
                let i = q.dense_index(size);
                let window: &[u8; WINDOW] =
                    strip[centre - CENTRE..=centre + CENTRE].try_into().expect("a window of the strip");
                for color in [pente_core::Color::White, pente_core::Color::Black] {
                    let kinds = if window[CENTRE] == EMPTY { line_kinds(window, code(color), &rules) } else { 0 };
                    for (kind, bits) in self.threats.bits[color.index()].iter_mut().enumerate() {
                        if kinds & (1 << kind) != 0 {
                            bits[line].insert(i);
                        } else {
                            bits[line].remove(i);
                        }
                    }
                }
            }
        }
    }
}

/// The run of `s` through the centre of `w` with the centre and `extra`
/// (an offset, or 0) filled; whether it wins under `rules`.
#[inline]
fn wins_with(w: &[u8; WINDOW], s: u8, extra: usize, rules: &Rules) -> bool {
    let own = |k: usize| k == CENTRE || k == extra || w[k] == s;
    let mut left = 0;
    while left < CENTRE && own(CENTRE - left - 1) {
        left += 1;
    }
    let mut right = 0;
    while right < CENTRE && own(CENTRE + right + 1) {
        right += 1;
    }
    let length = 1 + left + right;
    match rules.line_win() {
        LineWin::FiveOrMore => length >= 5,
        // A run that reaches the window's end is six or longer.
        LineWin::ExactlyFive => length == 5,
        // Connect6 is not for the solver (see `sound_for`).
        LineWin::SixOrMore => length >= 6,
    }
}

/// The kinds (bit per [`Kind`]) a stone of `s` on the empty centre of `w` makes.
fn line_kinds(w: &[u8; WINDOW], s: u8, rules: &Rules) -> u8 {
    let o = 3 - s;
    let mut kinds = 0;
    let near = &w[CENTRE - 4..=CENTRE + 4];
    let own = near.iter().filter(|&&c| c == s).count();
    if own >= 4 && wins_with(w, s, CENTRE, rules) {
        kinds |= 1 << Kind::Five as u8;
    }
    if own >= 3 {
        let four = (CENTRE - 4..=CENTRE + 4).any(|e| w[e] == EMPTY && e != CENTRE && wins_with(w, s, e, rules));
        if four {
            kinds |= 1 << Kind::Four as u8;
        }
    }
    if own >= 2 {
        // `_ a b c d _` with the centre among a..d: three stones and one gap.
        let three = (CENTRE - 4..=CENTRE - 1).any(|start| {
            let inside = &w[start + 1..=start + 4];
            w[start] == EMPTY
                && w[start + 5] == EMPTY
                && inside.iter().filter(|&&c| c == s).count() == 2
                && inside.iter().filter(|&&c| c == EMPTY).count() == 2
        });
        if three {
            kinds |= 1 << Kind::Three as u8;
        }
    }
    if rules.has_captures() {
        for sign in [1isize, -1] {
            let at = |k: isize| w[(CENTRE as isize + sign * k) as usize];
            if at(1) != o || at(2) != o {
                continue;
            }
            if rules.captures_run_of(2) {
                if at(3) == s {
                    kinds |= 1 << Kind::Capture as u8;
                } else if at(3) == EMPTY {
                    kinds |= 1 << Kind::Setup as u8;
                }
            }
            if rules.captures_run_of(3) && at(3) == o {
                if at(4) == s {
                    kinds |= 1 << Kind::Capture as u8;
                } else if at(4) == EMPTY {
                    kinds |= 1 << Kind::Setup as u8;
                }
            }
        }
    }
    kinds
}
