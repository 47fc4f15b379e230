//! Books built over a store: workers play the games, the coordinator checks
//! and keeps them, and the book is the one a local build makes.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::{build_book, games_by_key, heuristic, tiny};
use pente_book::Book;
use pente_book::shared::{
    CoordinatorOptions, MakeEvaluatorBox, SharedEvent, WorkerOptions, build_shared, project_name, work_shared,
};
use pente_store::Store;

fn store(dir: &Path) -> Store {
    let model = dir.join("model");
    std::fs::create_dir_all(&model).unwrap();
    std::fs::write(model.join("model.json"), "{}").unwrap();
    Store::create(dir.join("store").to_str().unwrap(), &model, "m0", &["model.json"]).unwrap()
}

fn local_games(dir: &Path) -> BTreeMap<(String, u64), String> {
    let path = dir.join("local.sqlite");
    build_book(&path, &tiny());
    games_by_key(&Book::open(&path).unwrap())
}

/// Workers that look for batches until `finished`.
fn workers(store: &Store, ids: &[&str], finished: &AtomicBool) {
    std::thread::scope(|scope| {
        for id in ids {
            scope.spawn(move || {
                let options =
                    WorkerOptions { id: (*id).into(), threads: 1, until_idle: true, poll: Duration::from_millis(10) };
                let mut player = |name: &str| -> Result<MakeEvaluatorBox, String> {
                    assert_eq!(name, "heuristic");
                    Ok(Box::new(heuristic))
                };
                while !finished.load(Ordering::SeqCst) {
                    work_shared(store, &options, &mut player, &mut |_| {}).unwrap();
                    std::thread::sleep(Duration::from_millis(10));
                }
            });
        }
    });
}

/// Runs a coordinator that plays nothing itself, beside `workers`; returns
/// its events and its book's games.
fn coordinate(
    store: &Store,
    book: &Path,
    before: impl FnOnce() + Send,
    ids: &[&str],
) -> (Vec<SharedEvent>, BTreeMap<(String, u64), String>) {
    let finished = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let coordinator = scope.spawn(|| {
            let mut book = Book::create_or_open(book, &tiny(), "heuristic").unwrap();
            let options = CoordinatorOptions {
                worker: "coordinator".into(),
                threads: 1,
                batch_games: 2,
                play: false,
                poll: Duration::from_millis(10),
            };
            let mut events = Vec::new();
            let summary =
                build_shared(&mut book, store, &options, &heuristic, &mut |_| {}, &mut |e| events.push(e)).unwrap();
            finished.store(true, Ordering::SeqCst);
            assert_eq!(summary.games, 10 + 5 * 3);
            (events, games_by_key(&book))
        });
        while store.projects().unwrap().is_empty() && !coordinator.is_finished() {
            std::thread::sleep(Duration::from_millis(5));
        }
        before();
        workers(store, ids, &finished);
        coordinator.join().unwrap()
    })
}

#[test]
fn workers_play_the_games_a_local_build_would_play() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path());
    let (events, games) = coordinate(&store, &dir.path().join("shared.sqlite"), || {}, &["w1", "w2"]);
    assert_eq!(games, local_games(dir.path()), "the same games, move for move");
    let imported: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            SharedEvent::Imported { worker, .. } => Some(worker.as_str()),
            _ => None,
        })
        .collect();
    // 10 root games and 3 for each of 5 nodes, 2 a batch.
    assert_eq!(imported.len(), 5 + 5 * 2);
    assert!(imported.iter().all(|w| ["w1", "w2"].contains(w)), "{imported:?}");
    assert!(store.projects().unwrap().is_empty(), "a finished build closes its project");
}

#[test]
fn a_forged_result_is_refused_and_its_batch_played_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path());
    let project = project_name(&tiny(), "heuristic");
    let forge = || {
        let task = store.task_names(&project).unwrap().remove(0);
        let batch: serde_json::Value = serde_json::from_slice(&store.task(&project, &task).unwrap().unwrap()).unwrap();
        let games: Vec<serde_json::Value> = batch["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| serde_json::json!({ "game": g[0], "seed": g[1], "moves": format!("{} A1 A1", batch["moves"].as_str().unwrap()) }))
            .collect();
        let result = serde_json::json!({ "worker": "forger", "games": games });
        assert!(store.finish_task(&project, &task, serde_json::to_vec(&result).unwrap()).unwrap());
    };
    let (events, games) = coordinate(&store, &dir.path().join("shared.sqlite"), forge, &["w1"]);
    let rejected: Vec<(&str, &str)> = events
        .iter()
        .filter_map(|e| match e {
            SharedEvent::Rejected { worker, reason, .. } => Some((worker.as_str(), reason.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert_eq!(rejected[0].0, "forger");
    assert!(rejected[0].1.contains("is illegal"), "{}", rejected[0].1);
    assert_eq!(store.rejected(&project).unwrap().len(), 1, "the refused result is kept with its reason");
    assert_eq!(games, local_games(dir.path()), "the batch was played again, honestly");
}
