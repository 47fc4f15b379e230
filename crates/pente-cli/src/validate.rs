//! `pente validate`: replay every game of some record files and report the
//! invalid ones. The reading and checking live in `pente_records`; this file
//! only prints.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use pente_core::{Rules, Variant};
use pente_records::{Format, GameReport, Summary, validate_csv, validate_jsonl, validate_text};

/// Arguments of `pente validate`.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// Record files: pente.org PGN (first non-blank line starts with `[`),
    /// self-play `games.csv` (`.csv`, or the header as first line) and
    /// `games.jsonl` (`.jsonl`, or a first line starting with `{`), or move
    /// lists (one game per line, `#` comments).
    #[arg(required_unless_present = "store", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Also every chunk of a store of distributed self-play (its games.csv
    /// and games.jsonl; a directory or an object store URL).
    #[arg(long, value_name = "STORE")]
    pub store: Option<String>,
    /// Variant of the games in move-list files (PGN files name their own).
    #[arg(value_parser = crate::variant_parser(), ignore_case = true, long, default_value = "pente")]
    pub variant: Variant,
    /// Board size of the games in move-list files: odd, 7 to 19.
    #[arg(long, default_value_t = 19)]
    pub size: u8,
    /// Print only the summary, not each invalid game.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Runs `pente validate`; the exit code is failure if any game is invalid or any file unreadable.
///
/// Prints `FILE:LINE: game N: reason` for each invalid game, then
/// `N games: V valid, I invalid (U unfinished)` (per file and in total when
/// there are several files). Unreadable files are reported on stderr and the
/// other files are still checked.
///
/// # Errors
/// Bad `--variant`/`--size`, or stdout failing for a reason other than a
/// closed pipe.
pub fn run(args: &ValidateArgs) -> anyhow::Result<ExitCode> {
    let rules = Rules::new(args.variant, args.size).context("--variant/--size")?;
    let mut files = args.files.clone();
    for dir in crate::store::chunk_dirs(args.store.as_deref())? {
        files.extend([dir.join(pente_selfplay::CSV_FILE), dir.join(pente_selfplay::JSONL_FILE)]);
    }
    let mut out = io::stdout().lock();
    match validate_files(&files, args, rules, &mut out) {
        Ok(all_good) => Ok(if all_good { ExitCode::SUCCESS } else { ExitCode::FAILURE }),
        // A closed pipe (`pente validate ... | head`) is not an error.
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(err) => Err(err).context("writing to stdout"),
    }
}

/// Checks every file, printing as it goes; returns whether all was well.
fn validate_files(files: &[PathBuf], args: &ValidateArgs, rules: Rules, out: &mut impl Write) -> io::Result<bool> {
    let several = files.len() > 1;
    let mut total = Summary::default();
    let mut unreadable = 0;
    for path in files {
        let summary = match validate_file(path, rules, args.quiet, out) {
            Ok(summary) => summary?,
            Err(err) => {
                unreadable += 1;
                // stderr may be closed too; nothing more to do then.
                let _ = writeln!(io::stderr(), "{}: error: {err}", path.display());
                continue;
            }
        };
        if several && !args.quiet {
            writeln!(out, "{}: {summary}", path.display())?;
        }
        total += summary;
    }
    let prefix = if several { "total: " } else { "" };
    match unreadable {
        0 => writeln!(out, "{prefix}{total}")?,
        1 => writeln!(out, "{prefix}{total}; 1 file unreadable")?,
        n => writeln!(out, "{prefix}{total}; {n} files unreadable")?,
    }
    out.flush()?;
    Ok(total.invalid == 0 && unreadable == 0)
}

/// Checks one file, printing its invalid games unless `quiet`. The outer
/// error says why the file cannot be read at all; the inner one is from `out`.
///
/// Datasets (`games.csv`, `games.jsonl`) are read and checked one game at a
/// time, so that a file of any size is checked in constant memory; record
/// files are read whole.
fn validate_file(path: &Path, rules: Rules, quiet: bool, out: &mut impl Write) -> Result<io::Result<Summary>, String> {
    let file = File::open(path).map_err(|e| format!("cannot read: {e}"))?;
    let mut input = BufReader::with_capacity(1 << 16, file);
    let format = match Format::from_extension(path) {
        Some(format) => format,
        None => {
            let start = input.fill_buf().map_err(|e| format!("cannot read: {e}"))?;
            Format::detect(&String::from_utf8_lossy(start))
        }
    };
    let reports: Box<dyn Iterator<Item = GameReport>> = match format {
        Format::Csv => Box::new(validate_csv(input)),
        Format::Jsonl => Box::new(validate_jsonl(input)),
        _ => {
            let text = read_text(input)?;
            Box::new(validate_text(&text, format, rules).games.into_iter())
        }
    };
    let mut summary = Summary::default();
    for game in reports {
        summary.count(&game);
        if !quiet && let Some(problem) = game.problem() {
            let written = writeln!(out, "{}:{}: game {}: {problem}", path.display(), game.line, game.number);
            if let Err(err) = written {
                return Ok(Err(err));
            }
        }
    }
    Ok(Ok(summary))
}

/// The rest of the file as text, or why it cannot be had.
fn read_text(mut input: impl Read) -> Result<String, String> {
    let mut bytes = Vec::new();
    input.read_to_end(&mut bytes).map_err(|e| format!("cannot read: {e}"))?;
    String::from_utf8(bytes).map_err(|e| format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))
}
