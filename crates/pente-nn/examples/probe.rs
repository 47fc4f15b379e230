//! Writes a model's outputs on a fixed set of positions, to check another
//! implementation of the network (`python -m pente.torchnet check`)
//! against burn's.
//!
//! ```text
//! cargo run --release -p pente-nn --example probe -- MODEL_DIR OUT_DIR [--safetensors]
//! ```
//!
//! The weights come from `model.bpk`, or with `--safetensors` from the
//! PyTorch-style `model.safetensors` (e.g. one written by the script's
//! `perturb`, whose batch-norm statistics are not the fresh 0 and 1).
//!
//! `OUT_DIR` receives little-endian `f32` arrays: `features.f32`
//! `[B, planes, 19, 19]`, `policy.f32` `[B, 361]` (raw logits, unmasked) and
//! `value.f32` `[B, 3]` (win/draw/loss logits), and `probe.json` with their
//! shapes, the model id and the positions.

use std::path::Path;
use std::process::ExitCode;

use burn::prelude::*;
use burn::store::{ModuleSnapshot, PyTorchToBurnAdapter, SafetensorsStore};
use pente_core::{Game, Rules, Variant};
use pente_nn::{NetworkEvaluator, PenteNet, cpu, store};

/// Board side of every probe position.
const SIZE: u8 = 19;

/// The probe positions: a variant and the moves played from the empty board.
const GAMES: [(Variant, &str); 8] = [
    (Variant::Pente, ""),
    (Variant::Pente, "K10 L9"),
    (Variant::Pente, "K10 L10 N13 M10 N10"),
    (Variant::Pente, "K10 K11 K14 L11 M11 L12 L13 J11 H11 M12 N13 J10 H9"),
    (Variant::FreePente, "K10 K11 K9 L11 M11"),
    (Variant::Keryo, "K10 L10 N13 M10 N10 A1 B2"),
    (Variant::Gomoku, "A1 T19 J9 J10 J11"),
    (Variant::GomokuExact, "K10 K11 L10 L11 M10 M11"),
];

fn write_f32(path: &Path, values: &[f32]) -> std::io::Result<()> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(path, bytes)
}

/// The network of `dir` and its id, weights from `model.bpk` or `model.safetensors`.
fn load(dir: &Path, safetensors: bool, device: &Device) -> Result<(PenteNet, String), String> {
    if !safetensors {
        let (model, info) = store::load(dir, device).map_err(|e| e.to_string())?;
        return Ok((model, info.id));
    }
    let info = store::load_info(dir).map_err(|e| e.to_string())?;
    let path = dir.join(store::SAFETENSORS_FILE);
    let mut model = info.net.init(device);
    let mut file = SafetensorsStore::from_file(&path).with_from_adapter(PyTorchToBurnAdapter);
    let result = model.load_from(&mut file).map_err(|e| format!("{}: {e}", path.display()))?;
    if !result.unused.is_empty() {
        return Err(format!("{}: tensors the network lacks: {:?}", path.display(), result.unused));
    }
    Ok((model, info.id))
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let safetensors = args.iter().any(|a| a == "--safetensors");
    args.retain(|a| a != "--safetensors");
    let [model_dir, out_dir] = args.as_slice() else {
        eprintln!("usage: probe MODEL_DIR OUT_DIR [--safetensors]");
        return ExitCode::FAILURE;
    };
    let (model_dir, out_dir) = (Path::new(model_dir), Path::new(out_dir));
    let device = cpu();
    let (model, id) = match load(model_dir, safetensors, &device) {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    // The evaluator switches the network to inference mode (batch norm uses running statistics).
    let evaluator = NetworkEvaluator::new(model, device.clone(), id.clone());

    let size = usize::from(SIZE);
    let area = size * size;
    let b = GAMES.len();
    let kind = evaluator.model().features();
    let planes = kind.planes();
    let mut features = vec![0.0f32; b * planes * area];
    for (i, (variant, moves)) in GAMES.iter().enumerate() {
        let rules = Rules::new(*variant, SIZE).expect("19x19 rules");
        let game = Game::from_move_list(rules, moves).expect("probe games replay");
        kind.encode(game.position(), &mut features[i * planes * area..(i + 1) * planes * area]);
    }
    let x = Tensor::<4>::from_data(TensorData::new(features.clone(), [b, planes, size, size]), &device);
    let (policy, value) = evaluator.model().forward(x);
    let policy = policy.into_data().try_into_vec::<f32>().expect("f32 policy");
    let value = value.into_data().try_into_vec::<f32>().expect("f32 value");

    let meta = serde_json::json!({
        "model_id": id,
        "weights": if safetensors { store::SAFETENSORS_FILE } else { store::WEIGHTS_FILE },
        "features": {"file": "features.f32", "shape": [b, planes, size, size]},
        "policy": {"file": "policy.f32", "shape": [b, area]},
        "value": {"file": "value.f32", "shape": [b, 3]},
        "positions": GAMES.iter().map(|(v, m)| format!("{}: {m}", v.name())).collect::<Vec<_>>(),
    });
    let written = std::fs::create_dir_all(out_dir)
        .and_then(|()| write_f32(&out_dir.join("features.f32"), &features))
        .and_then(|()| write_f32(&out_dir.join("policy.f32"), &policy))
        .and_then(|()| write_f32(&out_dir.join("value.f32"), &value))
        .and_then(|()| std::fs::write(out_dir.join("probe.json"), format!("{meta:#}\n")));
    if let Err(e) = written {
        eprintln!("{}: {e}", out_dir.display());
        return ExitCode::FAILURE;
    }
    println!("wrote {b} positions to {}", out_dir.display());
    ExitCode::SUCCESS
}
