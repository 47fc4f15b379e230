//! A TCP proxy that injects the faults of real object storage between
//! `pente` and an S3-compatible server, for soak runs (`scripts/soak.sh`):
//! of the new connections, every `--throttle`th is answered `503 Slow Down`
//! (S3's throttling), every `--cut`th is closed after its request's first
//! bytes (a connection reset mid-request), every `--slow`th is held
//! `--delay-ms` before it is passed on (a slow request); the rest pass
//! through (0 turns a fault off). It prints its counts every `--report`
//! seconds.
//!
//! ```text
//! cargo run --release -p pente-store --example fault_proxy -- --listen 9100 --upstream 9000
//! ```

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The proxy's settings, from `--name value` pairs.
struct Settings {
    listen: u16,
    upstream: u16,
    throttle: u64,
    cut: u64,
    slow: u64,
    delay: Duration,
    report: Duration,
}

fn settings() -> Result<Settings, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str, default: Option<u64>| -> Result<u64, String> {
        match args.iter().position(|a| a == name) {
            Some(i) => {
                args.get(i + 1).and_then(|v| v.parse().ok()).ok_or_else(|| format!("{name} takes a whole number"))
            }
            None => default.ok_or_else(|| format!("{name} is required")),
        }
    };
    let port = |name: &str| value(name, None).and_then(|v| u16::try_from(v).map_err(|_| format!("{name}: a port")));
    Ok(Settings {
        listen: port("--listen")?,
        upstream: port("--upstream")?,
        throttle: value("--throttle", Some(5))?,
        cut: value("--cut", Some(7))?,
        slow: value("--slow", Some(11))?,
        delay: Duration::from_millis(value("--delay-ms", Some(2000))?),
        report: Duration::from_secs(value("--report", Some(60))?),
    })
}

/// Counts of what the proxy did.
#[derive(Default)]
struct Counts {
    connections: AtomicU64,
    throttled: AtomicU64,
    cut: AtomicU64,
    slowed: AtomicU64,
}

fn main() {
    let settings = match settings() {
        Ok(settings) => settings,
        Err(message) => {
            eprintln!("fault_proxy: {message}");
            std::process::exit(2);
        }
    };
    let listener = TcpListener::bind(("127.0.0.1", settings.listen)).unwrap_or_else(|e| {
        eprintln!("fault_proxy: cannot listen on {}: {e}", settings.listen);
        std::process::exit(1);
    });
    let counts = Arc::new(Counts::default());
    let reporter = Arc::clone(&counts);
    let (every, started) = (settings.report, Instant::now());
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(every);
            println!(
                "{:.0} s: {} connections, {} throttled (503), {} cut, {} slowed",
                started.elapsed().as_secs_f64(),
                reporter.connections.load(Ordering::Relaxed),
                reporter.throttled.load(Ordering::Relaxed),
                reporter.cut.load(Ordering::Relaxed),
                reporter.slowed.load(Ordering::Relaxed)
            );
        }
    });
    for (n, client) in listener.incoming().enumerate() {
        let Ok(client) = client else { continue };
        let n = n as u64 + 1;
        counts.connections.fetch_add(1, Ordering::Relaxed);
        let (upstream, delay) = (settings.upstream, settings.delay);
        if n.is_multiple_of(settings.throttle) {
            counts.throttled.fetch_add(1, Ordering::Relaxed);
            std::thread::spawn(move || throttle(client));
        } else if n.is_multiple_of(settings.cut) {
            counts.cut.fetch_add(1, Ordering::Relaxed);
            std::thread::spawn(move || {
                let mut first = [0u8; 512];
                let _ = (&client).read(&mut first);
            });
        } else {
            let slow = n.is_multiple_of(settings.slow);
            if slow {
                counts.slowed.fetch_add(1, Ordering::Relaxed);
            }
            std::thread::spawn(move || {
                if slow {
                    std::thread::sleep(delay);
                }
                pass(client, upstream);
            });
        }
    }
}

/// Reads the request's start and answers S3's throttling error.
fn throttle(mut client: TcpStream) {
    let mut first = [0u8; 512];
    let _ = client.read(&mut first);
    let body = "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>";
    let reply = format!(
        "HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = client.write_all(reply.as_bytes());
}

/// Copies both ways between the client and the server.
fn pass(client: TcpStream, upstream: u16) {
    let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else { return };
    let (Ok(mut up), Ok(mut down)) = (server.try_clone(), client.try_clone()) else { return };
    std::thread::spawn(move || std::io::copy(&mut down, &mut up));
    let (mut server, mut client) = (server, client);
    let _ = std::io::copy(&mut server, &mut client);
}
