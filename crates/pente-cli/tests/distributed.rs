//! Distributed self-play end to end: worker processes sharing one store (a
//! directory, and a real S3-compatible server, also behind a proxy that
//! throttles and drops connections), one of them killed in the middle of a
//! chunk and started again, then the trainer on their games.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Games each worker plays, in chunks of `CHUNK`.
const GAMES: u64 = 12;
const CHUNK: u64 = 3;

/// Fast self-play settings: 9x9, 8 visits, one thread per worker.
const SELFPLAY: &str = "games = 4\nseed = 5\nthreads = 1\ngames_in_flight = 2\n\
    [[rules]]\nvariant = \"pente\"\nsize = 9\n[search]\nvisits = 8\nnoise = true\n\
    [search.tactics]\nverify_moves = 0\nroot = { max_nodes = 2000 }\n";

struct Env<'a> {
    scratch: &'a Path,
    store: String,
    vars: Vec<(String, String)>,
}

impl Env<'_> {
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pente"));
        command.args(args).env("PENTE_STORE_CACHE", self.scratch.join("cache"));
        for (key, value) in &self.vars {
            command.env(key, value);
        }
        command
    }

    fn pente(&self, args: &[&str]) -> Output {
        let out = self.command(args).output().expect("run pente");
        assert!(
            out.status.success(),
            "pente {args:?}:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    fn worker(&self, id: &str) -> Child {
        let work = self.scratch.join(format!("work-{id}"));
        let args = ["worker", "--store", &self.store, "--id", id, "--quiet"];
        let sizes = ["--games", &GAMES.to_string(), "--chunk-games", &CHUNK.to_string()];
        self.command(&args)
            .args(sizes)
            .arg("--work")
            .arg(&work)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start a worker")
    }
}

/// Whether worker `id` has a chunk in flight with at least one game written.
fn chunk_in_flight(scratch: &Path, id: &str) -> bool {
    let Ok(entries) = std::fs::read_dir(scratch.join(format!("work-{id}"))) else { return false };
    entries.flatten().any(|entry| {
        std::fs::read_to_string(entry.path().join("games.csv")).is_ok_and(|text| text.lines().count() >= 2)
    })
}

/// Two workers on the store of `env`, the first killed mid-chunk and
/// restarted with its id; then every invariant of the store. Returns the
/// local directories of its chunks.
fn two_workers_with_a_kill(env: &Env<'_>) -> Vec<PathBuf> {
    let config = env.scratch.join("selfplay.toml");
    std::fs::write(&config, SELFPLAY).unwrap();
    env.pente(&["store", "init", "--store", &env.store, "--config", config.to_str().unwrap()]);

    let mut first = env.worker("a");
    let mut second = env.worker("b");
    let started = Instant::now();
    while !chunk_in_flight(env.scratch, "a") && started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(5));
    }
    first.kill().unwrap(); // SIGKILL
    let killed = first.wait().unwrap();
    assert!(!killed.success(), "the worker was killed before it finished");
    let mut again = env.worker("a");
    assert!(again.wait().unwrap().success());
    assert!(second.wait().unwrap().success());

    let status = String::from_utf8(env.pente(&["store", "status", "--store", &env.store]).stdout).unwrap();
    let games_of = |worker: &str| {
        let line = status.lines().find(|l| l.split_whitespace().next() == Some(worker)).unwrap_or_default();
        line.split_whitespace().nth(2).and_then(|n| n.parse::<u64>().ok())
    };
    assert_eq!(games_of("a"), Some(GAMES), "{status}");
    assert_eq!(games_of("b"), Some(GAMES), "{status}");
    assert_eq!(games_of("total"), Some(2 * GAMES), "no game lost or counted twice:\n{status}");

    // Every chunk is complete and valid.
    let validate = env.pente(&["validate", "--store", &env.store, "--quiet"]);
    let report = String::from_utf8(validate.stdout).unwrap();
    let total = 2 * 2 * GAMES; // games.csv and games.jsonl of each game
    assert!(report.contains(&format!("total: {total} games: {total} valid, 0 invalid")), "{report}");

    // No two games alike: seeds differ by worker and chunk.
    let cache = env.scratch.join("cache");
    let store_dir = Path::new(&env.store);
    let data = if store_dir.is_dir() {
        store_dir.join("chunk-data")
    } else {
        // The downloads, in the cache's one folder (this store's).
        std::fs::read_dir(&cache).unwrap().flatten().next().unwrap().path().join("chunks")
    };
    let mut dirs = Vec::new();
    for worker in ["a", "b"] {
        let mut chunks: Vec<PathBuf> =
            std::fs::read_dir(data.join(worker)).unwrap().flatten().map(|e| e.path()).collect();
        chunks.sort();
        assert_eq!(chunks.len() as u64, GAMES / CHUNK, "worker {worker}: one directory per committed chunk");
        dirs.extend(chunks);
    }
    let (mut seeds, mut games) = (HashSet::new(), HashSet::new());
    for dir in &dirs {
        for line in std::fs::read_to_string(dir.join("games.jsonl")).unwrap().lines() {
            let game: serde_json::Value = serde_json::from_str(line).unwrap();
            let moves: Vec<String> = game["moves"].as_array().unwrap().iter().map(|m| m["move"].to_string()).collect();
            assert!(seeds.insert(game["seed"].as_u64().unwrap()), "{}: a seed played twice", dir.display());
            assert!(games.insert(moves), "{}: a game played twice", dir.display());
        }
    }
    assert_eq!(games.len() as u64, 2 * GAMES);
    dirs
}

#[test]
fn workers_share_a_directory_store_and_the_trainer_sees_every_game() {
    let scratch = tempfile::tempdir().unwrap();
    let env =
        Env { scratch: scratch.path(), store: scratch.path().join("store").display().to_string(), vars: Vec::new() };
    let dirs = two_workers_with_a_kill(&env);

    // The trainer: one iteration on the workers' 24 games, without playing any.
    let loop_config = scratch.path().join("loop.toml");
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/loop-ci.toml")).unwrap();
    let runs = scratch.path().join("runs").display().to_string();
    let text = text
        .replace("runs_dir = \"runs\"", &format!("runs_dir = \"{runs}\""))
        .replace("games = 16", &format!("games = {}", 2 * GAMES));
    std::fs::write(&loop_config, text).unwrap();
    let out = env.pente(&["loop", "--config", loop_config.to_str().unwrap(), "--store", &env.store, "--quiet"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(&format!("{} games in the store", 2 * GAMES)), "{stdout}");
    let used = std::fs::read_to_string(scratch.path().join("runs/ci/iter-001/chunks.txt")).unwrap();
    assert_eq!(used.lines().count(), dirs.len(), "the trainer used every chunk:\n{used}");
    let store = scratch.path().join("store");
    assert!(store.join("run/elo.csv").is_file() && store.join("run/loop.json").is_file());
    // Workers started without --config now play the trainer's settings.
    let settings = std::fs::read_to_string(store.join("selfplay.toml")).unwrap();
    assert!(settings.contains("size = 7"), "{settings}");

    // A new trainer (its local run lost) waits for games newer than those
    // the last one trained on; with --selfplay it plays them itself.
    let text = std::fs::read_to_string(&loop_config).unwrap().replace(&runs, &format!("{runs}-2"));
    std::fs::write(&loop_config, text).unwrap();
    let out =
        env.pente(&["loop", "--config", loop_config.to_str().unwrap(), "--store", &env.store, "--selfplay", "-q"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(&format!("{} games in the store", 4 * GAMES)), "{stdout}");
    let status = String::from_utf8(env.pente(&["store", "status", "--store", &env.store]).stdout).unwrap();
    assert!(status.lines().any(|l| l.split_whitespace().take(3).eq(["ci-trainer", "1", "24"])), "{status}");

    // A chunk whose samples file was cut short is set aside, not fatal:
    // validate goes on with the others and says so; status lists it.
    let samples = dirs[0].join("samples.bin");
    let bytes = std::fs::read(&samples).unwrap();
    std::fs::write(&samples, &bytes[..bytes.len() / 2]).unwrap();
    let out = env.pente(&["validate", "--store", &env.store, "--quiet"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("set aside chunks/a/000000.json") && stderr.contains("samples.bin"), "{stderr}");
    let report = String::from_utf8_lossy(&out.stdout);
    let left = 2 * (4 * GAMES - CHUNK);
    assert!(report.contains(&format!("total: {left} games: {left} valid, 0 invalid")), "{report}");
    let status = String::from_utf8(env.pente(&["store", "status", "--store", &env.store]).stdout).unwrap();
    assert!(status.contains("set aside (left out of training): 1"), "{status}");
    assert!(status.lines().any(|l| l.split_whitespace().take(3).eq(["a", "3", "9"])), "{status}");
}

/// A free TCP port on this machine.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Sends one bodyless HTTP request; returns the status line.
fn http(port: u16, request: &str) -> std::io::Result<String> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port))?;
    stream.write_all(
        format!("{request} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").as_bytes(),
    )?;
    let mut reply = String::new();
    stream.read_to_string(&mut reply)?;
    Ok(reply.lines().next().unwrap_or_default().to_string())
}

/// Kills the S3 server when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn workers_share_an_s3_store() {
    // moto's S3 server (PyPI `moto[server]`; .ci/run installs it and sets PENTE_REQUIRE_S3).
    let port = free_port();
    let server =
        Command::new("moto_server").args(["-p", &port.to_string()]).stdout(Stdio::null()).stderr(Stdio::null()).spawn();
    let server = match server {
        Ok(child) => Server(child),
        Err(error) if std::env::var_os("PENTE_REQUIRE_S3").is_none() => {
            eprintln!("skipped: no moto_server ({error}); pip install 'moto[server]' to run this test");
            return;
        }
        Err(error) => panic!("moto_server: {error}"),
    };
    let started = Instant::now();
    while http(port, "GET /").is_err() {
        assert!(started.elapsed() < Duration::from_secs(60), "the S3 server did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(http(port, "PUT /pente-test").unwrap().contains("200"), "creating the bucket");
    let scratch = tempfile::tempdir().unwrap();
    let vars = [
        ("AWS_ENDPOINT", format!("http://127.0.0.1:{port}")),
        ("AWS_ALLOW_HTTP", "true".into()),
        ("AWS_ACCESS_KEY_ID", "test".into()),
        ("AWS_SECRET_ACCESS_KEY", "test".into()),
        ("AWS_REGION", "us-east-1".into()),
    ];
    let env = Env {
        scratch: scratch.path(),
        store: "s3://pente-test/run".into(),
        vars: vars.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect(),
    };
    two_workers_with_a_kill(&env);
    // The trainer's reader sees them all: stats over the store count every game.
    let stats = env.pente(&["stats", "--store", &env.store, "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(report["games_counted"].as_u64(), Some(2 * GAMES), "{}", report["files"]);

    // The same through a proxy that throttles (503 Slow Down) or drops
    // every third new connection: the workers' retries absorb it, and no
    // game is lost or counted twice.
    let faults = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let proxy = faulty_proxy(port, faults.clone());
    let mut env = env;
    let scratch = tempfile::tempdir().unwrap();
    env.scratch = scratch.path();
    env.store = "s3://pente-test/faulty".into();
    env.vars[0].1 = format!("http://127.0.0.1:{proxy}");
    two_workers_with_a_kill(&env);
    assert!(faults.load(std::sync::atomic::Ordering::SeqCst) > 0, "the proxy injected faults");
    drop(server);
}

/// A TCP proxy on a free port in front of the server on `port`: of every
/// three connections, one is answered `503 Slow Down` (S3's throttling) and
/// closed, one is cut after its first bytes, and one is passed through.
/// Counts the faults in `faults`.
fn faulty_proxy(port: u16, faults: std::sync::Arc<std::sync::atomic::AtomicUsize>) -> u16 {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for (n, client) in listener.incoming().enumerate() {
            let Ok(mut client) = client else { continue };
            let mut first = [0u8; 512];
            match n % 3 {
                0 => {
                    let _ = client.read(&mut first);
                    let body =
                        "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>";
                    let reply = format!(
                        "HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = client.write_all(reply.as_bytes());
                    faults.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
                1 => {
                    let _ = client.read(&mut first);
                    faults.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
                _ => {
                    let Ok(server) = std::net::TcpStream::connect(("127.0.0.1", port)) else { continue };
                    let (mut up, mut down) = (server.try_clone().unwrap(), client.try_clone().unwrap());
                    std::thread::spawn(move || std::io::copy(&mut down, &mut up));
                    let (mut server, mut client) = (server, client);
                    std::thread::spawn(move || std::io::copy(&mut server, &mut client));
                }
            }
        }
    });
    proxy
}
