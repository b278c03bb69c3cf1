//! The KEP-3541 draft's EnforcedRollingUpdate.

use serde_json::json;

use super::super::fixtures::*;
use super::super::{ControllerGates, DeleteReason, Phase, ENFORCED_STARTED, FORCED_REPLACEMENT};

fn gates(on: bool) -> ControllerGates {
    ControllerGates {
        enforced_rolling_update_in_statefulset: on,
        ..ControllerGates::default()
    }
}

fn enforced(world: World, partition: Option<i32>) -> World {
    world
        .edit(|s| {
            s["spec"]["updateStrategy"] = match partition {
                Some(p) => json!({"type": "EnforcedRollingUpdate", "enforcedRollingUpdate": {"partition": p}}),
                None => json!({"type": "EnforcedRollingUpdate"}),
            }
        })
        .gates(gates(true))
}

/// web-0, web-1 Ready at the first revision; web-2 stuck in
/// ImagePullBackOff at a second one; the template changed again.
fn stuck(world: World) -> World {
    let mut world = world.image("app:2");
    let broken = world.revision_name();
    world.pods[2] = World::new(3).pod(2, &broken, State::ImagePullBackOff).pods[0].clone();
    world.image("app:3")
}

#[test]
fn a_stuck_pod_is_replaced_by_force_where_rolling_update_waits() {
    let world = stuck(enforced(World::stable(3), None));
    let plan = world.plan();
    assert_eq!(deleted(&plan), names(&["web-2"]));
    assert_eq!(delete_reasons(&plan), vec![DeleteReason::ForcedReplacement]);
    assert_eq!(events(&plan), vec![ENFORCED_STARTED, FORCED_REPLACEMENT]);
    assert_eq!(
        plan.phase,
        Phase::EnforcedRollingUpdate {
            partition: 0,
            safety_halt: false
        }
    );
    // The same pods under RollingUpdate: OrderedReady waits for web-2.
    let rolling = world.edit(|s| s["spec"]["updateStrategy"] = json!({"type": "RollingUpdate"}));
    assert!(deleted(&rolling.plan()).is_empty());
}

#[test]
fn a_healthy_pod_is_replaced_without_force_and_the_next_waits_for_it() {
    let world = enforced(World::stable(3), None).image("app:2");
    let plan = world.plan();
    assert_eq!(deleted(&plan), names(&["web-2"]));
    assert_eq!(delete_reasons(&plan), vec![DeleteReason::RollingUpdate]);
    assert_eq!(events(&plan), vec![ENFORCED_STARTED]);
    // web-2 recreated at the update revision and not ready: the safety halt.
    let mut halted = world.settle_status();
    let new = halted.revision_name();
    halted.pods[2] = World::new(3).pod(2, &new, State::NotReady).pods[0].clone();
    let plan = halted.plan();
    assert!(deleted(&plan).is_empty());
    // Not ready is not failing: no safety halt to count yet.
    assert!(matches!(
        plan.phase,
        Phase::EnforcedRollingUpdate {
            safety_halt: false,
            ..
        }
    ));
    halted.pods[2] = World::new(3).pod(2, &new, State::ImagePullBackOff).pods[0].clone();
    assert!(matches!(
        halted.plan().phase,
        Phase::EnforcedRollingUpdate {
            safety_halt: true,
            ..
        }
    ));
    // The condition records the rollout: no second Started event.
    assert!(events(&plan).is_empty(), "{:?}", events(&plan));
}

#[test]
fn the_partition_of_its_block_holds_lower_ordinals() {
    let mut world = enforced(World::stable(3), Some(2)).image("app:2");
    let new = world.revision_name();
    world.pods[2] = World::new(3).pod(2, &new, State::Ready).pods[0].clone();
    assert!(deleted(&world.plan()).is_empty());
}

#[test]
fn condemned_pods_go_without_waiting_for_their_health() {
    let mut world = enforced(World::stable(3), None);
    let current = world.revision_name();
    world.pods[1] = World::new(3).pod(1, &current, State::NotReady).pods[0].clone();
    world.pods[2] = World::new(3).pod(2, &current, State::NotReady).pods[0].clone();
    let world = world.replicas(1);
    assert_eq!(deleted(&world.plan()), names(&["web-2"]));
    let rolling = world.edit(|s| s["spec"]["updateStrategy"] = json!({"type": "RollingUpdate"}));
    assert!(deleted(&rolling.plan()).is_empty());
}

#[test]
fn with_the_gate_off_it_is_rolling_update() {
    let world = stuck(enforced(World::stable(3), None)).gates(gates(false));
    let plan = world.plan();
    assert!(deleted(&plan).is_empty());
    assert!(matches!(
        plan.phase,
        Phase::RollingUpdate { partition: 0, .. }
    ));
    assert!(plan
        .status
        .conditions
        .unwrap_or_default()
        .iter()
        .all(|c| c.type_.as_deref() != Some(super::super::ENFORCED_CONDITION)));
}
