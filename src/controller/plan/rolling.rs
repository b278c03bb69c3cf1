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

fn delete_for_update(sync: &mut SyncState<'_>, replica: &Replica<'_>) {
    sync.delete(&replica.pod, DeleteReason::RollingUpdate);
    sync.current_deleted += 1;
}

/// Gate MaxUnavailableStatefulSet off: delete the highest-ordinal pod of
/// another revision; wait while a pod on the way down is unavailable.
pub(super) fn one_at_a_time(sync: &mut SyncState<'_>, replicas: &[Replica<'_>], partition: i32) {
    let update_min = usize::try_from(partition).unwrap_or(0);
    for replica in replicas.iter().skip(update_min).rev() {
        if needs_update(sync, replica) {
            delete_for_update(sync, replica);
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
    let update_min = usize::try_from(partition).unwrap_or(0);
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
        for replica in replicas.iter().skip(update_min).rev() {
            if needs_update(sync, replica) && !sync.available(&replica.pod) {
                delete_for_update(sync, replica);
            }
        }
        // Then available old pods, within what is left of the budget.
        let mut remaining = budget - unavailable;
        for replica in replicas.iter().skip(update_min).rev() {
            if remaining <= 0 {
                break;
            }
            if needs_update(sync, replica) && sync.available(&replica.pod) {
                delete_for_update(sync, replica);
                remaining -= 1;
            }
        }
        return;
    }

    let mut remaining = budget - unavailable;
    for replica in replicas.iter().skip(update_min).rev() {
        if remaining <= 0 {
            break;
        }
        if needs_update(sync, replica) {
            delete_for_update(sync, replica);
            remaining -= 1;
        }
    }
}
