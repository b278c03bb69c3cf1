//! Kubernetes releases and feature gates: which release a cluster runs and
//! which gates it has on, with each gate's default per release and the
//! source of that default.

use std::collections::BTreeMap;
use std::fmt;

use k8s_openapi::apimachinery::pkg::version::Info;
/// A Kubernetes version, `major.minor` with the patch when known.
#[derive(Clone, Copy, Debug)]
pub struct Version {
    /// `1`.
    pub major: u32,
    /// `37`.
    pub minor: u32,
    /// `4` in v1.36.4; None when only `major.minor` is known (compared as 0).
    pub patch: Option<u32>,
}

impl Version {
    /// `major.minor`, patch unknown.
    pub const fn new(major: u32, minor: u32) -> Self {
        Self {
            major,
            minor,
            patch: None,
        }
    }

    /// `major.minor.patch`.
    pub const fn patch(major: u32, minor: u32, patch: u32) -> Self {
        Self {
            major,
            minor,
            patch: Some(patch),
        }
    }

    fn key(&self) -> (u32, u32, u32) {
        (self.major, self.minor, self.patch.unwrap_or(0))
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
        let patch = parts.next().and_then(leading_number);
        Ok(Self {
            major,
            minor,
            patch,
        })
    }

    /// The version a server serves its API as: the emulated version when the
    /// server emulates an older one (v1.33+), else `gitVersion` (which has
    /// the patch), else `major`/`minor` (which may read `35+` on managed
    /// clusters).
    pub fn of_server(info: &Info) -> Result<Self, String> {
        let git = Self::parse(&info.git_version).ok();
        if let (Some(major), Some(minor)) = (&info.emulation_major, &info.emulation_minor) {
            if let Ok(v) = Self::parse(&format!("{major}.{minor}")) {
                // The patch of the binary belongs to the emulated minor only
                // when they are the same release.
                return Ok(match git {
                    Some(g) if (g.major, g.minor) == (v.major, v.minor) => g,
                    _ => v,
                });
            }
        }
        git.ok_or(())
            .or_else(|()| Self::parse(&format!("{}.{}", info.major, info.minor)))
    }

    /// The Kubernetes version of a kind node image, from its tag:
    /// `kindest/node:v1.36.4@sha256:...` is v1.36.4. None without a tag.
    pub fn of_node_image(image: &str) -> Option<Self> {
        let name = image.split('@').next().unwrap_or(image);
        let (_, tag) = name.rsplit_once(':')?;
        if tag.contains('/') {
            return None;
        }
        Self::parse(tag).ok()
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Version {}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

impl From<(u32, u32)> for Version {
    fn from((major, minor): (u32, u32)) -> Self {
        Self::new(major, minor)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.patch {
            Some(p) => write!(f, "v{}.{}.{p}", self.major, self.minor),
            None => write!(f, "v{}.{}", self.major, self.minor),
        }
    }
}

fn leading_number(s: &str) -> Option<u32> {
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// A stretch of releases over which a gate has one stage and default.
#[derive(Clone, Copy, Debug)]
pub struct Span {
    /// The first release of the stretch (it lasts until the next span's).
    pub from: Version,
    /// `ALPHA`, `BETA` or `GA`, as `kubernetes_feature_enabled` labels it.
    pub stage: &'static str,
    /// Whether the gate is on when nothing sets it.
    pub default_on: bool,
    /// Where this is stated.
    pub source: &'static str,
}

/// What kepspec knows of one feature gate across releases.
#[derive(Clone, Copy, Debug)]
pub struct Gate {
    /// The gate's name.
    pub name: &'static str,
    /// Its history, oldest first; before the first span it does not exist.
    pub spans: &'static [Span],
    /// The first release whose behaviour the spec's scenarios of this gate
    /// encode (a scenario needing the gate is skipped before it), with why.
    pub spec_since: (Version, &'static str),
}

impl Gate {
    /// The span in force at `v`, or None before the gate existed.
    pub fn at(&self, v: Version) -> Option<&Span> {
        self.spans.iter().rev().find(|s| s.from <= v)
    }
}

/// The gates the spec's tags name, with their histories.
///
/// Sources: the kubernetes/website feature-gate pages and the kubernetes
/// PRs named in each span (source `calibration-facts` in spec/sources.yaml).
pub const GATES: &[Gate] = &[
    Gate {
        name: "StatefulSetRecreateStrategy",
        spans: &[Span {
            from: Version::patch(1, 37, 0),
            stage: "ALPHA",
            default_on: false,
            source: "KEP-3541 alpha in v1.37 (kubernetes PR #137187)",
        }],
        spec_since: (Version::patch(1, 37, 0), "KEP-3541 alpha, PR #137187"),
    },
    Gate {
        name: "MaxUnavailableStatefulSet",
        spans: &[
            Span {
                from: Version::patch(1, 24, 0),
                stage: "ALPHA",
                default_on: false,
                source: "KEP-961 alpha in v1.24",
            },
            Span {
                from: Version::patch(1, 35, 0),
                stage: "BETA",
                default_on: true,
                source: "KEP-961 beta, on by default in v1.35.0 (kubernetes PR #133153)",
            },
            Span {
                from: Version::patch(1, 35, 4),
                stage: "BETA",
                default_on: false,
                source: "off by default after regression #137409 (PR #137904, cherry-picked to v1.35.4 as #137926)",
            },
            Span {
                from: Version::patch(1, 37, 0),
                stage: "BETA",
                default_on: true,
                source: "on by default again in v1.37 after fix #137666 (PR #139466)",
            },
        ],
        spec_since: (
            Version::patch(1, 35, 0),
            "KEP-961 beta, the behaviour the spec encodes",
        ),
    },
];

/// The gate named `name`, if kepspec knows it.
pub fn gate(name: &str) -> Option<&'static Gate> {
    GATES.iter().find(|g| g.name == name)
}

/// Where a gate's setting came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GateSource {
    /// Said by the user (`--feature-gates`) or the run that configured the
    /// cluster (kepspec's own kind run).
    Given(String),
    /// Read from the cluster (`kubernetes_feature_enabled` on `/metrics`).
    Cluster,
    /// The release's default, from [`GATES`].
    Default(&'static str),
}

impl fmt::Display for GateSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GateSource::Given(by) => write!(f, "set by {by}"),
            GateSource::Cluster => f.write_str("read from kube-apiserver's /metrics"),
            GateSource::Default(why) => write!(f, "release default: {why}"),
        }
    }
}

/// The feature gates of a cluster, as far as kepspec is told or can read;
/// gates not mentioned take their release's defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeatureGates {
    set: BTreeMap<String, (bool, GateSource)>,
}

impl FeatureGates {
    /// Parses `--feature-gates` text: `A=true,B=false`.
    pub fn parse(spec: &str) -> Result<Self, String> {
        Self::parse_from(spec, "--feature-gates")
    }

    /// Parses `A=true,B=false`, each gate noted as set by `by`.
    pub fn parse_from(spec: &str, by: &str) -> Result<Self, String> {
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
            set.insert(
                name.trim().to_string(),
                (value, GateSource::Given(by.to_string())),
            );
        }
        Ok(Self { set })
    }

    /// The `featureGates` of a kind cluster configuration.
    pub fn from_kind_config(yaml: &str) -> Result<Self, String> {
        let config: serde_json::Value =
            crate::yaml::from_str(yaml).map_err(|e| format!("kind config: {e}"))?;
        let mut set = BTreeMap::new();
        if let Some(gates) = config.get("featureGates") {
            let gates = gates
                .as_object()
                .ok_or("kind config: featureGates is not a mapping")?;
            for (name, value) in gates {
                let on = value.as_bool().ok_or_else(|| {
                    format!("kind config: featureGates.{name} is not true or false")
                })?;
                set.insert(
                    name.clone(),
                    (on, GateSource::Given("the kind config".into())),
                );
            }
        }
        Ok(Self { set })
    }

    /// The gates kube-apiserver reports on `/metrics` as
    /// `kubernetes_feature_enabled{name="X",stage="BETA"} 1` (component-base
    /// `metrics/prometheus/feature`, served since v1.26).
    pub fn from_metrics(text: &str) -> Self {
        let mut set = BTreeMap::new();
        for line in text.lines() {
            let Some(rest) = line.strip_prefix("kubernetes_feature_enabled{") else {
                continue;
            };
            let Some((labels, value)) = rest.split_once('}') else {
                continue;
            };
            let name = labels.split(',').find_map(|l| {
                l.trim()
                    .strip_prefix("name=\"")
                    .and_then(|n| n.strip_suffix('"'))
            });
            let on = match value.trim() {
                "1" => true,
                "0" => false,
                _ => continue,
            };
            if let Some(name) = name {
                set.insert(name.to_string(), (on, GateSource::Cluster));
            }
        }
        Self { set }
    }

    /// Sets one gate (as given by `by`).
    pub fn with(mut self, name: &str, on: bool) -> Self {
        self.set.insert(
            name.to_string(),
            (on, GateSource::Given("the caller".into())),
        );
        self
    }

    /// These gates, overridden by `other`'s settings.
    pub fn overridden_by(mut self, other: &FeatureGates) -> Self {
        for (k, v) in &other.set {
            self.set.insert(k.clone(), v.clone());
        }
        self
    }

    /// Whether anything is known at all.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// What the cluster or user said of a gate, if anything.
    pub fn setting(&self, name: &str) -> Option<bool> {
        self.set.get(name).map(|(on, _)| *on)
    }

    /// Whether a gate is on at `version`, and why: a setting, else the
    /// release's default, else (a gate kepspec does not know) on.
    pub fn resolve(&self, name: &str, version: Version) -> (bool, GateSource) {
        if let Some((on, src)) = self.set.get(name) {
            return (*on, src.clone());
        }
        match gate(name).and_then(|g| g.at(version)) {
            Some(span) => (span.default_on, GateSource::Default(span.source)),
            None if gate(name).is_some() => (
                false,
                GateSource::Default("the gate does not exist in this release"),
            ),
            None => (true, GateSource::Default("a gate kepspec does not know")),
        }
    }

    /// Whether a gate is on at `version`.
    pub fn enabled_at(&self, name: &str, version: Version) -> bool {
        self.resolve(name, version).0
    }

    /// The settings as `A=true,B=false` (for a run's arguments).
    pub fn to_flag(&self) -> String {
        self.set
            .iter()
            .map(|(k, (on, _))| format!("{k}={on}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}
