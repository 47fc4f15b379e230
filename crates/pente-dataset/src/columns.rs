//! Samples as columns, filled in parallel one game at a time.

use std::io::{Seek, Write};

use ndarray::{ArrayView, IxDyn};
use ndarray_npy::{NpzWriter, WritableElement, WriteNpzError};
use pente_core::{Color, Position, ReplayError, Variant};
use pente_features::Features;
use pente_records::{GameSamples, PositionSample, reply_after, value_for};
use rayon::prelude::*;

use crate::{color_code, dense_or_minus_one, fill_board};

/// Which of the large columns (a board's worth of values a sample) to
/// build: they are most of the memory, and most of the time of reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Columns {
    /// `board` `[N, S, S]`.
    pub board: bool,
    /// The policy target as `[N, S*S]`; otherwise sparse ([`Policy::Sparse`]).
    pub dense_policy: bool,
    /// `ownership` `[N, S, S]`.
    pub ownership: bool,
}

impl Columns {
    /// Every column, the policy dense.
    pub const ALL: Columns = Columns { board: true, dense_policy: true, ownership: true };
    /// Only the small columns, the policy sparse: a few dozen bytes a sample.
    pub const COMPACT: Columns = Columns { board: false, dense_policy: false, ownership: false };
}

impl Default for Columns {
    fn default() -> Columns {
        Columns::ALL
    }
}

/// The search's policy targets, normalized over the board's points (a
/// colour choice's share is left out, as the trainer does).
#[derive(Debug, Clone, PartialEq)]
pub enum Policy {
    /// `[N, S*S]`, indexed `y * S + x`.
    Dense(Vec<f32>),
    /// Sample `i`'s moves (dense indices) and probabilities are
    /// `moves[offsets[i]..offsets[i + 1]]` and `probs[...]`; `offsets` has N + 1 entries.
    Sparse {
        /// Where each sample's entries start, and the end.
        offsets: Vec<i64>,
        /// Dense indices.
        moves: Vec<i32>,
        /// Their probabilities.
        probs: Vec<f32>,
    },
}

/// Samples as columns: N samples of one board size S. `docs/records.md`
/// gives the layout (as `.npz` and in Python).
#[derive(Debug, Clone, PartialEq)]
pub struct SampleArrays {
    /// The board side S.
    pub size: u8,
    /// The large columns built.
    pub columns: Columns,
    /// The game's id in its run `[N]`.
    pub game_id: Vec<u64>,
    /// The variant's index in `Variant::ALL` `[N]`.
    pub variant: Vec<u8>,
    /// Moves played before the position `[N]`.
    pub ply: Vec<i32>,
    /// Stones `[N, S, S]` (`[y, x]` from A1): 1 White, -1 Black; empty unless `columns.board`.
    pub board: Vec<i8>,
    /// The side to move `[N]`: 1 White, -1 Black.
    pub to_move: Vec<i8>,
    /// Stones captured by White and by Black `[N, 2]`.
    pub captures: Vec<i16>,
    /// The policy targets.
    pub policy: Policy,
    /// The result for the side to move `[N]`: 1, 0, -1.
    pub value: Vec<f32>,
    /// The result for White `[N]`: 1, 0, -1.
    pub result: Vec<i8>,
    /// The opponent's reply (dense index), -1 if none `[N]`.
    pub reply: Vec<i32>,
    /// The last position from the side to move `[N, S, S]`: 1 own, -1 the
    /// opponent's; empty unless `columns.ownership`.
    pub ownership: Vec<i8>,
    /// Own and opponent's captures at the end over the capture win `[N, 2]`.
    pub final_captures: Vec<f32>,
    /// The input planes `[N, planes, S, S]`, when asked for.
    pub features: Option<(Features, Vec<f32>)>,
}

/// A row's share of the policy columns.
enum RowsPolicy<'a> {
    Dense(&'a mut [f32]),
    Sparse { offsets: &'a [i64], moves: &'a mut [i32], probs: &'a mut [f32] },
}

/// Some samples' slices of every column: a game's, filled by one task.
pub(crate) struct Rows<'a> {
    area: usize,
    game_id: &'a mut [u64],
    variant: &'a mut [u8],
    ply: &'a mut [i32],
    board: &'a mut [i8],
    to_move: &'a mut [i8],
    captures: &'a mut [i16],
    policy: RowsPolicy<'a>,
    value: &'a mut [f32],
    result: &'a mut [i8],
    reply: &'a mut [i32],
    ownership: &'a mut [i8],
    final_captures: &'a mut [f32],
    kind: Option<Features>,
    features: &'a mut [f32],
}

/// `slice` split after `n` rows of `width` values.
fn cut<T>(slice: &mut [T], n: usize, width: usize) -> (&mut [T], &mut [T]) {
    slice.split_at_mut(n * width)
}

impl<'a> Rows<'a> {
    /// The first `n` rows and the rest.
    fn split_at(self, n: usize) -> (Rows<'a>, Rows<'a>) {
        let area = self.area;
        let board_width = if self.board.is_empty() { 0 } else { area };
        let ownership_width = if self.ownership.is_empty() { 0 } else { area };
        let planes = self.kind.map_or(0, |kind| kind.planes() * area);
        let (game_id, game_id_rest) = cut(self.game_id, n, 1);
        let (variant, variant_rest) = cut(self.variant, n, 1);
        let (ply, ply_rest) = cut(self.ply, n, 1);
        let (board, board_rest) = cut(self.board, n, board_width);
        let (to_move, to_move_rest) = cut(self.to_move, n, 1);
        let (captures, captures_rest) = cut(self.captures, n, 2);
        let (policy, policy_rest) = match self.policy {
            RowsPolicy::Dense(dense) => {
                let (head, rest) = cut(dense, n, area);
                (RowsPolicy::Dense(head), RowsPolicy::Dense(rest))
            }
            RowsPolicy::Sparse { offsets, moves, probs } => {
                let entries = (offsets[n] - offsets[0]) as usize;
                let (moves, moves_rest) = moves.split_at_mut(entries);
                let (probs, probs_rest) = probs.split_at_mut(entries);
                (
                    RowsPolicy::Sparse { offsets: &offsets[..=n], moves, probs },
                    RowsPolicy::Sparse { offsets: &offsets[n..], moves: moves_rest, probs: probs_rest },
                )
            }
        };
        let (value, value_rest) = cut(self.value, n, 1);
        let (result, result_rest) = cut(self.result, n, 1);
        let (reply, reply_rest) = cut(self.reply, n, 1);
        let (ownership, ownership_rest) = cut(self.ownership, n, ownership_width);
        let (final_captures, final_captures_rest) = cut(self.final_captures, n, 2);
        let (features, features_rest) = cut(self.features, n, planes);
        let kind = self.kind;
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
            kind,
            features,
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
            kind,
            features: features_rest,
        };
        (head, rest)
    }
}

impl SampleArrays {
    /// Columns for `samples` (in row order), zeroed (`reply` -1), the sparse
    /// policy's offsets set.
    pub(crate) fn allocate<'a>(
        size: u8,
        n: usize,
        samples: impl IntoIterator<Item = &'a PositionSample>,
        columns: Columns,
        features: Option<Features>,
    ) -> SampleArrays {
        let area = usize::from(size) * usize::from(size);
        let policy = if columns.dense_policy {
            Policy::Dense(vec![0.0; n * area])
        } else {
            let mut offsets = Vec::with_capacity(n + 1);
            offsets.push(0i64);
            for sample in samples {
                let entries = sample.policy.iter().filter(|(p, _)| !p.is_choice()).count() as i64;
                offsets.push(offsets.last().copied().unwrap_or(0) + entries);
            }
            let entries = offsets.last().copied().unwrap_or(0) as usize;
            Policy::Sparse { offsets, moves: vec![0; entries], probs: vec![0.0; entries] }
        };
        let wide = |on: bool| if on { n * area } else { 0 };
        SampleArrays {
            size,
            columns,
            game_id: vec![0; n],
            variant: vec![0; n],
            ply: vec![0; n],
            board: vec![0; wide(columns.board)],
            to_move: vec![0; n],
            captures: vec![0; n * 2],
            policy,
            value: vec![0.0; n],
            result: vec![0; n],
            reply: vec![-1; n],
            ownership: vec![0; wide(columns.ownership)],
            final_captures: vec![0.0; n * 2],
            features: features.map(|kind| (kind, vec![0.0; n * kind.planes() * area])),
        }
    }

    /// The columns of every sample of `games` (all on a `size` board),
    /// replayed and filled in parallel.
    ///
    /// # Errors
    /// A game that does not replay under its rules: its id and the illegal move.
    pub fn from_games(
        games: &[GameSamples],
        size: u8,
        columns: Columns,
        features: Option<Features>,
    ) -> Result<SampleArrays, (u64, ReplayError)> {
        let counts: Vec<usize> = games.iter().map(|g| g.samples.len()).collect();
        let samples = games.iter().flat_map(|g| &g.samples);
        let mut arrays = SampleArrays::allocate(size, counts.iter().sum(), samples, columns, features);
        arrays.rows_by_game(&counts).into_par_iter().zip(games).try_for_each(|(mut rows, game)| {
            let all: Vec<usize> = (0..game.samples.len()).collect();
            fill_game(game, &all, None, &mut rows).map_err(|e| (game.game_id, e))
        })?;
        Ok(arrays)
    }

    /// Every row, split into runs of `counts` rows.
    pub(crate) fn rows_by_game(&mut self, counts: &[usize]) -> Vec<Rows<'_>> {
        let (kind, features) = match &mut self.features {
            Some((kind, features)) => (Some(*kind), features.as_mut_slice()),
            None => (None, &mut [][..]),
        };
        let policy = match &mut self.policy {
            Policy::Dense(dense) => RowsPolicy::Dense(dense),
            Policy::Sparse { offsets, moves, probs } => RowsPolicy::Sparse { offsets, moves, probs },
        };
        let mut rest = Rows {
            area: usize::from(self.size) * usize::from(self.size),
            game_id: &mut self.game_id,
            variant: &mut self.variant,
            ply: &mut self.ply,
            board: &mut self.board,
            to_move: &mut self.to_move,
            captures: &mut self.captures,
            policy,
            value: &mut self.value,
            result: &mut self.result,
            reply: &mut self.reply,
            ownership: &mut self.ownership,
            final_captures: &mut self.final_captures,
            kind,
            features,
        };
        let mut runs = Vec::with_capacity(counts.len());
        for &count in counts {
            let (head, tail) = rest.split_at(count);
            runs.push(head);
            rest = tail;
        }
        runs
    }

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

    /// Writes the columns built as a NumPy `.npz`: one `.npy` a column,
    /// named and shaped as `docs/records.md` says; `size` a scalar.
    ///
    /// # Errors
    /// Any write error.
    pub fn write_npz<W: Write + Seek>(&self, writer: W) -> Result<W, WriteNpzError> {
        fn add<W: Write + Seek, T: WritableElement>(
            npz: &mut NpzWriter<W>,
            name: &str,
            data: &[T],
            shape: &[usize],
        ) -> Result<(), WriteNpzError> {
            let view = ArrayView::from_shape(IxDyn(shape), data).expect("columns have their documented shapes");
            npz.add_array(name, &view)
        }
        let (n, s) = (self.len(), usize::from(self.size));
        let mut npz = NpzWriter::new(writer);
        add(&mut npz, "size", &[self.size], &[])?;
        add(&mut npz, "game_id", &self.game_id, &[n])?;
        add(&mut npz, "variant", &self.variant, &[n])?;
        add(&mut npz, "ply", &self.ply, &[n])?;
        if self.columns.board {
            add(&mut npz, "board", &self.board, &[n, s, s])?;
        }
        add(&mut npz, "to_move", &self.to_move, &[n])?;
        add(&mut npz, "captures", &self.captures, &[n, 2])?;
        match &self.policy {
            Policy::Dense(policy) => add(&mut npz, "policy", policy, &[n, s * s])?,
            Policy::Sparse { offsets, moves, probs } => {
                add(&mut npz, "policy_offsets", offsets, &[n + 1])?;
                add(&mut npz, "policy_moves", moves, &[moves.len()])?;
                add(&mut npz, "policy_probs", probs, &[probs.len()])?;
            }
        }
        add(&mut npz, "value", &self.value, &[n])?;
        add(&mut npz, "result", &self.result, &[n])?;
        add(&mut npz, "reply", &self.reply, &[n])?;
        if self.columns.ownership {
            add(&mut npz, "ownership", &self.ownership, &[n, s, s])?;
        }
        add(&mut npz, "final_captures", &self.final_captures, &[n, 2])?;
        if let Some((kind, features)) = &self.features {
            add(&mut npz, "features", features, &[n, kind.planes(), s, s])?;
        }
        npz.finish()
    }
}

/// Fills the rows of `game`'s samples `which` (row `k` is sample
/// `which[k]`) as `pente train` builds its targets, walking the moves once
/// and keeping the board as an array. With the game's `last` position
/// known, the walk stops after the last sample.
pub(crate) fn fill_game(
    game: &GameSamples,
    which: &[usize],
    last: Option<&Position>,
    rows: &mut Rows<'_>,
) -> Result<(), ReplayError> {
    let size = game.rules.size();
    let area = rows.area;
    let variant = Variant::ALL.iter().position(|&v| v == game.rules.variant()).expect("a known variant") as u8;
    let result = game.result.winner().map_or(0, color_code);
    let mut order: Vec<usize> = (0..which.len()).collect();
    order.sort_by_key(|&k| game.samples[which[k]].ply);
    let plies = match (last, order.last()) {
        (Some(_), Some(&k)) => game.samples[which[k]].ply as usize + 1,
        (Some(_), None) => 0,
        (None, _) => game.moves.len(),
    };
    let mut next = order.iter().peekable();
    let mut position = Position::new(game.rules);
    let mut board = vec![0i8; area];
    let mut here = Vec::new();
    for (ply, &point) in game.moves.iter().enumerate().take(plies) {
        let mover = position.to_move();
        here.clear();
        while let Some(&&k) = next.peek().filter(|&&&k| game.samples[which[k]].ply as usize == ply) {
            next.next();
            here.push(k);
            let sample = &game.samples[which[k]];
            rows.game_id[k] = game.game_id;
            rows.variant[k] = variant;
            rows.ply[k] = sample.ply as i32;
            if !rows.board.is_empty() {
                rows.board[k * area..(k + 1) * area].copy_from_slice(&board);
            }
            rows.to_move[k] = color_code(mover);
            rows.captures[k * 2] = position.captured(Color::White) as i16;
            rows.captures[k * 2 + 1] = position.captured(Color::Black) as i16;
            let total = sample.policy.iter().map(|x| x.1).sum::<f32>().max(f32::MIN_POSITIVE);
            let entries = sample.policy.iter().filter(|(p, _)| !p.is_choice());
            match &mut rows.policy {
                RowsPolicy::Dense(dense) => {
                    for &(p, weight) in entries {
                        dense[k * area + p.dense_index(size)] += weight / total;
                    }
                }
                RowsPolicy::Sparse { offsets, moves, probs } => {
                    let start = (offsets[k] - offsets[0]) as usize;
                    for (j, &(p, weight)) in entries.enumerate() {
                        moves[start + j] = p.dense_index(size) as i32;
                        probs[start + j] = weight / total;
                    }
                }
            }
            rows.value[k] = value_for(game.result, mover);
            rows.result[k] = result;
            if let Some(kind) = rows.kind {
                let stride = kind.planes() * area;
                kind.encode(&position, &mut rows.features[k * stride..(k + 1) * stride]);
            }
        }
        let empty = position.empty_count();
        position.check(point).map_err(|reason| ReplayError::Illegal { ply: position.ply() + 1, point, reason })?;
        position.play_unchecked(point);
        if !point.is_choice() {
            match position.stone_at(point) {
                // One more stone and nothing else changed: the common case.
                Some(color) if position.empty_count() + 1 == empty => {
                    board[point.dense_index(size)] = color_code(color)
                }
                // Captures, poofs: the whole board again.
                _ => fill_board(&position, &mut board),
            }
        }
        let reply = reply_after(&game.moves, ply, mover, &position);
        for &k in &here {
            rows.reply[k] = reply.map_or(-1, |p| dense_or_minus_one(p, size));
        }
    }
    let last = last.unwrap_or(&position);
    let fraction =
        |stones: u16| last.rules().capture_win().map_or(0.0, |win| (f32::from(stones) / f32::from(win)).min(1.0));
    let fractions = [fraction(last.captured(Color::White)), fraction(last.captured(Color::Black))];
    let mut owners = vec![0i8; if rows.ownership.is_empty() { 0 } else { area }];
    fill_board(last, &mut owners);
    for k in 0..which.len() {
        let me = rows.to_move[k];
        if !owners.is_empty() {
            for (owner, &stone) in rows.ownership[k * area..(k + 1) * area].iter_mut().zip(&owners) {
                *owner = stone * me;
            }
        }
        let (mine, theirs) = if me == 1 { (0, 1) } else { (1, 0) };
        rows.final_captures[k * 2] = fractions[mine];
        rows.final_captures[k * 2 + 1] = fractions[theirs];
    }
    Ok(())
}
