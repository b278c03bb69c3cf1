//! Which scenarios a real cluster can run, from its Kubernetes version and
//! feature gates, decided before a scenario starts so that a scenario the
//! cluster cannot run is reported as skipped with the reason, not failed.
//!
//! Scenario tags read here:
//! - `@gate-NAME`: the scenario needs feature gate NAME. The gates kepspec
//!   knows are in [`GATES`]: the version that introduced each and whether it
//!   is on by default. An unknown gate is assumed to exist and be on unless
//!   the cluster's gates turn it off.
//! - `@embedded-only`: the scenario needs the embedded cluster's fault
//!   injection; skipped on every real cluster.
//!
//! Assumptions (from the KEPs and `upstream-statefulset-facts.md`):
//! - `StatefulSetRecreateStrategy` exists from v1.37 (alpha, PR #137187),
//!   off by default;
//! - `MaxUnavailableStatefulSet` is required from v1.35 (the first release
//!   with the minReadySeconds fix #130909 and the beta API the spec
//!   encodes; the gate itself exists since v1.24 as alpha), off by default
//!   there (#137409 turned the v1.35 beta default back off); kepspec does not
//!   assume the default changed since, so the cluster must enable it.

use std::collections::BTreeMap;
use std::fmt;

use k8s_openapi::apimachinery::pkg::version::Info;

/// The tag of scenarios that need the embedded cluster.
pub const EMBEDDED_ONLY: &str = "embedded-only";
/// The prefix of feature-gate tags (`@gate-StatefulSetRecreateStrategy`).
pub const GATE_PREFIX: &str = "gate-";

/// A Kubernetes `major.minor` version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    /// `1`.
    pub major: u32,
    /// `37`.
    pub minor: u32,
}

impl Version {
    /// `Version { major, minor }`.
    pub const fn new(major: u32, minor: u32) -> Self {
        Self { major, minor }
    }

    /// Parses the version strings servers and images carry: `v1.37.0`,
    /// `v1.36.2-gke.100`, `1.35+`, `1.35`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let bad = || format!("cannot read a Kubernetes version from `{text}`");
        let t = text.trim();
        let t = t.strip_prefix('v').unwrap_or(t);
        let mut parts = t.split('.');
        let major = leading_number(parts.next().unwrap_or_default()).ok_or_else(bad)?;
        let minor = leading_number(parts.next().unwrap_or_default()).ok_or_else(bad)?;
        Ok(Self { major, minor })
    }

    /// The version a server serves its API as: the emulated version when the
    /// server emulates an older one, else `major`/`minor` (which may read
    /// `35+` on managed clusters), else `gitVersion`.
    pub fn of_server(info: &Info) -> Result<Self, String> {
        if let (Some(major), Some(minor)) = (&info.emulation_major, &info.emulation_minor) {
            if let Ok(v) = Self::parse(&format!("{major}.{minor}")) {
                return Ok(v);
            }
        }
        Self::parse(&format!("{}.{}", info.major, info.minor))
            .or_else(|_| Self::parse(&info.git_version))
    }

    /// The Kubernetes version of a kind node image, from its tag:
    /// `kindest/node:v1.36.4@sha256:...` is v1.36. None without a tag.
    pub fn of_node_image(image: &str) -> Option<Self> {
        let name = image.split('@').next().unwrap_or(image);
        let (_, tag) = name.rsplit_once(':')?;
        if tag.contains('/') {
            return None;
        }
        Self::parse(tag).ok()
    }
}

impl From<(u32, u32)> for Version {
    fn from((major, minor): (u32, u32)) -> Self {
        Self { major, minor }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}.{}", self.major, self.minor)
    }
}

fn leading_number(s: &str) -> Option<u32> {
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// What kepspec knows of one feature gate.
#[derive(Clone, Copy, Debug)]
pub struct Gate {
    /// The gate's name.
    pub name: &'static str,
    /// The first version whose scenarios kepspec runs with this gate.
    pub since: Version,
    /// Whether it is on when the cluster says nothing.
    pub default_on: bool,
    /// Why `since`, for the skip message.
    pub why: &'static str,
}

/// The gates the spec's tags name.
pub const GATES: &[Gate] = &[
    Gate {
        name: "StatefulSetRecreateStrategy",
        since: Version::new(1, 37),
        default_on: false,
        why: "KEP-3541 alpha, PR #137187",
    },
    Gate {
        name: "MaxUnavailableStatefulSet",
        since: Version::new(1, 35),
        default_on: false,
        why: "KEP-961 beta",
    },
];

/// The gate named `name`, if kepspec knows it.
pub fn gate(name: &str) -> Option<&'static Gate> {
    GATES.iter().find(|g| g.name == name)
}

/// The feature gates a cluster was started with, as far as kepspec is told;
/// gates not mentioned take their defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeatureGates {
    set: BTreeMap<String, bool>,
}

impl FeatureGates {
    /// Parses `--feature-gates` text: `A=true,B=false`.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let mut set = BTreeMap::new();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, value) = item.split_once('=').ok_or_else(|| {
                format!("feature gate `{item}`: expected NAME=true or NAME=false")
            })?;
            let value: bool = value.trim().parse().map_err(|_| {
                format!(
                    "feature gate `{item}`: `{}` is not true or false",
                    value.trim()
                )
            })?;
            set.insert(name.trim().to_string(), value);
        }
        Ok(Self { set })
    }

    /// The `featureGates` of a kind cluster configuration.
    pub fn from_kind_config(yaml: &str) -> Result<Self, String> {
        let config: serde_json::Value =
            serde_yaml_ng::from_str(yaml).map_err(|e| format!("kind config: {e}"))?;
        let mut set = BTreeMap::new();
        if let Some(gates) = config.get("featureGates") {
            let gates = gates
                .as_object()
                .ok_or("kind config: featureGates is not a mapping")?;
            for (name, value) in gates {
                let on = value.as_bool().ok_or_else(|| {
                    format!("kind config: featureGates.{name} is not true or false")
                })?;
                set.insert(name.clone(), on);
            }
        }
        Ok(Self { set })
    }

    /// Sets one gate.
    pub fn with(mut self, name: &str, on: bool) -> Self {
        self.set.insert(name.to_string(), on);
        self
    }

    /// What the cluster said of a gate, if anything.
    pub fn setting(&self, name: &str) -> Option<bool> {
        self.set.get(name).copied()
    }

    /// Whether a gate is on: the cluster's setting, else the known default,
    /// else (a gate kepspec does not know) on.
    pub fn enabled(&self, name: &str) -> bool {
        self.setting(name)
            .unwrap_or_else(|| gate(name).is_none_or(|g| g.default_on))
    }
}

/// The reason a scenario with these tags cannot run on a real cluster of
/// `server_version` with `gates`, or None when it can. Tags may be given
/// with or without their `@`. Not for the embedded cluster, which has every
/// gate and the fault injection.
pub fn skip_reason(
    scenario_tags: &[String],
    server_version: (u32, u32),
    gates: &FeatureGates,
) -> Option<String> {
    let version = Version::from(server_version);
    let tags: Vec<&str> = scenario_tags
        .iter()
        .map(|t| t.strip_prefix('@').unwrap_or(t))
        .collect();
    if tags.contains(&EMBEDDED_ONLY) {
        return Some("needs the embedded cluster's fault injection".into());
    }
    for name in tags.iter().filter_map(|t| t.strip_prefix(GATE_PREFIX)) {
        let known = gate(name);
        if let Some(g) = known.filter(|g| version < g.since) {
            return Some(format!(
                "needs Kubernetes {} or later for feature gate {name} ({}); the cluster runs {version}",
                g.since, g.why
            ));
        }
        if !gates.enabled(name) {
            let default = match known {
                Some(g) if !g.default_on && gates.setting(name).is_none() => {
                    " (off by default: enable it on the apiserver and kube-controller-manager)"
                }
                _ => "",
            };
            return Some(format!(
                "needs feature gate {name}, which is off on this cluster{default}"
            ));
        }
    }
    None
}

/// What a run knows of its cluster, for [`crate::target::Profile::skip_reason`].
#[derive(Clone, Debug)]
pub struct ClusterFacts {
    /// The embedded cluster (every gate on, fault injection available).
    pub embedded: bool,
    /// The served Kubernetes version.
    pub version: Version,
    /// The cluster's feature gates, as far as known.
    pub gates: FeatureGates,
}

/// A kind configuration with the `featureGates` the node version does not
/// know removed (components refuse to start on an unknown gate), so one
/// configuration serves every node image of a CI matrix. Other content is
/// kept as parsed YAML (comments are dropped).
pub fn kind_config_for(config_yaml: &str, node_version: Version) -> Result<String, String> {
    let mut config: serde_json::Value =
        serde_yaml_ng::from_str(config_yaml).map_err(|e| format!("kind config: {e}"))?;
    if let Some(gates) = config
        .get_mut("featureGates")
        .and_then(serde_json::Value::as_object_mut)
    {
        gates.retain(|name, _| gate(name).is_none_or(|g| node_version >= g.since));
        if gates.is_empty() {
            if let Some(obj) = config.as_object_mut() {
                obj.remove("featureGates");
            }
        }
    }
    serde_yaml_ng::to_string(&config).map_err(|e| format!("kind config: {e}"))
}
