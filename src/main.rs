//! The `kepspec` command.

#[path = "../steps/mod.rs"]
mod steps;

use std::process::ExitCode;

use clap::Parser;
use kepspec::cli::{Cli, ClusterCommand, Command, EXIT_ERROR};

/// Warnings and errors of kepspec itself; the client library's connection
/// errors while a cluster shuts down are noise (KEPSPEC_LOG overrides).
const DEFAULT_LOG: &str = "warn,kube_client::client::builder=off,kepspec::sim::nodes=error";

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("KEPSPEC_LOG")
                .unwrap_or_else(|_| DEFAULT_LOG.into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("error: cannot start the runtime: {err}");
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let code = runtime.block_on(async move {
        match cli.command {
            Command::Run(args) => kepspec::harness::job::run::<steps::KepWorld>(&args).await,
            Command::List(args) => kepspec::harness::commands::list::<steps::KepWorld>(&args),
            Command::Lint(args) => kepspec::harness::commands::lint::<steps::KepWorld>(&args),
            Command::Cluster {
                command: ClusterCommand::Up(args),
            } => kepspec::harness::commands::cluster_up(&args).await,
            Command::Controller(args) => kepspec::harness::commands::controller(&args).await,
            Command::Explore(args) => kepspec::explore::explore::<steps::KepWorld>(&args).await,
            Command::Bench(args) => kepspec::harness::commands::bench(&args).await,
        }
    });
    ExitCode::from(code)
}
