//! The literal reading against the bundled one, on the same observed states.

use super::super::super::plan::fixtures::*;
use super::super::super::plan::{Phase, RecreatePhase};
use super::plan as literal;

fn literal_plan(world: &World) -> super::Plan {
    literal(&world.observed(), &world.gates).unwrap()
}

/// An OnDelete set whose template changed to a second revision while no pod
/// was deleted, then switched to Recreate.
fn switched_with_a_pending_change() -> World {
    World::stable(3)
        .on_delete()
        .settle_status()
        .image("app:2")
        .settle_status()
        .with_revision()
        .recreate()
}

#[test]
fn a_type_change_alone_starts_no_recreate() {
    let world = switched_with_a_pending_change();
    assert_eq!(
        deleted(&world.plan()),
        names(&["web-2", "web-1", "web-0"]),
        "the bundled reading finishes the pending rollout"
    );
    let plan = literal_plan(&world);
    assert!(deleted(&plan).is_empty(), "{:?}", plan.actions);
    assert!(events(&plan).is_empty());
    assert_eq!(plan.phase, Phase::OnDelete);
    // The status keeps naming the pending revision under the old strategy,
    // so the next sync decides the same.
    let (reason, message) = progressing(&plan);
    assert!(!reason.starts_with("Recreate"), "{reason}");
    assert!(message.contains(&world.revision_name()), "{message}");
}

#[test]
fn the_next_template_change_is_recreated() {
    let world = switched_with_a_pending_change()
        .settle_status()
        .image("app:3");
    let plan = literal_plan(&world);
    assert_eq!(plan.phase, Phase::Recreate(RecreatePhase::NeedsDeletion));
    assert_eq!(deleted(&plan), names(&["web-2", "web-1", "web-0"]));
    assert_eq!(events(&plan), names(&["RecreateStarted"]));
}

#[test]
fn a_recreate_started_by_a_template_change_is_not_held() {
    let before = World::stable(3).recreate().settle_status();
    let world = before.image("app:2");
    assert_eq!(deleted(&literal_plan(&world)), deleted(&world.plan()));
}

#[test]
fn phase_three_creates_the_next_ordinal_once_its_predecessor_is_ready() {
    let world = World::new(3).recreate().min_ready(10).with_revision();
    let rev = world.revision_name();
    let world = world.pod(0, &rev, State::ReadyFor(1)).settle_status();
    assert!(
        created_names(&world.plan()).is_empty(),
        "bundled waits for availability"
    );
    let plan = literal_plan(&world);
    assert_eq!(created_names(&plan), names(&["web-1"]));
    // The status still counts availability by minReadySeconds.
    assert_eq!(plan.status.available_replicas.unwrap_or(0), 0);
}

#[test]
fn an_ordered_scale_down_waits_for_every_predecessor() {
    let world = World::stable(4).replicas(2);
    let rev = world.revision_name();
    let mut world = world;
    world
        .pods
        .retain(|p| p.metadata.name.as_deref() != Some("web-2"));
    let world = world.pod(2, &rev, State::NotReady);
    assert_eq!(
        deleted(&world.plan()),
        names(&["web-3"]),
        "upstream's processCondemned"
    );
    assert!(deleted(&literal_plan(&world)).is_empty());
    // Once web-2 is ready again, web-3 goes.
    let mut ready = world;
    ready
        .pods
        .retain(|p| p.metadata.name.as_deref() != Some("web-2"));
    let ready = ready.pod(2, &rev, State::Ready);
    assert_eq!(deleted(&literal_plan(&ready)), names(&["web-3"]));
}

#[test]
fn an_update_rolled_by_a_gate_off_controller_is_recreated_by_a_gate_on_one() {
    let gate_off = super::super::super::plan::ControllerGates {
        statefulset_recreate_strategy: false,
        ..Default::default()
    };
    let before = World::stable(3).recreate().settle_status();
    let world = before.image("app:2").gates(gate_off);
    // The gate-off controller rolls one pod at a time and says why.
    let fallback = literal_plan(&world);
    assert_eq!(deleted(&fallback), names(&["web-2"]));
    let (_, message) = progressing(&fallback);
    assert!(
        message.starts_with("Recreate, rolled one pod at a time"),
        "{message}"
    );
    // A gate-on controller taking over recreates the rest.
    let world = world
        .status(fallback.status)
        .with_revision()
        .gates(Default::default());
    let plan = literal_plan(&world);
    assert_eq!(plan.phase, Phase::Recreate(RecreatePhase::NeedsDeletion));
    assert_eq!(deleted(&plan), names(&["web-2", "web-1", "web-0"]));
}
