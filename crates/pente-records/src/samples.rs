//! Training samples: a compact binary file (`samples.bin`) that the trainer
//! reads fast. A sample is a position (given as a game's moves and a ply)
//! with the search's policy target; the value target is the game's result.
//!
//! Layout (little-endian), documented in `docs/records.md`:
//! - header: `PENTESMP`, `u32` version (1), `u32` zero;
//! - then one chunk per game: `u32` payload length, the payload, and a `u32`
//!   FNV-1a checksum of the payload. The payload is `u64` game id, `u8`
//!   variant (index in [`Variant::ALL`]), `u8` size, `i8` result (1 White,
//!   -1 Black, 0 draw), `u8` zero, `u16` move count and the moves as `u16`
//!   dense indices (`y * size + x`; the colour choices `swap`, `stay` and
//!   `pass` of D-Pente and Swap2 as `0xFFF0`, `0xFFF1` and `0xFFF2`), `u16`
//!   sample count, and per sample `u16` ply (moves played before the
//!   position, choices included), `u16` entry count and entries of `u16`
//!   dense index and `u16` probability in 1/65535.
//!
//! A chunk is written whole or, after a crash, detected as cut short, so a
//! file can always be truncated back to its complete games.

use std::io::{self, Read, Write};

use pente_core::{Point, Rules, RulesError, Variant};
use thiserror::Error;

use crate::record::GameResult;

/// First bytes of a samples file.
pub const SAMPLES_MAGIC: &[u8; 8] = b"PENTESMP";
/// Version of the layout.
pub const SAMPLES_VERSION: u32 = 1;
/// Bytes before the first chunk.
pub const SAMPLES_HEADER_LEN: u64 = 16;

/// One position of a game with its policy target.
#[derive(Debug, Clone, PartialEq)]
pub struct PositionSample {
    /// Moves played before the position (an index into the game's moves,
    /// colour choices included).
    pub ply: u32,
    /// Target probabilities of moves (sum to about 1).
    pub policy: Vec<(Point, f32)>,
}

/// The samples of one game.
#[derive(Debug, Clone, PartialEq)]
pub struct GameSamples {
    /// Index of the game in its run.
    pub game_id: u64,
    /// The rules.
    pub rules: Rules,
    /// Every move of the game, White first.
    pub moves: Vec<Point>,
    /// The final result (value target).
    pub result: GameResult,
    /// The positions to learn from.
    pub samples: Vec<PositionSample>,
}

/// A samples file that cannot be read.
#[derive(Debug, Error)]
pub enum SamplesError {
    /// Reading failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// Not a samples file.
    #[error("not a samples file (no PENTESMP header)")]
    BadMagic,
    /// Written by a newer version.
    #[error("samples version {0} is not supported (this build reads version {SAMPLES_VERSION})")]
    Version(u32),
    /// The file ends inside a chunk.
    #[error("byte {offset}: the last game is cut short (an interrupted write)")]
    Truncated {
        /// Where the chunk starts.
        offset: u64,
    },
    /// A chunk's content is wrong.
    #[error("byte {offset}: corrupt game chunk: {message}")]
    Corrupt {
        /// Where the chunk starts.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// A chunk's variant has no board of its size.
    #[error("byte {offset}: corrupt game chunk: {source}")]
    BadRules {
        /// Where the chunk starts.
        offset: u64,
        /// Why the rules do not exist.
        source: RulesError,
    },
}

fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

/// Writes the file header.
///
/// # Errors
/// Any I/O error.
pub fn write_samples_header(w: &mut impl Write) -> io::Result<()> {
    w.write_all(SAMPLES_MAGIC)?;
    w.write_all(&SAMPLES_VERSION.to_le_bytes())?;
    w.write_all(&0u32.to_le_bytes())
}

/// Appends one game's chunk in a single write; returns the bytes written.
///
/// # Errors
/// Any I/O error.
///
/// # Panics
/// If the game has more than 65535 moves, samples or policy entries.
pub fn write_game_samples(w: &mut impl Write, game: &GameSamples) -> io::Result<usize> {
    let size = game.rules.size();
    let mut payload = Vec::with_capacity(16 + 2 * game.moves.len() + 64 * game.samples.len());
    payload.extend_from_slice(&game.game_id.to_le_bytes());
    let variant = Variant::ALL.iter().position(|&v| v == game.rules.variant()).expect("a known variant");
    let result: i8 = match game.result {
        GameResult::White => 1,
        GameResult::Black => -1,
        GameResult::Draw => 0,
    };
    payload.extend_from_slice(&[variant as u8, size, result as u8, 0]);
    let count = |n: usize| u16::try_from(n).expect("fewer than 65536 entries");
    payload.extend_from_slice(&count(game.moves.len()).to_le_bytes());
    for &point in &game.moves {
        payload.extend_from_slice(&move_code(point, size).to_le_bytes());
    }
    payload.extend_from_slice(&count(game.samples.len()).to_le_bytes());
    for sample in &game.samples {
        payload.extend_from_slice(&count(sample.ply as usize).to_le_bytes());
        payload.extend_from_slice(&count(sample.policy.len()).to_le_bytes());
        for &(point, p) in &sample.policy {
            payload.extend_from_slice(&move_code(point, size).to_le_bytes());
            let q = (p.clamp(0.0, 1.0) * 65535.0).round() as u16;
            payload.extend_from_slice(&q.to_le_bytes());
        }
    }
    let mut chunk = Vec::with_capacity(payload.len() + 8);
    chunk.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    chunk.extend_from_slice(&payload);
    chunk.extend_from_slice(&fnv1a(&payload).to_le_bytes());
    w.write_all(&chunk)?;
    Ok(chunk.len())
}

/// Reads games from a samples file, one chunk at a time.
pub struct SamplesReader<R> {
    reader: R,
    offset: u64,
    started: bool,
}

impl<R: Read> SamplesReader<R> {
    /// A reader over the whole file, header first.
    pub fn new(reader: R) -> SamplesReader<R> {
        SamplesReader { reader, offset: 0, started: false }
    }

    /// Bytes consumed so far: after a complete game, where the next one starts.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    fn read_header(&mut self) -> Result<(), SamplesError> {
        let mut header = [0u8; SAMPLES_HEADER_LEN as usize];
        self.reader.read_exact(&mut header).map_err(|_| SamplesError::BadMagic)?;
        if &header[..8] != SAMPLES_MAGIC {
            return Err(SamplesError::BadMagic);
        }
        let version = u32::from_le_bytes(header[8..12].try_into().expect("4 bytes"));
        if version != SAMPLES_VERSION {
            return Err(SamplesError::Version(version));
        }
        self.offset = SAMPLES_HEADER_LEN;
        Ok(())
    }

    fn next_game(&mut self) -> Result<Option<GameSamples>, SamplesError> {
        if !self.started {
            self.started = true;
            self.read_header()?;
        }
        let start = self.offset;
        let mut len = [0u8; 4];
        match read_full(&mut self.reader, &mut len)? {
            0 => return Ok(None),
            4 => {}
            _ => return Err(SamplesError::Truncated { offset: start }),
        }
        let len = u32::from_le_bytes(len) as usize;
        if len > 16 << 20 {
            return Err(SamplesError::Corrupt { offset: start, message: format!("chunk of {len} bytes") });
        }
        let mut payload = vec![0u8; len + 4];
        if read_full(&mut self.reader, &mut payload)? != payload.len() {
            return Err(SamplesError::Truncated { offset: start });
        }
        let checksum = u32::from_le_bytes(payload[len..].try_into().expect("4 bytes"));
        payload.truncate(len);
        if fnv1a(&payload) != checksum {
            return Err(SamplesError::Corrupt { offset: start, message: "checksum mismatch".into() });
        }
        let game = decode(&payload).map_err(|bad| bad.at(start))?;
        self.offset = start + 8 + len as u64;
        Ok(Some(game))
    }
}

impl<R: Read> Iterator for SamplesReader<R> {
    type Item = Result<GameSamples, SamplesError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_game().transpose()
    }
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// A cursor over a payload.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], String> {
        if self.0.len() < N {
            return Err("payload ends early".into());
        }
        let (head, rest) = self.0.split_at(N);
        self.0 = rest;
        Ok(head.try_into().expect("N bytes"))
    }

    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes(self.take()?))
    }
}

/// The code of the first colour choice (`swap`); `stay` and `pass` follow.
const CHOICE_CODE: u16 = 0xFFF0;

/// A move as stored: its dense index, or a colour choice's code.
fn move_code(point: Point, size: u8) -> u16 {
    match point.choice() {
        Some(choice) => CHOICE_CODE + choice as u16,
        None => u16::try_from(point.dense_index(size)).expect("a board has fewer than 65536 points"),
    }
}

/// The colour choice a stored code stands for, if it is one.
fn choice_of_code(code: u16) -> Option<Point> {
    pente_core::Choice::ALL.into_iter().find(|&c| CHOICE_CODE + c as u16 == code).map(pente_core::Choice::point)
}

/// What is wrong with a chunk's payload.
enum BadPayload {
    /// What is wrong, in words.
    Message(String),
    /// Its variant has no board of its size.
    Rules(RulesError),
}

impl From<String> for BadPayload {
    fn from(message: String) -> BadPayload {
        BadPayload::Message(message)
    }
}

impl BadPayload {
    /// The error of the chunk at `offset`.
    fn at(self, offset: u64) -> SamplesError {
        match self {
            BadPayload::Message(message) => SamplesError::Corrupt { offset, message },
            BadPayload::Rules(source) => SamplesError::BadRules { offset, source },
        }
    }
}

fn decode(payload: &[u8]) -> Result<GameSamples, BadPayload> {
    let mut b = Bytes(payload);
    let game_id = u64::from_le_bytes(b.take()?);
    let [variant, size, result, _] = b.take::<4>()?;
    let variant = *Variant::ALL.get(usize::from(variant)).ok_or(format!("unknown variant {variant}"))?;
    let rules = Rules::new(variant, size).map_err(BadPayload::Rules)?;
    let result = match result as i8 {
        1 => GameResult::White,
        -1 => GameResult::Black,
        0 => GameResult::Draw,
        other => return Err(format!("bad result {other}").into()),
    };
    let point = |index: u16| {
        choice_of_code(index)
            .or_else(|| Point::from_dense_index(usize::from(index), size))
            .ok_or(format!("point {index} off the board"))
    };
    let moves = (0..b.u16()?).map(|_| point(b.u16()?)).collect::<Result<Vec<_>, _>>()?;
    let mut samples = Vec::new();
    for _ in 0..b.u16()? {
        let ply = u32::from(b.u16()?);
        if ply as usize >= moves.len() {
            return Err(format!("sample at ply {ply} of a {}-move game", moves.len()).into());
        }
        let policy = (0..b.u16()?)
            .map(|_| Ok((point(b.u16()?)?, f32::from(b.u16()?) / 65535.0)))
            .collect::<Result<Vec<_>, String>>()?;
        samples.push(PositionSample { ply, policy });
    }
    if !b.0.is_empty() {
        return Err(format!("{} bytes left over", b.0.len()).into());
    }
    Ok(GameSamples { game_id, rules, moves, result, samples })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(id: u64) -> GameSamples {
        let rules = Rules::new(Variant::Keryo, 13).unwrap();
        let moves = pente_core::parse_move_list("G7 H8 G3 J9").unwrap();
        GameSamples {
            game_id: id,
            rules,
            moves: moves.clone(),
            result: GameResult::Black,
            samples: vec![
                PositionSample { ply: 0, policy: vec![(moves[0], 1.0)] },
                PositionSample { ply: 3, policy: vec![(moves[3], 0.8), (Point::new(0, 0), 0.2)] },
            ],
        }
    }

    #[test]
    fn round_trip_and_truncation() {
        let mut file = Vec::new();
        write_samples_header(&mut file).unwrap();
        write_game_samples(&mut file, &game(0)).unwrap();
        let first_end = file.len();
        write_game_samples(&mut file, &game(1)).unwrap();
        let games: Vec<_> = SamplesReader::new(&file[..]).collect::<Result<_, _>>().unwrap();
        assert_eq!(games, vec![game(0), game(1)]);
        // Probabilities are kept to 1/65535: 0.8 and 0.2 are exact.
        // Cut inside the second chunk: the first game reads, then a clear error.
        let cut = &file[..file.len() - 3];
        let mut reader = SamplesReader::new(cut);
        assert_eq!(reader.next().unwrap().unwrap(), game(0));
        assert_eq!(reader.offset(), first_end as u64);
        assert!(matches!(reader.next(), Some(Err(SamplesError::Truncated { .. }))));
        // A flipped byte is caught by the checksum.
        let mut bad = file.clone();
        bad[first_end + 10] ^= 1;
        let errors: Vec<_> = SamplesReader::new(&bad[..]).filter_map(Result::err).collect();
        assert!(matches!(errors[0], SamplesError::Corrupt { .. }));
        assert!(matches!(SamplesReader::new(&b"not a samples file"[..]).next(), Some(Err(SamplesError::BadMagic))));
    }

    #[test]
    fn a_board_the_variant_lacks_keeps_the_rules_error() {
        let mut file = Vec::new();
        write_samples_header(&mut file).unwrap();
        // Game 0, Pente on 12x12, a White win, no moves, no samples.
        let mut payload = 0u64.to_le_bytes().to_vec();
        payload.extend_from_slice(&[0, 12, 1, 0, 0, 0, 0, 0]);
        file.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        file.extend_from_slice(&payload);
        file.extend_from_slice(&fnv1a(&payload).to_le_bytes());
        let error = SamplesReader::new(&file[..]).next().unwrap().unwrap_err();
        let SamplesError::BadRules { offset: 16, source } = &error else { panic!("{error:?}") };
        assert_eq!(*source, RulesError::BadSize("12".into()));
        assert_eq!(error.to_string(), format!("byte 16: corrupt game chunk: {source}"));
    }
}
