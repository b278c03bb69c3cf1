//! The harness: what a scenario can do to a cluster and what it can check,
//! independent of cucumber. Steps (in `steps/`) only parse words and call
//! these functions.

pub mod apply;
pub mod artifacts;
pub mod checks;
pub mod citations;
pub mod claim_refs;
pub mod claim_writes;
pub mod claims;
pub mod clauses;
pub mod collections;
pub mod collector;
pub mod commands;
pub mod comparison;
pub mod conditions;
pub mod context;
pub mod coverage;
pub mod created;
pub mod deviations;
pub mod env;
pub mod faults;
pub mod features;
pub mod host_ports;
pub mod interrupt;
pub mod job;
pub mod kruise;
pub mod manifests;
#[cfg(test)]
mod matrix_tests;
pub mod nodes;
pub mod on_kind;
pub mod out;
pub mod outage;
pub mod ownership;
pub mod plan;
pub mod requests;
pub mod runner;
pub mod scenario;
pub use kepspec_core::scrape;
pub mod setspec;
pub mod staging;
pub mod status_writes;
pub mod storage;
pub mod verdict;
pub mod waits;

pub use env::{Environment, EnvironmentOptions};
pub use scenario::Scenario;
pub use setspec::SetSpec;
