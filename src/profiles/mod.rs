//! The implementation under test, described as a *target profile*: which
//! resource it serves, how to install it on a real cluster and wait for it,
//! which scenarios it claims, and how its words differ from the spec's.
//!
//! Every target is a profile: [`Profile::bundled`] and [`Profile::upstream`]
//! are built in, vendors write YAML files (see `clusters/targets/`) that
//! [`Profile::load`] reads and checks before any cluster is touched.
//!
//! Alongside the profile, two pure pieces a run needs on real clusters:
//! - [`gating`]: which scenarios a cluster's Kubernetes version and feature
//!   gates can run at all ([`skip_reason`]);
//! - [`fields`]: moving fields between the spec's apps/v1 shape and a
//!   vendor's ([`FieldMap`]).
//!
//! (Splitting the scenarios over CI jobs is the run layer's:
//! `crate::run::shard`.)
//!
//! [`standin`] installs a profile's CRDs so the bundled controller can stand
//! in for a vendor's on the embedded cluster.

mod builtin;
mod check;
pub(crate) mod deviation;
pub(crate) mod error;
pub(crate) mod facts;
pub use kepspec_core::fields;
pub(crate) mod gating;
mod install;
pub(crate) mod profile;
pub(crate) mod standin;

#[cfg(test)]
mod tests;

pub use deviation::{Deviation, Deviations};
pub use error::ProfileError;
pub use facts::ClusterFacts;
pub use fields::FieldMap;
pub use gating::{skip_reason, FeatureGates, GateSource, Version};
pub use profile::{Exclusion, Profile, ReadyCheck, ResourceRef};
