//! `pente book`: grow an opening book by strong self-play, query it, and
//! turn books into the fairness table. The book itself lives in `pente_book`.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use pente_book::fairness::{Fairness, fairness};
use pente_book::shared::{
    CoordinatorOptions, MakeEvaluatorBox, SharedEvent, WorkerOptions, build_shared, project_name, work_shared,
};
use pente_book::{Book, BookSettings, NodeView, Phase, Progress};
use pente_core::{format_move_list, parse_move_list};
use pente_nn::BurnBackend;
use pente_search::Backend;
use pente_selfplay::ModelSource;

use crate::player::{BackendArgs, DEFAULT_MODEL_DIR, default_model_dir};

/// `pente book ...`.
#[derive(Debug, Subcommand)]
pub enum BookCommand {
    /// Grow an opening book (or go on growing one): evaluate nodes, expand
    /// the best moves, play games out from each node.
    Build(BuildArgs),
    /// A node of a book and its moves: games, White's score, values, best line.
    Show(ShowArgs),
    /// The first player's score per variant, from the games books played out from the empty board.
    Fairness(FairnessArgs),
    /// Play the games of book builds shared over a store (`pente book build
    /// --store`), batch by batch, until killed or, with --until-idle, until
    /// none is left.
    Work(WorkArgs),
}

/// Arguments of `pente book build`.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The book file (SQLite); created if missing, else built on.
    #[arg(long, value_name = "BOOK")]
    out: PathBuf,
    /// The settings (TOML, e.g. configs/book-pente.toml); a book that exists
    /// keeps its own unless one is given.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The player: a model directory, `heuristic` or `uniform` (default: the shipped network).
    #[arg(long)]
    model: Option<String>,
    /// Worker threads (0 = one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// The variant (overrides the settings'; e.g. one settings file for
    /// every variant of the fairness study).
    #[arg(long, value_parser = crate::variant_parser(), ignore_case = true)]
    variant: Option<pente_core::Variant>,
    /// The board size (overrides the settings').
    #[arg(long)]
    size: Option<u8>,
    /// Games played out from the empty board (overrides the settings' games.root).
    #[arg(long, value_name = "N")]
    root_games: Option<u64>,
    /// Games played out from every other node (overrides games.node).
    #[arg(long, value_name = "N")]
    node_games: Option<u64>,
    /// Nodes the book may hold (overrides expand.max_nodes).
    #[arg(long, value_name = "N")]
    max_nodes: Option<usize>,
    /// Share the games over a store (made by `pente store init`): this
    /// process grows the tree and evaluates the nodes, `pente book work`
    /// processes anywhere play the games in batches, and this one checks
    /// each batch and adds it to the book.
    #[arg(long, value_name = "STORE")]
    store: Option<String>,
    /// With --store: games per batch (what a killed worker loses).
    #[arg(long, value_name = "N", default_value_t = pente_book::shared::DEFAULT_BATCH_GAMES)]
    batch_games: u64,
    /// With --store: only coordinate; leave every game to the workers.
    #[arg(long)]
    no_play: bool,
    /// With --store: seconds between looks at the store when there is nothing to play.
    #[arg(long, value_name = "SECONDS", default_value_t = 2.0)]
    poll: f64,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

/// Arguments of `pente book work`.
#[derive(Debug, Args)]
pub struct WorkArgs {
    #[command(flatten)]
    store: crate::store::StoreArg,
    /// The worker's name in the results it commits (default: host name and process id).
    #[arg(long)]
    id: Option<String>,
    /// Worker threads (0 = one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Stop when no open book build has a batch left to play (default: wait for more).
    #[arg(long)]
    until_idle: bool,
    /// Seconds between looks at the store when there is nothing to play.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    poll: f64,
    /// Only a line per batch, no progress bar.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

/// Arguments of `pente book show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The book file.
    book: PathBuf,
    /// The position: moves from the empty board (e.g. "K10 L9"); empty for the root.
    #[arg(long, default_value = "")]
    moves: String,
    /// Output: text, json (the node and its moves) or csv (one row a move).
    #[arg(long, default_value = "text", value_parser = ["text", "json", "csv"])]
    format: String,
    /// List at most N moves (0: all).
    #[arg(long, default_value_t = 12)]
    top: usize,
}

/// Arguments of `pente book fairness`.
#[derive(Debug, Args)]
pub struct FairnessArgs {
    /// Book files, one per variant.
    #[arg(required = true, value_name = "BOOK")]
    books: Vec<PathBuf>,
    /// Output: text, markdown, csv or json.
    #[arg(long, default_value = "text", value_parser = ["text", "markdown", "csv", "json"])]
    format: String,
    /// Stones that name an opening in the split.
    #[arg(long, default_value_t = 3)]
    opening_plies: usize,
    /// Openings listed per variant.
    #[arg(long, default_value_t = 3)]
    top: usize,
    /// Also draw the table as a PNG: each variant's first-player score with its interval.
    #[arg(long, value_name = "PNG")]
    plot: Option<PathBuf>,
}

/// Runs `pente book ...`.
pub fn run(command: &BookCommand) -> anyhow::Result<ExitCode> {
    match command {
        BookCommand::Build(args) => build(args),
        BookCommand::Show(args) => show(args),
        BookCommand::Fairness(args) => fairness_table(args),
        BookCommand::Work(args) => work(args),
    }
}

fn settings_for(args: &BuildArgs) -> anyhow::Result<BookSettings> {
    let mut settings = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
            BookSettings::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
        }
        None if args.out.exists() => Book::open(&args.out)?.settings().clone(),
        None => anyhow::bail!("{}: no such book; give its settings with --config", args.out.display()),
    };
    if let Some(variant) = args.variant {
        settings.variant = variant;
    }
    if let Some(size) = args.size {
        settings.size = size;
    }
    if let Some(n) = args.root_games {
        settings.games.root = n;
    }
    if let Some(n) = args.node_games {
        settings.games.node = n;
    }
    if let Some(n) = args.max_nodes {
        settings.expand.max_nodes = n;
    }
    settings.check().map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(settings)
}

fn build(args: &BuildArgs) -> anyhow::Result<ExitCode> {
    let settings = settings_for(args)?;
    let model = match &args.model {
        Some(model) => ModelSource::parse(model),
        None => match default_model_dir() {
            Some(dir) => ModelSource::Network(dir),
            None => anyhow::bail!("no network in {DEFAULT_MODEL_DIR}: give the player with --model"),
        },
    };
    let name = model.name()?;
    let backend: Arc<dyn Backend> =
        if matches!(model, ModelSource::Network(_)) { args.backend.choose()? } else { Arc::new(BurnBackend::cpu()) };
    // The store first: a build that cannot reach it makes no book.
    let store = args.store.as_deref().map(pente_store::Store::open).transpose()?;
    let mut book = Book::create_or_open(&args.out, &settings, &name)?;
    let threads = if args.threads == 0 { crate::player::all_threads() } else { args.threads };
    eprintln!(
        "{}: {} {}x{}, player {name} at {} visits, evaluations at {}, {threads} workers",
        args.out.display(),
        settings.variant,
        settings.size,
        settings.size,
        settings.play.visits,
        settings.evaluate.visits
    );
    let make = |threads: usize| model.evaluator(backend.as_ref(), threads).map_err(|e| e.to_string());
    let bar = if args.quiet { ProgressBar::hidden() } else { ProgressBar::new(0) };
    bar.set_style(
        ProgressStyle::with_template("{prefix:>9} {bar:30} {pos}/{len}  {elapsed_precise} eta {eta}  {msg}")
            .expect("a valid template"),
    );
    let started = Instant::now();
    let cpu = cpu_time::ProcessTime::now();
    let mut phase = None;
    let mut on_progress = |p: &Progress| {
        if phase != Some(p.phase) {
            phase = Some(p.phase);
            bar.set_prefix(match p.phase {
                Phase::Evaluate => "evaluate",
                Phase::Play => "games",
            });
            bar.set_length(p.total);
            bar.reset();
        }
        bar.set_position(p.done);
        bar.set_message(format!("{} nodes", p.nodes));
    };
    let summary = match &store {
        None => pente_book::build(&mut book, threads, &make, &mut on_progress),
        Some(store) => {
            if let ModelSource::Network(dir) = &model
                && !store.has_model(&name)?
            {
                store.add_model(&name, dir, &pente_nn::store::MODEL_FILES)?;
            }
            let options = CoordinatorOptions {
                worker: format!("{}-{}", crate::store::host_name(), std::process::id()),
                threads,
                batch_games: args.batch_games,
                play: !args.no_play,
                poll: seconds(args.poll, "--poll")?,
            };
            let project = project_name(&settings, &name);
            bar.suspend(|| println!("sharing the games over store {} as project {project}", store.spec()));
            let mut on_event = |event: SharedEvent| show_event(&bar, &event, false);
            build_shared(&mut book, store, &options, &make, &mut on_progress, &mut on_event)
        }
    }
    .with_context(|| format!("building {}", args.out.display()))?;
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    // How busy the cores were: the process's CPU time over the wall time.
    let cores = cpu.elapsed().as_secs_f64() / seconds.max(1e-9);
    let machine = crate::player::all_threads();
    println!(
        "{}: {} nodes ({} evaluated now), {} games ({} played now) in {seconds:.1} s; CPU {cores:.2} cores of {machine} ({:.0} %)",
        args.out.display(),
        summary.nodes,
        summary.evaluated,
        summary.games,
        summary.games_played,
        100.0 * cores / machine as f64
    );
    Ok(ExitCode::SUCCESS)
}

/// A number of seconds from the command line.
fn seconds(value: f64, flag: &str) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(value)
        .map_err(|_| anyhow::anyhow!("{flag} {value}: give a number of seconds, 0 or more"))
}

/// A line for what a shared build or a worker did (above the progress
/// bar, which follows a worker's rounds, and the book's games on a coordinator).
fn show_event(bar: &ProgressBar, event: &SharedEvent, worker: bool) {
    if !worker && matches!(event, SharedEvent::Round { .. } | SharedEvent::Game { .. }) {
        return;
    }
    let line = match event {
        SharedEvent::Posted { project, batches, games } => {
            format!("{project}: {batches} batches posted ({games} games)")
        }
        SharedEvent::Round { project, batches, games } => {
            bar.set_length(*games);
            bar.set_position(0);
            format!("{project}: playing {batches} batches ({games} games)")
        }
        SharedEvent::Game { done, .. } => {
            bar.set_position(*done);
            return;
        }
        SharedEvent::Committed { batch, games } => format!("batch {batch}: committed ({games} games)"),
        SharedEvent::Lost { batch } => {
            format!("batch {batch}: another worker committed it first; its games are dropped")
        }
        SharedEvent::Imported { batch, worker, games } => format!("batch {batch}: {games} games from {worker} added"),
        SharedEvent::Rejected { batch, worker, reason } => {
            format!("warning: batch {batch} from {worker} refused: {reason}; it is played again")
        }
        SharedEvent::Skipped { project, reason } => format!("warning: project {project} skipped: {reason}"),
        SharedEvent::Idle => return,
    };
    bar.suspend(|| println!("{line}"));
}

/// `pente book work`: plays the batches of shared book builds.
fn work(args: &WorkArgs) -> anyhow::Result<ExitCode> {
    let store = args.store.open()?;
    let id = args.id.clone().unwrap_or_else(|| format!("{}-{}", crate::store::host_name(), std::process::id()));
    pente_store::check_name("worker id", &id)?;
    let threads = if args.threads == 0 { crate::player::all_threads() } else { args.threads };
    let options =
        WorkerOptions { id: id.clone(), threads, until_idle: args.until_idle, poll: seconds(args.poll, "--poll")? };
    let backend = args.backend.choose()?;
    let bar = if args.quiet { ProgressBar::hidden() } else { ProgressBar::new(0) };
    bar.set_style(ProgressStyle::with_template("  games {bar:30} {pos}/{len}  eta {eta}").expect("a valid template"));
    println!("book worker {id} on store {}, {threads} threads", store.spec());
    // The player of a project: the heuristic, or a model the store holds.
    let mut player_for = |player: &str| -> Result<MakeEvaluatorBox, String> {
        let model = match player {
            "heuristic" | "uniform" => ModelSource::parse(player),
            id => ModelSource::Network(store.fetch_model(id).map_err(|e| format!("the book's player {id}: {e}"))?),
        };
        let backend = Arc::clone(&backend);
        Ok(Box::new(move |threads: usize| model.evaluator(backend.as_ref(), threads).map_err(|e| e.to_string())))
    };
    let started = Instant::now();
    let mut games = 0;
    let committed = work_shared(&store, &options, &mut player_for, &mut |event| {
        if let SharedEvent::Committed { games: n, .. } = &event {
            games += n;
        }
        show_event(&bar, &event, true);
    })
    .with_context(|| format!("book worker {id}"))?;
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "book worker {id}: {committed} batches ({games} games) committed in {seconds:.1} s ({:.0} games/hour)",
        3600.0 * games as f64 / seconds.max(1e-9)
    );
    Ok(ExitCode::SUCCESS)
}

fn show(args: &ShowArgs) -> anyhow::Result<ExitCode> {
    let book = Book::open(&args.book)?;
    let moves = parse_move_list(&args.moves).map_err(|e| anyhow::anyhow!("--moves: {e}"))?;
    let Some(mut view) = book.lookup(&moves)? else {
        anyhow::bail!("{}: the position after \"{}\" is not in the book", args.book.display(), args.moves);
    };
    if args.top > 0 {
        view.children.truncate(args.top);
    }
    let mut out = io::stdout().lock();
    match args.format.as_str() {
        "json" => writeln!(out, "{}", serde_json::to_string_pretty(&view)?)?,
        "csv" => write_children_csv(&view, &mut out)?,
        _ => write_view(&book, &view, &mut out)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn signed(value: Option<f32>) -> String {
    value.map_or_else(|| "-".into(), |v| format!("{v:+.3}"))
}

fn write_view(book: &Book, view: &NodeView, out: &mut impl Write) -> io::Result<()> {
    let settings = book.settings();
    let moves = if view.moves.is_empty() { "the empty board".into() } else { format_move_list(&view.moves, false) };
    writeln!(
        out,
        "{} {}x{} book {} (player {}): node {} after {moves}",
        settings.variant,
        settings.size,
        settings.size,
        book.path().display(),
        book.player(),
        view.id
    )?;
    let t = &view.tally;
    writeln!(
        out,
        "games: {} (White {}, Black {}, draws {}); White's score {}; first player's {}",
        t.games, t.white, t.black, t.draws, view.white_score, view.first_score
    )?;
    writeln!(
        out,
        "value for the player to act ({}): {} at {} visits, backed up {}{}",
        match view.actor {
            pente_core::Seat::First => "first player",
            pente_core::Seat::Second => "second player",
        },
        signed(view.value),
        view.visits.unwrap_or(0),
        signed(view.backed),
        view.proof.as_deref().filter(|p| *p != "unknown").map(|p| format!(" (proven {p})")).unwrap_or_default()
    )?;
    writeln!(
        out,
        "best line: {}",
        if view.best_line.is_empty() { "-".into() } else { format_move_list(&view.best_line, false) }
    )?;
    writeln!(
        out,
        "{:<6} {:>6} {:>24} {:>7} {:>6} {:>6}  {:<5} same as",
        "move", "games", "White's score", "value", "prior", "visits", "node"
    )?;
    for child in &view.children {
        let score = if child.tally.games > 0 { child.white_score.to_string() } else { "-".into() };
        writeln!(
            out,
            "{:<6} {:>6} {:>24} {:>7} {:>6.3} {:>6}  {:<5} {}",
            child.point.to_string(),
            child.tally.games,
            score,
            signed(child.value),
            child.prior,
            child.visits,
            child.node.map_or_else(|| "-".into(), |id| id.to_string()),
            format_move_list(&child.same_as, false)
        )?;
    }
    Ok(())
}

fn write_children_csv(view: &NodeView, out: &mut impl Write) -> anyhow::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    writer.write_record([
        "moves",
        "move",
        "games",
        "white",
        "black",
        "draws",
        "white_score",
        "white_low",
        "white_high",
        "value",
        "prior",
        "visits",
        "node",
    ])?;
    let moves = format_move_list(&view.moves, false);
    for c in &view.children {
        writer.write_record([
            moves.clone(),
            c.point.to_string(),
            c.tally.games.to_string(),
            c.tally.white.to_string(),
            c.tally.black.to_string(),
            c.tally.draws.to_string(),
            format!("{:.4}", c.white_score.score),
            format!("{:.4}", c.white_score.low),
            format!("{:.4}", c.white_score.high),
            c.value.map_or_else(String::new, |v| format!("{v:.4}")),
            format!("{:.4}", c.prior),
            c.visits.to_string(),
            c.node.map_or_else(String::new, |id| id.to_string()),
        ])?;
    }
    writer.flush()?;
    Ok(())
}

fn fairness_table(args: &FairnessArgs) -> anyhow::Result<ExitCode> {
    let mut rows = Vec::new();
    for path in &args.books {
        let book = Book::open(path)?;
        rows.push(fairness(&book, args.opening_plies, args.top)?);
    }
    let mut out = io::stdout().lock();
    match args.format.as_str() {
        "json" => writeln!(out, "{}", serde_json::to_string_pretty(&rows)?)?,
        "csv" => write_fairness_csv(&rows, &mut out)?,
        "markdown" => write_fairness_markdown(&rows, &mut out)?,
        _ => write_fairness_text(&rows, &mut out)?,
    }
    if let Some(png) = &args.plot {
        write_fairness_plot(&rows, png)?;
        eprintln!("wrote {}", png.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn percent(score: &pente_book::Score) -> String {
    format!("{:.1} ± {:.1}", score.score * 100.0, score.half_width())
}

fn split(shares: &[pente_book::fairness::Share]) -> String {
    shares
        .iter()
        .map(|s| format!("{} {:.0}% of games, {:.1}", s.name, s.share * 100.0, s.first_score.score * 100.0))
        .collect::<Vec<_>>()
        .join("; ")
}

fn write_fairness_text(rows: &[Fairness], out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "{:<13} {:>5} {:>6} {:>14} {:>14} {:>6}  player",
        "variant", "size", "games", "first player %", "White %", "moves"
    )?;
    for r in rows {
        writeln!(
            out,
            "{:<13} {:>5} {:>6} {:>14} {:>14} {:>6.1}  {}@{}",
            r.variant,
            r.size,
            r.tally.games,
            percent(&r.first_score),
            percent(&r.white_score),
            r.mean_plies,
            r.player,
            r.visits
        )?;
    }
    for r in rows {
        writeln!(out, "\n{} openings (first player's score): {}", r.variant, split(&r.openings))?;
        if !r.choices.is_empty() {
            writeln!(out, "{} choices (first player's score): {}", r.variant, split(&r.choices))?;
        }
    }
    Ok(())
}

fn write_fairness_markdown(rows: &[Fairness], out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "| variant | games | first player's score (95 %) | White's score | moves a game | main openings (share, first player's score) | colour choices |"
    )?;
    writeln!(out, "| --- | --- | --- | --- | --- | --- | --- |")?;
    for r in rows {
        writeln!(
            out,
            "| {} {}x{} | {} | {} | {} | {:.1} | {} | {} |",
            r.variant,
            r.size,
            r.size,
            r.tally.games,
            r.first_score,
            r.white_score,
            r.mean_plies,
            split(&r.openings),
            if r.choices.is_empty() { "-".into() } else { split(&r.choices) }
        )?;
    }
    Ok(())
}

fn write_fairness_csv(rows: &[Fairness], out: &mut impl Write) -> anyhow::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    writer.write_record([
        "variant",
        "size",
        "player",
        "visits",
        "part",
        "name",
        "games",
        "first_wins",
        "draws",
        "first_score",
        "first_low",
        "first_high",
    ])?;
    for r in rows {
        let whole = pente_book::fairness::Share {
            name: String::new(),
            games: r.tally.games,
            share: 1.0,
            first_score: r.first_score,
        };
        let parts = std::iter::once(("all", &whole))
            .chain(r.openings.iter().map(|s| ("opening", s)))
            .chain(r.choices.iter().map(|s| ("choice", s)));
        for (part, share) in parts {
            let first_wins = if part == "all" { r.tally.first.to_string() } else { String::new() };
            let draws = if part == "all" { r.tally.draws.to_string() } else { String::new() };
            writer.write_record([
                r.variant.clone(),
                r.size.to_string(),
                r.player.clone(),
                r.visits.to_string(),
                part.to_string(),
                share.name.clone(),
                share.games.to_string(),
                first_wins,
                draws,
                format!("{:.4}", share.first_score.score),
                format!("{:.4}", share.first_score.low),
                format!("{:.4}", share.first_score.high),
            ])?;
        }
    }
    writer.flush()?;
    Ok(())
}

fn write_fairness_plot(rows: &[Fairness], png: &Path) -> anyhow::Result<()> {
    let bars: Vec<pente_analysis::plot::IntervalBar> = rows
        .iter()
        .map(|r| pente_analysis::plot::IntervalBar {
            label: r.variant.clone(),
            value: r.first_score.score,
            low: r.first_score.low,
            high: r.first_score.high,
        })
        .collect();
    pente_analysis::plot::write_interval_bars(
        &bars,
        "First player's score under strong self-play (95 % intervals)",
        png,
    )?;
    Ok(())
}
