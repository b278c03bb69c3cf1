//! `cargo test --test kruise`: what the OpenKruise profile claims, on the
//! embedded cluster with the bundled controller standing in for
//! Advanced StatefulSet (`apps.kruise.io/v1beta1`), exactly as
//! `kepspec run --target clusters/targets/openkruise-advanced-statefulset.yaml`
//! runs it; at least one `@kruise` scenario must run.

#[path = "mod.rs"]
mod steps;

use std::process::ExitCode;

use clap::Parser;
use kepspec::cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse_from([
        "kepspec",
        "run",
        "--target",
        "clusters/targets/openkruise-advanced-statefulset.yaml",
        "--require",
        "@kruise",
    ]);
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
