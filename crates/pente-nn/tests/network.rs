//! The network end to end on tiny shapes: evaluation, save and load, the
//! PyTorch export and search with the network (training that overfits is
//! `overfit.rs`).

use pente_core::{Game, Point, Position, Rules, Variant};
use pente_nn::training::{Batch, Example};
use pente_nn::{ModelInfo, NetConfig, NetworkEvaluator, cpu, store};
use pente_search::{Evaluator, Search, SearchParams};

fn tiny() -> NetConfig {
    NetConfig::new()
        .with_channels(8)
        .with_blocks(1)
        .with_pool_channels(4)
        .with_policy_channels(4)
        .with_value_channels(4)
        .with_value_hidden(8)
}

fn position(rules: Rules, moves: &str) -> Position {
    Game::from_move_list(rules, moves).unwrap().position().clone()
}

#[test]
fn evaluations_are_masked_distributions_for_every_size() {
    let device = cpu();
    let evaluator = NetworkEvaluator::new(tiny().init(&device), device, "tiny");
    let positions = [
        position(Rules::pente(), "K10 L9"),
        position(Rules::new(Variant::Pente, 7).unwrap(), "D4"),
        position(Rules::new(Variant::Keryo, 13).unwrap(), ""),
        position(Rules::pente(), "K10"),
    ];
    let refs: Vec<&Position> = positions.iter().collect();
    let evaluations = evaluator.evaluate(&refs);
    assert_eq!(evaluations.len(), 4);
    for (position, evaluation) in positions.iter().zip(&evaluations) {
        let size = position.rules().size();
        assert_eq!(evaluation.policy.len(), position.rules().area());
        let total: f32 = evaluation.policy.iter().sum();
        assert!((total - 1.0).abs() < 1e-4, "policy sums to {total}");
        for (i, &p) in evaluation.policy.iter().enumerate() {
            let point = Point::from_dense_index(i, size).unwrap();
            if !position.is_legal(point) {
                assert!(p < 1e-12, "illegal {point} gets {p}");
            }
        }
        assert!((-1.0..=1.0).contains(&evaluation.value));
    }
    // Move 3 of pente: the 5x5 centre square is masked.
    let k9 = "K9".parse::<Point>().unwrap().dense_index(19);
    assert!(evaluations[0].policy[k9] < 1e-12);
    // Batching does not change results.
    let alone = evaluator.evaluate(&[&positions[2]]);
    for (a, b) in alone[0].policy.iter().zip(&evaluations[2].policy) {
        assert!((a - b).abs() < 1e-5);
    }
}

#[test]
fn save_and_load_give_identical_outputs() {
    let device = cpu();
    let model = tiny().init(&device);
    let dir = std::env::temp_dir().join(format!("pente-nn-save-{}", std::process::id()));
    let info = ModelInfo::new("tiny-test", tiny());
    store::save(&model, &info, &dir).unwrap();
    assert!(dir.join(store::SAFETENSORS_FILE).is_file());
    let (loaded, loaded_info) = store::load(&dir, &device).unwrap();
    assert_eq!(loaded_info, info);
    let before = NetworkEvaluator::new(model, device.clone(), "a");
    let after = NetworkEvaluator::new(loaded, device, "b");
    let p = position(Rules::pente(), "K10 L9 K7 L8");
    assert_eq!(before.evaluate(&[&p]), after.evaluate(&[&p]));
    // A broken model directory is an error naming the file, not a panic.
    std::fs::write(dir.join(store::WEIGHTS_FILE), b"not weights").unwrap();
    let error = store::load(&dir, &cpu()).unwrap_err().to_string();
    assert!(error.contains(store::WEIGHTS_FILE), "{error}");
    // A features version this build does not read, or planes that are not
    // its version's: refused with the reason.
    let json = serde_json::to_string(&info).unwrap();
    let planes = format!("\"in_planes\":{}", info.net.in_planes);
    for (text, reason) in [
        (json.replace("\"features_version\":2", "\"features_version\":3"), "version 3"),
        (json.replace(&planes, "\"in_planes\":16"), "shape does not fit"),
        (json.replace("\"features_version\":2", "\"features_version\":1"), "shape does not fit"),
    ] {
        assert_ne!(text, json);
        std::fs::write(dir.join(store::INFO_FILE), text).unwrap();
        let error = store::load(&dir, &cpu()).unwrap_err().to_string();
        assert!(error.contains(store::INFO_FILE) && error.contains(reason), "{error}");
    }
    std::fs::write(dir.join(store::INFO_FILE), b"{").unwrap();
    let error = store::load(&dir, &cpu()).unwrap_err().to_string();
    assert!(error.contains(store::INFO_FILE), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A directory with only `model.json` and `model.safetensors` (what the
/// PyTorch trainer writes) loads from the PyTorch names, to the same outputs.
#[test]
fn a_model_loads_from_its_pytorch_weights_alone() {
    let device = cpu();
    let model = tiny().init(&device);
    let dir = std::env::temp_dir().join(format!("pente-nn-safetensors-{}", std::process::id()));
    let info = ModelInfo::new("tiny-torch", tiny());
    store::save(&model, &info, &dir).unwrap();
    for file in [store::WEIGHTS_FILE, store::ONNX_FILE] {
        std::fs::remove_file(dir.join(file)).unwrap();
    }
    let (loaded, _) = store::load(&dir, &device).unwrap();
    let p = position(Rules::pente(), "K10 L9 K7 L8");
    let before = NetworkEvaluator::new(model, device.clone(), "a").evaluate(&[&p]);
    assert_eq!(before, NetworkEvaluator::new(loaded, device.clone(), "b").evaluate(&[&p]));
    // Weights of another shape than model.json's network: refused, naming the file.
    let wider = ModelInfo::new("tiny-torch", tiny().with_channels(16));
    store::save_info(&wider, &dir).unwrap();
    let error = store::load(&dir, &device).unwrap_err().to_string();
    assert!(error.contains(store::SAFETENSORS_FILE), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The auxiliary targets are seen from the side to move: its stones own
/// (+1), the opponent's are owned against it (-1), and the captures are
/// fractions of the stones that win.
#[test]
fn auxiliary_targets_are_seen_from_the_side_to_move() {
    let device = cpu();
    let rules = Rules::new(Variant::Pente, 9).unwrap();
    // White to move; its H5 will capture F5 and G5.
    let now = position(rules, "E5 F5");
    let last = position(rules, "E5 F5 A1 G5 H5");
    let policy = [("A1".parse::<Point>().unwrap(), 1.0)];
    let example = |final_position| Example {
        position: &now,
        policy: &policy,
        result: 1.0,
        reply: Some("G5".parse().unwrap()),
        final_position,
    };
    let batch = Batch::new(NetConfig::new().features().unwrap(), &[example(Some(&last))], &device);
    let aux = batch.aux.expect("targets of every example");
    let data = |t: burn::prelude::Tensor<2>| t.into_data().try_to_vec::<f32>().unwrap();
    let (reply, ownership, captures) = (data(aux.reply), data(aux.ownership), data(aux.captures));
    let at = |p: &str| p.parse::<Point>().unwrap().dense_index(9);
    assert_eq!(reply.iter().sum::<f32>(), 1.0);
    assert_eq!(reply[at("G5")], 1.0);
    for (p, owner) in [("E5", 1.0), ("A1", 1.0), ("H5", 1.0), ("F5", 0.0), ("G5", 0.0), ("A9", 0.0)] {
        assert_eq!(ownership[at(p)], owner, "{p}");
    }
    assert_eq!(ownership.iter().filter(|&&o| o != 0.0).count(), 3);
    assert_eq!(captures, [0.2, 0.0]);
    // Black to move in the same game sees it the other way round.
    let black = position(rules, "E5 F5 A1");
    let seen = Batch::new(
        NetConfig::new().features().unwrap(),
        &[Example { position: &black, ..example(Some(&last)) }],
        &device,
    )
    .aux
    .unwrap();
    assert_eq!(data(seen.ownership)[at("E5")], -1.0);
    assert_eq!(data(seen.captures), [0.0, 0.2]);
    // An example without its game's end gives the batch no auxiliary targets.
    assert!(Batch::new(NetConfig::new().features().unwrap(), &[example(None)], &device).aux.is_none());
}

#[test]
fn search_runs_on_the_network() {
    let device = cpu();
    let evaluator = NetworkEvaluator::new(tiny().init(&device), device, "tiny");
    let rules = Rules::new(Variant::Pente, 9).unwrap();
    let params = SearchParams { visits: 40, ..SearchParams::default() };
    let result = Search::new(position(rules, "E5 A1"), params, 1).run(&evaluator);
    assert_eq!(result.visits, 40);
    assert!(result.best_move.is_some());
}
