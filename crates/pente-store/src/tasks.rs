//! Projects of shared tasks: work that one coordinator splits into tasks
//! and any number of workers do, such as the games of an opening book.
//!
//! A coordinator posts each task (`tasks/<project>/todo/<task>.json`) and
//! then opens the project (`projects/<project>.json`, its description);
//! workers list open projects, take the tasks without a result in an order
//! of their own, and commit each result under `done/`, written only if none
//! is there, so a task done by two workers at once counts once. Nobody
//! claims a task: a worker that dies leaves its tasks to the others, and
//! the last tasks may be played twice, which costs time and nothing else.
//! The coordinator reads each result, sets aside one it refuses (under
//! `rejected/`, with the reason, so that the task is done again), and
//! closes the project when every task has a result it kept.

use serde::{Deserialize, Serialize};

use crate::error::StoreError;
use crate::objects::unique_suffix;
use crate::store::{Store, check_name};

/// A result the coordinator refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejected {
    /// Why.
    pub reason: String,
    /// The result as the worker committed it.
    pub result: String,
}

/// The names of the `.json` objects directly under `prefix`.
fn names(store: &Store, prefix: &str) -> Result<Vec<String>, StoreError> {
    let keys = store.objects.list(prefix)?;
    Ok(keys
        .iter()
        .filter_map(|key| key.strip_prefix(prefix)?.strip_suffix(".json"))
        .filter(|name| !name.contains('/'))
        .map(str::to_string)
        .collect())
}

impl Store {
    /// Opens (or reopens) `project` with `description`, which workers read
    /// to know how to do its tasks. Post its tasks first.
    ///
    /// # Errors
    /// [`StoreError`] if the name cannot be a key or the write fails.
    pub fn open_project(&self, project: &str, description: &[u8]) -> Result<(), StoreError> {
        check_name("project", project)?;
        self.objects.put(&format!("projects/{project}.json"), description.to_vec())
    }

    /// The open projects, by name.
    ///
    /// # Errors
    /// [`StoreError`] if the listing fails.
    pub fn projects(&self) -> Result<Vec<String>, StoreError> {
        names(self, "projects/")
    }

    /// An open project's description; `None` once it is closed.
    ///
    /// # Errors
    /// [`StoreError`] if the read fails.
    pub fn project(&self, project: &str) -> Result<Option<Vec<u8>>, StoreError> {
        check_name("project", project)?;
        self.objects.get(&format!("projects/{project}.json"))
    }

    /// Closes `project`: workers stop taking its tasks. Its tasks and
    /// results stay, as its record.
    ///
    /// # Errors
    /// [`StoreError`] if the delete fails.
    pub fn close_project(&self, project: &str) -> Result<(), StoreError> {
        check_name("project", project)?;
        self.objects.delete(&format!("projects/{project}.json"))
    }

    /// Posts task `task` of `project` (replacing a task of that name).
    ///
    /// # Errors
    /// [`StoreError`] if a name cannot be a key or the write fails.
    pub fn post_task(&self, project: &str, task: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        check_name("project", project)?;
        check_name("task", task)?;
        self.objects.put(&format!("tasks/{project}/todo/{task}.json"), bytes)
    }

    /// The names of the tasks posted to `project`.
    ///
    /// # Errors
    /// [`StoreError`] if the listing fails.
    pub fn task_names(&self, project: &str) -> Result<Vec<String>, StoreError> {
        check_name("project", project)?;
        names(self, &format!("tasks/{project}/todo/"))
    }

    /// The names of the tasks of `project` that have a result.
    ///
    /// # Errors
    /// [`StoreError`] if the listing fails.
    pub fn done_names(&self, project: &str) -> Result<Vec<String>, StoreError> {
        check_name("project", project)?;
        names(self, &format!("tasks/{project}/done/"))
    }

    /// A task as posted; `None` if there is none of that name.
    ///
    /// # Errors
    /// [`StoreError`] if the read fails.
    pub fn task(&self, project: &str, task: &str) -> Result<Option<Vec<u8>>, StoreError> {
        check_name("task", task)?;
        self.objects.get(&format!("tasks/{project}/todo/{task}.json"))
    }

    /// Commits the result of a task, only if it has none: `false` if
    /// another worker's came first (this one is then dropped).
    ///
    /// # Errors
    /// [`StoreError`] if a name cannot be a key or the write fails.
    pub fn finish_task(&self, project: &str, task: &str, result: Vec<u8>) -> Result<bool, StoreError> {
        check_name("project", project)?;
        check_name("task", task)?;
        self.objects.put_new(&format!("tasks/{project}/done/{task}.json"), result)
    }

    /// A task's result, if it has one.
    ///
    /// # Errors
    /// [`StoreError`] if the read fails.
    pub fn task_result(&self, project: &str, task: &str) -> Result<Option<Vec<u8>>, StoreError> {
        check_name("task", task)?;
        self.objects.get(&format!("tasks/{project}/done/{task}.json"))
    }

    /// Refuses a task's result for `reason`: it is kept under `rejected/`
    /// with the reason, and removed from `done/`, so that the task is done
    /// again.
    ///
    /// # Errors
    /// [`StoreError`] if a write or the delete fails.
    pub fn reject_result(&self, project: &str, task: &str, reason: &str) -> Result<(), StoreError> {
        let result = self.task_result(project, task)?.unwrap_or_default();
        let rejected = Rejected { reason: reason.into(), result: String::from_utf8_lossy(&result).into_owned() };
        self.objects.put(
            &format!("tasks/{project}/rejected/{task}-{}.json", unique_suffix()),
            serde_json::to_vec_pretty(&rejected).expect("serializes"),
        )?;
        self.objects.delete(&format!("tasks/{project}/done/{task}.json"))
    }

    /// The results of `project` refused so far.
    ///
    /// # Errors
    /// [`StoreError`] if the listing or a read fails.
    pub fn rejected(&self, project: &str) -> Result<Vec<Rejected>, StoreError> {
        check_name("project", project)?;
        let prefix = format!("tasks/{project}/rejected/");
        let mut all = Vec::new();
        for name in names(self, &prefix)? {
            let key = format!("{prefix}{name}.json");
            if let Some(bytes) = self.objects.get(&key)? {
                all.push(serde_json::from_slice(&bytes).map_err(|source| StoreError::BadJson { key, source })?);
            }
        }
        Ok(all)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(scratch: &tempfile::TempDir) -> Store {
        let model = scratch.path().join("model");
        std::fs::create_dir_all(&model).unwrap();
        std::fs::write(model.join("model.json"), "{}").unwrap();
        Store::create(scratch.path().join("store").to_str().unwrap(), &model, "m0", &["model.json"]).unwrap()
    }

    /// Two workers finishing one task: the first result stands, the
    /// second is dropped; a rejected result frees the task again.
    #[test]
    fn a_task_keeps_one_result_until_it_is_rejected() {
        let scratch = tempfile::tempdir().unwrap();
        let store = store(&scratch);
        store.post_task("p", "t1", b"one".to_vec()).unwrap();
        store.post_task("p", "t2", b"two".to_vec()).unwrap();
        store.open_project("p", b"{}").unwrap();
        assert_eq!(store.projects().unwrap(), ["p"]);
        assert_eq!(store.task_names("p").unwrap(), ["t1", "t2"]);
        assert_eq!(store.task("p", "t2").unwrap().as_deref(), Some(&b"two"[..]));

        assert!(store.finish_task("p", "t1", b"first".to_vec()).unwrap());
        assert!(!store.finish_task("p", "t1", b"second".to_vec()).unwrap());
        assert_eq!(store.task_result("p", "t1").unwrap().as_deref(), Some(&b"first"[..]));
        assert_eq!(store.done_names("p").unwrap(), ["t1"]);

        store.reject_result("p", "t1", "game 3 is illegal").unwrap();
        assert!(store.done_names("p").unwrap().is_empty());
        let rejected = store.rejected("p").unwrap();
        assert_eq!(rejected.len(), 1);
        assert_eq!((rejected[0].reason.as_str(), rejected[0].result.as_str()), ("game 3 is illegal", "first"));
        assert!(store.finish_task("p", "t1", b"again".to_vec()).unwrap());

        store.close_project("p").unwrap();
        assert!(store.projects().unwrap().is_empty());
        assert!(store.project("p").unwrap().is_none());
        assert_eq!(store.task_names("p").unwrap().len(), 2, "a closed project's record stays");
    }

    #[test]
    fn a_model_added_by_id_leaves_the_current_model_alone() {
        let scratch = tempfile::tempdir().unwrap();
        let store = store(&scratch);
        let other = scratch.path().join("other");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join("model.json"), "{\"id\":1}").unwrap();
        assert!(!store.has_model("m1").unwrap());
        store.add_model("m1", &other, &["model.json"]).unwrap();
        assert!(store.has_model("m1").unwrap());
        assert_eq!(store.current_model().unwrap(), "m0");
        assert_eq!(std::fs::read_to_string(store.fetch_model("m1").unwrap().join("model.json")).unwrap(), "{\"id\":1}");
        assert!(store.has_model("../x").is_err());
    }
}
