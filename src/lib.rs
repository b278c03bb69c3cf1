//! kepspec: an executable specification of Kubernetes StatefulSet update
//! semantics — KEP-3541 (the `Recreate` update strategy), KEP-961
//! (`maxUnavailable`) and the base StatefulSet guarantees they build on.
//!
//! The embedded cluster (crate `kepspec-cluster`, here [`sim`]), the bundled
//! controller (crate `kepspec-controller`, here [`controller`]) and the
//! shared vocabulary (crate `kepspec-core`) are crates of their own; this
//! crate is the harness over them:
//!
//! - [`history`]: the recorder and the checks over a scenario's timeline;
//! - [`harness`]: the scenario layer: what steps do and check;
//! - [`run`]: the run layer: features, the runner, the main job, commands;
//! - [`steps`]: the step definitions, one harness call each, and the world
//!   they register with;
//! - [`report`]: JUnit, JSON and HTML reports;
//! - [`profiles`]: the implementation under test as a target profile;
//! - [`explore`]: every crash point of a scenario;
//! - [`bench`](mod@bench): the benchmarks and their report;
//! - [`yaml`]: reading and writing YAML, the same way everywhere (core).

#![warn(unreachable_pub)]

pub mod bench;
pub mod bundle;
pub mod cli;
pub mod cluster;
pub mod explore;
pub mod harness;
pub mod history;
pub mod profiles;
pub mod report;
pub mod run;
#[path = "../steps/mod.rs"]
pub mod steps;

pub use kepspec_cluster as sim;
pub use kepspec_controller as controller;
pub use kepspec_core::yaml;
