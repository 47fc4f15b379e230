//! `pente serve`: the local web board (`pente_web`), with this binary's
//! networks behind it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use pente_search::Evaluator;
use pente_web::{Defaults, EvaluatorSource, ServeOptions};

use crate::player::{BackendArgs, LazyBackend, StrengthArgs, load_evaluator};

/// Arguments of `pente serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on; 0.0.0.0 serves other machines too (there
    /// is no login: only on a network you trust).
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// The port (0: any free one).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Network directory, or `heuristic` / `uniform`; default: the shipped network, else the heuristic.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Game files (PGN, games.csv, games.jsonl) for the game viewer and the
    /// opening explorer; more can be uploaded from the page.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    games: Vec<PathBuf>,
    /// The engine's default strength, for requests that give none.
    #[command(flatten)]
    strength: StrengthArgs,
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
        Ok((loaded.evaluator, loaded.description))
    }
}

/// Runs `pente serve` until Ctrl-C.
pub fn run(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    // The strength flags are checked now, not at the first request.
    args.strength.params()?;
    let options = ServeOptions {
        host: args.host.clone(),
        port: args.port,
        games: args.games.clone(),
        defaults: Defaults { level: args.strength.level, visits: args.strength.visits },
    };
    let networks = Networks { default_model: args.model.clone(), backend: LazyBackend::new(&args.backend) };
    pente_web::serve(&options, Box::new(networks), |address| {
        println!("pente serve: open http://{address}/ (Ctrl-C stops)");
    })?;
    Ok(ExitCode::SUCCESS)
}
