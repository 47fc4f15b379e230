//! The output directory of a run: `games.csv`, `games.jsonl`, `samples.bin`
//! and the effective `selfplay.toml`.
//!
//! Games are appended in id order, each flushed before the next, so the
//! files always hold games `0..n` plus at most a cut-short record after a
//! kill. Opening the directory again truncates every file back to the games
//! complete in all three, and the run goes on from there.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use pente_records::{
    CsvGame, JsonGame, SAMPLES_HEADER_LEN, SamplesError, SamplesReader, write_csv_header, write_csv_row,
    write_game_samples, write_jsonl_game, write_samples_header,
};

use crate::config::SelfPlayConfig;
use crate::error::{SelfPlayError, io};
use crate::game::FinishedGame;

/// The games table.
pub const CSV_FILE: &str = "games.csv";
/// The games with search data.
pub const JSONL_FILE: &str = "games.jsonl";
/// The training samples.
pub const SAMPLES_FILE: &str = "samples.bin";
/// The effective config of the run.
pub const CONFIG_FILE: &str = "selfplay.toml";

/// The open output files of a run.
pub struct Output {
    dir: PathBuf,
    csv: File,
    jsonl: File,
    samples: File,
    games: u64,
}

/// Byte offsets just after each complete line of a text file.
fn line_ends(path: &Path) -> Result<Vec<u64>, SelfPlayError> {
    let file = File::open(path).map_err(io(path))?;
    let mut reader = BufReader::new(file);
    let mut ends = Vec::new();
    let mut offset = 0u64;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(io(path))?;
        if n == 0 || line.last() != Some(&b'\n') {
            break;
        }
        offset += n as u64;
        ends.push(offset);
    }
    Ok(ends)
}

/// Offsets where the complete games of a samples file end, the header's end first.
fn sample_ends(path: &Path) -> Result<Vec<u64>, SelfPlayError> {
    let file = File::open(path).map_err(io(path))?;
    let mut reader = SamplesReader::new(BufReader::new(file));
    let mut ends = vec![SAMPLES_HEADER_LEN];
    loop {
        match reader.next() {
            Some(Ok(game)) if game.game_id == (ends.len() - 1) as u64 => ends.push(reader.offset()),
            Some(Err(error @ (SamplesError::BadMagic | SamplesError::Version(_)))) => {
                return Err(SelfPlayError::Samples { path: path.to_path_buf(), source: error });
            }
            // The end, or a cut-short or corrupt chunk: the usable part ends here.
            _ => return Ok(ends),
        }
    }
}

fn open_append(path: &Path) -> Result<File, SelfPlayError> {
    OpenOptions::new().create(true).append(true).open(path).map_err(io(path))
}

fn truncate(path: &Path, len: u64) -> Result<(), SelfPlayError> {
    let file = OpenOptions::new().write(true).open(path).map_err(io(path))?;
    file.set_len(len).map_err(io(path))?;
    file.sync_all().map_err(io(path))
}

/// Writes `text` to `path` through a temporary file and a rename, so a
/// reader never sees half a file.
///
/// # Errors
/// [`SelfPlayError::Io`] naming the file.
pub fn write_atomically(path: &Path, text: &str) -> Result<(), SelfPlayError> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))
}

impl Output {
    /// Opens (or creates) the output directory for `config`, truncating the
    /// files to their complete games. Fails if the directory holds a run
    /// with other settings.
    ///
    /// # Errors
    /// [`SelfPlayError`] naming the file that cannot be read or written, or
    /// the setting that differs from the run already there.
    pub fn open(dir: &Path, config: &SelfPlayConfig) -> Result<Output, SelfPlayError> {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let config_path = dir.join(CONFIG_FILE);
        if config_path.exists() {
            let previous = SelfPlayConfig::load(&config_path)?;
            if !previous.same_games_as(config) {
                return Err(SelfPlayError::Output {
                    path: config_path,
                    message: "this directory holds a run with other settings; use another --out, or the same \
                              settings (only games, threads and games_in_flight may change)"
                        .into(),
                });
            }
        }
        write_atomically(&config_path, &config.to_toml())?;

        let csv_path = dir.join(CSV_FILE);
        let jsonl_path = dir.join(JSONL_FILE);
        let samples_path = dir.join(SAMPLES_FILE);
        for path in [&csv_path, &jsonl_path] {
            if !path.exists() {
                File::create(path).map_err(io(path))?;
            }
        }
        if std::fs::metadata(&samples_path).map_or(true, |m| m.len() == 0) {
            let mut file = File::create(&samples_path).map_err(io(&samples_path))?;
            write_samples_header(&mut file).map_err(io(&samples_path))?;
        }
        let csv_ends = line_ends(&csv_path)?;
        let jsonl_ends = line_ends(&jsonl_path)?;
        let sample_ends = sample_ends(&samples_path)?;
        // The CSV's first line is its header.
        let csv_games = csv_ends.len().saturating_sub(1);
        let games = csv_games.min(jsonl_ends.len()).min(sample_ends.len() - 1);
        if csv_ends.is_empty() {
            truncate(&csv_path, 0)?;
            let mut file = open_append(&csv_path)?;
            write_csv_header(&mut file).map_err(io(&csv_path))?;
        } else {
            truncate(&csv_path, csv_ends[games])?;
        }
        truncate(&jsonl_path, if games == 0 { 0 } else { jsonl_ends[games - 1] })?;
        truncate(&samples_path, sample_ends[games])?;
        let output = Output {
            csv: open_append(&csv_path)?,
            jsonl: open_append(&jsonl_path)?,
            samples: open_append(&samples_path)?,
            dir: dir.to_path_buf(),
            games: games as u64,
        };
        output.check_last_game(&jsonl_path)?;
        Ok(output)
    }

    /// The last kept game must be game `games - 1`: the files were written in order.
    fn check_last_game(&self, jsonl_path: &Path) -> Result<(), SelfPlayError> {
        if self.games == 0 {
            return Ok(());
        }
        let mut file = File::open(jsonl_path).map_err(io(jsonl_path))?;
        let len = file.seek(SeekFrom::End(0)).map_err(io(jsonl_path))?;
        let tail = len.saturating_sub(1 << 20);
        file.seek(SeekFrom::Start(tail)).map_err(io(jsonl_path))?;
        let mut text = String::new();
        std::io::Read::read_to_string(&mut file, &mut text).map_err(io(jsonl_path))?;
        let last = text.trim_end().rsplit('\n').next().unwrap_or("");
        let game: JsonGame = serde_json::from_str(last)
            .map_err(|source| SelfPlayError::LastGame { path: jsonl_path.to_path_buf(), source })?;
        if game.game_id + 1 != self.games {
            return Err(SelfPlayError::Output {
                path: jsonl_path.to_path_buf(),
                message: format!("expected game {} last, found game {}", self.games - 1, game.game_id),
            });
        }
        Ok(())
    }

    /// Games complete in all files.
    #[must_use]
    pub fn games(&self) -> u64 {
        self.games
    }

    /// The directory.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends the next game to every file and flushes them.
    ///
    /// # Panics
    /// If the game is not the next one in id order.
    ///
    /// # Errors
    /// [`SelfPlayError::Io`] naming the file.
    pub fn append(&mut self, game: &FinishedGame) -> Result<(), SelfPlayError> {
        assert_eq!(game.record.game_id, self.games, "games are written in id order");
        // Samples first, the CSV last: a kill between writes leaves the CSV
        // (the table users read) no longer than the other two.
        let path = self.dir.join(SAMPLES_FILE);
        write_game_samples(&mut self.samples, &game.samples).map_err(io(&path))?;
        self.samples.flush().map_err(io(&path))?;
        let path = self.dir.join(JSONL_FILE);
        let mut line = Vec::new();
        write_jsonl_game(&mut line, &game.record).map_err(io(&path))?;
        self.jsonl.write_all(&line).map_err(io(&path))?;
        let path = self.dir.join(CSV_FILE);
        let mut row = Vec::new();
        write_csv_row(&mut row, &CsvGame::from_json(&game.record)).map_err(io(&path))?;
        self.csv.write_all(&row).map_err(io(&path))?;
        self.games += 1;
        Ok(())
    }
}
