//! Step 5: keep `replicas` pods and scale down the rest (upstream's
//! `processReplica`, `processCondemned` and `runForAll`).
//!
//! OrderedReady ("monotonic") makes at most one creation or deletion that
//! waits on readiness: it stops at the first pod that is terminating, not
//! Running and Ready, or not Available. Parallel ("burst") goes through every
//! pod in one sync, in slow-start batches of 1, 2, 4, ... pods (at most
//! 500) whose actions run at once; a batch in which a pod's step fails ends
//! the sync once the batch is done (upstream's `slowStartBatch`,
//! `MaxBatchSize`).

use std::ops::Range;

use k8s_openapi::api::core::v1::Pod;

use super::super::pods;
use super::{claims, Action, Batch, DeleteReason, Replica, SyncState};

/// Upstream's `MaxBatchSize`: the largest slow-start batch.
pub(super) const MAX_BATCH: usize = 500;

/// The slow-start batches over `n` pods: 1, 2, 4, ... pods, at most
/// [`MAX_BATCH`] each.
pub(super) fn slow_start(n: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let (mut at, mut size) = (0, 1);
    while at < n {
        let end = (at + size).min(n);
        out.push(at..end);
        at = end;
        size = (size * 2).min(MAX_BATCH);
    }
    out
}

/// Runs `step` on each item in slow-start batches, recording each item's
/// actions as a lane; stops after a batch in which a step failed.
fn in_batches<T>(
    sync: &mut SyncState<'_>,
    items: &[T],
    mut step: impl FnMut(&mut SyncState<'_>, &T) -> Step,
) -> Flow {
    for range in slow_start(items.len()) {
        let mut lanes = Vec::new();
        let mut failed = false;
        for item in &items[range] {
            let from = sync.actions.len();
            failed |= step(sync, item) == Step::Fail;
            if sync.actions.len() > from {
                lanes.push(from..sync.actions.len());
            }
        }
        if !lanes.is_empty() {
            sync.batches.push(Batch { lanes });
        }
        if failed {
            return Flow::Stop;
        }
    }
    Flow::Continue
}

/// Whether the sync goes on to the update strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Flow {
    /// Nothing blocks: go on.
    Continue,
    /// A monotonic wait or a blocking condition: this sync ends here.
    Stop,
}

/// What one pod step asks of the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Next pod.
    Next,
    /// Monotonic mode stops here; burst mode goes on.
    Wait,
    /// Both modes stop (upstream returns an error).
    Fail,
}

/// Processes the replicas in ordinal order, then the condemned pods from the
/// highest ordinal down.
pub(super) fn process(
    sync: &mut SyncState<'_>,
    replicas: &[Replica<'_>],
    condemned: &[&Pod],
) -> Flow {
    // An Advanced StatefulSet's scaleStrategy.maxUnavailable (Parallel):
    // creations stop while that many replicas are unavailable.
    let mut creations_left = super::kruise::scale_budget(sync, replicas);
    let mut replica_step = |sync: &mut SyncState<'_>, replica: &Replica<'_>| {
        if !replica.exists() {
            if let Some(left) = creations_left.as_mut() {
                if *left <= 0 {
                    return Step::Next;
                }
                *left -= 1;
            }
        }
        process_replica(sync, replica)
    };
    if sync.monotonic {
        for replica in replicas {
            match replica_step(sync, replica) {
                Step::Next => {}
                Step::Wait | Step::Fail => return Flow::Stop,
            }
        }
    } else if in_batches(sync, replicas, replica_step) == Flow::Stop {
        return Flow::Stop;
    }

    // Claims of condemned pods follow the retention policy before they go.
    for pod in condemned {
        fix_claims(sync, pod);
    }

    let first_unavailable = replicas
        .iter()
        .map(|r| r.pod.as_ref())
        .chain(condemned.iter().rev().copied())
        .find(|p| sync.unavailable(p))
        .and_then(|p| p.metadata.name.clone());
    let first = first_unavailable.as_deref();
    if !sync.monotonic {
        return in_batches(sync, condemned, |sync, pod| {
            process_condemned(sync, pod, first)
        });
    }
    for pod in condemned {
        match process_condemned(sync, pod, first) {
            Step::Next => {}
            Step::Wait | Step::Fail => return Flow::Stop,
        }
    }
    Flow::Continue
}

fn process_replica(sync: &mut SyncState<'_>, replica: &Replica<'_>) -> Step {
    let pod = replica.pod.as_ref();
    if !replica.exists() {
        return create(sync, replica);
    }
    // Failed and Succeeded pods are deleted; the next sync creates them anew.
    if pods::is_failed(pod) || pods::is_succeeded(pod) {
        if !pods::is_terminating(pod) {
            sync.delete(pod, DeleteReason::Failed);
        }
        return Step::Wait;
    }
    if pods::is_pending(pod) {
        create_missing_claims(sync, replica.ordinal, pod);
    }
    if sync.monotonic
        && (pods::is_terminating(pod) || !pods::is_running_and_ready(pod) || !sync.available(pod))
    {
        // EnforcedRollingUpdate goes on past a pod it is about to replace.
        if super::enforced::will_replace(sync, replica) {
            return Step::Next;
        }
        return Step::Wait;
    }
    // Enforce the invariants: identity, storage, claim ownership.
    fix_claims(sync, pod);
    if !pods::identity_matches(sync.set, pod) || !pods::storage_matches(sync.set, pod) {
        let mut fixed = pod.clone();
        pods::update_identity(sync.set, &mut fixed, replica.ordinal);
        pods::update_storage(sync.set, &mut fixed, replica.ordinal);
        create_missing_claims(sync, replica.ordinal, pod);
        sync.actions.push(Action::UpdatePod(fixed));
    }
    Step::Next
}

/// Creates the claims, then the pod.
fn create(sync: &mut SyncState<'_>, replica: &Replica<'_>) -> Step {
    let pod = replica.pod.as_ref();
    let pod_name = pod.metadata.name.clone().unwrap_or_default();
    let namespace = sync.set.metadata.namespace.as_deref();
    for claim in pods::claims_for(sync.set, replica.ordinal) {
        let name = claim.metadata.name.as_deref().unwrap_or("");
        if let Some(found) = claims::find(sync.obs.claims, namespace, name) {
            if claims::is_stale(found, sync.set, &pod_name) {
                return Step::Wait;
            }
            if found.metadata.deletion_timestamp.is_some() {
                // Upstream: "pvc <name> is being deleted", an error its work
                // queue retries; nothing else would wake the set when the
                // claim goes (a retained claim has no owner to map it to).
                let retry = std::time::Duration::from_secs(1);
                sync.requeue = Some(sync.requeue.map_or(retry, |r| r.min(retry)));
                return Step::Fail;
            }
        }
    }
    create_missing_claims(sync, replica.ordinal, pod);
    sync.actions.push(Action::CreatePod(pod.clone()));
    if sync.monotonic {
        Step::Wait
    } else {
        Step::Next
    }
}

fn create_missing_claims(sync: &mut SyncState<'_>, ordinal: i32, pod: &Pod) {
    let pod_name = pod.metadata.name.clone().unwrap_or_default();
    let namespace = sync.set.metadata.namespace.as_deref();
    for claim in pods::claims_for(sync.set, ordinal) {
        let name = claim.metadata.name.clone().unwrap_or_default();
        if claims::find(sync.obs.claims, namespace, &name).is_none() {
            let claim = claims::with_owner_refs(claim, sync.set, pod);
            sync.actions.push(Action::CreateClaim {
                claim,
                pod: pod_name.clone(),
            });
        }
    }
}

/// Updates the claims of `pod` whose ownerReferences disagree with the
/// retention policy.
fn fix_claims(sync: &mut SyncState<'_>, pod: &Pod) {
    let Some(ordinal) = pods::ordinal(pod) else {
        return;
    };
    let namespace = sync.set.metadata.namespace.as_deref();
    for claim in pods::claims_for(sync.set, ordinal) {
        let name = claim.metadata.name.as_deref().unwrap_or("");
        if let Some(found) = claims::find(sync.obs.claims, namespace, name) {
            if !claims::owner_up_to_date(found, sync.set, pod) {
                let updated = claims::with_owner_refs(found.clone(), sync.set, pod);
                sync.actions.push(Action::UpdateClaim(updated));
            }
        }
    }
}

fn process_condemned(sync: &mut SyncState<'_>, pod: &Pod, first_unavailable: Option<&str>) -> Step {
    if pods::is_terminating(pod) {
        return if sync.monotonic {
            Step::Wait
        } else {
            Step::Next
        };
    }
    let is_first = pod.metadata.name.as_deref() == first_unavailable;
    // Monotonic: scale down only when every predecessor is healthy, except
    // the first unhealthy pod itself.
    // EnforcedRollingUpdate deletes condemned pods without that wait (the
    // draft's "Implementation Changes", 2).
    if sync.monotonic
        && sync.enforced_partition.is_none()
        && !is_first
        && (!pods::is_running_and_ready(pod) || !sync.available(pod))
    {
        return Step::Wait;
    }
    sync.delete(pod, DeleteReason::ScaleDown);
    Step::Wait
}
