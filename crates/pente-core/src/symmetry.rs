//! The 8 symmetries of the square board (the dihedral group D4).

use std::fmt;

use crate::point::Point;

/// One of the 8 rotations and reflections of a square board.
///
/// Index 0 is the identity; 1-3 rotate counter-clockwise by 90, 180 and 270
/// degrees; 4-7 are the reflections (left-right, top-bottom, main diagonal,
/// anti-diagonal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Symmetry(u8);

impl Symmetry {
    /// The identity.
    pub const IDENTITY: Symmetry = Symmetry(0);

    /// All 8 symmetries, identity first.
    pub const ALL: [Symmetry; 8] =
        [Symmetry(0), Symmetry(1), Symmetry(2), Symmetry(3), Symmetry(4), Symmetry(5), Symmetry(6), Symmetry(7)];

    /// The symmetry with this index (0-7).
    ///
    /// # Panics
    /// If `index` is 8 or more.
    #[must_use]
    pub const fn from_index(index: u8) -> Symmetry {
        assert!(index < 8, "there are 8 symmetries");
        Symmetry(index)
    }

    /// This symmetry's index (0-7).
    #[must_use]
    pub const fn index(self) -> u8 {
        self.0
    }

    /// Where `p` goes on a `size` board (a colour choice stays itself).
    #[inline]
    #[must_use]
    pub const fn apply(self, p: Point, size: u8) -> Point {
        // A colour choice is not on the board: no symmetry moves it.
        if p.is_choice() {
            return p;
        }
        let n = size - 1;
        let (x, y) = (p.x(), p.y());
        let (x, y) = match self.0 {
            0 => (x, y),
            1 => (n - y, x),
            2 => (n - x, n - y),
            3 => (y, n - x),
            4 => (n - x, y),
            5 => (x, n - y),
            6 => (y, x),
            _ => (n - y, n - x),
        };
        Point::new(x, y)
    }

    /// The symmetry that undoes this one.
    #[must_use]
    pub const fn inverse(self) -> Symmetry {
        match self.0 {
            1 => Symmetry(3),
            3 => Symmetry(1),
            other => Symmetry(other),
        }
    }
}

impl fmt::Display for Symmetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = ["identity", "rot90", "rot180", "rot270", "flip-x", "flip-y", "transpose", "anti-transpose"];
        f.write_str(name[self.0 as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_laws() {
        for size in [7u8, 13, 19] {
            for s in Symmetry::ALL {
                let mut image = std::collections::HashSet::new();
                for y in 0..size {
                    for x in 0..size {
                        let p = Point::new(x, y);
                        let q = s.apply(p, size);
                        assert!(q.x() < size && q.y() < size);
                        assert_eq!(s.inverse().apply(q, size), p);
                        assert_eq!(q.distance(Point::centre(size)), p.distance(Point::centre(size)));
                        image.insert(q);
                    }
                }
                assert_eq!(image.len(), usize::from(size) * usize::from(size), "{s} is a bijection");
                assert_eq!(s.apply(Point::centre(size), size), Point::centre(size));
            }
        }
        // The 8 images of a generic point are distinct.
        let p = Point::new(1, 4);
        let images: std::collections::HashSet<_> = Symmetry::ALL.iter().map(|s| s.apply(p, 19)).collect();
        assert_eq!(images.len(), 8);
    }
}
