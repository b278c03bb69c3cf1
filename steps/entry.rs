//! The start of the test targets that run the specification (`spec`,
//! `kruise`): `kepspec run` with their arguments, on a runtime of its own.

use std::process::ExitCode;

use clap::Parser;
use kepspec::cli::{Cli, Command};

use super::steps::KepWorld;

/// Runs `kepspec <argv...>`, which must be a `run`; exit code 2 for
/// arguments that do not parse.
pub fn run(argv: impl IntoIterator<Item = String>) -> ExitCode {
    let cli = match Cli::try_parse_from(std::iter::once("kepspec".to_string()).chain(argv)) {
        Ok(cli) => cli,
        Err(err) => {
            eprintln!("{err}");
            return ExitCode::from(2);
        }
    };
    let Command::Run(args) = cli.command else {
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("error: cannot start the runtime: {err}");
            return ExitCode::from(2);
        }
    };
    ExitCode::from(runtime.block_on(kepspec::run::job::run::<KepWorld>(&args)))
}
