//! Input encoding: what the network sees of a position, as planes of
//! `size x size` floats. A crate of its own, apart from any network
//! framework, so that it can be tested, versioned and reproduced (in
//! PyTorch, through the Python package `crates/pente-py`) on its own.
//!
//! A network reads the encoding it was trained on, and its number of input
//! planes says which ([`Features::with_planes`]): version 1's 16 planes,
//! or version 2's, which add the threat solver's analysis. Both stay
//! readable, so older models load and play.

use pente_core::{Color, LineWin, Point, Position};
use pente_search::solver::{ThreatKind, ThreatMap};
use rayon::prelude::*;
use thiserror::Error;

/// An input encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Features {
    /// Stones, captures, the variant, legal moves and the last three moves.
    V1,
    /// Version 1 and, for each side, the points where a stone would make a
    /// five, a four, an open three, a capture or a capture threat.
    V2,
}

/// A features version this build does not encode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("features version {0} does not exist (known: {known})", known = known_versions())]
pub struct UnknownVersion(pub u32);

fn known_versions() -> String {
    Features::ALL.map(|f| f.version().to_string()).join(", ")
}

/// The encoding new networks read.
pub const LATEST: Features = Features::V2;

/// The plane that marks the legal moves (also the policy's mask), in every version.
pub const LEGAL_PLANE: usize = 11;

/// Planes of version 1, which every later version begins with.
const V1_PLANES: usize = 16;

/// Earlier moves shown as one-hot planes (the last one first).
const HISTORY: usize = 3;

impl Features {
    /// Every encoding, oldest first.
    pub const ALL: [Features; 2] = [Features::V1, Features::V2];

    /// The encoding of a version number (as `model.json` stores it).
    #[must_use]
    pub fn of_version(version: u32) -> Option<Features> {
        Features::ALL.into_iter().find(|f| f.version() == version)
    }

    /// The encoding of a version number a user gave.
    ///
    /// # Errors
    /// [`UnknownVersion`], which lists the versions there are.
    pub fn from_version(version: u32) -> Result<Features, UnknownVersion> {
        Features::of_version(version).ok_or(UnknownVersion(version))
    }

    /// The encoding a network with `planes` input planes reads.
    #[must_use]
    pub fn with_planes(planes: usize) -> Option<Features> {
        Features::ALL.into_iter().find(|f| f.planes() == planes)
    }

    /// Its version number.
    #[must_use]
    pub fn version(self) -> u32 {
        match self {
            Features::V1 => 1,
            Features::V2 => 2,
        }
    }

    /// Its number of planes.
    #[must_use]
    pub fn planes(self) -> usize {
        match self {
            Features::V1 => V1_PLANES,
            Features::V2 => V1_PLANES + 2 * ThreatKind::ALL.len(),
        }
    }

    /// Writes the planes of `position` for its side to move into `out`
    /// (`self.planes() * size * size` floats, plane-major, row-major from
    /// `A1`).
    ///
    /// Version 1: 0 own stones; 1 opponent stones; 2 on-board ones (the edge
    /// is where they stop); 3 White to move; 4, 5 own and opponent captured
    /// stones as a fraction of the capture-win threshold; 6, 7 own and
    /// opponent one capture from the capture win; 8 the variant captures; 9
    /// the capture threshold / 20; 10 only exactly five wins; 11 legal moves
    /// (shows the opening rule); 12 the opening rule restricts this move;
    /// 13-15 the last three moves.
    ///
    /// Version 2 adds 16-20, own five, four, open three, capture and capture
    /// threat points, and 21-25 the opponent's: the number of lines (1-4) on
    /// which a stone there would make it, from the threat solver's analysis
    /// (all zero where the solver does not read the variant).
    ///
    /// # Panics
    /// If `out` is not `self.planes() * size * size` long.
    pub fn encode(self, position: &Position, out: &mut [f32]) {
        let area = position.rules().area();
        assert_eq!(out.len(), self.planes() * area, "feature buffer size");
        encode_v1(position, &mut out[..V1_PLANES * area]);
        if self == Features::V2 {
            encode_threats(position, &mut out[V1_PLANES * area..]);
        }
    }
}

fn encode_v1(position: &Position, out: &mut [f32]) {
    let rules = position.rules();
    let size = rules.size();
    let area = rules.area();
    out.fill(0.0);
    let me = position.to_move();
    let plane = |k: usize| k * area..(k + 1) * area;
    let fill = |out: &mut [f32], k: usize, value: f32| out[plane(k)].fill(value);

    for y in 0..size {
        for x in 0..size {
            let p = Point::new(x, y);
            let i = p.dense_index(size);
            match position.stone_at(p) {
                Some(c) if c == me => out[i] = 1.0,
                Some(_) => out[area + i] = 1.0,
                None => {}
            }
        }
    }
    fill(out, 2, 1.0);
    fill(out, 3, if me == Color::White { 1.0 } else { 0.0 });
    if let Some(win) = rules.capture_win() {
        let win = f32::from(win);
        let mine = f32::from(position.captured(me));
        let theirs = f32::from(position.captured(me.opponent()));
        fill(out, 4, mine / win);
        fill(out, 5, theirs / win);
        // Captures come in pairs (or triples): "one capture away" is win - 2 or closer.
        fill(out, 6, if mine + 2.0 >= win { 1.0 } else { 0.0 });
        fill(out, 7, if theirs + 2.0 >= win { 1.0 } else { 0.0 });
        fill(out, 9, win / 20.0);
    }
    if rules.has_captures() {
        fill(out, 8, 1.0);
    }
    if rules.line_win() == LineWin::ExactlyFive {
        fill(out, 10, 1.0);
    }
    let mut legal = 0;
    // A colour choice (D-Pente, Swap2) has no point on the board.
    for p in position.legal_moves().filter(|p| !p.is_choice()) {
        out[LEGAL_PLANE * area + p.dense_index(size)] = 1.0;
        legal += 1;
    }
    if !position.is_over() && position.choice_pending().is_none() && legal < position.empty_count() {
        fill(out, 12, 1.0);
    }
    for (k, p) in position.recent_moves().take(HISTORY).enumerate() {
        out[(13 + k) * area + p.dense_index(size)] = 1.0;
    }
}

/// The threat planes of version 2: own kinds, then the opponent's.
fn encode_threats(position: &Position, out: &mut [f32]) {
    out.fill(0.0);
    let Some(map) = ThreatMap::new(position) else { return };
    let size = position.rules().size();
    let area = position.rules().area();
    let me = position.to_move();
    for (side, color) in [me, me.opponent()].into_iter().enumerate() {
        for (k, kind) in ThreatKind::ALL.into_iter().enumerate() {
            let plane = (side * ThreatKind::ALL.len() + k) * area;
            for (p, lines) in map.points(kind, color) {
                out[plane + p.dense_index(size)] = f32::from(lines);
            }
        }
    }
}

/// Writes the input planes of `positions` (all of one board size) in the
/// encoding `kind` into `features`, resized to `positions.len() * planes *
/// area` (its capacity is kept between calls).
pub fn encode_batch(kind: Features, positions: &[&Position], features: &mut Vec<f32>) {
    let area = positions.first().map_or(0, |p| p.rules().area());
    let planes = kind.planes();
    features.resize(positions.len() * planes * area, 0.0);
    for (position, out) in positions.iter().zip(features.chunks_exact_mut(planes * area)) {
        kind.encode(position, out);
    }
}

/// [`encode_batch`] into a slice (`positions.len() * planes * area`
/// floats), the positions encoded in parallel: for batches built outside the
/// search (datasets, Python), where the threats' analysis is most of the time.
pub fn encode_positions(kind: Features, positions: &[&Position], out: &mut [f32]) {
    let Some(first) = positions.first() else { return };
    let stride = kind.planes() * first.rules().area();
    out.par_chunks_mut(stride).zip(positions.par_iter()).for_each(|(out, position)| kind.encode(position, out));
}

#[cfg(test)]
mod tests {
    use super::*;
    use pente_core::{Game, Rules};

    fn planes(game: &Game) -> Vec<f32> {
        encode(Features::V1, game)
    }

    fn encode(features: Features, game: &Game) -> Vec<f32> {
        let mut out = vec![f32::NAN; features.planes() * game.rules().area()];
        features.encode(game.position(), &mut out);
        out
    }

    #[test]
    fn stones_are_seen_from_the_side_to_move() {
        let game = Game::from_move_list(Rules::pente(), "K10 L9").unwrap();
        let out = planes(&game);
        let k10 = "K10".parse::<Point>().unwrap().dense_index(19);
        let l9 = "L9".parse::<Point>().unwrap().dense_index(19);
        // White to move: own = White.
        assert_eq!(out[k10], 1.0);
        assert_eq!(out[361 + l9], 1.0);
        assert_eq!(out[3 * 361], 1.0);
        // The tournament rule restricts move 3: K9 is not legal, and plane 12 is on.
        let k9 = "K9".parse::<Point>().unwrap().dense_index(19);
        assert_eq!(out[11 * 361 + k9], 0.0);
        assert_eq!(out[12 * 361], 1.0);
        // Last move L9, the one before K10.
        assert_eq!(out[13 * 361 + l9], 1.0);
        assert_eq!(out[14 * 361 + k10], 1.0);
    }

    #[test]
    fn captures_are_seen() {
        // White K10, Black L10 M10, White N10 captures the pair.
        let game = Game::from_move_list(Rules::pente(), "K10 L10 N13 M10 N10").unwrap();
        assert_eq!(game.position().captured(Color::White), 2);
        let out = planes(&game);
        // Black to move: own captures 0, opponent's 2/10.
        assert_eq!(out[4 * 361], 0.0);
        assert!((out[5 * 361] - 0.2).abs() < 1e-6);
        assert_eq!(out[8 * 361], 1.0);
        assert!((out[9 * 361] - 0.5).abs() < 1e-6);
        assert_eq!(out[12 * 361], 0.0);
    }

    #[test]
    fn each_version_is_found_from_its_number_and_its_planes() {
        for features in Features::ALL {
            assert_eq!(Features::of_version(features.version()), Some(features));
            assert_eq!(Features::with_planes(features.planes()), Some(features));
        }
        assert_eq!(Features::V2.planes(), 26);
        assert_eq!(Features::of_version(3), None);
        assert_eq!(Features::with_planes(17), None);
    }

    #[test]
    fn version_2_adds_the_threats_of_both_sides_to_version_1() {
        // White K10 K11 K12 in a column and a Black pair L10 M10 that K10
        // flanks; White to move.
        let game = Game::from_move_list(Rules::pente(), "K10 L10 K13 M10 K12 A1 K11 A3").unwrap();
        let v1 = encode(Features::V1, &game);
        let v2 = encode(Features::V2, &game);
        let area = 361;
        assert_eq!(v2[..16 * area], v1[..]);
        let at = |plane: usize, p: &str| v2[plane * area + p.parse::<Point>().unwrap().dense_index(19)];
        // K10-K13 is a four: K9 and K14 make a five for White (own: 16).
        assert_eq!(at(16, "K9"), 1.0);
        assert_eq!(at(16, "K14"), 1.0);
        // N10 captures L10 M10 (own capture: 19).
        assert_eq!(at(19, "N10"), 1.0);
        assert_eq!(at(19, "K9"), 0.0);
        // Black has no five or capture anywhere (21, 24).
        assert!(v2[21 * area..22 * area].iter().all(|&x| x == 0.0));
        assert!(v2[24 * area..25 * area].iter().all(|&x| x == 0.0));
        // Every threat plane counts lines: 0 to 4.
        assert!(v2[16 * area..].iter().all(|&x| (0.0..=4.0).contains(&x) && x.fract() == 0.0));
    }

    #[test]
    fn the_threat_planes_are_empty_where_the_solver_does_not_read_the_variant() {
        let game = Game::from_move_list(
            Rules::new(pente_core::Variant::PoofPente, 19).unwrap(),
            "K10 L10 K13 L11 K12 L12 K11",
        )
        .unwrap();
        let v2 = encode(Features::V2, &game);
        assert!(v2[16 * 361..].iter().all(|&x| x == 0.0));
    }
}
