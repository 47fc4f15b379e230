//! `pente train`: train a network on self-play samples.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use pente_train::{StepReport, TrainConfig, train};

/// Arguments of `pente train`.
#[derive(Debug, Args)]
pub struct TrainArgs {
    /// Training settings (TOML), e.g. configs/train.toml.
    #[arg(long, default_value = "configs/train.toml")]
    config: PathBuf,
    /// The model to start from (ignored when --out holds a checkpoint to resume).
    #[arg(long)]
    model: PathBuf,
    /// Samples files or directories; override the config's `samples`.
    #[arg(long)]
    samples: Vec<PathBuf>,
    /// Also every chunk of a store of distributed self-play (a directory or
    /// an object store URL), after the other samples.
    #[arg(long, value_name = "STORE")]
    store: Option<String>,
    /// Output directory: checkpoint/ (the trained model) and metrics.csv.
    #[arg(long, default_value = "runs/train")]
    out: PathBuf,
    /// Steps; overrides the config.
    #[arg(long)]
    steps: Option<u64>,
    /// Id of the trained model; default `<start id>-t<steps>`.
    #[arg(long)]
    id: Option<String>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Reads a training config file.
fn load_config(path: &std::path::Path) -> anyhow::Result<TrainConfig> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let config: TrainConfig = toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    config.check().map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    Ok(config)
}

/// A progress bar for training steps.
pub fn step_bar(steps: u64, quiet: bool) -> ProgressBar {
    let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new(steps) };
    bar.set_style(
        ProgressStyle::with_template("train {bar:30} {pos}/{len} steps  eta {eta}  {msg}").expect("a valid template"),
    );
    bar
}

/// Shows a training step on `bar`.
pub fn show_step(bar: &ProgressBar, s: &StepReport) {
    bar.set_length(s.steps);
    bar.set_position(s.step);
    let aux = s.aux_loss.map(|loss| format!(" aux {loss:.3}")).unwrap_or_default();
    bar.set_message(format!(
        "policy {:.3} value {:.3}{aux} lr {:.1e} {:.0} samples/s",
        s.policy_loss, s.value_loss, s.learning_rate, s.samples_per_second
    ));
}

/// Runs `pente train`.
pub fn run(args: &TrainArgs) -> anyhow::Result<ExitCode> {
    let mut config = load_config(&args.config)?;
    if !args.samples.is_empty() {
        config.samples.clone_from(&args.samples);
    }
    if let Some(steps) = args.steps {
        config.steps = steps;
    }
    config.samples.extend(crate::store::chunk_dirs(args.store.as_deref())?);
    anyhow::ensure!(!config.samples.is_empty(), "no samples: set `samples` in the config or pass --samples or --store");
    let start = pente_nn::store::load_info(&args.model).with_context(|| format!("reading {}", args.model.display()))?;
    let id = args.id.clone().unwrap_or_else(|| format!("{}-t{}", start.id, config.steps));
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    std::fs::write(args.out.join("train.toml"), toml::to_string_pretty(&config)?)
        .with_context(|| format!("writing {}", args.out.join("train.toml").display()))?;
    let bar = step_bar(config.steps, args.quiet);
    let mut last = None;
    let checkpoint = train(&config, &args.out, &args.model, &id, 0, &mut |s| {
        show_step(&bar, s);
        last = Some(*s);
    })?;
    bar.finish_and_clear();
    if let Some(s) = last {
        let aux = s.aux_loss.map(|loss| format!(", auxiliary loss {loss:.4}")).unwrap_or_default();
        println!(
            "step {}: policy loss {:.4}, value loss {:.4}{aux}, {:.1} samples/s",
            s.step, s.policy_loss, s.value_loss, s.samples_per_second
        );
    }
    println!("model {id} in {}", checkpoint.display());
    Ok(ExitCode::SUCCESS)
}
