//! Training samples as columns of arrays: every sample's position, the
//! targets `pente train` derives from its game (policy, value, the
//! opponent's reply, the last position) and, on request, its input planes.
//! The Python package hands these columns to NumPy without a copy;
//! `pente export samples --format npz` writes them as a NumPy `.npz`.
//!
//! Files are read in chunks of whole games ([`SampleChunks`]), so a file
//! larger than memory streams; positions are replayed in parallel.

use std::fs::File;
use std::io::{BufReader, Seek, Write};
use std::path::{Path, PathBuf};

use ndarray::{ArrayView, IxDyn};
use ndarray_npy::{NpzWriter, WriteNpzError};
use pente_core::{Color, Point, Position, ReplayError, Variant};
use pente_features::Features;
use pente_records::{GameResult, GameSamples, ReplayedSample, SamplesError, SamplesReader};
use rayon::prelude::*;
use thiserror::Error;

mod window;
pub use window::SampleWindow;

/// A samples file that cannot be read into columns, naming the file.
#[derive(Debug, Error)]
pub enum DatasetError {
    /// The file does not open.
    #[error("{}: {source}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a samples file, is cut short, or is corrupt.
    #[error("{}: {source}", path.display())]
    Samples {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where.
        source: SamplesError,
    },
    /// Games on two board sizes where one was expected.
    #[error(
        "{}: byte {offset}: game {game} is on a {size}x{size} board, the file's first on {first}x{first}: \
         read one size at a time",
        path.display()
    )]
    MixedSizes {
        /// The file.
        path: PathBuf,
        /// Where the game's chunk starts.
        offset: u64,
        /// Its id.
        game: u64,
        /// Its size.
        size: u8,
        /// The first game's size.
        first: u8,
    },
    /// A game whose moves do not replay.
    #[error("{}: game {game}: {source}", path.display())]
    Replay {
        /// The file.
        path: PathBuf,
        /// The game's id.
        game: u64,
        /// The illegal move.
        source: ReplayError,
    },
    /// Writing an `.npz` failed.
    #[error("{}: {source}", path.display())]
    Npz {
        /// The file written.
        path: PathBuf,
        /// Why.
        source: WriteNpzError,
    },
}

/// What to read of a samples file.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOptions {
    /// The input planes to encode, if any.
    pub features: Option<Features>,
    /// Only games on this board size (the others are skipped); `None`: the
    /// first game's, and another size is [`DatasetError::MixedSizes`].
    pub size: Option<u8>,
    /// Whether a last game cut short (a writer killed mid-game) ends the
    /// file quietly instead of being an error.
    pub allow_truncated: bool,
}

/// A samples file read in chunks of whole games.
pub struct SampleChunks {
    path: PathBuf,
    reader: SamplesReader<BufReader<File>>,
    options: ReadOptions,
    /// The board size of the games read.
    size: Option<u8>,
    done: bool,
}

impl SampleChunks {
    /// Opens `path` (its header is read with the first chunk).
    ///
    /// # Errors
    /// [`DatasetError::Open`].
    pub fn open(path: &Path, options: ReadOptions) -> Result<SampleChunks, DatasetError> {
        let file = File::open(path).map_err(|source| DatasetError::Open { path: path.to_path_buf(), source })?;
        Ok(SampleChunks {
            path: path.to_path_buf(),
            reader: SamplesReader::new(BufReader::with_capacity(1 << 20, file)),
            options,
            size: options.size,
            done: false,
        })
    }

    /// Bytes of the file read so far.
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.reader.offset()
    }

    /// The board size of the games read so far (or asked for).
    #[must_use]
    pub fn size(&self) -> Option<u8> {
        self.size
    }

    /// The next chunk: whole games holding at least `min` samples (fewer at
    /// the end of the file); `None` when the file is done.
    ///
    /// # Errors
    /// The file's first problem, naming it and the byte.
    pub fn next_chunk(&mut self, min: usize) -> Result<Option<SampleArrays>, DatasetError> {
        let games = self.next_games(min)?;
        let Some(size) = self.size.filter(|_| !games.is_empty()) else { return Ok(None) };
        SampleArrays::from_games(&games, size, self.options.features)
            .map(Some)
            .map_err(|(game, source)| DatasetError::Replay { path: self.path.clone(), game, source })
    }

    /// Every remaining sample in one chunk (empty columns if none).
    ///
    /// # Errors
    /// As [`SampleChunks::next_chunk`].
    pub fn read_all(&mut self) -> Result<SampleArrays, DatasetError> {
        let features = self.options.features;
        Ok(self.next_chunk(usize::MAX)?.unwrap_or_else(|| {
            SampleArrays::new(self.size.unwrap_or(pente_core::MAX_SIZE), 0, features)
        }))
    }

    pub(crate) fn next_games(&mut self, min: usize) -> Result<Vec<GameSamples>, DatasetError> {
        let mut games = Vec::new();
        let mut count = 0;
        while !self.done && count < min {
            let offset = self.reader.offset();
            match self.reader.next() {
                None => self.done = true,
                Some(Err(SamplesError::Truncated { .. })) if self.options.allow_truncated => self.done = true,
                Some(Err(source)) => {
                    self.done = true;
                    return Err(DatasetError::Samples { path: self.path.clone(), source });
                }
                Some(Ok(game)) => {
                    let size = game.rules.size();
                    match (self.options.size, self.size) {
                        // A size asked for: the others are skipped.
                        (Some(wanted), _) if size != wanted => continue,
                        (None, Some(first)) if size != first => {
                            self.done = true;
                            let path = self.path.clone();
                            return Err(DatasetError::MixedSizes { path, offset, game: game.game_id, size, first });
                        }
                        _ => self.size = Some(size),
                    }
                    count += game.samples.len();
                    games.push(game);
                }
            }
        }
        Ok(games)
    }
}

/// The dense index of a board point, -1 for a colour choice.
#[must_use]
pub fn dense_or_minus_one(point: Point, size: u8) -> i32 {
    if point.is_choice() { -1 } else { point.dense_index(size) as i32 }
}

/// Writes the stones of `position` (1 White, -1 Black) into `out`, `area` long.
pub fn fill_board(position: &pente_core::Position, out: &mut [i8]) {
    let size = position.rules().size();
    for (i, cell) in out.iter_mut().enumerate() {
        let p = Point::from_dense_index(i, size).expect("a point of the board");
        *cell = match position.stone_at(p) {
            Some(Color::White) => 1,
            Some(Color::Black) => -1,
            None => 0,
        };
    }
}

/// Writes the planes of every position into `out` (`planes * area` floats
/// each, all on one board size), in parallel.
pub fn encode_positions(kind: Features, positions: &[&Position], out: &mut [f32]) {
    let Some(first) = positions.first() else { return };
    let stride = kind.planes() * first.rules().area();
    out.par_chunks_mut(stride).zip(positions.par_iter()).for_each(|(out, position)| kind.encode(position, out));
}

/// Samples as columns: N samples of one board size S. Each field's layout
/// is in `docs/records.md` (the `.npz` layout) and the Python stubs.
pub struct SampleArrays {
    /// The board side S.
    pub size: u8,
    /// The game's id in its run `[N]`.
    pub game_id: Vec<u64>,
    /// The variant's index in `Variant::ALL` `[N]`.
    pub variant: Vec<u8>,
    /// Moves played before the position `[N]`.
    pub ply: Vec<i32>,
    /// Stones `[N, S, S]` (`[y, x]` from A1): 1 White, -1 Black.
    pub board: Vec<i8>,
    /// The side to move `[N]`: 1 White, -1 Black.
    pub to_move: Vec<i8>,
    /// Stones captured by White and by Black `[N, 2]`.
    pub captures: Vec<i16>,
    /// The search's policy target, normalized `[N, S*S]`.
    pub policy: Vec<f32>,
    /// The result for the side to move `[N]`: 1, 0, -1.
    pub value: Vec<f32>,
    /// The result for White `[N]`: 1, 0, -1.
    pub result: Vec<i8>,
    /// The opponent's reply (dense index), -1 if none `[N]`.
    pub reply: Vec<i32>,
    /// The last position from the side to move `[N, S, S]`: 1 own, -1 the opponent's.
    pub ownership: Vec<i8>,
    /// Own and opponent's captures at the end over the capture win `[N, 2]`.
    pub final_captures: Vec<f32>,
    /// The input planes `[N, planes, S, S]`, when asked for.
    pub features: Option<(Features, Vec<f32>)>,
}

/// Some samples' slices of every array: a game's, filled by one task.
pub(crate) struct Rows<'a> {
    area: usize,
    game_id: &'a mut [u64],
    variant: &'a mut [u8],
    ply: &'a mut [i32],
    board: &'a mut [i8],
    to_move: &'a mut [i8],
    captures: &'a mut [i16],
    policy: &'a mut [f32],
    value: &'a mut [f32],
    result: &'a mut [i8],
    reply: &'a mut [i32],
    ownership: &'a mut [i8],
    final_captures: &'a mut [f32],
}

impl<'a> Rows<'a> {
    /// The first `n` samples' rows and the rest.
    fn split_at(self, n: usize) -> (Rows<'a>, Rows<'a>) {
        let area = self.area;
        let (game_id, game_id_rest) = self.game_id.split_at_mut(n);
        let (variant, variant_rest) = self.variant.split_at_mut(n);
        let (ply, ply_rest) = self.ply.split_at_mut(n);
        let (board, board_rest) = self.board.split_at_mut(n * area);
        let (to_move, to_move_rest) = self.to_move.split_at_mut(n);
        let (captures, captures_rest) = self.captures.split_at_mut(n * 2);
        let (policy, policy_rest) = self.policy.split_at_mut(n * area);
        let (value, value_rest) = self.value.split_at_mut(n);
        let (result, result_rest) = self.result.split_at_mut(n);
        let (reply, reply_rest) = self.reply.split_at_mut(n);
        let (ownership, ownership_rest) = self.ownership.split_at_mut(n * area);
        let (final_captures, final_captures_rest) = self.final_captures.split_at_mut(n * 2);
        let head = Rows {
            area,
            game_id,
            variant,
            ply,
            board,
            to_move,
            captures,
            policy,
            value,
            result,
            reply,
            ownership,
            final_captures,
        };
        let rest = Rows {
            area,
            game_id: game_id_rest,
            variant: variant_rest,
            ply: ply_rest,
            board: board_rest,
            to_move: to_move_rest,
            captures: captures_rest,
            policy: policy_rest,
            value: value_rest,
            result: result_rest,
            reply: reply_rest,
            ownership: ownership_rest,
            final_captures: final_captures_rest,
        };
        (head, rest)
    }
}

impl SampleArrays {
    /// `n` samples' columns, zeroed (`reply` -1).
    #[must_use]
    pub fn new(size: u8, n: usize, features: Option<Features>) -> SampleArrays {
        let area = usize::from(size) * usize::from(size);
        SampleArrays {
            size,
            game_id: vec![0; n],
            variant: vec![0; n],
            ply: vec![0; n],
            board: vec![0; n * area],
            to_move: vec![0; n],
            captures: vec![0; n * 2],
            policy: vec![0.0; n * area],
            value: vec![0.0; n],
            result: vec![0; n],
            reply: vec![-1; n],
            ownership: vec![0; n * area],
            final_captures: vec![0.0; n * 2],
            features: features.map(|kind| (kind, vec![0.0; n * kind.planes() * area])),
        }
    }

    /// The columns of `games`' samples (games on another board size than
    /// `size` must not be among them), replayed and filled in parallel.
    ///
    /// # Errors
    /// A game that does not replay under its rules.
    pub fn from_games(
        games: &[GameSamples], size: u8, features: Option<Features>) -> Result<SampleArrays, (u64, ReplayError)> {
        let counts: Vec<usize> = games.iter().map(|g| g.samples.len()).collect();
        let n: usize = counts.iter().sum();
        let mut arrays = SampleArrays::new(size, n, features);
        let replayed: Vec<(Vec<ReplayedSample<'_>>, Position)> = games
            .par_iter()
            .map(|game| game.replay().map_err(|e| (game.game_id, e)))
            .collect::<Result<_, _>>()?;
        let rows = arrays.rows_by_game(&counts);
        rows.into_par_iter().zip(games.par_iter().zip(&replayed)).for_each(|(mut rows, (game, (samples, last)))| {
            for (i, sample) in samples.iter().enumerate() {
                fill_row(game, sample, last, &mut rows, i);
            }
        });
        if let Some((kind, out)) = &mut arrays.features {
            let positions: Vec<&Position> = replayed.iter().flat_map(|(s, _)| s.iter().map(|r| &r.position)).collect();
            encode_positions(*kind, &positions, out);
        }
        Ok(arrays)
    }

    /// Every sample's rows, split by game (`counts` samples each).
    pub(crate) fn rows_by_game(&mut self, counts: &[usize]) -> Vec<Rows<'_>> {
        let mut rest = Rows {
            area: usize::from(self.size) * usize::from(self.size),
            game_id: &mut self.game_id,
            variant: &mut self.variant,
            ply: &mut self.ply,
            board: &mut self.board,
            to_move: &mut self.to_move,
            captures: &mut self.captures,
            policy: &mut self.policy,
            value: &mut self.value,
            result: &mut self.result,
            reply: &mut self.reply,
            ownership: &mut self.ownership,
            final_captures: &mut self.final_captures,
        };
        let mut games = Vec::with_capacity(counts.len());
        for &count in counts {
            let (head, tail) = rest.split_at(count);
            games.push(head);
            rest = tail;
        }
        games
    }
}

fn color_code(color: Color) -> i8 {
    if color == Color::White { 1 } else { -1 }
}

/// Fills one sample's row, as `pente train` builds its targets.
pub(crate) fn fill_row(game: &GameSamples, sample: &ReplayedSample<'_>, last: &Position, rows: &mut Rows<'_>, i: usize) {
    let size = game.rules.size();
    let area = rows.area;
    let position = &sample.position;
    let me = position.to_move();
    rows.game_id[i] = game.game_id;
    rows.variant[i] = Variant::ALL.iter().position(|&v| v == game.rules.variant()).expect("a known variant") as u8;
    rows.ply[i] = sample.sample.ply as i32;
    fill_board(position, &mut rows.board[i * area..(i + 1) * area]);
    rows.to_move[i] = color_code(me);
    rows.captures[i * 2] = position.captured(Color::White) as i16;
    rows.captures[i * 2 + 1] = position.captured(Color::Black) as i16;
    let total: f32 = sample.sample.policy.iter().map(|x| x.1).sum();
    for &(p, weight) in sample.sample.policy.iter().filter(|(p, _)| !p.is_choice()) {
        rows.policy[i * area + p.dense_index(size)] += weight / total.max(f32::MIN_POSITIVE);
    }
    rows.value[i] = sample.value;
    rows.result[i] = match game.result {
        GameResult::White => 1,
        GameResult::Black => -1,
        GameResult::Draw => 0,
    };
    rows.reply[i] = sample.reply.map_or(-1, |p| dense_or_minus_one(p, size));
    for (j, owner) in rows.ownership[i * area..(i + 1) * area].iter_mut().enumerate() {
        let p = Point::from_dense_index(j, size).expect("a point of the board");
        *owner = match last.stone_at(p) {
            Some(color) if color == me => 1,
            Some(_) => -1,
            None => 0,
        };
    }
    if let Some(win) = last.rules().capture_win() {
        let fraction = |stones: u16| (f32::from(stones) / f32::from(win)).min(1.0);
        rows.final_captures[i * 2] = fraction(last.captured(me));
        rows.final_captures[i * 2 + 1] = fraction(last.captured(me.opponent()));
    }
}


impl SampleArrays {
    /// The number of samples.
    #[must_use]
    pub fn len(&self) -> usize {
        self.game_id.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.game_id.is_empty()
    }

    /// Writes the columns as a NumPy `.npz` (one `.npy` a column, named as
    /// the fields, shaped as they document; `size` a scalar).
    ///
    /// # Errors
    /// Any write error.
    pub fn write_npz<W: Write + Seek>(&self, writer: W) -> Result<W, WriteNpzError> {
        let (n, s) = (self.len(), usize::from(self.size));
        let mut npz = NpzWriter::new(writer);
        fn add<W: Write + Seek, T: ndarray_npy::WritableElement>(
            npz: &mut NpzWriter<W>,
            name: &str,
            data: &[T],
            shape: &[usize],
        ) -> Result<(), WriteNpzError> {
            let view = ArrayView::from_shape(IxDyn(shape), data).expect("columns have their documented shapes");
            npz.add_array(name, &view)
        }
        add(&mut npz, "size", &[self.size], &[])?;
        add(&mut npz, "game_id", &self.game_id, &[n])?;
        add(&mut npz, "variant", &self.variant, &[n])?;
        add(&mut npz, "ply", &self.ply, &[n])?;
        add(&mut npz, "board", &self.board, &[n, s, s])?;
        add(&mut npz, "to_move", &self.to_move, &[n])?;
        add(&mut npz, "captures", &self.captures, &[n, 2])?;
        add(&mut npz, "policy", &self.policy, &[n, s * s])?;
        add(&mut npz, "value", &self.value, &[n])?;
        add(&mut npz, "result", &self.result, &[n])?;
        add(&mut npz, "reply", &self.reply, &[n])?;
        add(&mut npz, "ownership", &self.ownership, &[n, s, s])?;
        add(&mut npz, "final_captures", &self.final_captures, &[n, 2])?;
        if let Some((kind, features)) = &self.features {
            add(&mut npz, "features", features, &[n, kind.planes(), s, s])?;
        }
        npz.finish()
    }
}
