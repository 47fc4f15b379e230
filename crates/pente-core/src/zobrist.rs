//! Zobrist keys, generated at compile time so hashes are stable across runs
//! and machines (records and caches may store them).

use crate::board::CELLS;
use crate::color::Color;

const fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const fn stone_keys() -> [[u64; CELLS]; 2] {
    let mut keys = [[0; CELLS]; 2];
    let mut color = 0;
    while color < 2 {
        let mut cell = 0;
        while cell < CELLS {
            keys[color][cell] = splitmix64(0x5045_4E54_4500_0000 ^ ((color as u64) << 32) ^ cell as u64);
            cell += 1;
        }
        color += 1;
    }
    keys
}

/// Key of a stone of each colour on each padded board cell.
pub(crate) static STONES: [[u64; CELLS]; 2] = stone_keys();

/// Xored in when Black is to move.
pub(crate) const BLACK_TO_MOVE: u64 = splitmix64(0x5045_4E54_4501_0000);

/// Key of `color` having captured `count` stones; zero for no captures, so the
/// empty board hashes to zero.
#[inline]
pub(crate) const fn captures(color: Color, count: u16) -> u64 {
    if count == 0 { 0 } else { splitmix64(0x5045_4E54_4502_0000 ^ ((color as u64) << 20) ^ count as u64) }
}

/// Xored in once the colour choice of D-Pente or Swap2 is made (never in
/// other variants, whose hashes it leaves alone).
pub(crate) const SEATS_DECIDED: u64 = splitmix64(0x5045_4E54_4503_0000);

/// Xored in when the first player holds Black after a colour choice.
pub(crate) const SWAPPED: u64 = splitmix64(0x5045_4E54_4503_0001);

/// Xored in once Swap2's first choice was passed back.
pub(crate) const PASSED: u64 = splitmix64(0x5045_4E54_4503_0002);
