//! The admission chain of the embedded API server: defaulting, the
//! feature-gate field dropping of the registry strategies, and validation,
//! with field errors worded like kube-apiserver's.
//!
//! What a request goes through, in upstream's order:
//! 1. defaults of the served version (`pkg/apis/apps/v1/defaults.go`,
//!    `pkg/apis/core/v1/defaults.go`) and of the mutating admission plugins
//!    that every cluster runs (ServiceAccount, Priority,
//!    DefaultTolerationSeconds);
//! 2. the registry strategy's `PrepareForCreate` / `PrepareForUpdate`: status
//!    is reset on create, and fields behind a disabled gate are dropped unless
//!    the stored object already uses them;
//! 3. validation (`pkg/apis/apps/validation`, `pkg/apis/core/validation`).
//!
//! Feature gates (KEP-3541 and KEP-961):
//! - `MaxUnavailableStatefulSet` off: a new `maxUnavailable` is silently
//!   dropped; one already stored is kept. On: `maxUnavailable` defaults to 1
//!   for `RollingUpdate`.
//! - `StatefulSetRecreateStrategy` off: creating a set with
//!   `type: Recreate`, or switching an existing set to it, is rejected. A set
//!   that already has `Recreate` stored stays as it is and may still be
//!   updated (KEP-3541 "Downgrade": objects stay stored; the controller falls
//!   back to RollingUpdate behaviour), and may be switched back to
//!   `RollingUpdate` or `OnDelete`.

mod common;
mod defaults;
pub(crate) mod enforced;
mod fielderr;
pub(crate) mod kruise;
pub(crate) mod meta;
mod pod;
pub(crate) mod quantity;
pub(crate) mod selector;
mod statefulset;

pub(crate) use fielderr::FieldError;

use kepspec_core::gating::{self, Version};

/// Feature gates of the API server that affect StatefulSet admission, and
/// the implementation whose StatefulSet rules it follows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiGates {
    /// KEP-3541 `StatefulSetRecreateStrategy`.
    pub statefulset_recreate_strategy: bool,
    /// KEP-961 `MaxUnavailableStatefulSet`.
    pub max_unavailable_statefulset: bool,
    /// The KEP-3541 draft's `EnforcedRollingUpdateInStatefulSet`: no
    /// release has it, so it is off unless a scenario turns it on.
    pub enforced_rolling_update_in_statefulset: bool,
    /// KEP-3541 as written, or upstream v1.37 where it differs (a
    /// StatefulSet may switch away from Recreate while the gate is alpha).
    pub implementation: kepspec_core::Implementation,
}

impl Default for ApiGates {
    /// Both gates on: what the spec exercises (the embedded cluster's
    /// default, like the kind configurations kepspec ships).
    fn default() -> Self {
        ApiGates {
            statefulset_recreate_strategy: true,
            max_unavailable_statefulset: true,
            enforced_rolling_update_in_statefulset: false,
            implementation: Default::default(),
        }
    }
}

impl ApiGates {
    /// The gates of a cluster of Kubernetes `version` set up for the spec:
    /// every gate the spec exercises is on where the release has it (as
    /// kepspec's kind configurations set them), off where it does not.
    pub fn for_version(version: Version) -> Self {
        let exists = |name: &str| gating::gate(name).is_some_and(|g| g.at(version).is_some());
        ApiGates {
            statefulset_recreate_strategy: exists("StatefulSetRecreateStrategy"),
            max_unavailable_statefulset: exists("MaxUnavailableStatefulSet"),
            enforced_rolling_update_in_statefulset: false,
            implementation: Default::default(),
        }
    }

    /// Parses a `--feature-gates` value such as
    /// `StatefulSetRecreateStrategy=false,MaxUnavailableStatefulSet=true`,
    /// starting from the defaults (both on). Errors are worded like
    /// component-base's flag parsing.
    pub fn parse(spec: &str) -> Result<Self, String> {
        Self::parse_for(spec, Version::patch(1, 37, 0))
    }

    /// Parses `--feature-gates` for a cluster of `version`, starting from
    /// [`Self::for_version`]; a gate the release does not have is refused
    /// as component-base refuses it.
    pub fn parse_for(spec: &str, version: Version) -> Result<Self, String> {
        let mut gates = ApiGates::for_version(version);
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| format!("missing bool value for {part}"))?;
            let (key, value) = (key.trim(), value.trim());
            let enabled = parse_go_bool(value)
                .ok_or_else(|| format!("invalid value of {key}={value}, err: strconv.ParseBool: parsing {value:?}: invalid syntax"))?;
            if gating::gate(key).is_some_and(|g| g.at(version).is_none()) {
                return Err(format!("unrecognized feature gate: {key}"));
            }
            match key {
                "StatefulSetRecreateStrategy" => gates.statefulset_recreate_strategy = enabled,
                "MaxUnavailableStatefulSet" => gates.max_unavailable_statefulset = enabled,
                kepspec_core::names::ENFORCED_GATE => {
                    gates.enforced_rolling_update_in_statefulset = enabled
                }
                other => return Err(format!("unrecognized feature gate: {other}")),
            }
        }
        Ok(gates)
    }

    /// The state of a gate by name (None for a gate this server has no
    /// setting of).
    pub fn enabled(&self, name: &str) -> Option<bool> {
        match name {
            "StatefulSetRecreateStrategy" => Some(self.statefulset_recreate_strategy),
            "MaxUnavailableStatefulSet" => Some(self.max_unavailable_statefulset),
            kepspec_core::names::ENFORCED_GATE => Some(self.enforced_rolling_update_in_statefulset),
            _ => None,
        }
    }

    /// `kubernetes_feature_enabled` lines for `/metrics`, as kube-apiserver
    /// serves them (component-base `metrics/prometheus/feature`): every gate
    /// the release has, with its stage.
    pub fn metrics(&self, version: Version) -> String {
        let mut out = String::from(
            "# HELP kubernetes_feature_enabled [BETA] This metric records the data about the stage and enablement of a k8s feature.\n# TYPE kubernetes_feature_enabled gauge\n",
        );
        for g in gating::GATES {
            let (Some(span), Some(on)) = (g.at(version), self.enabled(g.name)) else {
                continue;
            };
            out.push_str(&format!(
                "kubernetes_feature_enabled{{name=\"{}\",stage=\"{}\"}} {}\n",
                g.name,
                span.stage,
                u8::from(on)
            ));
        }
        out
    }
}

/// Go's `strconv.ParseBool`.
fn parse_go_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Some(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Some(false),
        _ => None,
    }
}

/// The operation being admitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Operation {
    /// A new object.
    Create,
    /// A change to an existing object.
    Update,
}

/// One admission request for the main resource (never a subresource).
pub(crate) struct AdmissionRequest<'a> {
    /// API group ("" for core).
    pub group: &'a str,
    /// Plural resource name, e.g. "statefulsets".
    pub resource: &'a str,
    /// Create or update.
    pub operation: Operation,
    /// The incoming object; defaults are applied in place.
    pub object: &'a mut serde_json::Value,
    /// The stored object on update.
    pub old_object: Option<&'a serde_json::Value>,
    /// Active API server gates.
    pub gates: &'a ApiGates,
}

/// One field error as it appears in `Status.details.causes`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FieldCause {
    /// The cause type: "FieldValueInvalid", "FieldValueNotSupported",
    /// "FieldValueRequired", "FieldValueForbidden", "FieldValueDuplicate".
    pub reason: String,
    /// The error without its field, e.g.
    /// `Unsupported value: "Recreate": supported values: "OnDelete", "RollingUpdate"`.
    pub message: String,
    /// The field path, e.g. `spec.updateStrategy.type`.
    pub field: String,
}

/// A rejected object: becomes a 422 `Invalid` Status.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Invalid {
    /// Kind, e.g. "StatefulSet".
    pub kind: String,
    /// API group, e.g. "apps" ("" for core).
    pub group: String,
    /// Object name.
    pub name: String,
    /// Field errors, in validation order.
    pub causes: Vec<FieldCause>,
}

impl Invalid {
    /// The Status message, as upstream's `NewInvalid`:
    /// `StatefulSet.apps "web" is invalid: <field>: <message>`; several
    /// distinct errors are joined by ", " and wrapped in `[...]`
    /// (duplicates dropped, like `ToAggregate`).
    pub(crate) fn message(&self) -> String {
        let qualified = if self.group.is_empty() {
            self.kind.clone()
        } else {
            format!("{}.{}", self.kind, self.group)
        };
        let mut parts: Vec<String> = Vec::new();
        for cause in &self.causes {
            let text = if cause.field.is_empty() {
                cause.message.clone()
            } else {
                format!("{}: {}", cause.field, cause.message)
            };
            if !parts.contains(&text) {
                parts.push(text);
            }
        }
        match parts.len() {
            0 => format!("{qualified} {} is invalid", fielderr::go_quote(&self.name)),
            1 => format!(
                "{qualified} {} is invalid: {}",
                fielderr::go_quote(&self.name),
                parts[0]
            ),
            _ => format!(
                "{qualified} {} is invalid: [{}]",
                fielderr::go_quote(&self.name),
                parts.join(", ")
            ),
        }
    }
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for Invalid {}

/// What is wrong with a pod's new ephemeral containers (see
/// [`pod::ephemeral_update_errors`]).
pub(crate) fn ephemeral_update_errors(
    new: &serde_json::Value,
    old: &serde_json::Value,
) -> Vec<FieldError> {
    pod::ephemeral_update_errors(new, old)
}

/// Applies defaults and the strategy's field dropping to `req.object` in
/// place, then validates it. Resources without rules pass unchanged.
pub(crate) fn admit(req: &mut AdmissionRequest<'_>) -> Result<(), Invalid> {
    if req.operation == Operation::Create && req.group.is_empty() {
        crate::storage_protection::admit_create(req.resource, req.object);
    }
    let errors = match (req.group, req.resource) {
        ("apps", "statefulsets") => statefulset::admit(req),
        ("", "pods") => pod::admit(req),
        ("", "persistentvolumeclaims") => {
            defaults::persistent_volume_claim(req.object, req.operation);
            common::persistent_volume_claim(req.object)
        }
        ("", "configmaps") => common::config_map(req.object),
        ("", "secrets") => common::secret(req.object),
        ("", "services") => common::service(req.object),
        ("", "events") => common::event(req.object),
        ("", "persistentvolumes") => {
            defaults::persistent_volume(req.object, req.operation);
            Vec::new()
        }
        _ => Vec::new(),
    };
    let mut errors = errors;
    errors.extend(common::annotations(req.object));
    if errors.is_empty() {
        return Ok(());
    }
    // The caller names the kind from the served resource.
    let (kind, group) = match (req.group, req.resource) {
        ("apps", "statefulsets") => ("StatefulSet", "apps"),
        ("", "pods") => ("Pod", ""),
        _ => ("", req.group),
    };
    Err(Invalid {
        kind: kind.to_string(),
        group: group.to_string(),
        name: meta::name(req.object).to_string(),
        causes: errors.iter().map(FieldError::to_cause).collect(),
    })
}

#[cfg(test)]
mod tests;
