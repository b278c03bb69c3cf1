//! The target profile file: what it says, how it is read and checked, and
//! what a run asks of it.
//!
//! ```yaml
//! apiVersion: kepspec.io/v1alpha1
//! kind: TargetProfile
//! metadata:
//!   name: my-controller                 # a DNS label
//!   description: optional, one line
//! spec:
//!   resource: {group: example.com, version: v1, kind: StatefulSet, plural: statefulsets}
//!   install:                            # argv lists, run in order on a real cluster
//!     - [kubectl, --kubeconfig, "${KUBECONFIG}", apply, -f, "${ROOT}/deploy.yaml"]
//!   ready:                              # run after install, must succeed in time
//!     command: [kubectl, --kubeconfig, "${KUBECONFIG}", -n, x, rollout, status, deploy/x]
//!     timeoutSeconds: 240
//!   supports:
//!     tags: "@base and not @validation" # the scenarios claimed (default: all)
//!     exclude:                          # claimed tags, but not these scenarios
//!       - {scenario: "^OrderedReady with", reason: "maxUnavailable needs Parallel"}
//!   reasons: {RecreateComplete: RecreateCompleted}   # spec reason -> target's word
//!   deviations: []                      # where the target differs, see deviation.rs
//!   fields: {}                          # spec path -> target path, see FieldMap
//!   standIn:                            # how it is stood in for on the embedded cluster
//!     crds: [../crds/x.yaml]            #   CRDs serving a vendor resource
//!     behaveAs: upstream-v1.37          #   the bundled controller mimics this implementation
//!     only: false                       #   true: a stand-in and nothing else (embedded cluster only)
//!   kindConfig: ../kind/upstream.yaml   # --cluster kind
//! ```
//!
//! Relative paths in a profile are relative to the profile file's folder; a
//! file that is not on disk is read from the spec bundled in the binary
//! (`crate::bundle`), so the shipped profiles work from any folder.
//! In commands, `${KUBECONFIG}` is the kubeconfig of the cluster under test
//! and `${ROOT}` the project root; kepspec substitutes them itself (no shell
//! runs), and any other `${...}` is an error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use cucumber::gherkin::tagexpr::TagOperation;
use cucumber::tag::Ext as _;
use kube::core::GroupVersionKind;
use kube::discovery::ApiResource;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::ProfileError;
use super::facts::ClusterFacts;
use super::fields::FieldMap;

/// `apiVersion` of a profile file.
pub(crate) const API_VERSION: &str = "kepspec.io/v1alpha1";
/// `kind` of a profile file.
pub(crate) const KIND: &str = "TargetProfile";
/// The kind config used when a profile names none.
pub(crate) const DEFAULT_KIND_CONFIG: &str = "clusters/kind/upstream.yaml";
/// Tags of scenarios written for one vendor's own API, each with the API
/// group a target must serve to run them (`features/vendors/<vendor>/`).
pub(crate) const VENDOR_TAGS: &[(&str, &str, &str)] = &[(
    "kruise",
    "apps.kruise.io",
    "OpenKruise Advanced StatefulSet",
)];

/// The tag of scenarios that pin down a documented limitation.
pub(crate) const LIMITATION: &str = "limitation";
/// The placeholders commands may use.
pub(crate) const PLACEHOLDERS: [&str; 2] = ["KUBECONFIG", "ROOT"];

/// A target profile: the implementation under test.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Profile {
    /// Must be [`API_VERSION`].
    pub api_version: String,
    /// Must be [`KIND`].
    pub kind: String,
    /// The profile's name.
    pub metadata: Metadata,
    /// What the target is and claims.
    pub spec: ProfileSpec,
    /// The file it was read from (None for the built-in profiles).
    #[serde(skip)]
    pub source: Option<PathBuf>,
    /// `spec.fields`, checked.
    #[serde(skip)]
    pub(super) fields: FieldMap,
    /// `spec.supports.tags`, parsed.
    #[serde(skip)]
    pub(super) selection: Option<TagOperation>,
    /// `spec.supports.exclude`, compiled.
    #[serde(skip)]
    pub(super) exclusions: Vec<(regex::Regex, String)>,
    /// `spec.deviations`, checked.
    #[serde(skip)]
    pub(super) deviations: super::deviation::Deviations,
}

/// `metadata`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Metadata {
    /// A DNS label, used in reports (`openkruise-advanced-statefulset`).
    pub name: String,
    /// One line for humans.
    #[serde(default)]
    pub description: Option<String>,
}

/// `spec`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ProfileSpec {
    /// The set resource the target reconciles.
    pub resource: ResourceRef,
    /// Commands that install the target on a real cluster, in order.
    #[serde(default)]
    pub install: Vec<Vec<String>>,
    /// The command that waits until the target is ready.
    #[serde(default)]
    pub ready: Option<ReadyCheck>,
    /// The scenarios the target claims.
    #[serde(default)]
    pub supports: Supports,
    /// Condition and event reasons: the spec's word -> the target's (each
    /// use is reported as a deviation).
    #[serde(default)]
    pub reasons: BTreeMap<String, String>,
    /// Where the target knowingly differs from the spec, with evidence.
    #[serde(default)]
    pub deviations: Vec<super::deviation::Deviation>,
    /// Field paths: the spec's (apps/v1) -> the target's. See [`FieldMap`].
    #[serde(default)]
    pub fields: BTreeMap<String, String>,
    /// How the bundled controller stands in on the embedded cluster.
    #[serde(default)]
    pub stand_in: Option<StandIn>,
    /// The kind cluster configuration for `--cluster kind`.
    #[serde(default)]
    pub kind_config: Option<PathBuf>,
}

/// `spec.resource`: group, version, kind and plural of the set resource.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ResourceRef {
    /// API group (`apps.kruise.io`; `apps` for StatefulSet).
    pub group: String,
    /// Version (`v1beta1`).
    pub version: String,
    /// Kind (`StatefulSet`).
    pub kind: String,
    /// Plural resource name (`statefulsets`).
    pub plural: String,
}

/// `spec.ready`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReadyCheck {
    /// The command (argv), e.g. `kubectl rollout status`.
    pub command: Vec<String>,
    /// How long it may take (default 300).
    #[serde(default = "default_ready_timeout")]
    pub timeout_seconds: u64,
}

fn default_ready_timeout() -> u64 {
    300
}

impl ReadyCheck {
    /// [`Self::timeout_seconds`] as a duration.
    pub fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout_seconds)
    }
}

/// `spec.supports`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Supports {
    /// A tag expression of the scenarios claimed (None: all).
    #[serde(default)]
    pub tags: Option<String>,
    /// Scenarios the tags select but the target does not claim.
    #[serde(default)]
    pub exclude: Vec<Exclusion>,
    /// Whether the target claims the scenarios that pin down a documented
    /// limitation (`@limitation`, e.g. kubernetes #67250) rather than a
    /// guarantee; a target that fixed the limitation would fail them.
    #[serde(default)]
    pub limitations: bool,
}

/// One entry of `spec.supports.exclude`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Exclusion {
    /// A regex matched against the scenario's name.
    pub scenario: String,
    /// Why the target does not claim it (shown in the report).
    pub reason: String,
}

/// `spec.standIn`: how the target is stood in for on the embedded cluster.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StandIn {
    /// CustomResourceDefinition manifests serving a vendor resource.
    #[serde(default)]
    pub crds: Vec<PathBuf>,
    /// The implementation the bundled controller (and the embedded
    /// apiserver's StatefulSet rules) behave as, e.g. `upstream-v1.37`.
    #[serde(default)]
    pub behave_as: Option<String>,
    /// The target exists only as this stand-in (no released implementation
    /// behaves so): it runs on the embedded cluster and nowhere else.
    #[serde(default)]
    pub only: bool,
}

fn strip_at(tag: &str) -> &str {
    tag.strip_prefix('@').unwrap_or(tag)
}

impl Profile {
    /// Reads and checks a profile file.
    pub fn load(path: &Path) -> Result<Profile, ProfileError> {
        let text = crate::bundle::read_to_string(path)
            .map_err(|e| ProfileError::file(path, format!("cannot read: {e}")))?;
        Self::parse(text.strip_prefix('\u{feff}').unwrap_or(&text), path)
    }

    /// Parses and checks profile text; `file` names it in errors.
    pub fn parse(text: &str, file: &Path) -> Result<Profile, ProfileError> {
        let mut profile: Profile =
            crate::yaml::from_str(text).map_err(|e| ProfileError::yaml(file, &e))?;
        profile.source = Some(file.to_path_buf());
        profile.check(file)?;
        Ok(profile)
    }

    /// `metadata.description`, or the resource it reconciles when there is
    /// none.
    pub fn spec_description(&self) -> String {
        match &self.metadata.description {
            Some(d) if !d.trim().is_empty() => d.trim().to_string(),
            _ => format!(
                "the controller of {}/{} {}",
                self.spec.resource.group, self.spec.resource.version, self.spec.resource.kind
            ),
        }
    }

    /// `metadata.name`.
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    /// The set resource, for the recorder (`SetKind`), the scenario's API
    /// calls and the bundled controller's `ControllerOptions::resource`.
    pub fn api_resource(&self) -> ApiResource {
        let r = &self.spec.resource;
        let gvk = GroupVersionKind::gvk(&r.group, &r.version, &r.kind);
        ApiResource::from_gvk_with_plural(&gvk, &r.plural)
    }

    /// Whether the resource is apps/v1 StatefulSet, served by kube-apiserver
    /// itself, so the server's version and feature gates decide what it accepts.
    pub fn is_apps_v1(&self) -> bool {
        let r = &self.spec.resource;
        r.group == "apps" && r.version == "v1" && r.kind == "StatefulSet"
    }

    /// The tag expression of the scenarios claimed (None: all).
    pub fn selection(&self) -> Option<&str> {
        self.spec.supports.tags.as_deref()
    }

    /// The claim combined with the user's `--tags`, for `Selection::new`:
    /// both must hold.
    pub fn selection_with(&self, user_tags: Option<&str>) -> Option<String> {
        match (self.selection(), user_tags) {
            (None, None) => None,
            (Some(p), None) => Some(p.to_string()),
            (None, Some(u)) => Some(u.to_string()),
            (Some(p), Some(u)) => Some(format!("({p}) and ({u})")),
        }
    }

    /// Whether the claim's tag expression selects a scenario with these
    /// tags (inherited tags included; with or without `@`).
    pub fn claims_tags(&self, tags: &[String]) -> bool {
        self.selection
            .as_ref()
            .is_none_or(|op| op.eval(tags.iter().map(|t| strip_at(t))))
    }

    /// Why the target does not claim this scenario although its tags are
    /// claimed (`spec.supports.exclude`), or None.
    pub fn exclusion(&self, scenario_name: &str) -> Option<&str> {
        self.exclusions
            .iter()
            .find(|(re, _)| re.is_match(scenario_name))
            .map(|(_, reason)| reason.as_str())
    }

    /// The reason a scenario is reported as skipped on this target and
    /// cluster, or None when it runs: an `exclude` entry first, then what
    /// the cluster can do (fault injection, clusters of their own), then,
    /// for apps/v1, the version and gates of the cluster. A vendor resource
    /// served by a CRD is not held to upstream's gates (the vendor's
    /// controller implements it), and `@isolated` scenarios, which stage
    /// apps/v1 components, do not exercise it.
    pub fn skip_reason(
        &self,
        scenario_name: &str,
        tags: &[String],
        cluster: &ClusterFacts,
    ) -> Option<String> {
        if let Some(reason) = self.exclusion(scenario_name) {
            return Some(format!("not claimed by target {}: {reason}", self.name()));
        }
        if let Some((tag, group, vendor)) = VENDOR_TAGS
            .iter()
            .find(|(tag, _, _)| tags.iter().any(|t| strip_at(t) == *tag))
            .filter(|(_, group, _)| *group != self.spec.resource.group)
        {
            return Some(format!(
                "written for {vendor}'s own API (@{tag}, group {group}); target {} serves {}",
                self.name(),
                self.api_resource().api_version
            ));
        }
        let cluster_skip = if self.is_apps_v1() {
            cluster.skip(tags)
        } else {
            cluster.capability_skip(tags)
        };
        if cluster_skip.is_some() {
            return cluster_skip;
        }
        if let Some(reason) = self.deviations.skip(tags, self.name()) {
            return Some(reason);
        }
        if !self.spec.supports.limitations && tags.iter().any(|t| strip_at(t) == LIMITATION) {
            return Some(format!(
                "documents a known limitation (@limitation), not a guarantee; target {} does not claim limitations (spec.supports.limitations)",
                self.name()
            ));
        }
        if self.is_apps_v1() {
            return None;
        }
        tags.iter()
            .any(|t| strip_at(t) == super::facts::ISOLATED)
            .then(|| {
                format!(
                    "stages apps/v1 StatefulSet components (@isolated), not the resource of target {}",
                    self.name()
                )
            })
    }

    /// The target's word for a condition or event reason of the spec.
    pub fn reason(&self, spec_reason: &str) -> String {
        self.spec
            .reasons
            .get(spec_reason)
            .cloned()
            .unwrap_or_else(|| spec_reason.to_string())
    }

    /// The declared deviations.
    pub fn deviations(&self) -> &super::deviation::Deviations {
        &self.deviations
    }

    /// The implementation the stand-in behaves as (None: the KEPs).
    pub fn behave_as(&self) -> Option<&str> {
        self.spec
            .stand_in
            .as_ref()
            .and_then(|s| s.behave_as.as_deref())
    }

    /// Whether the target is only a stand-in (`spec.standIn.only`).
    pub fn stand_in_only(&self) -> bool {
        self.spec.stand_in.as_ref().is_some_and(|s| s.only)
    }

    /// The checked field mapping.
    pub fn fields(&self) -> &FieldMap {
        &self.fields
    }

    /// A set object or patch of the spec's apps/v1 shape, as the target
    /// takes it: `apiVersion`/`kind` replaced when present, fields moved.
    pub fn to_target(&self, mut obj: Value) -> Value {
        if let Some(map) = obj.as_object_mut() {
            let r = self.api_resource();
            if map.contains_key("apiVersion") {
                map.insert("apiVersion".into(), Value::from(r.api_version));
            }
            if map.contains_key("kind") {
                map.insert("kind".into(), Value::from(r.kind));
            }
        }
        self.fields.to_target(&mut obj);
        obj
    }

    /// A set object of the target's shape with its fields moved back to the
    /// spec's paths (apiVersion and kind are left as served).
    pub fn from_target(&self, mut obj: Value) -> Value {
        self.fields.from_target(&mut obj);
        obj
    }
}
