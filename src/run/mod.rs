//! The run layer: from the command line to an exit code. Feature files are
//! found, parsed and checked ([`features`], [`manifests`], [`citations`]),
//! the run is planned before any cluster is touched ([`roster`]), cucumber runs
//! the scenarios ([`runner`]) while [`collector`] turns its events into the
//! report model, and [`verdict`] decides the exit code. [`job`] is `kepspec
//! run`, [`on_kind`] its kind provisioning, [`commands`] the smaller
//! subcommands, [`coverage`] the coverage map, [`step_catalogue`] the steps
//! the features can use; [`execute`] binds them to the spec's world.

pub(crate) mod citations;
pub mod collector;
pub mod commands;
pub(crate) mod coverage;
pub(crate) mod features;
pub(crate) mod interrupt;
pub mod job;
pub(crate) mod literal;
pub(crate) mod manifests;
pub(crate) mod on_kind;
pub(crate) mod out;
pub(crate) mod preflight;
pub(crate) mod roster;
pub mod runner;
pub(crate) mod shard;
pub(crate) mod step_catalogue;
#[cfg(test)]
mod tests;
pub mod throttle;
pub(crate) mod verdict;
pub mod wait;

use crate::cli::{ClusterCommand, Command, SpecCommand, WaitCommand};
use crate::steps::KepWorld;

/// Runs one subcommand on a multi-threaded runtime and returns its exit
/// code. The generic jobs are instantiated here, for the spec's
/// [`KepWorld`], and so is the future that runs them (the body of an async
/// function is compiled where it is polled): the binary is only this call.
pub fn execute(command: Command, verbose: bool) -> u8 {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("error: cannot start the runtime: {err}");
            return crate::cli::EXIT_ERROR;
        }
    };
    runtime.block_on(dispatch(command, verbose))
}

async fn dispatch(command: Command, verbose: bool) -> u8 {
    match command {
        Command::Run(args) => job::run::<KepWorld>(&args).await,
        Command::List(args) => commands::list::<KepWorld>(&args),
        Command::Lint(args) => commands::lint::<KepWorld>(&args, verbose),
        Command::Cluster {
            command: ClusterCommand::Up(args),
        } => commands::cluster_up(&args).await,
        Command::Controller(args) => commands::controller(&args).await,
        Command::Explore(args) => crate::explore::explore::<KepWorld>(&args).await,
        Command::Bench(args) => commands::bench(&args).await,
        Command::Cite(args) => commands::cite(&args),
        Command::Steps(args) => commands::steps(&args),
        Command::Spec {
            command: SpecCommand::Export(args),
        } => commands::spec_export(&args),
        Command::Wait {
            command: WaitCommand::Rollout(args),
        } => wait::rollout(&args).await,
    }
}
