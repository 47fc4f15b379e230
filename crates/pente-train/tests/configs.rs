//! Every shipped config parses, and the CI loop runs end to end.

use std::path::Path;

use pente_nn::BurnBackend;
use pente_train::{EloEntry, IterationSize, LoopConfig, LoopEvent, TrainConfig, TrainFrom, WindowGrowth, run_loop};

fn configs() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs")
}

#[test]
fn shipped_configs_parse() {
    for name in
        ["loop-quick.toml", "loop-ci.toml", "loop-default.toml", "loop-campaign.toml", "loop-store.toml", "loop.toml"]
    {
        let path = configs().join(name);
        if path.exists() || name != "loop.toml" {
            LoopConfig::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
    let text = std::fs::read_to_string(configs().join("train.toml")).unwrap();
    let train: TrainConfig = toml::from_str(&text).unwrap();
    train.check().unwrap();
    // A typo is an error naming the key.
    let error = toml::from_str::<TrainConfig>(&(text + "\nlearning_rte = 1.0\n")).unwrap_err().to_string();
    assert!(error.contains("learning_rte"), "{error}");
}

#[test]
fn the_bootstrap_iteration_needs_a_teacher_and_sizes() {
    let mut config = LoopConfig::load(&configs().join("loop-ci.toml")).unwrap();
    config.bootstrap_iteration = Some(IterationSize { games: Some(40), steps: None });
    assert!(config.check().unwrap_err().contains("only with a bootstrap teacher"));
    config.bootstrap = Some("heuristic".into());
    config.check().unwrap();
    assert_eq!(config.iteration_size(true), (40, config.train.steps));
    assert_eq!(config.iteration_size(false), (config.selfplay.games, config.train.steps));
    config.bootstrap_iteration = Some(IterationSize { games: Some(0), steps: Some(5) });
    assert!(config.check().unwrap_err().contains("at least 1"));
}

/// On burn here; `.ci/run` runs the same config through `pente loop` on ONNX Runtime.
#[test]
fn the_ci_loop_runs_and_resumes() {
    let mut config = LoopConfig::load(&configs().join("loop-ci.toml")).unwrap();
    let runs = std::env::temp_dir().join(format!("pente-train-loop-{}", std::process::id()));
    config.runs_dir = runs.clone();
    // The teacher's iteration has its own size.
    config.bootstrap = Some("heuristic".into());
    config.bootstrap_iteration = Some(IterationSize { games: Some(10), steps: Some(12) });
    // The options off by default: the auxiliary heads and a growing window.
    config.net.as_mut().unwrap().aux_heads = true;
    config.train.window = 50;
    config.train.window_growth = Some(WindowGrowth { exponent: 0.75, scale: 0.4 });
    // Baselines play fewer games than the gate.
    config.arena.baseline_games = Some(2);
    let mut stages = Vec::new();
    let state = run_loop(&config, &BurnBackend::cpu(), None, &mut |event| {
        if let pente_train::LoopEvent::Stage { stage, .. } = event {
            stages.push(stage);
        }
    })
    .unwrap();
    assert_eq!(state.iteration, 1);
    assert!(stages.contains(&"selfplay") && stages.contains(&"train") && stages.contains(&"arena"));
    let dir = config.run_dir();
    for file in ["loop.json", "elo.csv", "metrics.csv", "iter-001/selfplay/samples.bin", "iter-001/arena.json"] {
        assert!(dir.join(file).is_file(), "{file}");
    }
    let metrics = std::fs::read_to_string(dir.join("metrics.csv")).unwrap();
    assert_eq!(metrics.lines().count(), 13, "header and the teacher iteration's 12 steps");
    assert!(metrics.lines().skip(1).all(|row| row.split(',').count() == 8), "every row has an aux_loss:\n{metrics}");
    let (network, _) = pente_nn::store::load(&state.best, &pente_nn::cpu()).unwrap();
    assert!(network.has_aux_heads());
    let games = std::fs::read_to_string(dir.join("iter-001/selfplay/games.csv")).unwrap();
    assert_eq!(games.lines().count(), 11, "header and the teacher iteration's 10 games");
    let timings = std::fs::read_to_string(dir.join("timings.csv")).unwrap();
    let rows: Vec<&str> = timings.lines().collect();
    assert_eq!(rows[0], "iteration,selfplay_s,train_s,arena_s,cpu_s");
    assert_eq!(rows.len(), 2, "{timings}");
    let seconds: Vec<f64> = rows[1].split(',').skip(1).map(|s| s.parse().unwrap()).collect();
    assert!(rows[1].starts_with("1,") && seconds.iter().all(|&s| s > 0.0), "{timings}");
    let elo = std::fs::read_to_string(dir.join("elo.csv")).unwrap();
    assert!(elo.starts_with("iteration,model,elo,elo_low,elo_high,games,cpu_hours\n"));
    assert!(elo.contains("ci-0") && elo.contains("uniform@8"));
    let games = |model: &str| state.table.iter().filter(|e| e.model == model).map(|e| e.games).collect::<Vec<_>>();
    assert!(games("uniform@8").iter().all(|&n| n == 2), "{:?}", state.table);
    let gate: pente_train::MatchResult =
        serde_json::from_str(&std::fs::read_to_string(dir.join("iter-001/arena.json")).unwrap()).unwrap();
    assert_eq!(gate.wins + gate.losses + gate.draws, config.arena.games);
    // Run again: everything is done, nothing is redone.
    let mut again = Vec::new();
    let second = run_loop(&config, &BurnBackend::cpu(), None, &mut |event| {
        if let pente_train::LoopEvent::Stage { stage, .. } = event {
            again.push(stage);
        }
    })
    .unwrap();
    assert_eq!(second.iteration, 1);
    assert!(!again.contains(&"selfplay") && !again.contains(&"train"), "{again:?}");
    // A baseline added to the config is rated on the next run, and only it.
    config.arena.baselines.push("heuristic".into());
    let third = run_loop(&config, &BurnBackend::cpu(), None, &mut |_| {}).unwrap();
    let added: Vec<&EloEntry> = third.table.iter().filter(|e| !second.table.contains(e)).collect();
    assert!(!added.is_empty() && added.iter().all(|e| e.model == "heuristic@8"), "{added:?}");
    assert_eq!(
        third.table.iter().filter(|e| e.model == "uniform@8").count(),
        second.table.iter().filter(|e| e.model == "uniform@8").count()
    );
    std::fs::remove_dir_all(runs).unwrap();
}

/// A run can go on from a model directory (a campaign's committed network)
/// instead of random weights: its first network is that one under the run's
/// name, with the original as its parent.
#[test]
fn a_run_starts_from_a_model_directory() {
    let mut config = LoopConfig::load(&configs().join("loop-ci.toml")).unwrap();
    let runs = std::env::temp_dir().join(format!("pente-train-start-{}", std::process::id()));
    config.runs_dir = runs.clone();
    let committed = runs.join("committed");
    pente_train::init_model(&pente_nn::NetConfig::scaled(1, 8), "committed-7", 3, &committed).unwrap();

    config.start = Some(runs.join("nothing-here"));
    assert!(config.check().unwrap_err().contains("either [net]"), "both [net] and start");
    config.net = None;
    config.check().unwrap();
    config.iterations = 0;
    let error = run_loop(&config, &BurnBackend::cpu(), None, &mut |_| {}).unwrap_err().to_string();
    assert!(error.contains("nothing-here"), "{error}");

    config.start = Some(committed.clone());
    let _ = std::fs::remove_dir_all(config.run_dir());
    let state = run_loop(&config, &BurnBackend::cpu(), None, &mut |_| {}).unwrap();
    let first = pente_nn::store::load_info(&state.best).unwrap();
    assert_eq!((first.id.as_str(), first.parent.as_deref()), ("ci-0", Some("committed-7")));
    assert_eq!(first.net, pente_nn::store::load_info(&committed).unwrap().net);

    // The next sitting of the same campaign counts on from its network's
    // number: the first network keeps its name, the next is `ci-8`; its
    // Elo and CPU-hours go on from the committed network's.
    let sitting = runs.join("sitting");
    pente_train::init_model(&pente_nn::NetConfig::scaled(1, 8), "ci-7", 3, &sitting).unwrap();
    let info = pente_nn::store::load_info(&sitting).unwrap();
    let info = pente_nn::store::ModelInfo { elo: Some(150.0), cpu_hours: 2.5, ..info };
    pente_nn::store::save_info(&info, &sitting).unwrap();
    config.start = Some(sitting);
    config.runs_dir = runs.join("next");
    config.iterations = 1;
    let exported = runs.join("exported");
    config.export = Some(exported.clone());
    config.carry_window = 2;
    let state = run_loop(&config, &BurnBackend::cpu(), None, &mut |_| {}).unwrap();
    let dir = config.run_dir();
    assert!(dir.join("models/ci-7").is_dir() && state.table[0].model == "ci-7", "{:?}", state.table);
    let arena = std::fs::read_to_string(dir.join("iter-001/arena.json")).unwrap();
    assert!(arena.contains("ci-8@") && arena.contains("ci-7@"), "{arena}");
    assert_eq!((state.table[0].elo, state.table[0].cpu_hours), (150.0, 2.5));
    assert!(state.cpu_hours > 2.5 && state.table.iter().all(|e| e.cpu_hours >= 2.5), "{:?}", state.table);
    let best = pente_nn::store::load_info(&state.best).unwrap();
    if best.id == "ci-8" {
        assert_eq!(best.elo, Some(state.best_elo));
        assert!(best.cpu_hours > 2.5 && best.cpu_hours <= state.cpu_hours, "{best:?}");
    } else {
        assert_eq!(state.best_elo, 150.0, "not promoted: the best is still the start");
    }

    // The export holds the best network, with the run's total CPU-hours,
    // and the run's records, its iterations numbered as generations (the
    // run's iteration 1 is generation 8); exporting again repeats no row.
    let info = pente_nn::store::load_info(&exported).unwrap();
    assert_eq!((info.id.as_str(), info.elo, info.cpu_hours), (best.id.as_str(), Some(state.best_elo), state.cpu_hours));
    let elo = std::fs::read_to_string(exported.join("elo.csv")).unwrap();
    let run_elo = std::fs::read_to_string(dir.join("elo.csv")).unwrap();
    let renumbered: Vec<String> = run_elo
        .lines()
        .skip(1)
        .map(|row| {
            let (k, rest) = row.split_once(',').unwrap();
            format!("{},{rest}", 7 + k.parse::<u32>().unwrap())
        })
        .collect();
    assert_eq!(elo.lines().skip(1).collect::<Vec<_>>(), renumbered);
    for file in ["timings.csv", "metrics.csv", "loop.toml", "arena/gate-008.json"] {
        assert!(exported.join(file).is_file(), "{file}");
    }
    assert!(!exported.join("arena/gate-001.json").exists());
    let metrics_rows = std::fs::read_to_string(exported.join("metrics.csv")).unwrap().lines().count();
    assert!(
        std::fs::read_to_string(exported.join("metrics.csv")).unwrap().lines().skip(1).all(|r| r.starts_with("8,"))
    );
    run_loop(&config, &BurnBackend::cpu(), None, &mut |_| {}).unwrap();
    assert_eq!(std::fs::read_to_string(exported.join("elo.csv")).unwrap(), elo);
    assert_eq!(std::fs::read_to_string(exported.join("timings.csv")).unwrap().lines().count(), 2);

    // The next sitting goes on from the export and adds its rows to it, all
    // but the one rating its start network again.
    std::fs::write(exported.join("README.md"), "kept").unwrap();
    // The export carries the sitting's samples on in `window/`, by generation.
    let window = |dir: &std::path::Path| {
        let mut names: Vec<String> = std::fs::read_dir(dir.join("window"))
            .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        names.sort();
        names
    };
    assert_eq!(window(&exported), ["samples-008.bin"]);
    config.start = Some(exported.clone());
    config.runs_dir = runs.join("third");
    let weights = |dir: &std::path::Path| {
        use pente_nn::store::{ONNX_FILE, SAFETENSORS_FILE, WEIGHTS_FILE};
        [WEIGHTS_FILE, SAFETENSORS_FILE, ONNX_FILE].map(|file| std::fs::read(dir.join(file)).unwrap_or_default())
    };
    let exported_weights = weights(&exported);
    let mut stages = Vec::new();
    let third = run_loop(&config, &BurnBackend::cpu(), None, &mut |e| {
        if let LoopEvent::Stage { stage: "train", detail, .. } = e {
            stages.push(detail);
        }
    })
    .unwrap();
    // The next sitting trains on them beside its own, and carries both on.
    assert_eq!(window(&config.run_dir()), ["samples-008.bin"]);
    assert!(stages.iter().any(|d| d.contains("carried from earlier sittings (1 iteration)")), "{stages:?}");
    assert_eq!(window(&exported), ["samples-008.bin", "samples-009.bin"]);
    // Every match of both sittings is kept, but for the third's rating of
    // its start network: the second rated that network already (at its
    // end, or at its start if it promoted nothing), and the third reused
    // that match rather than playing it again.
    assert!(!config.run_dir().join("baseline-uniform-000.jsonl").exists(), "the start's rating was not played again");
    let matches = |dir: &std::path::Path| {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with("baseline-") && name.ends_with(".json"))
            .count()
    };
    assert_eq!(matches(&exported.join("arena")), matches(&dir) + matches(&config.run_dir()) - 1);
    assert!(exported.join("arena/baseline-uniform-007-start.json").is_file());
    assert!(!exported.join("arena/baseline-uniform-008-start.json").exists());
    // (The third's ratings of its start network, its own row and the
    // baseline's reused match, are not repeated: the second wrote them.)
    let exported_elo = std::fs::read_to_string(exported.join("elo.csv")).unwrap();
    let rows: Vec<&str> = exported_elo.lines().collect();
    assert!(rows.starts_with(&elo.lines().collect::<Vec<_>>()), "{exported_elo}");
    assert_eq!(rows.iter().collect::<std::collections::HashSet<_>>().len(), rows.len(), "{exported_elo}");
    let third_rows = std::fs::read_to_string(config.run_dir().join("elo.csv")).unwrap();
    for row in third_rows.lines().skip(1).filter(|row| !row.starts_with("0,")) {
        let (k, rest) = row.split_once(',').unwrap();
        let row = format!("{},{rest}", 8 + k.parse::<u32>().unwrap());
        assert!(rows.contains(&row.as_str()), "{row} in {exported_elo}");
    }
    assert!(third.table[0].cpu_hours == state.cpu_hours && third.cpu_hours > state.cpu_hours);
    // A sitting that keeps its start network leaves its files as they were.
    if pente_nn::store::load_info(&third.best).unwrap().id == info.id {
        assert!(weights(&exported) == exported_weights, "the exported network's files were rewritten");
    }
    assert_eq!(std::fs::read_to_string(exported.join("README.md")).unwrap(), "kept");
    // The earlier sitting's training curve and matches are kept beside this one's.
    let metrics = std::fs::read_to_string(exported.join("metrics.csv")).unwrap();
    assert!(metrics.lines().count() > metrics_rows && metrics.lines().any(|r| r.starts_with("9,")), "{metrics}");
    assert!(exported.join("arena/gate-008.json").is_file() && exported.join("arena/gate-009.json").is_file());
    // Its network is generation 9 even where the last sitting promoted none.
    assert_eq!(info.iterations, 8);
    let arena = std::fs::read_to_string(config.run_dir().join("iter-001/arena.json")).unwrap();
    assert!(arena.contains("ci-9@"), "{arena}");
    // Run again, its start now being its own export: nothing is renamed or
    // counted again.
    let exported_info = pente_nn::store::load_info(&exported).unwrap();
    let again = run_loop(&config, &BurnBackend::cpu(), None, &mut |_| {}).unwrap();
    assert_eq!(again.table, third.table);
    assert_eq!(pente_nn::store::load_info(&exported).unwrap(), exported_info);
    assert_eq!(std::fs::read_to_string(exported.join("timings.csv")).unwrap().lines().count(), 3);
    std::fs::remove_dir_all(runs).unwrap();
}

/// With `train_from = "latest"` each iteration plays and trains from the
/// newest candidate, promoted or not; the export carries it in `latest/`
/// when it is not the best, and the next sitting goes on from it. Back on
/// `best`, the export's `latest/` goes.
#[test]
fn a_run_can_go_on_from_its_newest_candidate() {
    let mut config = LoopConfig::load(&configs().join("loop-ci.toml")).unwrap();
    let runs = std::env::temp_dir().join(format!("pente-train-latest-{}", std::process::id()));
    config.runs_dir = runs.join("first");
    let exported = runs.join("exported");
    config.export = Some(exported.clone());
    config.iterations = 2;
    config.selfplay.games = 8;
    config.train.steps = 10;
    config.arena.games = 2;
    config.arena.baselines = vec!["uniform".into()];
    // No candidate can score more than 100 %: none is promoted.
    config.arena.promote_score = 1.5;
    config.train_from = TrainFrom::Latest;
    let info = |dir: &Path| pente_nn::store::load_info(dir).unwrap();
    let parent = |dir: &Path| info(&dir.join("train/checkpoint")).parent.unwrap();
    let played = |dir: &Path| std::fs::read_to_string(dir.join("selfplay/selfplay.toml")).unwrap();
    // A baseline match played writes its games beside its result; one
    // taken from the export has none.
    let start_rated_again = |run: &Path| run.join("baseline-uniform-000.jsonl").exists();
    let exported_matches = || {
        let mut names: Vec<String> = std::fs::read_dir(exported.join("arena"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("baseline-"))
            .collect();
        names.sort();
        names
    };

    let state = run_loop(&config, &BurnBackend::cpu(), None, &mut |_| {}).unwrap();
    let dir = config.run_dir();
    assert_eq!(info(&state.best).id, "ci-0", "nothing promoted");
    assert_eq!(state.latest, Some(dir.join("iter-002/train/checkpoint")));
    assert_eq!(parent(&dir.join("iter-001")), "ci-0");
    assert_eq!(parent(&dir.join("iter-002")), "ci-1", "trained from the rejected candidate");
    assert!(played(&dir.join("iter-002")).contains("iter-001/train/checkpoint"), "{}", played(&dir.join("iter-002")));
    // The export: the best network, and the newest candidate's weights once.
    assert_eq!(info(&exported).id, "ci-0");
    let mut carried: Vec<String> = std::fs::read_dir(exported.join("latest"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    carried.sort();
    assert_eq!(carried, ["model.json", "model.safetensors"]);
    assert_eq!(info(&exported.join("latest")).id, "ci-2");
    assert!(start_rated_again(&dir), "the first sitting rates its start");
    assert_eq!(exported_matches(), ["baseline-uniform-000-start.json"]);

    // The next sitting goes on from the carried candidate, named on from it.
    config.start = Some(exported.clone());
    config.net = None;
    config.runs_dir = runs.join("second");
    config.iterations = 1;
    let second = run_loop(&config, &BurnBackend::cpu(), None, &mut |_| {}).unwrap();
    let dir = config.run_dir();
    assert!(dir.join("models/ci-2/model.onnx").is_file(), "saved whole for self-play");
    assert!(played(&dir.join("iter-001")).contains("models/ci-2"), "{}", played(&dir.join("iter-001")));
    assert_eq!(info(&dir.join("iter-001/train/checkpoint")).id, "ci-3");
    assert_eq!(parent(&dir.join("iter-001")), "ci-2");
    assert_eq!(info(&second.best).id, "ci-0");
    assert_eq!(info(&exported.join("latest")).id, "ci-3");
    // Its start, ci-0, was rated against the baseline by the sitting before.
    assert!(!start_rated_again(&dir), "the exported rating of the same network is reused");
    assert_eq!(exported_matches(), ["baseline-uniform-000-start.json"], "and not exported twice");
    let elo = std::fs::read_to_string(exported.join("elo.csv")).unwrap();
    assert_eq!(elo.lines().filter(|row| row.contains(",uniform@")).count(), 1, "nor its row: {elo}");

    // A candidate promoted is the best and the newest at once: the export
    // has no `latest/` then.
    config.arena.promote_score = 0.0;
    config.runs_dir = runs.join("third");
    let third = run_loop(&config, &BurnBackend::cpu(), None, &mut |_| {}).unwrap();
    assert_eq!(parent(&config.run_dir().join("iter-001")), "ci-3");
    assert_eq!((info(&third.best).id.as_str(), third.latest.as_ref()), ("ci-4", Some(&third.best)));
    assert!(!exported.join("latest").exists());
    assert_eq!(exported_matches(), ["baseline-uniform-000-start.json", "baseline-uniform-004.json"]);

    // Back on the best: it trains from the best.
    config.train_from = TrainFrom::Best;
    config.runs_dir = runs.join("fourth");
    let fourth = run_loop(&config, &BurnBackend::cpu(), None, &mut |_| {}).unwrap();
    assert_eq!(fourth.latest, None);
    assert_eq!(parent(&config.run_dir().join("iter-001")), "ci-4");
    assert!(!start_rated_again(&config.run_dir()), "ci-4's rating at the end of the sitting before");
    std::fs::remove_dir_all(runs).unwrap();
}
