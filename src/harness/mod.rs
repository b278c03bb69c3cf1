//! The scenario layer: what a scenario can do to a cluster and what it can
//! check, independent of cucumber. Steps (in `steps/`) only parse words and
//! call these functions. Running features (the cucumber runner, the run
//! plan, reports, the commands) is the run layer, [`crate::run`].

pub(crate) mod apply;
pub(crate) mod artifacts;
pub mod checks;
pub mod claim_refs;
pub(crate) mod claim_writes;
pub mod claims;
pub mod clauses;
pub mod collections;
pub mod comparison;
pub mod conditions;
pub(crate) mod context;
pub mod created;
pub(crate) mod deviations;
pub(crate) mod env;
pub mod faults;
pub mod host_ports;
pub mod kruise;
pub mod nodes;
pub mod outage;
pub mod ownership;
pub mod requests;
pub(crate) mod scenario;
pub use kepspec_core::scrape;
pub(crate) mod setspec;
pub mod staging;
pub mod status_writes;
pub mod storage;
pub mod waits;

pub use env::{Environment, EnvironmentOptions};
pub use scenario::Scenario;
pub use setspec::SetSpec;
