//! What the spec asks for: a usable selector and the effective update
//! strategy once the controller gates are applied.

use k8s_openapi::api::apps::v1::StatefulSet;

use super::super::pods;
use super::{rolling, ControllerGates, PlanError};

/// The effective update strategy after the controller gates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Strategy {
    RollingUpdate {
        partition: i32,
        max_unavailable: Option<i32>,
    },
    OnDelete,
    Recreate,
    /// The KEP-3541 draft's EnforcedRollingUpdate (gate on).
    EnforcedRollingUpdate {
        partition: i32,
    },
}
pub(super) fn check_selector(set: &StatefulSet, name: &str) -> Result<(), PlanError> {
    let selector = &set.spec.selector;
    let labels = set
        .spec
        .template
        .metadata
        .as_ref()
        .and_then(|m| m.labels.clone())
        .unwrap_or_default();
    let match_labels = selector.match_labels.clone().unwrap_or_default();
    let expressions = selector.match_expressions.clone().unwrap_or_default();
    if match_labels.is_empty() && expressions.is_empty() {
        return Err(PlanError::EmptySelector(name.to_string()));
    }
    let mut matches = match_labels.iter().all(|(k, v)| labels.get(k) == Some(v));
    for req in &expressions {
        let values = req.values.clone().unwrap_or_default();
        let value = labels.get(&req.key);
        let ok = match req.operator.as_str() {
            "In" => value.is_some_and(|v| values.contains(v)),
            "NotIn" => value.is_none_or(|v| !values.contains(v)),
            "Exists" => value.is_some(),
            "DoesNotExist" => value.is_none(),
            other => {
                return Err(PlanError::InvalidSelector {
                    set: name.to_string(),
                    message: format!("{other:?} is not a valid label selector operator"),
                })
            }
        };
        matches &= ok;
    }
    if matches {
        Ok(())
    } else {
        Err(PlanError::SelectorMismatch(name.to_string()))
    }
}

pub(super) fn strategy(
    set: &StatefulSet,
    raw: &serde_json::Value,
    gates: &ControllerGates,
    kruise: bool,
    name: &str,
) -> Result<Strategy, PlanError> {
    let update = set.spec.update_strategy.clone().unwrap_or_default();
    let rolling = update.rolling_update.clone().unwrap_or_default();
    let fallback = |max_unavailable_field| -> Result<Strategy, PlanError> {
        // Advanced StatefulSet always honours maxUnavailable (no gate).
        let max_unavailable = if gates.max_unavailable_statefulset || kruise {
            Some(
                rolling::max_unavailable(max_unavailable_field, pods::spec_replicas(set)).map_err(
                    |message| PlanError::InvalidMaxUnavailable {
                        set: name.to_string(),
                        message,
                    },
                )?,
            )
        } else {
            None
        };
        Ok(Strategy::RollingUpdate {
            partition: rolling.partition.unwrap_or(0).max(0),
            max_unavailable,
        })
    };
    match update.type_.as_deref() {
        Some("OnDelete") => Ok(Strategy::OnDelete),
        Some("Recreate") if gates.statefulset_recreate_strategy => Ok(Strategy::Recreate),
        // Recreate with the gate off: RollingUpdate, partition 0, maxUnavailable 1.
        Some("Recreate") => fallback(None),
        Some(super::enforced::TYPE) if gates.enforced_rolling_update_in_statefulset => {
            Ok(Strategy::EnforcedRollingUpdate {
                partition: super::enforced::partition(raw),
            })
        }
        // Any other type, EnforcedRollingUpdate with its gate off included,
        // is RollingUpdate, as upstream's controller treats every type but
        // OnDelete (stateful_set_control.go).
        _ => fallback(rolling.max_unavailable.as_ref()),
    }
}
