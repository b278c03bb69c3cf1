//! The vocabulary every other kepspec crate shares, with no I/O: Kubernetes
//! releases and feature gates, label selectors, the field map of a
//! StatefulSet-like resource, the names of API groups and gates, which
//! implementation a controller behaves as, when a rollout is complete,
//! Prometheus text, and YAML read and
//! written the same way everywhere.

#![warn(unreachable_pub)]

pub mod fields;
pub mod gating;
pub mod implementation;
pub mod json;
pub mod names;
pub mod rollout;
pub mod scrape;
pub mod selector;
pub mod yaml;

pub use fields::FieldMap;
pub use gating::{FeatureGates, GateSource, Version};
pub use implementation::Implementation;
pub use json::Lookup;
