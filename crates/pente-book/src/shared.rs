//! Builds over a store: the coordinator (`pente book build --store`) grows
//! the tree and evaluates its nodes itself, and hands the played-out games,
//! which are nearly all of a book's work, to `pente book work` processes on
//! any number of machines through the store's shared tasks.
//!
//! The games of a node are cut into batches of fixed ranges of game numbers
//! (`[b * B, (b + 1) * B)`), each a task named after the node's key, `B`
//! and `b`, so a coordinator run again posts the same tasks and finds the
//! results of the last run. A batch names each game with its seed; a
//! worker plays them with the book's player and commits the batch's moves.
//! The coordinator replays every game it receives from the node's moves
//! (each move legal, the game finished at its last move, the seed the
//! book's own), reckons the result itself, and adds it to the book, where a
//! game number counts once; a result it refuses is set aside with the
//! reason and its batch is played again. The book file stays the
//! coordinator's alone: workers hold nothing but the batches in flight.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Duration;

use pente_core::{Position, format_move_list, parse_move_list};
use pente_store::Store;
use serde::{Deserialize, Serialize};

use crate::build::{Phase, Progress, Summary, grow};
use crate::error::BookError;
use crate::key::key_hash;
use crate::settings::BookSettings;
use crate::store::{Book, GameRecord};
use crate::work::{self, Done, Job, MakeEvaluator, game_record};

/// The format of the project and task objects below.
const PROJECT_FORMAT: u32 = 1;

/// Games per batch unless told otherwise: what a killed worker loses, and
/// how often the coordinator hears of progress.
pub const DEFAULT_BATCH_GAMES: u64 = 16;

/// A book build open to workers (`projects/<name>.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Project {
    /// [`PROJECT_FORMAT`].
    pub format: u32,
    /// The book's settings (TOML): rules, the player's search, the
    /// temperature of the first moves, games at once.
    pub settings: String,
    /// The player: `heuristic`, `uniform`, or the id of a model in the store.
    pub player: String,
    /// Games per batch.
    pub batch_games: u64,
}

impl Project {
    /// The settings, parsed.
    ///
    /// # Errors
    /// What the parser says.
    pub fn book_settings(&self) -> Result<BookSettings, String> {
        BookSettings::parse(&self.settings)
    }
}

/// A task: games to play out from one node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Batch {
    /// The node's key.
    key: String,
    /// The node's moves from the empty board.
    moves: String,
    /// The games: (number, seed).
    games: Vec<(u64, u64)>,
}

/// A worker's result of a batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct BatchResult {
    /// Who played it.
    worker: String,
    /// Its games.
    games: Vec<PlayedGame>,
}

/// One played game of a result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct PlayedGame {
    game: u64,
    seed: u64,
    /// Every move from the empty board.
    moves: String,
}

/// The project of a book: one per game-defining settings and player, so
/// that two coordinators of the same book share their batches.
#[must_use]
pub fn project_name(settings: &BookSettings, player: &str) -> String {
    let defining = format!(
        "{} {} {} {} {} {} {player}",
        settings.variant,
        settings.size,
        settings.seed,
        serde_json::to_string(&settings.play).expect("search settings serialize"),
        settings.games.temperature_plies,
        settings.games.temperature
    );
    format!("book-{}-{}-{:016x}", settings.variant, settings.size, key_hash(&defining))
}

/// How a coordinator runs.
#[derive(Debug, Clone)]
pub struct CoordinatorOptions {
    /// Its name as a worker, in the results it commits.
    pub worker: String,
    /// Threads for its evaluations and its own games.
    pub threads: usize,
    /// Games per batch.
    pub batch_games: u64,
    /// Whether it plays batches itself while it waits (else it only waits).
    pub play: bool,
    /// How long it sleeps between looks at the store when it has nothing to play.
    pub poll: Duration,
}

/// What happens in a shared build or on a worker, for its display.
#[derive(Debug, Clone)]
pub enum SharedEvent {
    /// The coordinator posted the batches still without a result.
    Posted {
        /// The project.
        project: String,
        /// Batches posted.
        batches: usize,
        /// Games in them.
        games: u64,
    },
    /// A worker took a round of batches.
    Round {
        /// The project.
        project: String,
        /// Batches taken.
        batches: usize,
        /// Games in them.
        games: u64,
    },
    /// A game of the round finished.
    Game {
        /// Games of the round done.
        done: u64,
        /// Games of the round.
        total: u64,
    },
    /// A worker committed a batch.
    Committed {
        /// The batch.
        batch: String,
        /// Games in it.
        games: u64,
    },
    /// Another worker committed a batch first; this one's games are dropped.
    Lost {
        /// The batch.
        batch: String,
    },
    /// The coordinator added a batch's games to the book.
    Imported {
        /// The batch.
        batch: String,
        /// Who played it.
        worker: String,
        /// Games new to the book.
        games: u64,
    },
    /// The coordinator refused a result; the batch is played again.
    Rejected {
        /// The batch.
        batch: String,
        /// Who played it.
        worker: String,
        /// Why.
        reason: String,
    },
    /// A project a worker cannot work on (it is skipped).
    Skipped {
        /// The project.
        project: String,
        /// Why.
        reason: String,
    },
    /// Nothing to play: waiting.
    Idle,
}

/// Builds (or goes on building) `book` over `store`: grows its tree here,
/// then posts its games as batches and adds the results that workers (and,
/// with `options.play`, this process) commit, until every game is in. The
/// book's player must be `heuristic`, `uniform` or a model the store holds
/// under the book's player id (see [`Store::add_model`]).
///
/// # Errors
/// The book's or the store's errors, or a player that does not load.
pub fn build_shared(
    book: &mut Book,
    store: &Store,
    options: &CoordinatorOptions,
    make_evaluator: &MakeEvaluator<'_>,
    on_progress: &mut dyn FnMut(&Progress),
    on_event: &mut dyn FnMut(SharedEvent),
) -> Result<Summary, BookError> {
    if options.batch_games == 0 {
        return Err(BookError::Shared("the batch size must be at least 1 game".into()));
    }
    let (mut summary, jobs) = grow(book, options.threads, make_evaluator, on_progress)?;
    let settings = book.settings().clone();
    let project = project_name(&settings, book.player());

    // The batches of the games still to play, by task name.
    let mut batches: BTreeMap<String, (i64, Batch)> = BTreeMap::new();
    let keys: HashMap<i64, String> = book.nodes()?.into_iter().map(|n| (n.id, n.key)).collect();
    for job in jobs {
        let Job::Play { node, game, moves, seed } = job else { continue };
        let key = &keys[&node];
        let name = format!("{:016x}-{}-{}", key_hash(key), options.batch_games, game / options.batch_games);
        let entry = batches.entry(name).or_insert_with(|| {
            (node, Batch { key: key.clone(), moves: format_move_list(&moves, false), games: Vec::new() })
        });
        entry.1.games.push((game, seed));
    }
    let total: u64 = batches.values().map(|(_, b)| b.games.len() as u64).sum();
    let mut progress = Progress { phase: Phase::Play, done: 0, total, nodes: summary.nodes };
    on_progress(&progress);

    // Results a last run left: in the book before anything is posted again.
    let mut imported = 0;
    import(book, store, &project, &mut batches, &mut imported, on_event)?;
    progress.done = imported;
    on_progress(&progress);
    let games: u64 = batches.values().map(|(_, b)| b.games.len() as u64).sum();
    for (name, (_, batch)) in &batches {
        store.post_task(&project, name, serde_json::to_vec(batch).expect("serializes"))?;
    }
    if !batches.is_empty() {
        on_event(SharedEvent::Posted { project: project.clone(), batches: batches.len(), games });
        let description = Project {
            format: PROJECT_FORMAT,
            settings: toml::to_string(&settings).expect("settings serialize"),
            player: book.player().to_string(),
            batch_games: options.batch_games,
        };
        store.open_project(&project, &serde_json::to_vec_pretty(&description).expect("serializes"))?;
    }
    while !batches.is_empty() {
        let played = if options.play {
            play_round(store, &project, &settings, &options.worker, options.threads, make_evaluator, on_event)?
        } else {
            0
        };
        import(book, store, &project, &mut batches, &mut imported, on_event)?;
        progress.done = imported;
        on_progress(&progress);
        if played == 0 && !batches.is_empty() {
            on_event(SharedEvent::Idle);
            std::thread::sleep(options.poll);
        }
    }
    store.close_project(&project)?;
    summary.games_played = imported;
    summary.games = book.tallies()?.values().map(|t| t.games).sum();
    Ok(summary)
}

/// Adds every committed result of `batches` to the book, refusing bad ones;
/// a batch whose games are all in leaves `batches`.
fn import(
    book: &mut Book,
    store: &Store,
    project: &str,
    batches: &mut BTreeMap<String, (i64, Batch)>,
    imported: &mut u64,
    on_event: &mut dyn FnMut(SharedEvent),
) -> Result<(), BookError> {
    let done: BTreeSet<String> = store.done_names(project)?.into_iter().collect();
    let names: Vec<String> = batches.keys().filter(|name| done.contains(*name)).cloned().collect();
    for name in names {
        let Some(bytes) = store.task_result(project, &name)? else { continue };
        let (node, batch) = &batches[&name];
        let checked = serde_json::from_slice::<BatchResult>(&bytes)
            .map_err(|e| (String::from("?"), format!("not a batch result: {e}")))
            .and_then(|result| {
                let games = check_result(book, *node, batch, &result).map_err(|e| (result.worker.clone(), e))?;
                Ok((result.worker, games))
            });
        match checked {
            Ok((worker, games)) => {
                let mut added = 0;
                for game in &games {
                    added += u64::from(book.add_game(game)?);
                }
                *imported += added;
                batches.remove(&name);
                on_event(SharedEvent::Imported { batch: name, worker, games: added });
            }
            Err((worker, reason)) => {
                store.reject_result(project, &name, &reason)?;
                on_event(SharedEvent::Rejected { batch: name, worker, reason });
            }
        }
    }
    Ok(())
}

/// The records of a result's games, each replayed and checked against its
/// batch; the first thing wrong, else.
fn check_result(book: &Book, node: i64, batch: &Batch, result: &BatchResult) -> Result<Vec<GameRecord>, String> {
    let start = parse_move_list(&batch.moves).map_err(|e| format!("the batch's moves: {e}"))?;
    let seeds: HashMap<u64, u64> = batch.games.iter().copied().collect();
    let mut records = Vec::new();
    for played in &result.games {
        let game = played.game;
        let Some(&seed) = seeds.get(&game) else {
            return Err(format!("game {game} is not one of the batch's"));
        };
        if played.seed != seed {
            return Err(format!("game {game} was played with seed {}, not the book's {seed}", played.seed));
        }
        let moves = parse_move_list(&played.moves).map_err(|e| format!("game {game}: {e}"))?;
        if !moves.starts_with(&start) {
            return Err(format!("game {game} does not start from the batch's position ({})", batch.moves));
        }
        let mut position = Position::new(book.rules());
        for (i, &point) in moves.iter().enumerate() {
            if position.is_over() {
                return Err(format!("game {game} goes on after its end, at move {} ({point})", i + 1));
            }
            position.play(point).map_err(|e| format!("game {game}: move {} ({point}) is illegal: {e}", i + 1))?;
        }
        if !position.is_over() {
            return Err(format!("game {game} stops after move {} before the game is over", moves.len()));
        }
        records.push(game_record(node, game, seed, moves, &position));
    }
    let have: BTreeSet<u64> = records.iter().map(|r| r.game).collect();
    let missing: Vec<String> =
        batch.games.iter().map(|(g, _)| *g).filter(|g| !have.contains(g)).map(|g| g.to_string()).collect();
    if !missing.is_empty() {
        return Err(format!("the result lacks games {}", missing.join(", ")));
    }
    Ok(records)
}

/// Plays one round of `project`'s pending batches (those without a
/// result, in an order of this worker's own, enough for four times the
/// games its threads play at once) and commits each as it finishes.
/// Returns the batches played.
fn play_round(
    store: &Store,
    project: &str,
    settings: &BookSettings,
    worker: &str,
    threads: usize,
    make_evaluator: &MakeEvaluator<'_>,
    on_event: &mut dyn FnMut(SharedEvent),
) -> Result<usize, BookError> {
    let done: BTreeSet<String> = store.done_names(project)?.into_iter().collect();
    let mut pending: Vec<String> = store.task_names(project)?.into_iter().filter(|t| !done.contains(t)).collect();
    // Workers start at different batches, so few play the same one.
    pending.sort_by_key(|name| key_hash(&format!("{worker} {name}")));
    let wanted = 4 * threads.max(1) as u64 * settings.games.in_flight.max(1) as u64;
    let mut round: Vec<(String, Batch)> = Vec::new();
    let mut games = 0;
    for name in pending {
        if games >= wanted {
            break;
        }
        let Some(bytes) = store.task(project, &name)? else { continue };
        let batch: Batch = serde_json::from_slice(&bytes)
            .map_err(|e| BookError::Shared(format!("task {name} of {project}: not a batch: {e}")))?;
        games += batch.games.len() as u64;
        round.push((name, batch));
    }
    if round.is_empty() {
        return Ok(0);
    }
    on_event(SharedEvent::Round { project: project.into(), batches: round.len(), games });
    let mut jobs = Vec::new();
    for (index, (name, batch)) in round.iter().enumerate() {
        let moves = parse_move_list(&batch.moves)
            .map_err(|e| BookError::Shared(format!("task {name} of {project}: its moves: {e}")))?;
        for &(game, seed) in &batch.games {
            jobs.push(Job::Play { node: index as i64, game, moves: moves.clone(), seed });
        }
    }
    let mut finished: Vec<Vec<PlayedGame>> = vec![Vec::new(); round.len()];
    let mut done_games = 0;
    work::run(jobs, settings, threads, make_evaluator, &mut |done| {
        let Done::Played(record) = done else { return Ok(()) };
        let index = usize::try_from(record.node).expect("a round's index");
        finished[index].push(PlayedGame {
            game: record.game,
            seed: record.seed,
            moves: format_move_list(&record.moves, false),
        });
        done_games += 1;
        on_event(SharedEvent::Game { done: done_games, total: games });
        let (name, batch) = &round[index];
        if finished[index].len() == batch.games.len() {
            let result = BatchResult { worker: worker.into(), games: std::mem::take(&mut finished[index]) };
            let committed = store.finish_task(project, name, serde_json::to_vec(&result).expect("serializes"))?;
            let batch = name.clone();
            on_event(if committed {
                SharedEvent::Committed { batch, games: result.games.len() as u64 }
            } else {
                SharedEvent::Lost { batch }
            });
        }
        Ok(())
    })?;
    Ok(round.len())
}

/// How a worker runs.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// Its name, in the results it commits.
    pub id: String,
    /// Its threads.
    pub threads: usize,
    /// Stop when no open project has a batch to play (else wait for one).
    pub until_idle: bool,
    /// How long it sleeps between looks at the store when it has nothing to play.
    pub poll: Duration,
}

/// Makes the evaluator maker of a project's player (a model id is fetched
/// from the store).
pub type PlayerFor<'a> = dyn FnMut(&str) -> Result<MakeEvaluatorBox, String> + 'a;

/// A player's evaluator maker, owned.
pub type MakeEvaluatorBox = Box<MakeEvaluator<'static>>;

/// Plays the batches of every open book project of `store`, round after
/// round, until killed (or, with `until_idle`, until none is left).
/// A project it cannot work on (an unknown format, a player that does not
/// load) is skipped with a [`SharedEvent::Skipped`]. Returns the batches it
/// committed.
///
/// # Errors
/// The store's errors.
pub fn work_shared(
    store: &Store,
    options: &WorkerOptions,
    player_for: &mut PlayerFor<'_>,
    on_event: &mut dyn FnMut(SharedEvent),
) -> Result<u64, BookError> {
    let mut players: HashMap<String, MakeEvaluatorBox> = HashMap::new();
    let mut skipped: BTreeSet<String> = BTreeSet::new();
    let mut committed = 0;
    loop {
        let mut played = 0;
        for name in store.projects()? {
            if !name.starts_with("book-") || skipped.contains(&name) {
                continue;
            }
            let Some(bytes) = store.project(&name)? else { continue };
            let opened = serde_json::from_slice::<Project>(&bytes)
                .map_err(|e| format!("not a book project: {e}"))
                .and_then(|p| {
                    if p.format == PROJECT_FORMAT {
                        Ok(p)
                    } else {
                        Err(format!("project format {} (this pente reads {PROJECT_FORMAT})", p.format))
                    }
                })
                .and_then(|p| Ok((p.book_settings()?, p.player)));
            let (settings, player) = match opened {
                Ok(opened) => opened,
                Err(reason) => {
                    on_event(SharedEvent::Skipped { project: name.clone(), reason });
                    skipped.insert(name);
                    continue;
                }
            };
            if !players.contains_key(&player) {
                match player_for(&player) {
                    Ok(make) => players.insert(player.clone(), make),
                    Err(reason) => {
                        on_event(SharedEvent::Skipped { project: name.clone(), reason });
                        skipped.insert(name);
                        continue;
                    }
                };
            }
            let mut counted = |event: SharedEvent| {
                if matches!(event, SharedEvent::Committed { .. }) {
                    committed += 1;
                }
                on_event(event);
            };
            played = play_round(
                store,
                &name,
                &settings,
                &options.id,
                options.threads,
                players[&player].as_ref(),
                &mut counted,
            )?;
            if played > 0 {
                break;
            }
        }
        if played == 0 {
            if options.until_idle {
                return Ok(committed);
            }
            on_event(SharedEvent::Idle);
            std::thread::sleep(options.poll);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_is_named_by_what_decides_its_games() {
        let settings = BookSettings::new(pente_core::Variant::Pente, 9);
        let name = project_name(&settings, "heuristic");
        assert!(name.starts_with("book-pente-9-"), "{name}");
        pente_store::check_name("project", &name).unwrap();
        let mut budgets = settings.clone();
        budgets.expand.max_nodes += 10;
        budgets.games.root += 10;
        assert_eq!(project_name(&budgets, "heuristic"), name, "budgets do not change the games");
        let mut seeded = settings.clone();
        seeded.seed += 1;
        assert_ne!(project_name(&seeded, "heuristic"), name);
        assert_ne!(project_name(&settings, "campaign-9"), name);
    }
}
