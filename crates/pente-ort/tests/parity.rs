//! ONNX Runtime and burn compute the same network: the same policy and value
//! (within 1e-4) on random positions of every variant and of 9x9, 13x13 and
//! 19x19 boards, with batch-norm statistics and parameters far from their
//! initial values (so that the folding of batch norm is really tested).
//!
//! These tests need the ONNX Runtime library. Without it they pass with a
//! note on stderr, unless `PENTE_REQUIRE_ORT` is set (as `.ci/run` does),
//! in which case they fail.

use burn::module::{Module, ModuleMapper, Param};
use burn::prelude::*;
use pente_core::{Position, Rules, Variant};
use pente_nn::{BurnBackend, ModelInfo, NetConfig, NetworkEvaluator, PenteNet, cpu, store};
use pente_ort::{OrtBackend, OrtEvaluator, Runtime};
use pente_search::{Backend, Evaluator};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

fn runtime() -> Option<&'static Runtime> {
    match OrtBackend::open() {
        Ok(backend) => Some(backend.runtime()),
        Err(error) if std::env::var_os("PENTE_REQUIRE_ORT").is_some() => {
            panic!("PENTE_REQUIRE_ORT is set but ONNX Runtime is unusable: {error}")
        }
        Err(error) => {
            eprintln!("skipped: {error}");
            None
        }
    }
}

/// Scales every one-dimensional tensor (batch-norm scale, shift, running
/// mean and variance, biases) by a random factor in [0.5, 2] and adds a
/// random amount in [0, 1]: all stay positive where they must.
struct Perturb(StdRng);

impl ModuleMapper for Perturb {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        if D != 1 {
            return param;
        }
        let (id, tensor, mapper) = param.consume();
        let n = tensor.dims()[0];
        let device = tensor.device();
        let scale: Vec<f32> = (0..n).map(|_| self.0.random_range(0.5..2.0)).collect();
        let shift: Vec<f32> = (0..n).map(|_| self.0.random_range(0.0..1.0)).collect();
        let scale = Tensor::<D>::from_data(TensorData::new(scale, tensor.dims()), &device);
        let shift = Tensor::<D>::from_data(TensorData::new(shift, tensor.dims()), &device);
        Param::from_mapped_value(id, tensor * scale + shift, mapper)
    }
}

fn perturbed(config: &NetConfig, seed: u64) -> PenteNet {
    config.init(&cpu()).map(&mut Perturb(StdRng::seed_from_u64(seed)))
}

/// `count` positions of `rules` after 0-40 random moves (none finished).
fn random_positions(rules: Rules, count: usize, rng: &mut StdRng) -> Vec<Position> {
    Position::random_positions(rules, count, rng, |rng, _| rng.random_range(0..40))
}

fn assert_same(config: &NetConfig, seed: u64) {
    let Some(runtime) = runtime() else { return };
    let model = perturbed(config, seed);
    let info = ModelInfo::new("perturbed", config.clone());
    let ort = OrtEvaluator::from_model(runtime, &model, &info, 1).unwrap();
    let burn = NetworkEvaluator::new(model, cpu(), "perturbed");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut worst = (0.0f32, 0.0f32);
    for variant in Variant::ALL {
        for size in [9, 13, 19] {
            let positions = random_positions(Rules::new(variant, size).unwrap(), 6, &mut rng);
            let refs: Vec<&Position> = positions.iter().collect();
            // One batch of all, and one position at a time: both paths of the graph.
            let together = ort.evaluate(&refs);
            let alone: Vec<_> = refs.iter().flat_map(|p| ort.evaluate(&[p])).collect();
            for ((position, a), (b, c)) in positions.iter().zip(&together).zip(burn.evaluate(&refs).iter().zip(&alone))
            {
                for other in [b, c] {
                    let policy = a.policy.iter().zip(&other.policy).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max);
                    let value = (a.value - other.value).abs();
                    assert!(
                        policy < 1e-4 && value < 1e-4,
                        "{variant} {size}x{size} after {} moves: policy differs by {policy}, value by {value}",
                        position.ply()
                    );
                    worst = (worst.0.max(policy), worst.1.max(value));
                }
            }
        }
    }
    eprintln!("largest difference: policy {:e}, value {:e}", worst.0, worst.1);
}

#[test]
fn ort_matches_burn_on_the_shipped_shape() {
    assert_same(&NetConfig::scaled(4, 32), 1);
}

#[test]
fn ort_matches_burn_on_version_1_features() {
    // Networks of version 1 (default-2, the first shipped one) still load and run.
    assert_same(&NetConfig::scaled(4, 32).with_in_planes(pente_nn::features::Features::V1.planes()), 4);
}

#[test]
fn ort_matches_burn_with_the_pool_block_last() {
    // pool_after = blocks: the pooling block after the last plain block.
    assert_same(&NetConfig::scaled(2, 16).with_pool_after(2), 2);
}

#[test]
fn the_model_directory_gets_an_onnx_file_that_ort_runs() {
    let Some(runtime) = runtime() else { return };
    let dir = std::env::temp_dir().join(format!("pente-ort-test-{}", std::process::id()));
    let config = NetConfig::scaled(1, 8);
    let model = perturbed(&config, 3);
    store::save(&model, &ModelInfo::new("saved", config), &dir).unwrap();
    let onnx = std::fs::read(dir.join(store::ONNX_FILE)).unwrap();
    let from_file = OrtEvaluator::from_onnx(runtime, &onnx, model.features(), "file", 1).unwrap();
    let from_dir = OrtEvaluator::load(runtime, &dir, 1).unwrap();
    let position = random_positions(Rules::pente(), 1, &mut StdRng::seed_from_u64(3)).remove(0);
    assert_eq!(from_file.evaluate(&[&position]), from_dir.evaluate(&[&position]));
    assert_eq!(from_dir.name(), "saved");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn both_backends_load_a_model_directory_through_the_trait_and_agree() {
    let Some(runtime) = runtime() else { return };
    let dir = std::env::temp_dir().join(format!("pente-ort-backends-{}", std::process::id()));
    let config = NetConfig::scaled(1, 8);
    store::save(&perturbed(&config, 4), &ModelInfo::new("both", config), &dir).unwrap();
    let backends: [&dyn Backend; 2] = [&OrtBackend::new(runtime), &BurnBackend::cpu()];
    let [ort, burn] = backends.map(|backend| backend.load(&dir, 1).unwrap());
    let positions = random_positions(Rules::pente(), 8, &mut StdRng::seed_from_u64(4));
    let positions: Vec<&Position> = positions.iter().collect();
    for (a, b) in ort.evaluate(&positions).iter().zip(burn.evaluate(&positions)) {
        assert!((a.value - b.value).abs() < 1e-4, "{} vs {}", a.value, b.value);
        assert!(a.policy.iter().zip(&b.policy).all(|(x, y)| (x - y).abs() < 1e-4));
    }
    assert_eq!((ort.name(), burn.name()), ("both".to_string(), "both".to_string()));
    // A directory without a network: the error names it and keeps the cause.
    std::fs::remove_dir_all(&dir).unwrap();
    for backend in backends {
        let error = backend.load(&dir, 1).err().expect("nothing to load");
        assert!(error.to_string().contains(&dir.display().to_string()), "{error}");
        let cause = std::error::Error::source(&error).expect("a cause").to_string();
        assert!(cause.contains(store::INFO_FILE), "{}: {cause}", backend.name());
    }
}

#[test]
fn an_onnx_file_of_a_model_directory_runs_as_it_is_and_only_for_its_network() {
    let Some(runtime) = runtime() else { return };
    let dir = std::env::temp_dir().join(format!("pente-ort-file-{}", std::process::id()));
    let config = NetConfig::scaled(1, 8);
    let info = ModelInfo::new("filed", config.clone());
    store::save(&perturbed(&config, 5), &info, &dir).unwrap();
    // A copy of the graph under another name, as `python -m pente.quantize` writes its int8 one.
    let copy = dir.join("model.copy.onnx");
    std::fs::copy(dir.join(store::ONNX_FILE), &copy).unwrap();
    let ort = OrtBackend::new(runtime);
    let (from_file, from_dir) = (ort.load(&copy, 1).unwrap(), ort.load(&dir, 1).unwrap());
    assert_eq!(from_file.name(), "filed/model.copy.onnx");
    let positions = random_positions(Rules::pente(), 4, &mut StdRng::seed_from_u64(5));
    let positions: Vec<&Position> = positions.iter().collect();
    assert_eq!(from_file.evaluate(&positions), from_dir.evaluate(&positions));

    // burn runs directories only, and says where a file runs.
    let error = BurnBackend::cpu().load(&copy, 1).err().expect("burn refuses a file");
    let cause = std::error::Error::source(&error).expect("a cause").to_string();
    assert!(cause.contains("ONNX Runtime"), "{cause}");

    // Once the directory holds another network, the file made from the old one is refused.
    store::save_info(&ModelInfo { id: "filed-2".into(), ..info }, &dir).unwrap();
    let error = ort.load(&copy, 1).err().expect("a stale file");
    let cause = std::error::Error::source(&error).expect("a cause").to_string();
    assert!(cause.contains("made from network `filed`") && cause.contains("`filed-2`"), "{cause}");
    std::fs::remove_dir_all(&dir).unwrap();
}
