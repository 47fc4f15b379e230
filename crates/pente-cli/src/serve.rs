//! `pente serve`: the local web board (`pente_web`), with this binary's
//! networks behind it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use pente_search::Evaluator;
use pente_web::{EvaluatorSource, ServeOptions};

use crate::player::{BackendArgs, LazyBackend, PlayingBookArgs, StrengthArgs, load_evaluator};

/// Arguments of `pente serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on; 0.0.0.0 serves other machines too (with
    /// the token; the connection is plain HTTP: only on a network you trust).
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// The token every request must carry (default: a new random one, printed
    /// in the URL to open).
    #[arg(long, env = "PENTE_SERVE_TOKEN", conflicts_with = "no_token")]
    token: Option<String>,
    /// No token: anyone who can reach the port may use the server. Refused
    /// unless --host is a loopback address.
    #[arg(long)]
    no_token: bool,
    /// The port (0: any free one).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Network directory (or its ONNX file, e.g. `DIR/model.int8.onnx`, on ONNX Runtime), or
    /// `heuristic` / `uniform`; default: the shipped network, else the heuristic.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Game files (PGN, games.csv, games.jsonl) for the game viewer and the
    /// opening explorer; more can be uploaded from the page.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    games: Vec<PathBuf>,
    /// The engine's default strength, for requests that give none.
    #[command(flatten)]
    strength: StrengthArgs,
    /// An opening book: the explorer shows its numbers beside the games',
    /// and the engine plays from it while the game is in it.
    #[command(flatten)]
    book: PlayingBookArgs,
    #[command(flatten)]
    backend: BackendArgs,
}

/// The networks of this binary, loaded on the server's engine thread.
struct Networks {
    default_model: Option<PathBuf>,
    backend: LazyBackend,
}

impl EvaluatorSource for Networks {
    fn load(&mut self, model: Option<&Path>) -> Result<(Box<dyn Evaluator>, String), String> {
        let model = model.or(self.default_model.as_deref());
        let loaded = load_evaluator(model, &mut self.backend).map_err(|e| crate::output::describe(&e))?;
        // Answers name the network, not where it lies on this machine.
        Ok((loaded.evaluator, loaded.without_paths))
    }
}

/// Runs `pente serve` until Ctrl-C.
pub fn run(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    // The strength flags are checked now, not at the first request.
    args.strength.params()?;
    let token = match (&args.token, args.no_token) {
        (Some(token), _) => Some(token.clone()),
        (None, true) => None,
        (None, false) => Some(pente_web::Guard::new_token()),
    };
    let options = ServeOptions {
        token,
        host: args.host.clone(),
        port: args.port,
        games: args.games.clone(),
        defaults: args.strength.defaults(),
        book: args.book.open(None)?,
    };
    let networks = Networks { default_model: args.model.clone(), backend: LazyBackend::new(&args.backend) };
    pente_web::serve(&options, Box::new(networks), |url| {
        println!("pente serve: open {url} (Ctrl-C stops)");
    })?;
    Ok(ExitCode::SUCCESS)
}
