//! A run's store: its layout of keys and the rules that keep readers from
//! ever seeing a partial model or chunk.
//!
//! ```text
//! store.json                         marks a store (format, creation time)
//! current.json                       the current model's id
//! models/<id>.json                   a model's manifest: its files and sizes
//! models/<id>/<file>                 ... and the files
//! selfplay.toml                      the workers' self-play settings
//! chunks/<worker>/<index>.json       a chunk's manifest (written last)
//! chunk-data/<worker>/<index>-<attempt>/<file>
//! run/<file>                         the trainer's records (elo.csv, ...)
//! projects/<project>.json            an open project of shared tasks
//! tasks/<project>/todo/<task>.json   a task to do (see `tasks.rs`)
//! tasks/<project>/done/<task>.json   ... its result (written once)
//! tasks/<project>/rejected/<task>-<attempt>.json   a result refused, and why
//! ```
//!
//! Every object is written whole (a temporary file and a rename, or one
//! put). A model's files come before its manifest and the manifest before
//! the pointer; a chunk's files come before its manifest, under a name
//! only this attempt uses, and the manifest is put only if none is there:
//! two attempts at one chunk (a worker restarted while its old process
//! still ran) commit once, and the loser removes its files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::error::StoreError;
use crate::objects::{CloudObjects, DirObjects, Objects, unique_suffix};
use crate::retry::{RetryPolicy, Retrying};

const STORE_FILE: &str = "store.json";
const CURRENT_FILE: &str = "current.json";
/// The workers' self-play settings in a store.
pub const SELFPLAY_FILE: &str = "selfplay.toml";
const FORMAT: u32 = 1;

/// Where markers of chunks set aside go: `set-aside/<manifest key>`.
const SET_ASIDE: &str = "set-aside/";

/// A chunk left out of training: its manifest does not parse, or its files
/// are missing or not the sizes its manifest gives. Its manifest stays, so
/// its worker's next chunk takes the next number and no game is played twice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetAside {
    /// The manifest's key, e.g. `chunks/w1/000003.json`.
    pub manifest: String,
    /// What is wrong with it.
    pub reason: String,
    /// When it was set aside, in milliseconds since 1970.
    pub at_ms: u64,
}

/// One file of a model or chunk, with its size for checking a download.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// The file's name in the model or chunk directory.
    pub name: String,
    /// Its length in bytes.
    pub bytes: u64,
}

/// A committed self-play chunk, as its manifest describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// The worker that played it.
    pub worker: String,
    /// Its number among that worker's chunks, from 0.
    pub index: u64,
    /// The attempt whose files these are.
    pub attempt: String,
    /// The id of the model that played the games.
    pub model: String,
    /// Games in the chunk.
    pub games: u64,
    /// Training samples in the chunk.
    pub samples: u64,
    /// When it was committed, in milliseconds since 1970.
    pub committed_ms: u64,
    /// Its files.
    pub files: Vec<FileEntry>,
}

impl Chunk {
    /// `worker/index`, e.g. `w1/000003`.
    #[must_use]
    pub fn name(&self) -> String {
        format!("{}/{:06}", self.worker, self.index)
    }

    /// Its manifest's key, e.g. `chunks/w1/000003.json`.
    #[must_use]
    pub fn manifest_key(&self) -> String {
        format!("chunks/{}/{:06}.json", self.worker, self.index)
    }

    fn data_prefix(&self) -> String {
        format!("chunk-data/{}/{:06}-{}/", self.worker, self.index, self.attempt)
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct StoreInfo {
    format: u32,
    created_ms: u64,
}

#[derive(Debug, Serialize, Deserialize)]
struct Current {
    model: String,
    published_ms: u64,
}

#[derive(Debug, Serialize, Deserialize)]
struct ModelManifest {
    id: String,
    files: Vec<FileEntry>,
    published_ms: u64,
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Checks that `name` (a worker or model id) can be part of a key.
///
/// # Errors
/// [`StoreError::Name`] saying what is wrong.
pub fn check_name(what: &str, name: &str) -> Result<(), StoreError> {
    let ok = !name.is_empty()
        && name.len() <= 100
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(StoreError::Name(format!(
            "{what} `{name}`: use 1 to 100 letters, digits, `-`, `_` or `.`, not starting with `.`"
        )))
    }
}

/// The regular files of a directory, sorted by name.
fn dir_files(dir: &Path) -> Result<Vec<(String, PathBuf)>, StoreError> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(StoreError::io(dir))? {
        let entry = entry.map_err(StoreError::io(dir))?;
        if entry.file_type().map_err(StoreError::io(&entry.path()))?.is_file() {
            files.push((entry.file_name().to_string_lossy().to_string(), entry.path()));
        }
    }
    files.sort();
    Ok(files)
}

/// A run's shared storage: a directory, or an object store.
pub struct Store {
    pub(crate) objects: Box<dyn Objects>,
    spec: String,
    cache: PathBuf,
    /// Manifests already read: a committed chunk never changes.
    known: Mutex<BTreeMap<String, Chunk>>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("spec", &self.spec).finish_non_exhaustive()
    }
}

/// Where downloads from object stores are kept: `PENTE_STORE_CACHE`, else
/// the user's cache directory, one folder per store.
fn default_cache(spec: &str) -> PathBuf {
    let base = std::env::var_os("PENTE_STORE_CACHE").map(PathBuf::from).unwrap_or_else(|| {
        std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
            .unwrap_or_else(std::env::temp_dir)
            .join("pente")
            .join("stores")
    });
    let folder: String = spec.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    base.join(folder)
}

impl Store {
    fn connect(spec: &str) -> Result<Store, StoreError> {
        let objects: Box<dyn Objects> = match spec.split_once("://") {
            Some(("file", path)) => Box::new(DirObjects::new(PathBuf::from(path))),
            Some(_) => Box::new(CloudObjects::new(spec)?),
            None => Box::new(DirObjects::new(PathBuf::from(spec))),
        };
        let objects = Box::new(Retrying::new(objects, RetryPolicy::default()));
        Ok(Store { objects, spec: spec.to_string(), cache: default_cache(spec), known: Mutex::new(BTreeMap::new()) })
    }

    /// Creates a store at `spec` (a directory, or `s3://bucket/prefix`,
    /// `gs://...`, `az://...`) whose current model is the files `names` of
    /// the model directory `model`, with id `id`.
    ///
    /// # Errors
    /// [`StoreError`] if a store is there already or a write fails.
    pub fn create(spec: &str, model: &Path, id: &str, names: &[&str]) -> Result<Store, StoreError> {
        let store = Store::connect(spec)?;
        let info = StoreInfo { format: FORMAT, created_ms: now_ms() };
        if !store.objects.put_new(STORE_FILE, serde_json::to_vec_pretty(&info).expect("serializes"))? {
            return Err(StoreError::Spec { spec: spec.into(), message: "a store is there already".into() });
        }
        store.publish_model(id, model, names)?;
        Ok(store)
    }

    /// Opens the store at `spec`.
    ///
    /// # Errors
    /// [`StoreError::Spec`] if nothing there is a store.
    pub fn open(spec: &str) -> Result<Store, StoreError> {
        let store = Store::connect(spec)?;
        let Some(bytes) = store.objects.get(STORE_FILE)? else {
            return Err(StoreError::Spec {
                spec: spec.into(),
                message: "no store here (create one with `pente store init`)".into(),
            });
        };
        let info: StoreInfo =
            serde_json::from_slice(&bytes).map_err(|source| StoreError::BadJson { key: STORE_FILE.into(), source })?;
        if info.format != FORMAT {
            return Err(StoreError::Spec {
                spec: spec.into(),
                message: format!("store format {} (this pente reads format {FORMAT})", info.format),
            });
        }
        Ok(store)
    }

    /// Keeps downloads in `dir` instead of the default cache.
    #[must_use]
    pub fn with_cache(mut self, dir: PathBuf) -> Store {
        self.cache = dir;
        self
    }

    /// The address the store was opened with.
    #[must_use]
    pub fn spec(&self) -> &str {
        &self.spec
    }

    fn json<T: serde::de::DeserializeOwned>(&self, key: &str) -> Result<Option<T>, StoreError> {
        self.objects
            .get(key)?
            .map(|bytes| serde_json::from_slice(&bytes))
            .transpose()
            .map_err(|source| StoreError::BadJson { key: key.into(), source })
    }

    /// Uploads the files `names` of the model directory `dir` (those that
    /// are there) as model `id` and makes it the current model.
    ///
    /// # Errors
    /// [`StoreError`] if a file cannot be read or written.
    pub fn publish_model(&self, id: &str, dir: &Path, names: &[&str]) -> Result<(), StoreError> {
        let published_ms = self.add_model(id, dir, names)?;
        let current = Current { model: id.into(), published_ms };
        self.objects.put(CURRENT_FILE, serde_json::to_vec_pretty(&current).expect("serializes"))
    }

    /// Uploads the files `names` of the model directory `dir` as model `id`
    /// (its files, then its manifest) without making it the current model:
    /// a model that other work names by id, such as a book's player.
    /// Returns the manifest's time.
    ///
    /// # Errors
    /// [`StoreError`] if a file cannot be read or written.
    pub fn add_model(&self, id: &str, dir: &Path, names: &[&str]) -> Result<u64, StoreError> {
        check_name("model id", id)?;
        let mut files = Vec::new();
        for name in names.iter().filter(|name| dir.join(name).is_file()) {
            let path = dir.join(name);
            let bytes = std::fs::read(&path).map_err(StoreError::io(&path))?;
            files.push(FileEntry { name: (*name).to_string(), bytes: bytes.len() as u64 });
            self.objects.put(&format!("models/{id}/{name}"), bytes)?;
        }
        let manifest = ModelManifest { id: id.into(), files, published_ms: now_ms() };
        self.objects.put(&format!("models/{id}.json"), serde_json::to_vec_pretty(&manifest).expect("serializes"))?;
        Ok(manifest.published_ms)
    }

    /// Whether the store has a (whole) model `id`.
    ///
    /// # Errors
    /// [`StoreError`] if the id cannot be a key or the read fails.
    pub fn has_model(&self, id: &str) -> Result<bool, StoreError> {
        check_name("model id", id)?;
        Ok(self.objects.get(&format!("models/{id}.json"))?.is_some())
    }

    /// The current model's id.
    ///
    /// # Errors
    /// [`StoreError`] if the pointer is missing or unreadable.
    pub fn current_model(&self) -> Result<String, StoreError> {
        self.json::<Current>(CURRENT_FILE)?
            .map(|c| c.model)
            .ok_or_else(|| StoreError::Corrupt { key: CURRENT_FILE.into(), message: "missing".into() })
    }

    /// A local directory holding model `id`: the store's own for a
    /// directory store, else a checked download in the cache.
    ///
    /// # Errors
    /// [`StoreError`] if the model is not in the store or a download fails.
    pub fn fetch_model(&self, id: &str) -> Result<PathBuf, StoreError> {
        check_name("model id", id)?;
        let key = format!("models/{id}.json");
        let manifest: ModelManifest = self
            .json(&key)?
            .ok_or_else(|| StoreError::Corrupt { key: key.clone(), message: "no such model in the store".into() })?;
        self.local_copy(&format!("models/{id}/"), &manifest.files, &self.cache.join("models").join(id))
    }

    /// The directory under `prefix` as a local directory: in place, or
    /// downloaded into `target` (through a temporary directory and a
    /// rename, each file's size checked against `files`).
    fn local_copy(&self, prefix: &str, files: &[FileEntry], target: &Path) -> Result<PathBuf, StoreError> {
        if let Some(path) = self.objects.local_path(prefix) {
            return Ok(path);
        }
        if target.is_dir() {
            return Ok(target.to_path_buf());
        }
        let parent = target.parent().unwrap_or(target);
        std::fs::create_dir_all(parent).map_err(StoreError::io(parent))?;
        let tmp = parent.join(format!(".download-{}", unique_suffix()));
        std::fs::create_dir_all(&tmp).map_err(StoreError::io(&tmp))?;
        let result = (|| {
            for file in files {
                let key = format!("{prefix}{}", file.name);
                let bytes = self
                    .objects
                    .get(&key)?
                    .ok_or_else(|| StoreError::Corrupt { key: key.clone(), message: "missing".into() })?;
                if bytes.len() as u64 != file.bytes {
                    return Err(StoreError::Corrupt {
                        key,
                        message: format!("{} bytes, the manifest says {}", bytes.len(), file.bytes),
                    });
                }
                let path = tmp.join(&file.name);
                std::fs::write(&path, bytes).map_err(StoreError::io(&path))?;
            }
            match std::fs::rename(&tmp, target) {
                // Another process downloaded it meanwhile: theirs is as good.
                Err(_) if target.is_dir() => Ok(()),
                other => other.map_err(StoreError::io(target)),
            }
        })();
        let _ = std::fs::remove_dir_all(&tmp);
        result.map(|()| target.to_path_buf())
    }

    /// Every committed chunk not set aside, oldest first (by commit time,
    /// then worker and index). A manifest that does not parse is set aside
    /// here, and left out.
    ///
    /// # Errors
    /// [`StoreError`] if the listing or a manifest cannot be read.
    pub fn chunks(&self) -> Result<Vec<Chunk>, StoreError> {
        let aside: std::collections::BTreeSet<String> = self.set_aside()?.into_iter().map(|s| s.manifest).collect();
        Ok(self.chunks_under("chunks/")?.into_iter().filter(|c| !aside.contains(&c.manifest_key())).collect())
    }

    /// The chunks set aside so far, by manifest.
    ///
    /// # Errors
    /// [`StoreError`] if the listing or a marker cannot be read.
    pub fn set_aside(&self) -> Result<Vec<SetAside>, StoreError> {
        let mut all = Vec::new();
        for key in self.objects.list(SET_ASIDE)? {
            if let Some(marker) = self.json::<SetAside>(&key)? {
                all.push(marker);
            }
        }
        Ok(all)
    }

    /// Leaves the chunk of manifest `manifest` out of training from now on,
    /// for `reason` (`pente store status` lists it).
    ///
    /// # Errors
    /// [`StoreError`] if the marker cannot be written.
    pub fn set_aside_chunk(&self, manifest: &str, reason: &str) -> Result<(), StoreError> {
        let marker = SetAside { manifest: manifest.into(), reason: reason.into(), at_ms: now_ms() };
        self.objects.put(&format!("{SET_ASIDE}{manifest}"), serde_json::to_vec_pretty(&marker).expect("serializes"))
    }

    /// The number the next chunk of `worker` takes: one more than the
    /// highest committed, set aside or not (0 if none).
    ///
    /// # Errors
    /// [`StoreError`] if the listing fails.
    pub fn next_chunk_index(&self, worker: &str) -> Result<u64, StoreError> {
        check_name("worker id", worker)?;
        let keys = self.objects.list(&format!("chunks/{worker}/"))?;
        let index = |key: &String| key.rsplit('/').next()?.strip_suffix(".json")?.parse::<u64>().ok();
        Ok(keys.iter().filter_map(index).max().map_or(0, |i| i + 1))
    }

    /// `chunk`'s files as a local directory, checked against its manifest,
    /// or `None` after setting it aside if a file is missing or not its size.
    ///
    /// # Errors
    /// [`StoreError`] if a download fails for another reason, or the marker
    /// cannot be written.
    pub fn usable_chunk_dir(&self, chunk: &Chunk) -> Result<Option<PathBuf>, StoreError> {
        let checked = self.chunk_dir(chunk).and_then(|dir| {
            for file in &chunk.files {
                let path = dir.join(&file.name);
                let bytes = std::fs::metadata(&path).map(|m| m.len());
                if bytes.as_ref().ok() != Some(&file.bytes) {
                    let found = bytes.map_or("missing".to_string(), |b| format!("{b} bytes"));
                    return Err(StoreError::Corrupt {
                        key: format!("{}{}", chunk.data_prefix(), file.name),
                        message: format!("{found}, the manifest says {} bytes", file.bytes),
                    });
                }
            }
            Ok(dir)
        });
        match checked {
            Ok(dir) => Ok(Some(dir)),
            Err(error @ StoreError::Corrupt { .. }) => {
                self.set_aside_chunk(&chunk.manifest_key(), &error.to_string())?;
                Ok(None)
            }
            Err(error) => Err(error),
        }
    }

    /// The committed chunks of `worker`, by index.
    ///
    /// # Errors
    /// As [`Store::chunks`].
    pub fn worker_chunks(&self, worker: &str) -> Result<Vec<Chunk>, StoreError> {
        check_name("worker id", worker)?;
        let mut chunks = self.chunks_under(&format!("chunks/{worker}/"))?;
        chunks.sort_by_key(|c| c.index);
        Ok(chunks)
    }

    fn chunks_under(&self, prefix: &str) -> Result<Vec<Chunk>, StoreError> {
        let keys = self.objects.list(prefix)?;
        let mut chunks = Vec::new();
        for key in keys.iter().filter(|k| k.ends_with(".json")) {
            let known = self.known.lock().expect("not poisoned").get(key).cloned();
            let chunk = match known {
                Some(chunk) => chunk,
                None => {
                    let chunk = match self.json::<Chunk>(key) {
                        Ok(Some(chunk)) => chunk,
                        Ok(None) => continue,
                        Err(error @ StoreError::BadJson { .. }) => {
                            self.set_aside_chunk(key, &error.to_string())?;
                            continue;
                        }
                        Err(error) => return Err(error),
                    };
                    self.known.lock().expect("not poisoned").insert(key.clone(), chunk.clone());
                    chunk
                }
            };
            chunks.push(chunk);
        }
        chunks.sort_by(|a, b| (a.committed_ms, &a.worker, a.index).cmp(&(b.committed_ms, &b.worker, b.index)));
        Ok(chunks)
    }

    /// A local directory holding `chunk`'s files (games.csv, games.jsonl,
    /// samples.bin, selfplay.toml).
    ///
    /// # Errors
    /// [`StoreError`] if a file is missing or a download fails.
    pub fn chunk_dir(&self, chunk: &Chunk) -> Result<PathBuf, StoreError> {
        let target =
            self.cache.join("chunks").join(&chunk.worker).join(format!("{:06}-{}", chunk.index, chunk.attempt));
        self.local_copy(&chunk.data_prefix(), &chunk.files, &target)
    }

    /// Commits the files of the local directory `dir` as chunk `index` of
    /// `worker`: its files first, then its manifest, put only if that chunk
    /// has none. Returns `None` (and removes the files this attempt
    /// uploaded) when another attempt committed the chunk first.
    ///
    /// # Errors
    /// [`StoreError`] if a file cannot be read or written.
    pub fn commit_chunk(
        &self,
        worker: &str,
        index: u64,
        model: &str,
        counts: (u64, u64),
        dir: &Path,
    ) -> Result<Option<Chunk>, StoreError> {
        check_name("worker id", worker)?;
        let mut chunk = Chunk {
            worker: worker.into(),
            index,
            attempt: unique_suffix(),
            model: model.into(),
            games: counts.0,
            samples: counts.1,
            committed_ms: 0,
            files: Vec::new(),
        };
        let prefix = chunk.data_prefix();
        for (name, path) in dir_files(dir)? {
            let bytes = std::fs::read(&path).map_err(StoreError::io(&path))?;
            chunk.files.push(FileEntry { name: name.clone(), bytes: bytes.len() as u64 });
            self.objects.put(&format!("{prefix}{name}"), bytes)?;
        }
        chunk.committed_ms = now_ms();
        let key = chunk.manifest_key();
        if self.objects.put_new(&key, serde_json::to_vec_pretty(&chunk).expect("serializes"))? {
            return Ok(Some(chunk));
        }
        for file in &chunk.files {
            self.objects.delete(&format!("{prefix}{}", file.name))?;
        }
        Ok(None)
    }

    /// Writes a run file (`run/<name>`: the trainer's Elo table, state and
    /// timings), replacing what was there.
    ///
    /// # Errors
    /// [`StoreError`] if the write fails.
    pub fn put_file(&self, name: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        self.objects.put(&format!("run/{name}"), bytes)
    }

    /// A run file, if there is one.
    ///
    /// # Errors
    /// [`StoreError`] if the read fails.
    pub fn get_file(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.objects.get(&format!("run/{name}"))
    }

    /// Sets the self-play settings (TOML) workers use when given none.
    ///
    /// # Errors
    /// [`StoreError`] if the write fails.
    pub fn set_selfplay(&self, toml: &str) -> Result<(), StoreError> {
        self.objects.put(SELFPLAY_FILE, toml.as_bytes().to_vec())
    }

    /// The workers' self-play settings (TOML), if the store has them.
    ///
    /// # Errors
    /// [`StoreError`] if the read fails or the file is not text.
    pub fn selfplay(&self) -> Result<Option<String>, StoreError> {
        self.objects
            .get(SELFPLAY_FILE)?
            .map(String::from_utf8)
            .transpose()
            .map_err(|source| StoreError::NotText { key: SELFPLAY_FILE.into(), source })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// A directory whose writer dies after `writes` writes: every later
    /// write fails, as if the process had been killed there.
    struct Dying {
        inner: DirObjects,
        writes: AtomicUsize,
    }

    impl Dying {
        fn died(&self, key: &str) -> Result<(), StoreError> {
            match self.writes.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)) {
                Ok(_) => Ok(()),
                Err(_) => Err(StoreError::Corrupt { key: key.into(), message: "killed".into() }),
            }
        }
    }

    impl Objects for Dying {
        fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
            self.inner.get(key)
        }
        fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
            self.died(key)?;
            self.inner.put(key, bytes)
        }
        fn put_new(&self, key: &str, bytes: Vec<u8>) -> Result<bool, StoreError> {
            self.died(key)?;
            self.inner.put_new(key, bytes)
        }
        fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
            self.inner.list(prefix)
        }
        fn delete(&self, key: &str) -> Result<(), StoreError> {
            self.died(key)?;
            self.inner.delete(key)
        }
        fn local_path(&self, key: &str) -> Option<PathBuf> {
            self.inner.local_path(key)
        }
    }

    fn write_model(dir: &Path, weights: &str) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("model.json"), "{}").unwrap();
        std::fs::write(dir.join("model.onnx"), weights).unwrap();
    }

    /// The trainer killed after each write of a publication (the files, the
    /// manifest, the pointer): the store still points at a whole model, the
    /// new one is either whole or not there, and publishing again completes it.
    #[test]
    fn a_trainer_killed_at_any_step_of_publishing_leaves_a_whole_current_model() {
        let names = ["model.json", "model.onnx"];
        for writes in 0..4 {
            let scratch = tempfile::tempdir().unwrap();
            let (root, model) = (scratch.path().join("store"), scratch.path().join("model"));
            write_model(&model, "old");
            let spec = root.to_str().unwrap();
            Store::create(spec, &model, "m0", &names).unwrap();
            write_model(&model, "new");
            let dying = Dying { inner: DirObjects::new(root.clone()), writes: AtomicUsize::new(writes) };
            let store = Store {
                objects: Box::new(dying),
                spec: spec.into(),
                cache: default_cache(spec),
                known: Mutex::default(),
            };
            assert!(store.publish_model("m1", &model, &names).is_err(), "killed after {writes} writes");

            // The restarted trainer, and any worker, on the same store.
            let store = Store::open(spec).unwrap();
            let current = store.current_model().unwrap();
            assert_eq!(current, "m0", "the pointer moves last");
            assert_eq!(
                std::fs::read_to_string(store.fetch_model(&current).unwrap().join("model.onnx")).unwrap(),
                "old"
            );
            match store.fetch_model("m1") {
                // Its files without a manifest: not a model anyone sees.
                Err(StoreError::Corrupt { message, .. }) => assert!(writes < 3 && message.contains("no such model")),
                Ok(dir) => {
                    assert_eq!(writes, 3, "a manifest is written only after every file");
                    assert_eq!(std::fs::read_to_string(dir.join("model.onnx")).unwrap(), "new");
                }
                Err(error) => panic!("{error}"),
            }
            store.publish_model("m1", &model, &names).unwrap();
            assert_eq!(store.current_model().unwrap(), "m1");
            assert_eq!(std::fs::read_to_string(store.fetch_model("m1").unwrap().join("model.onnx")).unwrap(), "new");
        }
    }
}
