//! `pente arena`: two players, colours alternated, openings paired.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use pente_core::Variant;
use pente_nn::BurnBackend;
use pente_search::Backend;
use pente_train::{ArenaConfig, PlayerKind, PlayerSpec, Records, play_match};

use crate::player::{BackendArgs, BookArgs};

/// Arguments of `pente arena`.
#[derive(Debug, Args)]
pub struct ArenaArgs {
    /// Player A: `heuristic`, `uniform` or a model directory (or its ONNX file, e.g.
    /// `DIR/model.int8.onnx`, on ONNX Runtime), with `@visits` (default 64, or --level), `@1.5s` (a time per move), `@levelN` (a strength level, 1-9) or
    /// `@clock60+1` (a game clock: 60 s and 1 s more a move; running out loses), and
    /// `+nosolver` to search without the threat solver or `+verifyN` to check the N best moves
    /// for a forced win of the opponent after the search; or `pente-text:LEVEL` (Debian's
    /// `pente -text`, levels 1-9, 19x19 Pente, no random openings).
    #[arg(long)]
    a: String,
    /// Player B, as for --a.
    #[arg(long)]
    b: String,
    /// The strength level (1-9) of each of --a and --b given without a budget of its own.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=i64::from(pente_search::level::LEVELS)))]
    level: Option<u8>,
    /// Games (rounded up to pairs with colours swapped).
    #[arg(long, default_value_t = 20)]
    games: u32,
    /// Rule variant.
    #[arg(value_parser = crate::variant_parser(), ignore_case = true, long, default_value = "pente")]
    variant: Variant,
    /// Board side.
    #[arg(long, default_value_t = 19)]
    size: u8,
    /// Random moves opening each pair of games (none against pente-text).
    #[arg(long, default_value_t = 2)]
    opening_plies: u32,
    /// Seed of the openings.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write the games as JSONL records here, each as it ends.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Go on from the games of this match already in --out (a killed run):
    /// they are kept and counted, and only the others are played.
    #[arg(long, requires = "out")]
    resume: bool,
    /// An opening book player A plays from while the game is in it (its
    /// name gets `+book`); --book-variety draws among its near-best moves.
    #[command(flatten)]
    book: BookArgs,
    /// An opening book for player B.
    #[arg(long, value_name = "BOOK")]
    book_b: Option<PathBuf>,
    /// Change one of player A's search settings, as in a config's `search`
    /// table: `c_puct=2.0`, `fpu_reduction=0.1`, `tactics.verify_moves=3`
    /// (repeat it for more). For tuning a setting against the player without it.
    #[arg(long, value_name = "SETTING=VALUE")]
    set_a: Vec<String>,
    /// Change one of player B's search settings, as --set-a does for A.
    #[arg(long, value_name = "SETTING=VALUE")]
    set_b: Vec<String>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

/// Runs `pente arena`.
pub fn run(args: &ArenaArgs) -> anyhow::Result<ExitCode> {
    let rules = crate::rules(args.variant, args.size)?;
    let a = PlayerSpec::parse_at(&args.a, args.level).map_err(|e| anyhow::anyhow!("--a: {e}"))?;
    let b = PlayerSpec::parse_at(&args.b, args.level).map_err(|e| anyhow::anyhow!("--b: {e}"))?;
    let networks = [&a, &b].iter().any(|spec| matches!(spec.kind, PlayerKind::Model(_)));
    let backend: Arc<dyn Backend> = if networks { args.backend.choose()? } else { Arc::new(BurnBackend::cpu()) };
    let mut a = a.load(backend.as_ref())?.with_settings(&args.set_a).map_err(|e| anyhow::anyhow!("--set-a: {e}"))?;
    let mut b = b.load(backend.as_ref())?.with_settings(&args.set_b).map_err(|e| anyhow::anyhow!("--set-b: {e}"))?;
    if let Some(book) = args.book.open(Some(rules))? {
        a = a.with_book(book)?;
    }
    let book_b = BookArgs { book: args.book_b.clone(), book_variety: args.book.book_variety };
    if let Some(book) = book_b.open(Some(rules))? {
        b = b.with_book(book)?;
    }
    let config = ArenaConfig { games: args.games.max(1), rules, opening_plies: args.opening_plies, seed: args.seed };
    let bar = if args.quiet { ProgressBar::hidden() } else { ProgressBar::new(u64::from(config.games)) };
    bar.set_style(
        ProgressStyle::with_template("arena {bar:30} {pos}/{len} games  eta {eta}").expect("a valid template"),
    );
    let records = args.out.as_deref().map(|path| Records { path, resume: args.resume });
    let result = play_match(&a, &b, &config, records, &mut |done, total| {
        bar.set_length(u64::from(total));
        bar.set_position(u64::from(done));
    })?;
    bar.finish_and_clear();
    println!("{result}");
    Ok(ExitCode::SUCCESS)
}
