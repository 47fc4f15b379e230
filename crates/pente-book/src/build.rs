//! Growing a book: evaluate its nodes, expand the most promising moves
//! best first, back the values up, and play the games out.
//!
//! Everything lives in the book file as it is made, so a build killed at
//! any point and run again goes on from there: nodes already evaluated are
//! not evaluated again, and a node's games are numbered, each number played
//! once (a game in flight at the kill is played again, from its seed).

use std::collections::{BTreeMap, HashSet};

use pente_core::{Point, Position};

use crate::error::BookError;
use crate::key::{Located, key_hash};
use crate::settings::BookSettings;
use crate::stats::back_up;
use crate::store::{Book, Node};
use crate::work::{self, Done, Job, MakeEvaluator};

/// What a build is doing, for its progress display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Evaluating new nodes.
    Evaluate,
    /// Playing games out.
    Play,
}

/// Where a build stands, after each finished job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// The phase.
    pub phase: Phase,
    /// Jobs of the phase done, this run.
    pub done: u64,
    /// Jobs of the phase in all, this run.
    pub total: u64,
    /// Nodes in the book.
    pub nodes: u64,
}

/// What a build run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Nodes in the book at the end.
    pub nodes: u64,
    /// Nodes evaluated by this run.
    pub evaluated: u64,
    /// Games played by this run.
    pub games_played: u64,
    /// Games in the book at the end.
    pub games: u64,
}

/// The seed of job `index` of the node with `key` in a book of `settings`
/// (splitmix64 of the book's seed, rules, key and index): the same on every
/// run of the build, and unrelated between variants whose keys agree (the
/// empty board's).
#[must_use]
pub fn job_seed(settings: &BookSettings, key: &str, index: u64) -> u64 {
    let named = format!("{} {} {key}", settings.variant, settings.size);
    let mut z = settings.seed ^ key_hash(&named) ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The index an evaluation's seed is drawn with (games count from 0).
const EVALUATION_INDEX: u64 = u64::MAX;

/// Builds (or goes on building) `book` on `threads` workers.
///
/// # Errors
/// The book's errors, or a player that does not load.
pub fn build(
    book: &mut Book,
    threads: usize,
    make_evaluator: &MakeEvaluator<'_>,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<Summary, BookError> {
    let (mut summary, jobs) = grow(book, threads, make_evaluator, on_progress)?;
    let mut progress = Progress { phase: Phase::Play, done: 0, total: jobs.len() as u64, nodes: summary.nodes };
    on_progress(&progress);
    work::run(jobs, book.settings(), threads, make_evaluator, &mut |done| {
        if let Done::Played(game) = done {
            book.add_game(&game)?;
            progress.done += 1;
            on_progress(&progress);
        }
        Ok(())
    })?;
    summary.games_played = progress.done;
    summary.games = book.tallies()?.values().map(|t| t.games).sum();
    Ok(summary)
}

/// Grows the tree of `book` (evaluates its new nodes, expands, links and
/// backs the values up) and returns what it did with the games still to
/// play, one [`Job::Play`] each.
pub(crate) fn grow(
    book: &mut Book,
    threads: usize,
    make_evaluator: &MakeEvaluator<'_>,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<(Summary, Vec<Job>), BookError> {
    let settings = book.settings().clone();
    let rules = book.rules();
    let root = Located::after(rules, &[])?;
    book.add_node(&root.key, &[], None, 0.0, root.position.actor())?;
    let mut summary = Summary::default();
    loop {
        summary.evaluated += evaluate_new(book, threads, make_evaluator, on_progress)?;
        if !expand(book)? {
            break;
        }
    }
    // Mirror images of expanded moves (not expanded themselves) reach the
    // same nodes: link them too.
    for node in book.nodes()? {
        link_known(book, node.id)?;
    }
    let nodes = book.nodes()?;
    let backed: Vec<(i64, f32)> = back_up(&nodes).into_iter().collect();
    book.set_backed(&backed)?;

    let mut jobs = Vec::new();
    for node in &nodes {
        let target = if node.depth == 0 {
            settings.games.root
        } else if node.depth <= settings.games.max_depth {
            settings.games.node
        } else {
            0
        };
        let have: HashSet<u64> = book.game_numbers(node.id)?.into_iter().collect();
        if Located::after(rules, &node.moves)?.position.is_over() {
            continue;
        }
        for game in (0..target).filter(|g| !have.contains(g)) {
            let seed = job_seed(&settings, &node.key, game);
            jobs.push(Job::Play { node: node.id, game, moves: node.moves.clone(), seed });
        }
    }
    summary.nodes = nodes.len() as u64;
    Ok((summary, jobs))
}

/// Evaluates every node without an evaluation; returns how many.
fn evaluate_new(
    book: &mut Book,
    threads: usize,
    make_evaluator: &MakeEvaluator<'_>,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<u64, BookError> {
    let settings = book.settings().clone();
    let nodes = book.nodes()?;
    let jobs: Vec<Job> = nodes
        .iter()
        .filter(|n| n.evaluation.is_none())
        .map(|n| Job::Evaluate {
            node: n.id,
            moves: n.moves.clone(),
            seed: job_seed(&settings, &n.key, EVALUATION_INDEX),
        })
        .collect();
    let mut progress =
        Progress { phase: Phase::Evaluate, done: 0, total: jobs.len() as u64, nodes: nodes.len() as u64 };
    if jobs.is_empty() {
        return Ok(0);
    }
    on_progress(&progress);
    work::run(jobs, &settings, threads, make_evaluator, &mut |done| {
        if let Done::Evaluated { node, evaluation } = done {
            book.set_evaluation(node, &evaluation)?;
            // Moves that lead to nodes already in the book are linked now.
            link_known(book, node)?;
            progress.done += 1;
            on_progress(&progress);
        }
        Ok(())
    })?;
    Ok(progress.done)
}

/// Links the candidates of `node` that lead to nodes the book already has.
fn link_known(book: &Book, node: i64) -> Result<(), BookError> {
    let node = book.node(node)?;
    let Some(evaluation) = &node.evaluation else { return Ok(()) };
    for candidate in evaluation.candidates.iter().filter(|c| c.child.is_none()) {
        let child = child_of(book, &node, candidate.point)?;
        if child.position.is_over() {
            continue;
        }
        if let Some(existing) = book.node_by_key(&child.key)? {
            book.link(node.id, candidate.point, existing.id)?;
        }
    }
    Ok(())
}

/// Where `point` leads from `node`.
fn child_of(book: &Book, node: &Node, point: Point) -> Result<Located, BookError> {
    let mut moves = node.moves.clone();
    moves.push(point);
    Located::after(book.rules(), &moves)
}

/// A move the book could expand: from `parent`, at `cost`.
struct Expansion {
    parent: i64,
    point: Point,
    child: Located,
    moves: Vec<Point>,
    cost: f64,
}

/// Adds the cheapest expansions (all of those within one unit of cost of
/// the cheapest, so that a round's evaluations run together, up to the
/// node budget). Returns whether any node was added.
fn expand(book: &mut Book) -> Result<bool, BookError> {
    let settings = book.settings().clone();
    let expand = &settings.expand;
    let nodes = book.nodes()?;
    if nodes.len() >= expand.max_nodes {
        return Ok(false);
    }
    // The cheapest way found to each new key.
    let mut options: BTreeMap<String, Expansion> = BTreeMap::new();
    for node in nodes.iter().filter(|n| n.depth < expand.max_depth) {
        let Some(evaluation) = &node.evaluation else { continue };
        // The best `children` distinct moves (a mirror image of a better
        // move reaches the same node and does not count again).
        let mut moves: Vec<(Point, f64, Located)> = Vec::new();
        let mut distinct: HashSet<String> = HashSet::new();
        let best = evaluation.candidates.first().and_then(|c| c.value);
        for candidate in &evaluation.candidates {
            if distinct.len() >= expand.children {
                break;
            }
            let child = child_of(book, node, candidate.point)?;
            if child.position.is_over() || !distinct.insert(child.key.clone()) {
                continue;
            }
            let shortfall = match (best, candidate.value) {
                (Some(best), Some(value)) => f64::from(best - value).max(0.0),
                _ => continue,
            };
            if shortfall > f64::from(expand.value_margin) {
                continue;
            }
            let margin_cost = if expand.value_margin > 0.0 { shortfall / f64::from(expand.value_margin) } else { 0.0 };
            moves.push((candidate.point, 1.0 + margin_cost + 0.01 * f64::from(candidate.rank), child));
        }
        if expand.wide_depths.contains(&node.depth) {
            let position = Located::after(book.rules(), &node.moves)?.position;
            for point in wide_moves(&position, expand.wide_radius) {
                let child = child_of(book, node, point)?;
                if !child.position.is_over() {
                    moves.push((point, 1.0, child));
                }
            }
        }
        let linked: HashSet<Point> =
            evaluation.candidates.iter().filter(|c| c.child.is_some()).map(|c| c.point).collect();
        for (point, step, child) in moves {
            if linked.contains(&point) {
                continue;
            }
            let cost = node.cost + step;
            if let Some(existing) = book.node_by_key(&child.key)? {
                book.link(node.id, point, existing.id)?;
                continue;
            }
            if options.get(&child.key).is_some_and(|o| o.cost <= cost) {
                continue;
            }
            // The node's own moves: the parent's path and this move, seen
            // on the board the new node's key was made on.
            let mut moves = node.moves.clone();
            moves.push(point);
            let moves: Vec<Point> = moves.iter().map(|&p| child.to_node(p)).collect();
            options.insert(child.key.clone(), Expansion { parent: node.id, point, child, moves, cost });
        }
    }
    let mut options: Vec<Expansion> = options.into_values().collect();
    options.sort_by(|a, b| a.cost.total_cmp(&b.cost).then_with(|| a.child.key.cmp(&b.child.key)));
    let Some(cheapest) = options.first().map(|o| o.cost) else { return Ok(false) };
    let room = expand.max_nodes - nodes.len();
    let chosen = options.into_iter().take_while(|o| o.cost < cheapest + 1.0).take(room);
    let mut added = false;
    for option in chosen {
        let id = book.add_node(
            &option.child.key,
            &option.moves,
            Some(option.parent),
            option.cost,
            option.child.position.actor(),
        )?;
        book.link(option.parent, option.point, id)?;
        added = true;
    }
    Ok(added)
}

/// The legal moves within `radius` of the centre (board points only).
fn wide_moves(position: &Position, radius: u8) -> Vec<Point> {
    let centre = Point::centre(position.rules().size());
    position.legal_moves().filter(|p| !p.is_choice() && p.distance(centre) <= radius).collect()
}
