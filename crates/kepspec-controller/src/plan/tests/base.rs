//! Revisions, history, errors, gates and status: what every strategy shares.

use serde_json::json;

use super::super::super::{revision, status};
use super::super::fixtures::*;
use super::super::{plan, Action, ControllerGates, Phase, PlanError};

fn revision_actions(plan: &super::super::Plan) -> Vec<&Action> {
    plan.actions
        .iter()
        .filter(|a| {
            matches!(
                a,
                Action::CreateRevision(_)
                    | Action::UpdateRevisionNumber { .. }
                    | Action::DeleteRevision { .. }
            )
        })
        .collect()
}

#[test]
fn a_new_set_gets_its_first_revision_and_first_pod() {
    let world = World::new(3);
    let plan = world.plan();
    let Action::CreateRevision(rev) = &plan.actions[0] else {
        panic!("first action creates the revision: {:?}", plan.actions[0]);
    };
    assert_eq!(
        rev.metadata.name.as_deref(),
        Some(world.revision_name().as_str())
    );
    assert_eq!(rev.revision, Some(1));
    let labels = rev.metadata.labels.clone().unwrap();
    assert_eq!(labels["app"], "web");
    assert!(world
        .revision_name()
        .ends_with(&labels[revision::CONTROLLER_REVISION_HASH_LABEL]));
    assert_eq!(
        created(&plan),
        vec![("web-0".to_string(), world.revision_name())]
    );
    assert_eq!(plan.status.update_revision, Some(world.revision_name()));
    assert_eq!(plan.status.current_revision, Some(world.revision_name()));
    assert_eq!(plan.status.collision_count, Some(0));
}

#[test]
fn a_stable_set_needs_nothing() {
    let world = World::stable(3);
    let plan = world.plan();
    assert!(plan.actions.is_empty(), "{:?}", plan.actions);
    assert!(!status::needs_update(
        world.set.status.as_ref(),
        &plan.status
    ));
    assert_eq!(plan.status.ready_replicas, Some(3));
    assert_eq!(plan.requeue_after, None);
}

#[test]
fn a_strategy_change_alone_makes_no_revision_and_no_rollout() {
    for world in [
        World::stable(3).recreate(),
        World::stable(3).on_delete(),
        World::stable(3).partition(2),
    ] {
        let plan = world.plan();
        assert!(revision_actions(&plan).is_empty());
        assert!(deleted(&plan).is_empty());
    }
}

#[test]
fn a_restart_annotation_makes_a_new_revision_and_a_rollout() {
    let world = World::stable(3).edit(|s| {
        s["spec"]["template"]["metadata"]["annotations"] =
            json!({"kubectl.kubernetes.io/restartedAt": "2026-11-22T01:00:00Z"})
    });
    let plan = world.plan();
    let Action::CreateRevision(rev) = &plan.actions[0] else {
        panic!("{:?}", plan.actions)
    };
    assert_eq!(rev.revision, Some(2));
    assert_eq!(deleted(&plan), names(&["web-2"]));
}

#[test]
fn rollback_reuses_the_equal_revision() {
    let world = World::stable(2);
    let first = world.revision_name();
    let world = world.image("app:2").with_revision().image("app:1");
    let plan = world.plan();
    assert_eq!(
        revision_actions(&plan),
        vec![&Action::UpdateRevisionNumber {
            name: first.clone(),
            revision: 3
        }]
    );
    assert_eq!(plan.status.update_revision, Some(first));
}

#[test]
fn a_name_collision_bumps_the_collision_count() {
    let mut world = World::new(1);
    let taken = world.revision_name();
    // Another revision holds the name with different data.
    let mut other = World::new(1)
        .image("other")
        .with_revision()
        .revisions
        .remove(0);
    other.metadata.name = Some(taken.clone());
    world.revisions.push(other);
    let plan = world.plan();
    let Action::CreateRevision(rev) = &plan.actions[0] else {
        panic!("{:?}", plan.actions)
    };
    assert_ne!(rev.metadata.name.as_deref(), Some(taken.as_str()));
    let data = revision::revision_data(&world.raw).unwrap();
    assert_eq!(
        rev.metadata.name,
        Some(revision::revision_name(
            "web",
            &revision::hash_revision(&data, 1)
        ))
    );
    assert_eq!(plan.status.collision_count, Some(1));
}

#[test]
fn history_is_trimmed_to_the_limit_oldest_first() {
    let mut world = World::new(1).edit(|s| s["spec"]["revisionHistoryLimit"] = json!(1));
    let mut olds = Vec::new();
    for image in ["a", "b", "c"] {
        world = world.image(image).with_revision();
        olds.push(world.revision_name());
    }
    let world = world.image("app:1").with_revision();
    let rev = world.revision_name();
    let world = world.pod(0, &rev, State::Ready).settle_status();
    let plan = world.plan();
    let trimmed: Vec<&Action> = revision_actions(&plan);
    assert_eq!(
        trimmed,
        vec![
            &Action::DeleteRevision {
                name: olds[0].clone()
            },
            &Action::DeleteRevision {
                name: olds[1].clone()
            }
        ]
    );
}

#[test]
fn a_set_being_deleted_only_gets_status() {
    let world =
        World::new(3).edit(|s| s["metadata"]["deletionTimestamp"] = json!("2026-11-22T00:00:00Z"));
    let plan = world.plan();
    assert_eq!(plan.phase, Phase::Deleting);
    assert!(plan
        .actions
        .iter()
        .all(|a| matches!(a, Action::CreateRevision(_))));
}

#[test]
fn sets_that_cannot_be_acted_on_are_errors() {
    let mismatch =
        World::new(1).edit(|s| s["spec"]["selector"] = json!({"matchLabels": {"app": "other"}}));
    let err = plan(&mismatch.observed(), &mismatch.gates).unwrap_err();
    assert_eq!(err, PlanError::SelectorMismatch("web".into()));
    assert_eq!(err.event().reason, "FailedSync");
    assert_eq!(
        err.event().message,
        "StatefulSet web: selector does not match template labels"
    );

    let empty = World::new(1).edit(|s| s["spec"]["selector"] = json!({}));
    assert!(matches!(
        plan(&empty.observed(), &empty.gates),
        Err(PlanError::EmptySelector(_))
    ));

    let bad_op = World::new(1).edit(|s| {
        s["spec"]["selector"] =
            json!({"matchExpressions": [{"key": "app", "operator": "Near", "values": ["web"]}]})
    });
    assert!(matches!(
        plan(&bad_op.observed(), &bad_op.gates),
        Err(PlanError::InvalidSelector { .. })
    ));

    let bad_budget = World::new(1).max_unavailable(json!("many"));
    let err = plan(&bad_budget.observed(), &bad_budget.gates).unwrap_err();
    assert!(err.to_string().contains("invalid maxUnavailable"), "{err}");
}

#[test]
fn selector_expressions_are_evaluated() {
    let world = World::new(1).edit(|s| {
        s["spec"]["selector"] = json!({"matchExpressions": [
            {"key": "app", "operator": "In", "values": ["web", "api"]},
            {"key": "tier", "operator": "DoesNotExist"}
        ]})
    });
    assert!(plan(&world.observed(), &world.gates).is_ok());
}

#[test]
fn gates_parse_like_feature_gate_flags() {
    let gates =
        ControllerGates::parse("StatefulSetRecreateStrategy=false, MaxUnavailableStatefulSet=true")
            .unwrap();
    assert_eq!(
        gates,
        ControllerGates {
            statefulset_recreate_strategy: false,
            max_unavailable_statefulset: true,
            enforced_rolling_update_in_statefulset: false,
        }
    );
    assert_eq!(
        ControllerGates::parse("").unwrap(),
        ControllerGates::default()
    );
    assert!(ControllerGates::parse("Nope=true").is_err());
    assert!(ControllerGates::parse("MaxUnavailableStatefulSet").is_err());
    assert!(ControllerGates::parse("MaxUnavailableStatefulSet=maybe").is_err());
}

#[test]
fn gates_follow_the_release_and_refuse_gates_it_lacks() {
    use kepspec_core::Version;
    let gates = |r, m, e| ControllerGates {
        statefulset_recreate_strategy: r,
        max_unavailable_statefulset: m,
        enforced_rolling_update_in_statefulset: e,
    };
    // StatefulSetRecreateStrategy arrives in v1.37, MaxUnavailableStatefulSet
    // in v1.24; the draft's gate is in no release and starts off.
    let (v123, v136, v137) = (
        Version::patch(1, 23, 0),
        Version::patch(1, 36, 0),
        Version::patch(1, 37, 0),
    );
    assert_eq!(
        ControllerGates::for_version(v123),
        gates(false, false, false)
    );
    assert_eq!(
        ControllerGates::for_version(v136),
        gates(false, true, false)
    );
    assert_eq!(ControllerGates::for_version(v137), gates(true, true, false));
    // Each named gate changes only itself, from the release's own gates.
    let parsed = |spec| ControllerGates::parse_for(spec, v137);
    assert_eq!(
        parsed("StatefulSetRecreateStrategy=false"),
        Ok(gates(false, true, false))
    );
    assert_eq!(
        parsed("MaxUnavailableStatefulSet=false"),
        Ok(gates(true, false, false))
    );
    assert_eq!(
        parsed("EnforcedRollingUpdateInStatefulSet=true"),
        Ok(gates(true, true, true))
    );
    assert_eq!(
        ControllerGates::parse_for("", v136),
        Ok(gates(false, true, false))
    );
    // A gate the release does not have is refused, as kube-controller-manager
    // refuses it.
    assert_eq!(
        ControllerGates::parse_for("StatefulSetRecreateStrategy=true", v136),
        Err("unrecognized feature gate: StatefulSetRecreateStrategy".to_string())
    );
    assert!(ControllerGates::parse_for("Nope=true", v137).is_err());
}

#[test]
fn a_written_status_reads_back_unchanged() {
    // The executor writes the status when its JSON differs from the served
    // one: a settled set must plan the very same JSON again.
    for world in [
        World::stable(3),
        World::stable(3).recreate().settle_status(),
        World::stable(3).on_delete().settle_status(),
        World::stable(3).image("app:2").settle_status(),
    ] {
        let plan = world.plan();
        assert_eq!(
            serde_json::to_value(&plan.status).unwrap(),
            world.raw["status"]
        );
    }
}
