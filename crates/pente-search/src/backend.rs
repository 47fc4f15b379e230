//! Backends: the ways of running a network, each behind one trait, so that
//! self-play, arenas and the loop load networks without knowing what runs
//! them. Each backend crate implements [`Backend`]; the binary registers
//! them in a [`Registry`] by name and priority and opens one, once, at its
//! edge (lc0's backend factory is the model). A new backend (a GPU one, say)
//! is one crate implementing the trait and one registration.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use thiserror::Error;

use crate::Evaluator;

/// Any error, as a backend reports it: kept as the source of the typed
/// errors below so that the binary's error chain shows the cause.
pub type BoxedError = Box<dyn std::error::Error + Send + Sync>;

/// A way of running networks: loads a model directory as an [`Evaluator`].
pub trait Backend: fmt::Debug + Send + Sync {
    /// The registered name, e.g. `ort` or `burn`.
    fn name(&self) -> &'static str;

    /// What runs the networks, for logs: e.g. `ONNX Runtime 1.32.0
    /// (.onnxruntime/libonnxruntime.so.1.32.0)` or `burn (Flex)`.
    fn description(&self) -> String;

    /// Loads the model directory `dir` as an evaluator that runs on
    /// `threads` threads (a backend with a thread pool of its own may run on
    /// that instead: [`Backend::threads`] says).
    ///
    /// # Errors
    /// [`LoadError`] naming the directory, with the backend's reason as its source.
    fn load(&self, dir: &Path, threads: usize) -> Result<Box<dyn Evaluator>, LoadError>;

    /// The threads an evaluator loaded with `threads` really runs on.
    fn threads(&self, threads: usize) -> usize {
        threads
    }
}

/// A network that a backend cannot load.
#[derive(Debug, Error)]
#[error("cannot load the network in {}", dir.display())]
pub struct LoadError {
    /// The model directory.
    pub dir: PathBuf,
    /// Why: the file that does not load and its error.
    #[source]
    pub source: BoxedError,
}

impl LoadError {
    /// A load of `dir` that failed with `source`.
    pub fn new(dir: &Path, source: impl Into<BoxedError>) -> LoadError {
        LoadError { dir: dir.to_path_buf(), source: source.into() }
    }
}

/// A backend that cannot be opened.
#[derive(Debug, Error)]
pub enum OpenError {
    /// Not on this machine (no library, no device): `auto` goes on to the
    /// next backend.
    #[error("{source}")]
    Unavailable {
        /// The backend's name.
        backend: &'static str,
        /// Why it is not there.
        source: BoxedError,
    },
    /// There but unusable, or configured wrongly (a library named by the
    /// user that does not load): `auto` stops here too, since falling back
    /// would hide the mistake.
    #[error("{source}")]
    Failed {
        /// The backend's name.
        backend: &'static str,
        /// What is wrong.
        source: BoxedError,
    },
    /// No backend of that name is registered.
    #[error("unknown backend `{name}`: expected {known}")]
    Unknown {
        /// The name asked for.
        name: String,
        /// The names this build knows, e.g. `auto, ort or burn`.
        known: String,
    },
}

/// Opens a backend: a registered constructor.
pub type OpenFn = Box<dyn Fn() -> Result<Arc<dyn Backend>, OpenError> + Send + Sync>;

/// A backend a [`Registry`] can open.
pub struct Registration {
    /// The name users give (`--backend NAME`).
    pub name: &'static str,
    /// Other names accepted for it, e.g. `onnxruntime`.
    pub aliases: &'static [&'static str],
    /// `auto` tries the backends from the highest priority down.
    pub priority: i32,
    /// Opens it.
    pub open: OpenFn,
}

impl fmt::Debug for Registration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registration").field("name", &self.name).field("priority", &self.priority).finish()
    }
}

/// The name that opens the best backend available.
pub const AUTO: &str = "auto";

/// The backends one binary was built with.
#[derive(Debug, Default)]
pub struct Registry {
    /// Highest priority first.
    entries: Vec<Registration>,
}

/// An opened backend and what `auto` passed over on the way to it.
#[derive(Debug, Clone)]
pub struct Opened {
    /// The backend.
    pub backend: Arc<dyn Backend>,
    /// Why each backend of higher priority was not opened (empty unless `auto`).
    pub skipped: Vec<String>,
}

impl Opened {
    /// E.g. `backend: burn (Flex); no ONNX Runtime library found (...)`.
    #[must_use]
    pub fn summary(&self) -> String {
        let mut line = format!("backend: {}", self.backend.description());
        for why in &self.skipped {
            line.push_str("; ");
            line.push_str(why);
        }
        line
    }
}

impl Registry {
    /// No backends.
    #[must_use]
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Adds a backend.
    ///
    /// # Panics
    /// If its name or an alias is taken: registrations are made by the
    /// binary's code, so that is a bug.
    pub fn register(&mut self, registration: Registration) {
        for name in std::iter::once(registration.name).chain(registration.aliases.iter().copied()) {
            assert!(name != AUTO && self.find(name).is_none(), "backend name `{name}` registered twice");
        }
        let at = self.entries.partition_point(|e| e.priority >= registration.priority);
        self.entries.insert(at, registration);
    }

    /// The names `open` accepts, `auto` first, then by priority.
    #[must_use]
    pub fn names(&self) -> Vec<&'static str> {
        std::iter::once(AUTO).chain(self.entries.iter().map(|e| e.name)).collect()
    }

    /// Whether `open` knows `name` (a name, an alias or `auto`).
    #[must_use]
    pub fn knows(&self, name: &str) -> bool {
        name.eq_ignore_ascii_case(AUTO) || self.find(name).is_some()
    }

    fn find(&self, name: &str) -> Option<&Registration> {
        self.entries
            .iter()
            .find(|e| e.name.eq_ignore_ascii_case(name) || e.aliases.iter().any(|a| a.eq_ignore_ascii_case(name)))
    }

    /// Opens the backend `name`, or for `auto` the first of the highest
    /// priority that is available.
    ///
    /// # Errors
    /// [`OpenError::Unknown`] for a name not registered; the backend's
    /// error when it cannot be opened (for `auto`: a [`OpenError::Failed`],
    /// or the last backend's error when none is available).
    pub fn open(&self, name: &str) -> Result<Opened, OpenError> {
        if !name.eq_ignore_ascii_case(AUTO) {
            let Some(entry) = self.find(name) else {
                return Err(OpenError::Unknown { name: name.to_string(), known: self.known() });
            };
            return Ok(Opened { backend: (entry.open)()?, skipped: Vec::new() });
        }
        let mut skipped = Vec::new();
        let mut last = None;
        for entry in &self.entries {
            match (entry.open)() {
                Ok(backend) => return Ok(Opened { backend, skipped }),
                Err(error @ OpenError::Unavailable { .. }) => {
                    skipped.push(error.to_string());
                    last = Some(error);
                }
                Err(error) => return Err(error),
            }
        }
        Err(last.unwrap_or_else(|| OpenError::Unknown { name: name.to_string(), known: self.known() }))
    }

    /// `auto, ort or burn`.
    #[must_use]
    pub fn known(&self) -> String {
        let names = self.names();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.join(""),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::UniformEvaluator;

    #[derive(Debug)]
    struct Fake(&'static str);

    impl Backend for Fake {
        fn name(&self) -> &'static str {
            self.0
        }

        fn description(&self) -> String {
            format!("fake {}", self.0)
        }

        fn load(&self, dir: &Path, _threads: usize) -> Result<Box<dyn Evaluator>, LoadError> {
            if dir == Path::new("missing") {
                return Err(LoadError::new(dir, "no model.json"));
            }
            Ok(Box::new(UniformEvaluator::default()))
        }
    }

    fn entry(name: &'static str, priority: i32, available: Option<bool>) -> Registration {
        Registration {
            name,
            aliases: &[],
            priority,
            open: Box::new(move || match available {
                Some(true) => Ok(Arc::new(Fake(name))),
                Some(false) => Err(OpenError::Unavailable { backend: name, source: format!("no {name} here").into() }),
                None => Err(OpenError::Failed { backend: name, source: format!("{name} is broken").into() }),
            }),
        }
    }

    #[test]
    fn auto_opens_the_highest_priority_available_and_says_what_it_skipped() {
        let mut registry = Registry::new();
        registry.register(entry("slow", 0, Some(true)));
        registry.register(entry("gpu", 20, Some(false)));
        registry.register(entry("fast", 10, Some(true)));
        assert_eq!(registry.names(), ["auto", "gpu", "fast", "slow"]);
        let opened = registry.open("auto").unwrap();
        assert_eq!(opened.backend.name(), "fast");
        assert_eq!(opened.summary(), "backend: fake fast; no gpu here");
        assert_eq!(registry.open("SLOW").unwrap().backend.name(), "slow");
        assert!(registry.knows("Auto") && registry.knows("gpu") && !registry.knows("tpu"));
    }

    #[test]
    fn a_broken_backend_stops_auto_and_an_unknown_name_lists_the_known() {
        let mut registry = Registry::new();
        registry.register(entry("fallback", 0, Some(true)));
        registry.register(entry("broken", 10, None));
        assert_eq!(registry.open("auto").unwrap_err().to_string(), "broken is broken");
        let unknown = registry.open("tpu").unwrap_err();
        assert_eq!(unknown.to_string(), "unknown backend `tpu`: expected auto, broken or fallback");
        assert_eq!(
            registry.open("gpu").unwrap_err().to_string(),
            "unknown backend `gpu`: expected auto, broken or fallback"
        );
    }

    #[test]
    fn auto_with_nothing_available_returns_the_last_reason() {
        let mut registry = Registry::new();
        registry.register(entry("a", 1, Some(false)));
        registry.register(entry("b", 0, Some(false)));
        assert_eq!(registry.open("auto").unwrap_err().to_string(), "no b here");
    }

    #[test]
    fn a_load_error_names_the_directory_and_keeps_its_cause() {
        let error = Fake("x").load(Path::new("missing"), 1).err().expect("no such model");
        assert_eq!(error.to_string(), "cannot load the network in missing");
        assert_eq!(std::error::Error::source(&error).unwrap().to_string(), "no model.json");
    }

    #[test]
    #[should_panic(expected = "registered twice")]
    fn a_name_cannot_be_registered_twice() {
        let mut registry = Registry::new();
        registry.register(entry("a", 1, Some(true)));
        registry.register(entry("a", 0, Some(true)));
    }
}
