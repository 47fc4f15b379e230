//! `pente serve`: a local web board. One page, every asset compiled into
//! the binary, over a JSON API that scripts can call too:
//!
//! - `POST /api/analyze`: the engine's request object (as `pente engine`
//!   reads it, [`protocol`]) in, its response object out;
//! - `GET /api/analyze/stream?request=JSON`: the same search as server-sent
//!   events, one `update` a slice and a final `done`; closing the
//!   connection stops the search;
//! - `POST /api/position`, `POST /api/graph`, `GET|POST /api/games`,
//!   `GET /api/explorer`, `POST /api/pgn`: the board, the win-rate graph,
//!   the game viewer, the opening explorer and PGN export.
//!
//! Every request passes the [`guard`]: the Host and Origin checks and the
//! token printed in the URL to open.
//!
//! Searches run on one engine thread ([`engine`]) in slices taken in turn,
//! so several tabs share it; the network behind them comes from an
//! [`EvaluatorSource`] the caller gives, so this crate needs no network
//! backend of its own.

pub mod engine;
pub mod guard;
pub mod library;
pub mod protocol;
mod server;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

pub use engine::{Engine, EvaluatorSource};
pub use guard::Guard;
pub use library::{Library, LoadError};
pub use protocol::Defaults;
pub use server::{AppState, router};
use thiserror::Error;

/// Where and what `pente serve` serves.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The address to listen on, e.g. `127.0.0.1`.
    pub host: String,
    /// The port; 0 picks a free one.
    pub port: u16,
    /// Game files for the viewer and the explorer.
    pub games: Vec<PathBuf>,
    /// The strength of requests that give none.
    pub defaults: Defaults,
    /// The token every request must carry; `None` (no token) only on a
    /// loopback address.
    pub token: Option<String>,
    /// An opening book (`pente book build`) for the explorer and the engine's moves.
    pub book: Option<std::sync::Arc<pente_book::BookPlayer>>,
}

/// Whether `host` names this machine's loopback interface only.
#[must_use]
pub fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Why the server could not start.
#[derive(Debug, Error)]
pub enum ServeError {
    /// A `--games` file is unreadable or has a bad record.
    #[error("{0}")]
    Games(#[from] LoadError),
    /// The address is taken or not ours.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// The address asked for.
        address: String,
        /// The reason.
        source: std::io::Error,
    },
    /// An address other than loopback without a token: anyone on the
    /// network could use the server.
    #[error(
        "serving {host} without a token would let anyone who reaches this machine use the server: drop --no-token \
         (a token is made and printed in the URL), or serve 127.0.0.1 only"
    )]
    NoToken {
        /// The address asked for.
        host: String,
    },
    /// The runtime failed.
    #[error("server: {0}")]
    Io(#[from] std::io::Error),
}

/// Loads the game files, binds the address, calls `ready` with the URL to
/// open (the token in it), and serves until Ctrl-C.
///
/// # Errors
/// A bad game file, an address other than loopback without a token, an
/// address that cannot be bound, or a runtime failure.
pub fn serve(
    options: &ServeOptions,
    source: Box<dyn EvaluatorSource>,
    ready: impl FnOnce(&str),
) -> Result<(), ServeError> {
    let loopback = is_loopback(&options.host);
    if !loopback && options.token.is_none() {
        return Err(ServeError::NoToken { host: options.host.clone() });
    }
    let mut library = Library::default();
    for path in &options.games {
        library.load(path, &path.display().to_string())?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async {
        let address = format!("{}:{}", options.host, options.port);
        let listener = tokio::net::TcpListener::bind(&address)
            .await
            .map_err(|source| ServeError::Bind { address: address.clone(), source })?;
        let bound: SocketAddr = listener.local_addr()?;
        let hosts = loopback.then(|| Guard::loopback_hosts(bound.port()));
        let guard = Guard::new(options.token.clone(), hosts, bound.port());
        let state = AppState {
            engine: Engine::start(source),
            library: Arc::new(RwLock::new(library)),
            defaults: options.defaults,
            guard: Arc::new(guard),
            book: options.book.clone(),
        };
        let url = match &options.token {
            Some(token) => format!("http://{bound}/?token={token}"),
            None => format!("http://{bound}/"),
        };
        ready(&url);
        axum::serve(listener, router(state).into_make_service_with_connect_info::<SocketAddr>())
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await?;
        Ok(())
    })
}
