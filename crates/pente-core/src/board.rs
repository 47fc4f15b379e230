//! The padded mailbox layout shared by [`crate::Position`] and its helpers.
//!
//! Every board size lives in the same 23-wide array with a border of at least
//! four cells around the playing area, so a scan of up to four steps in any
//! direction (the longest a Keryo capture looks) never needs a bounds test:
//! it stops on an `EDGE` cell.

use crate::point::{MAX_SIZE, Point};

pub(crate) const PAD: usize = 4;
pub(crate) const STRIDE: usize = MAX_SIZE as usize + PAD;
/// Padded cells: room for four diagonal steps past the top-right corner
/// (625 cells) rounded up to a power of two, so that masking an index proves
/// it in bounds and the hot loops carry no bounds checks.
pub(crate) const CELLS: usize = 1024;
pub(crate) const WORDS: usize = CELLS.div_ceil(64);

pub(crate) const EMPTY: u8 = 0;
pub(crate) const EDGE: u8 = 3;

/// The four line directions; their negatives complete the eight.
pub(crate) const LINES: [isize; 4] = [1, STRIDE as isize, STRIDE as isize + 1, STRIDE as isize - 1];

/// All eight directions.
pub(crate) const DIRECTIONS: [isize; 8] =
    [LINES[0], -LINES[0], LINES[1], -LINES[1], LINES[2], -LINES[2], LINES[3], -LINES[3]];

#[inline]
pub(crate) const fn cell(p: Point) -> usize {
    (p.y() as usize + PAD) * STRIDE + p.x() as usize + PAD
}

#[inline]
pub(crate) const fn point(cell: usize) -> Point {
    Point::new((cell % STRIDE - PAD) as u8, (cell / STRIDE - PAD) as u8)
}

#[inline]
pub(crate) const fn step(cell: usize, direction: isize, times: isize) -> usize {
    cell.wrapping_add_signed(direction * times) & (CELLS - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_has_room_for_four_steps_everywhere() {
        let size = MAX_SIZE;
        for y in 0..size {
            for x in 0..size {
                let c = cell(Point::new(x, y));
                assert_eq!(point(c), Point::new(x, y));
                for d in LINES {
                    assert!(c + 4 * (d as usize) < 625);
                    assert!(c as isize - 4 * d >= 0);
                }
            }
        }
    }
}
