//! `cargo test --test spec`: the whole specification on the embedded cluster
//! with the bundled controller, exactly as `kepspec run` runs it.

#[path = "mod.rs"]
mod steps;

use std::process::ExitCode;

use clap::Parser;
use kepspec::cli::{Cli, Command};

fn main() -> ExitCode {
    // libtest passes its own flags (e.g. `--nocapture`); the spec takes none.
    let cli = Cli::parse_from(["kepspec", "run"]);
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
