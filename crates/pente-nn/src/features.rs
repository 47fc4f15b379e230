//! Input encoding: what the network sees of a position, as planes of
//! `size x size` floats. Kept apart from any backend so that it can be
//! tested, versioned and reproduced (e.g. in PyTorch) on its own.

use pente_core::{Color, LineWin, Point, Position};

/// Number of input planes.
pub const PLANES: usize = 16;

/// Version of the encoding, stored with every model: a model only accepts
/// inputs of the version it was trained on.
pub const FEATURES_VERSION: u32 = 1;

/// The plane that marks the legal moves (also the policy's mask).
pub const LEGAL_PLANE: usize = 11;

/// Earlier moves shown as one-hot planes (the last one first).
const HISTORY: usize = 3;

/// Writes the planes of `position` for its side to move into `out`
/// (`PLANES * size * size` floats, plane-major, row-major from `A1`).
///
/// Planes: 0 own stones; 1 opponent stones; 2 on-board ones (the edge is
/// where they stop); 3 White to move; 4, 5 own and opponent captured
/// stones as a fraction of the capture-win threshold; 6, 7 own and opponent
/// one capture from the capture win; 8 the variant captures; 9 the capture
/// threshold / 20; 10 only exactly five wins; 11 legal moves (shows the
/// opening rule); 12 the opening rule restricts this move; 13-15 the last
/// three moves.
///
/// # Panics
/// If `out` is not `PLANES * size * size` long.
pub fn encode(position: &Position, out: &mut [f32]) {
    let rules = position.rules();
    let size = rules.size();
    let area = rules.area();
    assert_eq!(out.len(), PLANES * area, "feature buffer size");
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

#[cfg(test)]
mod tests {
    use super::*;
    use pente_core::{Game, Rules};

    fn planes(game: &Game) -> Vec<f32> {
        let area = game.rules().area();
        let mut out = vec![0.0; PLANES * area];
        encode(game.position(), &mut out);
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
}
