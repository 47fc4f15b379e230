//! The two kinds of storage under a store, as one flat namespace of keys
//! (`/`-separated, relative to the store's root): a directory, or an object
//! store reached through `object_store`.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload};
use tokio_stream::StreamExt;

use crate::error::StoreError;

/// What a store needs from its storage: whole-object reads and atomic writes.
pub(crate) trait Objects: Send + Sync {
    /// The object at `key`, or `None` if there is none.
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError>;
    /// Writes `key` atomically (a reader sees the old object or the new one).
    fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), StoreError>;
    /// Writes `key` only if there is no object there: `false` if there was one.
    fn put_new(&self, key: &str, bytes: Vec<u8>) -> Result<bool, StoreError>;
    /// Every key under `prefix` (which ends with `/`), at any depth.
    fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError>;
    /// Removes `key`; no error if it is not there.
    fn delete(&self, key: &str) -> Result<(), StoreError>;
    /// Where `key` can be read as a local file, if the storage is local.
    fn local_path(&self, key: &str) -> Option<PathBuf>;
}

/// A name for a temporary file that no other writer picks.
pub(crate) fn unique_suffix() -> String {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{nanos:x}-{:x}", std::process::id())
}

/// A directory: local disk or a shared file system. Writes go to a
/// temporary file that is then renamed (or hard-linked, which fails when
/// the target exists, for [`Objects::put_new`]), so readers never see half
/// an object.
pub(crate) struct DirObjects {
    root: PathBuf,
}

/// Temporary files carry this in their names; listings skip them.
const TMP_MARK: &str = ".tmp-";

impl DirObjects {
    pub(crate) fn new(root: PathBuf) -> DirObjects {
        DirObjects { root }
    }

    fn path(&self, key: &str) -> PathBuf {
        self.root.join(key)
    }

    /// Writes `bytes` next to `path` under a temporary name.
    fn write_tmp(&self, path: &Path, bytes: &[u8]) -> Result<PathBuf, StoreError> {
        let parent = path.parent().unwrap_or(&self.root);
        std::fs::create_dir_all(parent).map_err(StoreError::io(parent))?;
        let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        let tmp = parent.join(format!("{name}{TMP_MARK}{}", unique_suffix()));
        std::fs::write(&tmp, bytes).map_err(StoreError::io(&tmp))?;
        Ok(tmp)
    }

    fn walk(&self, dir: &Path, keys: &mut Vec<String>) -> Result<(), StoreError> {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(StoreError::io(dir)(e)),
        };
        for entry in entries {
            let entry = entry.map_err(StoreError::io(dir))?;
            let path = entry.path();
            if entry.file_type().map_err(StoreError::io(&path))?.is_dir() {
                self.walk(&path, keys)?;
            } else if !entry.file_name().to_string_lossy().contains(TMP_MARK)
                && let Ok(relative) = path.strip_prefix(&self.root)
            {
                let parts: Vec<_> = relative.components().map(|c| c.as_os_str().to_string_lossy()).collect();
                keys.push(parts.join("/"));
            }
        }
        Ok(())
    }
}

impl Objects for DirObjects {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let path = self.path(key);
        match std::fs::read(&path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StoreError::io(&path)(e)),
        }
    }

    fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        let path = self.path(key);
        let tmp = self.write_tmp(&path, &bytes)?;
        std::fs::rename(&tmp, &path).map_err(StoreError::io(&path))
    }

    fn put_new(&self, key: &str, bytes: Vec<u8>) -> Result<bool, StoreError> {
        let path = self.path(key);
        let tmp = self.write_tmp(&path, &bytes)?;
        let linked = std::fs::hard_link(&tmp, &path);
        let _ = std::fs::remove_file(&tmp);
        match linked {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(StoreError::io(&path)(e)),
        }
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let mut keys = Vec::new();
        self.walk(&self.path(prefix), &mut keys)?;
        keys.sort();
        Ok(keys)
    }

    fn delete(&self, key: &str) -> Result<(), StoreError> {
        let path = self.path(key);
        match std::fs::remove_file(&path) {
            Ok(()) => {
                // Folders are implied by keys: an emptied one goes too.
                if let Some(parent) = path.parent() {
                    let _ = std::fs::remove_dir(parent);
                }
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(StoreError::io(&path)(e)),
        }
    }

    fn local_path(&self, key: &str) -> Option<PathBuf> {
        Some(self.path(key))
    }
}

/// Object storage: S3 and S3-compatible servers, GCS, Azure. Each call
/// runs to completion on the store's own single-threaded runtime, so the
/// rest of the toolkit stays synchronous.
pub(crate) struct CloudObjects {
    store: Box<dyn ObjectStore>,
    prefix: ObjectPath,
    runtime: tokio::runtime::Runtime,
    url: String,
}

impl CloudObjects {
    /// The object store at `url` (`s3://bucket/prefix`, `gs://...`,
    /// `az://...`), configured from the environment (`AWS_*`, `GOOGLE_*`,
    /// `AZURE_*`, as `object_store` names them).
    pub(crate) fn new(url: &str) -> Result<CloudObjects, StoreError> {
        let spec = || url.to_string();
        let parsed = url::Url::parse(url).map_err(|source| StoreError::Address { spec: spec(), source })?;
        let options =
            std::env::vars().filter(|(key, _)| ["AWS_", "GOOGLE_", "AZURE_"].iter().any(|p| key.starts_with(p)));
        let (store, prefix) = object_store::parse_url_opts(&parsed, options)
            .map_err(|source| StoreError::Connect { spec: spec(), source })?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|source| StoreError::Runtime { spec: spec(), source })?;
        Ok(CloudObjects { store, prefix, runtime, url: url.trim_end_matches('/').to_string() })
    }

    fn path(&self, key: &str) -> ObjectPath {
        key.split('/').filter(|p| !p.is_empty()).fold(self.prefix.clone(), |path, part| path.clone().join(part))
    }

    fn error(&self, key: &str, source: object_store::Error) -> StoreError {
        StoreError::Object { url: format!("{}/{key}", self.url), source }
    }

    fn put_with(&self, key: &str, bytes: Vec<u8>, mode: PutMode) -> Result<bool, StoreError> {
        let options = PutOptions { mode, ..PutOptions::default() };
        match self.runtime.block_on(self.store.put_opts(&self.path(key), PutPayload::from(bytes), options)) {
            Ok(_) => Ok(true),
            Err(object_store::Error::AlreadyExists { .. } | object_store::Error::Precondition { .. }) => Ok(false),
            Err(e) => Err(self.error(key, e)),
        }
    }
}

impl Objects for CloudObjects {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let path = self.path(key);
        self.runtime.block_on(async {
            match self.store.get(&path).await {
                Ok(result) => result.bytes().await.map(|b| Some(b.to_vec())).map_err(|e| self.error(key, e)),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(self.error(key, e)),
            }
        })
    }

    fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        self.put_with(key, bytes, PutMode::Overwrite).map(|_| ())
    }

    fn put_new(&self, key: &str, bytes: Vec<u8>) -> Result<bool, StoreError> {
        self.put_with(key, bytes, PutMode::Create)
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let base = self.path(prefix);
        self.runtime.block_on(async {
            let mut stream = self.store.list(Some(&base));
            let mut keys = Vec::new();
            while let Some(meta) = stream.next().await {
                let meta = meta.map_err(|e| self.error(prefix, e))?;
                if let Some(parts) = meta.location.prefix_match(&self.prefix) {
                    keys.push(parts.map(|p| p.as_ref().to_string()).collect::<Vec<_>>().join("/"));
                }
            }
            keys.sort();
            Ok(keys)
        })
    }

    fn delete(&self, key: &str) -> Result<(), StoreError> {
        match self.runtime.block_on(self.store.delete(&self.path(key))) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.error(key, e)),
        }
    }

    fn local_path(&self, _key: &str) -> Option<PathBuf> {
        None
    }
}
