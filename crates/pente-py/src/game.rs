//! `pente.Game`: a game under one variant's rules, move by move.

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArray3, PyArrayMethods};
use pente_core::{Color, Point, Rules, Variant};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use pente_dataset::{dense_or_minus_one, fill_board};

use crate::features::features_of;

/// The rules of `variant` on a `size` board, or a `ValueError` saying why not.
pub fn rules_of(variant: &str, size: u8) -> PyResult<Rules> {
    let parsed: Variant = variant.parse().map_err(|e| PyValueError::new_err(format!("{e}")))?;
    Rules::new(parsed, size).map_err(|e| PyValueError::new_err(format!("{e}")))
}

/// A move as Python passes it: `"K10"` (or `"swap"`, `"stay"`, `"pass"`),
/// a dense index `y * size + x`, or an `(x, y)` pair from `A1 = (0, 0)`.
#[derive(FromPyObject)]
pub enum MoveArg {
    /// Notation.
    Text(String),
    /// A dense index.
    Index(i64),
    /// Column and row from zero.
    Coords((i64, i64)),
}

impl MoveArg {
    /// The point, or a `ValueError` naming the move.
    pub fn point(&self, size: u8) -> PyResult<Point> {
        let off = |what: String| PyValueError::new_err(format!("{what} is off the {size}x{size} board"));
        match self {
            MoveArg::Text(text) => text.trim().parse().map_err(|e| PyValueError::new_err(format!("{e}"))),
            MoveArg::Index(i) => usize::try_from(*i)
                .ok()
                .and_then(|i| Point::from_dense_index(i, size))
                .ok_or_else(|| off(format!("index {i}"))),
            MoveArg::Coords((x, y)) => match (u8::try_from(*x), u8::try_from(*y)) {
                (Ok(px), Ok(py)) if px < size && py < size => Ok(Point::new(px, py)),
                _ => Err(off(format!("({x}, {y})"))),
            },
        }
    }
}

/// A game of Pente or one of its variants, from the empty board.
///
/// `Game(variant="pente", size=19, moves=None)`: `moves` is a move list
/// (`"K10 L9 K7"`, move numbers allowed) or a sequence of moves, each
/// replayed with the rules' checks.
#[pyclass(module = "pente")]
#[derive(Clone)]
pub struct Game {
    pub inner: pente_core::Game,
}

#[pymethods]
impl Game {
    #[new]
    #[pyo3(signature = (variant = "pente", size = 19, moves = None))]
    fn new(variant: &str, size: u8, moves: Option<&Bound<'_, PyAny>>) -> PyResult<Game> {
        let rules = rules_of(variant, size)?;
        let mut game = Game { inner: pente_core::Game::new(rules) };
        if let Some(moves) = moves {
            if let Ok(text) = moves.extract::<String>() {
                let points = pente_core::parse_move_list(&text).map_err(|e| PyValueError::new_err(format!("{e}")))?;
                for point in points {
                    game.play_point(point)?;
                }
            } else {
                for item in moves.try_iter()? {
                    game.play(item?.extract()?)?;
                }
            }
        }
        Ok(game)
    }

    /// Plays a move (`"K10"`, `"swap"`, a dense index or an `(x, y)` pair).
    /// An illegal move raises `ValueError` naming the move and the rule.
    fn play(&mut self, point: MoveArg) -> PyResult<()> {
        let point = point.point(self.inner.rules().size())?;
        self.play_point(point)
    }

    /// Takes back the last move and returns it, or `None` at the start.
    fn undo(&mut self) -> Option<String> {
        self.inner.undo().map(|p| p.to_string())
    }

    /// Whether a move is legal now.
    fn is_legal(&self, point: MoveArg) -> PyResult<bool> {
        let point = point.point(self.inner.rules().size())?;
        Ok(self.inner.position().is_legal(point))
    }

    /// The legal moves, board points in index order then the colour choices.
    fn legal_moves(&self) -> Vec<String> {
        self.inner.position().legal_moves().map(|p| p.to_string()).collect()
    }

    /// The legal board points as a `bool` array `[size, size]` (`[y, x]`).
    fn legal_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        let size = usize::from(self.inner.rules().size());
        let mut mask = vec![false; size * size];
        for p in self.inner.position().legal_moves().filter(|p| !p.is_choice()) {
            mask[p.dense_index(self.inner.rules().size())] = true;
        }
        mask.into_pyarray(py).reshape([size, size])
    }

    /// The board as an `int8` array `[size, size]`: `board[y, x]`, row 0 is
    /// row 1 of the notation and column 0 is `A`; 1 White, -1 Black, 0 empty.
    fn board<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<i8>>> {
        let size = self.inner.rules().size();
        let mut board = vec![0i8; usize::from(size) * usize::from(size)];
        fill_board(self.inner.position(), &mut board);
        board.into_pyarray(py).reshape([usize::from(size); 2])
    }

    /// The network's input planes of the position, `float32 [planes, size,
    /// size]`, in features `version` (1 or 2).
    #[pyo3(signature = (version = pente_features::LATEST.version()))]
    fn features<'py>(&self, py: Python<'py>, version: u32) -> PyResult<Bound<'py, PyArray3<f32>>> {
        let kind = features_of(version)?;
        let size = usize::from(self.inner.rules().size());
        let mut out = vec![0.0f32; kind.planes() * size * size];
        let position = self.inner.position().clone();
        py.detach(|| kind.encode(&position, &mut out));
        out.into_pyarray(py).reshape([kind.planes(), size, size])
    }

    /// A copy that plays on independently.
    fn copy(&self) -> Game {
        self.clone()
    }

    fn __copy__(&self) -> Game {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyDict>) -> Game {
        self.clone()
    }

    /// The variant's name, e.g. `"pente"`.
    #[getter]
    fn variant(&self) -> &'static str {
        self.inner.rules().variant().name()
    }

    /// The board's side.
    #[getter]
    fn size(&self) -> u8 {
        self.inner.rules().size()
    }

    /// Stones placed so far (colour choices are not counted).
    #[getter]
    fn ply(&self) -> u32 {
        self.inner.position().ply()
    }

    /// `"white"` or `"black"`: whose stone goes next.
    #[getter]
    fn to_move(&self) -> &'static str {
        self.inner.position().to_move().name()
    }

    /// Stones captured by each side: `{"white": n, "black": n}`.
    #[getter]
    fn captures<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let position = self.inner.position();
        let dict = PyDict::new(py);
        for color in [Color::White, Color::Black] {
            dict.set_item(color.name(), position.captured(color))?;
        }
        Ok(dict)
    }

    /// The captured stones that win, or `None` where captures do not win.
    #[getter]
    fn capture_win(&self) -> Option<u16> {
        self.inner.rules().capture_win()
    }

    /// The colour choices legal now (`"swap"`, `"stay"`, `"pass"` in
    /// D-Pente and Swap2), empty when no choice is pending.
    #[getter]
    fn choices(&self) -> Vec<String> {
        let position = self.inner.position();
        if position.choice_pending().is_none() {
            return Vec::new();
        }
        position.legal_moves().filter(|p| p.is_choice()).map(|p| p.to_string()).collect()
    }

    /// Whether the game has ended.
    #[getter]
    fn is_over(&self) -> bool {
        self.inner.position().is_over()
    }

    /// `"white"`, `"black"`, or `None` (a draw, or the game goes on).
    #[getter]
    fn winner(&self) -> Option<&'static str> {
        self.inner.position().outcome().and_then(|o| o.winner).map(Color::name)
    }

    /// Why the game ended (`"five"`, `"captures"`, ...), `None` while it goes on.
    #[getter]
    fn reason(&self) -> Option<&'static str> {
        self.inner.position().outcome().map(|o| o.reason.name())
    }

    /// The position's Zobrist hash (as `pente replay` prints it, in hex).
    #[getter]
    fn hash(&self) -> u64 {
        self.inner.position().hash()
    }

    /// Every move played, in notation.
    #[getter]
    fn moves(&self) -> Vec<String> {
        self.inner.moves().iter().map(ToString::to_string).collect()
    }

    /// The moves as dense indices `y * size + x` (-1 for a colour choice).
    fn move_indices<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i32>> {
        let size = self.inner.rules().size();
        let indices: Vec<i32> = self.inner.moves().iter().map(|&p| dense_or_minus_one(p, size)).collect();
        indices.into_pyarray(py)
    }

    /// The moves as one line of text, `"K10 L9 K7"`.
    fn move_list(&self) -> String {
        pente_core::format_move_list(self.inner.moves(), false)
    }

    fn __len__(&self) -> usize {
        self.inner.moves().len()
    }

    fn __getitem__(&self, index: isize) -> PyResult<String> {
        let moves = self.inner.moves();
        let i = if index < 0 { index + moves.len() as isize } else { index };
        usize::try_from(i)
            .ok()
            .and_then(|i| moves.get(i))
            .map(ToString::to_string)
            .ok_or_else(|| PyIndexError::new_err(format!("move {index} of a {}-move game", moves.len())))
    }

    fn __str__(&self) -> String {
        self.inner.position().board_rows().join("\n")
    }

    fn __repr__(&self) -> String {
        format!(
            "Game(variant={:?}, size={}, moves={:?})",
            self.variant(),
            self.size(),
            pente_core::format_move_list(self.inner.moves(), false)
        )
    }
}

impl Game {
    fn play_point(&mut self, point: Point) -> PyResult<()> {
        let position = self.inner.position();
        if let Err(reason) = position.check(point) {
            return Err(PyValueError::new_err(format!("illegal move {point} (move {}): {reason}", position.ply() + 1)));
        }
        self.inner.play(point).map_err(|e| PyValueError::new_err(format!("{e}")))
    }
}

/// The dense index `y * size + x` of a move in notation (`"K10"`); -1 for
/// a colour choice (`"swap"`, `"stay"`, `"pass"`).
#[pyfunction]
#[pyo3(signature = (point, size = 19))]
pub fn move_index(point: &str, size: u8) -> PyResult<i32> {
    let parsed = MoveArg::Text(point.to_string()).point(size)?;
    if !parsed.is_choice() && (parsed.x() >= size || parsed.y() >= size) {
        return Err(PyValueError::new_err(format!("{point} is off the {size}x{size} board")));
    }
    Ok(dense_or_minus_one(parsed, size))
}

/// The notation of a dense index `y * size + x` (`"K10"`).
#[pyfunction]
#[pyo3(signature = (index, size = 19))]
pub fn move_name(index: i64, size: u8) -> PyResult<String> {
    MoveArg::Index(index).point(size).map(|p| p.to_string())
}
