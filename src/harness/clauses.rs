//! The sentences of the KEPs and of the StatefulSet documentation that the
//! harness's checks encode. A failed check names one of these.

use crate::history::Clause;

/// KEP-3541: no new-revision pod while an old-revision pod exists.
pub fn recreate_no_mixing() -> Clause {
    Clause::new(
        "KEP-3541 Proposed Recreate Strategy Algorithm",
        "All old-revision pods are fully terminated before any new pods are created",
    )
}

/// KEP-3541: PVCs survive a Recreate.
pub fn pvc_preservation() -> Clause {
    Clause::new(
        "KEP-3541 PVC Preservation",
        "PersistentVolumeClaims are not deleted, so data on volumes persists across recreate operations",
    )
}

/// KEP-3541: the Progressing condition.
pub fn progressing_condition() -> Clause {
    Clause::new(
        "KEP-3541 Status Conditions",
        "StatefulSet status clearly reflects the recreate process state",
    )
}

/// The rollout reaches every replica at the update revision.
pub fn rollout_completes() -> Clause {
    Clause::new(
        "StatefulSet concepts, Update strategies",
        "the controller updates every Pod of the StatefulSet to the update revision and they become Running and Ready",
    )
}

/// A pod's container state as the kubelet reports it.
pub fn pod_state() -> Clause {
    Clause::new(
        "Pod lifecycle, Container states",
        "the container is Waiting with the given reason",
    )
}

/// KEP-3541: all old-revision pods are deleted in one phase.
pub fn recreate_deletes_all() -> Clause {
    Clause::new(
        "KEP-3541 Proposed Recreate Strategy Algorithm, Phase 1",
        "Delete ALL pods owned by this StatefulSet that have old revision",
    )
}

/// OrderedReady creation.
pub fn ordered_creation() -> Clause {
    Clause::new(
        "StatefulSet concepts, Deployment and Scaling Guarantees",
        "Before a scaling operation is applied to a Pod, all of its predecessors must be Running and Ready",
    )
}

/// Reverse-ordinal deletion.
pub fn ordered_deletion() -> Clause {
    Clause::new(
        "StatefulSet concepts, Deployment and Scaling Guarantees",
        "When Pods are being deleted, they are terminated in reverse order, from {N-1..0}",
    )
}

/// KEP-961's budget.
pub fn max_unavailable() -> Clause {
    Clause::new(
        "KEP-961 maxUnavailable",
        "the maximum number of pods that can be unavailable during the update",
    )
}

/// Stable identity.
pub fn identity() -> Clause {
    Clause::new(
        "StatefulSet concepts, Pod Identity",
        "each Pod has a stable, unique network identity: one Pod per ordinal",
    )
}

/// KEP-3541 events.
pub fn events() -> Clause {
    Clause::new(
        "KEP-3541 Clear Events",
        "Events emitted during the recreate process to show deletion and recreation phases",
    )
}

/// The documented limitation KEP-3541 exists for.
pub fn rolling_update_stuck() -> Clause {
    Clause::new(
        "StatefulSet concepts, Forced rollback (issue #67250)",
        "after reverting the template, you must also delete any Pods that StatefulSet had already attempted to run with the bad configuration",
    )
}

/// Partitions.
pub fn partition() -> Clause {
    Clause::new(
        "StatefulSet concepts, Partitioned rolling updates",
        "Pods with an ordinal that is less than the partition will not be updated",
    )
}

/// KEP-3541's SLO.
pub fn recreate_slo() -> Clause {
    Clause::new(
        "KEP-3541 Monitoring Requirements, SLOs",
        "99% of Recreate updates complete within (pod termination time + pod startup time + 30s)",
    )
}

/// PVC retention policy.
pub fn pvc_retention() -> Clause {
    Clause::new(
        "StatefulSet concepts, PersistentVolumeClaim retention",
        "whenDeleted and whenScaled decide whether PVCs are deleted when the StatefulSet is deleted or scaled down",
    )
}

/// API conventions: observedGeneration only moves forward.
pub fn observed_generation() -> Clause {
    Clause::new(
        "Kubernetes API conventions, status.observedGeneration",
        "observedGeneration is the generation most recently observed by the controller; it never goes back to an older one",
    )
}
