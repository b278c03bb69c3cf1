//! kepspec: an executable specification of Kubernetes StatefulSet update
//! semantics — KEP-3541 (the `Recreate` update strategy), KEP-961
//! (`maxUnavailable`) and the base StatefulSet guarantees they build on.
//!
//! - [`sim`]: the embedded cluster (API server, admission, node simulator);
//! - [`controller`]: the bundled StatefulSet controller;
//! - [`history`]: the recorder and the checks over a scenario's timeline;
//! - [`harness`]: scenarios, waits, the runner and the main job;
//! - [`report`]: JUnit, JSON and HTML reports;
//! - [`target`]: the implementation under test as a profile;
//! - [`explore`]: every crash point of a scenario;
//! - [`bench`]: the benchmarks and their report;
//! - [`yaml`]: reading and writing YAML, the same way everywhere.

pub mod bench;
pub mod cli;
pub mod cluster;
pub mod controller;
pub mod explore;
pub mod harness;
pub mod history;
pub mod report;
pub mod sim;
pub mod target;
pub mod yaml;
