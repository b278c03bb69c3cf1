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

/// KEP-3541: the pods a Recreate creates are of the update revision, the
/// newest one when the template changed again meanwhile.
pub fn recreate_creates_update_revision() -> Clause {
    Clause::new(
        "KEP-3541 Proposed Recreate Strategy Algorithm",
        "create_pod(i, updateRevision)",
    )
}

/// KEP-3541: PVCs survive a Recreate.
pub fn pvc_preservation() -> Clause {
    Clause::new(
        "KEP-3541 Risks and Mitigations > Risk: Unintended Data Loss",
        "PVC Preservation: PersistentVolumeClaims are not deleted, so data on volumes persists across recreate operations",
    )
}

/// KEP-3541: the Progressing condition.
pub fn progressing_condition() -> Clause {
    Clause::new(
        "KEP-3541 Proposed Recreate Strategy Algorithm",
        "set_condition(\"Progressing\", status=\"True\", reason=\"RecreateInProgress\") ... set_condition(\"Progressing\", status=\"True\", reason=\"RecreateComplete\")",
    )
}

/// KEP-3541 Goal 6: a Progressing condition for every strategy.
pub fn progressing_every_strategy() -> Clause {
    Clause::new(
        "KEP-3541 Goals",
        "Add Progressing state condition to StatefulSet status for all strategies",
    )
}

/// Upstream sets the Progressing condition for Recreate only.
pub fn progressing_recreate_only() -> Clause {
    Clause::new(
        "calibration-facts, Upstream StatefulSet controller, v1.37 (KEP-3541 alpha, PR #137187)",
        "Review asked to drop RollingUpdate/OnDelete `Progressing` reasons; the general proposal to add a Progressing condition for every strategy (#133696) was closed unmerged.",
    )
}

/// The rollout reaches every replica at the update revision.
pub fn rollout_completes() -> Clause {
    Clause::new(
        "upstream-statefulset-facts, Status",
        "Rollout complete when updated = ready = replicas = spec.replicas: then currentRevision := updateRevision.",
    )
}

/// A pod's container state as the kubelet reports it.
pub fn pod_state() -> Clause {
    Clause::new(
        "Kubernetes Pod lifecycle (paraphrase): the kubelet and the scheduler report a pod's container states and conditions, such as a container Waiting with a reason",
        "",
    )
}

/// KEP-3541: all old-revision pods are deleted in one phase.
pub fn recreate_deletes_all() -> Clause {
    Clause::new(
        "KEP-3541 Proposed Recreate Strategy Algorithm",
        "Phase 1: Delete all pods with old revision ... Delete ALL pods owned by this StatefulSet that have old revision",
    )
}

/// KEP-3541: Phase 1 deletes pods of an old revision only.
pub fn recreate_old_revision_only() -> Clause {
    Clause::new(
        "KEP-3541 Proposed Recreate Strategy Algorithm",
        "Delete ALL pods owned by this StatefulSet that have old revision ... IF pod.Labels[\"controller-revision-hash\"] != updateRevision THEN",
    )
}

/// OrderedReady creation.
pub fn ordered_creation() -> Clause {
    Clause::new(
        "StatefulSet concepts, Deployment and Scaling Guarantees",
        "For a StatefulSet with N replicas, when Pods are being deployed, they are created sequentially, in order from {0..N-1}. ... Before a scaling operation is applied to a Pod, all of its predecessors must be Running and Ready.",
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
        "KEP-961 Proposal",
        "the maximum number of pods that can be unavailable during the update",
    )
}

/// The identity labels a pod carries (restored when removed).
pub fn identity_restored() -> Clause {
    Clause::new(
        "upstream-statefulset-facts, Identity",
        "Labels statefulset.kubernetes.io/pod-name, apps.kubernetes.io/pod-index; spec.hostname = pod name, spec.subdomain = serviceName.",
    )
}

/// KEP-3541 events.
pub fn events() -> Clause {
    Clause::new(
        "KEP-3541 Proposed Recreate Strategy Algorithm",
        "emit_event(\"RecreateStarted\", \"Deleting all pods for Recreate update\")",
    )
}

/// The clause that promises the event of this `reason`: KEP-3541's
/// RecreateStarted, the draft's ForcedReplacement and
/// EnforcedRollingUpdateStarted, OpenKruise's in-place update (its
/// SuccessfulUpdatePodInPlace); any other reason, KEP-3541's.
pub fn event_of(reason: &str) -> Clause {
    match reason {
        "ForcedReplacement" => Clause::new(
            "KEP-3541 draft How can someone using this feature know that it is working for their instance?",
            "emitted when a pod is forcibly replaced",
        ),
        "EnforcedRollingUpdateStarted" => Clause::new(
            "KEP-3541 draft How can someone using this feature know that it is working for their instance?",
            "emitted when enforced rolling update begins",
        ),
        "SuccessfulUpdatePodInPlace" => in_place_clause(),
        _ => events(),
    }
}

/// A pod below a partition comes back at the revision it had.
pub fn partition_keeps_lower_ordinals() -> Clause {
    Clause::new(
        "StatefulSet concepts, Partitioned rolling updates",
        "All Pods with an ordinal that is less than the partition will not be updated, and, even if they are deleted, they will be recreated at the previous version.",
    )
}

/// The documented limitation KEP-3541 exists for.
pub fn rolling_update_stuck() -> Clause {
    Clause::new(
        "StatefulSet concepts, Forced rollback",
        "After reverting the template, you must also delete any Pods that StatefulSet had already attempted to run with the bad configuration.",
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
        "KEP-3541 What are the reasonable SLOs (Service Level Objectives) for the enhancement?",
        "99% of Recreate updates complete within (pod termination time + pod startup time + 30s)",
    )
}

/// PVC retention policy.
pub fn pvc_retention() -> Clause {
    Clause::new(
        "StatefulSet concepts, PersistentVolumeClaim retention",
        "The optional .spec.persistentVolumeClaimRetentionPolicy field controls if and how PVCs are deleted during the lifecycle of a StatefulSet.",
    )
}

/// API conventions: observedGeneration only moves forward.
pub fn observed_generation() -> Clause {
    Clause::new(
        "Kubernetes API conventions, status.observedGeneration (paraphrase): the generation most recently observed by the controller, so it never goes back to an older one",
        "",
    )
}

/// Only a template change starts a rollout (a strategy-type change does not).
pub fn no_rollout_without_template_change() -> Clause {
    Clause::new(
        "upstream-statefulset-facts, Revisions",
        "Only a change of .spec.template makes a new revision (a strategy-type change does not).",
    )
}

/// Upstream's `truncateHistory`: only revisions nothing names are deleted.
pub fn revision_history_limit() -> Clause {
    Clause::new(
        "upstream-statefulset-facts, Revisions",
        "History: revisions not named by current, update or any pod are deleted, oldest first, down to revisionHistoryLimit (default 10).",
    )
}

/// Upstream's revision numbers (`nextRevision`, stateful_set_utils.go):
/// a new revision, or one a rollback reuses, is numbered one above the
/// highest of the set's revisions.
pub fn revision_number() -> Clause {
    Clause::new(
        "upstream-statefulset-facts, Revisions",
        "Rolling back to an earlier template reuses the old ControllerRevision (its revision number is raised to max+1); equal data never makes a second one.",
    )
}

/// Upstream's `CreateControllerRevision`: a taken name with other data
/// raises `collisionCount`.
pub fn revision_name_collision() -> Clause {
    Clause::new(
        "upstream-statefulset-facts, Revisions",
        "Name collision with different data: increment status.collisionCount, rehash.",
    )
}

/// OnDelete: the controller does not replace pods by itself.
pub fn on_delete_no_update() -> Clause {
    Clause::new(
        "StatefulSet concepts, Update strategies",
        "the StatefulSet controller will not automatically update the Pods in a StatefulSet",
    )
}

/// KEP-3541: with the controller's gate off, no errors or warnings.
pub fn skew_no_warnings() -> Clause {
    Clause::new(
        "KEP-3541 Version Skew Strategy",
        "StatefulSets are functional, just without Recreate strategy feature ... No errors or warnings",
    )
}

/// What a controller reports in a StatefulSet's status is true of its pods.
pub fn status_truth() -> Clause {
    Clause::new(
        "upstream-statefulset-facts, Status",
        "Rollout complete when updated = ready = replicas = spec.replicas: then currentRevision := updateRevision.",
    )
}

/// KEP-3541's mitigation "Clear Events".
pub fn recreate_events() -> Clause {
    Clause::new(
        "KEP-3541 Risks and Mitigations > Risk: Unintended Data Loss",
        "Clear Events: Events emitted during the recreate process to show deletion and recreation phases",
    )
}

/// KEP-3541's SLI: the status shows the Recreate's downtime.
pub fn recreate_downtime() -> Clause {
    Clause::new(
        "KEP-3541 What are the SLIs (Service Level Indicators) an operator can use to determine the health of the service?",
        "During Recreate updates, the values show the transition from all pods deleted (0 available) to all new pods created and ready",
    )
}

/// KEP-961's metrics.
pub fn max_unavailable_metrics() -> Clause {
    Clause::new(
        "KEP-961 Metrics",
        "statefulset_max_unavailable**: tracks the current `.spec.updateStrategy.rollingUpdate.maxUnavailable` value",
    )
}

/// Upstream recreates a missing claim for a pod that waits for it.
pub fn missing_claim() -> Clause {
    Clause::new(
        "upstream e2e test (paraphrase): StatefulSet Automatically recreate PVC for pending pod when PVC is missing: the controller creates a pending pod's missing claim again, and the pod runs on the node it is pinned to",
        "",
    )
}

/// The status subresource stores what is written through it.
pub fn status_subresource() -> Clause {
    Clause::new(
        "Kubernetes API conventions (paraphrase): a write through a resource's status subresource is stored and reaches every watch of the object; upstream's conformance test should validate Statefulset Status endpoints checks it for StatefulSets",
        "",
    )
}

/// A StatefulSet's pods carry it as their controller.
pub fn controller_reference() -> Clause {
    Clause::new(
        "upstream-statefulset-facts, Identity",
        "Controller ownerReference (controller=true, blockOwnerDeletion=true).",
    )
}

/// The StatefulSet concepts page: a claim without a class gets the default.
pub fn default_storage_class() -> Clause {
    Clause::new(
        "StatefulSet concepts, Stable Storage",
        "If no StorageClass is specified, then the default StorageClass will be used.",
    )
}

/// KEP-961's SLIs: the StatefulSet work queue's metrics.
pub fn workqueue_metrics() -> Clause {
    Clause::new(
        "KEP-961 What are the SLIs (Service Level Indicators) an operator can use to determine the health of the service?",
        "Counts the total number of retries for StatefulSet update operations within the work queue.",
    )
}

/// KEP-961's rollback signal: violations of maxUnavailable.
pub fn unavailability_violation() -> Clause {
    Clause::new(
        "KEP-961 What specific metrics should inform a rollback?",
        "Ths metric reflects the number of times the maxUnavailable condition is violated (i.e. spec.replicas - availableReplicas > maxUnavailable).",
    )
}

/// Once the pods stop changing, the status says exactly what they are.
pub fn status_settles() -> Clause {
    Clause::new(
        "upstream-statefulset-facts, Status",
        "replicas: pods that exist (including terminating); readyReplicas: Running and Ready; availableReplicas: ready for minReadySeconds; currentReplicas / updatedReplicas: not-terminating pods at currentRevision / updateRevision.",
    )
}

/// OrderedReady scale-down: each pod is gone before the next is deleted.
pub fn ordered_termination() -> Clause {
    Clause::new(
        "StatefulSet concepts, Deployment and Scaling Guarantees",
        "Before a Pod is terminated, all of its successors must be completely shutdown.",
    )
}

/// Parallel: pods are terminated without waiting.
pub fn parallel_termination() -> Clause {
    Clause::new(
        "StatefulSet concepts, Parallel Pod Management",
        "Parallel pod management tells the StatefulSet controller to launch or terminate all Pods in parallel, and to not wait for Pods to become Running and Ready or completely terminated prior to launching or terminating another Pod.",
    )
}

/// The KEP-3541 draft: a pod is replaced only once every higher ordinal is
/// Ready at the update revision.
pub fn enforced_sequence() -> Clause {
    Clause::new(
        "KEP-3541 draft Proposed EnforcedRollingUpdate Algorithm",
        "wait_for_predecessors_ready(i+1 to replicas-1)",
    )
}

/// The KEP-3541 draft's Safety SLO.
pub fn enforced_safety() -> Clause {
    Clause::new(
        "KEP-3541 draft What are the reasonable SLOs (Service Level Objectives) for the enhancement?",
        "0% of forced replacements should occur on StatefulSets where the latest ordinal pod fails to reach Ready state",
    )
}

/// The KEP-3541 draft's condition, which names the strategy in use.
pub fn enforced_strategy_condition() -> Clause {
    Clause::new(
        "KEP-3541 draft How can someone using this feature know that it is working for their instance?",
        "indicates active strategy",
    )
}

/// The KEP-3541 draft's counter of forced replacements.
pub fn enforced_metrics() -> Clause {
    Clause::new(
        "KEP-3541 draft How can someone using this feature know that it is working for their instance?",
        "tracks forced replacements per StatefulSet",
    )
}

/// OpenKruise: "Ordinals reserve(skip)".
pub fn reserve_clause() -> Clause {
    Clause::new(
        "OpenKruise Advanced StatefulSet, Ordinals reserve(skip)",
        "Advanced StatefulSet will skip to create Pods with those ordinals. If these Pods have already existed, controller will delete them.",
    )
}

/// OpenKruise: "Scaling with rate limiting".
pub fn scale_clause() -> Clause {
    Clause::new(
        "OpenKruise Advanced StatefulSet, Scaling with rate limiting",
        "the StatefulSet will firstly create 10 pods. After that, it will create one more pod only if one pod created has been running and ready.",
    )
}

/// OpenKruise: "Specified Pod Deletion".
pub fn specified_delete_clause() -> Clause {
    Clause::new(
        "OpenKruise Advanced StatefulSet, Specified Pod Deletion",
        "it will trigger the deletion process of the pod with specified deletion label and ensure that the maxUnavailable limit is not exceeded. The pod will be re-built by the workload if the ordinal is not reserved.",
    )
}

/// OpenKruise: the readiness gate of an in-place update.
pub fn in_place_ready_clause() -> Clause {
    Clause::new(
        "OpenKruise Advanced StatefulSet, In-Place Update",
        "The condition InPlaceUpdateReady in podStatus will be updated to False before in-place update and updated to True after the update is finished. This ensures that pod remain at NotReady state while the in-place update is happening.",
    )
}

/// OpenKruise: the grace period of an in-place update.
pub fn in_place_grace_clause() -> Clause {
    Clause::new(
        "OpenKruise Advanced StatefulSet, In-Place Update",
        "Advanced StatefulSet has supported gracePeriodSeconds, which is a period duration between controller update pod status and update pod images.",
    )
}

/// OpenKruise: an in-place update keeps the pod.
pub fn in_place_clause() -> Clause {
    Clause::new(
        "OpenKruise Advanced StatefulSet, In-Place Update",
        "InPlaceIfPossible controller will try to in-place update Pod instead of recreating them if possible.",
    )
}

/// A rolling update waits for each updated pod before the next.
pub fn rolling_update_waits() -> Clause {
    Clause::new(
        "StatefulSet concepts, Rolling Updates",
        "The Kubernetes control plane waits until an updated Pod is Running and Ready prior to updating its predecessor.",
    )
}

/// OpenKruise: "Paused update".
pub fn kruise_paused_clause() -> Clause {
    Clause::new(
        "OpenKruise Advanced StatefulSet, Paused update",
        "paused indicates that Pods updating is paused, controller will not update Pods but just maintain the number of replicas.",
    )
}

/// OpenKruise: a deletion goes through the PreparingDelete hook.
pub fn kruise_pre_delete_clause() -> Clause {
    Clause::new(
        "OpenKruise Advanced StatefulSet, Specified Pod Deletion",
        "will trigger the PreparingDelete lifecycle hook (see below)",
    )
}

/// No single source sentence: what the scenario's narrative expects.
pub fn scenario_narrative() -> Clause {
    Clause::new(
        "the scenario's narrative (paraphrase): no single source sentence covers this check; the feature's narrative names what the scenario expects and why",
        "",
    )
}

/// `.spec.ordinals.start` places the replicas.
pub fn ordinal_range() -> Clause {
    Clause::new(
        "upstream-statefulset-facts, Identity",
        ".spec.ordinals.start shifts the range to [start, start+replicas).",
    )
}

/// The retention policy works through the claims' ownerReferences.
pub fn retention_owners() -> Clause {
    Clause::new(
        "upstream-statefulset-facts, Identity",
        "Retention policy (default Retain/Retain) works only through ownerReferences: whenDeleted=Delete puts the set as owner; whenScaled=Delete puts the pod as owner once its ordinal is out of range; the garbage collector deletes.",
    )
}

/// Failed pods are deleted and created again.
pub fn failed_pods() -> Clause {
    Clause::new(
        "upstream-statefulset-facts, Reconcile order (one sync)",
        "Failed or Succeeded pods are deleted and recreated.",
    )
}

/// Parallel pod management works in slow-start batches.
pub fn slow_start() -> Clause {
    Clause::new(
        "upstream-statefulset-facts, Reconcile order (one sync)",
        "Parallel (\"burst\"): creates in slow-start batches 1,2,4..., and deletes condemned pods without waiting.",
    )
}

/// The controller leaves ownerReferences it does not own as they are.
pub fn foreign_claim_owners() -> Clause {
    Clause::new(
        "upstream e2e test (paraphrase): StatefulSet Non-retain StatefulSetPersistentVolumeClaimPolicy should not delete PVCs when there is another controller: a claim's owner that is neither its pod nor its set is kept as written, and a claim controlled by a StatefulSet of another uid is left alone",
        "",
    )
}

/// Upstream's `PodClaimIsStale`: a pod waits while its claim still names an
/// earlier pod of its name.
pub fn stale_claim_blocks_creation() -> Clause {
    Clause::new(
        "upstream code (paraphrase): PodClaimIsStale, pkg/controller/statefulset/stateful_pod_control.go, called before every pod creation in stateful_set_control.go wherever the StatefulSetAutoDeletePVC gate is on (by default from v1.27): under whenScaled Delete a claim naming a pod of the pod's name with another uid is stale, and the pod is not created while it is (\"If a pod has a stale PVC, no more work can be done this round\")",
        "",
    )
}

/// A condemned pod's claim names it before the pod is deleted.
pub fn retention_crash_safety() -> Clause {
    Clause::new(
        "StatefulSet concepts, PersistentVolumeClaim retention",
        "no Pod will be deleted before its owner reference has been updated appropriate to the policy.",
    )
}

/// A claim is deleted only after its pod.
pub fn retention_after_pods() -> Clause {
    Clause::new(
        "StatefulSet concepts, PersistentVolumeClaim retention",
        "With the whenScaled policy, only PVCs corresponding to Pod replicas being scaled down are deleted, after their Pods have been deleted.",
    )
}

/// The KEP-3541 draft: no new pod while its claim is being deleted.
pub fn claim_cleanup_first() -> Clause {
    Clause::new(
        "KEP-3541 draft What are other known failure modes?",
        "StatefulSet controller waits for PVC cleanup before creating new pods",
    )
}

/// KEP-3541 Phase 1: only pods not already being deleted are deleted.
pub fn recreate_deletes_live_pods_only() -> Clause {
    Clause::new(
        "KEP-3541 Proposed Recreate Strategy Algorithm",
        "IF pod.DeletionTimestamp == nil THEN",
    )
}

/// KEP-3541's answer on scalability: no new kinds of API calls.
pub fn recreate_scalability() -> Clause {
    Clause::new(
        "KEP-3541 Will enabling / using this feature result in any new API calls?",
        "No new types of API calls.",
    )
}

/// KEP-3541: with the apiserver unavailable, all updates halt.
pub fn apiserver_unavailable() -> Clause {
    Clause::new(
        "KEP-3541 How does this feature react if the API server and/or etcd is unavailable?",
        "API Server Unavailable: StatefulSet controller cannot read/write StatefulSet or Pod objects, so all updates halt.",
    )
}
