//! A samples file read in chunks of whole games.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use pente_records::{GameSamples, SamplesError, SamplesReader};

use crate::{DatasetError, ReadOptions, SampleArrays};

/// A samples file read in chunks of whole games.
pub struct SampleChunks {
    path: PathBuf,
    reader: SamplesReader<BufReader<File>>,
    options: ReadOptions,
    /// The board size of the games read.
    pub(crate) size: Option<u8>,
    /// Whether games of every size are read (a training window), instead of
    /// another size than the first being an error.
    pub(crate) mixed_sizes: bool,
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
            mixed_sizes: false,
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
        SampleArrays::from_games(&games, size, self.options.columns, self.options.features)
            .map(Some)
            .map_err(|(game, source)| DatasetError::Replay { path: self.path.clone(), game, source })
    }

    /// Every remaining sample in one chunk (empty columns if none).
    ///
    /// # Errors
    /// As [`SampleChunks::next_chunk`].
    pub fn read_all(&mut self) -> Result<SampleArrays, DatasetError> {
        let (columns, features) = (self.options.columns, self.options.features);
        let size = self.size.unwrap_or(pente_core::MAX_SIZE);
        Ok(self.next_chunk(usize::MAX)?.unwrap_or_else(|| SampleArrays::allocate(size, 0, [], columns, features)))
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
                        (None, Some(first)) if size != first && !self.mixed_sizes => {
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
