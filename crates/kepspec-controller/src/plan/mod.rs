//! The decision core of the bundled StatefulSet controller: one observed
//! state in, one [`Plan`] out. Pure: no I/O, no clock, no async.
//!
//! A sync reads top to bottom like upstream's `updateStatefulSet` with
//! KEP-3541's Recreate algorithm in place of the rolling update:
//!
//! 1. **Revisions** — hash `.spec.template` into the update revision; reuse an
//!    equal revision (rollback raises its number) or create one (a name taken
//!    by different data bumps `collisionCount`); find the current revision.
//! 2. **Split** pods into *replicas* (ordinals in `[start, start+replicas)`,
//!    missing slots filled with new pods) and *condemned* (other ordinals).
//! 3. A set being deleted only gets its status.
//! 4. **Recreate** (KEP-3541): `determine_phase`, then
//!    *NeedsDeletion* — emit `RecreateStarted` once per rollout and delete
//!    every pod of another revision, orphans included; *WaitingTermination* —
//!    nothing; *ReadyForCreation* / *Complete* — create, scale and repair as
//!    in step 5, which follows `podManagementPolicy`.
//! 5. **Replicas**: delete Failed/Succeeded pods, create missing ones (claims
//!    first), repair identity/storage/claim ownership; then scale down the
//!    condemned, highest ordinal first. OrderedReady stops at the first pod
//!    that is terminating, not Running and Ready, or not Available;
//!    Parallel does everything at once.
//! 6. **OnDelete** stops here. **RollingUpdate** replaces pods of other
//!    revisions from the highest ordinal down to the partition: one at a time
//!    waiting on unavailable pods (gate MaxUnavailableStatefulSet off), or
//!    within the `maxUnavailable` budget counted over all replicas (gate on,
//!    KEP-961; Parallel first replaces pods that are already unavailable).
//! 7. **Status** and the `Progressing` condition (see [`super::status`]);
//!    **history** trimmed to `revisionHistoryLimit`.
//!
//! An OpenKruise Advanced StatefulSet (`apps.kruise.io`) goes the same way
//! with its own fields read from the served object ([`kruise`]): reserved
//! ordinals shape the split, `scaleStrategy.maxUnavailable` limits step 5's
//! creations, `paused` and specified deletions come before step 6, whose
//! order follows `unorderedUpdate` and which updates images in place under
//! an in-place `podUpdatePolicy` ([`inplace`]).
//!
//! Actions are listed in the order they must be performed; the executor stops
//! at the first failure and the next sync plans again from what it observes.

mod claims;
mod enforced;
mod history;
mod inplace;
mod kruise;
mod progress;
mod recreate;
mod replicas;
mod rolling;
mod spec;
mod types;

#[cfg(test)]
pub(crate) mod fixtures;
#[cfg(test)]
mod tests;

use std::borrow::Cow;

use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::Pod;

use super::pods;
use super::status::{self, ReplicaCounts, StatusInput};
use spec::Strategy;

pub use enforced::{
    failing, CONDITION as ENFORCED_CONDITION, FORCED_REPLACEMENT, STARTED as ENFORCED_STARTED,
    TYPE as ENFORCED_TYPE,
};
pub use inplace::{images_only, CONDITION as IN_PLACE_UPDATE_READY};
// For the deliberate defects, which distort what the in-place rules decide.
#[cfg(kepspec_defects)]
pub(crate) use inplace::{
    condition as in_place_condition, gated as in_place_gated,
    GRACE_ANNOTATION as IN_PLACE_GRACE_ANNOTATION,
};
pub use kruise::{
    is_kruise, ReservedOrdinals, GROUP as KRUISE_GROUP, LIFECYCLE_STATE, PREPARING_DELETE,
    SPECIFIED_DELETE,
};
pub use types::{
    Action, Batch, ControllerGates, DeleteReason, EventSpec, EventType, Observed, Phase, Plan,
    PlanError, RecreatePhase, ENFORCED_GATE, RECREATE_STARTED, RECREATE_STARTED_MESSAGE,
};

/// One replica slot: an observed pod or the pod to create.
#[derive(Clone, Debug)]
struct Replica<'a> {
    ordinal: i32,
    pod: Cow<'a, Pod>,
}

impl Replica<'_> {
    fn exists(&self) -> bool {
        matches!(self.pod, Cow::Borrowed(_))
    }
}

/// State shared by the steps of one sync.
struct SyncState<'a> {
    obs: &'a Observed<'a>,
    set: &'a StatefulSet,
    monotonic: bool,
    min_ready: i32,
    update_revision: String,
    current_revision: String,
    actions: Vec<Action>,
    /// Slow-start batches over `actions` (see [`Batch`]).
    batches: Vec<Batch>,
    /// Deletions this sync makes of pods counted as current (upstream's
    /// `status.CurrentReplicas--`).
    current_deleted: i32,
    /// The partition, under the KEP-3541 draft's EnforcedRollingUpdate.
    enforced_partition: Option<i32>,
    /// The Advanced StatefulSet fields, when the set is one.
    kruise: Option<kruise::Kruise>,
    /// Sync again after this long (an in-place update's grace period).
    requeue: Option<std::time::Duration>,
}

impl SyncState<'_> {
    fn delete(&mut self, pod: &Pod, reason: DeleteReason) {
        if self.held_by_pre_delete_hook(pod) {
            return;
        }
        self.actions.push(Action::DeletePod {
            name: pod.metadata.name.clone().unwrap_or_default(),
            uid: pod.metadata.uid.clone().unwrap_or_default(),
            reason,
        });
    }

    /// An Advanced StatefulSet's `preDelete` hook holds the pod: it is
    /// labelled `PreparingDelete` instead of deleted (Kruise's `deletePod`).
    fn held_by_pre_delete_hook(&mut self, pod: &Pod) -> bool {
        let Some(marked) = self
            .kruise
            .as_ref()
            .and_then(|k| k.pre_delete.as_ref())
            .and_then(|hook| kruise::mark_preparing_delete(hook, pod))
        else {
            return false;
        };
        if let Some(marked) = marked {
            self.actions.push(Action::UpdatePod(marked));
        }
        true
    }

    /// The replicas the update strategy may touch, highest ordinal first:
    /// ordinals at or above `start + partition`.
    fn staged<'r, 'p>(
        &self,
        replicas: &'r [Replica<'p>],
        partition: i32,
    ) -> impl Iterator<Item = &'r Replica<'p>> {
        let from = pods::start_ordinal(self.set).saturating_add(partition);
        replicas.iter().rev().filter(move |r| r.ordinal >= from)
    }

    fn unavailable(&self, pod: &Pod) -> bool {
        pods::is_unavailable(pod, self.min_ready, self.obs.now)
    }

    fn available(&self, pod: &Pod) -> bool {
        pods::is_available(pod, self.min_ready, self.obs.now)
    }
}

/// Decides one sync of `obs.set`.
pub fn plan(obs: &Observed<'_>, gates: &ControllerGates) -> Result<Plan, PlanError> {
    let set = obs.set;
    let name = set.metadata.name.clone().ok_or(PlanError::MissingName)?;
    spec::check_selector(set, &name)?;
    let kruise = kruise::Kruise::of(obs.set_raw);
    let strategy = spec::strategy(set, obs.set_raw, gates, kruise.is_some(), &name)?;
    let spec_replicas = pods::spec_replicas(set);

    // 1. Revisions.
    let revisions = history::resolve(obs, &name)?;

    // 2. Split pods into replicas and condemned.
    let members: Vec<&Pod> = obs
        .pods
        .iter()
        .map(AsRef::as_ref)
        .filter(|p| pods::is_member(&name, p))
        .collect();
    let enforced_partition = match strategy {
        Strategy::EnforcedRollingUpdate { partition } => Some(partition),
        _ => None,
    };
    let (replicas, condemned) = split(
        set,
        &members,
        &revisions,
        enforced_partition,
        kruise.as_ref(),
    );

    let mut sync = SyncState {
        obs,
        set,
        monotonic: set.spec.pod_management_policy.as_deref() != Some("Parallel"),
        min_ready: set.spec.min_ready_seconds.unwrap_or(0),
        update_revision: revisions.update_name.clone(),
        current_revision: revisions.current_name.clone(),
        actions: revisions.actions.clone(),
        batches: Vec::new(),
        current_deleted: 0,
        enforced_partition,
        kruise,
        requeue: None,
    };

    // 3. A set being deleted only gets its status.
    let phase = if set.metadata.deletion_timestamp.is_some() {
        Phase::Deleting
    } else {
        match strategy {
            // 4. Recreate, per KEP-3541.
            Strategy::Recreate => {
                let phase =
                    recreate::determine_phase(&members, &sync.update_revision, spec_replicas);
                match phase {
                    RecreatePhase::NeedsDeletion => recreate::delete_old_pods(&mut sync, &members),
                    RecreatePhase::WaitingTermination => {}
                    RecreatePhase::ReadyForCreation | RecreatePhase::Complete => {
                        replicas::process(&mut sync, &replicas, &condemned);
                    }
                }
                Phase::Recreate(phase)
            }
            // 5./6. Replicas, then the update strategy.
            Strategy::OnDelete => {
                replicas::process(&mut sync, &replicas, &condemned);
                Phase::OnDelete
            }
            Strategy::RollingUpdate {
                partition,
                max_unavailable,
            } => {
                if replicas::process(&mut sync, &replicas, &condemned) == replicas::Flow::Continue
                    && !kruise::update_step_held(&mut sync, &replicas, max_unavailable)
                {
                    match max_unavailable {
                        Some(budget) => {
                            rolling::within_budget(&mut sync, &replicas, partition, budget)
                        }
                        None => rolling::one_at_a_time(&mut sync, &replicas, partition),
                    }
                }
                Phase::RollingUpdate {
                    partition,
                    max_unavailable,
                }
            }
            // The KEP-3541 draft's EnforcedRollingUpdate.
            Strategy::EnforcedRollingUpdate { partition } => {
                enforced::announce(&mut sync, &replicas, partition);
                if replicas::process(&mut sync, &replicas, &condemned) == replicas::Flow::Continue {
                    enforced::update(&mut sync, &replicas, partition);
                }
                Phase::EnforcedRollingUpdate {
                    partition,
                    safety_halt: enforced::safety_halt(&sync, &replicas, partition),
                }
            }
        }
    };

    // OpenKruise's in-place updates: grace periods and InPlaceUpdateReady.
    if phase != Phase::Deleting {
        inplace::refresh(&mut sync, &replicas);
    }

    // 7. Status, then history.
    // Every member has an ordinal: `pods::is_member` reads it from the name.
    let mut counts = ReplicaCounts::of(
        members.clone(),
        sync.min_ready,
        obs.now,
        &revisions.current_name,
        &revisions.update_name,
    );
    counts.current -= sync.current_deleted;
    let progress = progress::progress(&phase, &counts, spec_replicas, &replicas, &sync);
    let status = status::build(&StatusInput {
        observed: set.status.as_ref(),
        generation: set.metadata.generation,
        current_revision: &revisions.current_name,
        update_revision: &revisions.update_name,
        collision_count: revisions.collision_count,
        counts,
        spec_replicas,
        completes: strategy != Strategy::OnDelete,
        progress,
        enforced: enforced_partition.map(|_| enforced::condition_message(&revisions.update_name)),
        now: obs.now,
    });
    let requeue_after = progress::requeue_after(
        &sync,
        &members,
        status.available_replicas.unwrap_or(0),
        spec_replicas,
    );
    let requeue_after = match (requeue_after, sync.requeue) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let mut actions = sync.actions;
    actions.extend(history::truncate(set, &revisions, &members));
    Ok(Plan {
        actions,
        batches: sync.batches,
        status,
        requeue_after,
        phase,
    })
}

/// Splits pods by ordinal and fills missing slots with the pods to create, at
/// the revision upstream's `newVersionedStatefulSetPod` picks.
fn split<'a>(
    set: &StatefulSet,
    members: &[&'a Pod],
    revisions: &history::Revisions,
    enforced_partition: Option<i32>,
    kruise: Option<&kruise::Kruise>,
) -> (Vec<Replica<'a>>, Vec<&'a Pod>) {
    let start = pods::start_ordinal(set);
    let count = pods::spec_replicas(set);
    // Ordinals in [start, start+replicas), or, for an Advanced StatefulSet,
    // as many from start up as replicas, skipping reserved ordinals; none
    // beyond i32::MAX, the largest ordinal a pod name can carry (upstream's
    // getOrdinal parses it as an int32).
    let none_reserved = kruise::ReservedOrdinals::default();
    let reserved = kruise.map_or(&none_reserved, |k| &k.reserved);
    let ordinals = reserved.replicas(start, count);
    let index_of: std::collections::HashMap<i32, usize> =
        ordinals.iter().enumerate().map(|(i, o)| (*o, i)).collect();
    let mut slots: Vec<Option<&'a Pod>> = vec![None; ordinals.len()];
    let mut condemned = Vec::new();
    for pod in members {
        let Some(ordinal) = pods::ordinal(pod) else {
            continue;
        };
        match index_of.get(&ordinal).and_then(|i| slots.get_mut(*i)) {
            Some(slot) => *slot = Some(pod),
            None => condemned.push(*pod),
        }
    }
    condemned.sort_by_key(|p| std::cmp::Reverse(pods::ordinal(p)));
    let update = set.spec.update_strategy.clone().unwrap_or_default();
    let current_replicas = set
        .status
        .as_ref()
        .and_then(|s| s.current_replicas)
        .unwrap_or(0);
    let replicas = slots
        .into_iter()
        .zip(ordinals.iter().copied())
        .map(|(slot, ordinal)| match slot {
            Some(pod) => Replica {
                ordinal,
                pod: Cow::Borrowed(pod),
            },
            None => {
                // Upstream's expression, precedence included.
                let at_current = (update.type_.as_deref() == Some("RollingUpdate")
                    && update.rolling_update.is_none()
                    && ordinal < start.saturating_add(current_replicas))
                    || update
                        .rolling_update
                        .as_ref()
                        .is_some_and(|r| ordinal < start.saturating_add(r.partition.unwrap_or(0)))
                    // The draft's block is a rollingUpdate block of its own.
                    || enforced_partition.is_some_and(|p| ordinal < start.saturating_add(p));
                let (template, revision) = if at_current {
                    (&revisions.current_template, &revisions.current_name)
                } else {
                    (&set.spec.template, &revisions.update_name)
                };
                Replica {
                    ordinal,
                    pod: Cow::Owned(pods::new_pod(set, template, ordinal, revision)),
                }
            }
        })
        .collect();
    (replicas, condemned)
}
