//! A run's shared storage for distributed self-play: promoted models with a
//! pointer to the current one, and self-play chunks from many workers, in a
//! directory (local disk, or a shared file system such as NFS) or in object
//! storage (S3 and S3-compatible servers, GCS, Azure) through `object_store`.
//! A reader never sees a partial model or chunk, and a chunk is committed
//! at most once however many attempts at it run. Operations that fail for
//! a reason that may pass (a 5xx, a time-out, a throttled bucket) are tried
//! again with backoff. Projects of shared tasks (an opening book's games)
//! go through the same store ([`Store::open_project`]).

mod error;
mod objects;
mod retry;
mod store;
mod tasks;

pub use error::StoreError;
pub use store::{Chunk, FileEntry, SELFPLAY_FILE, SetAside, Store, check_name};
pub use tasks::Rejected;
