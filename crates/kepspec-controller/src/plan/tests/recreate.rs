//! KEP-3541 Recreate: every phase, stuck pods, orphans, the event, resuming.

use super::super::super::status;
use super::super::fixtures::*;
use super::super::{Action, DeleteReason, Phase, RecreatePhase};

/// Three Ready pods at revision A, strategy Recreate, template changed to B.
fn rollout() -> (World, String, String) {
    let before = World::stable(3).recreate();
    let old = before.revision_name();
    let world = before.image("app:2");
    let new = world.revision_name();
    (world, old, new)
}

#[test]
fn needs_deletion_deletes_every_old_pod_at_once() {
    let (world, _, new) = rollout();
    let plan = world.plan();
    assert_eq!(plan.phase, Phase::Recreate(RecreatePhase::NeedsDeletion));
    assert_eq!(deleted(&plan), names(&["web-2", "web-1", "web-0"]));
    assert!(delete_reasons(&plan)
        .iter()
        .all(|r| *r == DeleteReason::Recreate));
    assert!(created(&plan).is_empty());
    assert_eq!(events(&plan), names(&["RecreateStarted"]));
    let (reason, message) = progressing(&plan);
    assert_eq!(reason, status::RECREATE_IN_PROGRESS);
    assert!(
        message.starts_with(&status::recreate_prefix(&new)),
        "{message}"
    );
    // The revision is created before anything else, the event before deletions.
    assert!(matches!(plan.actions[0], Action::CreateRevision(_)));
    assert!(matches!(plan.actions[1], Action::Event(_)));
}

#[test]
fn stuck_pods_are_deleted_whatever_their_state() {
    for stuck in [
        State::ImagePullBackOff,
        State::Pending,
        State::CrashLoopBackOff,
        State::NotReady,
        State::Failed,
    ] {
        let world = World::new(3).recreate().with_revision();
        let old = world.revision_name();
        let world = world
            .pod(0, &old, State::Ready)
            .pod(1, &old, stuck)
            .pod(2, &old, stuck)
            .image("app:fixed");
        let plan = world.plan();
        assert_eq!(
            deleted(&plan),
            names(&["web-2", "web-1", "web-0"]),
            "{stuck:?}"
        );
        assert!(created(&plan).is_empty(), "{stuck:?}");
    }
}

#[test]
fn stuck_pods_of_a_broken_update_revision_are_replaced_by_the_fix() {
    // A first rollout to a bad image left new pods in ImagePullBackOff; the
    // fixed template makes them old, so they are deleted.
    let world = World::new(2).recreate().image("app:typo").with_revision();
    let broken = world.revision_name();
    let world = world
        .pod(0, &broken, State::ImagePullBackOff)
        .pod(1, &broken, State::ImagePullBackOff)
        .settle_status()
        .image("app:2");
    let plan = world.plan();
    assert_eq!(plan.phase, Phase::Recreate(RecreatePhase::NeedsDeletion));
    assert_eq!(deleted(&plan), names(&["web-1", "web-0"]));
}

#[test]
fn orphans_with_ordinals_beyond_replicas_are_deleted_too() {
    let (world, old, _) = rollout();
    let world = world.pod(5, &old, State::Ready).replicas(3);
    let plan = world.plan();
    assert_eq!(deleted(&plan), names(&["web-5", "web-2", "web-1", "web-0"]));
}

#[test]
fn started_event_is_emitted_once_per_rollout() {
    let (world, _, _) = rollout();
    let first = world.plan();
    assert_eq!(events(&first), names(&["RecreateStarted"]));
    // The executor wrote the status, but some deletions failed: the phase is
    // still NeedsDeletion, yet the condition already records this rollout.
    let again = world.clone().status(first.status.clone()).plan();
    assert_eq!(again.phase, Phase::Recreate(RecreatePhase::NeedsDeletion));
    assert!(events(&again).is_empty());
    // A controller restart sees the same status: still no second event.
    let restarted = world.clone().status(first.status).plan();
    assert!(events(&restarted).is_empty());
}

#[test]
fn a_new_template_during_a_recreate_starts_a_new_rollout() {
    let (world, _, _) = rollout();
    let first = world.plan();
    let world = world.status(first.status).image("app:3");
    let plan = world.plan();
    assert_eq!(events(&plan), names(&["RecreateStarted"]));
}

#[test]
fn resume_in_needs_deletion_deletes_only_what_is_left() {
    let world = World::new(3).recreate().with_revision();
    let old = world.revision_name();
    let world = world
        .pod(0, &old, State::Ready)
        .pod(1, &old, State::Terminating)
        .pod(2, &old, State::Terminating)
        .settle_status()
        .image("app:2");
    let plan = world.plan();
    assert_eq!(plan.phase, Phase::Recreate(RecreatePhase::NeedsDeletion));
    assert_eq!(deleted(&plan), names(&["web-0"]));
}

#[test]
fn waiting_termination_does_nothing_until_old_pods_are_gone() {
    let world = World::new(3).recreate().with_revision();
    let old = world.revision_name();
    let world = world
        .pod(1, &old, State::Terminating)
        .pod(7, &old, State::Terminating)
        .settle_status()
        .image("app:2");
    let plan = world.plan();
    assert_eq!(
        plan.phase,
        Phase::Recreate(RecreatePhase::WaitingTermination)
    );
    assert!(deleted(&plan).is_empty());
    assert!(
        created(&plan).is_empty(),
        "no new pod while an old one exists"
    );
    assert!(events(&plan).is_empty());
    assert_eq!(progressing(&plan).0, status::RECREATE_IN_PROGRESS);
}

#[test]
fn ready_for_creation_ordered_creates_one_pod_at_a_time() {
    let world = World::new(3).recreate().image("app:2").with_revision();
    let new = world.revision_name();
    let plan = world.plan();
    assert_eq!(plan.phase, Phase::Recreate(RecreatePhase::ReadyForCreation));
    assert_eq!(created(&plan), vec![("web-0".to_string(), new.clone())]);

    let next = world.clone().pod(0, &new, State::Ready).plan();
    assert_eq!(created_names(&next), names(&["web-1"]));

    let blocked = world.pod(0, &new, State::CrashLoopBackOff).plan();
    assert!(
        created(&blocked).is_empty(),
        "waits for web-0 to be Running and Ready"
    );
}

#[test]
fn ready_for_creation_parallel_creates_all_missing_pods() {
    let world = World::new(3)
        .recreate()
        .parallel()
        .image("app:2")
        .with_revision();
    let new = world.revision_name();
    let plan = world.pod(1, &new, State::Pending).plan();
    assert_eq!(created_names(&plan), names(&["web-0", "web-2"]));
    assert!(created(&plan).iter().all(|(_, rev)| *rev == new));
}

#[test]
fn terminating_new_pods_are_ignored_and_recreated_once_gone() {
    let world = World::new(3).recreate().parallel().with_revision();
    let new = world.revision_name();
    let world = world
        .pod(0, &new, State::Ready)
        .pod(1, &new, State::Terminating)
        .pod(2, &new, State::Ready);
    let plan = world.plan();
    assert_eq!(plan.phase, Phase::Recreate(RecreatePhase::ReadyForCreation));
    assert!(created(&plan).is_empty(), "web-1 still exists");
}

#[test]
fn complete_when_every_replica_exists_at_the_update_revision() {
    let world = World::new(2).recreate().with_revision();
    let new = world.revision_name();
    let plan = world
        .pod(0, &new, State::Ready)
        .pod(1, &new, State::NotReady)
        .plan();
    assert_eq!(plan.phase, Phase::Recreate(RecreatePhase::Complete));
    assert!(plan.actions.is_empty());
    assert_eq!(progressing(&plan).0, status::RECREATE_COMPLETE);
}

#[test]
fn complete_rollout_advances_the_current_revision() {
    let (world, _, new) = rollout();
    let world = World {
        pods: Vec::new(),
        ..world.with_revision()
    };
    let world = world
        .pod(0, &new, State::Ready)
        .pod(1, &new, State::Ready)
        .pod(2, &new, State::Ready);
    let plan = world.plan();
    assert_eq!(plan.status.current_revision.as_deref(), Some(new.as_str()));
    assert_eq!(plan.status.current_replicas, Some(3));
}

#[test]
fn scale_down_still_works_once_complete() {
    let world = World::new(3).recreate().with_revision();
    let new = world.revision_name();
    let world = world
        .pod(0, &new, State::Ready)
        .pod(1, &new, State::Ready)
        .pod(2, &new, State::Ready)
        .replicas(2);
    let plan = world.plan();
    assert_eq!(deleted(&plan), names(&["web-2"]));
    assert_eq!(delete_reasons(&plan), vec![DeleteReason::ScaleDown]);
}

#[test]
fn claims_are_kept() {
    let (world, _, _) = rollout();
    let world = world
        .claim_template("data")
        .claims_of(0)
        .claims_of(1)
        .claims_of(2);
    let plan = world.plan();
    assert_eq!(deleted(&plan).len(), 3);
    assert!(plan
        .actions
        .iter()
        .all(|a| !matches!(a, Action::UpdateClaim(_) | Action::CreateClaim { .. })));
}

#[test]
fn deletions_lower_current_replicas() {
    let (world, old, _) = rollout();
    let plan = world.plan();
    assert_eq!(plan.status.current_revision.as_deref(), Some(old.as_str()));
    assert_eq!(plan.status.current_replicas, Some(0));
    assert_eq!(
        plan.status.replicas, 3,
        "deleted pods still exist until they are gone"
    );
}
