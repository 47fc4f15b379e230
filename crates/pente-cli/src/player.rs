//! Choosing the evaluator behind `analyze`, `play` and `engine`, and the
//! backend and device networks run on.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use pente_nn::{BurnBackend, Device};
use pente_ort::OrtBackend;
use pente_search::backend::{OpenError, Registration, Registry};
use pente_search::{Backend, Evaluator, HeuristicEvaluator, SearchParams, UniformEvaluator, level};
use pente_web::protocol::Defaults;

/// The backends of this binary, from the fastest: ONNX Runtime when its
/// library is found, else burn (on the device of `PENTE_DEVICE`), which
/// runs everywhere. A new backend is one more registration here.
pub fn backends() -> Registry {
    let mut registry = Registry::new();
    registry.register(OrtBackend::registration(10));
    registry.register(Registration {
        name: BurnBackend::NAME,
        aliases: &[],
        priority: 0,
        open: Box::new(|| {
            let device = device().map_err(|e| OpenError::Failed { backend: BurnBackend::NAME, source: e.into() })?;
            Ok(Arc::new(BurnBackend::new(device)))
        }),
    });
    registry
}

/// Checks a `--backend` name against [`backends`].
pub fn backend_name(name: &str) -> Result<String, String> {
    let registry = backends();
    if registry.knows(name) {
        Ok(name.to_ascii_lowercase())
    } else {
        Err(format!("unknown backend `{name}`: expected {}", registry.known()))
    }
}

/// `--backend`, for every command that runs a network.
#[derive(Debug, Clone, Args)]
pub struct BackendArgs {
    /// Network backend: `auto` (ONNX Runtime if its library is found, else
    /// burn), `ort` (ONNX Runtime, an error without it) or `burn`.
    #[arg(long, env = "PENTE_BACKEND", default_value = "auto", value_parser = backend_name)]
    pub backend: String,
}

impl BackendArgs {
    /// The backend, after saying on stderr which one it is.
    pub fn choose(&self) -> anyhow::Result<Arc<dyn Backend>> {
        choose_backend(&self.backend)
    }
}

/// The backend `name` (or `auto`), after saying on stderr which one it is.
pub fn choose_backend(name: &str) -> anyhow::Result<Arc<dyn Backend>> {
    let opened = backends().open(name)?;
    eprintln!("{}", opened.summary());
    Ok(opened.backend)
}

/// `--visits` and `--level`: how strong the engine plays.
#[derive(Debug, Clone, Args)]
pub struct StrengthArgs {
    /// Engine playouts per move (default 400: the search of level 7).
    #[arg(long, conflicts_with = "level")]
    pub visits: Option<u32>,
    /// A strength level from 1 (the network's policy, sampled) to 9 (1600
    /// visits, the deepest solver); it sets the visits, the move temperature
    /// and the solver's budget. 7 is the default search (400 visits). The
    /// README has the table of levels with their strength.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=i64::from(level::LEVELS)))]
    pub level: Option<u8>,
    /// A time per move in seconds: the search stops at it; alone, the search
    /// runs until it (with --visits or --level, whichever comes first).
    #[arg(long)]
    pub seconds: Option<f64>,
}

impl StrengthArgs {
    /// The search settings and their description (`400 visits`, `level 3
    /// (8 visits, best move, no solver)`, `1.5 s a move`).
    pub fn params(&self) -> anyhow::Result<(SearchParams, String)> {
        level::timed_strength(self.level, self.visits, self.seconds).map_err(anyhow::Error::msg)
    }

    /// The defaults of requests that give no budget (engine, web board).
    pub fn defaults(&self) -> Defaults {
        Defaults { level: self.level, visits: self.visits, seconds: self.seconds }
    }
}

/// Threads a network gets when one search uses it: every core.
pub fn all_threads() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

/// Where the default network is shipped, relative to the repository root.
pub const DEFAULT_MODEL_DIR: &str = "data/models/default";

/// An evaluator and a line saying which one it is.
pub struct LoadedEvaluator {
    /// The evaluator.
    pub evaluator: Box<dyn Evaluator>,
    /// E.g. `heuristic evaluator (no network in data/models/default)`.
    pub description: String,
    /// The description without paths on this machine, for answers to
    /// others (the web board): e.g. `network campaign-8 (ort)`.
    pub without_paths: String,
}

impl LoadedEvaluator {
    fn new(evaluator: Box<dyn Evaluator>, description: &str) -> LoadedEvaluator {
        LoadedEvaluator { evaluator, description: description.into(), without_paths: description.into() }
    }
}

/// The evaluator for `--model`: `heuristic`, `uniform`, a model directory,
/// or (without `--model`) the shipped network, else the heuristic. A
/// network runs on the backend of `backend` (chosen when first needed).
pub fn load_evaluator(model: Option<&Path>, backend: &mut LazyBackend) -> anyhow::Result<LoadedEvaluator> {
    match model.and_then(Path::to_str) {
        Some("heuristic") => {
            return Ok(LoadedEvaluator::new(Box::new(HeuristicEvaluator::default()), "heuristic evaluator"));
        }
        Some("uniform") => {
            return Ok(LoadedEvaluator::new(Box::new(UniformEvaluator::default()), "uniform priors, zero value"));
        }
        _ => {}
    }
    let path = match model {
        Some(path) => path.to_path_buf(),
        None => {
            let Some(default) = default_model_dir() else {
                return Ok(LoadedEvaluator::new(
                    Box::new(HeuristicEvaluator::default()),
                    &format!("heuristic evaluator (no network in {DEFAULT_MODEL_DIR})"),
                ));
            };
            default
        }
    };
    let backend = backend.get()?;
    let network = backend.load(&path, all_threads())?;
    let description = format!("network {} ({}, {})", network.name(), path.display(), backend.name());
    let without_paths = format!("network {} ({})", network.name(), backend.name());
    Ok(LoadedEvaluator { evaluator: network, description, without_paths })
}

/// A backend chosen the first time a network is loaded, so that commands
/// run with `heuristic` or `uniform` never look for ONNX Runtime.
pub struct LazyBackend {
    args: BackendArgs,
    chosen: Option<Arc<dyn Backend>>,
}

impl LazyBackend {
    /// Not chosen yet.
    pub fn new(args: &BackendArgs) -> LazyBackend {
        LazyBackend { args: args.clone(), chosen: None }
    }

    /// The backend, chosen now if not yet.
    pub fn get(&mut self) -> anyhow::Result<&dyn Backend> {
        if self.chosen.is_none() {
            self.chosen = Some(self.args.choose()?);
        }
        Ok(self.chosen.as_deref().expect("chosen above"))
    }
}

/// The shipped network: `data/models/default` under the current directory,
/// else in the source tree this binary was built from.
pub fn default_model_dir() -> Option<PathBuf> {
    shipped(DEFAULT_MODEL_DIR, |dir| dir.join(pente_nn::store::INFO_FILE).is_file())
}

/// Where the committed opening book of 19x19 Pente is, relative to the
/// repository root.
pub const DEFAULT_BOOK: &str = "data/books/pente.sqlite";

/// The committed opening book, found as [`default_model_dir`] is.
pub fn default_book() -> Option<PathBuf> {
    shipped(DEFAULT_BOOK, Path::is_file)
}

/// A path the repository ships, under the current directory or else in the
/// source tree this binary was built from, where `found` says it is there.
fn shipped(relative: &str, found: impl Fn(&Path) -> bool) -> Option<PathBuf> {
    let source_tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(relative);
    [PathBuf::from(relative), source_tree]
        .into_iter()
        .find(|path| found(path))
        .map(|path| path.canonicalize().unwrap_or(path))
}

/// The device networks run on: the CPU, unless `PENTE_DEVICE` names a GPU
/// backend this binary was built with (`wgpu` or `cuda` features).
pub fn device() -> anyhow::Result<Device> {
    let name = std::env::var("PENTE_DEVICE").unwrap_or_else(|_| "cpu".into());
    match name.as_str() {
        "cpu" | "flex" => Ok(Device::flex()),
        #[cfg(feature = "wgpu")]
        "wgpu" => Ok(Device::wgpu(burn_device_kind())),
        #[cfg(feature = "cuda")]
        "cuda" => Ok(Device::cuda(0)),
        other => anyhow::bail!("PENTE_DEVICE={other}: this build knows cpu{}{}", wgpu_name(), cuda_name()),
    }
}

#[cfg(feature = "wgpu")]
fn burn_device_kind() -> pente_nn::DeviceKind {
    pente_nn::DeviceKind::DefaultDevice
}

const fn wgpu_name() -> &'static str {
    if cfg!(feature = "wgpu") { ", wgpu" } else { "" }
}

const fn cuda_name() -> &'static str {
    if cfg!(feature = "cuda") { ", cuda" } else { "" }
}

/// `--book` and `--book-variety`: an opening book to play from.
#[derive(Debug, Clone, Args)]
pub struct BookArgs {
    /// An opening book (`pente book build`) to play from while the game is
    /// in it: its best expanded move by backed-up value; the search plays
    /// once the game leaves the book.
    #[arg(long, value_name = "BOOK")]
    pub book: Option<PathBuf>,
    /// Variety in the book: play any expanded move whose value is within
    /// this margin of the best (values run from -1 to 1), drawn at random; 0
    /// plays the best.
    #[arg(long, default_value_t = 0.0, value_name = "MARGIN")]
    pub book_variety: f32,
}

impl BookArgs {
    /// The book, if one was given, checked against the `rules` it will be
    /// used with (`None`: any, as the engine's requests bring their own).
    pub fn open(&self, rules: Option<pente_core::Rules>) -> anyhow::Result<Option<Arc<pente_book::BookPlayer>>> {
        let Some(path) = &self.book else { return Ok(None) };
        if !(self.book_variety.is_finite() && self.book_variety >= 0.0) {
            anyhow::bail!("--book-variety must be 0 or more");
        }
        let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let book = pente_book::BookPlayer::open(path, self.book_variety, seed)?;
        if let Some(rules) = rules
            && book.rules() != rules
        {
            let theirs = book.rules();
            anyhow::bail!(
                "{}: the book is for {} {}x{}, not {} {}x{}",
                path.display(),
                theirs.variant(),
                theirs.size(),
                theirs.size(),
                rules.variant(),
                rules.size(),
                rules.size()
            );
        }
        Ok(Some(Arc::new(book)))
    }
}

/// The book arguments of the programs that play (`play`, `engine`,
/// `serve`): without `--book`, the committed book if it is there.
#[derive(Debug, Clone, Args)]
pub struct PlayingBookArgs {
    #[command(flatten)]
    pub book: BookArgs,
    /// Play without an opening book. Without it and without --book, levels
    /// 7-9 and the default player play from the committed book
    /// (data/books/pente.sqlite, 19x19 Pente) while the game is in it; the
    /// weaker levels never play from a book.
    #[arg(long, conflicts_with = "book")]
    pub no_book: bool,
}

impl PlayingBookArgs {
    /// The book given, else the committed one if it is there and fits
    /// `rules` (`None`: any rules, as the engine's requests bring their own).
    pub fn open(&self, rules: Option<pente_core::Rules>) -> anyhow::Result<Option<Arc<pente_book::BookPlayer>>> {
        if self.no_book {
            return Ok(None);
        }
        if self.book.book.is_some() {
            return self.book.open(rules);
        }
        let Some(path) = default_book() else { return Ok(None) };
        let book = BookArgs { book: Some(path), ..self.book.clone() }.open(None)?;
        Ok(book.filter(|book| rules.is_none_or(|rules| book.rules() == rules)))
    }
}
