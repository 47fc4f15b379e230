//! Retries with backoff over a store's storage, for what real storage does
//! now and then: a request that fails with a 5xx, times out or is
//! throttled, or a disk that answers `EINTR`. `object_store` already retries
//! each HTTP request ([`object_store::RetryConfig`]'s defaults); this layer
//! retries whole operations, for directories too, and settles the one case
//! a blind retry gets wrong: a create-if-absent whose first attempt landed
//! but whose answer was lost.

use std::path::PathBuf;
use std::time::Duration;

use crate::error::StoreError;
use crate::objects::Objects;

/// How often and how patiently an operation is tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RetryPolicy {
    /// Tries in all, the first included.
    pub attempts: u32,
    /// The wait after the first failure; each later one doubles it.
    pub first_delay: Duration,
    /// The longest wait.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    /// Six tries over about six seconds.
    fn default() -> RetryPolicy {
        RetryPolicy { attempts: 6, first_delay: Duration::from_millis(200), max_delay: Duration::from_secs(2) }
    }
}

/// Whether `error` may go away if the operation is tried again.
pub(crate) fn is_transient(error: &StoreError) -> bool {
    use std::io::ErrorKind;
    match error {
        StoreError::Io { source, .. } => matches!(
            source.kind(),
            ErrorKind::Interrupted
                | ErrorKind::TimedOut
                | ErrorKind::WouldBlock
                | ErrorKind::ConnectionReset
                | ErrorKind::ConnectionAborted
                | ErrorKind::BrokenPipe
                | ErrorKind::ResourceBusy
        ),
        // What `object_store` reports once its own retries are spent: a
        // server error, a time-out, a throttled bucket. The answers that
        // are final are the ones below.
        StoreError::Object { source, .. } => !matches!(
            source,
            object_store::Error::NotFound { .. }
                | object_store::Error::AlreadyExists { .. }
                | object_store::Error::Precondition { .. }
                | object_store::Error::NotModified { .. }
                | object_store::Error::NotSupported { .. }
                | object_store::Error::NotImplemented { .. }
                | object_store::Error::PermissionDenied { .. }
                | object_store::Error::Unauthenticated { .. }
                | object_store::Error::InvalidPath { .. }
                | object_store::Error::UnknownConfigurationKey { .. }
        ),
        _ => false,
    }
}

/// `inner`, each operation tried again after a transient error.
pub(crate) struct Retrying {
    inner: Box<dyn Objects>,
    policy: RetryPolicy,
}

impl Retrying {
    pub(crate) fn new(inner: Box<dyn Objects>, policy: RetryPolicy) -> Retrying {
        Retrying { inner, policy }
    }

    /// Runs `operation` until it succeeds, fails for good, or the tries are spent.
    fn run<T>(&self, mut operation: impl FnMut(u32) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let mut delay = self.policy.first_delay;
        for attempt in 1.. {
            match operation(attempt) {
                Err(error) if attempt < self.policy.attempts && is_transient(&error) => {
                    std::thread::sleep(delay);
                    delay = (delay * 2).min(self.policy.max_delay);
                }
                result => return result,
            }
        }
        unreachable!("the loop returns")
    }
}

impl Objects for Retrying {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.run(|_| self.inner.get(key))
    }

    fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        self.run(|_| self.inner.put(key, bytes.clone()))
    }

    /// A retry that finds the object there compares it with `bytes`: the
    /// same bytes are this writer's own first attempt, which landed (so the
    /// chunk it commits is neither lost nor counted twice); other bytes are
    /// another writer's.
    fn put_new(&self, key: &str, bytes: Vec<u8>) -> Result<bool, StoreError> {
        self.run(|attempt| match self.inner.put_new(key, bytes.clone())? {
            false if attempt > 1 => Ok(self.inner.get(key)?.is_some_and(|there| there == bytes)),
            created => Ok(created),
        })
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        self.run(|_| self.inner.list(prefix))
    }

    fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.run(|_| self.inner.delete(key))
    }

    fn local_path(&self, key: &str) -> Option<PathBuf> {
        self.inner.local_path(key)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::sync::Mutex;

    use super::*;
    use crate::objects::DirObjects;

    /// What the storage does to one operation.
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Fault {
        /// A server error, after `object_store`'s own retries.
        ServerError,
        /// The request timed out.
        TimedOut,
        /// The write landed, but its answer was lost.
        LandedThenLost,
        /// Access refused: final.
        Denied,
    }

    /// A directory whose next operations fail as scheduled: a
    /// fault-injecting wrapper, between the store and its storage.
    struct Faulty {
        inner: DirObjects,
        faults: Mutex<VecDeque<Option<Fault>>>,
        calls: Mutex<u32>,
    }

    impl Faulty {
        fn new(dir: &std::path::Path, faults: &[Option<Fault>]) -> Faulty {
            Faulty {
                inner: DirObjects::new(dir.to_path_buf()),
                faults: Mutex::new(faults.iter().copied().collect()),
                calls: Mutex::new(0),
            }
        }

        /// The next fault (none once the schedule is spent), counting the call.
        fn next(&self) -> Option<Fault> {
            *self.calls.lock().unwrap() += 1;
            self.faults.lock().unwrap().pop_front().flatten()
        }

        fn error(fault: Fault, key: &str) -> StoreError {
            let source = match fault {
                Fault::ServerError | Fault::LandedThenLost => object_store::Error::Generic {
                    store: "S3",
                    source: "Server returned non-2xx status code: 503 Service Unavailable: SlowDown".into(),
                },
                Fault::TimedOut => {
                    return StoreError::Io { path: key.into(), source: std::io::ErrorKind::TimedOut.into() };
                }
                Fault::Denied => object_store::Error::PermissionDenied { path: key.into(), source: "403".into() },
            };
            StoreError::Object { url: format!("s3://bucket/{key}"), source }
        }

        fn write<T>(&self, key: &str, write: impl FnOnce() -> Result<T, StoreError>) -> Result<T, StoreError> {
            match self.next() {
                Some(Fault::LandedThenLost) => write().and(Err(Faulty::error(Fault::LandedThenLost, key))),
                Some(fault) => Err(Faulty::error(fault, key)),
                None => write(),
            }
        }
    }

    impl Objects for Faulty {
        fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
            self.next().map_or_else(|| self.inner.get(key), |fault| Err(Faulty::error(fault, key)))
        }
        fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
            self.write(key, || self.inner.put(key, bytes))
        }
        fn put_new(&self, key: &str, bytes: Vec<u8>) -> Result<bool, StoreError> {
            self.write(key, || self.inner.put_new(key, bytes))
        }
        fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
            self.next().map_or_else(|| self.inner.list(prefix), |fault| Err(Faulty::error(fault, prefix)))
        }
        fn delete(&self, key: &str) -> Result<(), StoreError> {
            self.write(key, || self.inner.delete(key))
        }
        fn local_path(&self, key: &str) -> Option<PathBuf> {
            self.inner.local_path(key)
        }
    }

    const QUICK: RetryPolicy =
        RetryPolicy { attempts: 4, first_delay: Duration::from_millis(1), max_delay: Duration::from_millis(4) };

    fn retrying(dir: &tempfile::TempDir, faults: &[Option<Fault>]) -> Retrying {
        Retrying::new(Box::new(Faulty::new(dir.path(), faults)), QUICK)
    }

    #[test]
    fn transient_failures_are_retried_until_the_operation_goes_through() {
        let dir = tempfile::tempdir().unwrap();
        let store = retrying(&dir, &[Some(Fault::ServerError), Some(Fault::TimedOut), None]);
        store.put("a/b", b"one".to_vec()).unwrap();
        let store = retrying(&dir, &[Some(Fault::TimedOut), Some(Fault::ServerError)]);
        assert_eq!(store.get("a/b").unwrap().as_deref(), Some(&b"one"[..]));
        let store = retrying(&dir, &[Some(Fault::ServerError)]);
        assert_eq!(store.list("a/").unwrap(), ["a/b"]);
    }

    #[test]
    fn a_final_error_or_spent_tries_stop_with_the_error() {
        let dir = tempfile::tempdir().unwrap();
        let denied = retrying(&dir, &[Some(Fault::Denied), None]);
        let error = denied.put("k", b"x".to_vec()).unwrap_err();
        assert!(matches!(error, StoreError::Object { source: object_store::Error::PermissionDenied { .. }, .. }));
        assert_eq!(denied.inner.get("k").unwrap(), None, "the first call failed, and nothing retried it");
        let down = retrying(&dir, &[Some(Fault::ServerError); 4]);
        let error = down.get("k").unwrap_err();
        assert!(error.to_string().contains("503"), "{error}");
        assert!(is_transient(&error));
    }

    #[test]
    fn a_commit_that_landed_but_lost_its_answer_counts_once() {
        let dir = tempfile::tempdir().unwrap();
        // The manifest lands, the answer is lost, the retry finds it there:
        // it is this writer's own, so the commit stands.
        let store = retrying(&dir, &[Some(Fault::LandedThenLost)]);
        assert!(store.put_new("chunks/w/000001.json", b"mine".to_vec()).unwrap());
        // Another attempt at the same chunk, with other bytes: not committed twice.
        let other = retrying(&dir, &[Some(Fault::ServerError)]);
        assert!(!other.put_new("chunks/w/000001.json", b"theirs".to_vec()).unwrap());
        let plain = retrying(&dir, &[]);
        assert!(
            !plain.put_new("chunks/w/000001.json", b"mine".to_vec()).unwrap(),
            "a first try that finds it is not ours"
        );
        assert_eq!(plain.get("chunks/w/000001.json").unwrap().as_deref(), Some(&b"mine"[..]));
    }

    #[test]
    fn io_errors_of_the_disk_itself_are_final() {
        let error = StoreError::Io { path: "x".into(), source: std::io::ErrorKind::PermissionDenied.into() };
        assert!(!is_transient(&error));
        let error = StoreError::Io { path: "x".into(), source: std::io::ErrorKind::Interrupted.into() };
        assert!(is_transient(&error));
    }
}
