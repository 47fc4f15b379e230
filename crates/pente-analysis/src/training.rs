//! A training run's curves: the trainer's `metrics.csv` (losses per step)
//! and `elo.csv` (ratings per iteration) in `runs/<name>/`.
//!
//! Columns are found by name in the header, so that columns added later do
//! not break reading; those named in [`METRICS_HEADER`] and [`ELO_HEADER`]
//! that a row needs must be there.

use std::collections::BTreeMap;
use std::path::Path;

use pente_records::Cause;
use serde::Deserialize;

use crate::input::InputError;

/// The header the trainer writes to `metrics.csv`: one row per logged step.
/// Rows of networks without auxiliary heads (and rows written before the
/// column existed) end before `aux_loss`.
pub const METRICS_HEADER: &str =
    "iteration,step,samples,policy_loss,value_loss,learning_rate,samples_per_second,aux_loss";

/// The header the trainer writes to `elo.csv`: one row per rated model.
pub const ELO_HEADER: &str = "iteration,model,elo,elo_low,elo_high,games,cpu_hours";

/// One row of `metrics.csv`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct MetricsRow {
    /// The self-play/training iteration.
    pub iteration: u64,
    /// The optimizer step, counted over the whole run.
    pub step: u64,
    /// Training samples seen so far.
    pub samples: Option<u64>,
    /// Cross-entropy of the policy head.
    pub policy_loss: f64,
    /// Cross-entropy of the value head (win/draw/loss).
    pub value_loss: f64,
    /// The learning rate at this step.
    pub learning_rate: Option<f64>,
    /// Training throughput.
    pub samples_per_second: Option<f64>,
    /// The auxiliary heads' weighted losses, summed.
    pub aux_loss: Option<f64>,
}

/// One row of `elo.csv`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct EloRow {
    /// The iteration whose model was rated.
    pub iteration: u64,
    /// The model's id or name.
    pub model: String,
    /// The rating.
    pub elo: f64,
    /// Lower end of the rating's confidence interval.
    pub elo_low: Option<f64>,
    /// Upper end of that interval.
    pub elo_high: Option<f64>,
    /// Games the rating rests on.
    pub games: Option<u64>,
    /// CPU-hours spent making the rated network (for a fixed baseline: the
    /// network it was rated against).
    pub cpu_hours: Option<f64>,
}

/// The mean losses of one iteration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IterationLoss {
    /// The iteration.
    pub iteration: u64,
    /// Mean policy loss over its logged steps.
    pub policy_loss: f64,
    /// Mean value loss over its logged steps.
    pub value_loss: f64,
    /// Logged steps with finite losses.
    pub steps: u64,
}

/// Reads every row of a CSV file with a header into `T`.
fn read_rows<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>, InputError> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .flexible(true)
        .from_path(path)
        .map_err(|e| InputError::file_failed(path, "cannot open", e))?;
    let headers = reader.headers().map_err(|e| InputError::file_failed(path, "cannot read the header", e))?.clone();
    let mut rows = Vec::new();
    let mut record = csv::StringRecord::new();
    loop {
        let line = reader.position().line();
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {
                let line = record.position().map_or(line, csv::Position::line) as usize;
                let row = record.deserialize(Some(&headers)).map_err(|e| row_error(path, line, e))?;
                rows.push(row);
            }
            Err(e) => {
                let line = e.position().map_or(line, csv::Position::line) as usize;
                return Err(row_error(path, line, e));
            }
        }
    }
    Ok(rows)
}

/// The error of the row at `line`, which ends the reading. A row that does
/// not deserialize gets the csv crate's message without the position it
/// appends (the line is ours).
fn row_error(path: &Path, line: usize, error: csv::Error) -> InputError {
    let source = match error.kind() {
        csv::ErrorKind::Deserialize { err, .. } => Cause::new(err.clone()),
        _ => Cause::new(error),
    };
    let error = InputError::record(path, line, source.to_string()).caused_by(source);
    InputError { fatal: true, ..error }
}

/// Reads a `metrics.csv`.
///
/// # Errors
/// A file that cannot be read, or a row without a needed column or with a
/// value that does not parse, naming its line.
pub fn read_metrics(path: &Path) -> Result<Vec<MetricsRow>, InputError> {
    read_rows(path)
}

/// Reads an `elo.csv`.
///
/// # Errors
/// As [`read_metrics`].
pub fn read_elo(path: &Path) -> Result<Vec<EloRow>, InputError> {
    read_rows(path)
}

/// The mean finite losses of each iteration, in iteration order.
#[must_use]
pub fn losses_by_iteration(rows: &[MetricsRow]) -> Vec<IterationLoss> {
    let mut sums: BTreeMap<u64, (f64, f64, u64)> = BTreeMap::new();
    for row in rows.iter().filter(|r| r.policy_loss.is_finite() && r.value_loss.is_finite()) {
        let sum = sums.entry(row.iteration).or_default();
        sum.0 += row.policy_loss;
        sum.1 += row.value_loss;
        sum.2 += 1;
    }
    sums.into_iter()
        .map(|(iteration, (policy, value, steps))| IterationLoss {
            iteration,
            policy_loss: policy / steps as f64,
            value_loss: value / steps as f64,
            steps,
        })
        .collect()
}
