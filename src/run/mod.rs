//! The run layer: from the command line to an exit code. Feature files are
//! found, parsed and checked ([`features`], [`manifests`], [`citations`]),
//! the run is planned before any cluster is touched ([`plan`]), cucumber runs
//! the scenarios ([`runner`]) while [`collector`] turns its events into the
//! report model, and [`verdict`] decides the exit code. [`job`] is `kepspec
//! run`, [`on_kind`] its kind provisioning, [`commands`] the smaller
//! subcommands, [`coverage`] the coverage map.

pub mod citations;
pub mod collector;
pub mod commands;
pub mod coverage;
pub mod features;
pub mod interrupt;
pub mod job;
pub mod literal;
pub mod manifests;
pub mod on_kind;
pub mod out;
pub mod preflight;
pub mod roster;
pub mod runner;
pub mod shard;
pub mod steps;
#[cfg(test)]
mod tests;
pub mod verdict;
pub mod wait;
