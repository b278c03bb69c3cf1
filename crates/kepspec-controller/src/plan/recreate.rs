//! Step 4: KEP-3541 "Proposed Recreate Strategy Algorithm".
//!
//! The revision of a pod is its `controller-revision-hash` label. Every pod
//! the set owns takes part, whatever its ordinal, so orphans left above the
//! replica count are deleted too. Claims are never deleted.

use k8s_openapi::api::core::v1::Pod;

use super::super::{pods, status};
use super::{Action, DeleteReason, EventSpec, EventType, RecreatePhase, SyncState};
use super::{RECREATE_STARTED, RECREATE_STARTED_MESSAGE};

/// `determine_phase()` of the KEP: old pods not yet deleted, old pods
/// terminating, too few new pods, or complete. New-revision pods that are
/// terminating are ignored (they are recreated once gone).
pub(super) fn determine_phase(
    pods: &[&Pod],
    update_revision: &str,
    replicas: i32,
) -> RecreatePhase {
    let mut old_active = 0;
    let mut old_terminating = 0;
    let mut new_pods = 0;
    for pod in pods {
        let terminating = pods::is_terminating(pod);
        if pods::pod_revision(pod) != update_revision {
            if terminating {
                old_terminating += 1;
            } else {
                old_active += 1;
            }
        } else if !terminating {
            new_pods += 1;
        }
    }
    if old_active > 0 {
        RecreatePhase::NeedsDeletion
    } else if old_terminating > 0 {
        RecreatePhase::WaitingTermination
    } else if new_pods < replicas {
        RecreatePhase::ReadyForCreation
    } else {
        RecreatePhase::Complete
    }
}

/// Phase NeedsDeletion: emit `RecreateStarted` unless the `Progressing`
/// condition already records this rollout, then delete every pod of another
/// revision that is not already terminating, highest ordinal first (pods
/// without an ordinal last), whatever state it is stuck in.
pub(super) fn delete_old_pods(sync: &mut SyncState<'_>, members: &[&Pod]) {
    let observed = sync.set.status.as_ref();
    if !status::recreate_recorded(observed, &sync.update_revision) {
        sync.actions.push(Action::Event(EventSpec {
            type_: EventType::Normal,
            reason: RECREATE_STARTED.to_string(),
            message: RECREATE_STARTED_MESSAGE.to_string(),
        }));
    }
    let mut old: Vec<&Pod> = members
        .iter()
        .copied()
        .filter(|p| pods::pod_revision(p) != sync.update_revision && !pods::is_terminating(p))
        .collect();
    old.sort_by_key(|p| std::cmp::Reverse(pods::ordinal(p)));
    for pod in old {
        let counted_current =
            pods::is_created(pod) && pods::pod_revision(pod) == sync.current_revision;
        if counted_current && pods::ordinal(pod).is_some() {
            sync.current_deleted += 1;
        }
        sync.delete(pod, DeleteReason::Recreate);
    }
}
