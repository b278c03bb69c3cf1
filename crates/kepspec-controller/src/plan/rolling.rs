//! Step 6: RollingUpdate. Pods of other revisions are deleted from the
//! highest ordinal down to the partition; step 5 of a later sync recreates
//! them at the update revision.

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::super::pods;
use super::{DeleteReason, Replica, SyncState};

/// `maxUnavailable` as a number of pods: an integer, or a percentage of
/// `replicas` rounded down; never less than 1; 1 when unset (KEP-961).
pub(super) fn max_unavailable(value: Option<&IntOrString>, replicas: i32) -> Result<i32, String> {
    let scaled = match value {
        None => 1,
        Some(IntOrString::Int(n)) => *n,
        Some(IntOrString::String(text)) => {
            let Some(number) = text.strip_suffix('%') else {
                return Err(
                    "invalid value for IntOrString: invalid type: string is not a percentage"
                        .to_string(),
                );
            };
            let percent: i64 = number.parse().map_err(|_| {
                format!("invalid value for IntOrString: invalid value {text:?}: strconv.Atoi: parsing {number:?}: invalid syntax")
            })?;
            let scaled = (percent * i64::from(replicas)).div_euclid(100);
            i32::try_from(scaled).unwrap_or(i32::MAX)
        }
    };
    Ok(scaled.max(1))
}

fn needs_update(sync: &SyncState<'_>, replica: &Replica<'_>) -> bool {
    pods::pod_revision(&replica.pod) != sync.update_revision && !pods::is_terminating(&replica.pod)
}

/// Replaces a pod of another revision: deletes it, or, for an OpenKruise
/// set with an in-place policy, updates its images in place (or leaves it,
/// under InPlaceOnly, when that cannot be done). Returns whether it acted.
fn delete_for_update(sync: &mut SyncState<'_>, replica: &Replica<'_>) -> bool {
    match super::inplace::way(sync, &replica.pod) {
        super::inplace::Way::Recreate => sync.delete(&replica.pod, DeleteReason::RollingUpdate),
        super::inplace::Way::InPlace => super::inplace::start(sync, replica),
        super::inplace::Way::Hold => return false,
    }
    sync.current_deleted += 1;
    true
}

/// The pods the rolling update may replace, in the order it replaces them:
/// from the highest ordinal down to the partition; for an Advanced
/// StatefulSet with `unorderedUpdate` (Parallel), pods updated or
/// terminating first, then the rest by their priority, `replicas -
/// partition` of them in all (Kruise's `sortPodsToUpdate`, where the
/// partition counts pods left alone).
fn candidates<'r, 'p>(
    sync: &SyncState<'_>,
    replicas: &'r [Replica<'p>],
    partition: i32,
) -> Vec<&'r Replica<'p>> {
    let priority = sync
        .kruise
        .as_ref()
        .and_then(|k| k.priority.as_ref())
        .filter(|_| !sync.monotonic);
    let Some(priority) = priority else {
        return sync.staged(replicas, partition).collect();
    };
    let (mut first, mut rest): (Vec<_>, Vec<_>) =
        replicas.iter().rev().partition(|r| !needs_update(sync, r));
    priority.sort(&mut rest);
    first.append(&mut rest);
    let keep = replicas
        .len()
        .saturating_sub(usize::try_from(partition).unwrap_or(0));
    first.truncate(keep);
    first
}

/// Gate MaxUnavailableStatefulSet off: delete the highest-ordinal pod of
/// another revision; wait while a pod on the way down is unavailable.
pub(super) fn one_at_a_time(sync: &mut SyncState<'_>, replicas: &[Replica<'_>], partition: i32) {
    for replica in candidates(sync, replicas, partition) {
        if needs_update(sync, replica) && delete_for_update(sync, replica) {
            return;
        }
        if sync.unavailable(&replica.pod) {
            return;
        }
    }
}

/// Gate MaxUnavailableStatefulSet on (KEP-961): unavailable replicas are
/// counted over the whole range; while fewer than the budget, pods of other
/// revisions are deleted from the highest ordinal down to the partition.
/// Parallel first deletes old pods that are unavailable anyway, then spends
/// the remaining budget on available ones.
pub(super) fn within_budget(
    sync: &mut SyncState<'_>,
    replicas: &[Replica<'_>],
    partition: i32,
    budget: i32,
) {
    let parallel = !sync.monotonic;
    let candidates = candidates(sync, replicas, partition);
    let mut unavailable = 0;
    let mut unavailable_needing_update = 0;
    for replica in replicas {
        if sync.unavailable(&replica.pod) {
            unavailable += 1;
            if parallel && needs_update(sync, replica) {
                unavailable_needing_update += 1;
            }
        }
    }
    if unavailable >= budget && unavailable_needing_update == 0 {
        return;
    }

    if parallel {
        // Old pods that are unavailable anyway go first.
        for replica in candidates.iter().copied() {
            if needs_update(sync, replica) && !sync.available(&replica.pod) {
                delete_for_update(sync, replica);
            }
        }
        // Then available old pods, within what is left of the budget.
        let mut remaining = budget - unavailable;
        for replica in candidates.iter().copied() {
            if remaining <= 0 {
                break;
            }
            if needs_update(sync, replica)
                && sync.available(&replica.pod)
                && delete_for_update(sync, replica)
            {
                remaining -= 1;
            }
        }
        return;
    }

    let mut remaining = budget - unavailable;
    for replica in candidates {
        if remaining <= 0 {
            break;
        }
        if needs_update(sync, replica) && delete_for_update(sync, replica) {
            remaining -= 1;
        }
    }
}
