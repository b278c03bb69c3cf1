//! The `kepspec` command.

#[path = "../steps/mod.rs"]
mod steps;

use std::process::ExitCode;

use clap::Parser;
use kepspec::cli::{Cli, ClusterCommand, Command, SpecCommand, WaitCommand, EXIT_ERROR};

/// Log lines go to stderr, on a line of their own: a progress bar on the
/// terminal is cleared first.
fn log_writer() -> impl std::io::Write {
    kepspec::run::collector::clear_bar_line();
    std::io::stderr()
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    use std::io::IsTerminal as _;
    let colour = std::io::stderr().is_terminal()
        && std::env::var_os("CI").is_none()
        && std::env::var_os("NO_COLOR").is_none();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("KEPSPEC_LOG")
                .unwrap_or_else(|_| cli.log_filter().into()),
        )
        .with_ansi(colour)
        .with_writer(log_writer)
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
    let verbose = cli.verbose > 0;
    let code = runtime.block_on(async move {
        match cli.command {
            Command::Run(args) => kepspec::run::job::run::<steps::KepWorld>(&args).await,
            Command::List(args) => kepspec::run::commands::list::<steps::KepWorld>(&args),
            Command::Lint(args) => kepspec::run::commands::lint::<steps::KepWorld>(&args, verbose),
            Command::Cluster {
                command: ClusterCommand::Up(args),
            } => kepspec::run::commands::cluster_up(&args).await,
            Command::Controller(args) => kepspec::run::commands::controller(&args).await,
            Command::Explore(args) => kepspec::explore::explore::<steps::KepWorld>(&args).await,
            Command::Bench(args) => kepspec::run::commands::bench(&args).await,
            Command::Cite(args) => kepspec::run::commands::cite(&args),
            Command::Steps(args) => kepspec::run::commands::steps(&args),
            Command::Spec {
                command: SpecCommand::Export(args),
            } => kepspec::run::commands::spec_export(&args),
            Command::Wait {
                command: WaitCommand::Rollout(args),
            } => kepspec::run::wait::rollout(&args).await,
        }
    });
    ExitCode::from(code)
}
