//! Which scenarios a real cluster can run, from its Kubernetes version and
//! feature gates, decided before a scenario starts so that a scenario the
//! cluster cannot run is reported as skipped with the reason, not failed.
//!
//! Scenario tags read here:
//! - `@gate-NAME`: the scenario needs feature gate NAME on.
//! - `@since-vX.Y[.Z]`: the scenario encodes a behaviour first released in
//!   that version (a fix, e.g. `@since-v1.37` for kubernetes #137666).
//! - `@embedded-only`: the scenario needs the embedded cluster's fault
//!   injection; skipped on every real cluster.
//!
//! What a gate defaults to depends on the release, to the patch: see
//! [`GATES`], each span with its source. The cluster's own answer (the
//! `kubernetes_feature_enabled` metric of kube-apiserver, or a gate setting
//! the user or the kind run passed) always wins over the table.

pub use kepspec_core::gating::*;

/// The tag of scenarios that need the embedded cluster.
pub(crate) const EMBEDDED_ONLY: &str = "embedded-only";
/// The prefix of feature-gate tags (`@gate-StatefulSetRecreateStrategy`).
pub(crate) const GATE_PREFIX: &str = "gate-";
/// The prefix of minimum-version tags (`@since-v1.37`).
pub(crate) const SINCE_PREFIX: &str = "since-";

/// The reason a scenario with these tags cannot run on a real cluster of
/// `version` with `gates`, or None when it can. Tags may be given with or
/// without their `@`. Not for the embedded cluster's own scenarios
/// (`@embedded-only` is handled by the caller).
pub fn skip_reason(
    scenario_tags: &[String],
    version: Version,
    gates: &FeatureGates,
) -> Option<String> {
    let tags: Vec<&str> = scenario_tags
        .iter()
        .map(|t| t.strip_prefix('@').unwrap_or(t))
        .collect();
    if tags.contains(&EMBEDDED_ONLY) {
        return Some("needs the embedded cluster's fault injection".into());
    }
    for since in tags.iter().filter_map(|t| t.strip_prefix(SINCE_PREFIX)) {
        match Version::parse(since) {
            Ok(min) if version < min => {
                return Some(format!(
                    "encodes behaviour first released in {min} (@since-{since}); the cluster runs {version}"
                ))
            }
            _ => {}
        }
    }
    for name in tags.iter().filter_map(|t| t.strip_prefix(GATE_PREFIX)) {
        let known = gate(name);
        if let Some(g) = known.filter(|g| version < g.spec_since.0) {
            return Some(format!(
                "needs Kubernetes {} or later for feature gate {name} ({}); the cluster runs {version}",
                g.spec_since.0, g.spec_since.1
            ));
        }
        let (on, source) = gates.resolve(name, version);
        if !on {
            let hint = match &source {
                GateSource::Default(_) => {
                    " (off by default in this release: enable it on kube-apiserver and kube-controller-manager)"
                }
                _ => "",
            };
            return Some(format!(
                "needs feature gate {name}, which is off on this cluster{hint}"
            ));
        }
    }
    None
}

/// A kind configuration with the `featureGates` the node version does not
/// know removed (components refuse to start on an unknown gate: component-
/// base `featuregate/feature_gate.go`), so one configuration serves every
/// node image of a CI matrix. Other content is kept as parsed YAML
/// (comments are dropped).
pub(crate) fn kind_config_for(config_yaml: &str, node_version: Version) -> Result<String, String> {
    let mut config: serde_json::Value =
        kepspec_core::yaml::from_str(config_yaml).map_err(|e| format!("kind config: {e}"))?;
    if let Some(gates) = config
        .get_mut("featureGates")
        .and_then(serde_json::Value::as_object_mut)
    {
        gates.retain(|name, _| gate(name).is_none_or(|g| g.at(node_version).is_some()));
        if gates.is_empty() {
            if let Some(obj) = config.as_object_mut() {
                obj.remove("featureGates");
            }
        }
    }
    kepspec_core::yaml::to_string(&config).map_err(|e| format!("kind config: {e}"))
}
