//! Which promise a generic check encodes, read from its context, so that a
//! failure cites the sentence the check actually tests there.
//!
//! A quiet window ("for N seconds no pod of X is created or deleted") is
//! judged by what holds the set's pods still when it begins: a partition,
//! OnDelete, a rollout waiting on an unready pod, OrderedReady waiting on a
//! predecessor, a paused or hooked OpenKruise set, or simply that nothing
//! was changed that calls for a new pod. A wait on a pod's field, by the
//! field; which pods a set runs, by whether it reserves ordinals.

use kepspec_core::Lookup as _;
use serde_json::Value;

use super::clauses;
use crate::history::views::State;
use crate::history::{Clause, SetScope};

/// What holds a set's pods still at the start of a quiet window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Held {
    /// An OpenKruise set with `updateStrategy.rollingUpdate.paused`.
    Paused,
    /// Pods beyond the replicas wait for an OpenKruise preDelete hook.
    PreDeleteHook,
    /// Pods beyond the replicas wait for a predecessor under OrderedReady.
    OrderedTermination,
    /// Missing replicas wait for a predecessor under OrderedReady.
    OrderedCreation,
    /// A replica waits for its claim, which is being deleted.
    ClaimBeingDeleted,
    /// Pods of an old revision under OnDelete.
    OnDelete,
    /// Every pod of an old revision is below the partition.
    Partition,
    /// A rollout waits for a pod that is not ready.
    RolloutWaits,
    /// An OpenKruise set with reserved ordinals, at its replicas.
    Reserved,
    /// Every pod is at the template's revision and the set has its
    /// replicas: only a template change or a scale would call for a pod.
    NothingToDo,
    /// None of the above can be read from the state (for example a set whose
    /// controller declines to act at all): the scenario's narrative says why.
    Unexplained,
}

impl Held {
    /// The sentence a pod created or deleted in the window breaks.
    pub(crate) fn clause(self) -> Clause {
        match self {
            Held::Paused => clauses::kruise_paused_clause(),
            Held::PreDeleteHook => clauses::kruise_pre_delete_clause(),
            Held::OrderedTermination => clauses::ordered_termination(),
            Held::OrderedCreation => clauses::ordered_creation(),
            Held::ClaimBeingDeleted => clauses::claim_cleanup_first(),
            Held::OnDelete => clauses::on_delete_no_update(),
            Held::Partition => clauses::partition(),
            Held::RolloutWaits => clauses::rolling_update_waits(),
            Held::Reserved => clauses::reserve_clause(),
            Held::NothingToDo => clauses::no_rollout_without_template_change(),
            Held::Unexplained => clauses::scenario_narrative(),
        }
    }
}

/// The revision a set's pods must reach: its template's (as upstream
/// computes it) for an apps/v1 set with a template, else what its status
/// reports.
fn update_revision(set: &Value) -> Option<String> {
    set.lookup("/spec/template")
        .and_then(|_| crate::history::views::template_revision(set))
        .or_else(|| {
            set.lookup("/status/updateRevision")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
}

/// What holds the pods of `set` still in `state`.
pub(crate) fn held(state: &State, set: &str) -> Held {
    let Some(obj) = state.sets.get(set).map(|e| &e.object) else {
        return Held::Unexplained;
    };
    let text = |p: &str| obj.lookup(p).and_then(Value::as_str);
    let kruise = obj
        .get("apiVersion")
        .and_then(Value::as_str)
        .is_some_and(|v| v.starts_with("apps.kruise.io/"));
    let ordered = text("/spec/podManagementPolicy").is_none_or(|p| p == "OrderedReady");
    let scope = state.scope_of(&SetScope::new(set, 0));
    // A terminating pod still holds its ordinal (it may be what the window
    // is about: a pod the controller should not have deleted); only pods
    // not yet being deleted count as beyond the replicas.
    let pods: Vec<_> = state.pods_of(set).collect();
    let in_range = |o: Option<i32>| o.is_some_and(|o| scope.in_range(o));

    if pods.iter().any(|p| !p.terminating && !in_range(p.ordinal)) {
        if kruise && obj.lookup("/spec/lifecycle/preDelete").is_some() {
            return Held::PreDeleteHook;
        }
        return if ordered {
            Held::OrderedTermination
        } else {
            Held::Unexplained
        };
    }
    let missing: Vec<i32> = scope
        .ordinals()
        .into_iter()
        .filter(|o| !pods.iter().any(|p| p.ordinal == Some(*o)))
        .collect();
    let claim_deleting = |o: i32| {
        let suffix = format!("-{set}-{o}");
        state.claims.iter().any(|(name, e)| {
            name.ends_with(&suffix) && e.object.lookup("/metadata/deletionTimestamp").is_some()
        })
    };
    // A replica whose claim is being deleted cannot come back until the
    // claim is gone (whether the controller already, wrongly, created it).
    if scope.ordinals().into_iter().any(claim_deleting) {
        return Held::ClaimBeingDeleted;
    }
    if let Some(first) = missing.first() {
        let waits_on_predecessor = pods
            .iter()
            .any(|p| p.ordinal.is_some_and(|o| o < *first) && !p.ready);
        return if ordered && waits_on_predecessor {
            Held::OrderedCreation
        } else {
            Held::Unexplained
        };
    }
    let update = update_revision(obj);
    let behind: Vec<i32> = pods
        .iter()
        .filter(|p| update.is_some() && p.revision != update.as_deref())
        .filter_map(|p| p.ordinal)
        .collect();
    if behind.is_empty() {
        return if kruise && !scope.reserved.is_empty() {
            Held::Reserved
        } else {
            Held::NothingToDo
        };
    }
    if kruise && obj.lookup("/spec/updateStrategy/rollingUpdate/paused") == Some(&Value::Bool(true))
    {
        return Held::Paused;
    }
    if text("/spec/updateStrategy/type") == Some("OnDelete") {
        return Held::OnDelete;
    }
    let partition = obj
        .lookup("/spec/updateStrategy/rollingUpdate/partition")
        .and_then(Value::as_i64);
    if partition.is_some_and(|p| behind.iter().all(|o| i64::from(*o) < p)) {
        return Held::Partition;
    }
    let rolling = text("/spec/updateStrategy/type").is_none_or(|t| t == "RollingUpdate");
    if rolling && pods.iter().any(|p| !p.ready) {
        return Held::RolloutWaits;
    }
    Held::Unexplained
}

/// The sentence a wait on a pod's field checks, by the field: the identity
/// fields upstream restores, the OpenKruise lifecycle state, or else the
/// scenario's own expectation.
pub(crate) fn field_clause(pointer: &str) -> Clause {
    const IDENTITY: [&str; 4] = [
        "/metadata/labels/statefulset.kubernetes.io~1pod-name",
        "/metadata/labels/apps.kubernetes.io~1pod-index",
        "/spec/hostname",
        "/spec/subdomain",
    ];
    if IDENTITY.contains(&pointer) {
        clauses::identity_restored()
    } else if pointer.starts_with("/metadata/labels/lifecycle.apps.kruise.io") {
        clauses::kruise_pre_delete_clause()
    } else {
        clauses::scenario_narrative()
    }
}

/// The sentence that says which pods a set runs: an OpenKruise set's
/// reserved ordinals, else the range `.spec.ordinals.start` begins.
pub(crate) fn range_clause(set: Option<&Value>) -> Clause {
    let reserves = set.is_some_and(|s| {
        s.get("apiVersion")
            .and_then(Value::as_str)
            .is_some_and(|v| v.starts_with("apps.kruise.io/"))
            && s.lookup("/spec/reserveOrdinals").is_some()
    });
    if reserves {
        clauses::reserve_clause()
    } else {
        clauses::ordinal_range()
    }
}

#[cfg(test)]
mod tests;
