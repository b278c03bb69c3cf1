//! Step 6 for the KEP-3541 draft's EnforcedRollingUpdate
//! (kep-3541-draft-enforced-rolling-update.md, "Proposed EnforcedRollingUpdate
//! Algorithm" and "Implementation Changes").
//!
//! From the highest ordinal down to the partition, a pod of another revision
//! is deleted "regardless of current pod state" and recreated at the update
//! revision by a later sync; each new pod must be Available before the next
//! one is replaced. What makes it differ from RollingUpdate is in step 5
//! (see [`super::replicas`]): a pod that this rollout will replace does not
//! hold the OrderedReady walk, and condemned pods are deleted without
//! waiting for their health.
//!
//! Where the draft leaves a choice, the bundled controller takes this one:
//! - `ForcedReplacement` is emitted for a deletion of a pod that was not
//!   Available, a replacement RollingUpdate would have waited for (the
//!   pseudo-code emits it on every deletion; "Monitoring Requirements" says
//!   "emitted when a pod is forcibly replaced", and a healthy pod's
//!   replacement is an ordinary one);
//! - `EnforcedRollingUpdateStarted` is emitted once per update revision, in
//!   the first sync that finds a replica to update; the
//!   `StatefulSetUpdateStrategy` condition (reason `EnforcedRollingUpdate`)
//!   records that revision, so a restarted controller does not repeat it;
//! - `enforcedRollingUpdate.partition` is honoured; `maxUnavailable` is
//!   validated but pods are replaced one at a time, as the algorithm does.

use kepspec_core::Lookup as _;
use serde_json::Value;

use super::super::pods;
use super::{Action, DeleteReason, EventSpec, EventType, Replica, SyncState};

/// The strategy type of the draft.
pub const TYPE: &str = "EnforcedRollingUpdate";
/// Event of a replacement of a pod that was not Available.
pub const FORCED_REPLACEMENT: &str = "ForcedReplacement";
/// Event of the start of a rollout under EnforcedRollingUpdate.
pub const STARTED: &str = "EnforcedRollingUpdateStarted";
/// The condition the draft names ("Monitoring Requirements").
pub const CONDITION: &str = "StatefulSetUpdateStrategy";

/// `spec.updateStrategy.enforcedRollingUpdate.partition` (0 when unset).
pub(super) fn partition(raw: &Value) -> i32 {
    raw.lookup("/spec/updateStrategy/enforcedRollingUpdate/partition")
        .and_then(Value::as_i64)
        .and_then(|p| i32::try_from(p).ok())
        .unwrap_or(0)
        .max(0)
}

/// The message of the `StatefulSetUpdateStrategy` condition for a rollout
/// to `update_revision`.
pub(super) fn condition_message(update_revision: &str) -> String {
    format!("EnforcedRollingUpdate to revision {update_revision}")
}

/// Whether a replica at or above the partition is of another revision.
fn to_update<'a>(
    sync: &SyncState<'_>,
    replicas: &'a [Replica<'a>],
    partition: i32,
) -> impl Iterator<Item = &'a Replica<'a>> {
    let update = sync.update_revision.clone();
    replicas
        .iter()
        .skip(usize::try_from(partition).unwrap_or(0))
        .filter(move |r| pods::pod_revision(&r.pod) != update.as_str())
}

/// Emits `EnforcedRollingUpdateStarted` when a replica waits for its update
/// and the observed condition does not record this revision yet.
pub(super) fn announce(sync: &mut SyncState<'_>, replicas: &[Replica<'_>], partition: i32) {
    if to_update(sync, replicas, partition).next().is_none() {
        return;
    }
    let message = condition_message(&sync.update_revision);
    let recorded = sync
        .set
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_deref())
        .unwrap_or(&[])
        .iter()
        .any(|c| {
            c.type_.as_deref() == Some(CONDITION) && c.message.as_deref() == Some(message.as_str())
        });
    if !recorded {
        sync.actions.push(Action::Event(EventSpec {
            type_: EventType::Normal,
            reason: STARTED.to_string(),
            message: format!(
                "Enforced rolling update to revision {} started",
                sync.update_revision
            ),
        }));
    }
}

/// Deletes the highest-ordinal pod of another revision whatever its state;
/// waits while a pod on the way down is not Available. The draft's safety
/// check ("if the highest ordinal pod fails, halt progression") is this
/// wait at the highest ordinal.
pub(super) fn update(sync: &mut SyncState<'_>, replicas: &[Replica<'_>], partition: i32) {
    let update_min = usize::try_from(partition).unwrap_or(0);
    for replica in replicas.iter().skip(update_min).rev() {
        let pod = replica.pod.as_ref();
        if pods::pod_revision(pod) != sync.update_revision && !pods::is_terminating(pod) {
            if sync.unavailable(pod) {
                let name = pod.metadata.name.clone().unwrap_or_default();
                sync.actions.push(Action::Event(EventSpec {
                    type_: EventType::Normal,
                    reason: FORCED_REPLACEMENT.to_string(),
                    message: format!(
                        "Forced replacement of pod {name}, which is not available, with revision {}",
                        sync.update_revision
                    ),
                }));
                sync.delete(pod, DeleteReason::ForcedReplacement);
            } else {
                sync.delete(pod, DeleteReason::RollingUpdate);
            }
            sync.current_deleted += 1;
            return;
        }
        if sync.unavailable(pod) {
            return;
        }
    }
}

/// Whether step 5 may pass over `replica` although it is not Running and
/// Ready: this rollout will replace it (another revision, at or above the
/// partition, not terminating).
pub(super) fn will_replace(sync: &SyncState<'_>, replica: &Replica<'_>) -> bool {
    let Some(partition) = sync.enforced_partition else {
        return false;
    };
    let start = pods::start_ordinal(sync.set);
    let pod = replica.pod.as_ref();
    replica.exists()
        && replica.ordinal >= start.saturating_add(partition)
        && pods::pod_revision(pod) != sync.update_revision
        && !pods::is_terminating(pod)
}

/// A pod that is failing rather than starting: a container waiting for a
/// reason a retry will not clear by itself, unschedulable, or Failed.
pub fn failing(pod: &k8s_openapi::api::core::v1::Pod) -> bool {
    let Some(status) = pod.status.as_ref() else {
        return false;
    };
    let waiting = status
        .container_statuses
        .iter()
        .flatten()
        .filter_map(|c| c.state.as_ref()?.waiting.as_ref()?.reason.as_deref())
        .any(|r| {
            matches!(
                r,
                "ImagePullBackOff"
                    | "ErrImagePull"
                    | "CrashLoopBackOff"
                    | "CreateContainerConfigError"
                    | "InvalidImageName"
            )
        });
    let unschedulable = status.conditions.iter().flatten().any(|c| {
        c.type_ == "PodScheduled"
            && c.status == "False"
            && c.reason.as_deref() == Some("Unschedulable")
    });
    waiting || unschedulable || status.phase.as_deref() == Some("Failed")
}

/// The draft's safety halt ("if highest ordinal pod fails, halt
/// progression"): the highest ordinal runs the update revision and is
/// failing, and a replica at or above the partition still waits for its
/// update.
pub(super) fn safety_halt(sync: &SyncState<'_>, replicas: &[Replica<'_>], partition: i32) -> bool {
    let Some(top) = replicas.last() else {
        return false;
    };
    let pod = top.pod.as_ref();
    top.exists()
        && pods::pod_revision(pod) == sync.update_revision
        && failing(pod)
        && to_update(sync, replicas, partition).next().is_some()
}
