//! `pente export samples`: a samples file as a NumPy `.npz`, for tools that
//! do not use the Python package.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args, Subcommand, ValueEnum};
use pente_dataset::{Columns, ReadOptions, SampleChunks};
use pente_nn::features::Features;

/// What `pente export` writes.
#[derive(Debug, Subcommand)]
pub enum ExportCommand {
    /// Training samples (a run's samples.bin) as columns of arrays: the
    /// layout is in docs/records.md.
    Samples(SamplesArgs),
}

/// The formats of `pente export samples`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ExportFormat {
    /// NumPy's .npz: one array a column (numpy.load reads it).
    Npz,
}

/// Arguments of `pente export samples`.
#[derive(Debug, Args)]
pub struct SamplesArgs {
    /// A samples file, or a directory holding samples.bin (a self-play run).
    input: PathBuf,
    /// The output format.
    #[arg(long, value_enum, default_value = "npz")]
    format: ExportFormat,
    /// The file to write [default: samples.npz beside the input].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Also write the network's input planes (`features`) in this features version.
    #[arg(long, value_name = "VERSION")]
    features: Option<u32>,
    /// Only the games on this board size (needed when a file mixes sizes).
    #[arg(long)]
    size: Option<u8>,
    /// Keep the complete games of a file whose last game was cut short.
    #[arg(long)]
    allow_truncated: bool,
    /// Leave out the board-sized columns (board, ownership) and write the
    /// policy sparse (policy_offsets, policy_moves, policy_probs): a few
    /// dozen bytes a sample instead of about 2 KB on 19x19.
    #[arg(long)]
    compact: bool,
}

/// Runs `pente export`.
pub fn run(command: &ExportCommand) -> anyhow::Result<ExitCode> {
    match command {
        ExportCommand::Samples(args) => samples(args),
    }
}

fn samples(args: &SamplesArgs) -> anyhow::Result<ExitCode> {
    let input = if args.input.is_dir() { args.input.join("samples.bin") } else { args.input.clone() };
    let features = args.features.map(Features::from_version).transpose()?;
    let out = args.out.clone().unwrap_or_else(|| input.with_extension("npz"));
    if out == input {
        bail!("{}: the output would replace the input", out.display());
    }
    let columns = if args.compact { Columns::COMPACT } else { Columns::ALL };
    let options = ReadOptions { features, size: args.size, allow_truncated: args.allow_truncated, columns };
    let arrays = SampleChunks::open(&input, options)?.read_all()?;
    let ExportFormat::Npz = args.format;
    write_atomically(&out, |file| arrays.write_npz(BufWriter::new(file)).map(|_| ()).map_err(anyhow::Error::from))?;
    eprintln!(
        "{}: {} samples on {}x{}{} from {}",
        out.display(),
        arrays.len(),
        arrays.size,
        arrays.size,
        features.map(|f| format!(", features version {}", f.version())).unwrap_or_default(),
        input.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Writes `path` through a temporary file beside it, renamed when whole, so
/// a killed export leaves the old file (or none), never half of one.
fn write_atomically(path: &Path, write: impl FnOnce(&mut File) -> anyhow::Result<()>) -> anyhow::Result<()> {
    let partial = path.with_extension("npz.tmp");
    let mut file = File::create(&partial).with_context(|| format!("creating {}", partial.display()))?;
    write(&mut file).with_context(|| format!("writing {}", partial.display()))?;
    file.sync_all().with_context(|| format!("writing {}", partial.display()))?;
    std::fs::rename(&partial, path).with_context(|| format!("renaming {} to {}", partial.display(), path.display()))
}
