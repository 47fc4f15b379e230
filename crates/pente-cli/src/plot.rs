//! `pente plot`: PNG pictures of next-move statistics on the board and of a
//! training run's curves. The drawing lives in `pente_analysis::plot`.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use pente_analysis::plot::{BoardMap, write_campaign_comparison, write_heatmaps, write_training_curves};
use pente_analysis::training::{losses_by_iteration, read_elo, read_metrics};
use pente_analysis::{Stats, StatsOptions};
use pente_core::{Point, Rules, Variant, format_move_list, parse_move_list};

/// `pente plot` subcommands.
#[derive(Debug, Subcommand)]
pub enum PlotCommand {
    /// Heatmaps of the next moves from a position: how often each was
    /// played and how the player who played it scored. Without --moves:
    /// Black's reply to the centre stone, and White's (restricted) third
    /// move after the most played reply.
    Heatmap(HeatmapArgs),
    /// Loss by iteration and Elo by CPU-hour (or iteration) from a training
    /// run directory (runs/<name>/metrics.csv and elo.csv).
    Training(TrainingArgs),
    /// Several campaigns' Elo by CPU-hour in one chart, each with its
    /// networks and fixed baselines (e.g. data/models/campaign and
    /// data/models/campaign-6x64, which was grown from it and so shares its
    /// Elo scale).
    Campaigns(CampaignsArgs),
}

/// Arguments of `pente plot campaigns`.
#[derive(Debug, clap::Args)]
pub struct CampaignsArgs {
    /// Campaign directories (or run directories), each with an elo.csv whose
    /// rows all have cpu_hours.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// The PNG to write.
    #[arg(long, default_value = "campaigns.png")]
    pub out: PathBuf,
}

/// Arguments of `pente plot heatmap`.
#[derive(Debug, clap::Args)]
pub struct HeatmapArgs {
    /// Game files: games.csv, games.jsonl or pente.org PGN.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The position, e.g. "K10 L9" (default: the centre stone, then the
    /// centre stone and its most played reply).
    #[arg(long, value_name = "MOVES")]
    pub moves: Option<String>,
    /// The PNG to write: one row of two boards per position.
    #[arg(long, default_value = "heatmap.png")]
    pub out: PathBuf,
    /// Variant of the games to count.
    #[arg(value_parser = crate::variant_parser(), ignore_case = true, long, default_value = "pente")]
    pub variant: Variant,
    /// Board size of the games to count.
    #[arg(long, default_value_t = 19)]
    pub size: u8,
    /// Show a score only for moves played in at least N games.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub min_games: u64,
    /// Match the position by its stones, whatever their order.
    #[arg(long)]
    pub merge_transpositions: bool,
    /// Skip bad records, reporting each on stderr, instead of stopping at the first.
    #[arg(long)]
    pub skip_bad: bool,
}

/// Arguments of `pente plot training`.
#[derive(Debug, clap::Args)]
pub struct TrainingArgs {
    /// The run directory (or a campaign's model directory), holding
    /// metrics.csv (iteration,step,samples,policy_loss,value_loss,
    /// learning_rate,samples_per_second) and, if the run rated its models,
    /// elo.csv (iteration,model,elo,elo_low,elo_high,games,cpu_hours). Elo
    /// is drawn by CPU-hour where every row has cpu_hours, else by iteration.
    #[arg(value_name = "RUN_DIR")]
    pub run: PathBuf,
    /// The PNG to write.
    #[arg(long, default_value = "curves.png")]
    pub out: PathBuf,
    /// Draw the Elo ratings alone, without the loss curves (for a
    /// campaign's folder exported before 2026-12-06, whose metrics.csv holds
    /// only its last sitting).
    #[arg(long)]
    pub elo_only: bool,
}

/// Runs `pente plot`.
///
/// # Errors
/// Unreadable or bad input, or a picture that cannot be written.
pub fn run(command: &PlotCommand) -> anyhow::Result<ExitCode> {
    match command {
        PlotCommand::Heatmap(args) => heatmap(args),
        PlotCommand::Training(args) => training(args),
        PlotCommand::Campaigns(args) => campaigns(args),
    }
}

fn heatmap(args: &HeatmapArgs) -> anyhow::Result<ExitCode> {
    let rules = match Rules::new(args.variant, args.size) {
        Ok(rules) => rules,
        Err(error) => return Err(crate::usage_error(&format!("--variant/--size: {error}"))),
    };
    let given = match args.moves.as_deref().map(parse_move_list).transpose() {
        Ok(moves) => moves,
        Err(error) => return Err(crate::usage_error(&format!("--moves: {error}"))),
    };
    let first = given.clone().unwrap_or_else(|| vec![rules.centre()]);
    let mut maps = vec![match board_map(args, rules, &first)? {
        Ok(map) => map,
        Err(error) => return Err(crate::usage_error(&format!("--moves: {error}"))),
    }];
    if given.is_none()
        && let Some(reply) = maps[0].most_played()
    {
        let second = vec![rules.centre(), reply];
        match board_map(args, rules, &second)? {
            Ok(map) => maps.push(map),
            Err(error) => anyhow::bail!("after {}: {error}", format_move_list(&second, false)),
        }
    }
    write_heatmaps(&maps, args.min_games, &args.out)?;
    let positions: Vec<String> = maps
        .iter()
        .map(|m| {
            let after = if m.moves.is_empty() { "the start".to_string() } else { format_move_list(&m.moves, false) };
            format!("after {after}: {} games went on", m.games)
        })
        .collect();
    say(&format!("wrote {} ({rules}; {})", args.out.display(), positions.join("; ")))
}

/// Counts the next moves from `moves` over the files. The outer error is
/// bad input; the inner one, moves that do not replay.
fn board_map(args: &HeatmapArgs, rules: Rules, moves: &[Point]) -> anyhow::Result<Result<BoardMap, String>> {
    let mut stats = Stats::new(StatsOptions {
        depth: 0,
        merge_transpositions: args.merge_transpositions,
        moves: Some(moves.to_vec()),
        variant: Some(rules.variant()),
        size: Some(rules.size()),
    });
    stats.read_files(&args.files, args.skip_bad, |error| {
        let _ = writeln!(io::stderr(), "{error} (skipped)");
    })?;
    Ok(BoardMap::new(&stats, rules, moves))
}

fn training(args: &TrainingArgs) -> anyhow::Result<ExitCode> {
    let metrics_path = args.run.join("metrics.csv");
    let elo_path = args.run.join("elo.csv");
    if !metrics_path.is_file() && !elo_path.is_file() {
        anyhow::bail!("{}: no metrics.csv or elo.csv (is this a training run directory?)", args.run.display());
    }
    let losses = if metrics_path.is_file() && !args.elo_only {
        losses_by_iteration(&read_metrics(&metrics_path)?)
    } else {
        Vec::new()
    };
    let elo = if elo_path.is_file() { read_elo(&elo_path)? } else { Vec::new() };
    let title = format!("Training run {}", run_name(&args.run));
    write_training_curves(&losses, &elo, &title, &args.out)
        .with_context(|| format!("plotting {}", args.run.display()))?;
    say(&format!("wrote {} ({} iterations with losses, {} ratings)", args.out.display(), losses.len(), elo.len()))
}

fn campaigns(args: &CampaignsArgs) -> anyhow::Result<ExitCode> {
    let mut campaigns = Vec::new();
    for dir in &args.dirs {
        let path = dir.join("elo.csv");
        if !path.is_file() {
            anyhow::bail!("{}: no elo.csv (is this a campaign or run directory?)", dir.display());
        }
        campaigns.push((run_name(dir), read_elo(&path)?));
    }
    let names: Vec<&str> = campaigns.iter().map(|(name, _)| name.as_str()).collect();
    let title = format!("Campaigns {}", names.join(", "));
    write_campaign_comparison(&campaigns, &title, &args.out).context("plotting the campaigns")?;
    let ratings: usize = campaigns.iter().map(|(_, elo)| elo.len()).sum();
    say(&format!("wrote {} ({} campaigns, {ratings} ratings)", args.out.display(), campaigns.len()))
}

/// The run's directory name, for the title.
fn run_name(run: &Path) -> String {
    let absolute = run.canonicalize().unwrap_or_else(|_| run.to_path_buf());
    absolute.file_name().map_or_else(|| run.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// Prints one line on stdout.
fn say(line: &str) -> anyhow::Result<ExitCode> {
    writeln!(io::stdout(), "{line}").context("writing to stdout")?;
    Ok(ExitCode::SUCCESS)
}
