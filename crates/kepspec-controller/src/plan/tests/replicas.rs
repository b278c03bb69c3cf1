//! Step 5, shared by every strategy: creation order, scaling, failed pods,
//! claims and their retention policy, identity repair.

use serde_json::json;

use super::super::super::pods;
use super::super::fixtures::*;
use super::super::{Action, DeleteReason};

#[test]
fn parallel_creates_every_pod_at_once() {
    let plan = World::new(3).parallel().plan();
    assert_eq!(created_names(&plan), names(&["web-0", "web-1", "web-2"]));
}

#[test]
fn ordered_ready_creates_the_next_pod_only_after_its_predecessor_is_ready() {
    let world = World::new(3).with_revision();
    let rev = world.revision_name();
    assert_eq!(
        created_names(&world.clone().pod(0, &rev, State::Ready).plan()),
        names(&["web-1"])
    );
    assert!(created(&world.clone().pod(0, &rev, State::NotReady).plan()).is_empty());
    assert!(created(&world.pod(0, &rev, State::Terminating).plan()).is_empty());
}

#[test]
fn ordered_ready_waits_for_min_ready_seconds() {
    let world = World::new(3).min_ready(30).with_revision();
    let rev = world.revision_name();
    let plan = world.clone().pod(0, &rev, State::ReadyFor(10)).plan();
    assert!(created(&plan).is_empty());
    let after = plan.requeue_after.unwrap();
    assert!(
        after > std::time::Duration::from_secs(20) && after < std::time::Duration::from_secs(21)
    );
    let plan = world.pod(0, &rev, State::ReadyFor(31)).plan();
    assert_eq!(created_names(&plan), names(&["web-1"]));
    assert_eq!(plan.requeue_after, Some(std::time::Duration::from_secs(30)));
}

#[test]
fn ordinals_start_shifts_the_range() {
    let world = World::new(2)
        .parallel()
        .edit(|s| s["spec"]["ordinals"] = json!({"start": 5}));
    assert_eq!(created_names(&world.plan()), names(&["web-5", "web-6"]));
    // The last ordinal a pod name can carry (upstream's getOrdinal parses
    // an int32) is a replica too, and none follows it.
    let world = World::new(3)
        .parallel()
        .edit(|s| s["spec"]["ordinals"] = json!({"start": i32::MAX - 1}));
    let last = format!("web-{}", i32::MAX);
    let before = format!("web-{}", i32::MAX - 1);
    assert_eq!(created_names(&world.plan()), names(&[&before, &last]));
}

#[test]
fn failed_and_succeeded_pods_are_deleted_then_recreated_later() {
    for state in [State::Failed, State::Succeeded] {
        let world = World::stable(3);
        let rev = world.revision_name();
        let mut world = world;
        world.pods[1] = World::new(3).pod(1, &rev, state).pods[0].clone();
        let plan = world.plan();
        assert_eq!(deleted(&plan), names(&["web-1"]), "{state:?}");
        assert_eq!(delete_reasons(&plan), vec![DeleteReason::Failed]);
        assert!(
            created(&plan).is_empty(),
            "the new pod comes once the old one is gone"
        );
    }
}

#[test]
fn scale_down_ordered_removes_the_highest_ordinal_only() {
    let plan = World::stable(5).replicas(3).plan();
    assert_eq!(deleted(&plan), names(&["web-4"]));
    assert_eq!(delete_reasons(&plan), vec![DeleteReason::ScaleDown]);
}

#[test]
fn scale_down_parallel_removes_every_extra_pod() {
    let plan = World::stable(5).parallel().replicas(3).plan();
    assert_eq!(deleted(&plan), names(&["web-4", "web-3"]));
}

#[test]
fn scale_down_ordered_waits_for_unhealthy_predecessors() {
    let world = World::stable(1);
    let rev = world.revision_name();
    let world = world
        .pod(1, &rev, State::NotReady)
        .pod(2, &rev, State::NotReady);
    assert!(deleted(&world.plan()).is_empty());
    // The first unhealthy pod itself may go.
    let world = World::stable(1)
        .pod(1, &rev, State::Ready)
        .pod(2, &rev, State::NotReady);
    assert_eq!(deleted(&world.plan()), names(&["web-2"]));
}

#[test]
fn scale_down_ordered_waits_for_a_terminating_pod() {
    let world = World::stable(1);
    let rev = world.revision_name();
    let world = world
        .pod(1, &rev, State::Ready)
        .pod(2, &rev, State::Terminating);
    assert!(deleted(&world.plan()).is_empty());
}

#[test]
fn claims_are_created_before_their_pod() {
    let world = World::new(2).claim_template("data");
    let plan = world.plan();
    let kinds: Vec<&str> = plan
        .actions
        .iter()
        .map(|a| match a {
            Action::CreateRevision(_) => "revision",
            Action::CreateClaim { .. } => "claim",
            Action::CreatePod(_) => "pod",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["revision", "claim", "pod"]);
    let Action::CreateClaim { claim, pod } = &plan.actions[1] else {
        unreachable!()
    };
    assert_eq!(claim.metadata.name.as_deref(), Some("data-web-0"));
    assert_eq!(pod, "web-0");
    assert_eq!(
        claim.metadata.owner_references, None,
        "Retain/Retain sets no owner"
    );
}

#[test]
fn existing_claims_are_reused() {
    let world = World::new(2).claim_template("data").claims_of(0);
    let plan = world.plan();
    assert!(!plan
        .actions
        .iter()
        .any(|a| matches!(a, Action::CreateClaim { .. })));
    assert_eq!(created_names(&plan), names(&["web-0"]));
}

#[test]
fn a_claim_being_deleted_blocks_its_pod() {
    let mut world = World::new(2).parallel().claim_template("data").claims_of(0);
    world.claims[0].metadata.deletion_timestamp =
        Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(now()));
    assert!(created(&world.plan()).is_empty());
}

#[test]
fn retention_when_deleted_delete_owns_claims_by_the_set() {
    let world = World::new(1).claim_template("data").edit(|s| {
        s["spec"]["persistentVolumeClaimRetentionPolicy"] =
            json!({"whenDeleted": "Delete", "whenScaled": "Retain"})
    });
    let plan = world.plan();
    let claim = plan
        .actions
        .iter()
        .find_map(|a| match a {
            Action::CreateClaim { claim, .. } => Some(claim),
            _ => None,
        })
        .unwrap();
    let owner = &claim.metadata.owner_references.clone().unwrap()[0];
    assert_eq!(
        (owner.kind.as_str(), owner.uid.as_str(), owner.controller),
        ("StatefulSet", "set-uid", Some(true))
    );
}

#[test]
fn retention_when_scaled_delete_hands_condemned_claims_to_their_pod() {
    let world = World::stable(2)
        .claim_template("data")
        .claims_of(0)
        .claims_of(1)
        .edit(|s| {
            s["spec"]["persistentVolumeClaimRetentionPolicy"] =
                json!({"whenDeleted": "Retain", "whenScaled": "Delete"})
        })
        .replicas(1);
    let plan = world.plan();
    let updated: Vec<_> = plan
        .actions
        .iter()
        .filter_map(|a| match a {
            Action::UpdateClaim(c) => Some(c.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(updated.len(), 1);
    assert_eq!(updated[0].metadata.name.as_deref(), Some("data-web-1"));
    let owner = &updated[0].metadata.owner_references.clone().unwrap()[0];
    assert_eq!((owner.kind.as_str(), owner.name.as_str()), ("Pod", "web-1"));
    // The claim update comes before the pod's deletion.
    let claim_at = plan
        .actions
        .iter()
        .position(|a| matches!(a, Action::UpdateClaim(_)))
        .unwrap();
    let delete_at = plan
        .actions
        .iter()
        .position(|a| matches!(a, Action::DeletePod { .. }))
        .unwrap();
    assert!(claim_at < delete_at);
}

#[test]
fn drifted_identity_is_repaired() {
    let mut world = World::stable(2);
    std::sync::Arc::make_mut(&mut world.pods[1])
        .metadata
        .labels
        .as_mut()
        .unwrap()
        .remove(pods::POD_NAME_LABEL);
    let plan = world.plan();
    let fixed: Vec<_> = plan
        .actions
        .iter()
        .filter_map(|a| match a {
            Action::UpdatePod(p) => Some(p.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(fixed.len(), 1);
    assert_eq!(
        fixed[0].metadata.labels.as_ref().unwrap()[pods::POD_NAME_LABEL],
        "web-1"
    );
}

#[test]
fn pods_of_another_set_are_ignored() {
    let world = World::stable(2);
    let rev = world.revision_name();
    let mut stranger = World::new(1).pod(0, &rev, State::Failed).pods.remove(0);
    std::sync::Arc::make_mut(&mut stranger).metadata.name = Some("webapp-0".into());
    let mut world = world;
    world.pods.push(stranger);
    let plan = world.plan();
    assert!(plan.actions.is_empty(), "{:?}", plan.actions);
    assert_eq!(plan.status.replicas, 2);
}

#[test]
fn a_claim_still_owned_by_a_previous_pod_makes_the_pod_wait() {
    let mut world = World::new(1)
        .claim_template("data")
        .edit(|s| {
            s["spec"]["persistentVolumeClaimRetentionPolicy"] =
                json!({"whenDeleted": "Retain", "whenScaled": "Delete"})
        })
        .claims_of(0);
    world.claims[0].metadata.owner_references = Some(vec![
        k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference {
            api_version: "v1".into(),
            kind: "Pod".into(),
            name: "web-0".into(),
            uid: "old-pod-uid".into(),
            controller: Some(true),
            block_owner_deletion: Some(true),
        },
    ]);
    assert!(created(&world.plan()).is_empty());
}

#[test]
fn a_condemned_pod_not_yet_available_is_looked_at_again_when_it_is() {
    // Scaled from 4 to 2: web-0 and web-1 available (as many as the spec's
    // replicas), the condemned web-3 ready for 1 of its 5 seconds and web-2
    // not ready. Nothing may be deleted yet, and nothing else will change:
    // the plan must come back when web-3 turns available (upstream enqueues
    // minReadySeconds after a pod turns Ready), or the scale-down hangs.
    let world = World::new(2).min_ready(5).with_revision();
    let rev = world.revision_name();
    let plan = world
        .pod(0, &rev, State::ReadyFor(60))
        .pod(1, &rev, State::ReadyFor(60))
        .pod(2, &rev, State::NotReady)
        .pod(3, &rev, State::ReadyFor(1))
        .plan();
    assert!(!plan
        .actions
        .iter()
        .any(|a| matches!(a, Action::DeletePod { .. })));
    let after = plan
        .requeue_after
        .expect("a requeue for web-3's availability");
    assert!(
        after > std::time::Duration::from_secs(3) && after <= std::time::Duration::from_secs(5)
    );
}

#[test]
fn a_pod_whose_claim_is_being_deleted_waits_and_the_set_is_looked_at_again() {
    // web-1 is missing and its claim is on its way out: upstream refuses to
    // create the pod ("pvc ... is being deleted") and retries the sync.
    let world = World::new(2)
        .parallel()
        .claim_template("data")
        .with_revision();
    let rev = world.revision_name();
    let mut world = world.pod(0, &rev, State::Ready).claims_of(1);
    for c in &mut world.claims {
        c.metadata.deletion_timestamp = Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
            jiff::Timestamp::UNIX_EPOCH,
        ));
    }
    let plan = world.plan();
    assert!(created(&plan).is_empty());
    assert!(plan
        .requeue_after
        .is_some_and(|d| d <= std::time::Duration::from_secs(1)));
}

#[test]
fn slow_start_batches_double_up_to_the_cap() {
    use super::super::replicas::{slow_start, MAX_BATCH};
    assert_eq!(slow_start(0), Vec::<std::ops::Range<usize>>::new());
    assert_eq!(slow_start(8), vec![0..1, 1..3, 3..7, 7..8]);
    let big = slow_start(2000);
    assert!(big.iter().all(|r| r.len() <= MAX_BATCH));
    assert_eq!(big.last().map(|r| r.end), Some(2000));
    assert_eq!(big[9], 511..1011);
}

#[test]
fn parallel_creations_go_in_slow_start_batches_each_pod_a_lane_with_its_claims() {
    let world = World::new(8)
        .claim_template("data")
        .edit(|s| s["spec"]["podManagementPolicy"] = json!("Parallel"));
    let plan = world.plan();
    let sizes: Vec<usize> = plan.batches.iter().map(|b| b.lanes.len()).collect();
    assert_eq!(sizes, vec![1, 2, 4, 1]);
    for batch in &plan.batches {
        for lane in &batch.lanes {
            let kinds: Vec<&str> = plan.actions[lane.clone()]
                .iter()
                .map(|a| match a {
                    Action::CreateClaim { .. } => "claim",
                    Action::CreatePod(_) => "pod",
                    _ => "other",
                })
                .collect();
            assert_eq!(kinds, vec!["claim", "pod"]);
        }
    }
    // OrderedReady creates one pod and runs it alone.
    let ordered = World::new(8).claim_template("data").plan();
    assert!(ordered.batches.is_empty());
}

#[test]
fn parallel_scale_down_deletes_in_slow_start_batches() {
    let world = World::stable(7)
        .edit(|s| s["spec"]["podManagementPolicy"] = json!("Parallel"))
        .replicas(0);
    let plan = world.plan();
    let sizes: Vec<usize> = plan.batches.iter().map(|b| b.lanes.len()).collect();
    assert_eq!(sizes, vec![1, 2, 4]);
    let first = &plan.actions[plan.batches[0].lanes[0].clone()];
    assert!(matches!(&first[0], Action::DeletePod { name, .. } if name == "web-6"));
}
