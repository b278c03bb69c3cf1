//! The run layer: from the command line to an exit code. Feature files are
//! found, parsed and checked ([`features`], [`manifests`], [`citations`]),
//! the run is planned before any cluster is touched ([`roster`]), cucumber runs
//! the scenarios ([`runner`]) while [`collector`] turns its events into the
//! report model, and [`verdict`] decides the exit code. [`job`] is `kepspec
//! run`, [`on_kind`] its kind provisioning, [`commands`] the smaller
//! subcommands, [`coverage`] the coverage map.

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
pub(crate) mod steps;
#[cfg(test)]
mod tests;
pub mod throttle;
pub(crate) mod verdict;
pub mod wait;
