//! Names with one meaning across kepspec: API groups and feature gates that
//! the embedded cluster, the bundled controller and the harness all read.

/// The API group of OpenKruise's workloads (`apps.kruise.io`).
pub const KRUISE_GROUP: &str = "apps.kruise.io";

/// The feature gate of the KEP-3541 draft (EnforcedRollingUpdate).
pub const ENFORCED_GATE: &str = "EnforcedRollingUpdateInStatefulSet";
