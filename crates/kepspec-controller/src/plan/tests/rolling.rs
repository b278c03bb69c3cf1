//! RollingUpdate with and without KEP-961 maxUnavailable, OnDelete, gates.

use serde_json::json;

use super::super::super::status;
use super::super::fixtures::*;
use super::super::rolling::max_unavailable;
use super::super::{ControllerGates, DeleteReason, Phase};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

fn gates(recreate: bool, max_unavailable: bool) -> ControllerGates {
    ControllerGates {
        statefulset_recreate_strategy: recreate,
        max_unavailable_statefulset: max_unavailable,
        enforced_rolling_update_in_statefulset: false,
    }
}

/// `replicas` Ready pods at revision A; template changed to B.
fn rollout(world: World) -> (World, String, String) {
    let old = world.revision_name();
    let world = world.image("app:2");
    let new = world.revision_name();
    (world, old, new)
}

#[test]
fn one_at_a_time_deletes_the_highest_old_pod() {
    let (world, _, _) = rollout(World::stable(3).gates(gates(true, false)));
    let plan = world.plan();
    assert_eq!(deleted(&plan), names(&["web-2"]));
    assert_eq!(delete_reasons(&plan), vec![DeleteReason::RollingUpdate]);
    assert_eq!(plan.status.current_replicas, Some(2));
    assert_eq!(
        plan.phase,
        Phase::RollingUpdate {
            partition: 0,
            max_unavailable: None
        }
    );
    assert_eq!(progressing(&plan).0, status::ROLLING_UPDATE_IN_PROGRESS);
}

#[test]
fn one_at_a_time_waits_for_an_unavailable_updated_pod() {
    let (mut world, _, new) = rollout(World::stable(3).parallel().gates(gates(true, false)));
    world.pods[2] = World::new(3).pod(2, &new, State::NotReady).pods[0].clone();
    assert!(deleted(&world.plan()).is_empty());
}

#[test]
fn gate_off_ignores_max_unavailable() {
    let (world, _, _) = rollout(
        World::stable(5)
            .max_unavailable(json!(3))
            .gates(gates(true, false)),
    );
    assert_eq!(deleted(&world.plan()), names(&["web-4"]));
}

#[test]
fn gate_off_does_not_parse_max_unavailable() {
    let world = World::stable(3)
        .max_unavailable(json!("bad"))
        .gates(gates(true, false));
    assert!(super::super::plan(&world.observed(), &world.gates).is_ok());
}

#[test]
fn budget_deletes_up_to_max_unavailable_from_the_top() {
    let (world, _, _) = rollout(World::stable(5).max_unavailable(json!(2)));
    let plan = world.plan();
    assert_eq!(deleted(&plan), names(&["web-4", "web-3"]));
    assert_eq!(plan.status.current_replicas, Some(3));
    assert_eq!(
        plan.phase,
        Phase::RollingUpdate {
            partition: 0,
            max_unavailable: Some(2)
        }
    );
}

#[test]
fn partition_with_fewer_staged_pods_than_the_budget() {
    let (world, _, _) = rollout(World::stable(5).partition(3).max_unavailable(json!(3)));
    assert_eq!(deleted(&world.plan()), names(&["web-4", "web-3"]));
}

#[test]
fn partition_with_as_many_staged_pods_as_the_budget() {
    let (world, _, _) = rollout(World::stable(5).partition(3).max_unavailable(json!(2)));
    assert_eq!(deleted(&world.plan()), names(&["web-4", "web-3"]));
}

#[test]
fn partition_with_more_staged_pods_than_the_budget() {
    let (world, _, _) = rollout(World::stable(5).partition(1).max_unavailable(json!(2)));
    assert_eq!(deleted(&world.plan()), names(&["web-4", "web-3"]));
}

#[test]
fn percentages_round_down_with_a_floor_of_one() {
    let pct = |p: &str| Some(IntOrString::String(p.to_string()));
    assert_eq!(max_unavailable(pct("50%").as_ref(), 5), Ok(2));
    assert_eq!(max_unavailable(pct("10%").as_ref(), 5), Ok(1));
    assert_eq!(max_unavailable(pct("1%").as_ref(), 5), Ok(1));
    assert_eq!(max_unavailable(pct("100%").as_ref(), 5), Ok(5));
    assert_eq!(max_unavailable(Some(&IntOrString::Int(3)), 5), Ok(3));
    assert_eq!(max_unavailable(None, 5), Ok(1));
    assert!(max_unavailable(pct("50").as_ref(), 5)
        .unwrap_err()
        .contains("not a percentage"));
    assert!(max_unavailable(pct("x%").as_ref(), 5).is_err());
}

#[test]
fn percentage_budget_applies_to_the_plan() {
    let (world, _, _) = rollout(World::stable(5).max_unavailable(json!("50%")));
    assert_eq!(deleted(&world.plan()), names(&["web-4", "web-3"]));
    let (world, _, _) = rollout(World::stable(5).max_unavailable(json!("10%")));
    assert_eq!(deleted(&world.plan()), names(&["web-4"]));
}

#[test]
fn parallel_spent_budget_blocks_further_deletions() {
    let (world, old, new) = rollout(
        World::new(4)
            .parallel()
            .max_unavailable(json!(2))
            .with_revision(),
    );
    let world = world
        .pod(0, &old, State::Ready)
        .pod(1, &old, State::Ready)
        .pod(2, &new, State::NotReady)
        .pod(3, &new, State::Pending);
    assert!(deleted(&world.plan()).is_empty());
}

#[test]
fn parallel_replaces_broken_old_pods_first() {
    // Regression #137409: unavailable old-revision pods no longer block.
    let (world, old, new) = rollout(
        World::new(5)
            .parallel()
            .max_unavailable(json!(1))
            .with_revision(),
    );
    let world = world
        .pod(0, &old, State::Ready)
        .pod(1, &old, State::CrashLoopBackOff)
        .pod(2, &old, State::ImagePullBackOff)
        .pod(3, &new, State::Ready)
        .pod(4, &old, State::CrashLoopBackOff);
    let plan = world.plan();
    assert_eq!(deleted(&plan), names(&["web-4", "web-2", "web-1"]));
}

#[test]
fn parallel_respects_min_ready_seconds() {
    // Regression #112307: pods Ready for less than minReadySeconds are unavailable.
    let (world, old, new) = rollout(
        World::new(4)
            .parallel()
            .min_ready(30)
            .max_unavailable(json!(2))
            .with_revision(),
    );
    let world = world
        .pod(0, &old, State::Ready)
        .pod(1, &old, State::Ready)
        .pod(2, &new, State::ReadyFor(5))
        .pod(3, &new, State::ReadyFor(10));
    let plan = world.plan();
    assert!(deleted(&plan).is_empty());
    // Requeued when web-3 turns available (after 20 s).
    let after = plan.requeue_after.unwrap();
    assert!(
        after > std::time::Duration::from_secs(20) && after < std::time::Duration::from_secs(21),
        "{after:?}"
    );
}

#[test]
fn ordered_ready_waits_for_every_pod_before_updating() {
    let (mut world, _, _) = rollout(World::stable(3).max_unavailable(json!(3)));
    let old = world.pods[1].clone();
    world.pods[1] = World::new(3)
        .pod(
            1,
            super::super::super::pods::pod_revision(&old),
            State::NotReady,
        )
        .pods[0]
        .clone();
    assert!(deleted(&world.plan()).is_empty());
}

#[test]
fn updated_pods_are_recreated_at_the_update_revision() {
    let (world, old, new) = rollout(World::new(3).with_revision());
    let world = world.pod(0, &old, State::Ready).pod(1, &old, State::Ready);
    assert_eq!(created(&world.plan()), vec![("web-2".to_string(), new)]);
}

#[test]
fn pods_below_the_partition_are_created_at_the_current_revision() {
    let world = World::stable(3).partition(2);
    let (world, old, _) = rollout(world);
    let world = World {
        pods: world.pods[1..].to_vec(),
        ..world
    };
    assert_eq!(created(&world.plan()), vec![("web-0".to_string(), old)]);
}

#[test]
fn progressing_reasons_follow_the_rollout() {
    let stable = World::stable(3);
    assert_eq!(
        progressing(&stable.plan()).0,
        status::ROLLING_UPDATE_COMPLETE
    );

    let (world, old, new) = rollout(World::new(3).partition(1).with_revision());
    let world = world
        .with_revision()
        .pod(0, &old, State::Ready)
        .pod(1, &new, State::Ready)
        .pod(2, &new, State::Ready);
    assert_eq!(
        progressing(&world.plan()).0,
        status::ROLLING_UPDATE_PARTITIONED
    );
}

#[test]
fn complete_rollout_advances_the_current_revision() {
    let (world, old, new) = rollout(World::stable(2));
    let world = World {
        pods: Vec::new(),
        ..world.with_revision()
    };
    let world = world.pod(0, &new, State::Ready).pod(1, &new, State::Ready);
    assert_eq!(
        world
            .set
            .status
            .as_ref()
            .unwrap()
            .current_revision
            .as_deref(),
        Some(old.as_str())
    );
    let plan = world.plan();
    assert_eq!(plan.status.current_revision.as_deref(), Some(new.as_str()));
    assert_eq!(plan.status.updated_replicas, Some(2));
}

#[test]
fn recreate_with_its_gate_off_rolls_one_pod_at_a_time() {
    let (world, _, _) = rollout(World::stable(3).recreate().gates(gates(false, true)));
    let plan = world.plan();
    assert_eq!(deleted(&plan), names(&["web-2"]));
    assert!(events(&plan).is_empty());
    assert_eq!(
        plan.phase,
        Phase::RollingUpdate {
            partition: 0,
            max_unavailable: Some(1)
        }
    );
    let (world, _, _) = rollout(World::stable(3).recreate().gates(gates(false, false)));
    assert_eq!(deleted(&world.plan()), names(&["web-2"]));
}

#[test]
fn on_delete_never_deletes_for_an_update() {
    let (world, old, new) = rollout(World::stable(3).on_delete());
    let plan = world.plan();
    assert!(deleted(&plan).is_empty());
    assert_eq!(plan.phase, Phase::OnDelete);
    assert_eq!(progressing(&plan).0, status::ON_DELETE_WAITING);
    // A pod deleted by someone else comes back at the update revision.
    let world = World {
        pods: world.pods[..2].to_vec(),
        ..world
    };
    assert_eq!(created(&world.plan()), vec![("web-2".to_string(), new)]);
    assert_ne!(old, world.revision_name());
}

#[test]
fn a_budget_larger_than_replicas_replaces_every_pod_at_once() {
    let (world, _, _) = rollout(World::stable(3).max_unavailable(json!(5)));
    assert_eq!(deleted(&world.plan()), names(&["web-2", "web-1", "web-0"]));
}

#[test]
fn on_delete_completes_when_every_pod_was_replaced() {
    let (world, _, new) = rollout(World::stable(2).on_delete());
    let world = World {
        pods: Vec::new(),
        ..world
    };
    let world = world.pod(0, &new, State::Ready).pod(1, &new, State::Ready);
    let plan = world.plan();
    assert_eq!(progressing(&plan).0, status::ON_DELETE_COMPLETE);
    // Upstream never moves currentRevision for OnDelete.
    assert_ne!(plan.status.current_revision.as_deref(), Some(new.as_str()));
}

#[test]
fn parallel_over_budget_still_replaces_broken_old_pods_only() {
    let (world, old, new) = rollout(
        World::new(4)
            .parallel()
            .max_unavailable(json!(1))
            .with_revision(),
    );
    let world = world
        .pod(0, &old, State::Ready)
        .pod(1, &old, State::Ready)
        .pod(2, &new, State::NotReady)
        .pod(3, &old, State::ImagePullBackOff);
    // Two unavailable for a budget of one: only the broken old pod goes.
    assert_eq!(deleted(&world.plan()), names(&["web-3"]));
}
