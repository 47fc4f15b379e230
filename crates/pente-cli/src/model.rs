//! `pente model`: create and inspect model directories.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};
use pente_nn::features::LATEST;
use pente_nn::{ModelInfo, NetConfig, store};

/// What to do with a model.
#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Create a network with random weights (the start of training).
    Init(InitArgs),
    /// Print a model's metadata and size.
    Info {
        /// The model directory.
        dir: PathBuf,
    },
    /// Write (or rewrite) model.onnx of a model directory from its weights:
    /// the network with batch norm folded, input `features`, outputs `policy`
    /// and `value` (new models get it when they are saved).
    ExportOnnx {
        /// The model directory.
        dir: PathBuf,
    },
    /// Copy a model to the latest input encoding (features version 2 adds
    /// the threat solver's analysis): the new planes' weights start at
    /// zero, so the copy plays exactly as the model did until it is trained
    /// (`start = "OUT"` in a loop config).
    Upgrade {
        /// The model directory.
        dir: PathBuf,
        /// Directory to write the upgraded model to.
        #[arg(long)]
        out: PathBuf,
        /// Model id of the copy; default `<id>-f<version>`.
        #[arg(long)]
        id: Option<String>,
    },
    /// Grow a model into a deeper, wider network that plays exactly as it
    /// did (Net2Net): old weights kept, the weights reading the new
    /// channels zero, new blocks starting as the identity. A larger
    /// network's campaign starts from it (`start = "OUT"` in a loop config)
    /// instead of from random weights; its CPU-hours, Elo and iterations
    /// carry over.
    Grow(GrowArgs),
}

/// Arguments of `pente model grow`.
#[derive(Debug, Args)]
pub struct GrowArgs {
    /// The model directory.
    dir: PathBuf,
    /// Directory to write the grown model to.
    #[arg(long)]
    out: PathBuf,
    /// Residual blocks of the grown network (the pooling block comes after
    /// half of them, as in `model init`).
    #[arg(long)]
    blocks: usize,
    /// Channels of the grown network's tower (its heads scale with them, as
    /// in `model init`).
    #[arg(long)]
    channels: usize,
    /// Model id of the grown model; default `<id>-b<blocks>c<channels>`.
    /// For a campaign that goes on from it, give `<campaign name>-<N>` (N
    /// its iterations): a loop counts on from a start network of its own
    /// name, and from 0 otherwise.
    #[arg(long)]
    id: Option<String>,
    /// Seed of the new channels' random weights.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// Arguments of `pente model init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// Directory to write (model.bpk, model.json, model.safetensors, model.onnx).
    #[arg(long)]
    out: PathBuf,
    /// Residual blocks.
    #[arg(long, default_value_t = 6)]
    blocks: usize,
    /// Channels of the residual tower.
    #[arg(long, default_value_t = 64)]
    channels: usize,
    /// Model id recorded in games; default `init-b<blocks>c<channels>-s<seed>`.
    #[arg(long)]
    id: Option<String>,
    /// Seed of the random weights.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// Runs a `pente model` subcommand.
pub fn run(command: &ModelCommand) -> anyhow::Result<ExitCode> {
    match command {
        ModelCommand::Init(args) => {
            anyhow::ensure!(args.channels >= 2 && args.blocks >= 1, "a network needs 1+ blocks and 2+ channels");
            if args.out.join(store::INFO_FILE).exists() {
                anyhow::bail!("{}: a model is already there; choose another --out", args.out.display());
            }
            let config = NetConfig::scaled(args.blocks, args.channels);
            let device = crate::player::device()?;
            device.seed(args.seed);
            let model = config.init(&device);
            let id =
                args.id.clone().unwrap_or_else(|| format!("init-b{}c{}-s{}", args.blocks, args.channels, args.seed));
            store::save(&model, &ModelInfo::new(id.clone(), config), &args.out)
                .with_context(|| format!("saving the model to {}", args.out.display()))?;
            println!("wrote model {id} to {}", args.out.display());
        }
        ModelCommand::Info { dir } => {
            let device = crate::player::device()?;
            let (model, info) = store::load(dir, &device).with_context(|| format!("loading {}", dir.display()))?;
            println!("{}", serde_json::to_string_pretty(&info)?);
            println!("parameters: {}", burn::module::Module::num_params(&model));
        }
        ModelCommand::ExportOnnx { dir } => {
            let path = store::export_onnx(dir).with_context(|| format!("exporting {}", dir.display()))?;
            println!("wrote {}", path.display());
        }
        ModelCommand::Upgrade { dir, out, id } => {
            if out.join(store::INFO_FILE).exists() {
                anyhow::bail!("{}: a model is already there; choose another --out", out.display());
            }
            let device = crate::player::device()?;
            let (model, info) = store::load(dir, &device).with_context(|| format!("loading {}", dir.display()))?;
            if model.features() == LATEST {
                anyhow::bail!(
                    "{}: already reads the latest input features (version {})",
                    dir.display(),
                    LATEST.version()
                );
            }
            let model = model.with_inputs(LATEST);
            let id = id.clone().unwrap_or_else(|| format!("{}-f{}", info.id, LATEST.version()));
            let upgraded = ModelInfo {
                id: id.clone(),
                features_version: LATEST.version(),
                net: NetConfig { in_planes: LATEST.planes(), ..info.net.clone() },
                parent: Some(info.id.clone()),
                ..info
            };
            store::save(&model, &upgraded, out).with_context(|| format!("saving the model to {}", out.display()))?;
            println!(
                "wrote model {id} to {} (features version {}, {} input planes; the new ones start at zero)",
                out.display(),
                LATEST.version(),
                LATEST.planes()
            );
        }
        ModelCommand::Grow(args) => grow(args)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn grow(args: &GrowArgs) -> anyhow::Result<()> {
    if args.out.join(store::INFO_FILE).exists() {
        anyhow::bail!("{}: a model is already there; choose another --out", args.out.display());
    }
    let device = crate::player::device()?;
    let (model, info) = store::load(&args.dir, &device).with_context(|| format!("loading {}", args.dir.display()))?;
    let net = NetConfig {
        in_planes: info.net.in_planes,
        aux_heads: info.net.aux_heads,
        ..NetConfig::scaled(args.blocks, args.channels)
    };
    device.seed(args.seed);
    let grown = pente_nn::grow(&model, &info.net, &net, &device).with_context(|| {
        format!("growing {} ({} blocks x {} channels)", args.dir.display(), info.net.blocks, info.net.channels)
    })?;
    let id = args.id.clone().unwrap_or_else(|| format!("{}-b{}c{}", info.id, args.blocks, args.channels));
    let grown_info = ModelInfo { id: id.clone(), net, parent: Some(info.id.clone()), ..info };
    store::save(&grown, &grown_info, &args.out)
        .with_context(|| format!("saving the model to {}", args.out.display()))?;
    println!(
        "wrote model {id} to {} ({} blocks x {} channels, {} parameters; it plays as {} until trained)",
        args.out.display(),
        args.blocks,
        args.channels,
        burn::module::Module::num_params(&grown),
        info.id
    );
    Ok(())
}
