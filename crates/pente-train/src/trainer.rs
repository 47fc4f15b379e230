//! The training loop: batches from the replay window, policy cross-entropy
//! plus value loss, Adam with a warm-up and cosine learning-rate schedule,
//! atomic checkpoints and a metrics CSV. A run resumes from its checkpoint.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use burn::module::Module;
use burn::optim::decay::WeightDecayConfig;
use burn::optim::{AdamConfig, GradientsParams};
use pente_nn::training::{Batch, Example, losses};
use pente_nn::{ModelInfo, NetConfig, PenteNet, store};
use serde::{Deserialize, Serialize};

use crate::data::{ReplayWindow, batch_rng, sample_files};
use crate::error::{TrainError, io};

/// Training settings (the `[train]` table of the loop config, or `train.toml`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainConfig {
    /// `samples.bin` files, or directories holding them (searched one level deep).
    #[serde(default)]
    pub samples: Vec<PathBuf>,
    /// Most recent samples to draw batches from (with `window_growth`, the
    /// window's size until there are this many samples).
    #[serde(default = "default_window")]
    pub window: usize,
    /// A window that grows with the samples there are, beyond `window`.
    #[serde(default)]
    pub window_growth: Option<WindowGrowth>,
    /// Positions per step.
    #[serde(default = "default_batch_size")]
    pub batch_size: usize,
    /// Optimizer steps of this run.
    pub steps: u64,
    /// Peak learning rate.
    #[serde(default = "default_learning_rate")]
    pub learning_rate: f64,
    /// Steps of linear warm-up to the peak.
    #[serde(default)]
    pub warmup_steps: u64,
    /// The learning rate at the last step, as a fraction of the peak (cosine decay).
    #[serde(default = "default_final_fraction")]
    pub final_fraction: f64,
    /// L2 weight decay.
    #[serde(default = "default_weight_decay")]
    pub weight_decay: f32,
    /// Weight of the value loss against the policy loss.
    #[serde(default = "default_value_weight")]
    pub value_weight: f64,
    /// Random 8-fold symmetry augmentation.
    #[serde(default = "default_true")]
    pub symmetries: bool,
    /// Steps between checkpoints.
    #[serde(default = "default_checkpoint_every")]
    pub checkpoint_every: u64,
    /// Seed of the batch draws.
    #[serde(default)]
    pub seed: u64,
}

/// KataGo's growing window: with `total` samples, more than `window`, it
/// keeps the newest `window * (1 + scale * ((total / window)^exponent - 1) / exponent)`,
/// so that early data of weak networks leaves the window fast and later
/// training draws from a wider one.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowGrowth {
    /// How fast it grows: the window grows as `total^exponent`.
    #[serde(default = "default_growth_exponent")]
    pub exponent: f64,
    /// Its growth's scale; 1 with an exponent of 1 keeps every sample.
    #[serde(default = "default_growth_scale")]
    pub scale: f64,
}

fn default_growth_exponent() -> f64 {
    0.75
}

fn default_growth_scale() -> f64 {
    0.4
}

fn default_window() -> usize {
    250_000
}
fn default_batch_size() -> usize {
    128
}
fn default_learning_rate() -> f64 {
    1e-3
}
fn default_final_fraction() -> f64 {
    0.1
}
fn default_weight_decay() -> f32 {
    1e-4
}
fn default_value_weight() -> f64 {
    1.0
}
fn default_true() -> bool {
    true
}
fn default_checkpoint_every() -> u64 {
    50
}

impl TrainConfig {
    /// Checks values the types allow but training does not.
    ///
    /// # Errors
    /// The first setting out of range.
    pub fn check(&self) -> Result<(), String> {
        if self.batch_size == 0 || self.window == 0 || self.checkpoint_every == 0 {
            return Err("batch_size, window and checkpoint_every must be at least 1".into());
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return Err("learning_rate must be positive".into());
        }
        if !(0.0..=1.0).contains(&self.final_fraction) {
            return Err("final_fraction must be between 0 and 1".into());
        }
        if let Some(growth) = self.window_growth
            && !(growth.exponent > 0.0 && growth.exponent <= 1.0 && growth.scale >= 0.0 && growth.scale.is_finite())
        {
            return Err("window_growth: exponent must be in (0, 1] and scale at least 0".into());
        }
        Ok(())
    }

    /// Samples in the window when there are `total`.
    #[must_use]
    pub fn window_for(&self, total: u64) -> usize {
        let base = self.window as f64;
        match self.window_growth {
            Some(WindowGrowth { exponent, scale }) if total as f64 > base => {
                let grown = base * (1.0 + scale * ((total as f64 / base).powf(exponent) - 1.0) / exponent);
                grown as usize
            }
            _ => self.window,
        }
    }

    /// The learning rate at `step` (0-based): linear warm-up, then cosine
    /// decay to `final_fraction` of the peak at the last step.
    #[must_use]
    pub fn learning_rate_at(&self, step: u64) -> f64 {
        if step < self.warmup_steps {
            return self.learning_rate * (step + 1) as f64 / self.warmup_steps as f64;
        }
        let span = self.steps.saturating_sub(self.warmup_steps).max(1) as f64;
        let t = ((step - self.warmup_steps) as f64 / span).min(1.0);
        let floor = self.final_fraction * self.learning_rate;
        floor + (self.learning_rate - floor) * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())
    }
}

/// Where a training run keeps its state.
pub const CHECKPOINT_DIR: &str = "checkpoint";
/// The optimizer state inside the checkpoint.
const OPTIMIZER_FILE: &str = "optimizer.bpk";
/// Progress of the run inside the checkpoint.
const STATE_FILE: &str = "trainer.json";
/// Metrics, one row per logged step.
pub const METRICS_FILE: &str = "metrics.csv";
/// Columns of [`METRICS_FILE`].
/// A network without auxiliary heads leaves `aux_loss` off its rows.
pub const METRICS_HEADER: &str =
    "iteration,step,samples,policy_loss,value_loss,learning_rate,samples_per_second,aux_loss";

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct TrainerState {
    step: u64,
    samples: u64,
}

/// What one logged step reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepReport {
    /// Steps done.
    pub step: u64,
    /// Steps the run will do.
    pub steps: u64,
    /// Positions trained on in this run.
    pub samples: u64,
    /// Policy cross-entropy of the step's batch.
    pub policy_loss: f32,
    /// Value cross-entropy of the step's batch.
    pub value_loss: f32,
    /// The auxiliary heads' weighted losses, summed, for a network with them.
    pub aux_loss: Option<f32>,
    /// Learning rate of the step.
    pub learning_rate: f64,
    /// Training speed since the run (re)started.
    pub samples_per_second: f64,
}

/// Trains into `out`, starting from `start` (a model directory), or
/// resuming from `out/checkpoint` when it exists. The trained model ends in
/// `out/checkpoint` with id `id`. `iteration` labels the metrics rows.
///
/// # Errors
/// [`TrainError`] for unreadable samples, a model that does not load or a
/// checkpoint that cannot be written.
pub fn train(
    config: &TrainConfig,
    out: &Path,
    start: &Path,
    id: &str,
    iteration: u64,
    on_step: &mut dyn FnMut(&StepReport),
) -> Result<PathBuf, TrainError> {
    config.check().map_err(TrainError::Config)?;
    std::fs::create_dir_all(out).map_err(io(out))?;
    let checkpoint = out.join(CHECKPOINT_DIR);
    // A kill between the two renames of a checkpoint swap leaves only the old one.
    let old = checkpoint.with_extension("old");
    if !checkpoint.exists() && old.join(STATE_FILE).is_file() {
        std::fs::rename(&old, &checkpoint).map_err(io(&old))?;
    }
    let device = training_device();
    let resuming = checkpoint.join(STATE_FILE).is_file();
    let from = if resuming { checkpoint.as_path() } else { start };
    let (mut model, mut info) = store::load(from, &device)?;
    let mut state = if resuming {
        let path = checkpoint.join(STATE_FILE);
        let text = std::fs::read_to_string(&path).map_err(io(&path))?;
        serde_json::from_str(&text).map_err(|source| TrainError::Json { path, source })?
    } else {
        info.parent = Some(info.id.clone());
        info.elo = None; // the parent's rating; the loop rates the child
        TrainerState { step: 0, samples: 0 }
    };
    info.id = id.to_string();
    let mut optimizer = new_optimizer(config);
    let optimizer_path = checkpoint.join(OPTIMIZER_FILE);
    if resuming && optimizer_path.is_file() {
        optimizer = optimizer
            .load(&optimizer_path)
            .map_err(|source| TrainError::Optimizer { path: optimizer_path.clone(), source })?;
    }
    if state.step >= config.steps {
        return Ok(checkpoint);
    }
    let files = sample_files(&config.samples)?;
    let window = ReplayWindow::load(&files, |total| config.window_for(total))?;
    let metrics_path = out.join(METRICS_FILE);
    let mut metrics = open_metrics(&metrics_path, iteration, state.step)?;
    let started = Instant::now();
    // Samples since the last checkpoint, and since this call started (for the speed).
    let (mut trained_here, mut trained_this_run) = (0u64, 0u64);
    let mut times = StepTimes::default();
    while state.step < config.steps {
        let learning_rate = config.learning_rate_at(state.step);
        let (policy_loss, value_loss, aux_loss);
        (model, policy_loss, value_loss, aux_loss) =
            train_step(model, &mut optimizer, &window, config, state.step, &device, &mut times);
        state.step += 1;
        state.samples += config.batch_size as u64;
        trained_here += config.batch_size as u64;
        trained_this_run += config.batch_size as u64;
        let report = StepReport {
            step: state.step,
            steps: config.steps,
            samples: state.samples,
            policy_loss,
            value_loss,
            aux_loss,
            learning_rate,
            samples_per_second: trained_this_run as f64 / started.elapsed().as_secs_f64(),
        };
        let aux_column = report.aux_loss.map(|loss| format!(",{loss:.5}")).unwrap_or_default();
        writeln!(
            metrics,
            "{iteration},{},{},{:.5},{:.5},{:.3e},{:.1}{aux_column}",
            report.step,
            report.samples,
            report.policy_loss,
            report.value_loss,
            report.learning_rate,
            report.samples_per_second
        )
        .and_then(|()| metrics.flush())
        .map_err(io(&metrics_path))?;
        on_step(&report);
        if state.step % config.checkpoint_every == 0 || state.step == config.steps {
            info.samples_trained += trained_here;
            trained_here = 0;
            save_checkpoint(&model, &info, &optimizer, state, &checkpoint)?;
        }
    }
    Ok(checkpoint)
}

/// The device training runs on: burn's CPU backend with autodiff.
fn training_device() -> burn::prelude::Device {
    pente_nn::cpu().autodiff()
}

/// Adam with the config's weight decay.
fn new_optimizer(config: &TrainConfig) -> burn::optim::ModuleOptimizer {
    AdamConfig::new().with_weight_decay(Some(WeightDecayConfig { penalty: config.weight_decay })).init()
}

/// Seconds spent in each part of training steps, summed.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepTimes {
    /// Steps timed.
    pub steps: u64,
    /// Drawing the batch: replaying each sample's game, the symmetry.
    pub sample: f64,
    /// Input planes, masks and targets into tensors.
    pub encode: f64,
    /// Forward pass and losses.
    pub forward: f64,
    /// Backward pass and gradient collection.
    pub backward: f64,
    /// The optimizer's update.
    pub optimizer: f64,
}

impl StepTimes {
    /// All parts.
    #[must_use]
    pub fn total(&self) -> f64 {
        self.sample + self.encode + self.forward + self.backward + self.optimizer
    }
}

/// One optimizer step on the batch of `step`; returns the model and the
/// policy, value and auxiliary losses, and adds the time of each part to `times`.
fn train_step(
    model: PenteNet,
    optimizer: &mut burn::optim::ModuleOptimizer,
    window: &ReplayWindow,
    config: &TrainConfig,
    step: u64,
    device: &burn::prelude::Device,
    times: &mut StepTimes,
) -> (PenteNet, f32, f32, Option<f32>) {
    let mut clock = Instant::now();
    let mut lap = |part: &mut f64| {
        *part += clock.elapsed().as_secs_f64();
        clock = Instant::now();
    };
    let mut rng = batch_rng(config.seed, step);
    let positions = window.batch(config.batch_size, config.symmetries, model.has_aux_heads(), &mut rng);
    lap(&mut times.sample);
    let examples: Vec<Example<'_>> = positions
        .iter()
        .map(|p| Example {
            position: &p.position,
            policy: &p.policy,
            result: p.result,
            reply: p.later.as_ref().and_then(|later| later.reply),
            final_position: p.later.as_ref().map(|later| &later.final_position),
        })
        .collect();
    let batch = Batch::new(model.features(), &examples, device);
    lap(&mut times.encode);
    let parts = losses(&model, &batch);
    let loss = parts.total(config.value_weight);
    let (policy_loss, value_loss) = (parts.policy.into_scalar::<f32>(), parts.value.into_scalar::<f32>());
    let aux_loss = parts.aux.map(|aux| aux.into_scalar::<f32>());
    lap(&mut times.forward);
    let grads = GradientsParams::from_grads(loss.backward(), &model);
    lap(&mut times.backward);
    let model = optimizer.step(config.learning_rate_at(step), model, grads);
    lap(&mut times.optimizer);
    times.steps += 1;
    (model, policy_loss, value_loss, aux_loss)
}

/// Times `steps` training steps of the model in `start` on `config`'s
/// samples, writing nothing: where a step's time goes.
///
/// # Errors
/// [`TrainError`] for unreadable samples or a model that does not load.
pub fn profile_steps(config: &TrainConfig, start: &Path, steps: u64) -> Result<StepTimes, TrainError> {
    let device = training_device();
    let (mut model, _) = store::load(start, &device)?;
    let window = ReplayWindow::load(&sample_files(&config.samples)?, |total| config.window_for(total))?;
    let mut optimizer = new_optimizer(config);
    let mut warm_up = StepTimes::default();
    model = train_step(model, &mut optimizer, &window, config, 0, &device, &mut warm_up).0;
    let mut times = StepTimes::default();
    for step in 1..=steps {
        model = train_step(model, &mut optimizer, &window, config, step, &device, &mut times).0;
    }
    Ok(times)
}

/// Opens the metrics file for appending, first dropping rows of this
/// iteration past `step` (steps after the last checkpoint, done again now).
fn open_metrics(path: &Path, iteration: u64, step: u64) -> Result<std::fs::File, TrainError> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut kept = String::from(METRICS_HEADER);
    kept.push('\n');
    for line in text.lines().skip(1).filter(|l| l.ends_with(|c: char| c.is_ascii_digit())) {
        let mut fields = line.split(',');
        let row_iteration = fields.next().and_then(|f| f.parse::<u64>().ok());
        let row_step = fields.next().and_then(|f| f.parse::<u64>().ok());
        if row_iteration != Some(iteration) || row_step.is_some_and(|s| s <= step) {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    let tmp = path.with_extension("csv.tmp");
    // The temporary file's errors name the metrics file, whose update failed.
    std::fs::write(&tmp, kept).map_err(io(path))?;
    std::fs::rename(&tmp, path).map_err(io(path))?;
    std::fs::OpenOptions::new().append(true).open(path).map_err(io(path))
}

/// Writes the model, optimizer and progress into a fresh directory and
/// swaps it in for the old checkpoint, so a kill leaves one whole checkpoint.
fn save_checkpoint(
    model: &PenteNet,
    info: &ModelInfo,
    optimizer: &burn::optim::ModuleOptimizer,
    state: TrainerState,
    checkpoint: &Path,
) -> Result<(), TrainError> {
    let fresh = checkpoint.with_extension("new");
    let old = checkpoint.with_extension("old");
    let _ = std::fs::remove_dir_all(&fresh);
    store::save(&model.valid(), info, &fresh)?;
    let optimizer_path = fresh.join(OPTIMIZER_FILE);
    optimizer.save(&optimizer_path).map_err(|source| TrainError::Optimizer { path: optimizer_path.clone(), source })?;
    std::fs::write(fresh.join(STATE_FILE), serde_json::to_string(&state).expect("state serializes"))
        .map_err(io(&fresh.join(STATE_FILE)))?;
    let _ = std::fs::remove_dir_all(&old);
    if checkpoint.exists() {
        std::fs::rename(checkpoint, &old).map_err(io(checkpoint))?;
    }
    std::fs::rename(&fresh, checkpoint).map_err(io(checkpoint))?;
    let _ = std::fs::remove_dir_all(&old);
    Ok(())
}

/// Creates a fresh network of `net`'s shape in `dir` (the start of a loop).
///
/// # Errors
/// [`TrainError::ModelDir`] if it cannot be written.
pub fn init_model(net: &NetConfig, id: &str, seed: u64, dir: &Path) -> Result<(), TrainError> {
    let device = pente_nn::cpu();
    device.seed(seed);
    let model = net.init(&device);
    Ok(store::save(&model, &ModelInfo::new(id, net.clone()), dir)?)
}

/// Saves the network of model directory `from` as `id` in `dir`, with
/// `from`'s id as its parent unless the id stays the same (the first network
/// of a run that goes on from a committed one).
///
/// # Errors
/// [`TrainError::ModelDir`] (naming the file) if `from` does not load or
/// `dir` cannot be written.
pub fn start_model(from: &Path, id: &str, dir: &Path) -> Result<(), TrainError> {
    let (model, info) = store::load(from, &pente_nn::cpu())?;
    let parent = if info.id == id { info.parent.clone() } else { Some(info.id.clone()) };
    let copy = ModelInfo { id: id.to_string(), parent, ..info };
    Ok(store::save(&model, &copy, dir)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(growth: Option<WindowGrowth>) -> TrainConfig {
        let mut config: TrainConfig = toml::from_str("steps = 1\nwindow = 1000").unwrap();
        config.window_growth = growth;
        config
    }

    #[test]
    fn the_window_grows_with_the_samples_there_are() {
        assert_eq!(config(None).window_for(1_000_000), 1000);
        let growing = config(Some(WindowGrowth { exponent: 0.75, scale: 0.4 }));
        assert_eq!(growing.window_for(500), 1000, "every sample until there are `window`");
        assert_eq!(growing.window_for(1000), 1000);
        // 1000 * (1 + 0.4 * (16^0.75 - 1) / 0.75) = 1000 * (1 + 0.4 * 7 / 0.75)
        assert_eq!(growing.window_for(16_000), 4733);
        let sizes: Vec<usize> = [2000, 4000, 8000, 16_000].iter().map(|&n| growing.window_for(n)).collect();
        assert!(sizes.windows(2).all(|w| w[0] < w[1]), "it grows: {sizes:?}");
        assert!(sizes.iter().zip([2000, 4000, 8000, 16_000]).all(|(&w, n)| w < n), "slower than the data: {sizes:?}");
        // An exponent and scale of 1 keep everything.
        assert_eq!(config(Some(WindowGrowth { exponent: 1.0, scale: 1.0 })).window_for(16_000), 16_000);
        assert!(config(Some(WindowGrowth { exponent: 0.0, scale: 0.4 })).check().is_err());
    }
}
