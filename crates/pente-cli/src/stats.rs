//! `pente stats`: who wins, overall and per opening, or what is played next
//! from a position. The counting and the tables live in `pente_analysis`;
//! this file reads the flags and prints.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use pente_analysis::{Format, ReportOptions, SortKey, Stats, StatsOptions};
use pente_core::{MAX_SIZE, Variant, parse_move_list};

/// Arguments of `pente stats`.
#[derive(Debug, clap::Args)]
pub struct StatsArgs {
    /// Game files, mixed freely: games.csv, games.jsonl (self-play datasets)
    /// or pente.org PGN; the format comes from the extension or first line.
    #[arg(required_unless_present = "store", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Also every chunk of a store of distributed self-play (a directory or an object store URL).
    #[arg(long, value_name = "STORE")]
    pub store: Option<String>,
    /// Moves per opening.
    #[arg(long, default_value_t = 3, value_name = "D")]
    pub depth: usize,
    /// List only openings (or next moves) played in at least N games.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub min_games: u64,
    /// Order of openings and next moves: games, white (White's win rate),
    /// black (Black's win rate) or name.
    #[arg(long, default_value = "games", value_name = "KEY")]
    pub sort: SortKey,
    /// List at most N openings or next moves (0: all).
    #[arg(long, default_value_t = 25, value_name = "N")]
    pub top: usize,
    /// Explorer view: the moves played next from the position after these
    /// moves (e.g. "K10 L9"), counting its mirror images too; replaces the
    /// openings table.
    #[arg(long, value_name = "MOVES")]
    pub moves: Option<String>,
    /// Output: table (aligned, for a terminal), markdown, csv (every row of
    /// every section in one table) or json.
    #[arg(long, default_value = "table", value_name = "F")]
    pub format: Format,
    /// Count the same stones reached in another move order as one opening
    /// (and position).
    #[arg(long)]
    pub merge_transpositions: bool,
    /// Count only games of this variant.
    #[arg(value_parser = crate::variant_parser(), ignore_case = true, long)]
    pub variant: Option<Variant>,
    /// Count only games on this board size.
    #[arg(long)]
    pub size: Option<u8>,
    /// Skip bad records, reporting each on stderr, instead of stopping at the first.
    #[arg(long)]
    pub skip_bad: bool,
}

/// Runs `pente stats`.
///
/// A bad record stops the run with `error: FILE:LINE: what is wrong` and
/// exit code 1 (nothing on stdout), unless `--skip-bad`: then each is
/// reported on stderr as `FILE:LINE: skipped: ...`, the report counts them,
/// and the exit code is 0. A bad `--moves` exits with code 2.
///
/// # Errors
/// A bad record or unreadable file, or stdout failing for a reason other
/// than a closed pipe.
pub fn run(args: &StatsArgs) -> anyhow::Result<ExitCode> {
    let moves = match args.moves.as_deref().map(parse_move_list).transpose() {
        Ok(moves) => moves,
        Err(error) => return Err(crate::usage_error(&format!("--moves: {error}"))),
    };
    // A point no board of the games has would silently match nothing.
    let side = args.size.unwrap_or(MAX_SIZE);
    if let Some((ply, point)) =
        moves.iter().flatten().enumerate().find(|(_, p)| !p.is_choice() && (p.x() >= side || p.y() >= side))
    {
        let error = format!("--moves: move {}: {point} is off the {side}x{side} board", ply + 1);
        return Err(crate::usage_error(&error));
    }
    let options = StatsOptions {
        depth: args.depth,
        merge_transpositions: args.merge_transpositions,
        moves,
        variant: args.variant,
        size: args.size,
    };
    let mut files = args.files.clone();
    files.extend(
        crate::store::chunk_dirs(args.store.as_deref())?.into_iter().map(|d| d.join(pente_selfplay::JSONL_FILE)),
    );
    let mut stats = Stats::new(options);
    let skipped = stats.read_files(&files, args.skip_bad, |error| {
        // stderr may be closed; the count in the report still tells.
        let _ = writeln!(io::stderr(), "{}", skipped_line(error));
    })?;
    let mut report = stats.report(&ReportOptions { min_games: args.min_games, sort: args.sort, top: args.top });
    report.files = files.iter().map(|p| p.display().to_string()).collect();
    report.skipped = skipped;
    let mut out = BufWriter::new(io::stdout().lock());
    report.write(args.format, &mut out).and_then(|()| out.flush()).context("writing to stdout")?;
    Ok(ExitCode::SUCCESS)
}

/// `FILE:LINE: skipped: what is wrong`.
fn skipped_line(error: &pente_analysis::InputError) -> String {
    let place = match error.line {
        Some(line) => format!("{}:{line}", error.path.display()),
        None => error.path.display().to_string(),
    };
    format!("{place}: skipped: {}", error.message)
}
