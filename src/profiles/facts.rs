//! What a cluster can run, in one place: its Kubernetes version, its
//! feature gates (each with where the setting came from) and what kepspec
//! can do on it (fault injection and clusters of their own exist only on
//! the embedded cluster). The kind run, the kubeconfig run and the embedded
//! cluster all fill a [`ClusterFacts`]; the skip logic and the reports read
//! it.

use super::gating::{self, FeatureGates, GateSource, Version, EMBEDDED_ONLY, GATES};

/// The tag of scenarios that need a cluster of their own.
pub(crate) const ISOLATED: &str = "isolated";

/// What a run knows of its cluster.
#[derive(Clone, Debug)]
pub struct ClusterFacts {
    /// The embedded cluster: fault injection and clusters of their own.
    pub embedded: bool,
    /// The Kubernetes version the cluster serves its API as.
    pub version: Version,
    /// Where the version came from (`/version`, `--kube-version`).
    pub version_source: String,
    /// The cluster's feature gates, as far as known.
    pub gates: FeatureGates,
}

impl ClusterFacts {
    /// Whether a gate is on, and why.
    pub fn gate(&self, name: &str) -> (bool, GateSource) {
        self.gates.resolve(name, self.version)
    }

    /// The reason this cluster cannot run a scenario with these tags (with
    /// or without `@`), from its capabilities alone.
    pub fn capability_skip(&self, tags: &[String]) -> Option<String> {
        let has = |t: &str| tags.iter().any(|x| x.strip_prefix('@').unwrap_or(x) == t);
        if self.embedded {
            return None;
        }
        if has(EMBEDDED_ONLY) {
            return Some("needs the embedded cluster's fault injection".into());
        }
        if has(ISOLATED) {
            return Some(
                "needs a cluster of its own (@isolated), which only the embedded cluster provides"
                    .into(),
            );
        }
        None
    }

    /// The reason a scenario of apps/v1 StatefulSet with these tags cannot
    /// run here: capabilities, then version and gates.
    pub fn skip(&self, tags: &[String]) -> Option<String> {
        self.capability_skip(tags).or_else(|| {
            let rest: Vec<String> = tags
                .iter()
                .filter(|t| t.strip_prefix('@').unwrap_or(t) != EMBEDDED_ONLY)
                .cloned()
                .collect();
            gating::skip_reason(&rest, self.version, &self.gates)
        })
    }

    /// The gates kepspec knows, each with its state and source.
    pub fn gate_table(&self) -> Vec<(&'static str, bool, GateSource)> {
        GATES
            .iter()
            .map(|g| {
                let (on, src) = self.gate(g.name);
                (g.name, on, src)
            })
            .collect()
    }

    /// Key/value properties for JUnit and the JSON report.
    pub fn properties(&self) -> Vec<(String, String)> {
        let mut out = vec![
            (
                "kepspec.cluster".to_string(),
                if self.embedded {
                    "embedded"
                } else {
                    "external"
                }
                .to_string(),
            ),
            ("kepspec.cluster.version".into(), self.version.to_string()),
            (
                "kepspec.cluster.version.source".into(),
                self.version_source.clone(),
            ),
        ];
        for (name, on, src) in self.gate_table() {
            out.push((format!("kepspec.gate.{name}"), format!("{on} ({src})")));
        }
        out
    }

    /// The lines a run prints before its scenarios: what it runs against.
    pub fn describe(&self) -> String {
        let mut out = format!(
            "cluster: {} Kubernetes {} ({})\n",
            if self.embedded {
                "embedded"
            } else {
                "external"
            },
            self.version,
            self.version_source
        );
        for (name, on, src) in self.gate_table() {
            out.push_str(&format!("  gate {name}={on} ({src})\n"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(t: &[&str]) -> Vec<String> {
        t.iter().map(|s| s.to_string()).collect()
    }

    fn facts(version: Version, gates: &str, embedded: bool) -> ClusterFacts {
        ClusterFacts {
            embedded,
            version,
            version_source: "test".into(),
            gates: FeatureGates::parse(gates).unwrap(),
        }
    }

    #[test]
    fn capabilities_come_before_gates() {
        let real = facts(Version::patch(1, 37, 0), "", false);
        assert_eq!(
            real.skip(&tags(&["@isolated", "@kep-3541"])).as_deref(),
            Some(
                "needs a cluster of its own (@isolated), which only the embedded cluster provides"
            )
        );
        assert!(real
            .skip(&tags(&["@embedded-only"]))
            .unwrap()
            .contains("fault injection"));
        let embedded = facts(Version::patch(1, 37, 0), "", true);
        assert_eq!(embedded.skip(&tags(&["@isolated", "@embedded-only"])), None);
    }

    #[test]
    fn the_gate_default_follows_the_patch_release() {
        let mu = tags(&["@gate-MaxUnavailableStatefulSet"]);
        for (v, runs) in [
            (Version::patch(1, 35, 0), true),
            (Version::patch(1, 35, 3), true),
            (Version::patch(1, 35, 4), false),
            (Version::patch(1, 35, 8), false),
            (Version::patch(1, 36, 4), false),
            (Version::patch(1, 37, 0), true),
        ] {
            let f = facts(v, "", false);
            assert_eq!(f.skip(&mu).is_none(), runs, "{v}: {:?}", f.skip(&mu));
        }
        // The cluster's own answer wins over the table.
        let f = facts(
            Version::patch(1, 36, 4),
            "MaxUnavailableStatefulSet=true",
            false,
        );
        assert_eq!(f.skip(&mu), None);
    }

    #[test]
    fn properties_name_the_version_and_every_gate_with_its_source() {
        let f = facts(
            Version::patch(1, 37, 0),
            "StatefulSetRecreateStrategy=true",
            false,
        );
        let p = f.properties();
        assert!(p.contains(&("kepspec.cluster.version".into(), "v1.37.0".into())));
        assert!(p
            .iter()
            .any(|(k, v)| k == "kepspec.gate.StatefulSetRecreateStrategy"
                && v == "true (set by --feature-gates)"));
        assert!(p
            .iter()
            .any(|(k, v)| k == "kepspec.gate.MaxUnavailableStatefulSet"
                && v.starts_with("true (release default")));
        assert!(f
            .describe()
            .contains("gate StatefulSetRecreateStrategy=true"));
    }
}
