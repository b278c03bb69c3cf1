//! StatefulSet status: upstream's replica arithmetic plus the `Progressing`
//! condition of KEP-3541.
//!
//! Counts (as upstream's `computeReplicaStatus`): `replicas` = pods that
//! exist (including terminating ones); `readyReplicas` = Running and Ready;
//! `availableReplicas` = Ready for at least `minReadySeconds`;
//! `currentReplicas` / `updatedReplicas` = existing, non-terminating pods
//! labelled with the current / update revision. A rollout is complete when
//! `updatedReplicas == readyReplicas == replicas == spec.replicas`; then
//! `currentRevision := updateRevision`, for RollingUpdate (upstream's
//! `completeRollingUpdate`) and for Recreate (upstream's Recreate e2e tests,
//! kubernetes PR #137187, require it "on update completion"); not for
//! OnDelete.
//!
//! The `Progressing` condition is always `status: "True"` (as a Deployment's
//! is while it is not stuck); its reason tells the state of the rollout:
//!
//! | strategy      | reason                      | when |
//! |---------------|-----------------------------|------|
//! | Recreate      | `RecreateInProgress`        | phase NeedsDeletion, WaitingTermination or ReadyForCreation (KEP-3541) |
//! | Recreate      | `RecreateComplete`          | phase Complete: every replica exists at the update revision (KEP-3541) |
//! | RollingUpdate | `RollingUpdateInProgress`   | pods still to replace or not yet ready |
//! | RollingUpdate | `RollingUpdatePartitioned`  | every pod at or above the partition is updated and ready, pods below it are not updated |
//! | RollingUpdate | `RollingUpdateComplete`     | the rollout is complete |
//! | OnDelete      | `OnDeleteWaitingForDeletion`| some pod is not at the update revision or not ready |
//! | OnDelete      | `OnDeleteComplete`          | every pod is at the update revision and ready |
//!
//! The message names the update revision. Recreate messages start with
//! `Recreate to revision <name>:`; the planner reads that prefix to emit the
//! `RecreateStarted` event once per rollout, even across controller restarts.
//! `lastTransitionTime` changes only when the condition's status changes, so
//! an unchanged rollout yields an unchanged status.

use jiff::Timestamp;
use k8s_openapi::api::apps::v1::{StatefulSetCondition, StatefulSetStatus};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use super::pods;

/// Condition type added by KEP-3541.
pub(crate) const PROGRESSING: &str = "Progressing";
/// Recreate: old pods are being deleted, awaited, or new ones created.
pub(crate) const RECREATE_IN_PROGRESS: &str = "RecreateInProgress";
/// Recreate: every replica exists at the update revision.
pub(crate) const RECREATE_COMPLETE: &str = "RecreateComplete";
/// RollingUpdate: pods still to replace or not yet ready.
pub(crate) const ROLLING_UPDATE_IN_PROGRESS: &str = "RollingUpdateInProgress";
/// RollingUpdate: done down to the partition.
pub(crate) const ROLLING_UPDATE_PARTITIONED: &str = "RollingUpdatePartitioned";
/// RollingUpdate: complete.
pub(crate) const ROLLING_UPDATE_COMPLETE: &str = "RollingUpdateComplete";
/// OnDelete: pods wait to be deleted by someone else.
pub(crate) const ON_DELETE_WAITING: &str = "OnDeleteWaitingForDeletion";
/// OnDelete: every pod runs the update revision.
pub(crate) const ON_DELETE_COMPLETE: &str = "OnDeleteComplete";

/// Pod counts of a status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ReplicaCounts {
    /// Pods that exist.
    pub replicas: i32,
    /// Running and Ready.
    pub ready: i32,
    /// Ready for at least minReadySeconds.
    pub available: i32,
    /// Not terminating, at the current revision.
    pub current: i32,
    /// Not terminating, at the update revision.
    pub updated: i32,
}

impl ReplicaCounts {
    /// Counts `pods` as upstream's `computeReplicaStatus`.
    pub(crate) fn of<'a>(
        pods: impl IntoIterator<Item = &'a Pod>,
        min_ready_seconds: i32,
        now: Timestamp,
        current_revision: &str,
        update_revision: &str,
    ) -> Self {
        let mut counts = Self::default();
        for pod in pods {
            if pods::is_created(pod) {
                counts.replicas += 1;
            }
            if pods::is_running_and_ready(pod) {
                counts.ready += 1;
                if pods::is_available(pod, min_ready_seconds, now) {
                    counts.available += 1;
                }
            }
            if pods::is_created(pod) && !pods::is_terminating(pod) {
                let revision = pods::pod_revision(pod);
                if revision == current_revision {
                    counts.current += 1;
                }
                if revision == update_revision {
                    counts.updated += 1;
                }
            }
        }
        counts
    }

    /// The completion rule: updated, ready and existing pods all equal
    /// `spec.replicas`.
    pub(crate) fn complete(&self, spec_replicas: i32) -> bool {
        self.updated == spec_replicas
            && self.ready == spec_replicas
            && self.replicas == spec_replicas
    }
}

/// Reason and message of the `Progressing` condition to set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Progress {
    /// One of the reason constants of this module.
    pub reason: &'static str,
    /// Human-readable detail naming the update revision.
    pub message: String,
}

/// Everything the status is made of.
#[derive(Clone, Debug)]
pub(crate) struct StatusInput<'a> {
    /// The status as observed (for conditions and their transition times).
    pub observed: Option<&'a StatefulSetStatus>,
    /// `.metadata.generation` of the set.
    pub generation: Option<i64>,
    /// Name of the current revision.
    pub current_revision: &'a str,
    /// Name of the update revision.
    pub update_revision: &'a str,
    /// Collision count after revision creation.
    pub collision_count: i32,
    /// Pod counts (after this sync's rolling-update decrements).
    pub counts: ReplicaCounts,
    /// `.spec.replicas`.
    pub spec_replicas: i32,
    /// Whether a complete rollout moves `currentRevision` (not for OnDelete).
    pub completes: bool,
    /// The `Progressing` condition to set; `None` keeps the conditions as observed.
    pub progress: Option<Progress>,
    /// The message of the KEP-3541 draft's `StatefulSetUpdateStrategy`
    /// condition while the set uses EnforcedRollingUpdate; `None` removes it.
    pub enforced: Option<String>,
    /// Time of this sync.
    pub now: Timestamp,
}

/// The desired status. Every field is set explicitly (zeros included) so that
/// a merge patch of it replaces what is stored.
pub(crate) fn build(input: &StatusInput<'_>) -> StatefulSetStatus {
    let counts = input.counts;
    let mut current_revision = input.current_revision.to_string();
    let mut current_replicas = counts.current;
    if input.completes && counts.complete(input.spec_replicas) {
        current_revision = input.update_revision.to_string();
        current_replicas = counts.updated;
    }
    let observed_conditions = input
        .observed
        .and_then(|s| s.conditions.as_deref())
        .unwrap_or(&[]);
    let conditions = match &input.progress {
        Some(progress) => {
            let with = set_condition(observed_conditions, progressing(progress), input.now);
            strategy_condition(with, input.enforced.as_deref(), input.now)
        }
        None => observed_conditions.to_vec(),
    };
    StatefulSetStatus {
        observed_generation: input.generation,
        replicas: counts.replicas,
        ready_replicas: Some(counts.ready),
        available_replicas: Some(counts.available),
        current_replicas: Some(current_replicas),
        updated_replicas: Some(counts.updated),
        current_revision: Some(current_revision),
        update_revision: Some(input.update_revision.to_string()),
        collision_count: Some(input.collision_count),
        conditions: (!conditions.is_empty()).then_some(conditions),
    }
}

fn progressing(progress: &Progress) -> StatefulSetCondition {
    StatefulSetCondition {
        type_: Some(PROGRESSING.to_string()),
        status: Some("True".to_string()),
        reason: Some(progress.reason.to_string()),
        message: Some(progress.message.clone()),
        last_transition_time: None,
    }
}

/// Replaces the condition of the same type in `conditions` (keeping the
/// others in place), stamping `now` as lastTransitionTime unless the
/// condition already had the same status.
/// The draft's `StatefulSetUpdateStrategy` condition ("Monitoring
/// Requirements": "indicates active strategy"): present, `True` with reason
/// `EnforcedRollingUpdate`, while the set uses that strategy; gone otherwise.
fn strategy_condition(
    conditions: Vec<StatefulSetCondition>,
    enforced: Option<&str>,
    now: Timestamp,
) -> Vec<StatefulSetCondition> {
    let kind = super::plan::ENFORCED_CONDITION;
    match enforced {
        Some(message) => set_condition(
            &conditions,
            StatefulSetCondition {
                type_: Some(kind.to_string()),
                status: Some("True".to_string()),
                reason: Some("EnforcedRollingUpdate".to_string()),
                message: Some(message.to_string()),
                last_transition_time: None,
            },
            now,
        ),
        None => conditions
            .into_iter()
            .filter(|c| c.type_.as_deref() != Some(kind))
            .collect(),
    }
}

pub(crate) fn set_condition(
    conditions: &[StatefulSetCondition],
    mut condition: StatefulSetCondition,
    now: Timestamp,
) -> Vec<StatefulSetCondition> {
    let existing = conditions.iter().find(|c| c.type_ == condition.type_);
    condition.last_transition_time = match existing {
        Some(old) if old.status == condition.status && old.last_transition_time.is_some() => {
            old.last_transition_time.clone()
        }
        _ => Some(Time(now)),
    };
    let mut out: Vec<StatefulSetCondition> = Vec::with_capacity(conditions.len() + 1);
    let mut placed = false;
    for c in conditions {
        if c.type_ == condition.type_ {
            if !placed {
                out.push(condition.clone());
                placed = true;
            }
        } else {
            out.push(c.clone());
        }
    }
    if !placed {
        out.push(condition);
    }
    out
}

/// Message prefix of the Recreate `Progressing` condition for a revision.
pub(crate) fn recreate_prefix(update_revision: &str) -> String {
    format!("Recreate to revision {update_revision}:")
}

/// Whether the observed `Progressing` condition already records a Recreate
/// rollout to `update_revision` (so `RecreateStarted` was already emitted).
pub(crate) fn recreate_recorded(
    observed: Option<&StatefulSetStatus>,
    update_revision: &str,
) -> bool {
    let prefix = recreate_prefix(update_revision);
    observed
        .and_then(|s| s.conditions.as_deref())
        .unwrap_or(&[])
        .iter()
        .any(|c| {
            c.type_.as_deref() == Some(PROGRESSING)
                && matches!(
                    c.reason.as_deref(),
                    Some(RECREATE_IN_PROGRESS) | Some(RECREATE_COMPLETE)
                )
                && c.message.as_deref().is_some_and(|m| m.starts_with(&prefix))
        })
}

/// Whether writing `desired` would change `observed`, comparing as the
/// apiserver serves a status (an absent count equals zero, as Go's
/// `omitempty` drops zeros).
pub(crate) fn needs_update(
    observed: Option<&StatefulSetStatus>,
    desired: &StatefulSetStatus,
) -> bool {
    let default = StatefulSetStatus::default();
    let observed = observed.unwrap_or(&default);
    let n = |v: Option<i32>| v.unwrap_or(0);
    let g = |v: Option<i64>| v.unwrap_or(0);
    let s = |v: &Option<String>| v.clone().unwrap_or_default();
    let c = |v: &Option<Vec<StatefulSetCondition>>| v.clone().unwrap_or_default();
    g(observed.observed_generation) != g(desired.observed_generation)
        || observed.replicas != desired.replicas
        || n(observed.ready_replicas) != n(desired.ready_replicas)
        || n(observed.available_replicas) != n(desired.available_replicas)
        || n(observed.current_replicas) != n(desired.current_replicas)
        || n(observed.updated_replicas) != n(desired.updated_replicas)
        || n(observed.collision_count) != n(desired.collision_count)
        || s(&observed.current_revision) != s(&desired.current_revision)
        || s(&observed.update_revision) != s(&desired.update_revision)
        || c(&observed.conditions) != c(&desired.conditions)
}

#[cfg(test)]
mod tests;
