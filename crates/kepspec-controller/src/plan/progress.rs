//! The `Progressing` condition of a sync and when to look again.

use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;

use super::super::pods;
use super::super::status::{self, Progress, ReplicaCounts};
use super::{Phase, RecreatePhase, Replica, SyncState};

/// Reason and message of the `Progressing` condition (see [`super::super::status`]);
/// `None` for a set being deleted, whose conditions are kept.
pub(super) fn progress(
    phase: &Phase,
    counts: &ReplicaCounts,
    spec_replicas: i32,
    replicas: &[Replica<'_>],
    sync: &SyncState<'_>,
) -> Option<Progress> {
    let update = &sync.update_revision;
    let complete = counts.complete(spec_replicas);
    let tally = format!(
        "{} of {} pods updated, {} ready",
        counts.updated, spec_replicas, counts.ready
    );
    let (reason, message) = match phase {
        Phase::Deleting => return None,
        Phase::Recreate(recreate) => {
            let prefix = status::recreate_prefix(update);
            match recreate {
                RecreatePhase::NeedsDeletion => (
                    status::RECREATE_IN_PROGRESS,
                    format!("{prefix} deleting pods of other revisions"),
                ),
                RecreatePhase::WaitingTermination => (
                    status::RECREATE_IN_PROGRESS,
                    format!("{prefix} waiting for pods of other revisions to terminate"),
                ),
                RecreatePhase::ReadyForCreation => (
                    status::RECREATE_IN_PROGRESS,
                    format!("{prefix} creating pods, {tally}"),
                ),
                RecreatePhase::Complete => (status::RECREATE_COMPLETE, format!("{prefix} {tally}")),
            }
        }
        Phase::RollingUpdate { partition, .. } | Phase::EnforcedRollingUpdate { partition, .. } => {
            let label = match phase {
                Phase::EnforcedRollingUpdate { .. } => "Enforced rolling update",
                _ => "Rolling update",
            };
            let staged_done = replicas
                .iter()
                .skip(usize::try_from(*partition).unwrap_or(0))
                .all(|r| {
                    r.exists()
                        && pods::pod_revision(&r.pod) == update.as_str()
                        && pods::is_healthy(&r.pod)
                });
            let reason = if complete {
                status::ROLLING_UPDATE_COMPLETE
            } else if *partition > 0 && staged_done {
                status::ROLLING_UPDATE_PARTITIONED
            } else {
                status::ROLLING_UPDATE_IN_PROGRESS
            };
            (reason, format!("{label} to revision {update}: {tally}"))
        }
        Phase::OnDelete => {
            let reason = if complete {
                status::ON_DELETE_COMPLETE
            } else {
                status::ON_DELETE_WAITING
            };
            (
                reason,
                format!("OnDelete update to revision {update}: {tally}"),
            )
        }
    };
    Some(Progress { reason, message })
}

/// When to look again because a pod turns available by the clock alone.
/// Upstream enqueues a set `minReadySeconds` (plus a second) after any of
/// its pods turns Ready (`updatePod` in statefulset_controller.go), and after
/// `minReadySeconds` while not every replica is available; this requeues
/// when the first Ready pod (a replica or a condemned one) turns available,
/// and else after `minReadySeconds` while not every replica is available.
pub(super) fn requeue_after(
    sync: &SyncState<'_>,
    members: &[&Pod],
    available: i32,
    spec_replicas: i32,
) -> Option<Duration> {
    if sync.min_ready <= 0 {
        return None;
    }
    let full = Duration::from_secs(u64::try_from(sync.min_ready).unwrap_or(0));
    let soonest = members
        .iter()
        .filter_map(|p| pods::until_available(p, sync.min_ready, sync.obs.now))
        .map(|d| d.unsigned_abs() + Duration::from_millis(1))
        .min();
    match soonest {
        Some(d) => Some(d.min(full)),
        None => (available != spec_replicas).then_some(full),
    }
}
