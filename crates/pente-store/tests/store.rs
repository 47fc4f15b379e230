//! The store's guarantees, on a directory and on an in-memory object store
//! (the same code path as S3, GCS and Azure; the S3 server test is in
//! pente-cli's tests).

use std::path::Path;

use pente_store::{Store, StoreError};

/// The model files the tests publish (`model.bpk` is not there: skipped).
const FILES: &[&str] = &["model.json", "model.onnx", "model.bpk"];

fn write_dir(dir: &Path, files: &[(&str, &str)]) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

/// Everything a store promises, on the store at `spec`.
fn check_store(spec: &str, scratch: &Path) {
    let model = scratch.join("model");
    write_dir(&model, &[("model.json", "{\"id\": \"m0\"}"), ("model.onnx", "weights")]);
    let store = Store::create(spec, &model, "m0", FILES).unwrap().with_cache(scratch.join("cache"));
    assert_eq!(store.current_model().unwrap(), "m0");
    let fetched = store.fetch_model("m0").unwrap();
    assert_eq!(std::fs::read_to_string(fetched.join("model.onnx")).unwrap(), "weights");
    assert!(store.fetch_model("m9").is_err());

    write_dir(&model, &[("model.json", "{\"id\": \"m1\"}"), ("model.onnx", "better weights")]);
    store.publish_model("m1", &model, FILES).unwrap();
    assert_eq!(store.current_model().unwrap(), "m1");
    assert_eq!(std::fs::read_to_string(store.fetch_model("m1").unwrap().join("model.onnx")).unwrap(), "better weights");
    assert_eq!(std::fs::read_to_string(store.fetch_model("m0").unwrap().join("model.onnx")).unwrap(), "weights");

    let chunk = scratch.join("chunk");
    write_dir(&chunk, &[("games.csv", "header\nrow\n"), ("samples.bin", "samples")]);
    let first = store.commit_chunk("w1", 0, "m1", (1, 5), &chunk).unwrap().expect("the first commit wins");
    // A second attempt at the same chunk (a restarted worker) does not commit.
    write_dir(&chunk, &[("games.csv", "header\nother row\n")]);
    assert!(store.commit_chunk("w1", 0, "m1", (1, 5), &chunk).unwrap().is_none());
    store.commit_chunk("w2", 0, "m1", (1, 5), &chunk).unwrap().unwrap();
    store.commit_chunk("w1", 1, "m1", (1, 5), &chunk).unwrap().unwrap();
    let chunks = store.chunks().unwrap();
    assert_eq!(chunks.len(), 3);
    assert!(chunks.windows(2).all(|w| w[0].committed_ms <= w[1].committed_ms), "oldest first");
    assert_eq!(store.worker_chunks("w1").unwrap().iter().map(|c| c.index).collect::<Vec<_>>(), [0, 1]);
    let dir = store.chunk_dir(&first).unwrap();
    assert_eq!(std::fs::read_to_string(dir.join("games.csv")).unwrap(), "header\nrow\n", "the first attempt's files");
    assert_eq!(std::fs::read_to_string(dir.join("samples.bin")).unwrap(), "samples");

    assert!(store.commit_chunk("../w", 0, "m1", (1, 5), &chunk).is_err(), "a worker id that leaves the store");
    store.put_file("elo.csv", b"a,b\n".to_vec()).unwrap();
    assert_eq!(store.get_file("elo.csv").unwrap().unwrap(), b"a,b\n");
    assert!(store.get_file("nothing.csv").unwrap().is_none());
    assert!(store.selfplay().unwrap().is_none());
    store.set_selfplay("games = 4\n").unwrap();
    assert_eq!(store.selfplay().unwrap().unwrap(), "games = 4\n");
}

#[test]
fn a_directory_store_keeps_its_promises() {
    let scratch = tempfile::tempdir().unwrap();
    let spec = scratch.path().join("store");
    check_store(spec.to_str().unwrap(), scratch.path());
    let model = scratch.path().join("model");
    assert!(
        matches!(Store::create(spec.to_str().unwrap(), &model, "m0", FILES), Err(StoreError::Spec { .. })),
        "twice"
    );
    // The losing attempt's files are gone: only the three committed chunks' remain.
    let data = std::fs::read_dir(spec.join("chunk-data/w1")).unwrap().count();
    assert_eq!(data, 2);
    assert!(Store::open(spec.to_str().unwrap()).is_ok());
    let error = Store::open(scratch.path().join("model").to_str().unwrap()).unwrap_err();
    assert!(error.to_string().contains("no store here"), "{error}");
}

#[test]
fn an_object_store_keeps_the_same_promises() {
    let scratch = tempfile::tempdir().unwrap();
    check_store("memory:///run", scratch.path());
}

#[test]
fn a_bad_address_is_a_clear_error() {
    let error = Store::open("s4://bucket").unwrap_err();
    assert!(error.to_string().starts_with("store s4://bucket: "), "{error}");
    let StoreError::Connect { source, .. } = &error else { panic!("{error:?}") };
    assert!(error.to_string().ends_with(&source.to_string()), "{error}");
}

#[test]
fn errors_keep_their_cause() {
    use std::error::Error as _;
    let scratch = tempfile::tempdir().unwrap();
    let spec = scratch.path().join("store");
    let model = scratch.path().join("model");
    write_dir(&model, &[("model.json", "{\"id\": \"m0\"}")]);
    let store = Store::create(spec.to_str().unwrap(), &model, "m0", FILES).unwrap();

    // A chunk directory that is not there: the I/O error, with its path.
    let missing = scratch.path().join("no-chunk");
    let error = store.commit_chunk("w1", 0, "m0", (1, 1), &missing).unwrap_err();
    let StoreError::Io { path, source } = &error else { panic!("{error:?}") };
    assert_eq!((path, source.kind()), (&missing, std::io::ErrorKind::NotFound));
    assert_eq!(error.to_string(), format!("{}: {source}", missing.display()));

    // A manifest that is not JSON: serde_json's error, with the key.
    std::fs::write(spec.join("store.json"), "not json").unwrap();
    let error = Store::open(spec.to_str().unwrap()).unwrap_err();
    assert!(matches!(&error, StoreError::BadJson { key, .. } if key == "store.json"), "{error:?}");
    let source = error.source().expect("a source");
    assert!(source.downcast_ref::<serde_json::Error>().is_some(), "{source:?}");
    assert_eq!(error.to_string(), format!("store.json: {source}"));
}

/// Chunks whose manifest or files are broken are set aside, listed, and
/// left out of training; their numbers stay taken.
fn check_set_aside(spec: &str, scratch: &Path, break_files: impl Fn(&pente_store::Chunk)) {
    let model = scratch.join("model");
    write_dir(&model, &[("model.json", "{\"id\": \"m0\"}")]);
    let store = Store::create(spec, &model, "m0", FILES).unwrap().with_cache(scratch.join("cache"));
    let dir = scratch.join("chunk");
    write_dir(&dir, &[("games.csv", "header\nrow\n"), ("samples.bin", "samples")]);
    let good = store.commit_chunk("w1", 0, "m0", (1, 5), &dir).unwrap().unwrap();
    let broken = store.commit_chunk("w1", 1, "m0", (1, 5), &dir).unwrap().unwrap();
    store.commit_chunk("w2", 0, "m0", (1, 5), &dir).unwrap().unwrap();
    assert_eq!(store.chunks().unwrap().len(), 3);

    break_files(&broken);
    assert!(store.usable_chunk_dir(&good).unwrap().is_some());
    assert_eq!(store.usable_chunk_dir(&broken).unwrap(), None);
    let aside = store.set_aside().unwrap();
    assert_eq!(aside.len(), 1);
    assert_eq!(aside[0].manifest, "chunks/w1/000001.json");
    assert!(aside[0].reason.contains("samples.bin"), "{}", aside[0].reason);
    let left: Vec<String> = store.chunks().unwrap().iter().map(pente_store::Chunk::manifest_key).collect();
    assert_eq!(left, ["chunks/w1/000000.json", "chunks/w2/000000.json"]);
    // The worker goes on after the chunk set aside, not into its number.
    assert_eq!(store.next_chunk_index("w1").unwrap(), 2);
    assert_eq!(store.next_chunk_index("w3").unwrap(), 0);
}

#[test]
fn broken_chunks_are_set_aside_in_a_directory_store() {
    let scratch = tempfile::tempdir().unwrap();
    let spec = scratch.path().join("store");
    let root = spec.clone();
    check_set_aside(spec.to_str().unwrap(), scratch.path(), |chunk| {
        let data = root.join(format!("chunk-data/{}/{:06}-{}", chunk.worker, chunk.index, chunk.attempt));
        std::fs::write(data.join("samples.bin"), "cut").unwrap();
    });
    // A manifest that does not parse is set aside as it is listed.
    std::fs::write(spec.join("chunks/w2/000001.json"), "{ not a manifest").unwrap();
    let store = Store::open(spec.to_str().unwrap()).unwrap();
    assert_eq!(store.chunks().unwrap().len(), 2);
    let aside = store.set_aside().unwrap();
    assert_eq!(
        aside.iter().map(|a| a.manifest.as_str()).collect::<Vec<_>>(),
        ["chunks/w1/000001.json", "chunks/w2/000001.json"]
    );
    assert_eq!(store.next_chunk_index("w2").unwrap(), 2);
}

#[test]
fn broken_chunks_are_set_aside_in_an_object_store() {
    let scratch = tempfile::tempdir().unwrap();
    // A chunk whose download was cut short: the cached copy is the wrong size.
    let cache = scratch.path().join("cache");
    check_set_aside("memory:///aside", scratch.path(), |chunk| {
        let local = cache.join("chunks").join(&chunk.worker).join(format!("{:06}-{}", chunk.index, chunk.attempt));
        write_dir(&local, &[("games.csv", "header\nrow\n"), ("samples.bin", "cut")]);
    });
}
