//! `cargo test --test spec`: the whole specification on the embedded cluster
//! with the bundled controller, exactly as `kepspec run` runs it.

#[path = "mod.rs"]
mod steps;

use std::process::ExitCode;

use clap::Parser;
use kepspec::cli::{Cli, Command};

fn main() -> ExitCode {
    // libtest passes its own flags (e.g. `--nocapture`); the spec takes
    // none. `KEPSPEC_SPEC_ARGS` adds options of `kepspec run` (cargo-mutants
    // runs the spec with `--fail-fast`, so a caught mutant ends early).
    let extra = std::env::var("KEPSPEC_SPEC_ARGS").unwrap_or_default();
    let argv = ["kepspec", "run"]
        .into_iter()
        .map(String::from)
        .chain(extra.split_whitespace().map(String::from));
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(err) => {
            eprintln!("KEPSPEC_SPEC_ARGS: {err}");
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
    let code = runtime.block_on(kepspec::harness::job::run::<steps::KepWorld>(&args));
    ExitCode::from(code)
}
