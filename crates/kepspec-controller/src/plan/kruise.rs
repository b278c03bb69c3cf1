//! OpenKruise Advanced StatefulSet (`apps.kruise.io/v1beta1`): what the
//! stand-in does beyond apps/v1, read from the fields only that kind has.
//! Each behaviour follows `clusters/targets/openkruise-facts.md` (Kruise's
//! source, `pkg/controller/statefulset/stateful_set_control.go` unless
//! named); where the stand-in differs, docs/src/controller.md says so.
//!
//! - `reserveOrdinals`: the replica range skips them; a pod at a reserved
//!   ordinal is condemned (`getStatefulSetReplicasRange`, facts §3).
//! - `scaleStrategy.maxUnavailable` (Parallel): creation stops while that
//!   many pods are unavailable (`decreaseAndCheckMaxUnavailable`, facts §5).
//! - `rollingUpdate.paused`: the rolling update step is skipped; scaling and
//!   repairs go on (`rollingUpdateStatefulsetPods`, facts §2).
//! - the label `apps.kruise.io/specified-delete`: labelled pods are deleted
//!   within the `maxUnavailable` budget, partition or not
//!   (`handleSpecifiedDeletedPods`, facts §4).
//! - `unorderedUpdate.priorityStrategy`: the order of the rolling update
//!   (`sortPodsToUpdate`, `priority_sort.go`, facts §6).
//! - `lifecycle.preDelete`: a hooked pod is labelled `PreparingDelete` and
//!   kept until its hook labels and finalizers are gone (`deletePod`, §9).
//! - `podUpdatePolicy` in-place updates: see [`super::inplace`].

use kepspec_core::Lookup as _;
use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::Value;

use super::super::pods;
use super::{rolling, DeleteReason, Replica, SyncState};

/// The API group of Advanced StatefulSet.
pub use kepspec_core::names::KRUISE_GROUP as GROUP;
/// The label asking the controller to delete a pod within its budget.
pub const SPECIFIED_DELETE: &str = "apps.kruise.io/specified-delete";
/// The lifecycle state label.
pub const LIFECYCLE_STATE: &str = "lifecycle.apps.kruise.io/state";
/// The lifecycle state of a pod whose deletion waits for its hook.
pub const PREPARING_DELETE: &str = "PreparingDelete";

/// A lifecycle hook: the labels and finalizers that hold a pod.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Hook {
    /// `labelsHandler`: key and value that must both match.
    pub labels: BTreeMap<String, String>,
    /// `finalizersHandler`.
    pub finalizers: Vec<String>,
}

impl Hook {
    fn of(value: Option<&Value>) -> Option<Hook> {
        let value = value?;
        let labels = string_map(value.get("labelsHandler"));
        let finalizers = value
            .get("finalizersHandler")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|f| f.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        Some(Hook { labels, finalizers })
    }

    /// `IsPodHooked`: any handler label or finalizer is on the pod.
    pub(super) fn holds(&self, pod: &Pod) -> bool {
        let labels = pod.metadata.labels.clone().unwrap_or_default();
        let finalizers = pod.metadata.finalizers.clone().unwrap_or_default();
        self.labels.iter().any(|(k, v)| labels.get(k) == Some(v))
            || self.finalizers.iter().any(|f| finalizers.contains(f))
    }
}

/// `unorderedUpdate.priorityStrategy`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Priority {
    /// `weightPriority`: (weight, matchLabels) terms; a pod's weight is the
    /// sum of the terms it matches; higher first.
    Weight(Vec<(i64, BTreeMap<String, String>)>),
    /// `orderPriority`: label keys; the first a pod has sets its level
    /// (lower first), then the larger trailing number of its value first.
    Order(Vec<String>),
}

/// The Advanced StatefulSet fields the stand-in acts on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Kruise {
    /// `spec.updateStrategy.rollingUpdate.paused`.
    pub paused: bool,
    /// `spec.reserveOrdinals`.
    pub reserved: ReservedOrdinals,
    /// `spec.scaleStrategy.maxUnavailable`.
    pub scale_max_unavailable: Option<IntOrString>,
    /// `spec.updateStrategy.rollingUpdate.unorderedUpdate.priorityStrategy`.
    pub priority: Option<Priority>,
    /// `spec.lifecycle.preDelete`.
    pub pre_delete: Option<Hook>,
    /// `spec.updateStrategy.rollingUpdate.podUpdatePolicy` (default ReCreate).
    pub pod_update_policy: String,
    /// `spec.updateStrategy.rollingUpdate.inPlaceUpdateStrategy.gracePeriodSeconds`.
    pub grace_seconds: i64,
}

/// Whether a served object is an Advanced StatefulSet.
pub fn is_kruise(raw: &Value) -> bool {
    raw.get("apiVersion")
        .and_then(Value::as_str)
        .and_then(|v| v.split_once('/'))
        .is_some_and(|(group, _)| group == GROUP)
}

impl Kruise {
    /// The fields of an Advanced StatefulSet; `None` for any other kind.
    pub(super) fn of(raw: &Value) -> Option<Kruise> {
        if !is_kruise(raw) {
            return None;
        }
        let rolling = raw.lookup("/spec/updateStrategy/rollingUpdate");
        let at = |path: &str| rolling.and_then(|r| r.lookup(path));
        Some(Kruise {
            paused: at("/paused").and_then(Value::as_bool).unwrap_or(false),
            reserved: ReservedOrdinals::of(raw.lookup("/spec/reserveOrdinals")),
            scale_max_unavailable: raw
                .lookup("/spec/scaleStrategy/maxUnavailable")
                .and_then(|v| serde_json::from_value(v.clone()).ok()),
            priority: priority(at("/unorderedUpdate/priorityStrategy")),
            pre_delete: Hook::of(raw.lookup("/spec/lifecycle/preDelete")),
            pod_update_policy: at("/podUpdatePolicy")
                .and_then(Value::as_str)
                .unwrap_or("ReCreate")
                .to_string(),
            grace_seconds: at("/inPlaceUpdateStrategy/gracePeriodSeconds")
                .and_then(Value::as_i64)
                .unwrap_or(0)
                .max(0),
        })
    }
}

/// `reserveOrdinals`: integers and `"a-b"` ranges (Kruise ≥ 1.7.5), kept
/// as inclusive ranges, so that a wide range costs no more than a number.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReservedOrdinals(Vec<(i32, i32)>);

impl ReservedOrdinals {
    /// The reserved ordinals of a `reserveOrdinals` value; items that are
    /// neither an int32 nor an `"a-b"` range of them are left out.
    pub fn of(value: Option<&Value>) -> Self {
        let mut ranges = Vec::new();
        for item in value.and_then(Value::as_array).into_iter().flatten() {
            if let Some(n) = item.as_i64().and_then(|n| i32::try_from(n).ok()) {
                ranges.push((n, n));
            } else if let Some((a, b)) = item.as_str().and_then(|s| s.split_once('-')) {
                if let (Ok(a), Ok(b)) = (a.trim().parse::<i32>(), b.trim().parse::<i32>()) {
                    ranges.push((a, b));
                }
            }
        }
        Self(ranges)
    }

    /// No ordinal is reserved.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|(a, b)| a > b)
    }

    /// Whether `ordinal` is reserved.
    pub fn contains(&self, ordinal: i32) -> bool {
        self.0.iter().any(|&(a, b)| a <= ordinal && ordinal <= b)
    }

    /// The ordinals of `replicas` replicas: from `start` up, skipping the
    /// reserved ones (a range at a time), none beyond `i32::MAX`, the
    /// largest ordinal a pod name can carry.
    pub fn replicas(&self, start: i32, replicas: i32) -> Vec<i32> {
        let want = usize::try_from(replicas).unwrap_or(0);
        let mut out = Vec::new();
        let mut next = Some(start);
        while let Some(ordinal) = next.filter(|_| out.len() < want) {
            let skip_to = self
                .0
                .iter()
                .filter(|&&(a, b)| a <= ordinal && ordinal <= b)
                .map(|&(_, b)| b)
                .max();
            next = match skip_to {
                Some(end) => end.checked_add(1),
                None => {
                    out.push(ordinal);
                    ordinal.checked_add(1)
                }
            };
        }
        out
    }
}

/// A JSON object of strings (label selectors and handlers); other values
/// are left out.
fn string_map(value: Option<&Value>) -> BTreeMap<String, String> {
    value
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

fn priority(value: Option<&Value>) -> Option<Priority> {
    let value = value?;
    if let Some(terms) = value.get("weightPriority").and_then(Value::as_array) {
        let terms = terms
            .iter()
            .map(|t| {
                let weight = t.get("weight").and_then(Value::as_i64).unwrap_or(0);
                (weight, string_map(t.lookup("/matchSelector/matchLabels")))
            })
            .collect();
        return Some(Priority::Weight(terms));
    }
    let keys = value.get("orderPriority").and_then(Value::as_array)?;
    Some(Priority::Order(
        keys.iter()
            .filter_map(|k| {
                k.get("orderedKey")
                    .and_then(Value::as_str)
                    .map(String::from)
            })
            .collect(),
    ))
}

impl Priority {
    /// Sorts pods to update, highest priority first; ties keep the order
    /// given (highest ordinal first), as Kruise's stable sort does.
    pub(super) fn sort(&self, pods: &mut [&Replica<'_>]) {
        match self {
            Priority::Weight(terms) => {
                let weight = |r: &Replica<'_>| -> i64 {
                    let labels = r.pod.metadata.labels.clone().unwrap_or_default();
                    terms
                        .iter()
                        .filter(|(_, sel)| sel.iter().all(|(k, v)| labels.get(k) == Some(v)))
                        .map(|(w, _)| *w)
                        .sum()
                };
                pods.sort_by_key(|r| std::cmp::Reverse(weight(r)));
            }
            Priority::Order(keys) => {
                let rank = |r: &Replica<'_>| -> (i64, std::cmp::Reverse<i64>) {
                    let labels = r.pod.metadata.labels.clone().unwrap_or_default();
                    for (level, key) in keys.iter().enumerate() {
                        if let Some(value) = labels.get(key) {
                            return (
                                i64::try_from(level).unwrap_or(i64::MAX),
                                std::cmp::Reverse(trailing_number(value)),
                            );
                        }
                    }
                    // A pod with none of the keys: level -1 (facts §6).
                    (-1, std::cmp::Reverse(0))
                };
                pods.sort_by_key(|r| rank(r));
            }
        }
    }
}

/// The trailing digits of a label value as a number (`"sts-10"` → 10); 0
/// when it has none (Kruise's `getIntFromStringSuffix`).
pub(super) fn trailing_number(value: &str) -> i64 {
    let digits: String = value
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits.parse().unwrap_or(0)
}

/// The creation budget of `scaleStrategy.maxUnavailable` left after the
/// pods that are unavailable already (Parallel only; `None`: no limit).
pub(super) fn scale_budget(sync: &SyncState<'_>, replicas: &[Replica<'_>]) -> Option<i32> {
    let kruise = sync.kruise.as_ref()?;
    let value = kruise.scale_max_unavailable.as_ref()?;
    if sync.monotonic {
        return None;
    }
    let budget = rolling::max_unavailable(Some(value), pods::spec_replicas(sync.set)).ok()?;
    let unavailable = replicas
        .iter()
        .filter(|r| r.exists())
        .filter(|r| pods::is_terminating(&r.pod) || !sync.available(&r.pod))
        .count();
    Some(budget - i32::try_from(unavailable).unwrap_or(i32::MAX))
}

/// Deletes the pods labelled `apps.kruise.io/specified-delete`, highest
/// ordinal first, while fewer than `budget` replicas are unavailable (a pod
/// unavailable already may always go). Returns whether any was deleted.
pub(super) fn specified_delete(
    sync: &mut SyncState<'_>,
    replicas: &[Replica<'_>],
    budget: i32,
) -> bool {
    // A pod this sync creates is unavailable too (Kruise counts the pods it
    // has just created).
    let mut unavailable: BTreeSet<String> = replicas
        .iter()
        .filter(|r| !r.exists() || sync.unavailable(&r.pod))
        .filter_map(|r| r.pod.metadata.name.clone())
        .collect();
    let mut deleted = false;
    for replica in replicas.iter().rev() {
        let pod = replica.pod.as_ref();
        let labelled = pod
            .metadata
            .labels
            .as_ref()
            .is_some_and(|l| l.contains_key(SPECIFIED_DELETE));
        if !replica.exists() || !labelled || pods::is_terminating(pod) {
            continue;
        }
        let name = pod.metadata.name.clone().unwrap_or_default();
        if usize::try_from(budget).unwrap_or(0) <= unavailable.len() && !unavailable.contains(&name)
        {
            continue;
        }
        sync.delete(pod, DeleteReason::SpecifiedDelete);
        unavailable.insert(name);
        deleted = true;
    }
    deleted
}

/// What the `preDelete` hook does to a pod about to be deleted: `None`
/// when it does not hold the pod; `Some(Some(pod))` the pod labelled
/// `PreparingDelete`, to write instead of deleting; `Some(None)` when it is
/// labelled so already (Kruise's `deletePod`).
pub(super) fn mark_preparing_delete(hook: &Hook, pod: &Pod) -> Option<Option<Pod>> {
    if !hook.holds(pod) {
        return None;
    }
    let state = pod
        .metadata
        .labels
        .as_ref()
        .and_then(|l| l.get(LIFECYCLE_STATE));
    if state.map(String::as_str) == Some(PREPARING_DELETE) {
        return Some(None);
    }
    let mut marked = pod.clone();
    marked
        .metadata
        .labels
        .get_or_insert_with(Default::default)
        .insert(LIFECYCLE_STATE.to_string(), PREPARING_DELETE.to_string());
    Some(Some(marked))
}

/// Whether an Advanced StatefulSet's rolling update step is held this sync:
/// `paused` (nothing is updated, facts §2), or pods labelled
/// `apps.kruise.io/specified-delete` were deleted within the budget (the
/// next sync counts them as unavailable before it updates more).
pub(super) fn update_step_held(
    sync: &mut SyncState<'_>,
    replicas: &[Replica<'_>],
    max_unavailable: Option<i32>,
) -> bool {
    let Some(kruise) = sync.kruise.as_ref() else {
        return false;
    };
    if kruise.paused {
        return true;
    }
    specified_delete(sync, replicas, max_unavailable.unwrap_or(1))
}
